// vs_3_0 all_output_usages: one output semantic per declaration usage,
// some packed into shared registers with disjoint masks.
// Exercises: dcl_<usage> o# for every D3DDECLUSAGE (position, psize, fog,
// tessfactor, depth, sample, blendweight, blendindices, normal, texcoord,
// tangent, binormal, positiont, color), usage indices (texcoord1, color1),
// partial output masks (o2.x/.y/.z/.w, o6.xy/.zw), and every declared
// component written exactly once.
// Constants: c0-c3 world-view-projection; c4-c6 world rows.
vs_3_0
def c10, 0, 1, 0.5, 2
dcl_position v0
dcl_normal v1
dcl_texcoord v2
dcl_color v3
dcl_tangent v4
dcl_position o0
dcl_psize o1.x
dcl_fog o2.x
dcl_tessfactor o2.y
dcl_depth o2.z
dcl_sample o2.w
dcl_blendweight o3
dcl_blendindices o4
dcl_normal o5.xyz
dcl_texcoord o6.xy
dcl_texcoord1 o6.zw
dcl_tangent o7.xyz
dcl_binormal o8.xyz
dcl_positiont o9
dcl_color o10
dcl_color1 o11
m4x4 r0, v0, c0
mov o0, r0
mov o1.x, c10.w
mov o2.x, r0.w
mov o2.y, c10.y
mul o2.z, r0.z, c10.z
mov o2.w, c10.x
mov o3, c10.zzzy
mov o4, c10.xyxy
m3x3 r1.xyz, v1, c4
nrm r2.xyz, r1
mov o5.xyz, r2
mov o6.xy, v2
mul o6.zw, v2.xyxy, c10.w
m3x3 r3.xyz, v4, c4
nrm r4.xyz, r3
mov o7.xyz, r4
crs r5.xyz, r2, r4
mov o8.xyz, r5
rcp r6.w, r0.w
mul o9, r0, r6.w
mov o10, v3
add o11, c10.y, -v3
