// ps_1_1 texm3x2_lighting: per-pixel (N.L, N.H) lighting through a 2D
// lookup table addressed by a 3x2 matrix product.
// Exercises: texm3x2pad and texm3x2tex with a _bx2 source (normal map
// unpacked to [-1, 1]); the matrix rows are the stage 1 and 2 texture
// coordinates.
// Textures: stage 0 normal map, stage 2 lighting lookup (u = N.L,
// v = N.H).
ps_1_1
tex t0
texm3x2pad t1, t0_bx2
texm3x2tex t2, t0_bx2
mul r0, t2, v0
