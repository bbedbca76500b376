// ps_1_3 texreg_chain: a palette-based material where one texture's
// channels address three lookup tables.
// Exercises: texreg2ar, texreg2gb and texreg2rgb from the same source,
// cnd on r0.a, the _x4 result shift, nop, a co-issued pair.
// Textures: stage 0 index map; stages 1 and 2 2D tables; stage 3 a volume
// table.  Constants: c0 mix weights.
ps_1_3
def c0, 0.25, 0.25, 0.25, 0.5
tex t0
texreg2ar t1, t0
texreg2gb t2, t0
texreg2rgb t3, t0
mul r1.rgb, t1, t2
+mov r0.a, t0.a
nop
cnd r0.rgb, r0.a, t3, r1
mul_x4 r0.rgb, r0, c0
