// ps_1_1 bump_env: environment-mapped bump mapping (EMBM).
// Exercises: tex, texbem (stage 1 coordinates perturbed by the 2x2 bump
// matrix of stage 1 applied to t0.rg), modulation with the diffuse colour.
// Textures: stage 0 du/dv bump map, stage 1 environment map (2D).
ps_1_1
tex t0
texbem t1, t0
mul r0, t1, v0
