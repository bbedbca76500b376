// vs_3_0 predicate_flow: a cascade of thresholds resolved with the
// predicate register, predicate-driven breaks and calls.
// Exercises: setp_eq, setp_ne, setp_ge, setp_lt; breakp !p0.x inside a
// loop; callnz l#, !p0.z; if !p0.w; break_le; predicated movs and a
// predicated add with a negated replicate predicate.
// Constants: c0-c3 world-view-projection; c4 four thresholds.
vs_3_0
def c10, 0, 1, 0.5, 0.125
defi i0, 8, 0, 1, 0
dcl_position v0
dcl_texcoord v1
dcl_position o0
dcl_texcoord o1
dcl_color o2
m4x4 o0, v0, c0
setp_eq p0.x, v1.x, c4.x
setp_ne p0.y, v1.y, c4.y
setp_ge p0.z, v1.x, c4.z
setp_lt p0.w, v1.y, c4.w
mov r0, c10.x
(p0.x) mov r0.x, c10.y
(!p0.y) mov r0.y, c10.y
callnz l0, !p0.z
if !p0.w
    add r0.w, r0.w, c10.z
endif
// march u upward in steps of 1/8 until it passes 1 or the predicate flips
mov r1, v1
loop aL, i0
    add r1.x, r1.x, c10.w
    setp_lt p0.x, r1.x, c10.y
    breakp !p0.x
    break_le r1.y, c10.x
    setp_ge p0.y, r1.x, c10.z
    (!p0.y) add r1.z, r1.z, c10.w
endloop
mov o1, r1
mov o2, r0
ret
label l0
    mov r0.z, c10.z
    ret
