// ps_1_1 bump_env_luminance: EMBM with a luminance channel and a base map.
// Exercises: texbeml (luminance = saturate(t0.b * LSCALE + LOFFSET)), a
// plain tex on a later stage, mad with the specular colour.
// Textures: stage 0 du/dv/l bump map, stage 1 environment map, stage 2
// base colour map.
ps_1_1
tex t0
texbeml t1, t0
tex t2
mul r0, t2, v0
mad r0, t1, v1, r0
