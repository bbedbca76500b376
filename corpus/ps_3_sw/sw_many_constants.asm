// ps_3_sw sw_many_constants: a tone-mapping curve evaluated with
// coefficients stored above the hardware ps_3_0 limit of 224.
// Exercises: ps_3_sw version token, constants c300-c302 and c2000,
// defi i40, loop aL, i40, labels above 16 (l200), callnz b100.
// Inputs: v0.xy texcoord.  Textures: s0 HDR image.
// Constants: c300-c302 curve coefficients, c2000 exposure.
ps_3_sw
def c10, 0, 1, 0.5, 0
defi i40, 3, 0, 1, 0
dcl_texcoord v0.xy
dcl_2d s0
texld r0, v0, s0
mul r0.xyz, r0, c2000
mov r1, c10.x
mov r2, c300
mov r3, c301
mov r4, c302
mov r5.xyz, c10.y
// Horner-free polynomial: sum of c30k * x^k, k = 0..2
loop aL, i40
    mad r1.xyz, r2, r5, r1
    mul r5.xyz, r5, r0
    mov r2, r3
    mov r3, r4
endloop
mov r1.w, r0.w
callnz l200, b100
mov oC0, r1
ret
label l200
    min r1.xyz, r1, c10.y
    max r1.xyz, r1, c10.x
    ret
