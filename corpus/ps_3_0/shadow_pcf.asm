// ps_3_0 shadow_pcf: spot-light shadow with a 4-tap percentage-closer
// filter, plus a point-light cube shadow and a volumetric light falloff.
// Exercises: texldp from a 2d shadow map inside a rep (offsets advanced
// through temporaries), texld with cube and volume samplers, texldb,
// slt-based depth comparison, cmp.
// Inputs: v0 light-space position (projective), v1.xyz light-to-pixel
// vector, v2.xyz falloff volume coordinate, v3.xy texcoord.
// Textures: s0 shadow map (depth in .r), s1 cube distance map, s2 falloff
// volume, s3 base colour.  Constants: c0.xy tap spacing; c1.x depth
// bias; c1.y cube-map distance scale; c1.z mip bias.
ps_3_0
def c2, 0, 1, 0.25, -1
defi i0, 4, 0, 0, 0
dcl_texcoord0 v0
dcl_texcoord1 v1.xyz
dcl_texcoord2 v2.xyz
dcl_texcoord3 v3.xy
dcl_2d s0
dcl_cube s1
dcl_2d s3
dcl_volume s2
// reference depth z/w minus bias
rcp r0.w, v0.w
mul r0.x, v0.z, r0.w
add r0.x, r0.x, -c1.x
mov r1, v0
mov r2.xy, c0
mov r2.zw, c2.x
mov r3, c2.x
rep i0
    texldp r4, r1, s0
    slt r5.x, r0.x, r4.x
    add r3.x, r3.x, r5.x
    // next tap: rotate the offset by 90 degrees, (x, y) -> (-y, x)
    mad r1.xy, r2, v0.w, r1
    mov r6.x, -r2.y
    mov r6.y, r2.x
    mov r2.xy, r6
endrep
mul r3.x, r3.x, c2.z
// point-light shadow from a cube distance map
texld r7, v1, s1
dp3 r8.x, v1, v1
rsq r8.x, r8.x
rcp r8.x, r8.x
mul r8.y, r7.x, c1.y
add r8.z, r8.y, -r8.x
cmp r8.w, r8.z, c2.y, c2.x
texld r9, v2, s2
mov r10.xy, v3
mov r10.w, c1.z
texldb r11, r10, s3
mul r11.xyz, r11, r9
mul r11.xyz, r11, r3.x
mul r11.xyz, r11, r8.w
mov oC0, r11
