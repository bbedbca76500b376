// vs_3_sw big_tables_sw: crowd rendering with a per-instance palette far
// beyond the hardware constant file.
// Exercises: vs_3_sw version token; relative constants c[a0.x + 1500];
// loop over i100 reading c1800[aL]; defb b200 / if b200; call of label
// l1500; vs_3_0-style output declarations.
// Constants: c0-c3 view-projection; c1500.. per-instance world matrices
// (4 rows each); c1800-c1803 per-pass tints.
vs_3_sw
def c10, 4, 1, 0, 0.25
defi i100, 4, 0, 1, 0
defb b200, true
dcl_position v0
dcl_color v1
dcl_blendindices v2
dcl_position o0
dcl_color o1
mul r0.x, v2.x, c10.x
mova a0.x, r0.x
dp4 r1.x, v0, c[a0.x + 1500]
dp4 r1.y, v0, c[a0.x + 1501]
dp4 r1.z, v0, c[a0.x + 1502]
dp4 r1.w, v0, c[a0.x + 1503]
m4x4 o0, r1, c0
mov r2, v1
if b200
    call l1500
endif
mov o1, r2
ret
label l1500
    mov r3, c10.z
    loop aL, i100
        add r3, r3, c1800[aL]
    endloop
    mul r2, r2, r3
    mul r2, r2, c10.w
    ret
