// vs_2_0 morph_targets: blends a base mesh with two morph targets and
// transforms the result.
// Exercises: usage indices on inputs (position1/2, normal1/2), lrp between
// two vertex streams, mad accumulation of deltas, nrm of the blended
// normal, rsq-free lighting with max.
// Constants: c0-c3 world-view-projection; c4.x/.y = morph weights;
// c5 light direction (normalised); c6 light colour.
vs_2_0
def c7, 0, 1, 0, 0
dcl_position v0
dcl_position1 v1
dcl_position2 v2
dcl_normal v3
dcl_normal1 v4
dcl_normal2 v5
dcl_texcoord v6
// position: base + w1 (p1 - base) + w2 (p2 - base)
mov r0, v0
add r1.xyz, v1, -r0
add r2.xyz, v2, -r0
mad r0.xyz, r1, c4.x, r0
mad r0.xyz, r2, c4.y, r0
m4x4 oPos, r0, c0
// normal: two successive lerps toward each target normal
mov r3, v3
lrp r4.xyz, c4.x, v4, r3
lrp r5.xyz, c4.y, v5, r4
nrm r6.xyz, r5
dp3 r7.x, r6, c5
max r7.x, r7.x, c7.x
mul oD0.xyz, r7.x, c6
mov oD0.w, c7.y
mov oT0.xy, v6
