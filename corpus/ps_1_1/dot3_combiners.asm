// ps_1_1 dot3_combiners: dot3 bump lighting with a gloss-dependent
// specular tint, written the way register-combiner shaders were.
// Exercises: source modifiers _bx2, -_bx2, _bias, -_bias, 1-, and -;
// result shifts _x2, _x4 and _d2; _sat; co-issued .rgb/.a pairs (+);
// dp3, mad, sub, lrp, cnd with r0.a as its condition.
// Textures: stage 0 base colour (alpha = gloss), stage 1 normal map.
// Inputs: v0 diffuse colour, v1.rgb light vector packed into [0, 1].
// Constants: c0 = 0.5 (all components), c1 specular tint.
ps_1_1
def c0, 0.5, 0.5, 0.5, 0.5
def c1, 0.3, 0.25, 0.2, 1
tex t0
tex t1
dp3_sat r1, t1_bx2, v1_bx2
mul r0.rgb, t0, v0
+mov r0.a, 1-t0.a
mul_x2 r0.rgb, r0, r1
+add_d2 r0.a, r0.a, -t1_bias.a
mad_sat r1.rgb, -v1_bx2, c0, c1
+sub_x4 r1.a, t0.a, c0.a
lrp r1.rgb, t1_bias, r1, r0
+mul r1.a, -r1.a, -t0_bias.a
cnd r0, r0.a, r0, r1
