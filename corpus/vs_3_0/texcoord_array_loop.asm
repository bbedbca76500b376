// vs_3_0 texcoord_array_loop: four texture-coordinate sets transformed by
// per-set scale and offset in a loop.
// Exercises: relative addressing of vs_3_0 inputs (v1[aL]) and outputs
// (o[aL + 1]) by the loop counter, relative constants in both spellings
// (c4[aL], c[aL + 8]), defi with start 0 and step 1.
// Constants: c0-c3 world-view-projection; c4-c7 scale per set;
// c8-c11 offset per set.
vs_3_0
defi i0, 4, 0, 1, 0
dcl_position v0
dcl_texcoord0 v1
dcl_texcoord1 v2
dcl_texcoord2 v3
dcl_texcoord3 v4
dcl_position o0
dcl_texcoord0 o1
dcl_texcoord1 o2
dcl_texcoord2 o3
dcl_texcoord3 o4
m4x4 o0, v0, c0
loop aL, i0
    mul r0, v1[aL], c4[aL]
    add o[aL + 1], r0, c[aL + 8]
endloop
