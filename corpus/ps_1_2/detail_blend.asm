// ps_1_2 detail_blend: terrain with a detail texture that fades out with
// distance, a light map and vertex lighting.
// Exercises: tex and texcoord in one shader (texcoord saturates and sets
// .w = 1), dp3 to move a coordinate into a replicated scalar, mul_x2
// detail modulation around 0.5, lrp, co-issued .rgb/.a pairs.
// Textures: stage 0 base, stage 1 detail, stage 2 light map; set 3
// carries the fade factor in its third coordinate.
ps_1_2
def c0, 0, 0, 1, 0
tex t0
tex t1
tex t2
texcoord t3
dp3_sat r1, t3, c0
mul_x2 r0.rgb, t0, t1
+mov r0.a, t0.a
lrp r0.rgb, r1, t0, r0
mul r0.rgb, r0, t2
+mul r0.a, r0.a, v0.a
mul_x2 r0.rgb, r0, v0
