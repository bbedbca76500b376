// ps_1_3 bump_env_bx2: EMBM whose du/dv map is stored unsigned, unpacked
// with _bx2 on the texbem source (allowed from ps_1_2 on), followed by a
// luminance-modulated second lookup.
// Exercises: texbem with a _bx2 source, texbeml with a _bx2 source,
// cmp and lrp in ps_1_3.
// Textures: stage 0 packed du/dv, stage 1 environment map, stage 2
// environment map with luminance.  Constants: c0 blend factor.
ps_1_3
tex t0
texbem t1, t0_bx2
texbeml t2, t0_bx2
lrp r0, c0, t1, t2
cmp r0, -v0.a, r0, v0
