// vs_1_1 point_light_lit_dst: per-vertex Blinn-Phong point light with
// distance attenuation.
// Exercises: dst (builds (1, d, d^2, 1/d)), lit (diffuse/specular terms with
// a specular power in .w), rcp, rsq, m4x3 and m3x3 macros, max, oD0/oD1.
// Constants: c0-c3 world-view-projection; c4-c6 world matrix rows;
// c8 light position (world); c9 eye position (world);
// c11 attenuation (a0, a1, a2, 0); c12 light colour; c13 ambient colour.
vs_1_1
def c10, 0, 1, 0.5, 16
dcl_position v0
dcl_normal v1
dcl_texcoord v2
m4x4 oPos, v0, c0
m4x3 r0.xyz, v0, c4
m3x3 r1.xyz, v1, c4
// light vector and distance terms
add r2.xyz, c8, -r0
dp3 r2.w, r2, r2
rsq r3.w, r2.w
mul r2.xyz, r2, r3.w
dst r4, r2.wwww, r3.wwww
dp3 r5.x, r4, c11
rcp r5.x, r5.x
// half vector H = normalize(normalize(E - P) + L)
add r6.xyz, c9, -r0
dp3 r6.w, r6, r6
rsq r6.w, r6.w
mad r6.xyz, r6, r6.w, r2
dp3 r6.w, r6, r6
rsq r6.w, r6.w
mul r6.xyz, r6, r6.w
// normalised normal
dp3 r1.w, r1, r1
rsq r1.w, r1.w
mul r1.xyz, r1, r1.w
// lit input: x = N.L, y = N.H, w = power
mov r7, c10
dp3 r7.x, r1, r2
dp3 r7.y, r1, r6
lit r8, r7
mul r8.yz, r8, r5.x
mul r9.xyz, r8.y, c12
add oD0.xyz, r9, c13
mov oD0.w, c10.y
mul oD1.xyz, r8.z, c12
mov oD1.w, c10.x
mov oT0.xy, v2
