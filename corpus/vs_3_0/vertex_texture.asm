// vs_3_0 vertex_texture: displacement mapping and per-vertex lookups.
// Exercises: texldl (explicit LOD in .w) from a 2d, a cube and a volume
// sampler declared in the vertex shader (dcl_2d s0, dcl_cube s1,
// dcl_volume s2).
// Constants: c0-c3 world-view-projection; c4.x = displacement scale;
// c5.x = noise frequency; c5.y = environment LOD.
vs_3_0
def c10, 0, 1, 0.5, 0
dcl_position v0
dcl_normal v1
dcl_texcoord v2
dcl_2d s0
dcl_cube s1
dcl_volume s2
dcl_position o0
dcl_color o1
dcl_texcoord o2.xy
// height from mip 0 of the height map
mov r0.xy, v2
mov r0.zw, c10.x
texldl r1, r0, s0
mul r2.xyz, v1, r1.x
mad r2.xyz, r2, c4.x, v0
mov r2.w, c10.y
m4x4 o0, r2, c0
// environment colour along the normal at a chosen LOD
mov r3.xyz, v1
mov r3.w, c5.y
texldl r4, r3, s1
// 3D noise at LOD 0
mul r5.xyz, v0, c5.x
mov r5.w, c10.x
texldl r6, r5, s2
mul o1, r4, r6
mov o2.xy, v2
