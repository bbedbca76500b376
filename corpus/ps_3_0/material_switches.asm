// ps_3_0 material_switches: an uber-shader whose features are switched by
// boolean constants, with a per-pixel normal transform and a bounded loop.
// Exercises: defb, if b# / else, if !b#, rep with break inside if_ge, m3x3
// and m4x4 in a pixel shader, dp4, sub.
// Inputs: v0.xy uv, v1.xyz tangent-space normal, v2 position.
// Textures: s0 base.  Constants: c0-c2 tangent-to-world rows; c4-c7 a
// colour matrix; c8 a plane (dp4); b0 = apply the colour matrix.
ps_3_0
def c10, 0, 1, 0.5, 0.2
defb b1, false
defi i0, 8, 0, 0, 0
dcl_texcoord0 v0.xy
dcl_texcoord1 v1.xyz
dcl_texcoord2 v2
dcl_2d s0
texld r0, v0, s0
if b0
    m4x4 r1, r0, c4
else
    mov r1, r0
endif
m3x3 r2.xyz, v1, c0
nrm r3.xyz, r2
if !b1
    mad r1.xyz, r3, c10.w, r1
endif
// fade by the signed distance to a plane, in at most 8 halvings
dp4 r4.x, v2, c8
mov r5, r1
rep i0
    if_ge r4.x, c10.x
        break
    endif
    mul r5.xyz, r5, c10.z
    add r4.x, r4.x, c10.y
endrep
sub r6, r1, r5
mad r6, r6, c10.z, r5
mov oC0, r6
