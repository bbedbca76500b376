// vs_2_x predicated_lighting: two-sided lighting decided per component
// with the predicate register instead of branches.
// Exercises: setp_gt / setp_le writing p0 (full and partial masks),
// predicated instructions with a replicate predicate swizzle (p0.x),
// a negated one (!p0.y), the identity swizzle (p0, one predicate
// component per destination component), and a swizzled one (p0.wzyx).
// Constants: c0-c3 world-view-projection; c4 light direction; c5 view
// direction (both normalised, object space); c6 back-face colour;
// c7 colour used when the surface faces away from the viewer;
// c8 per-component highlight.
vs_2_x
def c10, 0, 1, 0.5, 0
dcl_position v0
dcl_normal v1
dcl_color v2
m4x4 oPos, v0, c0
nrm r0.xyz, v1
dp3 r1.x, r0, c4
dp3 r1.y, r0, c5
mov r1.zw, c10.xxxy
// p0 = (N.L > 0, N.V > 0, false, true)
setp_gt p0, r1, c10.x
mov r2, c6
(p0.x) mul r2, v2, r1.x
(!p0.y) mov r2.xyz, c7
mov r3, c10.x
(p0) mov r3, c8
(p0.wzyx) add r3, r3, c10.z
// p0.xy = (N.L <= 0.5, N.V <= 0.5)
setp_le p0.xy, r1, c10.z
(p0.x) mul r3.xyz, r3, c10.z
(!p0.y) add r2.w, r2.w, -c10.z
mov oD0, r2
mov oD1, r3
