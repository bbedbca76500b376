// ps_2_0 lod_bias: sharpened and blurred reads of the same material with
// a per-pixel LOD bias in .w.
// Exercises: texldb (LOD bias from .w) with 2d, cube and volume samplers.
// Textures: s0 base (2D), s1 environment (cube), s2 detail (volume).
// Constants: c0.x = sharpening bias (negative), c0.y = blur bias.
ps_2_0
dcl t0.xy
dcl t1.xyz
dcl t2.xyz
dcl_2d s0
dcl_cube s1
dcl_volume s2
mov r0.xy, t0
mov r0.w, c0.x
texldb r1, r0, s0
mov r2.xyz, t1
mov r2.w, c0.y
texldb r2, r2, s1
mov r3.xyz, t2
mov r3.w, c0.x
texldb r3, r3, s2
mul r1, r1, r3
mad r1, r2, r1.a, r1
mov oC0, r1
