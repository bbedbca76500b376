// ps_3_0 predicated_texld: selects between a near and a far texture with
// predicated sampling, and blends in a projected caustic.
// Exercises: predicated texld, texldp and texldl ((p0.x), (!p0.x)),
// predicated arithmetic with a per-component predicate (p0), setp_lt,
// setp_eq, texldp with a cube sampler (projected cube light), texldb with
// a volume sampler.
// Inputs: v0.xy uv, v1.x view depth, v2 projective caustic coordinate,
// v3 projective cube coordinate, v4.xyz volume coordinate.
// Textures: s0 near detail, s1 far detail, s2 caustics, s3 light cube,
// s4 fog volume.  Constants: c0.x near/far threshold; c1.x fog LOD bias.
ps_3_0
def c2, 0, 1, 0.5, 0.25
dcl_texcoord0 v0.xy
dcl_texcoord1 v1.x
dcl_texcoord2 v2
dcl_texcoord3 v3
dcl_texcoord4 v4.xyz
dcl_2d s0
dcl_2d s1
dcl_2d s2
dcl_cube s3
dcl_volume s4
mov r0, c2.x
mov r1.xy, v0
mov r1.zw, c2.x
setp_lt p0.x, v1.x, c0.x
(p0.x) texld r0, v0, s0
(!p0.x) texldl r0, r1, s1
texldp r2, v2, s2
texldp r3, v3, s3
mov r4.xyz, v4
mov r4.w, c1.x
texldb r5, r4, s4
setp_eq p0, r2, c2.x
mov r6, r2
(p0) mov r6, c2.w
(!p0.x) texldp r7, v2, s2
(p0.x) mov r7, c2.x
mad r0, r6, c2.z, r0
mad r0, r7, c2.w, r0
mul r0, r0, r3
lrp r0, r5.a, r5, r0
mov oC0, r0
