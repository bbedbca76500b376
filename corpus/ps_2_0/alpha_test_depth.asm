// ps_2_0 alpha_test_depth: alpha-tested foliage that also writes its own
// depth.
// Exercises: texkill on a computed register (any component < 0 discards),
// cmp, oDepth from a computed value, abs, frc.
// Textures: s0 foliage (alpha = coverage).  Inputs: t1.x linear depth.
// Constants: c0.x alpha reference, c0.y depth bias.
ps_2_0
def c1, 0, 1, 0.5, 0
dcl t0.xy
dcl t1.x
dcl_2d s0
texld r0, t0, s0
sub r1, r0.a, c0.x
texkill r1
add r2.x, t1.x, c0.y
abs r2.y, r2.x
frc r2.z, r2.y
cmp r3.x, -r2.z, c1.y, r2.z
mov oDepth, r3.x
mov oC0, r0
