// vs_2_0 lights_loop: four point lights accumulated in a `loop`.
// Exercises: loop aL, i0 with a step of 2 (light records are two registers
// wide), relative constant addressing through aL in both spellings
// (c20[aL], c[aL + 21]), defi, nrm, pow, max, m4x3/m3x3 macros.
// Constants: c0-c3 world-view-projection; c4-c6 world rows; c7 eye
// position (world); c8 material diffuse; c9 material specular, .w = power;
// c20+2k = light k position (world), c21+2k = light k colour, k = 0..3.
vs_2_0
def c10, 0, 1, 0.5, 0
defi i0, 4, 0, 2, 0
dcl_position v0
dcl_normal v1
dcl_texcoord v2
m4x4 oPos, v0, c0
m4x3 r0.xyz, v0, c4
m3x3 r1.xyz, v1, c4
nrm r2.xyz, r1
add r3.xyz, c7, -r0
nrm r4.xyz, r3
mov r5, c10.x
mov r6, c10.x
loop aL, i0
    add r7.xyz, c20[aL], -r0
    nrm r8.xyz, r7
    dp3 r9.x, r2, r8
    max r9.x, r9.x, c10.x
    mad r5.xyz, r9.x, c21[aL], r5
    add r10.xyz, r8, r4
    nrm r11.xyz, r10
    dp3 r9.y, r2, r11
    max r9.y, r9.y, c10.x
    pow r9.z, r9.y, c9.w
    mad r6.xyz, r9.z, c[aL + 21], r6
endloop
mul oD0.xyz, r5, c8
mov oD0.w, c8.w
mul oD1.xyz, r6, c9
mov oD1.w, c10.x
mov oT0.xy, v2
