// ps_1_1 texreg_dependent: colour grading by dependent reads.
// Exercises: texreg2ar (coordinates from t0.a, t0.r) and texreg2gb
// (coordinates from t0.g, t0.b), lrp between the two lookups by the
// diffuse colour.
// Textures: stage 0 source image, stages 1 and 2 2D lookup tables.
ps_1_1
tex t0
texreg2ar t1, t0
texreg2gb t2, t0
lrp r0, v0, t1, t2
