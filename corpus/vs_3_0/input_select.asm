// vs_3_0 input_select: picks one of four per-vertex colour streams by a
// per-vertex index, and a palette entry by a second index.
// Exercises: relative addressing of vs_3_0 inputs through a0
// (v[a0.x + 2]), mova with a full four-component mask, relative constants
// through a0.y, a0.z and a0.w.
// Constants: c0-c3 world-view-projection; c10-c17 a colour palette.
vs_3_0
def c4, 0, 1, 0.5, 3
dcl_position v0
dcl_blendindices v1
dcl_color0 v2
dcl_color1 v3
dcl_color2 v4
dcl_color3 v5
dcl_position o0
dcl_color o1
dcl_color1 o2
m4x4 o0, v0, c0
max r0, v1, c4.x
min r0, r0, c4.w
mova a0, r0
mov r1, v[a0.x + 2]
mov r2, c[a0.y + 10]
add r2, r2, c[a0.z + 14]
mul r2, r2, c4.z
mov o1, r1
mul o2, r2, c10[a0.w]
