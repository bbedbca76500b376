// ps_3_0 texldd_ps30: anisotropic-looking reads by stretching the
// gradients along one axis, for each sampler dimension.
// Exercises: texldd with 2d, cube and volume samplers in ps_3_0, dsx/dsy
// (with _pp on the first pair), the -_abs modifier, mad.
// Inputs: v0.xy, v1.xyz, v2.xyz.  Textures: s0 2D, s1 cube, s2 volume.
// Constants: c0.xy = stretch along x / y.
ps_3_0
def c1, 0.333333, 0, 0, 1
dcl_texcoord0 v0.xy
dcl_texcoord1 v1.xyz
dcl_texcoord2 v2.xyz
dcl_2d s0
dcl_cube s1
dcl_volume s2
dsx_pp r0.xy, v0
dsy_pp r1.xy, v0
mul r0.xy, r0, c0.x
mul r1.xy, r1, c0.y
texldd r2, v0, s0, r0, r1
dsx r3.xyz, v1
dsy r4.xyz, v1
texldd r5, v1, s1, r3, r4
dsx r6.xyz, v2
dsy r7.xyz, v2
mad r6.xyz, -r6_abs, c0.x, r6
texldd r8, v2, s2, r6, r7
add r9, r2, r5
add r9, r9, r8
mul r9.xyz, r9, c1.x
mov r9.w, c1.w
mov oC0, r9
