// vs_2_sw instancing_table: per-instance transforms fetched from a large
// constant table, only possible with the software profile's 8192-entry
// constant file, and a light loop over constants above 1000.
// Exercises: relative addressing c[a0.x + 300] far past 256, constants
// c1000+ read through aL, integer and boolean constants above 15
// (defi i20, defb b40), loop aL with a non-zero start.
// Constants: c0-c3 view-projection; c300.. per-instance world matrices
// (4 rows each); c1000+k light colours, k = 2..5.
vs_2_sw
def c10, 4, 1, 0, 0.25
defi i20, 4, 2, 1, 0
defb b40, true
dcl_position v0
dcl_normal v1
dcl_blendindices v2
mul r0.x, v2.x, c10.x
mova a0.x, r0.x
dp4 r1.x, v0, c[a0.x + 300]
dp4 r1.y, v0, c[a0.x + 301]
dp4 r1.z, v0, c[a0.x + 302]
dp4 r1.w, v0, c[a0.x + 303]
m4x4 oPos, r1, c0
mov r2, c10.z
loop aL, i20
    add r2, r2, c1000[aL]
endloop
if b40
    mul r2, r2, c10.w
endif
mov oD0, r2
mov oT0, v1
