// vs_2_sw subroutine_table: shading steps as numbered subroutines beyond
// the hardware profile's 16 labels.
// Exercises: labels l20, l100 and l2000, nested call (a subroutine calling
// another), callnz with b17, rep with i31.
// Constants: c0-c3 world-view-projection; c4 base colour; c5 colour step;
// b17 = apply the tint subroutine.
vs_2_sw
def c10, 0, 1, 0.5, 0.125
defi i31, 5, 0, 0, 0
dcl_position v0
dcl_color v1
m4x4 oPos, v0, c0
mov r0, v1
call l20
callnz l100, b17
mov oD0, r0
ret
label l20
    rep i31
        call l2000
    endrep
    ret
label l100
    mul r0.xyz, r0, c4
    ret
label l2000
    mad r0, c5, c10.w, r0
    ret
