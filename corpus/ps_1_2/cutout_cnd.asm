// ps_1_2 cutout_cnd: an alpha-cutout sprite with a highlight band chosen by
// cnd, clipped by a texture-coordinate plane.
// Exercises: texkill in ps_1_2, cnd with its r0.a condition produced by a
// preceding instruction, sub with the _x2 result shift, mad with _bias.
// Textures: stage 0 sprite, stage 1 highlight ramp; set 2 clip plane
// distances.  Constants: c0 highlight colour.
ps_1_2
def c0, 1, 0.9, 0.6, 1
tex t0
tex t1
texkill t2
sub_x2 r0.a, t0.a, t1_bias.a
mad r1, t1_bias, c0, t0
cnd r0.rgb, r0.a, r1, t0
mov r0.a, t0.a
