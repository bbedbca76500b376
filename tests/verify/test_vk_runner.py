"""The Vulkan runner (xlate.verify.vk) on Mesa lavapipe, target "spirv"
(xlate's own SPIR-V writer; "spirv-glslang" beside it where both run):
hand-checked draws, vkd3d's D3D9 cases (peer-corpus/vkd3d/cases.jsonl) with
their probes, and generated programs against the reference interpreter.
Vertex shaders alone (``run_vertex``, transform feedback, target "vulkan"):
hand-checked, generated vs_2_0/vs_2_x/vs_3_0 programs and corpus vertex
shaders against the reference through ``xlate.verify.differential``.

Needs the Debian packages mesa-vulkan-drivers and libvulkan1 and the pip
package vulkan; every test skips with the reason when they are missing.
Set XLATE_VK_VALIDATION=1 (with Debian vulkan-validationlayers) to run
everything under VK_LAYER_KHRONOS_validation: any error fails the draw.
"""

from __future__ import annotations

import os
import random
import time
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from xlate import translate
from xlate.bytecode.asm import assemble_bytes
from xlate.verify import ReferenceConstants, SamplerState, Texture
from xlate.verify.cases import ProbeTally, TargetSession, load_cases, make_draw, render_state
from xlate.verify.gl import Draw, RenderState

F32 = np.float32
BIG_TRIANGLE = np.array([[-2, -2], [-2, 4], [4, -2]], F32)  # vkd3d's "draw quad"
CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "peer-corpus" / "vkd3d"
CASES = CORPUS / "cases.jsonl"


def tr(asm: str, target: str = "spirv", **options):
    return translate(assemble_bytes(asm), target, **options)


def draw(vkr, vs, ps, **kw):
    kw.setdefault("vertices", {("position", 0): BIG_TRIANGLE})
    return vkr.draw(vs, ps, Draw(**kw))


VS3 = """vs_3_0
dcl_position v0
dcl_texcoord0 v1
dcl_position o0
dcl_texcoord0 o1
mov o0, v0
mov o1, v1
"""


# --------------------------------------------------------------------------
# Hand-checked draws
# --------------------------------------------------------------------------


def test_constant_colour(vkr):
    vs = tr("vs_2_0\ndcl_position v0\nmov oPos, v0\n")
    ps = tr("ps_2_0\ndef c1, 2, 0.5, -1, 0\nmad r0, c0, c1, c1.w\nmov oC0, r0\n")
    assert isinstance(ps.code, bytes)
    res = draw(vkr, vs, ps, size=(3, 2), constants=ReferenceConstants(floats={0: (1, 2, 3, 4)}))
    assert res.colors[0].shape == (2, 3, 4)
    assert np.array_equal(res.colors[0], np.broadcast_to(F32([2, 1, -3, 0]), (2, 3, 4)))


def test_vs_transform_with_uniforms(vkr):
    """A vs_2_0 matrix transform (c0-c3, the VS's own constants) and a colour
    from c4 through oD0; the PS adds its c0.  The quad covers the middle of
    an 8x4 target: scale (0.5, 0.5) and shift (0.25 right), so pixels 3..6
    of rows 1..2."""
    vs = tr("vs_2_0\ndcl_position v0\ndp4 oPos.x, v0, c0\ndp4 oPos.y, v0, c1\ndp4 oPos.z, v0, c2\n"
            "dp4 oPos.w, v0, c3\nmov oD0, c4\n")
    ps = tr("ps_2_0\ndcl v0\nadd r0, v0, c0\nmov oC0, r0\n")
    quad = F32([[-1, -1, 0.5, 1], [-1, 1, 0.5, 1], [1, -1, 0.5, 1], [1, 1, 0.5, 1]])
    vs_c = ReferenceConstants(floats={0: (0.5, 0, 0, 0.25), 1: (0, 0.5, 0, 0), 2: (0, 0, 1, 0), 3: (0, 0, 0, 1),
                                      4: (0.25, 0.5, 2, 0.75)})
    ps_c = ReferenceConstants(floats={0: (0.125, 0, 0, 0)})
    img = draw(vkr, vs, ps, vertices={("position", 0): quad}, primitive="triangle_strip", size=(8, 4),
               vs_constants=vs_c, constants=ps_c, clear=(9, 9, 9, 9)).colors[0]
    inside = np.zeros((4, 8), bool)
    inside[1:3, 3:7] = True
    # oD0 is saturated in vs_2_0: z 2 -> 1
    assert np.array_equal(img[inside], np.broadcast_to(F32([0.375, 0.5, 1, 0.75]), (8, 4)))
    assert np.all(img[~inside] == 9)


@pytest.mark.parametrize("target", ["spirv", "vulkan"])
def test_varying_locations_link_under_32(vkr, target):
    """color4 lies outside the fixed varying table (Vulkan location 13 by
    default, shared with TEXCOORD13); a layer's varying_locations map puts
    it at 3 in both stages and the pair links and draws (under
    XLATE_VK_VALIDATION=1, with the validation layer clean)."""
    opts = {"varying_locations": (("color", 4, 3),)}
    vs = tr("vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_color4 o1\nmov o0, v0\nmov o1, c0\n", target, **opts)
    ps = tr("ps_3_0\ndcl_color4 v0\nmov oC0, v0\n", target, **opts)
    assert vs.reflection["outputs"][-1]["location"] == ps.reflection["inputs"][0]["location"] == 3
    res = draw(vkr, vs, ps, size=(2, 2), vs_constants=ReferenceConstants(floats={0: (0.25, 0.5, 0.75, 1)}))
    assert np.array_equal(res.colors[0], np.broadcast_to(F32([0.25, 0.5, 0.75, 1]), (2, 2, 4)))


def _texel_grid(w, h):
    t = np.zeros((h, w, 4), F32)
    for y in range(h):
        for x in range(w):
            t[y, x] = (x, y, x + 10 * y, 1)
    return t


def test_textured_quad(vkr):
    """A 4x4 point-sampled texture on a full 4x4 target: pixel (x, y) reads
    texel (x, y), so row 0 of the result is the top of the texture."""
    vs = tr(VS3)
    ps = tr("ps_2_0\ndcl t0.xy\ndcl_2d s2\ntexld r0, t0, s2\nmov oC0, r0\n")
    quad = F32([[-1, 1, 0.5, 1], [1, 1, 0.5, 1], [-1, -1, 0.5, 1], [1, -1, 0.5, 1]])
    uv = F32([[0, 0], [1, 0], [0, 1], [1, 1]])
    tex = Texture("2d", [_texel_grid(4, 4)])
    img = draw(vkr, vs, ps, vertices={("position", 0): quad, ("texcoord", 0): uv}, primitive="triangle_strip",
               size=(4, 4), textures={2: tex}).colors[0]
    assert np.array_equal(img, _texel_grid(4, 4))


@pytest.mark.parametrize("flip_y", [True, False])
def test_vpos_integer_centres_and_row_order(vkr, flip_y):
    ps = tr("ps_3_0\ndcl vPos.xy\nmov r0.xy, vPos\nmov r0.zw, c0\nmov oC0, r0\n", flip_y=flip_y)
    img = draw(vkr, None, ps, size=(4, 3)).colors[0]
    ys, xs = np.mgrid[0:3, 0:4]
    assert np.array_equal(img[..., 0], xs.astype(F32)) and np.array_equal(img[..., 1], ys.astype(F32))


@pytest.mark.parametrize("flip_y", [True, False])
def test_vface_d3d_front_is_clockwise(vkr, flip_y):
    ps = tr("ps_3_0\ndef c1, 1, 0, 0, 0\ndcl vFace\ncmp r0, vFace, c1.x, c1.y\nmov oC0, r0\n", flip_y=flip_y)
    cw = F32([[-1, 1, 0.5, 1], [1, 1, 0.5, 1], [-1, -1, 0.5, 1]])  # clockwise on screen (D3D front)
    ccw = cw[[0, 2, 1]]
    assert draw(vkr, None, ps, size=(4, 4), vertices={("position", 0): cw}).colors[0][0, 0, 0] == 1
    assert draw(vkr, None, ps, size=(4, 4), vertices={("position", 0): ccw}).colors[0][0, 0, 0] == 0
    # D3DCULL_CW culls D3D-front (clockwise) triangles
    res = draw(vkr, None, ps, size=(4, 4), vertices={("position", 0): cw}, state=RenderState(cull="cw"),
               clear=(5, 5, 5, 5))
    assert res.colors[0][0, 0, 0] == 5


def test_int_and_bool_constants(vkr):
    ps = tr("ps_3_0\ndef c1, 1, 0, 0, 0\nmov r0, c1.y\nrep i0\nadd r0.x, r0.x, c1.x\nendrep\n"
            "if b3\nadd r0.y, r0.y, c1.x\nendif\nmov oC0, r0\n")
    for count, b in [(3, True), (0, False), (5, True)]:
        c = ReferenceConstants(ints={0: (count, 0, 0, 0)}, bools={3: b})
        img = draw(vkr, None, ps, size=(2, 2), constants=c).colors[0]
        assert np.array_equal(img[0, 0], F32([count, b, 0, 0]))


PS_TEXLDL = "ps_3_0\ndcl_{kind} s0\ntexldl r0, c0, s0\nmov oC0, r0\n"


def _levels_2d():
    l0 = np.zeros((4, 4, 4), F32)
    for y in range(4):
        for x in range(4):
            l0[y, x] = (x, y, 0, 1)
    l1 = np.zeros((2, 2, 4), F32)
    for y in range(2):
        for x in range(2):
            l1[y, x] = (10 + x, 10 + y, 1, 1)
    return [l0, l1, np.array([[[20, 20, 2, 1]]], F32)]


@pytest.mark.parametrize("coord, state, want", [
    ((0.375, 0.625, 0, 0), SamplerState(), (1, 2, 0, 1)),
    ((0.375, 0.625, 0, 1), SamplerState(mip_filter="point"), (10, 11, 1, 1)),
    ((0.375, 0.625, 0, 1), SamplerState(), (1, 2, 0, 1)),  # MIP none: base level
    ((0.375, 0.625, 0, 0.5), SamplerState(mip_filter="linear"), (5.5, 6.5, 0.5, 1)),
    ((0.25, 0.125, 0, 0), SamplerState(mag_filter="linear"), (0.5, 0, 0, 1)),
    ((1.2, 0.125, 0, 0), SamplerState(address_u="clamp"), (3, 0, 0, 1)),
    ((1.125, 0.125, 0, 0), SamplerState(address_u="mirror"), (3, 0, 0, 1)),
    ((-0.125, 0.125, 0, 0), SamplerState(address_u="mirroronce"), (0, 0, 0, 1)),
    ((1.2, 0.125, 0, 0), SamplerState(address_u="border", border_color=(0.25, 0.5, 0.75, 1)), (0.25, 0.5, 0.75, 1)),
    ((0.375, 0.625, 0, 0), SamplerState(mip_filter="point", max_mip_level=1), (10, 11, 1, 1)),
])
def test_2d_sampler_state(vkr, coord, state, want):
    img = draw(vkr, None, tr(PS_TEXLDL.format(kind="2d")), size=(2, 2),
               constants=ReferenceConstants(floats={0: coord}), textures={0: Texture("2d", _levels_2d(), state)})
    assert np.allclose(img.colors[0], np.broadcast_to(F32(want), (2, 2, 4)), atol=1e-6), img.colors[0][0, 0]


def test_cube_volume_and_unbound_samplers(vkr):
    faces = np.zeros((6, 2, 2, 4), F32)
    for f in range(6):
        faces[f] = (f, 10 * f, 0, 1)
    ps = tr(PS_TEXLDL.format(kind="cube"))
    for direction, face in [((1, 0.1, 0.2), 0), ((-1, 0.1, 0.2), 1), ((0.1, -1, 0.2), 3), ((0.1, 0.2, -1), 5)]:
        img = draw(vkr, None, ps, size=(2, 2), constants=ReferenceConstants(floats={0: (*direction, 0)}),
                   textures={0: Texture("cube", [faces])}).colors[0]
        assert np.array_equal(img[0, 0], F32([face, 10 * face, 0, 1]))
    vol = np.zeros((2, 2, 2, 4), F32)
    for z in range(2):
        for y in range(2):
            for x in range(2):
                vol[z, y, x] = (x, y, z, 1)
    ps = tr(PS_TEXLDL.format(kind="volume"))
    img = draw(vkr, None, ps, size=(2, 2), constants=ReferenceConstants(floats={0: (0.25, 0.75, 0.75, 0)}),
               textures={0: Texture("volume", [vol])}).colors[0]
    assert np.array_equal(img[1, 1], F32([0, 1, 1, 1]))
    img = draw(vkr, None, tr(PS_TEXLDL.format(kind="2d")), size=(2, 2)).colors[0]
    assert np.array_equal(img[0, 0], F32([0, 0, 0, 1]))


def test_mrt_and_persistent_targets(vkr):
    from xlate.verify.vk import RenderTargets

    ps = tr("ps_3_0\nmov oC0, c0\nmov oC1, c1\n")
    c = ReferenceConstants(floats={0: (1, 2, 3, 0.5), 1: (5, 6, 7, 8)})
    res = draw(vkr, None, ps, size=(2, 2), targets=2, constants=c)
    assert np.array_equal(res.colors[0][1, 1], F32([1, 2, 3, 0.5]))
    assert np.array_equal(res.colors[1][0, 0], F32([5, 6, 7, 8]))
    res.targets.release()
    targets = RenderTargets(2, 2, 2)
    targets.clear([(1, 1, 1, 1), (2, 2, 2, 2)])
    only0 = tr("ps_3_0\nmov oC0, c0\n")
    res = vkr.draw(None, only0, Draw(vertices={("position", 0): BIG_TRIANGLE}, size=(2, 2), constants=c),
                   targets=targets)
    assert np.array_equal(res.colors[0][0, 0], F32([1, 2, 3, 0.5]))
    assert np.array_equal(res.colors[1][0, 0], F32([2, 2, 2, 2]))  # not written by the PS: kept
    targets.release()


def test_render_state_in_spirv_or_around_glsl(vkr):
    """Alpha test needs code in the shader: a SPIR-V PS without it is refused;
    translated with the state (xlate's pass, baked or a specialization
    constant) it draws, and around Vulkan GLSL the runner writes the test."""
    from xlate.verify.shader_state import shader_draw_state

    ps_src = "ps_3_0\nmov oC0, c0\n"
    state = RenderState(alpha_func="greater", alpha_ref=128)
    with pytest.raises(NotImplementedError, match="alpha test needs code in the shaders"):
        draw(vkr, None, tr(ps_src), size=(2, 2), state=state)
    baked = tr(ps_src, draw_state=shader_draw_state(state, "pixel"))
    dynamic = tr(ps_src, draw_state=shader_draw_state(state, "pixel"), draw_state_mode="dynamic")
    values = {"alphatestenable": True, "alphafunc": "greater", "alpharef": 128}
    for ps, state_values in ((tr(ps_src, "vulkan"), None), (baked, None), (dynamic, values)):
        for alpha, want in [(0.25, 7.0), (0.75, 1.0)]:
            c = ReferenceConstants(floats={0: (1, 1, 1, alpha)})
            img = draw(vkr, None, ps, size=(2, 2), state=state, constants=c, clear=(7, 7, 7, 7),
                       state_values=state_values).colors[0]
            assert img[0, 0, 0] == want
    with pytest.raises(NotImplementedError):  # specialized to another reference: not the draw's state
        draw(vkr, None, dynamic, size=(2, 2), state=state, state_values=dict(values, alpharef=10))


def test_point_size_and_sprites_on_native_spirv(vkr):
    """Point size (POINTSIZE clamped to MIN/MAX, or oPts clamped) and point
    sprites from xlate's own passes on a native SPIR-V VS/PS pair: an 8x8
    target, one point in the middle, its size and its sprite coordinates."""
    from xlate.verify.shader_state import shader_draw_state

    vs_src = "vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n"
    vs_pts = "vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_psize o1\nmov o0, v0\nmov o1.x, c0.x\n"
    ps_src = "ps_3_0\ndcl_texcoord0 v0\nmov oC0, v0\n"
    point = {("position", 0): F32([[0, 0, 0.5, 1]])}
    for vs_text, vs_c, state, side in (
            (vs_src, None, RenderState(point_size=4.0), 4),
            (vs_src, None, RenderState(point_size=9.0, point_size_max=6.0), 6),  # clamped to MAX
            (vs_pts, ReferenceConstants(floats={0: (1, 0, 0, 0)}), RenderState(point_size_min=2.0), 2),  # oPts >= MIN
            (vs_src, None, RenderState(point_size=4.0, point_sprite=True), 4)):
        vs = tr(vs_text, draw_state=shader_draw_state(state, "vertex", points=True))
        ps = tr(ps_src, draw_state=shader_draw_state(state, "pixel", points=True))
        assert isinstance(vs.code, bytes) and isinstance(ps.code, bytes)
        img = vkr.draw(vs, ps, Draw(vertices=point, primitive="point_list", size=(8, 8), state=state, count=1,
                                    vs_constants=vs_c or ReferenceConstants(), clear=(-1, -1, -1, -1))).colors[0]
        covered = img[..., 3] != -1
        rows, cols = np.nonzero(covered)
        assert covered.sum() == side * side and np.ptp(rows) == np.ptp(cols) == side - 1, (state, covered.sum())
        if state.point_sprite:  # (u, v) across the point, from the top left; u grows along x
            uv = img[covered][:, :2].reshape(side, side, 2)
            assert np.all(np.diff(uv[..., 0], axis=1) > 0) and np.all(np.diff(uv[..., 1], axis=0) > 0)
            assert 0 < uv.min() and uv.max() < 1
    with pytest.raises(NotImplementedError, match="point size state"):  # SPIR-V without the state
        vkr.draw(tr(vs_src), tr(ps_src), Draw(vertices=point, primitive="point_list", size=(8, 8),
                                              state=RenderState(point_size=4.0), count=1))


def test_spirv_edits_zero_input_and_flat(vkr):
    """xlate.verify.spirv_edit on a native SPIR-V PS: an input no VS output
    writes reads 0 once made a zero Private variable (spirv-val clean), and
    Flat on the colour inputs gives the first vertex's colour everywhere."""
    from xlate.backends.spirv.glslang import check
    from xlate.verify.spirv_edit import flat_colours, zero_inputs

    vs = tr("vs_3_0\ndcl_position v0\ndcl_color0 v1\ndcl_position o0\ndcl_color0 o1\nmov o0, v0\nmov o1, v1\n")
    ps = tr("ps_3_0\ndcl_color0 v0\ndcl_texcoord1 v1\nadd oC0, v0, v1\n")
    unread = next(i["glsl"] for i in ps.reflection["inputs"] if i["usage"] == "texcoord")
    code = zero_inputs(ps.code, {unread})
    check(code)
    refl = dict(ps.reflection, inputs=[i for i in ps.reflection["inputs"] if i["glsl"] != unread])
    colours = np.array([[0.25, 0.5, 0.75, 1.0], [1, 0, 0, 1], [0, 1, 0, 1]], F32)
    verts = {("position", 0): np.c_[BIG_TRIANGLE, np.zeros(3), np.ones(3)].astype(F32), ("color", 0): colours}
    for shade, want in (("gouraud", None), ("flat", colours[0])):
        flat = flat_colours(code, refl) if shade == "flat" else code
        check(flat)
        img = vkr.draw(vs, (flat, refl), Draw(vertices=verts, size=(4, 4),
                                              state=RenderState(cull="none", shade_mode=shade))).colors[0]
        if want is None:
            assert len(np.unique(img.reshape(-1, 4), axis=0)) > 1  # interpolated, and texcoord1 added 0
            assert np.all(img >= 0) and np.all(img <= 1)
        else:
            assert np.all(img == want), img[0, 0]


# --------------------------------------------------------------------------
# vkd3d's D3D9 cases on lavapipe
# --------------------------------------------------------------------------

# The options vkd3d's expectations need (as test_vkd3d_llvmpipe's
# "exact_ieee" configuration; flip_y is already Vulkan's default): an exact
# half-pixel shift and IEEE infinities.  The default options' two known
# differences (rcp__d8, shade-mode d1/d2) are covered on llvmpipe.
VKD3D_OPTIONS = {"half_pixel_exact": True, "infinities": "ieee"}
# case id -> why the SPIR-V translation on lavapipe does not match the probes
KNOWN_FAILURES: dict[str, str] = {}
# The spirv-glslang target runs glslangValidator and spirv-val per shader
# (~0.2 s here), so by default the cases of every SAMPLE_STRIDE-th vkd3d
# test file run (whole files, in order, so prior draws need no replays);
# XLATE_VK_CASES=all runs every case (~3 minutes), XLATE_VK_CASES=N the
# cases of every N-th file.  The native "spirv" target runs every case
# (~10 s) unless XLATE_VK_CASES says otherwise.
SAMPLE_STRIDE = 4


@lru_cache(maxsize=None)
def translated(name: str, target: str, draw_state=None):
    return translate((CORPUS / name).read_bytes(), target, draw_state=draw_state, **VKD3D_OPTIONS)


def case_draw_states(case):
    """The draw states (vertex, pixel) the case's render state needs in the
    shader (alpha test, clip planes, point size, point sprites), for
    ``Options.draw_state``: xlate's own passes draw them on native SPIR-V.
    Flat shading stays a Flat decoration on the SPIR-V PS's colour inputs."""
    from xlate.verify.shader_state import shader_draw_state

    state = render_state(case)
    points = case["draw"]["topology"].replace(" ", "_") in ("point_list", "points")
    return shader_draw_state(state, "vertex", points=points), shader_draw_state(state, "pixel", points=points)


@pytest.mark.skipif(not CASES.exists(), reason=f"peer corpus not found at {CORPUS}")
@pytest.mark.parametrize("spirv_target", ["spirv-glslang", "spirv"])
def test_vkd3d_lavapipe(vkr, record_property, spirv_target):
    """Runnable cases, targets spirv (xlate's own writer: every case) and
    spirv-glslang (a sample of the test files unless XLATE_VK_CASES=all),
    each shader translated with the render state that needs shader code
    (``case_draw_states``), Vulkan's default options (flip_y on, clip_z
    off) with VKD3D_OPTIONS."""
    choice = os.environ.get("XLATE_VK_CASES", "all" if spirv_target == "spirv" else str(SAMPLE_STRIDE))
    stride = 1 if choice == "all" else max(int(choice), 1)
    start = time.perf_counter()
    cases = load_cases(CASES)
    by_id = {c["id"]: c for c in cases}
    state_cases = 0

    def draw(case, targets):
        vs_state, ps_state = case_draw_states(case)
        vs = translated(case["vs_file_used"], spirv_target, vs_state)
        ps = translated(case["ps"], spirv_target, ps_state)
        vkr.draw(vs, ps, make_draw(case), targets=targets, read=False)

    from xlate.verify.vk import RenderTargets

    session = TargetSession(by_id, RenderTargets, draw)
    pipelines_before = len(vkr.pipelines)
    tally = ProbeTally(KNOWN_FAILURES)
    runnable = [c for c in cases if c.get("runnable_on_d3d9_runner", True)]
    tally.counts["skipped"] = len(cases) - len(runnable)
    files = list(dict.fromkeys(c["source_file"] for c in runnable))
    chosen = set(files[::stride])  # whole test files, so their draws run in order without replays
    ran = 0
    for case in runnable:
        if case["source_file"] not in chosen:
            continue
        ran += 1
        state_cases += case_draw_states(case) != (None, None)
        tally.run(case, lambda c: (session.run(c), session.probe(c))[1])
    session.close()
    elapsed = time.perf_counter() - start
    summary = (
        f"vkd3d on lavapipe ({spirv_target}): {ran} of {len(runnable)} runnable cases "
        f"({state_cases} with render state translated into the shaders), {tally.text()}; "
        f"{tally.counts['skipped']} cases not runnable; "
        f"{len(vkr.pipelines) - pipelines_before} pipelines, {session.replays} target rebuilds; {elapsed:.1f}s"
    )
    print(summary)
    print("todo probes (expected to fail on d3d9):", " ".join(tally.todo_outcomes))
    record_property("corpus_summary", summary)
    tally.check()


# The point-size cases under VK_LAYER_KHRONOS_validation, in a child process
# (the layer is chosen when the process's device is created).  d2 clamps the
# VS's oPts to POINTSIZE_MIN/MAX (24..36): the runner's wrapper stores the
# clamped size once instead of reading the PointSize output back, which the
# layer reported as VUID-VkGraphicsPipelineCreateInfo-Vertex-07722.
_POINT_SIZE_CHILD = """
import json, sys
from pathlib import Path
from xlate import translate
from xlate.verify import vk
from xlate.verify.cases import TargetSession, load_cases, make_draw, render_state
from xlate.verify.shader_state import shader_draw_state
r = vk.runner()
if not r.dev.validating:
    print(json.dumps({"skip": "VK_LAYER_KHRONOS_validation is not installed"})); sys.exit(0)
corpus = Path(sys.argv[1])
cases = [c for c in load_cases(corpus / "cases.jsonl") if c["id"].startswith("shader-point-size__d")]
out = {"cases": [c["id"] for c in cases], "probes": [], "errors": []}
for target in ("spirv", "spirv-glslang"):
    def draw(case, targets):
        points = case["draw"]["topology"].replace(" ", "_") in ("point_list", "points")
        states = (shader_draw_state(render_state(case), stage, points=points) for stage in ("vertex", "pixel"))
        vs, ps = (translate((corpus / case[k]).read_bytes(), target, draw_state=ds, **json.loads(sys.argv[2]))
                  for k, ds in zip(("vs_file_used", "ps"), states))
        r.draw(vs, ps, make_draw(case), targets=targets, read=False)
    session = TargetSession({c["id"]: c for c in cases}, vk.RenderTargets, draw)
    for case in cases:
        try:
            session.run(case)
            out["probes"] += [[target, case["id"], ok, detail] for _, ok, detail in session.probe(case)]
        except Exception as e:
            out["errors"].append(f"{target} {case['id']}: {type(e).__name__}: {e}")
    session.close()
out["errors"] += r.dev.validation_errors
print(json.dumps(out))
"""


# Every VS+PS pair of the vkd3d cases and of Wine's in-scope visual cases,
# translated apart with the default varying locations (no varying_locations
# map), plus hand-made pairs of semantics outside the fixed table, drawn once
# under VK_LAYER_KHRONOS_validation in a child process: the pipelines link
# and the layer is clean (VUID-RuntimeSpirv-Location-06272 was the default's
# 32 + 16*usage + index).  A PS input no VS output writes reads 0 in D3D9:
# it becomes a zero Private variable first (wine_cases._link_unwritten_spirv),
# as a layer must.  ~8 s here.
_PAIRS_CHILD = """
import json, sys
from pathlib import Path
import numpy as np
from xlate import translate
from xlate.bytecode.asm import assemble_bytes
from xlate.verify import gl, vk
from xlate.verify import wine_cases as wc
from xlate.verify.cases import load_cases
r = vk.runner()
if not r.dev.validating:
    print(json.dumps({"skip": "VK_LAYER_KHRONOS_validation is not installed"})); sys.exit(0)
corpus = Path(sys.argv[1])
pairs = {}
for c in load_cases(corpus / "cases.jsonl"):
    if c.get("runnable_on_d3d9_runner", True):
        pairs[("vkd3d", c["vs_file_used"], c["ps"])] = ((corpus / c["vs_file_used"]).read_bytes(),
                                                        (corpus / c["ps"]).read_bytes())
if not wc.corpus_missing():
    for c in wc.load_cases():
        if c.vs and c.ps and not wc.out_of_scope(c):
            pairs[("wine", c.id)] = (wc.shader_blob(c.vs), wc.shader_blob(c.ps))
sems = json.loads(sys.argv[2])
vs = ["vs_3_0", "dcl_position v0", "dcl_position o0", "mov o0, v0"]
ps = ["ps_3_0"]
for k, s in enumerate(sems, 1):
    vs += [f"dcl_{s} o{k}", f"mov o{k}, c{k}"]
    ps += [f"dcl_{s} v{k - 1}"]
ps += ["mov r0, v0"] + [f"add r0, r0, v{k}" for k in range(1, len(sems))] + ["mov oC0, r0"]
pairs[("hand", "outside the table")] = (assemble_bytes("\\n".join(vs) + "\\n"), assemble_bytes("\\n".join(ps) + "\\n"))
out = {"pairs": 0, "errors": [], "max_location": 0, "hand": None}
tri = np.array([[-1, -1, 0.5, 1], [-1, 3, 0.5, 1], [3, -1, 0.5, 1]], np.float32)
for key, (vb, pb) in pairs.items():
    v, p = translate(vb, "spirv"), translate(pb, "spirv")
    locs = [o["location"] for o in v.reflection["outputs"] if o["glsl"].startswith("v_")]
    locs += [i["location"] for i in p.reflection["inputs"] if i["glsl"].startswith("v_")]
    out["max_location"] = max([out["max_location"], *locs])
    if key[0] == "hand":
        out["hand"] = sorted(locs)
    ps_pair = wc._link_unwritten_spirv(p.code, p.reflection, v.reflection["outputs"])
    try:
        r.draw(v, ps_pair, gl.Draw(vertices={("position", 0): tri}, size=(1, 1)), read=False)
    except Exception as e:
        out["errors"].append(f"{key}: {type(e).__name__}: {str(e)[:600]}")
    out["pairs"] += 1
    if out["pairs"] % 50 == 0:
        r.drop_pipelines()
out["errors"] += r.dev.validation_errors
print(json.dumps(out))
"""
# semantics outside the fixed table (docs/reflection.md): each on its fallback
# location, where normal2 and tangent1 fall together (TEXCOORD9's): both
# stages move tangent1 to the same free location, with a diagnostic
PAIR_SEMANTICS = ["color4", "normal2", "position4", "position5", "tangent1", "texcoord0", "color0"]


def run_validation_child(child: str, arg) -> dict:
    """``child`` run in a fresh process under the Vulkan validation layer
    (XLATE_VK_VALIDATION=1) with the corpus folder and ``arg`` as JSON; its
    last line of output, JSON.  Skips with the child's reason if it gives one."""
    import json
    import subprocess
    import sys

    env = dict(os.environ, XLATE_VK_VALIDATION="1", PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    proc = subprocess.run([sys.executable, "-c", child, str(CORPUS), json.dumps(arg)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if "skip" in out:
        pytest.skip(out["skip"])
    return out


@pytest.mark.skipif(not CASES.exists(), reason=f"peer corpus not found at {CORPUS}")
def test_default_varying_locations_link_every_pair_validation_clean(vkr, record_property):
    out = run_validation_child(_PAIRS_CHILD, PAIR_SEMANTICS)
    record_property("corpus_summary", f"default varying locations: {out['pairs']} VS+PS pairs (vkd3d, Wine, "
                                      f"hand-made) linked under the validation layer, highest location "
                                      f"{out['max_location']}, {len(out['errors'])} errors")
    assert out["pairs"] > 500
    assert not out["errors"], "\n".join(out["errors"][:10])
    assert out["max_location"] < 32
    assert len(out["hand"]) == 2 * len(PAIR_SEMANTICS) and len(set(out["hand"])) == len(PAIR_SEMANTICS)


@pytest.mark.skipif(not CASES.exists(), reason=f"peer corpus not found at {CORPUS}")
def test_point_size_cases_validation_layer_clean(vkr):
    out = run_validation_child(_POINT_SIZE_CHILD, VKD3D_OPTIONS)
    assert "shader-point-size__d2" in out["cases"]
    assert not out["errors"], "\n".join(out["errors"])
    bad = [p for p in out["probes"] if not p[2]]
    assert out["probes"] and not bad, bad


# --------------------------------------------------------------------------
# Generated programs: lavapipe against the reference interpreter
# --------------------------------------------------------------------------

GENERATED_SEEDS = 6  # per pixel-shader version
# Native "spirv", per version: 340 x 3 pixel + 340 x 3 vertex versions =
# 2,040 generated programs per run, as the GL campaign; ~40 s together on
# lavapipe here (the PS pass-through VS is native too, pipelines dropped
# every 50 programs).  XLATE_VK_NATIVE_SEEDS / XLATE_VK_NATIVE_VS_SEEDS
# change the counts.
GENERATED_NATIVE_SEEDS = int(os.environ.get("XLATE_VK_NATIVE_SEEDS", "340"))


@lru_cache(maxsize=None)
def native_passthrough(keys: tuple[tuple[str, int], ...]):
    """A vs_3_0 passing POSITION and each (usage, index) through, translated
    by the native writer: the runner's own pass-through VS is GLSL, and
    glslang (~100 ms a call) dominated a generated PS's cost.  None when the
    program cannot be written (too many varyings, a usage vs_3_0 outputs as
    a built-in) or a varying would not land at the PS's location."""
    lines = ["vs_3_0", "dcl_position v0", "dcl_position o0", "mov o0, v0"]
    if len(keys) > 11:
        return None
    for i, (usage, index) in enumerate(keys, 1):
        lines += [f"dcl_{usage}{index} v{i}", f"dcl_{usage}{index} o{i}", f"mov o{i}, v{i}"]
    try:
        return translate(assemble_bytes("\n".join(lines) + "\n"), "spirv")
    except Exception:  # noqa: BLE001 - a usage the assembler or writer takes differently: the runner's VS
        return None


def _passthrough_for(t):
    """``native_passthrough`` for a PS translation, None (the runner's own
    pass-through) unless every varying lands at the PS input's location."""
    ins = [i for i in t.reflection["inputs"] if not i["glsl"].startswith("gl_")]
    vs = native_passthrough(tuple(sorted((i["usage"], i["usage_index"]) for i in ins)))
    if vs is None:
        return None
    outs = {(o["usage"], o["usage_index"]): o.get("location") for o in vs.reflection["outputs"]}
    return vs if all(outs.get((i["usage"], i["usage_index"])) == i["location"] for i in ins) else None


PASSTHROUGH_USE = {"native": 0, "runner": 0}  # which VS the generated PS draws used


def run_generated_ps(vkr, prog, seed: int, target: str = "spirv"):
    """(reference result, inputs, lavapipe colours) of a generated pixel
    shader, or None when the program reads POSITION (the pass-through VS's
    own position)."""
    from xlate.bytecode import encode
    from xlate.verify.differential import SENTINEL, _generated_inputs, _gl_key, _pixel_offset, _quads
    from xlate.verify.generate import QUAD_GRID_WIDTH

    shader = prog.shader
    t = translate(encode(shader), target)
    refl = t.reflection
    inputs = _generated_inputs(prog, shader, refl, seed)
    width, height = QUAD_GRID_WIDTH, inputs.n // QUAD_GRID_WIDTH
    corners = inputs.pixel_coords[0::4].astype(np.float64)
    pos, offs = _quads(width, height, inputs.front_facing, corners, _pixel_offset("spirv", width, height, runner=vkr))
    verts = {("position", 0): pos}
    for key, (A, B, C) in inputs.affine.items():
        gk = _gl_key(key, shader, refl)
        if gk is None:
            continue
        if gk == ("position", 0):
            return None
        rep = lambda a: np.repeat(np.asarray(a, np.float64), 6, axis=0)  # noqa: E731
        verts[gk] = (rep(A) + rep(B) * offs[:, :1] + rep(C) * offs[:, 1:2]).astype(F32)
    ntargets = 1 + max([o["usage_index"] for o in refl["outputs"] if o["usage"] == "color"] + [0])
    vs = _passthrough_for(t) if target == "spirv" else None
    PASSTHROUGH_USE["native" if vs is not None else "runner"] += 1
    res = vkr.draw(vs, t, Draw(vertices=verts, constants=inputs.constants, textures=inputs.textures,
                                 size=(width, height), targets=ntargets, clear=[(SENTINEL,) * 4] * ntargets))
    res.targets.release()
    return inputs.run(shader), inputs, res.colors


@pytest.mark.parametrize("target,seeds", [("spirv-glslang", GENERATED_SEEDS), ("spirv", GENERATED_NATIVE_SEEDS)])
def test_generated_programs_match_reference(vkr, target, seeds):
    """Generated ps_2_0/ps_2_x/ps_3_0 programs (generate_seed, random_inputs)
    on lavapipe: every written oC# component of every live pixel within the
    generator's error bound of the reference interpreter; texkill'd pixels
    keep the clear colour.  The native writer ("spirv") costs no glslang
    call (its pass-through VS is ``native_passthrough``), so it runs many
    more seeds."""
    from xlate.verify.differential import SENTINEL
    from xlate.verify.generate import generate_seed

    checked = skipped = components = 0
    failures = []
    for version in ("ps_2_0", "ps_2_x", "ps_3_0"):
        for k in range(seeds):
            seed = random.Random(f"{version}/{k}").getrandbits(32)
            prog = generate_seed(seed, version)
            if k % 50 == 0:
                vkr.drop_pipelines()  # one-off pipelines: lavapipe slows as thousands stay alive
            out = run_generated_ps(vkr, prog, seed % 2**32, target)
            if out is None:
                skipped += 1
                continue
            ref, inputs, colours = out
            checked += 1
            xs = inputs.pixel_coords[:, 0].astype(int)
            ys = inputs.pixel_coords[:, 1].astype(int)
            live = ~np.asarray(ref.killed, bool)
            for name, mask in prog.written_masks.items():
                if not name.startswith("oC"):
                    continue
                got = colours[int(name[2:])][ys, xs]
                want = ref.outputs[name]
                if np.any(got[~live] != F32(SENTINEL)):
                    failures.append(f"{version} seed {seed}: a texkill'd pixel was written\n{prog.asm}")
                for c in range(4):
                    if not mask >> c & 1:
                        continue
                    tol = prog.error_bounds[name][c] + 1e-6 * (1 + np.abs(want[live, c]))
                    err = np.abs(got[live, c].astype(np.float64) - want[live, c])
                    components += int(live.sum())
                    if not np.all(err <= tol):
                        i = int(np.argmax(err - tol))
                        failures.append(f"{version} seed {seed}: {name}.{'xyzw'[c]} got {got[live, c][i]}, "
                                        f"want {want[live, c][i]} (bound {tol[i]})\n{prog.asm}")
    print(f"generated pixel shaders on lavapipe ({target}): {checked} programs, {components} components compared, "
          f"{skipped} skipped (read POSITION), {len(failures)} failures; pass-through VS so far: {PASSTHROUGH_USE}")
    assert not failures, "\n\n".join(failures[:5])
    assert checked >= 2 * seeds


# --------------------------------------------------------------------------
# Vertex shaders alone (run_vertex: VK_EXT_transform_feedback)
# --------------------------------------------------------------------------

VS_ALONE = """vs_3_0
def c10, 0.5, 2, 0, 1
dcl_position v0
dcl_texcoord0 v1
dcl_2d s0
dcl_position o0
dcl_texcoord0 o1
dcl_color0 o2
dcl_psize o3
dp4 o0.x, v0, c0
dp4 o0.y, v0, c1
dp4 o0.z, v0, c2
dp4 o0.w, v0, c3
texldl o1, v1, s0
mad o2, v0, c10.x, c4
mov o3.x, c10.y
"""


@pytest.mark.parametrize("target", ["vulkan", "spirv"])
@pytest.mark.parametrize("options", [{}, {"flip_y": False, "clip_z": True}])
def test_run_vertex_hand_checked(vkr, options, target):
    """Constants (a matrix in c0-c3, c4, a def), a texldl fetch with an
    explicit level, the point size; ``position`` is D3D clip space whatever
    fix-ups the translation applied to gl_Position.  GLSL and SPIR-V
    (captured by editing the module's words) alike."""
    t = tr(VS_ALONE, target, **options)
    level0 = np.zeros((2, 4, 4), F32)
    for y in range(2):
        for x in range(4):
            level0[y, x] = (x, y, 10 + x, 1)
    level1 = F32([[[100, 100, 0, 1], [101, 100, 0, 1]]])
    tex = Texture("2d", [level0, level1], SamplerState(mip_filter="point"))
    consts = ReferenceConstants(floats={0: (2, 0, 0, 0.5), 1: (0, 3, 0, 0), 2: (0, 0, 0.5, 0.25), 3: (0, 0, 0, 1),
                                        4: (0.25, 0.5, 0.75, 1)})
    pos = F32([[1, 2, 0.5, 1], [-1, 0.5, 1, 2]])
    uv = F32([[0.375, 0.75, 0, 0], [0.625, 0.25, 0, 1]])
    res = vkr.run_vertex(t, {("position", 0): pos, ("texcoord", 0): uv}, consts, {0: tex})
    d3d = F32([[2.5, 6, 0.5, 1], [-1, 1.5, 1, 2]])
    assert np.array_equal(res.position, d3d)
    if options.get("flip_y", True):
        assert np.array_equal(res.outputs["gl_Position"], F32([[2.5, -6, 0.5, 1], [-1, -1.5, 1, 2]]))
    else:  # clip_z: z' = 2z - w
        assert np.array_equal(res.outputs["gl_Position"], F32([[2.5, 6, 0, 1], [-1, 1.5, 0, 2]]))
    assert np.array_equal(res.output(("texcoord", 0)), F32([[1, 1, 11, 1], [101, 100, 0, 1]]))
    assert np.array_equal(res.output(("color", 0)), F32([[0.75, 1.5, 1, 1.5], [-0.25, 0.75, 1.25, 2]]))
    assert np.array_equal(res.output(("psize", 0)), F32([[2, 0, 0, 0], [2, 0, 0, 0]]))
    assert set(res.semantics) == {("position", 0), ("texcoord", 0), ("color", 0), ("psize", 0)}


@pytest.mark.parametrize("target", ["vulkan", "spirv"])
def test_run_vertex_count_and_refusals(vkr, target):
    """``count`` for a VS without attributes; SPIR-V stripped of its names
    and pixel shaders are refused."""
    t = tr("vs_3_0\ndcl_position o0\nmov o0, c0\n", target)
    res = vkr.run_vertex(t, {}, ReferenceConstants(floats={0: (1, 2, 3, 4)}), count=3)
    assert np.array_equal(res.position, np.broadcast_to(F32([1, 2, 3, 4]), (3, 4)))
    assert "gl_PointSize" not in res.outputs  # written only for the point list, not captured
    with pytest.raises(NotImplementedError, match="names stripped"):
        vkr.run_vertex(tr("vs_3_0\ndcl_position o0\ndcl_texcoord0 o1\nmov o0, c0\nmov o1, c0\n", "spirv",
                          debug_names=False), {}, count=1)
    with pytest.raises(ValueError, match="vertex shader"):
        vkr.run_vertex(tr("ps_3_0\nmov oC0, c0\n", "vulkan"), {}, count=1)


@pytest.mark.parametrize("target", ["vulkan", "spirv"])
def test_run_vertex_output_past_the_location_limit(vkr, target):
    """An output past the 32 locations lavapipe has (a layer's map may put
    one there; capturing it there crashed lavapipe): the runner moves it to
    a free location."""
    t = tr("vs_3_0\ndcl_position o0\ndcl_color4 o1\nmov o0, c0\nmov o1, c1\n", target,
           varying_locations=(("color", 4, 196),))
    assert [o["location"] for o in t.reflection["outputs"] if o["usage"] == "color"] == [196]
    res = vkr.run_vertex(t, {}, ReferenceConstants(floats={0: (1, 2, 3, 4), 1: (5, 6, 7, 8)}), count=2)
    assert np.array_equal(res.output(("color", 4)), np.broadcast_to(F32([5, 6, 7, 8]), (2, 4)))


def test_vertex_check_catches_a_wrong_translation(vkr):
    """The Vulkan vertex comparison is not vacuous: a translation with mad's
    + changed to - fails, naming the instruction."""
    import dataclasses

    from xlate.bytecode import decode
    from xlate.verify import differential as D

    blob = assemble_bytes("vs_3_0\ndcl_position v0\ndcl_texcoord0 v1\ndcl_position o0\ndcl_texcoord0 o1\n"
                          "mov o0, v0\nmad o1, v0, v1, c0\n")
    good = translate(blob, "vulkan")
    assert "+ vs_c0" in good.code, good.code
    bad = dataclasses.replace(good, code=good.code.replace("+ vs_c0", "- vs_c0"))
    shader = decode(blob)
    verdict = D.Verdict("mutant", "vulkan")
    D._check_vertex(verdict, bad, shader, D.make_inputs(shader, bad.reflection, 0), 0, runner=vkr)
    assert verdict.status == "fail"
    assert "mad o1, v0, v1, c0" in (verdict.mismatches[0].writer or ""), verdict.report()
    verdict = D.Verdict("original", "vulkan")
    D._check_vertex(verdict, good, shader, D.make_inputs(shader, good.reflection, 0), 0, runner=vkr)
    assert verdict.ok, verdict.report()


GENERATED_VS_SEEDS = 10  # per vertex-shader version
GENERATED_NATIVE_VS_SEEDS = int(os.environ.get("XLATE_VK_NATIVE_VS_SEEDS", "340"))  # "spirv", per version


@pytest.mark.parametrize("target,seeds", [("vulkan", GENERATED_VS_SEEDS), ("spirv", GENERATED_NATIVE_VS_SEEDS)])
def test_generated_vertex_programs_match_reference(vkr, record_property, target, seeds):
    """Generated vs_1_1/vs_2_0/vs_2_x/vs_3_0 programs (``generate_seed``, their own
    ``random_inputs`` and error bounds) translated for "vulkan" (GLSL
    through glslang) and "spirv" (xlate's writer, many more seeds: no
    glslang call), run alone on lavapipe (``differential.check_generated``
    with this runner: the GL differential check, another driver), every
    written output component of every vertex within the generator's bound
    of the reference."""
    from xlate.verify.differential import check_generated
    from xlate.verify.generate import generate_seed

    start = time.perf_counter()
    failures, components, programs = [], 0, 0
    for version in ("vs_1_1", "vs_2_0", "vs_2_x", "vs_3_0"):
        for k in range(seeds // 2 if version == "vs_1_1" else seeds):  # vs_1_1: half as many (CI time)
            seed = random.Random(f"{version}/{k}").getrandbits(32)
            prog = generate_seed(seed, version)
            if k % 50 == 0:
                vkr.drop_pipelines()
            verdict = check_generated(prog, seed, target=target, runner=vkr, name=f"{version} seed {seed}")
            programs += 1
            components += verdict.compared
            if not verdict.ok:
                failures.append(verdict.report() + "\n" + prog.asm)
    summary = (f"generated vertex shaders on lavapipe ({target}): {programs} programs, {components} components compared, "
               f"{len(failures)} failures; {time.perf_counter() - start:.1f}s")
    print(summary)
    record_property("corpus_summary", summary)
    assert not failures, "\n\n".join(failures[:5])
    assert components > 0


def corpus_vertex_shaders() -> list[tuple[str, bytes]]:
    """vkd3d's default vertex shaders and a spread of fxc-wine vs_3_0 blobs
    (one of every 10 that are not flag variants of another)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from corpus import corpus_available, fxc_wine_records

    out = []
    if CORPUS.exists():
        out += [(f"vkd3d:{p.name}", p.read_bytes()) for p in sorted(CORPUS.glob("_default_vs__*.d3dbc"))]
    if corpus_available("fxc-wine"):
        recs = [r for r in fxc_wine_records() if r.shader_version == "vs_3_0" and r.kind != "flag_variant"]
        out += [(f"fxc-wine:{r.id}", r.data) for r in recs[::10]]
    return out


@pytest.mark.parametrize("target", ["vulkan", "spirv"])
def test_corpus_vertex_shaders_match_reference(vkr, record_property, target):
    """Corpus vertex shaders with ``differential.check_shader``'s seeded
    random inputs and tolerance model, on lavapipe through run_vertex
    (GLSL through glslang, and xlate's own SPIR-V)."""
    check_corpus_vertex_shaders(vkr, target, f"lavapipe ({target})", record_property)


def check_corpus_vertex_shaders(runner, target: str, where: str, record_property):
    """``corpus_vertex_shaders`` through ``differential.check_shader`` on
    ``runner`` (its ``run_vertex``), the summary naming ``where``."""
    from xlate.verify.differential import check_shader

    shaders = corpus_vertex_shaders()
    if not shaders:
        pytest.skip("peer corpus not found (vkd3d, fxc-wine)")
    start = time.perf_counter()
    failures, components = [], 0
    for sid, data in shaders:
        verdict = check_shader(data, seed=0, target=target, runner=runner, name=sid)
        components += verdict.compared
        if not verdict.ok:
            failures.append(verdict.report())
    summary = (f"corpus vertex shaders on {where}: {len(shaders)} shaders, {components} components compared, "
               f"{len(failures)} failures; {time.perf_counter() - start:.1f}s")
    print(summary)
    record_property("corpus_summary", summary)
    assert not failures, "\n\n".join(failures[:5])
