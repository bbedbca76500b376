// vs_2_x callnz_predicate: subroutines selected by predicate components,
// plus a vector mova.
// Exercises: callnz l#, p0.x and callnz l#, !p0.y; if p0.z / if !p0.w with
// else; mova with a two-component mask (a0.xy, allowed from vs_2_x) and
// relative reads through a0.x and a0.y; setp_lt and setp_ne; break_ne and
// break_ge inside a rep.
// Constants: c0-c3 world-view-projection; c4 thresholds; c16-c23 a table
// of 8 colours; c24-c31 a table of 8 texture offsets.
vs_2_x
def c10, 0, 1, 0.5, 7
defi i0, 4, 0, 0, 0
dcl_position v0
dcl_texcoord v1
dcl_blendindices v2
m4x4 r0, v0, c0
mov oPos, r0
// table indices clamped to [0, 7]
max r1.xy, v2, c10.x
min r1.xy, r1, c10.w
mova a0.xy, r1
mov r2, c[a0.x + 16]
mov r3, c[a0.y + 24]
// p0 = (u < c4.x, v < c4.y, u != c4.z, v != c4.w)
setp_lt p0.xy, v1, c4
setp_ne p0.zw, v1.xyxy, c4
mov r4, r2
callnz l0, p0.x
callnz l1, !p0.y
if p0.z
    add r4.w, r4.w, c10.z
else
    mov r4.w, c10.y
endif
if !p0.w
    mul r4.xyz, r4, c10.z
endif
// count up by one per iteration (at most 4); leave once the count reaches
// the table value (r5.y stays 0, so break_ne never fires)
mov r5, c10.x
rep i0
    add r5.x, r5.x, c10.y
    break_ne r5.y, c10.x
    break_ge r5.x, r3.x
endrep
mov oD0, r4
add oT0, r3, r5
ret
label l0
    mul r4.xyz, r4, r4
    ret
label l1
    add r4.xyz, r4, c10.z
    ret
