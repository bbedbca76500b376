// ps_3_0 texldl_lod: explicit-LOD reads for a glossy reflection (rough =
// blurrier mip) and a volumetric lookup, with no reliance on derivatives.
// Exercises: texldl with 2d, cube and volume samplers (LOD in .w), lrp.
// Inputs: v0.xy texcoord, v1.xyz reflection vector, v2.xyz volume
// coordinate.  Textures: s0 2D roughness, s1 cube, s2 volume.
// Constants: c0.x maximum mip.
ps_3_0
def c1, 0, 1, 0.5, 0
dcl_texcoord0 v0.xy
dcl_texcoord1 v1.xyz
dcl_texcoord2 v2.xyz
dcl_2d s0
dcl_cube s1
dcl_volume s2
mov r0.xy, v0
mov r0.zw, c1.x
texldl r1, r0, s0
mov r2.xyz, v1
mul r2.w, r1.x, c0.x
texldl r3, r2, s1
mov r4.xyz, v2
mov r4.w, c1.z
texldl r5, r4, s2
lrp r6, r1.y, r3, r5
mov oC0, r6
