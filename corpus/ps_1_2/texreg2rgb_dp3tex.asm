// ps_1_2 texreg2rgb_dp3tex: a 3D colour-correction lookup followed by a
// 1D ramp addressed by a dot product.
// Exercises: texreg2rgb (coordinates = t0.rgb), texdp3tex (u = t2
// coordinates . t0, v = 0), cmp (per-component >= 0 select), dp4.
// Textures: stage 0 source image, stage 1 volume LUT, stage 2 ramp.
// Constants: c0 threshold offsets, c1 weights for the dp4.
ps_1_2
def c2, 0, 0, 0, 1
tex t0
texreg2rgb t1, t0
texdp3tex t2, t0
add r0, t1, -c0
cmp r0, r0, t1, t2
dp4 r1, t0, c1
mad r0.rgb, r0, v0, r1
+mov r0.a, c2.a
