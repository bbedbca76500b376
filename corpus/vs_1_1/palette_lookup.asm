// vs_1_1 palette_lookup: per-vertex colour from a constant palette
// indexed by an input value, plus a second lookup at an offset.
// Exercises: `mov a0.x, v#` straight from an input (floor conversion),
// c[a0.x] with no offset, c[a0.x + n] with n > 0, negated relative source.
// Constants: c0-c3 world-view-projection; c16-c31 palette (16 entries);
// c32-c47 secondary palette.
vs_1_1
def c4, 0.5, 1, 0, 0
dcl_position v0
dcl_blendindices v1
m4x4 oPos, v0, c0
mov a0.x, v1.x
mov r0, c16[a0.x]
add r1, c4.y, -c[a0.x + 32]
mul oD0, r0, r1
mov oD1, c[a0.x + 16]
mov oT0, c4
