// ps_1_4 bem_dependent: bump environment mapping done the ps_1_4 way: the
// perturbation is computed by arithmetic in phase 1 and used as texture
// coordinates by a dependent read in phase 2.
// Exercises: texld from t#, texcrd .rgb, bem (.rg mask, bump matrix of
// stage 2 because the destination is r2), phase, texld from an r#
// written in phase 1, a co-issued pair.
// Textures: stage 0 du/dv map, stage 2 environment map, stage 3 base.
ps_1_4
def c0, 0, 0, 0, 1
texld r0, t0
texcrd r1.rgb, t1
mov r2.b, r1
bem r2.rg, r1, r0
phase
texld r2, r2
texld r3, t3
mul r0.rgb, r2, r3
+mov r0.a, c0.a
