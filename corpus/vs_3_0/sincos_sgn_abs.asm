// vs_3_0 sincos_sgn_abs: a twisting deformation with signed shading.
// Exercises: sincos in its shader-model-3 form (one source) writing .xy,
// .x and .y; sgn in its one-source form; the _abs and -_abs source
// modifiers; abs; lrp; a predicated mad.
// Constants: c0-c3 world-view-projection; c4.x = twist per unit height,
// c4.y = time.
vs_3_0
def c10, 0, 1, 0.5, 2
dcl_position v0
dcl_normal v1
dcl_color v2
dcl_position o0
dcl_color o1
dcl_texcoord o2
// angle = y * twist + time
mad r0.x, v0.y, c4.x, c4.y
sincos r1.xy, r0.x
// rotate x/z about the y axis
mul r2.x, v0.x, r1.x
mad r2.x, v0.z, -r1.y, r2.x
mul r2.z, v0.x, r1.y
mad r2.z, v0.z, r1.x, r2.z
mov r2.yw, v0
m4x4 o0, r2, c0
// colour from the sign and magnitude of the normal
sgn r3, v1
abs r4, v1
lrp r5, r4, v2, r3_abs
mad r5.w, -r4_abs.x, c10.z, c10.y
setp_gt p0, v1, c10.x
(p0) mad r5, r5, c10.z, c10.z
mov o1, r5
sincos r6.x, r0.x
sincos r6.y, c4.y
mov r6.zw, c10.xxxy
mov o2, r6
