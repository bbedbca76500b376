// ps_2_x parallax_steps: steep parallax mapping, marching the view ray
// through a height field until it dips below the surface.
// Exercises: rep i# with break_ge on a sampled value, texldd inside a
// loop with gradients taken outside it (derivatives are undefined in
// divergent flow), dsx, dsy, rcp, defi.
// Inputs: t0.xy texcoord, t1.xyz view vector (tangent space, z > 0).
// Textures: s0 height map (alpha = height), s1 colour.
// Constants: c0.x height scale.
ps_2_x
def c1, 0, 1, 0.0625, 0
defi i0, 16, 0, 0, 0
dcl t0.xy
dcl t1.xyz
dcl_2d s0
dcl_2d s1
dsx r0.xy, t0
dsy r1.xy, t0
rcp r2.x, t1.z
mul r2.xy, t1, r2.x
mul r2.xy, r2, -c0.x
mul r2.xy, r2, c1.z
mov r3.xy, t0
mov r3.z, c1.y
rep i0
    texldd r4, r3, s0, r0, r1
    break_ge r4.w, r3.z
    add r3.xy, r3, r2
    add r3.z, r3.z, -c1.z
endrep
texldd r5, r3, s1, r0, r1
mov oC0, r5
