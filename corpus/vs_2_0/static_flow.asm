// vs_2_0 static_flow: material switches driven by boolean and integer
// constants, with subroutines.
// Exercises: if b# / else / endif, if !b#, rep i# with an if nested inside,
// call, callnz b#, callnz !b#, label, ret (main ends with ret, subroutine
// bodies follow), defb, defi, a call nested in an if.
// Constants: c0-c3 world-view-projection; c4 fallback colour; c5 colour
// step added per rep iteration; c6.xy texture offset; c7.x fog scale.
// b0 = use the vertex colour, b1 = linear fog (else no fog),
// b2 = freeze the texture (skip the offset), b3 defined true here.
vs_2_0
def c10, 0, 1, 0.5, 0.25
defb b3, true
defi i1, 3, 0, 0, 0
dcl_position v0
dcl_color v1
dcl_texcoord v2
m4x4 r0, v0, c0
mov oPos, r0
if b0
    mov r1, v1
else
    mov r1, c4
endif
mov r2, c10.x
rep i1
    add r2, r2, c5
    if b3
        mul r2.w, r2.w, c10.z
    endif
endrep
mad oD0, r2, c10.w, r1
mov r3, v2
if !b2
    call l0
endif
mov oT0, r3
callnz l1, b1
callnz l2, !b1
ret
label l0
    add r3.xy, r3, c6
    ret
label l1
    mul r4.x, r0.w, c7.x
    mov oFog, r4.x
    ret
label l2
    mov oFog, c10.y
    ret
