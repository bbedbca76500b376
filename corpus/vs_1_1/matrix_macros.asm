// vs_1_1 matrix_macros: every matrix macro once.
// Exercises: m4x4, m4x3, m3x4, m3x3, m3x2 (rows are consecutive constant
// registers), write masks on matrix results, oT0-oT3.
// Constants: c0-c3 world-view-projection; c4-c6 world (4x3);
// c8-c11 a 3x4 colour matrix; c12-c14 normal matrix; c16-c17 texture
// matrix (3x2).
vs_1_1
def c20, 1, 0, 0, 0
dcl_position v0
dcl_normal v1
dcl_texcoord v2
dcl_color v3
m4x4 oPos, v0, c0
m4x3 r0.xyz, v0, c4
mov r0.w, c20.x
mov oT0, r0
m3x3 r1.xyz, v1, c12
mov r1.w, c20.y
mov oT1, r1
m3x4 oD0, v3, c8
mov r2.xy, v2
mov r2.z, c20.x
m3x2 oT2.xy, r2, c16
mov oT3, c20
