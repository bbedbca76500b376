// ps_2_0 normal_map_phong: per-pixel Blinn-Phong with a tangent-space
// normal map.
// Exercises: texld of a normal map and unpacking with mad, nrm, dp3,
// max, pow with a constant exponent, the _sat result modifier, _pp
// (partial precision) on several instructions.
// Inputs: t0.xy texcoord, t1.xyz light vector, t2.xyz half vector
// (tangent space).  Textures: s0 base, s1 normal map.
// Constants: c0 light colour; c1 specular colour, c1.w = power.
ps_2_0
def c2, 2, -1, 0, 1
dcl t0.xy
dcl t1.xyz
dcl t2.xyz
dcl_2d s0
dcl_2d s1
texld r0, t0, s1
mad_pp r0.xyz, r0, c2.x, c2.y
nrm_pp r1.xyz, r0
nrm_pp r2.xyz, t1
nrm_pp r3.xyz, t2
dp3_sat r4.x, r1, r2
dp3 r4.y, r1, r3
max r4.y, r4.y, c2.z
pow r4.z, r4.y, c1.w
texld r5, t0, s0
mul r5.xyz, r5, r4.x
mul r5.xyz, r5, c0
mul r6.xyz, r4.z, c1
add_sat r7.xyz, r5, r6
mov r7.w, r5.w
mov oC0, r7
