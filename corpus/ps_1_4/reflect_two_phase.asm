// ps_1_4 reflect_two_phase: a bumped reflection vector computed with
// arithmetic in phase 1 and used for a cube-map read in phase 2.
// Exercises: dp3 and mad with _bx2 and _x2 sources in phase 1, texld of a
// cube map from an r# (three components) in phase 2, mul_x2.
// Textures: stage 0 normal map, stage 3 environment cube, stage 4 base.
// Inputs: t1 = eye vector in tangent space (normalised).
ps_1_4
texld r0, t0
texcrd r1.rgb, t1
dp3 r2, r0_bx2, r1
mad r3.rgb, r2_x2, r0_bx2, -r1
phase
texld r3, r3
texld r4, t4
mul r0.rgb, r3, r4
+mov r0.a, r4.a
mul_x2 r0.rgb, r0, v0
