// ps_2_0 gbuffer_mrt: writes albedo, normal, position and material data
// to four render targets.
// Exercises: oC0-oC3 (MRT), m3x3, m3x2, m4x4, m4x3 and m3x4 in a pixel
// shader, dcl_centroid, dcl v0/v1 colour inputs, packing with mad.
// Textures: s0 albedo.  Constants: c0-c3 a 4x4 matrix; c4-c6 world rows;
// c8-c11 a 3x4 matrix.
ps_2_0
def c12, 0.5, 0.5, 0.5, 1
dcl_centroid t0.xy
dcl t1.xyz
dcl t2
dcl v0
dcl v1
dcl_2d s0
texld r0, t0, s0
mul r0, r0, v0
mov oC0, r0
m3x3 r1.xyz, t1, c4
nrm r2.xyz, r1
mad r2.xyz, r2, c12, c12
mov r2.w, v1.w
mov oC1, r2
m4x4 r3, t2, c0
m4x3 r4.xyz, t2, c4
mov r4.w, r3.w
add oC2, r3, r4
m3x2 r5.xy, t1, c4
m3x4 r6, v1, c8
mov r6.xy, r5
mov oC3, r6
