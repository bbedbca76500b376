// ps_2_0 math_ps20: a procedural pattern built from the scalar and vector
// arithmetic of ps_2_0.
// Exercises: sincos in its shader-model-2 form (D3DSINCOSCONST1/2 in
// constants), rcp, rsq, exp, log, frc, abs, crs, dp2add, min, max, lrp,
// mul with the _abs and -_abs source modifiers, _sat.
// Inputs: t0.xy texcoord, t1.xyz a direction.
// Constants: c0.x = pattern frequency.
ps_2_0
def c1, -1.5500992e-006, -2.1701389e-005, 0.0026041667, 0.00026041668
def c2, -0.020833334, -0.125, 1, 0.5
def c3, 0.15915494, 0.5, 6.2831855, -3.1415927
def c4, 0, 1, 2, 0.25
def c5, 0, 1, 0, 0
dcl t0.xy
dcl t1.xyz
// sin/cos of a reduced angle
mul r0.x, t0.x, c0.x
mad r0.x, r0.x, c3.x, c3.y
frc r0.x, r0.x
mad r0.x, r0.x, c3.z, c3.w
sincos r1.xy, r0.x, c1, c2
// radial terms
dp2add r2.x, t0, t0, c4.x
rsq r2.y, r2.x
rcp r2.z, r2.y
exp r2.w, -r2.z
log r3.x, c4.z
abs r3.y, r1.y
mul r3.z, r1_abs.x, -r1_abs.y
max r3.w, r1.x, r1.y
min r3.w, r3.w, c4.y
// cross product of the direction with a fixed axis
crs r4.xyz, t1, c5
mov r4.w, c4.y
// mix everything into a colour
mad r5.x, r1.x, c2.w, c2.w
mul r5.y, r2.w, r3.x
mad r5.z, r3.z, c2.w, r3.y
mov r5.w, r3.w
lrp_sat r6, c4.w, r4, r5
mov oC0, r6
