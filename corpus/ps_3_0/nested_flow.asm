// ps_3_0 nested_flow: a three-light loop with early outs, a per-light
// subroutine and optional rim/backlight subroutines.
// Exercises: loop nested in loop, rep nested in loop, if/else inside a
// loop, break_gt, break_ne (a NaN guard), breakp, call inside a loop,
// callnz b#, callnz !p0.x, setp_ge, setp_lt, if_ge, if_eq, the _abs and
// -_abs modifiers.
// Inputs: v0.xyz normal, v1.xyz view vector.  Constants: c10-c12 light
// directions and c20-c22 light colours (ps_3_0 cannot index c# by aL,
// so the loop shifts them through temporaries); c0 ambient; c1.x
// brightness limit; b0 = add a rim light.
ps_3_0
def c2, 0, 1, 0.5, 0.25
def c3, 0.95, 0.05, 0, 0
defi i0, 3, 0, 1, 0
defi i1, 2, 0, 1, 0
defi i2, 2, 0, 0, 0
dcl_normal v0.xyz
dcl_texcoord v1.xyz
nrm r0.xyz, v0
mov r1, c0
mov r2, c10
mov r3, c11
mov r4, c12
mov r7, c20
mov r8, c21
mov r9, c22
loop aL, i0
    dp3 r5.x, r0, r2
    if_ge r5.x, c2.x
        call l0
    else
        mad r1.xyz, r5_abs.x, c2.w, r1
    endif
    mov r2, r3
    mov r3, r4
    mov r7, r8
    mov r8, r9
    break_gt r1.x, c1.x
    // soften what has been gathered so far: 0.95^2 per inner pass
    loop aL, i1
        rep i2
            mul r1.xyz, r1, c3.x
        endrep
        break_ne r1.w, r1.w
        setp_lt p0.y, r1.y, c3.y
        breakp p0.y
    endloop
endloop
callnz l1, b0
setp_ge p0.x, r1.y, c2.z
callnz l2, !p0.x
if_eq r1.w, c2.y
    mov r1.w, c2.z
endif
mov oC0, r1
ret
label l0
    mad r1.xyz, r5.x, r7, r1
    ret
label l1
    nrm r6.xyz, v1
    dp3 r6.x, r0, r6
    add r6.x, c2.y, -r6_abs.x
    mad r1.xyz, r6.x, c2.z, r1
    ret
label l2
    mad r1.xyz, -r5_abs.x, c2.w, r1
    ret
