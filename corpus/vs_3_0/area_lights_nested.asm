// vs_3_0 area_lights_nested: each of three area lights is approximated by
// four point samples; the sample loop is nested inside the light loop.
// Exercises: loop nested in loop (aL is the inner counter inside and the
// outer counter again after endloop), c[aL + n] with both counters, a
// subroutine called from the inner loop that reads c#[aL] with the
// caller's aL, rep nested in loop, break_gt.
// Constants: c0-c3 world-view-projection; c4-c6 world rows;
// c30+2k light k position, c31+2k light k colour (k = 0..2);
// c40-c43 sample offsets; c8.x = brightness limit.
vs_3_0
def c10, 0, 1, 0.25, 0
defi i0, 3, 0, 2, 0
defi i1, 4, 0, 1, 0
defi i2, 2, 0, 0, 0
dcl_position v0
dcl_normal v1
dcl_position o0
dcl_color o1
m4x4 o0, v0, c0
m4x3 r0.xyz, v0, c4
m3x3 r1.xyz, v1, c4
nrm r2.xyz, r1
mov r7, c10.x
loop aL, i0
    mov r5, c30[aL]
    mov r6, c10.x
    loop aL, i1
        call l0
    endloop
    mul r6.xyz, r6, c10.z
    mad r7.xyz, r6, c[aL + 31], r7
    break_gt r7.x, c8.x
endloop
// two smoothing passes toward grey
rep i2
    add r7.xyz, r7, c10.z
    mul r7.xyz, r7, c10.y
endrep
mov r7.w, c10.y
mov o1, r7
ret
label l0
    add r3.xyz, r5, c40[aL]
    add r3.xyz, r3, -r0
    nrm r4.xyz, r3
    dp3 r4.w, r2, r4
    max r4.w, r4.w, c10.x
    add r6.xyz, r6, r4.w
    ret
