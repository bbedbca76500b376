// ps_2_0 sepia_vignette: a post-processing pass that tones the image sepia
// and darkens the corners.
// Exercises: dp3 luminance, lrp by a vertex-colour amount, dp2add for the
// squared radius, min/max clamping, dcl v0.
// Inputs: t0.xy screen uv, v0.w sepia amount.  Textures: s0 scene.
ps_2_0
def c0, 0.299, 0.587, 0.114, 0
def c1, 1.2, 1, 0.8, 1
def c2, 0.5, 1.5, 1, 0
dcl t0.xy
dcl v0
dcl_2d s0
texld r0, t0, s0
dp3 r1.x, r0, c0
mul r2.xyz, r1.x, c1
lrp r3.xyz, v0.w, r2, r0
add r4.xy, t0, -c2.x
dp2add r4.z, r4, r4, c2.w
mad r4.z, r4.z, -c2.y, c2.z
max r4.z, r4.z, c2.w
min r4.z, r4.z, c2.z
mul r3.xyz, r3, r4.z
mov r3.w, r0.w
mov oC0, r3
