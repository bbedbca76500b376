// vs_1_1 fog_pointsize_math: exponential fog, distance-scaled point sprites
// and a scrolling texture.
// Exercises: exp, log, expp (vs_1_1 four-component form), logp, frc with
// the .xy mask vs_1_1 requires, rcp, min, max, slt, sge, oFog, oPts,
// dcl_psize and dcl_fog inputs.
// Constants: c0-c3 world-view-projection; c4.x = -fog density (per unit of
// clip w); c5.xy = point size min/max; c6.xy = scroll speed,
// c6.z = time (seconds), c6.w = a positive exposure value.
vs_1_1
def c8, 0, 1, 0.5, 2
dcl_position v0
dcl_psize v1
dcl_texcoord v2
dcl_fog v3
m4x4 r0, v0, c0
mov oPos, r0
// fog factor f = 2^(-density * w), clamped to [0, 1]
mul r1.x, r0.w, c4.x
exp r1.y, r1.x
min r1.y, r1.y, c8.y
max oFog, r1.y, c8.x
// point size = psize / w, clamped
rcp r2.x, r0.w
mul r2.x, r2.x, v1.x
max r2.x, r2.x, c5.x
min oPts, r2.x, c5.y
// scrolling, wrapped texture coordinates
mad r3.xy, c6, c6.z, v2
frc r4.xy, r3
mov oT0.xy, r4
// expp: (2^floor(t), frac(t), 2^t, 1); logp/log of a positive value
expp r5, c6.z
mov oT1, r5
logp r6.x, c6.w
log r6.y, c6.w
add r6.z, v3.x, c8.z
mov r6.w, c8.y
mov oT2, r6
// threshold masks of the texture coordinate against 0.5
slt r7.xy, v2, c8.z
sge r7.zw, v2.xxxy, c8.z
mov oT3, r7
