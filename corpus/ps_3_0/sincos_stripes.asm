// ps_3_0 sincos_stripes: procedural rotated stripes with a soft edge.
// Exercises: sincos in its shader-model-3 form in a pixel shader (.xy, .x
// and .y masks, one source), frc, exp, log, pow, crs, nrm, min, max,
// lrp, sge/slt in a pixel shader.
// Inputs: v0.xy texcoord, v1.xyz normal.  Constants: c0.x rotation
// angle (radians, within [-pi, pi]), c0.y stripe frequency; c1, c2 the
// two stripe colours.
ps_3_0
def c3, 0, 1, 0.5, 8
def c4, 0, 0, 1, 0
dcl_texcoord v0.xy
dcl_normal v1.xyz
sincos r0.xy, c0.x
// rotated coordinate u' = u cos - v sin
mul r1.x, v0.x, r0.x
mad r1.x, v0.y, -r0.y, r1.x
mul r1.x, r1.x, c0.y
frc r1.y, r1.x
// soft edge: 1 - 2^(-8 * distance to the stripe centre)
add r1.z, r1.y, -c3.z
mul r1.z, r1_abs.z, -c3.w
exp r1.w, r1.z
add r2.x, c3.y, -r1.w
slt r2.y, r1.y, c3.z
sge r2.z, r1.y, c3.z
mul r2.y, r2.y, r2.x
mad r2.w, r2.z, r2.x, r2.y
lrp r3, r2.w, c1, c2
// shading: a wrapped diffuse from a tilted normal
nrm r4.xyz, v1
crs r5.xyz, r4, c4
max r5.w, r5.x, r5.y
min r5.w, r5.w, c3.y
log r6.x, c3.w
pow r6.y, r5_abs.w, r6.x
sincos r7.x, r6.y
sincos r7.y, r6.y
mad r3.xyz, r7.x, c3.z, r3
mul r3.w, r3.w, r7.y
mov oC0, r3
