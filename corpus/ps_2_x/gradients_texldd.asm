// ps_2_x gradients_texldd: texture reads with explicitly scaled gradients
// (a sharpening control), one per sampler dimension.
// Exercises: dsx and dsy with partial masks, texldd with 2d, cube and
// volume samplers (gradients in src2/src3), the _abs modifier.
// Inputs: t0.xy, t1.xyz, t2.xyz coordinates.  Textures: s0 2D, s1 cube,
// s2 volume.  Constants: c0.x gradient scale.
ps_2_x
def c1, 0.333333, 0, 0, 1
dcl t0.xy
dcl t1.xyz
dcl t2.xyz
dcl_2d s0
dcl_cube s1
dcl_volume s2
dsx r0.xy, t0
dsy r1.xy, t0
mul r0.xy, r0, c0.x
mul r1.xy, r1, c0.x
texldd r2, t0, s0, r0, r1
dsx r3.xyz, t1
dsy r4.xyz, t1
texldd r5, t1, s1, r3, r4
dsx r6.xyz, t2
dsy r7.xyz, t2
mul r6.xyz, r6_abs, c0.x
mul r7.xyz, r7_abs, c0.x
texldd r8, t2, s2, r6, r7
add r9, r2, r5
add r9, r9, r8
mul r9.xyz, r9, c1.x
mov r9.w, c1.w
mov oC0, r9
