// ps_1_3 texm3x2depth_sprite: depth sprites, the per-pixel depth taken
// from a dot-product ratio.
// Exercises: texm3x2pad then texm3x2depth (depth = (t1.t0) / (t2.t0),
// 1.0 when the divisor is 0), plain colour output.
// Textures: stage 0 depth-offset map.
ps_1_3
tex t0
texm3x2pad t1, t0_bx2
texm3x2depth t2, t0_bx2
mov r0, v0
