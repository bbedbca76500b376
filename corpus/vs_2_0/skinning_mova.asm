// vs_2_0 skinning_mova: four-bone matrix-palette skinning.
// Exercises: mova (round to nearest) into each component of a0 (w, x, y,
// z) and relative addressing through each of them; matrix macros with a
// relatively addressed matrix operand (m4x3/m3x3 rows follow the index);
// c[a0.w + n] and cN[a0.x] spellings; dp3 weight sum.
// Constants: c0-c3 view-projection; c5 light direction (normalised);
// c6 light colour; c12.. bone palette, three rows per bone.
// Inputs: v2 = four bone indices (floats), v1.xyz = first three weights.
vs_2_0
def c4, 3, 1, 0, 0.5
dcl_position v0
dcl_blendweight v1
dcl_blendindices v2
dcl_normal v3
dcl_texcoord v4
mul r0, v2, c4.x
// bone 0 through a0.w
mova a0.w, r0.x
dp4 r1.x, v0, c12[a0.w]
dp4 r1.y, v0, c13[a0.w]
dp4 r1.z, v0, c14[a0.w]
m3x3 r2.xyz, v3, c[a0.w + 12]
mul r1.xyz, r1, v1.x
mul r2.xyz, r2, v1.x
// bone 1 through a0.x
mova a0.x, r0.y
m4x3 r3.xyz, v0, c12[a0.x]
m3x3 r4.xyz, v3, c12[a0.x]
mad r1.xyz, r3, v1.y, r1
mad r2.xyz, r4, v1.y, r2
// bone 2 through a0.y
mova a0.y, r0.z
m4x3 r3.xyz, v0, c[a0.y + 12]
m3x3 r4.xyz, v3, c[a0.y + 12]
mad r1.xyz, r3, v1.z, r1
mad r2.xyz, r4, v1.z, r2
// bone 3 through a0.z, weight 1 - (w0 + w1 + w2)
dp3 r5.w, v1, c4.y
add r5.w, c4.y, -r5.w
mova a0.z, r0.w
m4x3 r3.xyz, v0, c[a0.z + 12]
m3x3 r4.xyz, v3, c[a0.z + 12]
mad r1.xyz, r3, r5.w, r1
mad r2.xyz, r4, r5.w, r2
mov r1.w, c4.y
m4x4 oPos, r1, c0
nrm r6.xyz, r2
dp3 r7.x, r6, c5
max r7.x, r7.x, c4.z
mul oD0.xyz, r7.x, c6
mov oD0.w, c4.y
mov oT0.xy, v4
