// ps_1_4 texdepth_offset: depth replaced per pixel by a ratio computed in
// phase 1 from interpolated coordinates and a depth-offset map.
// Exercises: texdepth r5 (depth = r5.r / r5.g) in phase 2, mad with a _bx2
// source in phase 1, texcrd, phase; phase-1 results read in phase 2
// only through their .rgb components.
// Textures: stage 1 depth-offset map.  Constants: c0.r offset scale.
ps_1_4
def c0, 0.05, 0, 0, 0
texcrd r0.rgb, t0
texld r1, t1
mad r5.rg, r1_bx2, c0, r0
phase
texdepth r5
mul r0.rgb, r1, v0
+mov r0.a, v0.a
