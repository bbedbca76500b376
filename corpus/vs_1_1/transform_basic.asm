// vs_1_1 transform_basic: the smallest useful vertex shader.
// Exercises: m4x4 into oPos, mov to oD0/oT0, dcl_position/dcl_color/
// dcl_texcoord inputs, def, nop.
// Constants: c0-c3 world-view-projection matrix (rows as dp4 vectors).
vs_1_1
def c4, 1, 1, 1, 1
dcl_position v0
dcl_color v1
dcl_texcoord v2
m4x4 oPos, v0, c0
nop
mul oD0, v1, c4
mov oT0.xy, v2
