// vs_1_1 all_input_usages: one input register per declaration usage.
// Exercises: dcl of every D3DDECLUSAGE on v0-v13 (position, blendweight,
// blendindices, normal, psize, texcoord, tangent, binormal, tessfactor,
// positiont, color, fog, depth, sample) plus non-zero usage indices
// (texcoord3 on v14, color1 on v15).  Every declared input feeds an output;
// no instruction reads two different v# or c# registers (vs_1_1 ports).
// Constants: c0-c3 world-view-projection.
vs_1_1
def c8, 0.25, 0.5, 1, 0
dcl_position v0
dcl_blendweight v1
dcl_blendindices v2
dcl_normal v3
dcl_psize v4
dcl_texcoord v5
dcl_tangent v6
dcl_binormal v7
dcl_tessfactor v8
dcl_positiont v9
dcl_color v10
dcl_fog v11
dcl_depth v12
dcl_sample v13
dcl_texcoord3 v14
dcl_color1 v15
m4x4 oPos, v0, c0
mov r0, v1
add r0, r0, v2
mul r0, r0, c8.y
add oT0, r0, v3
mov r1, v6
add oT1, r1, v7
mul r2, v8, c8.x
mad oT2, v9, c8.x, r2
mov oD0, v10
mov oD1, v15
mov r3.x, v11.x
add r3.x, r3.x, v12.x
mov r3.y, v13.x
add r3.y, r3.y, v4.x
mov r3.zw, c8.wwwz
mov oT3, r3
mov oT4, v5
mov oT5, v14
mov oFog, v11.x
mov oPts, v4.x
