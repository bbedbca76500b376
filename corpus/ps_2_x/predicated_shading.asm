// ps_2_x predicated_shading: a toon shader that picks its band with the
// predicate register rather than with branches.
// Exercises: setp_ge, setp_lt, setp_eq and setp_ne; predicated mov, mul
// and texld; !p0 with a replicate swizzle; a per-component predicate on a
// full write; breakp inside rep; if p0.x; a swizzled (.yx) source.
// Inputs: t0.xy texcoord, t1.xyz normal, t2.xyz light vector.
// Textures: s0 band ramp, s1 hatch texture.
// Constants: c0 band thresholds; c1 band colours (dark); c2 band colours
// (light).
ps_2_x
def c3, 0, 1, 0.5, 0.25
defi i0, 3, 0, 0, 0
dcl t0.xy
dcl t1.xyz
dcl t2.xyz
dcl_2d s0
dcl_2d s1
nrm r0.xyz, t1
nrm r1.xyz, t2
dp3 r2.x, r0, r1
mov r3, c1
setp_ge p0.x, r2.x, c0.x
(p0.x) mov r3, c2
setp_lt p0.y, r2.x, c0.y
(!p0.y) mul r3.xyz, r3, c3.z
mov r4.xy, t0.yx
(p0.y) texld r4, r4, s1
(!p0.y) mov r4, c3.y
mul r3, r3, r4
// per component: keep a channel only where it equals/differs from c0.z
setp_eq p0.zw, r3.xyxy, c0.z
setp_ne p0.xy, r3, c3.x
mov r5, c3.x
(p0) add r5, r5, r3
// shrink r5 until its red channel drops below 0.5 (at most 3 steps)
rep i0
    setp_lt p0.x, r5.x, c3.z
    breakp p0.x
    mul r5, r5, c3.w
endrep
mov r5.w, c3.z
if p0.x
    add r5.w, r5.w, c3.z
endif
mov oC0, r5
