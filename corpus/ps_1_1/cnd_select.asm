// ps_1_1 cnd_select: two-layer decal blending chosen by a mask in alpha.
// Exercises: cnd (condition r0.a > 0.5 for all components) writing .rgb,
// a co-issued pair (mul .rgb + mov .a) that sets up the condition in an
// earlier instruction (the cnd itself is not co-issued), add with _sat.
// The mask survives in r0.a as the output alpha.
// Textures: stage 0 mask (alpha), stage 1 decal, stage 2 base.
ps_1_1
def c0, 0.1, 0.1, 0.1, 0
tex t0
tex t1
tex t2
mul r1.rgb, t2, v0
+mov r0.a, t0.a
cnd r0.rgb, r0.a, t1, r1
add_sat r0.rgb, r0, c0
