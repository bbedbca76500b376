// ps_2_x water_ripples: concentric ripples from three sources displace the
// texture coordinates of a water surface.
// Exercises: sincos in its shader-model-2 form in a pixel shader loop
// (only .y written and read), rep with constants shifted through temps,
// if_gt guarding a division, dp2add, rsq, rcp, frc range reduction.
// Inputs: t0.xy texcoord.  Textures: s0 scene.  Constants: c0-c2 ripple
// centres (.xy); c3.x time.
ps_2_x
def c10, -1.5500992e-006, -2.1701389e-005, 0.0026041667, 0.00026041668
def c11, -0.020833334, -0.125, 1, 0.5
def c12, 0.15915494, 0.5, 6.2831855, -3.1415927
def c13, 0, 1, 0.02, 20
defi i0, 3, 0, 0, 0
dcl t0.xy
dcl_2d s0
mov r0.xy, t0
mov r1, c0
mov r2, c1
mov r3, c2
rep i0
    add r4.xy, t0, -r1
    dp2add r4.z, r4, r4, c13.x
    rsq r4.w, r4.z
    rcp r4.w, r4.w
    mul r5.x, r4.w, c13.w
    add r5.x, r5.x, -c3.x
    mad r5.x, r5.x, c12.x, c12.y
    frc r5.x, r5.x
    mad r5.x, r5.x, c12.z, c12.w
    sincos r6.y, r5.x, c10, c11
    if_gt r4.w, c13.z
        rcp r7.x, r4.w
        mul r7.xy, r4, r7.x
        mul r7.xy, r7, r6.y
        mad r0.xy, r7, c13.z, r0
    endif
    mov r1, r2
    mov r2, r3
endrep
texld r8, r0, s0
mov oC0, r8
