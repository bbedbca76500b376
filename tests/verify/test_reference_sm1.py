"""Shader model 1 in the reference interpreter, against hand-computed results.

Each test names the section of shared/semantics/D3D9_SEMANTICS.md that
gives the expected value.  Pixel shaders run one 2×2 quad (n = 4) whose
lanes usually share one coordinate: the derivatives are then 0, the LOD
magnifies, and point sampling returns one texel of level 0.

The lookup textures encode their texel indices: ``ramp()`` texel (x, y) is
(x, y, 100, 1) on 8×8, ``cube()`` face f is (f, 0, 0, 1), ``volume()``
texel (x, y, z) is (x, y, z, 1) on 8×8×8.  So a sampled value names the
texel the coordinate hit; coordinates sit on texel centres, (i + 0.5) / 8.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xlate.bytecode import decode
from xlate.bytecode.asm import assemble
from xlate.errors import BytecodeError, StructureError
from xlate.verify import ReferenceConstants, SamplerState, Texture, TextureStage, run_shader

F32 = np.float32
NAN = float("nan")
N = 4  # one quad
ROOT = Path(__file__).resolve().parents[2]


def c8(i: float) -> float:
    """The centre of texel i on an 8-texel axis."""
    return (i + 0.5) / 8


def ramp() -> Texture:
    t = np.zeros((8, 8, 4), F32)
    t[..., 0] = np.arange(8)[None, :]
    t[..., 1] = np.arange(8)[:, None]
    t[..., 2] = 100
    t[..., 3] = 1
    return Texture("2d", [t])


def cube() -> Texture:
    faces = np.zeros((6, 1, 1, 4), F32)
    faces[:, 0, 0, 0] = np.arange(6)
    faces[..., 3] = 1
    return Texture("cube", [faces])


def volume() -> Texture:
    t = np.zeros((8, 8, 8, 4), F32)
    t[..., 0] = np.arange(8)[None, None, :]
    t[..., 1] = np.arange(8)[None, :, None]
    t[..., 2] = np.arange(8)[:, None, None]
    t[..., 3] = 1
    return Texture("volume", [t])


def solid(*rgba) -> Texture:
    """A 1×1 texture: every coordinate reads ``rgba``."""
    return Texture("2d", [np.array([[rgba]], F32)])


def run(src: str, *, tc=None, v=None, textures=None, stages=None, consts=None, n=N, **kw):
    """Run assembly ``src``.  ``tc``/``v``: {k: one vector or (n, k) rows} for
    texture coordinate set k / colour k (vertex shaders: v# inputs)."""
    inputs = {}
    for k, val in (tc or {}).items():
        inputs[("t", k)] = np.asarray(val, F32)
    for k, val in (v or {}).items():
        inputs[("v", k)] = np.asarray(val, F32)
    return run_shader(assemble(src), inputs, consts or ReferenceConstants(), textures or {}, n=n,
                      texture_stages=stages, **kw)


def r0(src: str, **kw) -> np.ndarray:
    """oC0 (= r0) of lane 0."""
    return run(src, **kw).outputs["oC0"][0]


def same(a, b):
    np.testing.assert_array_equal(np.asarray(a, F32), np.asarray(b, F32))


def close(a, b):
    np.testing.assert_allclose(np.asarray(a, F32), np.asarray(b, F32), rtol=1e-6, atol=1e-7)


# --------------------------------------------------------------------------
# §2.10 tex / texcoord (ps_1_1-1_3), sampler dimension, projection
# --------------------------------------------------------------------------


def test_tex_samples_stage_of_its_register_section_2_10():
    tex = {1: ramp(), 0: solid(9, 9, 9, 9)}
    same(r0("ps_1_1\ntex t1\nmov r0, t1", tc={1: (c8(3), c8(5), 0, 1)}, textures=tex), (3, 5, 100, 1))
    # an unbound stage reads (0, 0, 0, 1)
    same(r0("ps_1_1\ntex t2\nmov r0, t2", tc={2: (0.5, 0.5, 0, 1)}, textures=tex), (0, 0, 0, 1))


def test_tex_dimension_from_bound_texture_section_2_10():
    # cube: the direction's major axis (−y) picks face 3; volume uses .xyz
    same(r0("ps_1_1\ntex t0\nmov r0, t0", tc={0: (0.1, -2, 0.3, 1)}, textures={0: cube()}), (3, 0, 0, 1))
    same(r0("ps_1_1\ntex t0\nmov r0, t0", tc={0: (c8(1), c8(6), c8(2), 1)}, textures={0: volume()}), (1, 6, 2, 1))
    # the same coordinate on a 2D texture ignores .z
    same(r0("ps_1_1\ntex t0\nmov r0, t0", tc={0: (c8(1), c8(6), c8(2), 1)}, textures={0: ramp()}), (1, 6, 100, 1))


def test_tex_projected_divides_by_w_section_2_10():
    coord = (2 * c8(3), 2 * c8(5), 0, 2)
    src = "ps_1_1\ntex t1\nmov r0, t1"
    same(r0(src, tc={1: coord}, textures={1: ramp()}, stages={1: TextureStage(projected=True)}), (3, 5, 100, 1))
    # without the flag: u = 0.875 -> texel 7, v = 1.375 wraps to texel 3
    same(r0(src, tc={1: coord}, textures={1: ramp()}), (7, 3, 100, 1))
    # the flag of another stage does not apply
    same(r0(src, tc={1: coord}, textures={1: ramp()}, stages={0: TextureStage(projected=True)}), (7, 3, 100, 1))


def test_texcoord_saturates_and_sets_w_section_2_10():
    same(r0("ps_1_1\ntexcoord t0\nmov r0, t0", tc={0: (-0.5, 0.25, 3, 7)}), (0, 0.25, 1, 1))
    same(r0("ps_1_3\ntexcoord t2\nmov r0, t2", tc={2: (NAN, 1, 0.5, -4)}), (0, 1, 0.5, 1))


def test_texcoord_sets_initialise_t_registers_section_2_11():
    # texm3x2pad does not write t1: it keeps reading texture coordinate set 1
    # (wined3d's T# initialisation, §2.11 implementation note).
    r = r0("ps_1_1\ntex t0\ntexm3x2pad t1, t0\ntexm3x2tex t2, t0\nmov r0, t1",
           tc={1: (0.25, 0.5, 0.75, 2)}, textures={0: solid(0, 0, 0, 0)})
    same(r, (0.25, 0.5, 0.75, 2))
    # ps_1_4 t# are the coordinates themselves
    same(r0("ps_1_4\ntexcrd r0, t3", tc={3: (-2, 3, 0.5, 7)}), (-2, 3, 0.5, 7))


# --------------------------------------------------------------------------
# §2.12 texkill
# --------------------------------------------------------------------------


def test_texkill_ps11_tests_texcoord_set_xyz_section_2_12():
    rows = np.array([[1, 1, 1, 1], [1, 1, 1, -1], [-0.1, 0, 0, 0], [0, -0.0, 0, 0]], F32)
    r = run("ps_1_1\ntexkill t1\nmov r0, v0", tc={1: rows}, v={0: np.ones((4, 4), F32)})
    same(r.killed, [False, False, True, False])  # w ignored, −0 is not < 0
    same(r.outputs["oC0"], np.ones((4, 4)))  # killed pixels keep running (demote)


def test_texkill_ps11_reads_the_coordinate_not_the_register_section_2_12():
    # texcoord saturates t1 to >= 0, yet texkill t1 tests the raw set 1
    r = run("ps_1_1\ntexcoord t1\ntexkill t1\nmov r0, t1", tc={1: (-0.5, 0.5, 0.5, 1)})
    same(r.killed, [True] * 4)
    same(r.outputs["oC0"][0], (0, 0.5, 0.5, 1))


def test_texkill_ps14_tests_register_xyz_section_2_12():
    # lane 0: raw coordinate negative, register (after _dw) positive: alive;
    # lane 1: raw positive, register negative: killed; lane 2: only .a < 0
    rows = np.array([[-1, -2, 3, -1], [1, 2, 3, -1], [1, 1, 1, 1], [1, 1, 1, 1]], F32)
    r = run("ps_1_4\ntexcrd r1.rgb, t1_dw.xyw\ntexkill r1\nmov r0, r1", tc={1: rows})
    same(r.killed[:2], [False, True])
    src = "ps_1_4\ndef c0, 1, 1, 1, 1\ntexcrd r1.rgb, t1\nmov r1.a, -c0.a\nphase\ntexkill r1\nmov r0, r1"
    r = run(src, tc={1: rows})
    same(r.killed, [True, False, False, False])  # r1 = t1.xyz: the w = −1 is ignored


# --------------------------------------------------------------------------
# §2.11 ps_1_1-1_3 texture-address ops
# --------------------------------------------------------------------------

BUMP = TextureStage(bump_env_mat=(0.5, 0.25, 0.25, -0.5))  # M00, M01, M10, M11
DUDV = solid(0.25, -0.5, 0.8, 1)  # stage 0: du = 0.25, dv = −0.5, luminance 0.8


def test_texbem_section_2_11():
    # u' = tc.x + M00·r + M10·g = 0.1875 + 0.125 − 0.125 = 0.1875 -> texel 1
    # v' = tc.y + M01·r + M11·g = 0.3125 + 0.0625 + 0.25 = 0.625 -> texel 5
    src = "ps_1_1\ntex t0\ntexbem t1, t0\nmov r0, t1"
    tex = {0: DUDV, 1: ramp()}
    same(r0(src, tc={1: (c8(1), c8(2), 0, 1)}, textures=tex, stages={1: BUMP}), (1, 5, 100, 1))
    # the matrix is stage m's (m = 1): stage 0's matrix is not used
    same(r0(src, tc={1: (c8(1), c8(2), 0, 1)}, textures=tex, stages={0: BUMP}), (1, 2, 100, 1))


def test_texbem_projection_divides_only_the_coordinate_section_2_11():
    # tc / w = (0.1875, 0.3125) then + displacement: texel (1, 5) again.
    # Dividing the displaced value would give v = 0.46875 -> texel 3.
    stages = {1: TextureStage(projected=True, bump_env_mat=BUMP.bump_env_mat)}
    r = r0("ps_1_1\ntex t0\ntexbem t1, t0\nmov r0, t1", tc={1: (2 * c8(1), 2 * c8(2), 0, 2)},
           textures={0: DUDV, 1: ramp()}, stages=stages)
    same(r, (1, 5, 100, 1))


def test_texbem_bx2_source_section_2_11():
    # ps_1_2+: t0_bx2 = 2·t0 − 1 = (0.25, −0.5) from t0 = (0.625, 0.25)
    r = r0("ps_1_2\ntex t0\ntexbem t1, t0_bx2\nmov r0, t1", tc={1: (c8(1), c8(2), 0, 1)},
           textures={0: solid(0.625, 0.25, 0, 1), 1: ramp()}, stages={1: BUMP})
    same(r, (1, 5, 100, 1))


def test_texbeml_luminance_clamped_section_2_11():
    src = "ps_1_1\ntex t0\ntexbeml t1, t0\nmov r0, t1"
    tex = {0: DUDV, 1: ramp()}

    def lum(scale, offset):
        st = TextureStage(bump_env_mat=BUMP.bump_env_mat, bump_env_lscale=scale, bump_env_loffset=offset)
        return r0(src, tc={1: (c8(1), c8(2), 0, 1)}, textures=tex, stages={1: st})

    same(lum(0.5, 0.1), np.array([1, 5, 100, 1], F32) * F32(0.5))  # 0.8·0.5 + 0.1
    same(lum(10, 10), (1, 5, 100, 1))  # 18 clamps to 1: the texel unchanged
    same(lum(1, -2), (0, 0, 0, 0))  # −1.2 clamps to 0
    same(lum(0, 0), (0, 0, 0, 0))  # D3D9's default luminance scale is 0


def test_texreg2ar_texreg2gb_section_2_11():
    tex = {0: solid(c8(3), c8(5), c8(6), c8(1)), 1: ramp(), 2: ramp()}
    r = run("ps_1_1\ntex t0\ntexreg2ar t1, t0\ntexreg2gb t2, t0\nmov r0, t1\nmov r1, t2", textures=tex)
    same(r.outputs["oC0"][0], (1, 3, 100, 1))  # (a, r)
    r = run("ps_1_1\ntex t0\ntexreg2ar t1, t0\ntexreg2gb t2, t0\nmov r0, t2", textures=tex)
    same(r.outputs["oC0"][0], (5, 6, 100, 1))  # (g, b)


def test_texreg2rgb_section_2_11():
    tex = {0: solid(c8(3), c8(5), c8(6), c8(1))}
    src = "ps_1_2\ntex t0\ntexreg2rgb t1, t0\nmov r0, t1"
    same(r0(src, textures={**tex, 1: volume()}), (3, 5, 6, 1))
    same(r0(src, textures={**tex, 1: ramp()}), (3, 5, 100, 1))  # 2D takes .rg


# N = t0_bx2 = (0.5, 0.25, 1) for the texm3x* tests
NORMAL = solid(0.75, 0.625, 1, 1)


def test_texm3x2pad_texm3x2tex_section_2_11():
    # u = tc1·N = 0.125 + 0.125 + 0.0625 = 0.3125 -> texel 2; v = tc2·N = 0.75 -> texel 6
    r = r0("ps_1_1\ntex t0\ntexm3x2pad t1, t0_bx2\ntexm3x2tex t2, t0_bx2\nmov r0, t2",
           tc={1: (0.25, 0.5, 0.0625, 9), 2: (0, 1, 0.5, 9)}, textures={0: NORMAL, 2: ramp()})
    same(r, (2, 6, 100, 1))


def test_texm3x2depth_section_2_11():
    # z = tc1·N, w = tc2·N; depth = z / w, w == 0 -> 1, clamped to [0, 1]
    tc1 = np.array([[0.25, 0.5, 0.0625, 0], [1, 0, 0, 0], [1, 0, 0, 0], [-1, 0, 0, 0]], F32)
    tc2 = np.array([[0, 1, 0.5, 0], [0, 0, 0, 0], [0.25, 0, 0, 0], [1, 0, 0, 0]], F32)
    r = run("ps_1_3\ntex t0\ntexm3x2pad t1, t0_bx2\ntexm3x2depth t2, t0_bx2\nmov r0, t2",
            tc={1: tc1, 2: tc2}, textures={0: NORMAL})
    close(r.outputs["oDepth"][:, 0], [0.3125 / 0.75, 1, 1, 0])
    # texm3x2depth writes the depth, not t2 (t2 still reads its coordinate set)
    same(r.outputs["oC0"], tc2)
    assert r.last_writer("oDepth", 0, 0).opcode.name == "TEXM3x2DEPTH"


ROWS = {1: (1, 0, 0, -0.5), 2: (0, -4, 0, 0), 3: (0, 0, 0.1, 0.5)}  # N·rows = (0.5, −1, 0.1)


def test_texm3x3pad_texm3x3_section_2_11():
    r = r0("ps_1_2\ntex t0\ntexm3x3pad t1, t0_bx2\ntexm3x3pad t2, t0_bx2\ntexm3x3 t3, t0_bx2\nmov r0, t3",
           tc=ROWS, textures={0: NORMAL})
    close(r, (0.5, -1, 0.1, 1))  # w = 1.0, no sampling


def test_texm3x3tex_section_2_11():
    r = r0("ps_1_1\ntex t0\ntexm3x3pad t1, t0_bx2\ntexm3x3pad t2, t0_bx2\ntexm3x3tex t3, t0_bx2\nmov r0, t3",
           tc=ROWS, textures={0: NORMAL, 3: cube()})
    same(r, (3, 0, 0, 1))  # (0.5, −1, 0.1): face −Y
    r = r0("ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3tex t3, t0\nmov r0, t3",
           tc={1: (c8(2), 0, 0, 0), 2: (0, c8(7), 0, 0), 3: (0, 0, c8(4), 0)},
           textures={0: solid(1, 1, 1, 1), 3: volume()})
    same(r, (2, 7, 4, 1))  # the rows in order x, y, z


SPEC_ROWS = {1: (0, 0, 0, -0.5), 2: (0, 0, 0, 0), 3: (2, 0, 0, 0.5)}  # N = (0, 0, 2)


def test_texm3x3spec_section_2_11():
    # N = (0, 0, 2), E = c0 = (−0.5, 0, 0.5): R = 2·(N·E)/(N·N)·N − E
    # = 2·1/4·(0, 0, 2) − E = (0.5, 0, 0.5) -> volume texel (4, 0, 4).
    # (Normalising E first would give (0.707, 0, 0.707) -> texel (5, 0, 5).)
    src = ("ps_1_1\ndef c0, -0.5, 0, 0.5, 0\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\n"
           "texm3x3spec t3, t0, c0\nmov r0, t3")
    same(r0(src, tc=SPEC_ROWS, textures={0: solid(1, 0.5, 0.5, 1), 3: volume()}), (4, 0, 4, 1))


def test_texm3x3vspec_section_2_11():
    # E = (tc1.w, tc2.w, tc3.w) = (−0.5, 0, 0.5): the same reflection
    src = "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3vspec t3, t0\nmov r0, t3"
    same(r0(src, tc=SPEC_ROWS, textures={0: solid(1, 0.5, 0.5, 1), 3: volume()}), (4, 0, 4, 1))
    # a cube map sees the direction: major axis +x and +z tie -> z wins, face 4
    same(r0(src, tc=SPEC_ROWS, textures={0: solid(1, 0.5, 0.5, 1), 3: cube()}), (4, 0, 0, 1))


def test_texm3x3_without_pads_is_an_error():
    with pytest.raises(StructureError):
        run("ps_1_1\ntex t0\ntexm3x3tex t3, t0\nmov r0, t3")


def test_texdp3_section_2_11():
    # tc1·N = 0.5·0.5 + 2·0.25 + 0.25·1 = 1.0, replicated
    same(r0("ps_1_2\ntex t0\ntexdp3 t1, t0_bx2\nmov r0, t1", tc={1: (0.5, 2, 0.25, 9)}, textures={0: NORMAL}),
         (1, 1, 1, 1))


def test_texdp3tex_section_2_11():
    # u = tc1·N = 0.3125 -> texel 2; v = 0 -> texel 0
    same(r0("ps_1_2\ntex t0\ntexdp3tex t1, t0_bx2\nmov r0, t1", tc={1: (0.25, 0.5, 0.0625, 0)},
            textures={0: NORMAL, 1: ramp()}), (2, 0, 100, 1))


# --------------------------------------------------------------------------
# ps_1_4: texld, texcrd, bem, texdepth, phase (§2.10-2.12)
# --------------------------------------------------------------------------


def test_ps14_texld_stage_is_destination_number_section_2_10():
    tex = {0: solid(9, 9, 9, 9), 2: ramp()}
    same(r0("ps_1_4\ntexld r2, t0\nmov r0, r2", tc={0: (c8(3), c8(4), 0, 1)}, textures=tex), (3, 4, 100, 1))


def test_ps14_texld_dz_dw_section_2_10():
    tex = {0: ramp()}
    same(r0("ps_1_4\ntexld r0, t1_dz", tc={1: (2 * c8(1), 2 * c8(6), 2, 9)}, textures=tex), (1, 6, 100, 1))
    same(r0("ps_1_4\ntexld r0, t1_dw.xyw", tc={1: (4 * c8(5), 4 * c8(2), 9, 4)}, textures=tex), (5, 2, 100, 1))
    # the projected flag does not apply to ps_1_4
    same(r0("ps_1_4\ntexld r0, t1", tc={1: (c8(1), c8(2), 0, 2)}, textures=tex,
            stages={0: TextureStage(projected=True)}), (1, 2, 100, 1))


def test_ps14_texld_from_temp_in_phase_2_section_2_10():
    src = "ps_1_4\ntexcrd r1.rgb, t1\nphase\ntexld r3, r1\nmov r0, r3"
    same(r0(src, tc={1: (c8(2), c8(3), c8(4), 0)}, textures={3: volume()}), (2, 3, 4, 1))
    same(r0(src, tc={1: (1, 0.2, -0.1, 0)}, textures={3: cube()}), (0, 0, 0, 1))  # +X face


def test_ps14_texcrd_not_clamped_section_2_10():
    same(r0("ps_1_4\ntexcrd r0.rgb, t1", tc={1: (-2, 3, 0.5, 7)}), (-2, 3, 0.5, 0))
    same(r0("ps_1_4\ntexcrd r0.rg, t1_dw.xyw", tc={1: (-2, 3, 0.5, 4)}), (-0.5, 0.75, 0, 0))


def test_ps14_bem_section_2_11():
    # r1 = (0.25, 0.5, 0.75), r0 (from stage 0) = (0.25, −0.5); stage 2's matrix
    # d.r = 0.25 + 0.5·0.25 + 0.25·(−0.5) = 0.25; d.g = 0.5 + 0.25·0.25 − 0.5·(−0.5) = 0.8125
    src = "ps_1_4\ntexld r0, t0\ntexcrd r1.rgb, t1\nmov r2.b, r1\nbem r2.rg, r1, r0\nmov r0, r2"
    r = r0(src, tc={1: (0.25, 0.5, 0.75, 0)}, textures={0: DUDV}, stages={2: BUMP})
    same(r, (0.25, 0.8125, 0.75, 0))
    r = r0(src, tc={1: (0.25, 0.5, 0.75, 0)}, textures={0: DUDV}, stages={0: BUMP})
    same(r, (0.25, 0.5, 0.75, 0))  # stage 0's matrix is not bem r2's


def test_ps14_texdepth_section_2_12():
    rows = np.array([[0.5, 2, 0, 0], [3, 0, 0, 0], [-1, 2, 0, 0], [3, 2, 0, 0]], F32)
    r = run("ps_1_4\ntexcrd r5.rgb, t0\nphase\ntexdepth r5\nmov r0, r5", tc={0: rows})
    same(r.outputs["oDepth"][:, 0], [0.25, 1, 0, 1])  # g == 0 -> 1, clamped
    same(r.outputs["oC0"][:, :3], rows[:, :3])  # r5 is not changed


def test_ps14_phase_keeps_values_section_2_12():
    src = "ps_1_4\ndef c0, 0.1, 0.2, 0.3, 0.4\nmov r1, c0\nphase\nmov r0, r1"
    same(r0(src), (0.1, 0.2, 0.3, 0.4))  # alpha survives, as with every peer


# --------------------------------------------------------------------------
# §2.6 cnd, §3.6 co-issue (Wine cnd_test shapes)
# --------------------------------------------------------------------------

CND_CONSTS = ReferenceConstants(floats={1: (0, 1, 0, 0), 2: (1, 0, 1, 1)})


def test_cnd_ps11_threshold_is_strict_section_2_6():
    col = np.array([[0, 0, 0, 0.5], [0, 0, 0, 0.51], [0, 0, 0, 0.49], [0, 0, 0, 1]], F32)
    r = run("ps_1_1\nmov r0, v0\ncnd r0, r0.a, c1, c2", v={0: col}, consts=CND_CONSTS)
    same(r.outputs["oC0"], [[1, 0, 1, 1], [0, 1, 0, 0], [1, 0, 1, 1], [0, 1, 0, 0]])


def test_cnd_ps14_per_component_section_2_6():
    r = r0("ps_1_4\ntexcrd r1, t0\ncnd r0, r1, c1, c2", tc={0: (0.6, 0.5, 0.4, 1)}, consts=CND_CONSTS)
    same(r, (0, 0, 1, 0))  # x: 0.6 > 0.5 -> c1.x; y, z -> c2; w -> c1.w


def test_ps1_constants_clamped_before_cnd_section_3_5():
    # API c1 = 2 reads as 1; cnd picks it unchanged
    r = r0("ps_1_1\nmov r0, v0\ncnd r0, r0.a, c1, c2", v={0: (0, 0, 0, 1)},
           consts=ReferenceConstants(floats={1: (2, -3, 0.5, 1)}))
    same(r, (1, -1, 0.5, 1))


def test_coissue_reads_before_writes_section_3_6():
    # both read the old r0: rgb = old a, a = old r (sequential would give a = 0.9)
    r = r0("ps_1_1\nmov r0, v0\nmov r0.rgb, r0.a\n+mov r0.a, r0.r", v={0: (0.1, 0.2, 0.3, 0.9)})
    close(r, (0.9, 0.9, 0.9, 0.1))
    # the order of the pair does not matter either
    r = r0("ps_1_1\nmov r0, v0\nmov r0.a, r0.r\n+mov r0.rgb, r0.a", v={0: (0.1, 0.2, 0.3, 0.9)})
    close(r, (0.9, 0.9, 0.9, 0.1))
    # ps_1_4 too, with a result shift on one half
    r = r0("ps_1_4\ntexcrd r1, t0\nmov r0, r1\nadd_x2 r0.rgb, r0, r0.a\n+mov r0.a, r0.g", tc={0: (0.1, 0.2, 0.3, 0.5)})
    close(r, (1.2, 1.4, 1.6, 0.2))


def test_coissue_trace_names_each_writer_section_3_6():
    r = run("ps_1_1\nmov r0, v0\nmov r0.rgb, r0.a\n+mov r0.a, r0.r", v={0: (0.1, 0.2, 0.3, 0.9)})
    ins = r.instructions
    same(r.trace["oC0"][0], [len(ins) - 2] * 3 + [len(ins) - 1])


# Wine dlls/d3d9/tests/visual.c cnd_test: texcoord u runs 0..1 across the quad;
# the probes sit at u ≈ 0.494 / 0.506 (and 0.744 / 0.756 for the _2 shaders).
WINE_COISSUE_11 = """ps_1_1
def c0, 1, 0, 0, 0
def c3, 0.5, 0.5, 0.5, 0
texcoord t0
mov r0, t0
sub r0, r0, c3
add r1, c0, c0
dp3 r1, r0, r1
mov r0.a, r1.a
+cnd r0.xyz, r0.a, c1, c2
"""


def _uv(us, vs=None):
    rows = np.zeros((len(us), 2), F32)
    rows[:, 0] = us
    rows[:, 1] = vs if vs is not None else 0
    return rows  # a float2 texcoord: z = 0, w = 1 are filled in (§5.1)


def test_wine_cnd_plain_section_2_6():
    src = "ps_1_1\ndef c0, 1, 0, 0, 0\ntexcoord t0\nmov r0, t0\ndp3 r1, r0, c0\nmov r0.a, r1.a\ncnd r0, r0.a, c1, c2"
    consts = ReferenceConstants(floats={1: (0, 0, 0, 0), 2: (1, 1, 1, 1)})
    r = run(src, tc={0: _uv([0.494, 0.506, 0.494, 0.506])}, consts=consts)
    same(r.outputs["oC0"][:, :3], [[1] * 3, [0] * 3, [1] * 3, [0] * 3])  # 0x00ffffff / 0x00000000


@pytest.mark.parametrize("version", ["ps_1_1", "ps_1_2", "ps_1_3"])
def test_wine_cnd_coissued_rgb_section_2_6(version):
    # Before the pair r0.a = t0.a − c3.a = 1 − 0 = 1 > 0.5: read-before-write
    # selects c1 = green at every pixel, as Windows does (0x0000ff00); r0.a
    # then holds 2·(u − 0.5).
    us = [0.25, 0.494, 0.506, 0.75]
    r = run(WINE_COISSUE_11.replace("ps_1_1", version), tc={0: _uv(us)}, consts=CND_CONSTS)
    want = np.array([[0, 1, 0, 2 * (F32(u) - F32(0.5))] for u in us], F32)
    close(r.outputs["oC0"], want)


@pytest.mark.parametrize("version", ["ps_1_1", "ps_1_2", "ps_1_3"])
def test_wine_cnd_coissued_alpha_section_2_6(version):
    # shader_code_1x_coissue_2: the .a cnd sees r0.a = 2·(u − 0.5) (its
    # partner writes only .xyz): u = 0.744 -> 0.488 -> c2.a = 1 (white),
    # u = 0.756 -> 0.512 -> c1.a = 0 (black).
    src = WINE_COISSUE_11.replace("ps_1_1", version).replace(
        "mov r0.a, r1.a\n+cnd r0.xyz, r0.a, c1, c2\n",
        "mov r0, r1\nmov r0.xyz, r1.a\n+cnd r0.a, r0.a, c1, c2\nmov r0.xyz, r0.a\n")
    r = run(src, tc={0: _uv([0.744, 0.756, 0.744, 0.756])}, consts=CND_CONSTS)
    same(r.outputs["oC0"], [[1] * 4, [0] * 4, [1] * 4, [0] * 4])


def test_wine_cnd_coissued_ps14_section_2_6():
    # shader_code_14_coissue: per component on the texcrd value (u, v, 0):
    # Windows probes 0x00ffffff, 0x0000ffff, 0x00ff00ff, 0x000000ff.
    src = "ps_1_4\ndef c0, 0, 0, 0, 1\ntexcrd r0.xyz, t0\nmov r0.a, c0.a\n+cnd r0.xyz, r0, c1, c2"
    r = run(src, tc={0: _uv([0.494, 0.506, 0.494, 0.506], [0.508, 0.508, 0.49, 0.49])}, consts=CND_CONSTS)
    same(r.outputs["oC0"], [[1, 1, 1, 1], [0, 1, 1, 1], [1, 0, 1, 1], [0, 0, 1, 1]])
    # shader_code_14_coissue_2: r1.a = (u > 0.5) ? c1.a : c2.a, copied to rgb
    src = ("ps_1_4\ndef c0, 0, 0, 0, 1\ntexcrd r0.xyz, t0\nmov r0.a, r0.x\nmov r1.xyz, c0.a\n"
           "+cnd r1.a, r0.a, c1, c2\nmov r0.xyz, r1.a\nmov r0.a, c0.a")
    r = run(src, tc={0: _uv([0.494, 0.506, 0.494, 0.506])}, consts=CND_CONSTS)
    same(r.outputs["oC0"], [[1, 1, 1, 1], [0, 0, 0, 1], [1, 1, 1, 1], [0, 0, 0, 1]])


# --------------------------------------------------------------------------
# §5.6 ps_1_x colour output
# --------------------------------------------------------------------------


def test_ps1_colour_is_r0_section_5_6():
    r = run("ps_1_1\ndef c0, 0.5, 0.5, 0.5, 0.5\nmul r0, v0, c0\nmul_x4 r1, v0, c0\nadd r0.a, r1, r1",
            v={0: (1, 0.5, 0, 1)})
    same(r.outputs["oC0"][0], (0.5, 0.25, 0, 4))  # not clamped: the target does that
    ins = r.instructions
    assert r.last_writer("oC0", 0, 0) is ins[-3] and r.last_writer("oC0", 0, 3) is ins[-1]


# --------------------------------------------------------------------------
# vs_1_1: mov a0 (§2.9), c[a0.x + n] (§1.6), expp (§2.2)
# --------------------------------------------------------------------------


def test_vs11_mov_a0_floors_and_indexes_section_2_9():
    consts = ReferenceConstants(floats={k: (k, -k, 0, 1) for k in range(96)})
    src = "vs_1_1\ndcl_position v0\nmov a0.x, v0.x\nmov oT0, c[a0.x + 2]\nmov oPos, v0"
    pos = np.array([[1.9, 0, 0, 1], [-0.5, 0, 0, 1], [-2.5, 0, 0, 1], [300, 0, 0, 1]], F32)
    r = run(src, v={0: pos}, consts=consts)
    # floor: 1.9 -> 1, −0.5 -> −1, −2.5 -> −3 (out of range: 0), 300 -> outside c0-c255
    same(r.outputs["oT0"], [[3, -3, 0, 1], [1, -1, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]])


def test_vs11_relative_reads_def_section_1_6():
    src = "vs_1_1\ndcl_position v0\ndef c10, 5, 6, 7, 8\nmov a0.x, v0.x\nmov oT0, c[a0.x + 7]\nmov oPos, v0"
    r = run(src, v={0: (3.2, 0, 0, 1)}, n=1)
    same(r.outputs["oT0"][0], (5, 6, 7, 8))


def test_vs11_expp_four_components_section_2_2():
    src = "vs_1_1\ndcl_position v0\nexpp oT0, v0.x\nexpp oT1, v0.y\nmov oPos, v0"
    r = run(src, v={0: (2.5, -1.25, 0, 1)}, n=1)
    close(r.outputs["oT0"][0], (4, 0.5, 2 ** 2.5, 1))  # 2^floor, frac, 2^x, 1
    close(r.outputs["oT1"][0], (0.25, 0.75, 2 ** -1.25, 1))
    # a partial mask writes only its components
    r = run("vs_1_1\ndcl_position v0\nmov oT0, v0.w\nexpp oT0.yz, v0.x\nmov oPos, v0", v={0: (2.5, 0, 0, 1)}, n=1)
    close(r.outputs["oT0"][0], (1, 0.5, 2 ** 2.5, 1))


# --------------------------------------------------------------------------
# Every SM1 shader of the project corpus and of Wine's tests runs
# --------------------------------------------------------------------------


def _random_texture(rng, kind: str) -> Texture:
    filt = "linear" if rng.random() < 0.5 else "point"
    sampler = SamplerState(mag_filter=filt, min_filter=filt, mip_filter="point")
    if kind == "cube":
        return Texture("cube", [rng.random((6, 4, 4, 4), dtype=F32), rng.random((6, 2, 2, 4), dtype=F32)], sampler)
    if kind == "volume":
        return Texture("volume", [rng.random((4, 4, 4, 4), dtype=F32), rng.random((2, 2, 2, 4), dtype=F32)], sampler)
    return Texture("2d", [rng.random((4, 4, 4), dtype=F32), rng.random((2, 2, 4), dtype=F32)], sampler)


def run_random(shader, seed: int, n: int = 16):
    """Run ``shader`` on random inputs, constants, textures and stage state."""
    rng = np.random.default_rng(seed)
    consts = ReferenceConstants(floats=rng.uniform(-2, 2, (256, 4)).astype(F32))
    inputs = {}
    if shader.version.is_vertex:
        for k in range(16):
            inputs[("v", k)] = rng.uniform(-2, 2, (n, 4)).astype(F32)
        return run_shader(shader, inputs, consts, {}, n=n)
    for k in range(8):
        inputs[("t", k)] = rng.uniform(-0.5, 1.5, (n, 4)).astype(F32)
    for k in range(2):
        inputs[("v", k)] = rng.random((n, 4), dtype=F32)
    kinds = ("2d", "cube", "volume")
    textures = {k: _random_texture(rng, kinds[rng.integers(3)]) for k in range(8)}
    stages = {
        k: TextureStage(
            projected=bool(rng.random() < 0.3),
            bump_env_mat=tuple(rng.uniform(-1, 1, 4)),
            bump_env_lscale=float(rng.uniform(0, 2)),
            bump_env_loffset=float(rng.uniform(-0.5, 0.5)),
        )
        for k in range(8)
    }
    return run_shader(shader, inputs, consts, textures, n=n, texture_stages=stages)


def _check_result(r, shader, n=16):
    if shader.version.is_vertex:
        assert "oPos" in r.outputs
    else:
        assert r.outputs["oC0"].shape == (n, 4)
    for name, value in r.outputs.items():
        assert value.shape == (n, 4) and value.dtype == F32, name


SM1_DIRS = ("vs_1_1", "ps_1_1", "ps_1_2", "ps_1_3", "ps_1_4")


def test_project_corpus_sm1_runs(record_property):
    paths = sorted(p for d in SM1_DIRS for p in (ROOT / "corpus" / d).glob("*.asm"))
    assert paths, "no SM1 corpus shaders found"
    for i, path in enumerate(paths):
        shader = assemble(path.read_text())
        _check_result(run_random(shader, seed=i), shader)
    summary = f"reference sm1: {len(paths)}/{len(paths)} project corpus shaders ran on random inputs"
    print(summary)
    record_property("corpus_summary", summary)


def test_wine_sm1_shaders_run(record_property):
    from corpus import wine_shader_records

    records = [rec for rec in wine_shader_records() if rec.complete and rec.version[3] == "1"]
    assert records, "no SM1 Wine shaders"
    ran = rejected = 0
    for i, rec in enumerate(records):
        try:
            shader = decode(rec.data)
        except BytecodeError:
            rejected += 1  # deliberately invalid (device.c's ps_1_8): test_decode_corpus checks it
            continue
        _check_result(run_random(shader, seed=1000 + i), shader)
        ran += 1
    assert ran >= 120
    summary = (f"reference sm1: {ran}/{len(records)} wine/shaders.jsonl SM1 shaders ran on random inputs "
               f"({rejected} rejected by the decoder)")
    print(summary)
    record_property("corpus_summary", summary)
