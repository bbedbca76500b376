// vs_2_0 sincos_wave: a flag waving in the wind, with a rotating texture.
// Exercises: sincos in its shader-model-2 form (dst, src, c_const1,
// c_const2 with the D3DSINCOSCONST1/2 values) writing .xy, .x and .y;
// range reduction with frc to [-pi, pi]; def with exponent notation.
// (SM2 sincos leaves the unmasked x/y/z undefined, so every sincos
// result lives in its own register.)
// Constants: c0-c3 world-view-projection; c4.x = spatial frequency,
// c4.y = time, c4.z = amplitude, c4.w = texture rotation angle.
vs_2_0
def c8, -1.5500992e-006, -2.1701389e-005, 0.0026041667, 0.00026041668
def c9, -0.020833334, -0.125, 1, 0.5
def c10, 0.15915494, 0.5, 6.2831855, -3.1415927
dcl_position v0
dcl_texcoord v1
// phase = x * frequency + time, reduced to [-pi, pi]
mad r0.x, v0.x, c4.x, c4.y
mad r0.x, r0.x, c10.x, c10.y
frc r0.x, r0.x
mad r0.x, r0.x, c10.z, c10.w
sincos r1.xy, r0.x, c8, c9
mov r2, v0
mad r2.y, r1.y, c4.z, r2.y
m4x4 oPos, r2, c0
// shade by the slope: 0.5 + 0.5 cos
mad oD0, r1.x, c9.w, c9.w
// rotate the texture coordinates about (0.5, 0.5)
mov r3.x, c4.w
mad r3.x, r3.x, c10.x, c10.y
frc r3.x, r3.x
mad r3.x, r3.x, c10.z, c10.w
sincos r4.x, r3.x, c8, c9
sincos r7.y, r3.x, c8, c9
add r5.xy, v1, -c9.w
mul r6.xy, r5.yx, r7.y
mul r6.x, r6.x, -c9.z
mad r8.xy, r5, r4.x, r6
add oT0.xy, r8, c9.w
