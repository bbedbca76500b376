// ps_1_4 shifts_ps14: the full ps_1_4 result-shift range on a simple
// image mix.
// Exercises: result shifts _x8, _d8, _d4 (ps_1_4 only) and _x4, _x2, _d2,
// with _sat; the _x2 source modifier; dp4; co-issue; v0 read in a shader
// without a phase marker (all of it is phase 2).
// Textures: stage 0 and stage 1 images.
ps_1_4
def c0, 0.125, 0.25, 0.5, 1
def c1, -0.5, 0.5, 0.25, 0.75
texld r0, t0
texld r1, t1
mul_x8 r2, r0, c0.r
mad_x4 r2.rgb, r2, c0.g, -r1_x2
+mul_d4 r2.a, r0.a, r1.a
add_d2 r3, r0_x2, -r1
dp4_x2 r4, r2, c1
mul_d8 r5, r3, c0.a
sub_sat r0.rgb, r2, r5
+mov_x4 r0.a, r2.a
mad_sat r0.rgb, r0, r4, v0
