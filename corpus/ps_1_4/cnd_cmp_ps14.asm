// ps_1_4 cnd_cmp_ps14: per-component selects between two images.
// Exercises: ps_1_4 cnd (per component: src0 > 0.5), cmp (src0 >= 0),
// the _x2 and -_x2 source modifiers, texkill on a register holding
// texcrd coordinates, lrp_sat, a co-issued pair, nop.
// Textures: stage 0 and stage 1 images.  Constants: c0 = 0.5, c1 weights.
ps_1_4
def c0, 0.5, 0.5, 0.5, 0.5
def c1, 0.25, 0.5, 0.75, 1
texld r0, t0
texld r1, t1
texcrd r2.rgb, t2
texkill r2
sub r3, r0, c0
cnd r4, r3, r0, r1
cmp r5, r3, r1, -r0_x2
lrp_sat r0.rgb, c0, r4, r5
+add_d2 r0.a, r4.a, r5.a
dp3_sat r2.rgb, r2, c1
nop
mul r0.rgb, r0, r2
