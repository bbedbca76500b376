// ps_1_1 texm3x3_cubemap: normal map rotated into world space and used to
// look up a diffuse irradiance cube map.
// Exercises: texm3x3pad, texm3x3pad, texm3x3tex (3x3 matrix from the
// texture coordinates of stages 1-3), _bx2 sources.
// Textures: stage 0 normal map, stage 3 cube map.
ps_1_1
tex t0
texm3x3pad t1, t0_bx2
texm3x3pad t2, t0_bx2
texm3x3tex t3, t0_bx2
mul r0, t3, v0
