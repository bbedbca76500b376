// vs_2_x dynamic_branch: distance and orientation classes chosen with
// data-dependent branches, nested two deep.
// Exercises: ifc with every comparison (if_lt, if_gt, if_ge, if_eq,
// if_ne, if_le), else, nesting of ifc inside ifc, comparisons of temps,
// inputs and constants with replicate swizzles.
// Constants: c0-c3 world-view-projection.
vs_2_x
def c10, 0, 1, 0.5, 2
def c11, 10, 50, 100, 0
dcl_position v0
dcl_normal v1
dcl_texcoord v2
m4x4 r0, v0, c0
mov oPos, r0
mov r1, c10.x
if_lt r0.w, c11.x
    mov r1.x, c10.y
    if_gt v2.x, c10.z
        mov r1.y, c10.y
    else
        mov r1.y, c10.z
    endif
else
    if_ge r0.w, c11.z
        mov r1.z, c10.y
    endif
endif
if_eq v1.z, c10.x
    mov r1.w, c10.y
endif
if_ne r1.x, r1.z
    add r1.w, r1.w, c10.z
endif
if_le r0.w, c11.y
    mul r1.xyz, r1, c10.z
endif
mov oD0, r1
mov oT0.xy, v2
