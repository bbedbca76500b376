// ps_1_4 projective_textures: a projected spotlight cookie, a projected
// shadow map and a screen-space lookup.
// Exercises: texld with t#_dw.xyw (phase 1 projective divide by w),
// texcrd with t#_dw.xyw (.rg result), texld with r#_dz in phase 2
// (divide by z from a register written in phase 1).
// Textures: stage 0 cookie, stage 3 shadow map, stage 4 screen-space
// colour.  Constants: c0.b = 0 fill, c0.a = output alpha.
ps_1_4
def c0, 0.5, 0.5, 0, 1
texld r0, t0_dw.xyw
texcrd r1.rgb, t1
texcrd r2.rg, t2_dw.xyw
mov r2.b, c0
phase
texld r3, r1_dz
texld r4, r2
mul r0.rgb, r0, r3
+mov r0.a, c0.a
mad r0.rgb, r0, v0, r4
