"""More shader model 1 executed on Mesa llvmpipe (issue 5): the ops and
modifiers that ``test_sm1_exec.py`` leaves out, each against hand-computed
values.

The harness is ``test_sm1_exec``'s (one point per pixel, exact per-point
inputs, binding through the reflection, textures whose texels encode their
own coordinates and stage); see its docstring.  Texel encodings:

* 2D (8 x 8):     texel (column c, row r) of stage s = (c, r, s, 10 + s);
* cube (4 x 4):   face f texel (c, r) = (f, c, r, 10 + s), faces +X -X +Y -Y +Z -Z;
* volume (4^3):   texel (c, r, slice k) = (c, r, k, 10 + s) (added here).

Cube face coordinates (D3D and GL agree): for major axis m, s = (sc/|m| + 1)/2
and t = (tc/|m| + 1)/2 with (sc, tc) = +X (-z, -y), -X (z, -y), +Y (x, z),
-Y (x, -z), +Z (x, -y), -Z (-x, -y); column = floor(4 s), row = floor(4 t).

Where convenient the reference interpreter runs the same draw and must
give the same hand values.
"""

from __future__ import annotations

import numpy as np
import pytest
import test_sm1_exec as sm1
from glharness import gl_context
from test_sm1_exec import GL_TARGETS, coord_texels, cube_texels, reference_ps, run_ps, texel_centre

from xlate.bytecode.tables import SamplerType


@pytest.fixture(scope="module")
def ctx():
    c, why = gl_context()
    if c is None:
        pytest.skip(why)
    return c


# -- volume textures (the shared harness knows 2D and cube) ---------------------------


class Volume:
    """Volume texels (depth, height, width, 4); slice 0 is w = 0."""

    def __init__(self, texels: np.ndarray):
        self.texels = np.asarray(texels, "f4")


def volume_texels(stage: int, size: int = 4) -> Volume:
    """Texel (c, r, slice k) = (c, r, k, 10 + stage)."""
    k, r, c = np.mgrid[0:size, 0:size, 0:size]
    return Volume(np.stack([c, r, k, np.full_like(c, 10 + stage)], axis=-1).astype("f4"))


@pytest.fixture
def volumes(monkeypatch):
    """Teach the shared harness's texture makers ``Volume`` texels."""
    import moderngl

    gl_texture, reference_texture = sm1.gl_texture, sm1.reference_texture

    def gl_texture_v(ctx, texels):
        if not isinstance(texels, Volume):
            return gl_texture(ctx, texels)
        d, h, w, _ = texels.texels.shape
        tex = ctx.texture3d((w, h, d), 4, texels.texels.tobytes(), dtype="f4")
        tex.filter = (moderngl.NEAREST, moderngl.NEAREST)
        return tex

    def reference_texture_v(texels):
        from xlate.verify import SamplerState, Texture

        if isinstance(texels, Volume):
            return Texture("volume", [texels.texels], SamplerState())  # point, wrap
        return reference_texture(texels)

    monkeypatch.setattr(sm1, "gl_texture", gl_texture_v)
    monkeypatch.setattr(sm1, "reference_texture", reference_texture_v)


def data_texels(*texels) -> np.ndarray:
    """A 1-row 2D texture of the given texels: texel k is hit by u = (k + 0.5) / count."""
    return np.array([texels], "f4")


def data_coord(k: int, count: int) -> tuple:
    return ((k + 0.5) / count, 0.5, 0.0, 1.0)


# -- ps_1_1 - 1_3: tex, texcoord -----------------------------------------------------

TEX3 = """ps_1_1
tex t0
tex t1
tex t2
mov r0, t{k}
"""
TEX3_TYPES = ((1, SamplerType.CUBE), (2, SamplerType.VOLUME))


def _tex3_case():
    # stage 0 (2D): tc0.xy only -- z and w are ignored without D3DTTFF_PROJECTED;
    #   (5.5/8, 3.5/8) -> texel (5, 3); (1.5/8, 7.5/8) -> texel (1, 7) with w = 0.5
    #   (divided by w it would be (3/8, 15/8) -> wrapped texel (3, 7)).
    tc0 = [(*texel_centre(5, 3), 0.9, 3.0), (*texel_centre(1, 7), 0.0, 0.5)]
    # stage 1 (cube): (0.25, -0.5, -1): major -z -> face 5 (-Z), (sc, tc) = (-x, -y) = (-0.25, 0.5):
    #   s = (-0.25 + 1)/2 = 0.375 -> column 1, t = (0.5 + 1)/2 = 0.75 -> row 3;
    #   (2, 0.5, -1): major +x -> face 0 (+X), (sc, tc) = (-z, -y) = (1, -0.5) / 2:
    #   s = (0.5 + 1)/2 = 0.75 -> column 3, t = (-0.25 + 1)/2 = 0.375 -> row 1.
    tc1 = [(0.25, -0.5, -1.0, 7.0), (2.0, 0.5, -1.0, 1.0)]
    # stage 2 (volume 4^3): (2.5, 1.5, 3.5)/4 -> texel (2, 1, slice 3); (0.5, 3.5, 1.5)/4 -> (0, 3, 1)
    tc2 = [(2.5 / 4, 1.5 / 4, 3.5 / 4, 9.0), (0.5 / 4, 3.5 / 4, 1.5 / 4, 1.0)]
    inputs = {("texcoord", 0): tc0, ("texcoord", 1): tc1, ("texcoord", 2): tc2}
    expect = {0: [(5, 3, 0, 10), (1, 7, 0, 10)],
              1: [(5, 1, 3, 11), (0, 3, 1, 11)],
              2: [(2, 1, 3, 12), (0, 3, 1, 12)]}
    return inputs, expect


@pytest.mark.parametrize("target", GL_TARGETS)  # sampler2D / samplerCube / sampler3D spellings differ
@pytest.mark.parametrize("k", [0, 1, 2], ids=["2d", "cube", "volume"])
def test_tex_2d_cube_volume(ctx, volumes, k, target):
    asm = TEX3.format(k=k)
    inputs, expect = _tex3_case()
    textures = {0: coord_texels(0), 1: cube_texels(1), 2: volume_texels(2)}
    out, _, refl = run_ps(ctx, asm, inputs, textures=textures, sampler_types=TEX3_TYPES, target=target)
    assert refl["draw_state"]["samplers"] == [{"stage": 0, "type": "2d"}, {"stage": 1, "type": "cube"},
                                              {"stage": 2, "type": "volume"}]
    np.testing.assert_allclose(out, expect[k])
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures)[0], expect[k])


def test_texcoord_saturates_and_sets_w_to_1(ctx):
    asm = """ps_1_1
texcoord t0
texcoord t1
add r0, t0, t1
"""
    # t0 = saturate(tc0) with w = 1, t1 likewise; the sum shows both:
    # tc0 (-0.5, 0.25, 1.5, 0.3) -> (0, 0.25, 1, 1); tc1 (0.125, 2, -3, -2) -> (0.125, 1, 0, 1);
    # sum (0.125, 1.25, 1, 2).  Pixel 1: tc0 (0.75, 0.5, 0.25, 0) -> (0.75, 0.5, 0.25, 1),
    # tc1 (1, 0, 0.5, 5) -> (1, 0, 0.5, 1); sum (1.75, 0.5, 0.75, 2).
    inputs = {("texcoord", 0): [(-0.5, 0.25, 1.5, 0.3), (0.75, 0.5, 0.25, 0.0)],
              ("texcoord", 1): [(0.125, 2.0, -3.0, -2.0), (1.0, 0.0, 0.5, 5.0)]}
    expect = [(0.125, 1.25, 1.0, 2.0), (1.75, 0.5, 0.75, 2.0)]
    out, _, refl = run_ps(ctx, asm, inputs)
    assert refl["samplers"] == []  # texcoord samples nothing
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs)[0], expect)


# -- texreg2ar / texreg2gb / texreg2rgb ------------------------------------------------


def test_texreg2ar(ctx):
    asm = """ps_1_1
tex t0
texreg2ar t1, t0
mov r0, t1
"""
    # t1 = sample(stage 1, (t0.a, t0.r)).
    # texel A: a = 2.5/8 (column 2), r = 5.5/8 (row 5) -> (2, 5, 1, 11);
    # texel B: a = 7.5/8 (column 7), r = 0.5/8 (row 0) -> (7, 0, 1, 11).
    # (r, a) would give (5, 2) and (0, 7); g and b are decoys.
    a = (5.5 / 8, 0.1, 0.9, 2.5 / 8)
    b = (0.5 / 8, 0.5, 0.5, 7.5 / 8)
    textures = {0: data_texels(a, b), 1: coord_texels(1)}
    inputs = {("texcoord", 0): [data_coord(0, 2), data_coord(1, 2)], ("texcoord", 1): [(0.9, 0.9, 0, 1)] * 2}
    expect = [(2, 5, 1, 11), (7, 0, 1, 11)]
    out, _, _ = run_ps(ctx, asm, inputs, textures=textures)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures)[0], expect)


def test_texreg2gb(ctx):
    asm = """ps_1_1
tex t0
texreg2gb t1, t0
mov r0, t1
"""
    # t1 = sample(stage 1, (t0.g, t0.b)).
    # texel A: g = 3.5/8 (column 3), b = 6.5/8 (row 6) -> (3, 6, 1, 11);
    # texel B: g = 7.5/8 (column 7), b = 1.5/8 (row 1) -> (7, 1, 1, 11).
    a = (0.9, 3.5 / 8, 6.5 / 8, 0.1)
    b = (0.2, 7.5 / 8, 1.5 / 8, 0.6)
    textures = {0: data_texels(a, b), 1: coord_texels(1)}
    inputs = {("texcoord", 0): [data_coord(0, 2), data_coord(1, 2)], ("texcoord", 1): [(0.9, 0.9, 0, 1)] * 2}
    expect = [(3, 6, 1, 11), (7, 1, 1, 11)]
    out, _, _ = run_ps(ctx, asm, inputs, textures=textures)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures)[0], expect)


@pytest.mark.parametrize("kind", ["2d", "volume"])
def test_texreg2rgb(ctx, volumes, kind):
    asm = """ps_1_2
tex t0
texreg2rgb t1, t0
mov r0, t1
"""
    # t1 = sample(stage 1, t0.rgb); a 2D stage uses .rg only.
    # texel A = (0.375, 0.625, 0.875, 0.2): 2D 8x8 -> (3, 5); volume 4^3 -> (1, 2, slice 3);
    # texel B = (0.875, 0.125, 0.375, 0.9): 2D -> (7, 1);    volume -> (3, 0, slice 1).
    a = (0.375, 0.625, 0.875, 0.2)
    b = (0.875, 0.125, 0.375, 0.9)
    if kind == "2d":
        tex1, types, expect = coord_texels(1), (), [(3, 5, 1, 11), (7, 1, 1, 11)]
    else:
        tex1, types, expect = volume_texels(1), ((1, SamplerType.VOLUME),), [(1, 2, 3, 11), (3, 0, 1, 11)]
    textures = {0: data_texels(a, b), 1: tex1}
    inputs = {("texcoord", 0): [data_coord(0, 2), data_coord(1, 2)], ("texcoord", 1): [(0.9, 0.9, 0.9, 1)] * 2}
    out, _, _ = run_ps(ctx, asm, inputs, textures=textures, sampler_types=types)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures)[0], expect)


# -- texm3x3 family, texdp3, texdp3tex ---------------------------------------------------

# The vector every texm3x* / texdp3 test fetches into t0; its w (0.5) and the
# coordinates' w are decoys: the rows are 3-component dot products.
T_VEC = (0.5, 0.25, 1.0, 0.5)
T_TEXTURE = data_texels(T_VEC)
T_COORD = (0.5, 0.5, 0.0, 1.0)

TEXM3X3TEX = """ps_1_1
tex t0
texm3x3pad t1, t0
texm3x3pad t2, t0
texm3x3tex t3, t0
mov r0, t3
"""


def test_texm3x3tex_cube(ctx):
    # T = (0.5, 0.25, 1); N = (tc1.T, tc2.T, tc3.T) (the destinations' coordinates are the rows).
    # Pixel 0: rows (0, 0, 0.25) -> 0.25, (0, -2, 0) -> -0.5, (2, 0, 0) -> 1: N = (0.25, -0.5, 1),
    #   face +Z (4): s = (0.25 + 1)/2 = 0.625 -> column 2, t = (0.5 + 1)/2 = 0.75 -> row 3.
    # Pixel 1: rows (-2, 0, 0) -> -1, (0, 1, 0) -> 0.25, (0, 0, -0.5) -> -0.5: N = (-1, 0.25, -0.5),
    #   face -X (1): (sc, tc) = (z, -y) = (-0.5, -0.25): s = 0.25 -> column 1, t = 0.375 -> row 1.
    # Pixel 2: pixel 0's rows in the order 3, 1, 2: N = (1, 0.25, -0.5), face +X (0):
    #   (sc, tc) = (-z, -y) = (0.5, -0.25): s = 0.75 -> column 3, t = 0.375 -> row 1.
    # The .w of each row is a decoy (no eye vector here).
    r = [((0, 0, 0.25, 5), (0, -2, 0, 5), (2, 0, 0, 5)),
         ((-2, 0, 0, 0), (0, 1, 0, 0), (0, 0, -0.5, 0)),
         ((2, 0, 0, 1), (0, 0, 0.25, 1), (0, -2, 0, 1))]
    inputs = {("texcoord", 0): [T_COORD] * 3, **{("texcoord", k + 1): [p[k] for p in r] for k in range(3)}}
    textures = {0: T_TEXTURE, 3: cube_texels(3)}
    expect = [(4, 2, 3, 13), (1, 1, 1, 13), (0, 3, 1, 13)]
    out, _, refl = run_ps(ctx, TEXM3X3TEX, inputs, textures=textures, sampler_types=((3, SamplerType.CUBE),))
    # the pads' stages sample nothing
    assert refl["draw_state"]["samplers"] == [{"stage": 0, "type": "2d"}, {"stage": 3, "type": "cube"}]
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(TEXM3X3TEX, inputs, textures=textures)[0], expect)


def test_texm3x3tex_volume(ctx, volumes):
    # rows (1.25, 0, 0), (0, 1.5, 0), (0, 0, 0.875) . T = (0.625, 0.375, 0.875) -> texel (2, 1, slice 3);
    # rows (0, 0.5, 0), (1.75, 0, 0), (0, 0, 0.125) . T = (0.125, 0.875, 0.125) -> texel (0, 3, slice 0).
    r = [((1.25, 0, 0, 0), (0, 1.5, 0, 0), (0, 0, 0.875, 0)),
         ((0, 0.5, 0, 0), (1.75, 0, 0, 0), (0, 0, 0.125, 0))]
    inputs = {("texcoord", 0): [T_COORD] * 2, **{("texcoord", k + 1): [p[k] for p in r] for k in range(3)}}
    textures = {0: T_TEXTURE, 3: volume_texels(3)}
    expect = [(2, 1, 3, 13), (0, 3, 0, 13)]
    out, _, _ = run_ps(ctx, TEXM3X3TEX, inputs, textures=textures, sampler_types=((3, SamplerType.VOLUME),))
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(TEXM3X3TEX, inputs, textures=textures)[0], expect)


def test_texm3x3vspec_eye_from_the_rows_w(ctx):
    asm = """ps_1_1
tex t0
texm3x3pad t1, t0
texm3x3pad t2, t0
texm3x3vspec t3, t0
mov r0, t3
"""
    # T = (0.5, 0.25, 1); N = (tc1.T, tc2.T, tc3.T); E = (tc1.w, tc2.w, tc3.w);
    # R = 2 (N.E) / (N.N) N - E.
    # Pixel 0: N = (0, 0, 1), E = (0.375, 0.25, 1): R = 2 (0, 0, 1) - E = (-0.375, -0.25, 1),
    #   face +Z: s = (-0.375 + 1)/2 = 0.3125 -> column 1, t = (0.25 + 1)/2 = 0.625 -> row 2.
    # Pixel 1: N = (0, 1, 1), same E: N.E = 1.25, N.N = 2, R = 1.25 N - E = (-0.375, 1, 0.25),
    #   face +Y: (sc, tc) = (x, z): s = 0.3125 -> column 1, t = 0.625 -> row 2.
    # Pixel 2: N = (1, 0, 0), E = (0.5, 0.25, -0.75): R = 2 * 0.5 N - E = (0.5, -0.25, 0.75),
    #   face +Z: s = (0.5/0.75 + 1)/2 = 0.833 -> column 3, t = (0.25/0.75 + 1)/2 = 0.667 -> row 2.
    tc1 = [(0, 0, 0, 0.375), (0, 0, 0, 0.375), (2, 0, 0, 0.5)]
    tc2 = [(0, 0, 0, 0.25), (0, 4, 0, 0.25), (0, 0, 0, 0.25)]
    tc3 = [(0, 0, 1, 1.0), (0, 0, 1, 1.0), (0, 0, 0, -0.75)]
    inputs = {("texcoord", 0): [T_COORD] * 3, ("texcoord", 1): tc1, ("texcoord", 2): tc2, ("texcoord", 3): tc3}
    textures = {0: T_TEXTURE, 3: cube_texels(3)}
    expect = [(4, 1, 2, 13), (2, 1, 2, 13), (4, 3, 2, 13)]
    out, _, _ = run_ps(ctx, asm, inputs, textures=textures, sampler_types=((3, SamplerType.CUBE),))
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures)[0], expect)


def test_texm3x3_no_sampling_w_1_and_the_pad_rows(ctx):
    asm = """ps_1_2
tex t0
texm3x3pad t1, t0
texm3x3pad t2, t0
texm3x3 t3, t0
mov r0, t3
"""
    # t3 = (tc1.T, tc2.T, tc3.T, 1) with T = (0.5, 0.25, 1): the two pads supply
    # rows 0 and 1 (from their own coordinates tc1, tc2), texm3x3 row 2, w = 1.
    # Pixel 0: (1, 2, 0.5) -> 0.5 + 0.5 + 0.5 = 1.5; (-1, 0, 0) -> -0.5; (0, 4, -1) -> 1 - 1 = 0.
    # Pixel 1: (0, 0, 0.75) -> 0.75; (0.5, 0, 0) -> 0.25; (-2, -4, 0) -> -1 - 1 = -2.
    # The rows' .w (9, 3, -4) are not the result's w.
    tc1 = [(1, 2, 0.5, 9), (0, 0, 0.75, 9)]
    tc2 = [(-1, 0, 0, 3), (0.5, 0, 0, 3)]
    tc3 = [(0, 4, -1, -4), (-2, -4, 0, -4)]
    inputs = {("texcoord", 0): [T_COORD] * 2, ("texcoord", 1): tc1, ("texcoord", 2): tc2, ("texcoord", 3): tc3}
    textures = {0: T_TEXTURE}
    expect = [(1.5, -0.5, 0.0, 1.0), (0.75, 0.25, -2.0, 1.0)]
    out, _, refl = run_ps(ctx, asm, inputs, textures=textures)
    assert [s["register"] for s in refl["samplers"]] == [0]  # no stage 1-3 sampler
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures)[0], expect)


def test_texm3x2pad_row_comes_from_the_pad_register(ctx):
    # texm3x2pad t1 uses tc1 (its own coordinate set) and writes nothing;
    # texm3x2tex t2 uses tc2 and samples stage 2 at (tc1.T, tc2.T).
    asm = """ps_1_1
tex t0
texm3x2pad t1, t0
texm3x2tex t2, t0
mov r0, t2
"""
    # T = (0.5, 0.25, 1): u = tc1.T = 0.125 + 0.125 + 0.5625 = 0.8125 -> column 6 (6.5 / 8);
    # v = tc2.T = 0.5 - 0.25 + 0.3125 = 0.5625 -> row 4 (4.5 / 8).  Swapped rows: texel (4, 6).
    # The pad does not write t1: reading t1 afterwards is not valid ps_1_x
    # (t# must be loaded by a texture op), so only its row is checked.
    tc1 = [(0.25, 0.5, 0.5625, 0.0)]
    tc2 = [(1.0, -1.0, 0.3125, 0.0)]
    inputs = {("texcoord", 0): [T_COORD], ("texcoord", 1): tc1, ("texcoord", 2): tc2}
    textures = {0: T_TEXTURE, 2: coord_texels(2)}
    expect = [(6, 4, 2, 12)]
    out, _, refl = run_ps(ctx, asm, inputs, textures=textures)
    assert [s["register"] for s in refl["samplers"]] == [0, 2]  # the pad's stage samples nothing
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures)[0], expect)


def test_texdp3(ctx):
    asm = """ps_1_2
tex t0
texdp3 t1, t0
mov r0, t1
"""
    # t1 = tc1.xyz . T replicated, T = (0.5, 0.25, 1), tc1.w ignored:
    # (1, 2, 0.5, 7) -> 0.5 + 0.5 + 0.5 = 1.5; (0.25, -4, 0, 3) -> 0.125 - 1 = -0.875.
    inputs = {("texcoord", 0): [T_COORD] * 2, ("texcoord", 1): [(1, 2, 0.5, 7), (0.25, -4, 0, 3)]}
    textures = {0: T_TEXTURE}
    expect = [(1.5,) * 4, (-0.875,) * 4]
    out, _, refl = run_ps(ctx, asm, inputs, textures=textures)
    assert [s["register"] for s in refl["samplers"]] == [0]
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures)[0], expect)


def test_texdp3tex(ctx):
    asm = """ps_1_2
tex t0
texdp3tex t1, t0
mov r0, t1
"""
    # t1 = sample(stage 1, (tc1.xyz . T, 0)), T = (0.5, 0.25, 1):
    # (0.25, 0.75, 0.375) -> 0.125 + 0.1875 + 0.375 = 0.6875 -> column 5, row 0 (v = 0);
    # (-0.5, 0.5, 0.5) -> -0.25 + 0.125 + 0.5 = 0.375 -> column 3, row 0.
    # (tc1.y as v would pick rows 6 and 4.)
    inputs = {("texcoord", 0): [T_COORD] * 2, ("texcoord", 1): [(0.25, 0.75, 0.375, 0.3), (-0.5, 0.5, 0.5, 0.6)]}
    textures = {0: T_TEXTURE, 1: coord_texels(1)}
    expect = [(5, 0, 1, 11), (3, 0, 1, 11)]
    out, _, _ = run_ps(ctx, asm, inputs, textures=textures)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures)[0], expect)


# -- ps_1_4 texld _dz, texcrd _dw --------------------------------------------------------


def test_texld_dz_and_texcrd_dw(ctx):
    asm = """ps_1_4
texld r1, t0_dz.xyz
texcrd r2.rgb, t1_dw.xyw
mov r0.rg, r1
mov r0.b, r2.r
mov r0.a, r2.g
"""
    # texld: t0.xy / t0.z = (2 * 4.5/8, 2 * 2.5/8) / 2 -> texel (4, 2) of stage 1;
    #   w = 4 is a decoy (/w would give texel (2, 1)).
    # texcrd: t1.xy / t1.w = (3, -1.5) / 4 = (0.75, -0.375), not clamped; z = 5 is a decoy.
    t0 = [(2 * 4.5 / 8, 2 * 2.5 / 8, 2.0, 4.0)]
    t1 = [(3.0, -1.5, 5.0, 4.0)]
    inputs = {("texcoord", 0): t0, ("texcoord", 1): t1}
    textures = {1: coord_texels(1)}
    expect = [(4, 2, 0.75, -0.375)]
    out, _, _ = run_ps(ctx, asm, inputs, textures=textures)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures)[0], expect)


# -- source modifiers ----------------------------------------------------------------

V0 = (0.75, 0.25, 1.0, 0.1)
# (source, version, expected for v0 = V0)
SOURCE_MODIFIERS = [
    ("v0_bias", "ps_1_1", (0.25, -0.25, 0.5, -0.4)),      # r - 0.5
    ("-v0_bias", "ps_1_1", (-0.25, 0.25, -0.5, 0.4)),     # -(r - 0.5)
    ("v0_bx2", "ps_1_1", (0.5, -0.5, 1.0, -0.8)),         # 2r - 1
    ("-v0_bx2", "ps_1_1", (-0.5, 0.5, -1.0, 0.8)),        # -(2r - 1)
    ("1-v0", "ps_1_1", (0.25, 0.75, 0.0, 0.9)),           # 1 - r
    ("v0_x2", "ps_1_4", (1.5, 0.5, 2.0, 0.2)),            # 2r
    ("-v0_x2", "ps_1_4", (-1.5, -0.5, -2.0, -0.2)),       # -2r
    ("v0_bias", "ps_1_4", (0.25, -0.25, 0.5, -0.4)),
    ("-v0_bx2", "ps_1_4", (-0.5, 0.5, -1.0, 0.8)),
    ("1-v0", "ps_1_4", (0.25, 0.75, 0.0, 0.9)),
]


@pytest.mark.parametrize("src,version,expect", SOURCE_MODIFIERS, ids=[f"{v}:{s}" for s, v, _ in SOURCE_MODIFIERS])
def test_source_modifier(ctx, src, version, expect):
    # add r0, <modified v0>, c0 with c0 = (0.125, 0, -0.25, 0.5): the modifier
    # applies to v0 alone, the constant is added afterwards.
    asm = f"""{version}
def c0, 0.125, 0, -0.25, 0.5
add r0, {src}, c0
"""
    inputs = {("color", 0): [V0]}
    want = [tuple(np.array(expect) + (0.125, 0.0, -0.25, 0.5))]
    out, _, _ = run_ps(ctx, asm, inputs)
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(reference_ps(asm, inputs)[0], want, rtol=1e-6, atol=1e-7)


def test_source_modifiers_in_one_mad_and_after_the_constant_clamp(ctx):
    asm = """ps_1_4
def c0, 2, -2, 0.5, 0.25
def c1, 0.5, 0.5, 0.5, 0.5
mad r0, c0_bx2, -v0_bias, 1-c1
add r1, c0_x2, -c0_x2
add r0, r0, r1
"""
    # c0 reads clamped first: (1, -1, 0.5, 0.25); c0_bx2 = (1, -3, 0, -0.5)
    # (unclamped it would be (3, -5, 0, -0.5)).  v0 = (0.75, 0.25, 1, 0.1):
    # -v0_bias = (-0.25, 0.25, -0.5, 0.4); 1-c1 = 0.5.
    # mad = (1 * -0.25 + 0.5, -3 * 0.25 + 0.5, 0 + 0.5, -0.5 * 0.4 + 0.5) = (0.25, -0.25, 0.5, 0.3).
    # r1 = 2 c0 - 2 c0 = 0 (after the clamp, as before it).
    inputs = {("color", 0): [V0]}
    expect = [(0.25, -0.25, 0.5, 0.3)]
    out, _, _ = run_ps(ctx, asm, inputs)
    np.testing.assert_allclose(out, expect, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(reference_ps(asm, inputs)[0], expect, rtol=1e-6, atol=1e-7)


def test_x2_modifier_reads_the_clamped_constant(ctx):
    asm = """ps_1_4
def c0, 3, -0.75, 0.25, -8
mov r0, c0_x2
"""
    # clamp(c0) = (1, -0.75, 0.25, -1), then x2: (2, -1.5, 0.5, -2)
    inputs = {("color", 0): [(0, 0, 0, 0)]}
    expect = [(2.0, -1.5, 0.5, -2.0)]
    out, _, _ = run_ps(ctx, asm, inputs)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs)[0], expect)


# -- result shift before saturate ------------------------------------------------------


def test_shift_before_saturate_ps11(ctx):
    asm = """ps_1_1
def c0, 0.3, 0.8, 0.75, 0.5
mov_x4_sat r0.r, c0.r
add_d2_sat r0.g, v0.g, c0.g
mul_x2_sat r0.b, v0.b, c0.b
add_x2_sat r0.a, v0.a, c0.a
"""
    # v0 = (0, 1, 0.75, 0.25):
    # r = sat(4 * 0.3) = 1           (saturate first: 1.2)
    # g = sat((1 + 0.8) / 2) = 0.9   (saturate first: 0.5)
    # b = sat(2 * 0.75 * 0.75) = 1   (saturate first: 1.125)
    # a = sat(2 * (0.25 + 0.5)) = 1  (saturate first: 1.5)
    inputs = {("color", 0): [(0.0, 1.0, 0.75, 0.25)]}
    expect = [(1.0, 0.9, 1.0, 1.0)]
    out, _, _ = run_ps(ctx, asm, inputs)
    np.testing.assert_allclose(out, expect, rtol=1e-6)
    np.testing.assert_allclose(reference_ps(asm, inputs)[0], expect, rtol=1e-6)


def test_shift_before_saturate_ps14(ctx):
    asm = """ps_1_4
def c0, 0.3, -0.2, 0.75, 0.25
add r1, c0, c0
mov_x4_sat r0.r, c0.r
mov_d2_sat r0.g, r1.b
mov_x8_sat r0.b, c0.a
mov_d4_sat r0.a, r1.b
"""
    # r1 = 2 c0 = (0.6, -0.4, 1.5, 0.5) (intermediates are not clamped):
    # r = sat(4 * 0.3) = 1        (saturate first: 1.2)
    # g = sat(1.5 / 2) = 0.75     (saturate first: 0.5)
    # b = sat(8 * 0.25) = 1       (saturate first: 2)
    # a = sat(1.5 / 4) = 0.375    (saturate first: 0.25)
    inputs = {("color", 0): [(0, 0, 0, 0)]}
    expect = [(1.0, 0.75, 1.0, 0.375)]
    out, _, _ = run_ps(ctx, asm, inputs)
    np.testing.assert_allclose(out, expect, rtol=1e-6)
    np.testing.assert_allclose(reference_ps(asm, inputs)[0], expect, rtol=1e-6)


# -- cnd: the strict 0.5 threshold -----------------------------------------------------

HALF_UP, HALF_DOWN = 0.5 + 1 / 256, 0.5 - 1 / 256


def test_cnd_ps11_threshold_is_strictly_greater(ctx):
    asm = """ps_1_1
def c0, 1, 0, 0, 1
def c1, 0, 1, 0, 0
mov r0, v0
cnd r0, r0.a, c0, c1
"""
    # r0.a > 0.5 ? c0 : c1.  0.5 itself is not greater: c1.
    alphas = [0.5, HALF_UP, HALF_DOWN, 1.0, 0.0]
    inputs = {("color", 0): [(0.3, 0.3, 0.3, a) for a in alphas]}
    c0, c1 = (1, 0, 0, 1), (0, 1, 0, 0)
    expect = [c1, c0, c1, c0, c1]
    out, _, _ = run_ps(ctx, asm, inputs)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs)[0], expect)


def test_cnd_ps14_per_component_threshold(ctx):
    asm = """ps_1_4
def c0, 1, 1, 1, 1
def c1, -1, -1, -1, -1
mov r1, v0
cnd r0, r1, c0, c1
"""
    # per component: r1 > 0.5 ? 1 : -1
    inputs = {("color", 0): [(0.5, HALF_UP, HALF_DOWN, 1.0), (0.75, 0.5, 0.0, 0.5)]}
    expect = [(-1, 1, -1, 1), (1, -1, -1, -1)]
    out, _, _ = run_ps(ctx, asm, inputs)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs)[0], expect)


# -- co-issue: both halves read before either writes (non-cnd pairs) ---------------------

COISSUE_V0, COISSUE_V1 = (0.5, 0.25, 0.75, 0.5), (0.125, 0.375, 0.625, 1.0)
COISSUE = [
    # the .rgb half reads r0.a, which its partner writes:
    # rgb = v0.rgb * (old r0.a = v0.a = 0.5) = (0.25, 0.125, 0.375), a = v1.a = 1
    # (sequential: rgb * 1 = (0.5, 0.25, 0.75))
    ("mov r0.a, v1.a\n+mul r0.rgb, r0, r0.a", (0.25, 0.125, 0.375, 1.0)),
    # the .a half reads r0.b, which its partner writes:
    # rgb = v1.rgb, a = (old r0.b = 0.75) + 0.125 = 0.875 (sequential: 0.625 + 0.125 = 0.75)
    ("mov r0.rgb, v1\n+add r0.a, r0.b, c0.a", (0.125, 0.375, 0.625, 0.875)),
]


@pytest.mark.parametrize("version", ["ps_1_1", "ps_1_4"])
@pytest.mark.parametrize("pair,expect", COISSUE, ids=["rgb-reads-a", "a-reads-b"])
def test_coissue_reads_before_writes(ctx, version, pair, expect):
    asm = f"""{version}
def c0, 0, 0, 0, 0.125
mov r0, v0
{pair}
"""
    inputs = {("color", 0): [COISSUE_V0], ("color", 1): [COISSUE_V1]}
    out, _, _ = run_ps(ctx, asm, inputs)
    np.testing.assert_allclose(out, [expect])
    np.testing.assert_allclose(reference_ps(asm, inputs)[0], [expect])


# -- r0 is the colour output ---------------------------------------------------------------


def test_r0_is_the_colour_output_not_the_last_write(ctx):
    asm = """ps_1_1
mov r0, v0
mov r1, v1
add r1, r1, r0
mul t0, r1, v1
"""
    # The last instructions write r1 and t0 (ps_1_1 arithmetic may write t#);
    # the colour is r0 = v0 all the same.
    inputs = {("color", 0): [(0.25, 0.5, 0.75, 1.0)], ("color", 1): [(0.125, 0.125, 0.125, 0.125)]}
    expect = [(0.25, 0.5, 0.75, 1.0)]
    out, _, refl = run_ps(ctx, asm, inputs)
    assert [(o["usage"], o["usage_index"], o["register"]) for o in refl["outputs"]] == [("color", 0, 0)]
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs)[0], expect)


def test_r0_from_a_ps14_texld_alone(ctx):
    # ps_1_4 with no arithmetic: texld r0 samples stage 0 and r0 is the colour.
    asm = """ps_1_4
texld r0, t0
"""
    inputs = {("texcoord", 0): [(*texel_centre(6, 1), 0, 1), (*texel_centre(2, 7), 0, 1)]}
    textures = {0: coord_texels(0)}
    expect = [(6, 1, 0, 10), (2, 7, 0, 10)]
    out, _, _ = run_ps(ctx, asm, inputs, textures=textures)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures)[0], expect)


def test_r0_written_only_in_phase_1_ps14(ctx):
    # ps_1_4: r0 written in phase 1 (texcrd) and not again: it is still the output.
    asm = """ps_1_4
texcrd r0.rgb, t0
phase
mov r1, v0
"""
    inputs = {("texcoord", 0): [(0.25, -0.5, 2.0, 3.0)], ("color", 0): [(0.9, 0.9, 0.9, 0.9)]}
    out, _, _ = run_ps(ctx, asm, inputs)
    # rgb from t0 (not clamped); r0.a was never written (value not checked)
    np.testing.assert_allclose(out[:, :3], [(0.25, -0.5, 2.0)])
    np.testing.assert_allclose(reference_ps(asm, inputs)[0][:, :3], [(0.25, -0.5, 2.0)])
