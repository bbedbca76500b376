// ps_2_x flow_subroutines: a material with optional layers chosen by
// boolean constants, per-pixel branches and subroutines.
// Exercises: defb, defi, if b# / else, if !b#, call, callnz b#,
// callnz p0.x, if_lt, if_ge, rep with break_lt and a break inside an
// if, label/ret, setp_gt.
// Inputs: t0.xy texcoord, v0 colour.  Textures: s0 base, s1 detail.
// Constants: b0 = use detail map; b1 = tint; c0 tint colour;
// c1.x = brightness limit.
ps_2_x
def c2, 0, 1, 0.5, 0.25
def c3, 3, 0, 0, 0
defb b2, false
defi i0, 4, 0, 0, 0
dcl t0.xy
dcl v0
dcl_2d s0
dcl_2d s1
texld r0, t0, s0
if b0
    call l0
else
    mul r0, r0, v0
endif
callnz l1, b1
if !b2
    if_lt r0.w, c2.z
        mov r0.w, c2.z
    endif
endif
// brighten in quarter steps until a limit, at most three times
mov r2, c2.x
rep i0
    break_lt c1.x, r0.x
    add r0.xyz, r0, c2.w
    add r2.x, r2.x, c2.y
    if_ge r2.x, c3.x
        break
    endif
endrep
setp_gt p0.x, r2.x, c2.z
callnz l2, p0.x
mov oC0, r0
ret
label l0
    texld r1, t0, s1
    mul r0, r0, r1
    ret
label l1
    mul r0.xyz, r0, c0
    ret
label l2
    mul r0.xyz, r0, c2.z
    ret
