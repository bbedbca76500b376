// ps_3_0 vpos_vface: two-sided shading with a screen-door dither.
// Exercises: dcl vPos.xy and dcl vFace; vFace as a comparison operand
// (if_lt vFace, c#) and as an ordinary cmp source; vPos in frc and
// arithmetic (pixel centres are integers); texkill of a dither pattern;
// dcl_texcoord/dcl_normal/dcl_color inputs on v#.
// Textures: s0 base.  Constants: c0 back-face tint; c1.x transparency.
ps_3_0
def c2, 0.5, 0.25, 0, 1
dcl_texcoord v0.xy
dcl_normal v1.xyz
dcl_color v2
dcl vPos.xy
dcl vFace
dcl_2d s0
texld r0, v0, s0
mul r0, r0, v2
nrm r1.xyz, v1
if_lt vFace, c2.z
    mov r1.xyz, -r1
    mul r0.xyz, r0, c0
endif
cmp r2.x, vFace, c2.w, c2.z
mul r0.w, r0.w, r2.x
// 2x2 ordered dither: d = frac(x/2) * 0.5 + frac(y/2) * 0.25
mul r3.xy, vPos, c2.x
frc r3.xy, r3
mul r3.x, r3.x, c2.x
mad r3.x, r3.y, c2.y, r3.x
add r4, c1.x, -r3.x
texkill r4
mad r0.xyz, r1, c2.y, r0
mov oC0, r0
