// ps_1_1 texm3x3_spec: bumped specular reflection with a constant eye
// vector.
// Exercises: texm3x3spec with the eye vector in c0, added to a diffuse
// term with the _sat result modifier.
// Textures: stage 0 normal map, stage 3 specular cube map.
// Constants: c0 eye vector (tangent space).
ps_1_1
tex t0
texm3x3pad t1, t0_bx2
texm3x3pad t2, t0_bx2
texm3x3spec t3, t0_bx2, c0
add_sat r0, t3, v0
