// ps_1_1 texcoord_kill: clipping plane emulation and coordinates used as
// colours.
// Exercises: texcoord (saturated coordinates, .w = 1), texkill on a
// texture coordinate set (xyz < 0 discards), tex on the remaining stage,
// nop.
// Textures: stage 2 base colour map.
ps_1_1
texcoord t0
texkill t1
tex t2
nop
mul r0, t2, v0
add r0.rgb, r0, t0
