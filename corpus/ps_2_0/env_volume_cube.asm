// ps_2_0 env_volume_cube: cube-map reflection and 3D-noise detail.
// Exercises: texld with a cube sampler (dcl_cube) and a volume sampler
// (dcl_volume), dcl t#.xyz, reflection vector R = 2 (N.E) N - E, nrm.
// Textures: s0 2D base, s1 environment cube, s2 noise volume.
// Constants: c0.x reflectivity, c1.x noise frequency.
ps_2_0
def c2, 2, 1, 0.5, 0
dcl t0.xy
dcl t1.xyz
dcl t2.xyz
dcl t3.xyz
dcl_2d s0
dcl_cube s1
dcl_volume s2
nrm r0.xyz, t1
nrm r1.xyz, t2
dp3 r2.x, r0, r1
mul r2.x, r2.x, c2.x
mad r3.xyz, r2.x, r0, -r1
texld r4, r3, s1
mul r5.xyz, t3, c1.x
texld r5, r5, s2
texld r6, t0, s0
mul r6, r6, r5
lrp r7, c0.x, r4, r6
mov oC0, r7
