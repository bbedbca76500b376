"""Draw-time sampler, clip-plane and point state baked into translations
(``Options.draw_state``, issue #14 part B; baked mode here), executed on llvmpipe through the
GL runner and checked against the reference interpreter, which models the
same states (``verify/textures.py``: depth compare, sRGB decode, FETCH4;
``run_shader``: sRGB write, point sprites; ``clip_distances``)."""

from __future__ import annotations

import numpy as np
import pytest

from xlate import translate
from xlate.bytecode import decode
from xlate.bytecode.asm import assemble_bytes
from xlate.errors import UnsupportedError
from xlate.verify import SamplerState, Texture
from xlate.verify.reference import run_shader
from xlate.verify.textures import linear_to_srgb, srgb_to_linear

F32 = np.float32
W = H = 8
BIG_TRIANGLE = np.array([[-2, -2], [-2, 4], [4, -2]], F32)


def _deps(t) -> dict:
    """The states a translation depends on, from its reflection's render_state
    (without the mode, the baked values and the parameters)."""
    return {k: v for k, v in t.reflection["render_state"].items() if k not in ("mode", "baked", "parameters", "position")}


def _affine(xy: np.ndarray, rows) -> np.ndarray:
    """Per-point (k,) values of affine functions ((a, b, c), ...) of NDC (x, y)."""
    return np.stack([a * xy[:, 0] + b * xy[:, 1] + c for a, b, c in rows], axis=1).astype(F32)


def _pixel_ndc() -> np.ndarray:
    """NDC of every D3D pixel centre of the W x H target, row by row: pixel
    (px, py) samples at integer window coordinates, x = 2px/W - 1."""
    py, px = np.mgrid[0:H, 0:W]
    return np.stack([2 * px.ravel() / W - 1, 1 - 2 * py.ravel() / H], axis=1).astype(F32)


# texcoord0 = (u, v, ref, 1): u, v at texel centres of a W x H texture (pixel
# (px, py) reads texel (px, py)), ref rising to the right in steps of 1/8
TEXCOORD_ROWS = ((0.5, 0, 0.5 + 0.5 / W), (0, -0.5, 0.5 + 0.5 / H), (0.5, 0, 0.52), (0, 0, 1))


def _draw_ps(gl, ps_asm: str, textures: dict, state: dict, target="glsl330", rows=TEXCOORD_ROWS, values=None,
             **options):
    """The PS drawn over the target with texcoord0 = the affine ``rows`` of
    the position, and the reference run at every pixel centre with the same
    texcoord; returns (GL image (H, W, 4), reference (H, W, 4), translation).
    ``values``: the state values of a dynamic draw (``state`` is then the
    translation's defaults and the reference's state is ``values``)."""
    from xlate.verify.gl import Draw

    blob = assemble_bytes(ps_asm)
    ps = translate(blob, target, draw_state=state, half_pixel_exact=True, **options)
    verts = {("position", 0): BIG_TRIANGLE, ("texcoord", 0): _affine(BIG_TRIANGLE, rows)}
    img = gl.draw(None, ps, Draw(vertices=verts, size=(W, H), textures=textures, state_values=values)).colors[0]
    state = values if values is not None else state
    n = W * H
    res = run_shader(decode(blob), {("texcoord", 0): _affine(_pixel_ndc(), rows)}, textures=textures, n=n,
                     srgb_write=bool(state.get("srgbwriteenable")))
    return img, res.outputs["oC0"].reshape(H, W, 4), ps


def draw_ps_c0(runner, ps_asm: str, textures: dict, state: dict, target: str, values=None, mode="baked"):
    """The PS drawn by ``runner`` (Vulkan or WebGPU) in ``target`` with c0 = 0.5 and
    texcoord0 = the affine TEXCOORD_ROWS of the position, against the reference
    (with ``values``' states when given, else ``state``'s); null-texture slots are
    left unbound.  Returns (image (H, W, 4), reference (H, W, 4), translation)."""
    from xlate.verify import ReferenceConstants
    from xlate.verify.gl import Draw

    blob = assemble_bytes(ps_asm)
    ps = translate(blob, target, draw_state=state, draw_state_mode=mode, half_pixel_exact=True)
    verts = {("position", 0): BIG_TRIANGLE, ("texcoord", 0): _affine(BIG_TRIANGLE, TEXCOORD_ROWS)}
    consts = ReferenceConstants(floats={0: (0.5, 0.5, 0.5, 0.5)})
    ref_state = values if values is not None else state
    bound = {s: t for s, t in textures.items() if s not in ref_state.get("nulltexture", ())}
    img = runner.draw(None, ps, Draw(vertices=verts, size=(W, H), textures=bound, state_values=values,
                                     constants=consts)).colors[0]
    res = run_shader(decode(blob), {("texcoord", 0): _affine(_pixel_ndc(), TEXCOORD_ROWS)}, consts,
                     _with_states(textures, ref_state), n=W * H, srgb_write=bool(ref_state.get("srgbwriteenable")))
    return img, res.outputs["oC0"].reshape(H, W, 4), ps


RNG = np.random.default_rng(14)
DEPTHS = RNG.choice(F32([0.1, 0.3, 0.5, 0.7, 0.9]), size=(H, W))


def _depth_texture(fmt: str, filt: str = "point") -> Texture:
    level = np.zeros((H, W, 4), F32)
    level[..., 0] = DEPTHS
    return Texture("2d", [level], SamplerState(mag_filter=filt, min_filter=filt, address_u="clamp",
                                               address_v="clamp"), format=fmt)


@pytest.mark.parametrize("fmt", ["d16", "d24"])
@pytest.mark.parametrize("op", ["texld", "texldp"])
def test_depth_compare_point(gl, fmt, op):
    """A D16/D24 texture on s0: texld compares texcoord.z LESS_EQUAL with the
    stored depth, 0/1 in every channel; texldp divides by w first."""
    ps = f"ps_2_0\ndcl t0\ndcl_2d s0\n{op} r0, t0, s0\nmov oC0, r0\n"
    rows = TEXCOORD_ROWS if op == "texld" else tuple((2 * a, 2 * b, 2 * c) for a, b, c in TEXCOORD_ROWS)
    img, ref, t = _draw_ps(gl, ps, {0: _depth_texture(fmt)}, {"depthtexture": [0]}, rows=rows)
    assert "sampler2DShadow" in t.code
    assert t.reflection["samplers"][0]["compare"] == "less_equal"
    assert _deps(t) == {"depthtexture": [0]}
    assert set(np.unique(ref)) == {0.0, 1.0}  # both outcomes occur
    assert np.array_equal(img, ref)


def test_depth_compare_pcf(gl):
    """Linear filtering of a depth texture filters the compare results (PCF):
    at texel corners each pixel is the mean of four 0/1 results."""
    rows = ((0.5, 0, 0.5), (0, -0.5, 0.5), (0.5, 0, 0.52), (0, 0, 1))  # u, v at texel corners
    img, ref, _ = _draw_ps(gl, "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n",
                           {0: _depth_texture("d24", "linear")}, {"depthtexture": [0]}, rows=rows)
    assert len(np.unique(ref)) > 2  # partial coverage exists
    assert np.abs(img - ref).max() <= 0.02  # llvmpipe's filter weights are 8-bit fractions


def test_depth_compare_ps_1_1(gl):
    """ps_1_1 `tex t0` on a depth stage compares too (coordinate set 0's z)."""
    img, ref, t = _draw_ps(gl, "ps_1_1\ntex t0\nmov r0, t0\n", {0: _depth_texture("d24")}, {"depthtexture": [0]})
    assert "sampler2DShadow" in t.code
    assert np.array_equal(img, ref) and set(np.unique(ref)) == {0.0, 1.0}


def _colour_texture(srgb=False, fetch4=False) -> Texture:
    level = RNG.random((H, W, 4), dtype=F32)
    return Texture("2d", [level], SamplerState(srgb=srgb, fetch4=fetch4))


def test_srgb_read(gl):
    """SRGBTEXTURE on s1 only: its rgb decoded with the sRGB curve, alpha and
    s0 unchanged."""
    ps = ("ps_2_0\ndcl t0\ndcl_2d s0\ndcl_2d s1\ntexld r0, t0, s0\ntexld r1, t0, s1\n"
          "add r0, r0, r1\nmov oC0, r0\n")
    tex0, tex1 = _colour_texture(), _colour_texture(srgb=True)
    img, ref, t = _draw_ps(gl, ps, {0: tex0, 1: tex1}, {"srgbtexture": [1]})
    assert _deps(t) == {"srgbtexture": [1]}
    expected = tex0.levels[0] + np.concatenate([srgb_to_linear(tex1.levels[0][..., :3]), tex1.levels[0][..., 3:]], -1)
    assert np.allclose(ref, expected, atol=1e-6)
    assert np.abs(img - ref).max() < 2e-6


def test_srgb_curve_values():
    """The curve's fixed points and knee (IEC 61966-2-1)."""
    assert srgb_to_linear(F32([0.0, 1.0]))[1] == pytest.approx(1.0)
    assert srgb_to_linear(F32([0.04045]))[0] == pytest.approx(0.04045 / 12.92)
    encoded = linear_to_srgb(F32([0.0031308, 1.0, 2.0, -1.0]))
    assert encoded == pytest.approx([0.0031308 * 12.92, 1.0, 1.0, 0.0], abs=1e-6)
    x = F32(np.linspace(0, 1, 101))
    assert np.allclose(linear_to_srgb(srgb_to_linear(x)), x, atol=1e-6)


def test_srgb_write(gl):
    """SRGBWRITEENABLE: oC0's rgb saturated and encoded, alpha unchanged."""
    ps = "ps_2_0\ndcl t0\nmov r0, t0\nmov r0.z, c0.x\nmov oC0, r0\n"
    img, ref, t = _draw_ps(gl, ps, {}, {"srgbwriteenable": True})
    assert _deps(t) == {"srgbwriteenable": True}
    assert np.abs(img - ref).max() < 2e-6
    assert ref[0, 0, 3] == 1.0 and ref[3, 3, 0] == pytest.approx(linear_to_srgb(F32([(3.5) / W]))[0], abs=1e-6)


def test_fetch4(gl):
    """FETCH4 on s0 (glsl450's textureGather, glsl330's with the ARB
    extension): the footprint's reds as (top-right, bottom-left,
    bottom-right, top-left); with SRGBTEXTURE all four are decoded."""
    ps = "ps_2_0\ndcl t0\ndcl_2d s0\ndcl_2d s1\ntexld r0, t0, s0\ntexld r1, t0, s1\nadd r0, r0, r1\nmov oC0, r0\n"
    tex0, tex1 = _colour_texture(fetch4=True), _colour_texture(srgb=True, fetch4=True)
    for target in ("glsl330", "glsl450"):
        img, ref, t = _draw_ps(gl, ps, {0: tex0, 1: tex1}, {"fetch4": [0, 1], "srgbtexture": [1]}, target)
        assert "textureGather" in t.code
        red = tex0.levels[0][..., 0]
        assert ref[2, 3, 0] - srgb_to_linear(tex1.levels[0][2, 4, 0]) == pytest.approx(red[2, 4], abs=1e-6)
        assert ref[2, 3, 3] - srgb_to_linear(tex1.levels[0][2, 3, 0]) == pytest.approx(red[2, 3], abs=1e-6)
        assert np.abs(img - ref).max() < 2e-6


def test_unbound_sampler(gl):
    """An unbound sampler reads (0, 0, 0, 1), whatever the API's null texture
    gives, and is no longer a sampler the layer binds."""
    ps = "ps_2_0\ndcl t0\ndcl_2d s0\ndcl_2d s2\ntexld r0, t0, s0\ntexld r1, t0, s2\nadd r0, r0, r1\nmov oC0, r0\n"
    tex0 = _colour_texture()
    img, ref, t = _draw_ps(gl, ps, {0: tex0}, {"nulltexture": [2]})
    assert [s["register"] for s in t.reflection["samplers"]] == [0]
    assert np.allclose(ref, tex0.levels[0] + F32([0, 0, 0, 1]))
    assert np.array_equal(img, ref)


def test_state_only_where_the_shader_depends_on_it():
    """No sampler path for a shader that does not sample; no sRGB write for a
    vertex shader; the reflection lists nothing then."""
    state = {"depthtexture": [0], "srgbtexture": [1], "nulltexture": [3], "srgbwriteenable": True,
             "clipplaneenable": 1, "clipplanes": [[1, 0, 0, 0]], "pointmode": True}
    ps = translate(assemble_bytes("ps_2_0\ndcl t0\ndcl_2d s2\ntexld r0, t0, s2\nmov oC0, r0\n"), draw_state=state)
    assert _deps(ps) == {"srgbwriteenable": True}
    assert "pow" in ps.code and "Shadow" not in ps.code and "ClipDistance" not in ps.code
    vs = translate(assemble_bytes("vs_2_0\ndcl_position v0\nmov oPos, v0\n"), draw_state={"srgbwriteenable": True})
    assert vs.reflection.get("render_state") is None and "pow" not in vs.code
    plain = translate(assemble_bytes("ps_2_0\ndcl t0\ndcl_2d s2\ntexld r0, t0, s2\nmov oC0, r0\n"))
    assert plain.reflection.get("render_state") is None


@pytest.mark.parametrize("state, target, asm, why", [
    ({"fetch4": [0]}, "essl300", "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n", "textureGather"),
    ({"depthtexture": [0]}, "glsl330", "ps_2_0\ndcl t0\ndcl_cube s0\ntexld r0, t0, s0\nmov oC0, r0\n", "only 2D"),
    ({"depthtexture": [0]}, "essl100", "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n", "shadow"),
    ({"fetch4": [0]}, "glsl330", "ps_2_0\ndcl t0\ndcl_volume s0\ntexld r0, t0, s0\nmov oC0, r0\n", "2D only"),
    ({"clipplaneenable": 1}, "glsl120", "vs_2_0\ndcl_position v0\nmov oPos, v0\n", "gl_ClipDistance"),
])
def test_refused_not_ignored(state, target, asm, why):
    """A state a target or a sampler cannot honour is an error, never dropped."""
    with pytest.raises(UnsupportedError, match=why):
        translate(assemble_bytes(asm), target, draw_state=state)


@pytest.mark.parametrize("bad", [
    {"depthtexture": [16]}, {"depthtexture": [0], "fetch4": [0]}, {"srgbtexture": [1], "depthtexture": [1]},
    {"clipplanes": {6: [0, 0, 0, 1]}}, {"clipplaneenable": 64}, {"pointsize": -1},
    {"pointsize_min": 5, "pointsize_max": 2}, {"sprites": True}, {"nulltexture": "s0"},
])
def test_bad_state_values(bad):
    with pytest.raises(ValueError, match="draw_state"):
        translate(assemble_bytes("ps_2_0\nmov oC0, c0\n"), draw_state=bad)


# -- clip planes ---------------------------------------------------------------

VS_QUAD = "vs_2_0\ndcl_position v0\ndcl_texcoord0 v1\nmov oPos, v0\nmov oT0, v1\n"
QUAD = np.array([[-1, -1, 0.5, 1], [-1, 1, 0.5, 1], [1, -1, 0.5, 1], [1, 1, 0.5, 1]], F32)


@pytest.mark.parametrize("target", ["glsl330", "glsl450"])
def test_clip_planes_cut_a_quad(gl, target):
    """Planes 0 (x >= -0.25) and 3 (y <= 0.5, i.e. -y + 0.5 >= 0) in clip
    space: pixels on the kept side are drawn, the others keep the clear
    colour; the reference's per-vertex distances have the signs that say so."""
    from xlate.verify.gl import Draw
    from xlate.verify.reference import clip_distances

    planes = {0: (1, 0, 0, 0.25), 3: (0, -1, 0, 0.5)}
    vs_blob = assemble_bytes(VS_QUAD)
    vs = translate(vs_blob, target, draw_state={"clipplaneenable": 0b1001, "clipplanes": planes})
    assert vs.reflection["render_state"]["clipplanes"][1] == {"index": 3, "plane": [0.0, -1.0, 0.0, 0.5]}
    ps = translate(assemble_bytes("ps_2_0\nmov oC0, c0\n"), target)
    from xlate.verify import ReferenceConstants

    img = gl.draw(vs, ps, Draw(vertices={("position", 0): QUAD, ("texcoord", 0): QUAD}, primitive="triangle_strip",
                               size=(W, H), clear=(0, 0, 0, 0),
                               constants=ReferenceConstants(floats={0: (1, 1, 1, 1)}))).colors[0]
    res = run_shader(decode(vs_blob), {("position", 0): QUAD}, n=4)
    dist = clip_distances(res, planes)
    assert dist[0].tolist() == [-0.75, -0.75, 1.25, 1.25] and dist[3].tolist() == [1.5, -0.5, 1.5, -0.5]
    # pixel centres: x = 2px/W - 1 kept where >= -0.25 (px >= 3), y = 1 - 2py/H kept where <= 0.5 (py >= 1)
    py, px = np.mgrid[0:H, 0:W]
    xs, ys = 2 * px / W - 1, 1 - 2 * py / H
    kept = (xs + 0.25 > 0.01) & (0.5 - ys > 0.01)
    cut = (xs + 0.25 < -0.01) | (0.5 - ys < -0.01)
    assert np.all(img[kept] == 1) and np.all(img[cut] == 0)


# -- points --------------------------------------------------------------------

VS_POINTS = "vs_2_0\ndcl_position v0\ndcl_psize v1\nmov oPos, v0\nmov oPts, v1.x\n"


def _points(n: int, size_px: int) -> np.ndarray:
    """Positions of points centred on pixel corners of a 32x32 target."""
    xs = [(-0.5 + 0.5 * k) for k in range(n)]
    return np.array([[x, 0.0, 0.5, 1.0] for x in xs], F32)


@pytest.mark.parametrize("writes", [True, False])
def test_point_size_clamped(gl, writes):
    """oPts clamped to [POINTSIZE_MIN, POINTSIZE_MAX]; without oPts the
    state's POINTSIZE (clamped too).  Sizes 1 -> 2 (min), 4, 30 -> 6 (max)."""
    from xlate.verify.gl import Draw
    from xlate.verify import ReferenceConstants

    from xlate.verify.reference import point_sizes

    asm = VS_POINTS if writes else "vs_2_0\ndcl_position v0\nmov oPos, v0\n"
    state = {"pointmode": True, "pointsize": 9.0, "pointsize_min": 2.0, "pointsize_max": 6.0}
    vs = translate(assemble_bytes(asm), "glsl330", draw_state=state)
    ps = translate(assemble_bytes("ps_2_0\nmov oC0, c0\n"), "glsl330")
    pos = _points(3, 32)
    img = gl.draw(vs, ps, Draw(vertices={("position", 0): pos, ("psize", 0): F32([[1], [4], [30]])},
                               primitive="point_list", size=(32, 32), clear=(0, 0, 0, 0),
                               constants=ReferenceConstants(floats={0: (1, 1, 1, 1)}))).colors[0]
    # each point covers a size x size square around its centre (x = 8, 16, 24 px)
    widths = [int((img[:, c - 4:c + 4, 0].sum(axis=0) > 0).sum()) for c in (8, 16, 24)]
    res = run_shader(decode(assemble_bytes(asm)), {("position", 0): pos, ("psize", 0): F32([[1], [4], [30]])}, n=3)
    assert widths == point_sizes(res, state).tolist() == ([2, 4, 6] if writes else [6, 6, 6])


@pytest.mark.parametrize("target", ["glsl330", "glsl450"])
@pytest.mark.parametrize("flip_y", [False, True])
def test_point_sprite_coordinates(gl, target, flip_y):
    """POINTSPRITEENABLE: texcoord0 reads (u, v, 0, 0) across the point, u
    right and v down in the D3D image, whatever the target's orientation;
    the reference's point-sprite inputs give the same colours."""
    from xlate.verify.gl import Draw

    vs = translate(assemble_bytes("vs_2_0\ndcl_position v0\nmov oPos, v0\n"), target, flip_y=flip_y,
                   draw_state={"pointmode": True, "pointsize": 8.0})
    ps_blob = assemble_bytes("ps_2_0\ndcl t0\nmov oC0, t0\n")
    ps = translate(ps_blob, target, flip_y=flip_y, draw_state={"pointspriteenable": True})
    assert _deps(ps) == {"pointspriteenable": True}
    img = gl.draw(vs, ps, Draw(vertices={("position", 0): F32([[0, 0, 0.5, 1]])}, primitive="point_list",
                               size=(16, 16), clear=(0, 0, 0, 1))).colors[0]
    sprite = img[4:12, 4:12]  # the 8x8 point centred on the target's centre
    ys, xs = np.mgrid[0:8, 0:8]
    # D3D samples pixels at integer coordinates: the sprite spans [c - 4, c + 4), so pixel k of it reads k/8
    uv = np.stack([xs.ravel() / 8, ys.ravel() / 8], axis=1).astype(F32)
    res = run_shader(decode(ps_blob), {"point_coord": uv}, n=64, point_sprite=True)
    ref = res.outputs["oC0"].reshape(8, 8, 4)
    assert np.abs(sprite - ref).max() < 2e-3  # the half-pixel shift is 63/128 px
    assert sprite[0, 0, 1] < 0.01 and sprite[7, 7, 1] > 0.85  # v grows downwards in the image


# -- the dynamic form: one translation, the states chosen at draw time ---------


def _with_states(textures: dict, state: dict) -> dict:
    """The reference's textures under ``state``: sRGB samplers flagged, null
    textures unbound."""
    from dataclasses import replace

    out = {}
    for s, tex in textures.items():
        if s in state.get("nulltexture", ()):
            continue
        out[s] = Texture(tex.kind, tex.levels, replace(tex.sampler, srgb=s in state.get("srgbtexture", ())),
                         tex.format)
    return out


@pytest.mark.parametrize("target", ["glsl330", "essl300"])
def test_dynamic_sampler_states(gl, target):
    """draw_state_mode="dynamic": sRGB read, null textures and sRGB write are
    uniforms (GL); one translation gives the reference's image under each state."""
    ps = ("ps_2_0\ndcl t0\ndcl_2d s0\ndcl_2d s1\ntexld r0, t0, s0\ntexld r1, t0, s1\nmul r1, r1, c0\n"
          "add r0, r0, r1\nmov oC0, r0\n")
    textures = {0: _colour_texture(), 1: _colour_texture()}
    from xlate.verify.gl import Draw

    blob = assemble_bytes(ps)
    t = translate(blob, target, draw_state_mode="dynamic", half_pixel_exact=True)
    keys = [p["key"] for p in t.reflection["render_state"]["parameters"] if p["id"] >= 16]  # in id order
    assert keys == ["srgbwriteenable", "pointspriteenable", "srgbtexture_s0", "srgbtexture_s1", "nulltexture_s0",
                    "nulltexture_s1"]
    assert all(p["form"] == "uniform" for p in t.reflection["render_state"]["parameters"])
    verts = {("position", 0): BIG_TRIANGLE, ("texcoord", 0): _affine(BIG_TRIANGLE, TEXCOORD_ROWS)}
    consts = {0: (0.5, 0.5, 0.5, 0.5)}
    from xlate.verify import ReferenceConstants

    for state in ({}, {"srgbtexture": [1]}, {"nulltexture": [0]}, {"srgbwriteenable": True},
                  {"srgbtexture": [0, 1], "nulltexture": [1], "srgbwriteenable": True}):
        bound = {s: tex for s, tex in textures.items() if s not in state.get("nulltexture", ())}
        img = gl.draw(None, t, Draw(vertices=verts, size=(W, H), textures=bound, state_values=state,
                                    constants=ReferenceConstants(floats=consts))).colors[0]
        res = run_shader(decode(blob), {("texcoord", 0): _affine(_pixel_ndc(), TEXCOORD_ROWS)},
                         ReferenceConstants(floats=consts), _with_states(textures, state), n=W * H,
                         srgb_write=bool(state.get("srgbwriteenable")))
        tol = 2e-3 if target.startswith("essl") else 4e-6  # ES fragment shaders compute in mediump
        assert np.abs(img - res.outputs["oC0"].reshape(H, W, 4)).max() < tol, state


def test_dynamic_clip_planes_and_points(gl):
    """Dynamic: the enabled planes' equations and the point sizes and sprite
    switch are uniforms; the images equal the baked translations'."""
    from xlate.verify import ReferenceConstants
    from xlate.verify.gl import Draw

    planes = {0: (1, 0, 0, 0.25), 3: (0, -1, 0, 0.5)}
    vs_blob, ps_blob = assemble_bytes(VS_QUAD), assemble_bytes("ps_2_0\nmov oC0, c0\n")
    ps = translate(ps_blob)
    draw = dict(vertices={("position", 0): QUAD, ("texcoord", 0): QUAD}, primitive="triangle_strip", size=(W, H),
                clear=(0, 0, 0, 0), constants=ReferenceConstants(floats={0: (1, 1, 1, 1)}))
    baked = translate(vs_blob, draw_state={"clipplaneenable": 0b1001, "clipplanes": planes})
    dyn = translate(vs_blob, draw_state={"clipplaneenable": 0b1001}, draw_state_mode="dynamic")
    assert {p["key"] for p in dyn.reflection["render_state"]["parameters"]} >= {"clipplane0_a", "clipplane3_d"}
    want = gl.draw(baked, ps, Draw(**draw)).colors[0]
    got = gl.draw(dyn, ps, Draw(**draw, state_values={"clipplaneenable": 0b1001, "clipplanes": planes})).colors[0]
    assert np.array_equal(got, want) and 0 < want[..., 0].mean() < 1

    vs = translate(assemble_bytes("vs_2_0\ndcl_position v0\ndcl_psize v1\ndcl_texcoord0 v2\nmov oPos, v0\n"
                                  "mov oPts, v1.x\nmov oT0, v2\n"), draw_state_mode="dynamic")
    sprite_ps = translate(assemble_bytes("ps_2_0\ndcl t0\nmov oC0, t0\n"), draw_state_mode="dynamic")
    pts = dict(vertices={("position", 0): _points(3, 32), ("psize", 0): F32([[1], [4], [30]]),
                         ("texcoord", 0): F32([[0.25, 0.5, 1, 1]] * 3)}, primitive="point_list", size=(32, 32),
               clear=(0, 0, 0, 0))
    img = gl.draw(vs, sprite_ps, Draw(**pts, state_values={"pointsize_min": 2.0, "pointsize_max": 6.0})).colors[0]
    widths = [int((img[:, c - 4:c + 4, 3].sum(axis=0) > 0).sum()) for c in (8, 16, 24)]
    assert widths == [2, 4, 6]
    assert np.allclose(img[15, 15], [0.25, 0.5, 1, 1])  # sprites off: the texcoord itself
    img = gl.draw(vs, sprite_ps, Draw(**pts, state_values={"pointsize_min": 2.0, "pointsize_max": 6.0,
                                                            "pointspriteenable": True})).colors[0]
    assert img[14, 14, 0] < img[14, 17, 0] and img[14, 14, 1] < img[17, 14, 1] and img[15, 15, 2] == 0


# -- random programs with random states (the differential harness) ------------


@pytest.mark.parametrize("mode", ["baked", "dynamic"])
def test_random_programs_with_random_states(mode):
    """Generated pixel programs drawn on llvmpipe with random fog / alpha-test
    states plus sRGB write and null textures drawn at random, against the
    reference with the same states (sRGB-decoded textures stay out: the
    generator's error bounds assume the texel values it chose)."""
    import random

    from xlate.verify import differential as D
    from xlate.verify.generate import generate_seed, sampler_roles
    from xlate.verify.reference_drawstate import random_draw_state

    why = D.gl_available()
    if why:
        pytest.skip(why)
    rng = random.Random(1400)
    compared, nulls, writes = 0, 0, 0
    for k in range(6):
        seed = 1400 + k
        program = generate_seed(seed, ("ps_2_0", "ps_2_x", "ps_3_0")[k % 3])
        samplers = sorted(sampler_roles(program.shader))
        state = random_draw_state(rng).with_(srgbwriteenable=rng.random() < 0.75,
                                             nulltexture=tuple(s for s in samplers if rng.random() < 0.5))
        v = D.check_generated(program, seed, draw_state=state, draw_state_mode=mode, name=f"seed {seed} {mode}")
        assert v.ok, v.report() + "\n" + program.asm
        compared += v.compared
        nulls += len(state.nulltexture)
        writes += state.srgbwriteenable
    assert compared > 0 and nulls > 0 and writes > 0


# -- b# and i# as specialization ----------------------------------------------

PS_BRANCHES = ("ps_3_0\ndcl_texcoord0 v0\ndefb b2, true\nmov r0, c0\nif b0\nadd r0, r0, v0\nendif\nif b2\n"
               "mul r0, r0, c1\nendif\nif b3\nmov r0.y, c1.x\nendif\nrep i1\nadd r0, r0, c2\nendrep\nmov oC0, r0\n")


def _branches_reference(blob, bools: dict, ints: dict):
    from xlate.verify import ReferenceConstants

    consts = ReferenceConstants(floats={0: (0.25, 0.5, 0.125, 1), 1: (2, 0.5, 4, 1), 2: (0.0625, 0, 0.125, 0)},
                                ints=ints, bools=bools)
    res = run_shader(decode(blob), {("texcoord", 0): _affine(_pixel_ndc(), TEXCOORD_ROWS)}, consts, n=W * H)
    return consts, res.outputs["oC0"].reshape(H, W, 4)


@pytest.mark.parametrize("mode", ["baked", "dynamic"])
def test_bool_and_int_constants_specialized(gl, mode):
    """specializeconstants: b#/i# from the draw state, folded when baked
    (no bool/int uniform left, no branch on b#), uniforms when dynamic; the
    image is the reference's with those register values, whatever the
    uniforms hold (a DEFB'd register stays the shader's)."""
    from xlate.verify import ReferenceConstants
    from xlate.verify.gl import Draw

    blob = assemble_bytes(PS_BRANCHES)
    verts = {("position", 0): BIG_TRIANGLE, ("texcoord", 0): _affine(BIG_TRIANGLE, TEXCOORD_ROWS)}
    for bools, ints in (({0: True}, {1: (3, 0, 0, 0)}), ({3: True}, {1: (0, 0, 0, 0)}), ({0: True, 3: True}, {})):
        state = {"specializeconstants": True, "boolconstants": sorted(bools), "intconstants": ints}
        t = translate(blob, draw_state=state if mode == "baked" else {"specializeconstants": True},
                      draw_state_mode=mode, half_pixel_exact=True)
        assert t.reflection["render_state"]["constants"] == {"b": [0, 3], "i": [1]}
        assert not any(c["file"] in ("bool", "int") for c in t.reflection["constants"])
        if mode == "baked":
            assert "if (" not in t.code.replace("if (loop", "")  # every b# branch folded
        consts, ref = _branches_reference(blob, bools, ints)
        wrong = ReferenceConstants(floats=consts.floats, bools={0: not bools.get(0), 3: not bools.get(3)},
                                   ints={1: (7, 0, 0, 0)})  # uniforms the translation must not read
        img = gl.draw(None, t, Draw(vertices=verts, size=(W, H), constants=wrong,
                                    state_values=state if mode == "dynamic" else None)).colors[0]
        assert np.abs(img - ref).max() < 1e-5, (bools, ints)


def test_cli(tmp_path):
    """The CLI's --draw-state takes these states as key=value and in a JSON file."""
    import json

    from click.testing import CliRunner

    from xlate.cli import main

    src = tmp_path / "p.asm"
    src.write_text("ps_2_0\ndcl t0\ndcl_2d s0\ndcl_2d s1\ntexld r0, t0, s0\ntexld r1, t0, s1\nadd oC0, r0, r1\n")
    r = CliRunner().invoke(main, ["translate", str(src), "--draw-state", "depthtexture=0", "--draw-state",
                                  "nulltexture=1", "--draw-state", "srgbwriteenable=true"])
    assert r.exit_code == 0, r.output
    assert "uniform sampler2DShadow ps_s0;" in r.output and "ps_s1" not in r.output and "0.0031308" in r.output
    (tmp_path / "s.json").write_text(json.dumps({"clipplaneenable": 2, "clipplanes": {"1": [0, 1, 0, 0]}}))
    vs = tmp_path / "v.asm"
    vs.write_text("vs_2_0\ndcl_position v0\nmov oPos, v0\n")
    r = CliRunner().invoke(main, ["translate", str(vs), "--draw-state", str(tmp_path / "s.json")])
    assert r.exit_code == 0, r.output
    assert "gl_ClipDistance[1] = dot(" in r.output
    r = CliRunner().invoke(main, ["translate", str(src), "--draw-state", "fetch4=0", "--draw-state", "depthtexture=0"])
    assert r.exit_code != 0 and "fetch4" in r.output


def check_branch_constants_by_id(runner, target: str, id_key: str):
    """b# and i# as pipeline constants (ids 96+n, 112+4n+c, the reflection's
    ``id_key``) on ``runner`` (Vulkan specialization or WebGPU override
    constants): one module, each draw's values give the reference's image."""
    from xlate.verify.gl import Draw

    blob = assemble_bytes(PS_BRANCHES)
    t = translate(blob, target, draw_state={"specializeconstants": True}, draw_state_mode="dynamic",
                  half_pixel_exact=True)
    ids = {p["key"]: p[id_key] for p in t.reflection["render_state"]["parameters"]}
    assert ids["b0"] == 96 and ids["b3"] == 99 and ids["i1_x"] == 116
    verts = {("position", 0): BIG_TRIANGLE, ("texcoord", 0): _affine(BIG_TRIANGLE, TEXCOORD_ROWS)}
    for bools, ints in (({0: True}, {1: (3, 0, 0, 0)}), ({3: True}, {1: (1, 0, 0, 0)})):
        consts, ref = _branches_reference(blob, bools, ints)
        state = {"specializeconstants": True, "boolconstants": sorted(bools), "intconstants": ints}
        img = runner.draw(None, t, Draw(vertices=verts, size=(W, H), constants=consts, state_values=state)).colors[0]
        assert np.abs(img - ref).max() < 1e-5, (bools, ints)


def check_clip_planes(runner, target: str, mode: str):
    """Clip planes 0 and 3 (x > -0.25, y < 0.5) of a quad drawn by ``runner``
    (Vulkan or WebGPU clip distances), baked or dynamic: the kept side drawn,
    the other not.  Returns the VS's translation."""
    from xlate.verify import ReferenceConstants
    from xlate.verify.gl import Draw

    planes = {0: (1, 0, 0, 0.25), 3: (0, -1, 0, 0.5)}
    vs = translate(assemble_bytes(VS_QUAD), target, draw_state={"clipplaneenable": 0b1001, "clipplanes": planes},
                   draw_state_mode=mode)
    ps = translate(assemble_bytes("ps_2_0\nmov oC0, c0\n"), target)
    draw = Draw(vertices={("position", 0): QUAD, ("texcoord", 0): QUAD}, primitive="triangle_strip", size=(W, H),
                clear=(0, 0, 0, 0), constants=ReferenceConstants(floats={0: (1, 1, 1, 1)}),
                state_values={"clipplaneenable": 0b1001, "clipplanes": planes})
    img = runner.draw(vs, ps, draw).colors[0]
    py, px = np.mgrid[0:H, 0:W]
    xs, ys = 2 * px / W - 1, 1 - 2 * py / H
    kept = (xs + 0.25 > 0.01) & (0.5 - ys > 0.01)
    cut = (xs + 0.25 < -0.01) | (0.5 - ys < -0.01)
    assert np.all(img[kept] == 1) and np.all(img[cut] == 0)
    return vs
