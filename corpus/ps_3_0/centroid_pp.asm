// ps_3_0 centroid_pp: a multisample-friendly decal with partial-precision
// arithmetic.
// Exercises: dcl_texcoord0_centroid and dcl_color_centroid input
// declarations, dcl_texcoord1_pp_centroid, _pp on texld and arithmetic,
// _sat_pp combined, abs, texldb from an input register, dp2add.
// Inputs: v0.xy decal uv (centroid), v1 colour (centroid), v2.xy detail
// uv.  Textures: s0 decal, s1 detail.  Constants: c0.x detail bias.
ps_3_0
def c1, 0.5, 1, 0, 2
dcl_texcoord0_centroid v0.xy
dcl_color_centroid v1
dcl_texcoord1_pp_centroid v2.xy
dcl_2d s0
dcl_2d s1
texld_pp r0, v0, s0
mul_pp r0, r0, v1
mov_pp r1.xy, v2
mov_pp r1.w, c0.x
texldb_pp r2, r1, s1
add_pp r3.xy, v0, -c1.x
abs_pp r3.xy, r3
dp2add_pp r3.z, r3, r3, c1.z
mad_sat_pp r4.xyz, r2, c1.w, -c1.y
mad_sat_pp r0.xyz, r4, r3.z, r0
mov oC0, r0
