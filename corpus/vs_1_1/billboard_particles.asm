// vs_1_1 billboard_particles: camera-facing particle quads expanded in the
// vertex shader, fading out and flipping through a sprite sheet with age.
// Exercises: expansion along the camera right/up vectors with mul/mad,
// rcp, sge for a half-life switch, frc with the .y mask (floor = x - frc),
// a second texcoord input (dcl_texcoord1), oD0 alpha fade, oT0 written
// component by component.
// Constants: c0-c3 view-projection; c4 camera right (world); c5 camera up
// (world); c6.x = lifetime, c6.y = 1 / frames, c6.z = frames.
// Inputs: v0 particle centre (world, w = 1); v1.xy quad corner in [-1, 1];
// v2.x size, v2.y age (seconds); v3 colour.
vs_1_1
def c7, 0.5, 1, 0, 0.25
def c8, 2, -2, 1, 0
dcl_position v0
dcl_texcoord0 v1
dcl_texcoord1 v2
dcl_color v3
// size grows by a quarter per second of age
mul r0.x, v2.y, c7.w
mad r0.x, r0.x, v2.x, v2.x
mul r1.xyz, v1.x, c4
mul r1.xyz, r1, r0.x
mul r2.xyz, v1.y, c5
mad r1.xyz, r2, r0.x, r1
add r1.xyz, r1, v0
mov r1.w, c7.y
m4x4 oPos, r1, c0
// alpha: 1 for the first half of the life, then 2 (1 - t)
rcp r3.x, c6.x
mul r3.x, v2.y, r3.x
sge r3.y, r3.x, c7.x
mad r3.z, r3.x, c8.y, c8.z
mad r3.w, r3.y, r3.z, c7.y
mul oD0.w, v3.w, r3.w
mov oD0.xyz, v3
// sprite-sheet frame = floor(t * frames)
mul r4.y, r3.x, c6.z
frc r5.y, r4.y
add r4.y, r4.y, -r5.y
mad r6.x, v1.x, c7.x, c7.x
add r6.x, r6.x, r4.y
mul oT0.x, r6.x, c6.y
mad oT0.y, v1.y, -c7.x, c7.x
