// vs_3_sw vertex_texture_sw: terrain vertex shader sampling a height map
// and a normal map at explicit LODs, with output relative addressing.
// Exercises: texldl in the software profile, o[aL + 2] writes, predicated
// texldl, setp_gt.
// Constants: c0-c3 world-view-projection; c4.x = height scale;
// c5-c6 two LOD values for the two detail outputs.
vs_3_sw
def c10, 0, 1, 0.5, 0
defi i0, 2, 0, 1, 0
dcl_position v0
dcl_texcoord v1
dcl_2d s0
dcl_2d s1
dcl_position o0
dcl_texcoord o1.xy
dcl_texcoord1 o2
dcl_texcoord2 o3
mov r0.xy, v1
mov r0.zw, c10.x
texldl r1, r0, s0
mov r2, v0
mad r2.y, r1.x, c4.x, r2.y
m4x4 o0, r2, c0
mov o1.xy, v1
mov r3, c10.x
setp_gt p0.x, r1.x, c10.z
(p0.x) texldl r3, r0, s1
loop aL, i0
    mov r0.w, c5[aL].x
    texldl r4, r0, s1
    add o[aL + 2], r4, r3
endloop
