// ps_3_sw sw_face_loop: two-sided ambient occlusion gathered from input
// registers with the loop counter.
// Exercises: v[aL] input indexing, vFace in setp, predicated add, texld
// with a cube sampler, labels and loops in the software profile.
// Inputs: v0-v2 occlusion terms in .x, v3.xyz normal.  Textures: s0
// ambient cube.
ps_3_sw
def c0, 0, 1, 0.333333, -1
defi i0, 3, 0, 1, 0
dcl_texcoord0 v0.x
dcl_texcoord1 v1.x
dcl_texcoord2 v2.x
dcl_normal v3.xyz
dcl vFace
dcl_cube s0
mov r0, c0.x
loop aL, i0
    add r0.x, r0.x, v[aL].x
endloop
mul r0.x, r0.x, c0.z
nrm r1.xyz, v3
setp_lt p0.x, vFace, c0.x
(p0.x) mul r1.xyz, r1, c0.w
texld r2, r1, s0
mul r2.xyz, r2, r0.x
mov oC0, r2
