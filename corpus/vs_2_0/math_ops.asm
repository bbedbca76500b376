// vs_2_0 math_ops: the scalar and per-component arithmetic of vs_2_0,
// each result routed to an output so that nothing is dead.
// Exercises: sgn (shader-model-2 form with two scratch temps), abs, lrp,
// exp, log, expp (vs_2_0+ replicated form), logp, frc with a full mask,
// pow, rcp, rsq, min, max, slt, sge, negated sources.
// Constants: c0-c3 world-view-projection; c4, c5 two colours to blend.
vs_2_0
def c10, 0, 1, 0.5, 2
def c11, -1, 3, 0.75, 8
dcl_position v0
dcl_texcoord v1
m4x4 r0, v0, c0
mov oPos, r0
sub r1, v1, c10.z
mov r3, c10.x
mov r4, c10.x
sgn r2, r1, r3, r4
mov oT0, r2
abs r5, r1
mov oT1, r5
lrp r6, v1.x, c4, c5
mov oD0, r6
exp r7.x, v1.x
log r7.y, c10.w
expp r7.z, v1.y
logp r7.w, c11.y
mov oT2, r7
frc r8, v1
mov oT3, r8
pow r9.x, c11.z, c11.w
rcp r9.y, c11.y
rsq r9.z, c11.w
min r9.w, r1.x, r1.y
mov oT4, r9
slt r10, r1, c10.x
sge r11, r1, c10.x
mad oT5, r10, c11.x, r11
max oT6, r1, -r1
