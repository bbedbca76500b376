// vs_3_0 instancing: hardware instancing with the instance transform in a
// second vertex stream and a per-instance colour from a palette.
// Exercises: instance rows on dcl_texcoord1-3 used as dp4/dp3 operands
// (copied to temporaries first: one v# per instruction), mova from an
// input, c[a0.x + n] in vs_3_0, two texcoords packed into one output
// register (o2.xy / o2.zw).
// Constants: c0-c3 view-projection; c4 light direction (world, normalised);
// c5 ambient colour; c20-c27 instance palette.
// Inputs: v3-v5 rows of the instance's 4x3 world matrix; v6.x palette
// index, v6.y detail uv scale.
vs_3_0
def c10, 0, 1, 0.5, 0
dcl_position v0
dcl_normal v1
dcl_texcoord0 v2
dcl_texcoord1 v3
dcl_texcoord2 v4
dcl_texcoord3 v5
dcl_texcoord4 v6
dcl_position o0
dcl_color o1
dcl_texcoord0 o2.xy
dcl_texcoord1 o2.zw
mov r6, v0
mov r7, v1
dp4 r0.x, r6, v3
dp4 r0.y, r6, v4
dp4 r0.z, r6, v5
mov r0.w, c10.y
m4x4 o0, r0, c0
dp3 r1.x, r7, v3
dp3 r1.y, r7, v4
dp3 r1.z, r7, v5
nrm r2.xyz, r1
dp3 r3.x, r2, c4
max r3.x, r3.x, c10.x
mova a0.x, v6.x
mul r4, r3.x, c[a0.x + 20]
add r4, r4, c5
mov o1, r4
mov o2.xy, v2
mov r8.x, v6.y
mul o2.zw, v2.xyxy, r8.x
