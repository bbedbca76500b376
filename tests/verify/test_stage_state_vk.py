"""The sampler, clip-plane and point states (``Options.draw_state``) on
lavapipe: native SPIR-V (``spirv``) and the ``vulkan`` GLSL through glslang,
baked and as specialization constants, against the reference interpreter
(the same cases as test_stage_state.py on llvmpipe)."""

from __future__ import annotations

import numpy as np
import pytest

from xlate import translate
from xlate.bytecode.asm import assemble_bytes
from xlate.verify import ReferenceConstants
from xlate.verify.gl import Draw

from .test_stage_state import (_colour_texture, _depth_texture, _points, check_branch_constants_by_id,
                               check_clip_planes)
from .test_stage_state import draw_ps_c0 as _draw_ps

F32 = np.float32
TARGETS = ["spirv", "vulkan"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fmt", ["d16", "d24"])
def test_depth_compare(vkr, target, fmt):
    img, ref, _ = _draw_ps(vkr, "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n",
                           {0: _depth_texture(fmt)}, {"depthtexture": [0]}, target)
    assert set(np.unique(ref)) == {0.0, 1.0}
    assert np.array_equal(img, ref)


@pytest.mark.parametrize("target", TARGETS)
def test_fetch4_and_srgb(vkr, target):
    ps = "ps_2_0\ndcl t0\ndcl_2d s0\ndcl_2d s1\ntexld r0, t0, s0\ntexld r1, t0, s1\nadd r0, r0, r1\nmov oC0, r0\n"
    textures = {0: _colour_texture(fetch4=True), 1: _colour_texture(srgb=True)}
    img, ref, _ = _draw_ps(vkr, ps, textures, {"fetch4": [0], "srgbtexture": [1], "srgbwriteenable": True}, target)
    assert np.abs(img - ref).max() < 4e-6


@pytest.mark.parametrize("target", TARGETS)
def test_dynamic_sampler_states_as_specialization(vkr, target):
    """One translation; sRGB read, null textures and sRGB write chosen per
    draw through VkSpecializationInfo."""
    ps = ("ps_2_0\ndcl t0\ndcl_2d s0\ndcl_2d s1\ntexld r0, t0, s0\ntexld r1, t0, s1\nmul r1, r1, c0\n"
          "add r0, r0, r1\nmov oC0, r0\n")
    textures = {0: _colour_texture(), 1: _colour_texture()}
    for values in ({}, {"srgbtexture": [1], "nulltexture": [0]}, {"srgbtexture": [0], "srgbwriteenable": True}):
        img, ref, t = _draw_ps(vkr, ps, textures, {}, target, values=values, mode="dynamic")
        assert all(p["form"] == "specialization_constant" for p in t.reflection["render_state"]["parameters"])
        assert np.abs(img - ref).max() < 4e-6, values


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["baked", "dynamic"])
def test_clip_planes(vkr, target, mode):
    """ClipDistance (shaderClipDistance): the kept side drawn, the other not."""
    check_clip_planes(vkr, target, mode)


@pytest.mark.parametrize("target", TARGETS)
def test_points_size_and_sprites(vkr, target):
    vs = translate(assemble_bytes("vs_2_0\ndcl_position v0\ndcl_psize v1\nmov oPos, v0\nmov oPts, v1.x\n"), target,
                   draw_state={"pointmode": True, "pointsize_min": 2.0, "pointsize_max": 6.0})
    ps = translate(assemble_bytes("ps_2_0\ndcl t0\nmov r0, t0\nmov r0.w, c0.x\nmov oC0, r0\n"), target,
                   draw_state={"pointspriteenable": True})
    img = vkr.draw(vs, ps, Draw(vertices={("position", 0): _points(3, 32), ("psize", 0): F32([[1], [4], [30]])},
                                primitive="point_list", size=(32, 32), clear=(0, 0, 0, 0),
                                constants=ReferenceConstants(floats={0: (1, 1, 1, 1)}))).colors[0]
    widths = [int((img[:, c - 4:c + 4, 3].sum(axis=0) > 0).sum()) for c in (8, 16, 24)]
    assert widths == [2, 4, 6]
    big = img[13:19, 21:27]  # the 6x6 sprite around (24, 16): u right, v down
    assert np.all(np.diff(big[..., 0], axis=1) > 0) and np.all(np.diff(big[..., 1], axis=0) > 0)
    assert big[0, 0, 0] < 0.01 and big[0, 0, 1] < 0.01


@pytest.mark.parametrize("target", TARGETS)
def test_bool_and_int_constants_as_specialization_constants(vkr, target):
    """b# and i# as specialization constants (SpecId 96+n, 112+4n+c): one
    module, each draw's values through VkSpecializationInfo."""
    check_branch_constants_by_id(vkr, target, "constant_id")
