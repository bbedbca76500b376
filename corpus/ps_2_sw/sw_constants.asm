// ps_2_sw sw_constants: colour grading with a large curve table held in
// the software profile's constant file.
// Exercises: ps_2_sw version token, constants above 31 (c500, c1000),
// integer and boolean constants above 15 (defi i20, defb b20), labels
// above 15 (l30), rep and if b#.
// Inputs: t0.xy texcoord.  Textures: s0 image.
// Constants: c500 lift, c501 gamma-ish scale, c1000 gain.
ps_2_sw
def c40, 0, 1, 0.5, 0.25
defi i20, 2, 0, 0, 0
defb b20, true
dcl t0.xy
dcl_2d s0
texld r0, t0, s0
add r0.xyz, r0, c500
rep i20
    mul r0.xyz, r0, c501
endrep
if b20
    call l30
endif
mov oC0, r0
ret
label l30
    mul_sat r0.xyz, r0, c1000
    ret
