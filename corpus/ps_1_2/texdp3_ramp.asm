// ps_1_2 texdp3_ramp: a dot product computed by the texture unit, used as
// a cartoon shading factor together with a cmp step.
// Exercises: texdp3 (t1 = t1 coordinates . t0 replicated to rgba, no
// sampling), cmp against a negated bias, dp4 in ps_1_2.
// Textures: stage 0 normal map.  Constants: c0 = -0.5 (step), c1 lit
// colour, c2 shadow colour, c3 dp4 weights.
ps_1_2
def c0, -0.5, -0.5, -0.5, -0.5
tex t0
texdp3 t1, t0_bx2
add r1, t1, c0
cmp r0, r1, c1, c2
dp4 r1, v0, c3
mul r0, r0, r1
