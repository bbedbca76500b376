// ps_3_0 mrt_depth: deferred G-buffer pass writing four colour targets and
// depth.
// Exercises: oC0, oC1, oC2, oC3 and oDepth together, dcl_texcoord with
// usage indices, dcl_tangent/dcl_binormal inputs, _sat.
// Inputs: v0.xy uv, v1.xyz normal, v2.xyz tangent, v3.xyz binormal,
// v4.xyz view position.  Textures: s0 albedo, s1 normal map.
// Constants: c0.x = 1 / far plane.
ps_3_0
def c1, 2, -1, 0.5, 1
dcl_texcoord0 v0.xy
dcl_normal v1.xyz
dcl_tangent v2.xyz
dcl_binormal v3.xyz
dcl_texcoord1 v4.xyz
dcl_2d s0
dcl_2d s1
texld r0, v0, s0
mov oC0, r0
texld r1, v0, s1
mad r1.xyz, r1, c1.x, c1.y
mul r2.xyz, r1.x, v2
mad r2.xyz, r1.y, v3, r2
mad r2.xyz, r1.z, v1, r2
nrm r3.xyz, r2
mad r3.xyz, r3, c1.z, c1.z
mov r3.w, c1.w
mov oC1, r3
mov r4.xyz, v4
mov r4.w, c1.w
mov oC2, r4
mul_sat r5.x, v4.z, c0.x
mov r5.yzw, c1.zzzw
mov oC3, r5
mov oDepth, r5.x
