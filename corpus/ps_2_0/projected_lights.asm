// ps_2_0 projected_lights: a projected spotlight cookie, a projected
// cube-map light and a projected volume fog lookup.
// Exercises: texldp (divide by .w before sampling) with 2d, cube and
// volume samplers; dcl_centroid on a texture coordinate.
// Textures: s0 cookie (2D), s1 light cube, s2 fog volume.
ps_2_0
dcl t0
dcl t1
dcl_centroid t2
dcl v0
dcl_2d s0
dcl_cube s1
dcl_volume s2
texldp r0, t0, s0
texldp r1, t1, s1
texldp r2, t2, s2
mul r0, r0, r1
mul r0, r0, v0
lrp r3, r2.a, r2, r0
mov oC0, r3
