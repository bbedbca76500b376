// ps_1_3 fresnel_reflection: bumped cube-map reflection blended with the
// diffuse colour by a Fresnel-like (1 - N.E)^2 term.
// Exercises: texm3x3spec with a constant eye vector, dp3 with a _bx2
// source, the complement modifier on both sources of a mul, lrp, a
// co-issued add on alpha, cmp writing only .a.
// Textures: stage 0 normal map, stage 3 environment cube.
// Constants: c0 eye vector (tangent space); c1.a alpha threshold.
ps_1_3
def c0, 0, 0, 1, 0
def c1, 0.2, 0.2, 0.2, 0.8
tex t0
texm3x3pad t1, t0_bx2
texm3x3pad t2, t0_bx2
texm3x3spec t3, t0_bx2, c0
dp3_sat r0, t0_bx2, c0
mul r1, 1-r0, 1-r0
lrp r0.rgb, r1, t3, v0
+add r0.a, r1.a, -c1.a
cmp r0.a, r0.a, c1.a, v0.a
