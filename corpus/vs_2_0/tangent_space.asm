// vs_2_0 tangent_space: builds a per-vertex tangent frame and sends the
// light and half vectors to a bump-mapping pixel shader.
// Exercises: dcl_tangent, crs (binormal = N x T, .xyz mask), nrm, dp3
// frame projection, packing a signed vector into [0, 1] for oD0.
// Constants: c0-c3 world-view-projection; c4 light position (object
// space); c5 eye position (object space).
vs_2_0
def c6, 0.5, 1, 0, 0
dcl_position v0
dcl_normal v1
dcl_tangent v2
dcl_texcoord v3
m4x4 oPos, v0, c0
nrm r0.xyz, v1
nrm r1.xyz, v2
crs r2.xyz, r0, r1
// light vector in tangent space, packed for a colour interpolator
add r3.xyz, c4, -v0
nrm r4.xyz, r3
dp3 r5.x, r4, r1
dp3 r5.y, r4, r2
dp3 r5.z, r4, r0
mad oD0.xyz, r5, c6.x, c6.x
mov oD0.w, c6.y
// half vector in tangent space, unpacked in a texture coordinate
add r6.xyz, c5, -v0
nrm r7.xyz, r6
add r8.xyz, r7, r4
nrm r9.xyz, r8
dp3 r10.x, r9, r1
dp3 r10.y, r9, r2
dp3 r10.z, r9, r0
mov r10.w, c6.y
mov oT1, r10
mov oT0.xy, v3
