// vs_2_x loop_break: iterative computations that leave their loops early.
// Exercises: rep with break_lt (Newton square root with a convergence
// test), breakp on a predicate set inside the loop, break_eq on an
// iteration counter, an unconditional break inside if_gt, predicate
// component .x written by setp_ge.
// Constants: c0-c3 world-view-projection; c4.x = accumulation step,
// c4.y = accumulation threshold, c4.z = iteration cap (integer valued),
// c4.w = a second threshold.
vs_2_x
defi i0, 8, 0, 0, 0
defi i1, 16, 0, 0, 0
def c10, 0, 1, 0.5, 0.001
dcl_position v0
dcl_texcoord v1
m4x4 oPos, v0, c0
// y = sqrt(x) for x = 1 + u, Newton steps from y0 = x (always >= sqrt(x))
add r0.x, v1.x, c10.y
mov r1.x, r0.x
mov r2.x, c10.x
rep i0
    mul r3.x, r1.x, r1.x
    sub r3.x, r3.x, r0.x
    break_lt r3.x, c10.w
    rcp r4.x, r1.x
    mul r3.x, r3.x, r4.x
    mad r1.x, r3.x, -c10.z, r1.x
    add r2.x, r2.x, c10.y
endrep
// accumulate until a threshold, an iteration cap or a second threshold
mov r5, c10.x
rep i1
    add r5.x, r5.x, c4.x
    add r5.y, r5.y, c10.y
    setp_ge p0.x, r5.x, c4.y
    breakp p0.x
    break_eq r5.y, c4.z
    if_gt r5.x, c4.w
        break
    endif
endrep
mov r6.x, r1.x
mov r6.y, r2.x
mov r6.zw, r5.xxxy
mov oT0, r6
mov oD0, c10.y
