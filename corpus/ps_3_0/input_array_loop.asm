// ps_3_0 input_array_loop: blends four texture layers whose coordinates
// arrive in consecutive input registers.
// Exercises: relative addressing of ps_3_0 inputs by the loop counter
// (v[aL] and v0[aL + 1] spellings), loop aL, i# in a pixel shader, texld
// with a computed coordinate inside the loop (uniform flow, since the
// trip count is constant).
// Inputs: v0-v3 texcoord0-3 (.xy used), v4 colour.  Textures: s0 atlas.
// Constants: c0 per-layer weights (not relatively addressable in ps_3_0,
// so the weights are applied from a running register).
ps_3_0
def c1, 0.25, 0, 0, 1
defi i0, 4, 0, 1, 0
defi i1, 3, 0, 1, 0
dcl_texcoord0 v0.xy
dcl_texcoord1 v1.xy
dcl_texcoord2 v2.xy
dcl_texcoord3 v3.xy
dcl_color v4
dcl_2d s0
mov r0, c1.y
loop aL, i0
    mov r1.xy, v[aL]
    texld r2, r1, s0
    mad r0, r2, c1.x, r0
endloop
// average distance between consecutive layers' coordinates
mov r3, c1.y
loop aL, i1
    mov r4.xy, v0[aL + 1]
    add r4.xy, r4, -v[aL]
    dp2add r3.x, r4, r4, r3.x
endloop
mul r0, r0, v4
mad r0.xyz, r3.x, c1.x, r0
mov oC0, r0
