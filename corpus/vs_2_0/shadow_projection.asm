// vs_2_0 shadow_projection: emits the projective light-space coordinates a
// shadow-mapping pixel shader feeds to texldp, and cascade-band markers.
// Exercises: m4x4 into a temporary and a clip-to-texture-space remap with
// mul/mad on .xy, slt/sge banding, rcp, max into oD0, oT1 with all four
// components.
// Constants: c0-c3 world-view-projection; c4-c7 light view-projection;
// c8.xy cascade split depths; c9 light direction (object space).
vs_2_0
def c10, 0.5, -0.5, 0, 1
dcl_position v0
dcl_normal v1
dcl_texcoord v2
m4x4 oPos, v0, c0
m4x4 r0, v0, c4
// (x, y, z, w) -> (0.5 x + 0.5 w, -0.5 y + 0.5 w, z, w)
mul r1.xy, r0, c10
mad r1.xy, r0.w, c10.x, r1
mov r1.zw, r0
mov oT1, r1
// cascade markers from the light-space depth z / w
rcp r2.w, r0.w
mul r2.z, r0.z, r2.w
slt r3.x, r2.z, c8.x
sge r3.y, r2.z, c8.x
sge r3.z, r2.z, c8.y
mov r3.w, c10.w
mov oD1, r3
dp3 r4.x, v1, c9
max oD0, r4.x, c10.z
mov oT0.xy, v2
