"""The sampler, clip-plane and draw-time states (``Options.draw_state``)
through the WGSL target on WebGPU (wgpu on lavapipe), baked and as
pipeline-overridable constants, against the reference interpreter: the
cases of test_stage_state_vk.py that WebGPU can draw (it has no point size
or point sprites: see the wgsl diagnostics; the runner draws such points as
quads, as a layer would), the alpha test and clip planes a draw's render
state asks for, plus random generated pixel programs with random draw-time
states (``random_state.generated``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from xlate import translate
from xlate.bytecode.asm import assemble_bytes
from xlate.verify.gl import Draw

from .test_stage_state import (BIG_TRIANGLE, H, QUAD, VS_QUAD, W, _colour_texture, _depth_texture,
                               check_branch_constants_by_id, check_clip_planes, draw_ps_c0)


def _draw_ps(wgr, ps_asm: str, textures: dict, state: dict, values=None, mode="baked"):
    return draw_ps_c0(wgr, ps_asm, textures, state, "wgsl", values, mode)


@pytest.mark.parametrize("fmt", ["d16", "d24"])
def test_depth_compare(wgr, fmt):
    """texture_depth_2d + sampler_comparison (textureSampleCompare)."""
    img, ref, t = _draw_ps(wgr, "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n",
                           {0: _depth_texture(fmt)}, {"depthtexture": [0]})
    assert "textureSampleCompare" in t.code and t.reflection["samplers"][0]["sampler_type"] == "comparison"
    assert set(np.unique(ref)) == {0.0, 1.0}
    assert np.array_equal(img, ref)


def test_fetch4_and_srgb(wgr):
    ps = "ps_2_0\ndcl t0\ndcl_2d s0\ndcl_2d s1\ntexld r0, t0, s0\ntexld r1, t0, s1\nadd r0, r0, r1\nmov oC0, r0\n"
    textures = {0: _colour_texture(fetch4=True), 1: _colour_texture(srgb=True)}
    img, ref, t = _draw_ps(wgr, ps, textures, {"fetch4": [0], "srgbtexture": [1], "srgbwriteenable": True})
    assert "textureGather(0, " in t.code
    assert np.abs(img - ref).max() < 4e-6


def test_dynamic_sampler_states_as_overrides(wgr):
    """One translation; sRGB read, null textures and sRGB write chosen per
    pipeline through WebGPU's override constants."""
    ps = ("ps_2_0\ndcl t0\ndcl_2d s0\ndcl_2d s1\ntexld r0, t0, s0\ntexld r1, t0, s1\nmul r1, r1, c0\n"
          "add r0, r0, r1\nmov oC0, r0\n")
    textures = {0: _colour_texture(), 1: _colour_texture()}
    for values in ({}, {"srgbtexture": [1], "nulltexture": [0]}, {"srgbtexture": [0], "srgbwriteenable": True}):
        img, ref, t = _draw_ps(wgr, ps, textures, {}, values=values, mode="dynamic")
        assert all(p["form"] == "override" for p in t.reflection["render_state"]["parameters"])
        assert "override xl_rs_" in t.code
        assert np.abs(img - ref).max() < 4e-6, values


@pytest.mark.parametrize("mode", ["baked", "dynamic"])
def test_clip_planes(wgr, mode):
    """@builtin(clip_distances) (enable clip_distances): the kept side drawn, the other not."""
    if "clip-distances" not in wgr.device.features:
        pytest.skip("the WebGPU device has no clip-distances feature")
    vs = check_clip_planes(wgr, "wgsl", mode)
    assert vs.code.startswith("enable clip_distances;")


def test_bool_and_int_constants_as_overrides(wgr):
    """b# and i# as override constants (@id 96+n, 112+4n+c): one module,
    each pipeline's values through its constants."""
    check_branch_constants_by_id(wgr, "wgsl", "override_id")


def test_point_sprites_are_noted_and_drawn_as_quads(wgr):
    """WebGPU points are one pixel: the translation says so (a PS translated
    with point sprites reads the pixel's centre), and the runner draws a
    point with a size or sprites as a quad (``wgpu_state.point_quads``):
    POINTSIZE 4 covers 4x4 pixels, the sprite coordinate (u, v) runs right
    and down across them (the vkd3d point-size and point-sprite cases
    check the sizes and corners on the corpus)."""
    from xlate.verify.gl import RenderState

    sprite = translate(assemble_bytes("ps_2_0\ndcl t0\nmov oC0, t0\n"), "wgsl", draw_state={"pointspriteenable": True})
    assert any("point sprites" in d for d in sprite.diagnostics)
    vs = translate(assemble_bytes(VS_QUAD), "wgsl", half_pixel_exact=True)
    ps = translate(assemble_bytes("ps_2_0\ndcl t0\nmov oC0, t0\n"), "wgsl", half_pixel_exact=True)
    centre = np.array([[0.0, 0.0, 0.5, 1.0]], np.float32)  # pixel corner (4, 4): the quad covers 2..5
    verts = {("position", 0): centre, ("texcoord", 0): np.array([[0.25, 0.75, 0.0, 1.0]], np.float32)}
    img = wgr.draw(vs, ps, Draw(vertices=verts, primitive="point_list", size=(W, H), clear=(-1, -1, -1, -1),
                                state=RenderState(point_size=4.0, point_sprite=True))).colors[0]
    covered = img[..., 3] != -1
    assert covered[2:6, 2:6].all() and covered.sum() == 16
    u = np.arange(4) / 4  # D3D's pixel centres are at integers: the quad [2, 6) starts on pixel 2's
    assert np.allclose(img[2:6, 2:6, 0], np.broadcast_to(u, (4, 4)), atol=1e-6)
    assert np.allclose(img[2:6, 2:6, 1], np.broadcast_to(u[:, None], (4, 4)), atol=1e-6)
    # no sprites: the VS's own texcoord over the 4x4 quad
    img = wgr.draw(vs, ps, Draw(vertices=verts, primitive="point_list", size=(W, H), clear=(-1, -1, -1, -1),
                                state=RenderState(point_size=4.0))).colors[0]
    assert (img[..., 3] != -1).sum() == 16 and np.allclose(img[2:6, 2:6], (0.25, 0.75, 0.0, 1.0))


RANDOM_STATE_SEEDS = 6  # per version and mode


@pytest.mark.parametrize("version", ["ps_2_0", "ps_2_x", "ps_3_0"])
def test_random_programs_with_random_states(wgr, version):
    """Generated pixel programs with every draw-time state drawn at random
    (``random_state.generated``: fog, alpha test, sRGB read and write, depth
    compare, unbound samplers), baked and as override constants, against the
    reference; programs whose random sampler state WebGPU cannot express
    (border, mirror-once) are counted apart."""
    from xlate.verify import differential as D
    from xlate.verify.random_state import generated

    ran = total = 0
    for k in range(RANDOM_STATE_SEEDS):
        seed = 15000 + k
        program, state = generated(seed, version)
        for mode in ("baked", "dynamic"):
            v = D.check_generated(program, seed, target="wgsl", runner=wgr, draw_state=state, draw_state_mode=mode,
                                  name=f"{version} {seed} {mode}")
            total += 1
            if v.status == "error" and "address mode" in v.message:
                continue
            ran += 1
            assert v.ok, v.report() + "\n" + program.asm
    assert ran >= total // 3


def test_render_state_alpha_test_and_clip_planes_in_the_shader(wgr):
    """A draw whose RenderState asks for the alpha test or user clip planes
    (which WebGPU lacks) runs only with translations that do them
    (``wgpu_state.shader_draw_state``, baked; or dynamic with the values in
    ``state_values``); a translation without them, or with other values, is
    refused rather than drawn without the state.  oC0.a = 1.5 against ALPHAREF
    255: EQUAL discards, GREATER keeps (unsaturated, as vkd3d's D3D9 test)."""
    from xlate.verify.gl import RenderState
    from xlate.verify.wgpu_state import shader_draw_state

    ps_src = "ps_2_0\ndef c0, 0, 1, 0, 1.5\nmov oC0, c0\n"
    verts = {("position", 0): BIG_TRIANGLE}
    plain = translate(assemble_bytes(ps_src), "wgsl")
    for func, kept in (("equal", False), ("greater", True)):
        state = RenderState(alpha_func=func, alpha_ref=255)
        with pytest.raises(NotImplementedError, match="no alpha test"):
            wgr.draw(None, plain, Draw(vertices=verts, size=(W, H), state=state))
        ps = translate(assemble_bytes(ps_src), "wgsl", draw_state=shader_draw_state(state, "pixel"))
        img = wgr.draw(None, ps, Draw(vertices=verts, size=(W, H), state=state, clear=(1, 0, 0, 1))).colors[0]
        assert tuple(img[0, 0]) == ((0.0, 1.0, 0.0, 1.5) if kept else (1.0, 0.0, 0.0, 1.0)), func
    # the same through override constants: the state values must agree with the draw's
    dyn = translate(assemble_bytes(ps_src), "wgsl", draw_state_mode="dynamic")
    state = RenderState(alpha_func="equal", alpha_ref=255)
    with pytest.raises(NotImplementedError, match="no alpha test"):
        wgr.draw(None, dyn, Draw(vertices=verts, size=(W, H), state=state))
    values = {"alphatestenable": True, "alphafunc": "equal", "alpharef": 255}
    img = wgr.draw(None, dyn, Draw(vertices=verts, size=(W, H), state=state, state_values=values,
                                   clear=(1, 0, 0, 1))).colors[0]
    assert tuple(img[0, 0]) == (1.0, 0.0, 0.0, 1.0)
    if "clip-distances" not in wgr.device.features:
        return
    # a clip plane x >= 0 (D3D clip space): the left half is clipped
    clip = RenderState(clip_planes=((1.0, 0.0, 0.0, 0.0),))
    vs_plain = translate(assemble_bytes(VS_QUAD), "wgsl")
    quad = {("position", 0): QUAD, ("texcoord", 0): np.zeros((4, 4), np.float32)}
    with pytest.raises(NotImplementedError, match="no user clip planes"):
        wgr.draw(vs_plain, plain, Draw(vertices=quad, primitive="triangle_strip", size=(W, H), state=clip))
    vs = translate(assemble_bytes(VS_QUAD), "wgsl", draw_state=shader_draw_state(clip, "vertex"))
    img = wgr.draw(vs, plain, Draw(vertices=quad, primitive="triangle_strip", size=(W, H), state=clip,
                                   clear=(1, 0, 0, 1))).colors[0]
    assert tuple(img[H // 2, 0]) == (1.0, 0.0, 0.0, 1.0) and tuple(img[H // 2, W - 1]) == (0.0, 1.0, 0.0, 1.5)
