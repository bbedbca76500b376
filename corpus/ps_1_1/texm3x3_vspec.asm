// ps_1_1 texm3x3_vspec: bumped reflection with a per-pixel eye vector
// taken from the .w of the three matrix rows.
// Exercises: texm3x3vspec, mad with the specular input colour.
// Textures: stage 0 normal map, stage 3 environment cube map.
ps_1_1
tex t0
texm3x3pad t1, t0_bx2
texm3x3pad t2, t0_bx2
texm3x3vspec t3, t0_bx2
mad r0, t3, v1, v0
