// vs_1_1 skinning_3bone: indexed matrix-palette skinning with three bones.
// Exercises: vs_1_1 `mov a0.x` (floor to int) and relative constant
// addressing in both spellings, c[a0.x + n] and cN[a0.x]; dp4/dp3 rows of
// 4x3 bone matrices; weights summing to one; rsq normalisation; oD0, oT0.
// Constants: c0-c3 view-projection; c5 light direction (object space,
// normalised, pointing towards the light); c6 light colour; c7 ambient;
// c10.. bone palette, three registers (rows of a 4x3 matrix) per bone.
// Inputs: v2 = blend indices as floats (0..n-1), v1.xy = first two weights.
vs_1_1
def c4, 3, 1, 0, 0.5
dcl_position v0
dcl_blendweight v1
dcl_blendindices v2
dcl_normal v3
dcl_texcoord v4
mul r0.xyz, v2, c4.x
// bone 0, weight v1.x
mov a0.x, r0.x
dp4 r1.x, v0, c[a0.x + 10]
dp4 r1.y, v0, c[a0.x + 11]
dp4 r1.z, v0, c[a0.x + 12]
dp3 r2.x, v3, c[a0.x + 10]
dp3 r2.y, v3, c[a0.x + 11]
dp3 r2.z, v3, c[a0.x + 12]
mul r1.xyz, r1, v1.x
mul r2.xyz, r2, v1.x
// bone 1, weight v1.y
mov a0.x, r0.y
dp4 r3.x, v0, c10[a0.x]
dp4 r3.y, v0, c11[a0.x]
dp4 r3.z, v0, c12[a0.x]
dp3 r4.x, v3, c10[a0.x]
dp3 r4.y, v3, c11[a0.x]
dp3 r4.z, v3, c12[a0.x]
mad r1.xyz, r3, v1.y, r1
mad r2.xyz, r4, v1.y, r2
// bone 2, weight 1 - v1.x - v1.y
add r5.w, v1.x, v1.y
sub r5.w, c4.y, r5.w
mov a0.x, r0.z
dp4 r3.x, v0, c[10 + a0.x]
dp4 r3.y, v0, c[11 + a0.x]
dp4 r3.z, v0, c[12 + a0.x]
dp3 r4.x, v3, c[a0.x + 10]
dp3 r4.y, v3, c[a0.x + 11]
dp3 r4.z, v3, c[a0.x + 12]
mad r1.xyz, r3, r5.w, r1
mad r2.xyz, r4, r5.w, r2
// project the skinned position
mov r1.w, c4.y
m4x4 oPos, r1, c0
// diffuse lighting with the normalised skinned normal
dp3 r2.w, r2, r2
rsq r2.w, r2.w
mul r2.xyz, r2, r2.w
dp3 r6.x, r2, c5
max r6.x, r6.x, c4.z
mul r7.xyz, r6.x, c6
add oD0.xyz, r7, c7
mov oD0.w, c4.y
mov oT0.xy, v4
