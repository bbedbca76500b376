// ps_1_3 shifts_ps13: image adjustments using each ps_1_1-1_3 result shift
// and the remaining source modifiers.
// Exercises: _x2, _x4, _d2 result shifts combined with _sat, _bias,
// -_bx2, 1- (complement); texcoord; texkill on set 2 as a clip plane;
// dp4 (never co-issued in ps_1_x); a co-issued .rgb/.a pair.
// Textures: stage 1 image.  Constants: c0 contrast pivot, c1 tint.
ps_1_3
def c0, 0.5, 0.5, 0.5, 0.5
def c1, 0.9, 0.8, 0.7, 1
texcoord t0
tex t1
texkill t2
sub_x4 r0, t1, c0
add_d2 r0, r0, t1_bias
mad_sat r1, 1-t1, c1, -v0_bx2
mul_x2_sat r0.rgb, r0, r1
+mul r0.a, t0.a, c1.a
dp4 r1, t0, c1
add_d2 r0.rgb, r0, r1
