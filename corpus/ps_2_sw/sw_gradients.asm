// ps_2_sw sw_gradients: an edge detector built from screen-space
// derivatives, with predication.
// Exercises: dsx/dsy, setp_gt, predicated mov, texldd, abs, ifc in the
// software profile.
// Inputs: t0.xy texcoord.  Textures: s0 image.  Constants: c0.x edge
// threshold.
ps_2_sw
def c1, 0, 1, 0.5, 4
dcl t0.xy
dcl_2d s0
dsx r0.xy, t0
dsy r1.xy, t0
texldd r2, t0, s0, r0, r1
dsx r3, r2
dsy r4, r2
abs r3, r3
abs r4, r4
add r5, r3, r4
dp3 r5.x, r5, c1.w
mov r6, r2
setp_gt p0.x, r5.x, c0.x
(p0.x) mov r6.xyz, c1.x
if_gt r5.x, c1.w
    mov r6.w, c1.z
endif
mov oC0, r6
