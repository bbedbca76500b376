// vs_2_x particles_orbit: particles integrated along a rising orbit for a
// fixed number of steps, leaving the loop early once outside a sphere.
// Exercises: sincos in its shader-model-2 form inside a rep, frc range
// reduction, break_gt on a squared distance, setp_ge with a predicated
// wrap-around, only the sincos .xy results being read afterwards.
// Constants: c0-c3 view-projection; c4.x = time step; c4.y = squared
// escape radius.  Inputs: v0 start position (x = orbit radius); v1.x
// angular speed.
vs_2_x
def c8, -1.5500992e-006, -2.1701389e-005, 0.0026041667, 0.00026041668
def c9, -0.020833334, -0.125, 1, 0.5
def c10, 0.15915494, 0.5, 6.2831855, -3.1415927
def c11, 0, 1, 0.1, 4
defi i0, 6, 0, 0, 0
dcl_position v0
dcl_texcoord v1
mov r0, v0
mov r1.x, c11.x
mov r3, c11.x
rep i0
    mad r1.x, v1.x, c4.x, r1.x
    mad r2.x, r1.x, c10.x, c10.y
    frc r2.x, r2.x
    mad r2.x, r2.x, c10.z, c10.w
    sincos r3.xy, r2.x, c8, c9
    mul r0.x, v0.x, r3.x
    mul r0.z, v0.x, r3.y
    add r0.y, r0.y, c11.z
    dp3 r5.x, r0, r0
    break_gt r5.x, c4.y
    setp_ge p0.x, r0.y, c11.w
    (p0.x) mov r0.y, c11.x
endrep
m4x4 oPos, r0, c0
mad oD0.xy, r3, c9.w, c9.w
mov oD0.zw, c11.y
