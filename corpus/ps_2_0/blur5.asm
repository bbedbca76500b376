// ps_2_0 blur5: a five-tap separable Gaussian blur pass.
// Exercises: dcl t0.xy, dcl_2d s0, texld from computed coordinates, add of
// constant offsets, weighted accumulation with mul/mad, oC0.
// Constants: c0-c3 tap offsets (.xy, in texels already scaled to UV);
// c4.x centre weight, c4.y inner weight, c4.z outer weight.
ps_2_0
dcl t0.xy
dcl_2d s0
texld r0, t0, s0
mul r0, r0, c4.x
add r1.xy, t0, c0
texld r1, r1, s0
mad r0, r1, c4.y, r0
add r2.xy, t0, c1
texld r2, r2, s0
mad r0, r2, c4.y, r0
add r3.xy, t0, c2
texld r3, r3, s0
mad r0, r3, c4.z, r0
add r4.xy, t0, c3
texld r4, r4, s0
mad r0, r4, c4.z, r0
mov oC0, r0
