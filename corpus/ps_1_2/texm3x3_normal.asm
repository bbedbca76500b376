// ps_1_2 texm3x3_normal: normal map transformed to eye space without a
// lookup, then lit with a dot product.
// Exercises: texm3x3 (result = (row0, row1, row2, 1), no sampling),
// dp3 against the light vector in v0 (_bx2), mul with _x2 shift.
// Textures: stage 0 normal map.  Inputs: v0.rgb packed light vector,
// v1 material colour.
ps_1_2
tex t0
texm3x3pad t1, t0_bx2
texm3x3pad t2, t0_bx2
texm3x3 t3, t0_bx2
dp3_sat r0, t3, v0_bx2
mul_x2 r0, r0, v1
