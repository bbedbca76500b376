"""texture_sm1: ps_1_x texture-address ops (semantics §2.10-2.12), co-issue (§3.6),
the ps_1_x constant clamp (§3.5), and every sm1 shader of the corpora to valid core IR.

Expected values are worked out by hand from the semantics tables; the
sampler stub returns a fixed texel per stage and records what it was asked.
"""

from __future__ import annotations

import collections
import glob
import os

import numpy as np
import pytest

from xlate.bytecode import decode
from xlate.bytecode.tables import DeclUsage, SamplerType
from xlate.errors import XlateError
from xlate.ir.builder import lift
from xlate.ir.ops import Code, SampleKind
from xlate.ir.program import Storage
from xlate.ir.validate import validate
from xlate.options import Options
from xlate.passes import PIPELINE, run_passes

from .conftest import d3d_ops, lift_asm, lower, ops_of, run_asm
from .ireval import evaluate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Sampler:
    """A texture stub: ``texels[stage]`` (default 0), records (stage, kind, coord)."""

    def __init__(self, **texels):
        self.texels = {int(k[1:]): np.float32(v) for k, v in texels.items()}
        self.calls = []

    def __call__(self, op, args):
        stage = op.var.register[1]
        self.calls.append((stage, op.imm[1], [float(x) for x in args[0]]))
        return self.texels.get(stage, np.zeros(4, np.float32))

    def coord(self, stage):
        (found,) = [c for s, _, c in self.calls if s == stage]
        return found


def run(text, inputs=None, options=None, sampler=None):
    sampler = sampler or Sampler()
    out = run_asm(text, inputs, options=options, sampler=sampler)
    return out, sampler


def stores_to(program, name):
    return [op for _, op in program.all_ops() if op.code is Code.STORE and op.var.name == name]


def approx(values):
    return pytest.approx(values, rel=1e-6, abs=1e-6)


# -- tex, texcoord, texkill ------------------------------------------------------------


def test_tex_samples_its_stage_with_the_coordinate_set():
    out, s = run("ps_1_1\ntex t2\nmov r0, t2\n", {"texcoord2": (0.25, 0.5, 0.75, 2)},
                 sampler=Sampler(s2=(1, 2, 3, 4)))
    assert s.calls == [(2, SamplerType.TEX2D, [0.25, 0.5])]
    assert list(out["t2"]) == [1, 2, 3, 4] and list(out["r0"]) == [1, 2, 3, 4]


@pytest.mark.parametrize("stype, coord", [(SamplerType.CUBE, [0.25, 0.5, 0.75]), (SamplerType.VOLUME, [0.25, 0.5, 0.75])])
def test_tex_sampler_dimension_comes_from_options(stype, coord):
    options = Options(sampler_types=((2, stype),))
    _, s = run("ps_1_1\ntex t2\nmov r0, t2\n", {"texcoord2": (0.25, 0.5, 0.75, 2)}, options=options)
    assert s.calls == [(2, stype, coord)]
    assert lower("ps_1_1\ntex t2\nmov r0, t2\n", options=options).notes["draw_state"]["samplers"] == {2: stype.asm}


@pytest.mark.parametrize("count, stype, coord", [
    (4, SamplerType.TEX2D, [0.5, 1.0]),        # divide by w
    (3, SamplerType.TEX2D, [1 / 3, 2 / 3]),    # COUNT3: by z
    (2, SamplerType.TEX2D, [0.5, 1.0]),        # COUNT2: by y (x/y, y/y)
    (4, SamplerType.CUBE, [0.5, 1.0, 1.5]),    # cube stages too (dxbc-spirv, the reference interpreter)
])
def test_tex_projection_option(count, stype, coord):
    options = Options(texture_projection=((0, count),), sampler_types=((0, stype),))
    _, s = run("ps_1_1\ntex t0\nmov r0, t0\n", {"texcoord0": (1, 2, 3, 2)}, options=options)
    assert s.coord(0) == approx(coord)
    _, s = run("ps_1_1\ntex t0\nmov r0, t0\n", {"texcoord0": (1, 2, 3, 2)})  # not projected by default
    assert s.coord(0) == [1, 2]


def test_texcoord_saturates_and_sets_w_to_one():
    out, _ = run("ps_1_1\ntexcoord t1\nmov r0, t1\n", {"texcoord1": (1.5, -0.5, 0.25, 7)})
    assert list(out["t1"]) == [1, 0, 0.25, 1]


@pytest.mark.parametrize("coord, killed", [
    ((0.5, 0.5, 0.5, 0.5), False), ((0.5, -0.1, 0.5, 0.5), True), ((0, 0, -2, 0), True),
    ((0.5, 0.5, 0.5, -1), False),  # w is not tested in ps_1_x
])
def test_texkill_ps11_tests_the_coordinate_set(coord, killed):
    text = "ps_1_1\ntex t0\ntexkill t1\nmov r0, t0\n"
    out, _ = run(text, {"texcoord1": coord, "t1": (-1, -1, -1, -1)})  # the register is not what is tested
    assert out["discarded"] is killed


@pytest.mark.parametrize("coord, killed", [((1, 1, 1, -5), False), ((1, -1, 1, 1), True)])
def test_texkill_ps14_tests_the_register_xyz(coord, killed):
    text = "ps_1_4\ntexcrd r2, t2\ntexkill r2\nmov r0, r2\n"
    assert run(text, {"t2": coord})[0]["discarded"] is killed


# -- texbem / texbeml / bem -------------------------------------------------------------------


BUMP = {"texcoord1": (0.5, 0.25, 0, 1), "bumpenv_mat1": (1, 2, 3, 4)}


def test_texbem():
    # u' = 0.5 + 1*0.2 + 3*0.4 = 1.9;  v' = 0.25 + 2*0.2 + 4*0.4 = 2.25; matrix of stage 1
    out, s = run("ps_1_1\ntex t0\ntexbem t1, t0\nmov r0, t1\n", BUMP,
                 sampler=Sampler(s0=(0.2, 0.4, 0.6, 0.8), s1=(9, 8, 7, 6)))
    assert s.coord(1) == approx([1.9, 2.25])
    assert list(out["t1"]) == [9, 8, 7, 6]
    program = lower("ps_1_1\ntex t0\ntexbem t1, t0\nmov r0, t1\n")
    (mat,) = [v for v in program.variables if v.builtin == "bumpenv_mat1"]
    assert mat.storage is Storage.INPUT and str(mat.type) == "f4" and not mat.semantics
    assert program.notes["draw_state"]["bumpenv"] == [1]


def test_texbem_projects_only_the_coordinate_before_the_displacement():
    inputs = dict(BUMP, texcoord1=(1, 0.5, 0, 2))  # projected: (0.5, 0.25)
    _, s = run("ps_1_1\ntex t0\ntexbem t1, t0\nmov r0, t1\n", inputs,
               options=Options(texture_projection=((1, 4),)), sampler=Sampler(s0=(0.2, 0.4, 0.6, 0.8)))
    assert s.coord(1) == approx([1.9, 2.25])


def test_texbem_bx2_source():
    # t0_bx2 = (2*0.6-1, 2*0.7-1) = (0.2, 0.4): same as above
    _, s = run("ps_1_2\ntex t0\ntexbem t1, t0_bx2\nmov r0, t1\n", BUMP, sampler=Sampler(s0=(0.6, 0.7, 0, 0)))
    assert s.coord(1) == approx([1.9, 2.25])


@pytest.mark.parametrize("scale, offset, factor", [
    (0.5, 0.25, 0.5),     # 0.5*0.5 + 0.25
    (10, 10, 1.0),        # clamped to 1
    (1, -2, 0.0),         # clamped to 0
])
def test_texbeml_luminance(scale, offset, factor):
    inputs = dict(BUMP, bumpenv_lscale1=scale, bumpenv_loffset1=offset)
    out, s = run("ps_1_1\ntex t0\ntexbeml t1, t0\nmov r0, t1\n", inputs,
                 sampler=Sampler(s0=(0.2, 0.4, 0.5, 0), s1=(0.5, 0.25, 1, 0.75)))
    assert s.coord(1) == approx([1.9, 2.25])
    assert list(out["t1"]) == approx([0.5 * factor, 0.25 * factor, factor, 0.75 * factor])
    assert lower("ps_1_1\ntex t0\ntexbeml t1, t0\nmov r0, t1\n").notes["draw_state"]["luminance"] == [1]


def test_bem_uses_the_matrix_of_the_destination_register():
    # r2.r = 0.1 + 1*0.5 + 3*0.25 = 1.35; r2.g = 0.2 + 2*0.5 + 4*0.25 = 2.2; b, a unwritten
    text = "ps_1_4\ntexld r0, t0\ntexcrd r1, t1\nbem r2.rg, r1, r0\nmov r0, r2\n"
    out, _ = run(text, {"t1": (0.1, 0.2, 0.3, 0.4), "bumpenv_mat2": (1, 2, 3, 4)},
                 sampler=Sampler(s0=(0.5, 0.25, 0, 0)))
    assert list(out["r2"]) == approx([1.35, 2.2, 0, 0])


# -- texreg2* -------------------------------------------------------------------------------------


@pytest.mark.parametrize("op, stype, coord", [
    ("texreg2ar", SamplerType.TEX2D, [0.4, 0.1]),
    ("texreg2gb", SamplerType.TEX2D, [0.2, 0.3]),
    ("texreg2rgb", SamplerType.TEX2D, [0.1, 0.2]),
    ("texreg2rgb", SamplerType.VOLUME, [0.1, 0.2, 0.3]),
    ("texreg2ar", SamplerType.VOLUME, [0.4, 0.1, 0]),
])
def test_texreg(op, stype, coord):
    version = "ps_1_2" if op == "texreg2rgb" else "ps_1_1"
    _, s = run(f"{version}\ntex t0\n{op} t1, t0\nmov r0, t1\n", options=Options(sampler_types=((1, stype),)),
               sampler=Sampler(s0=(0.1, 0.2, 0.3, 0.4)))
    assert s.coord(1) == approx(coord)


# -- the matrix ops -------------------------------------------------------------------------------


MATRIX = {"texcoord1": (1, 2, 3, 9), "texcoord2": (4, 5, 6, 8), "texcoord3": (7, 8, 9, 7)}
NORMAL = (1, 0.5, 0.25, 0)  # rows: 1+1+0.75 = 2.75, 4+2.5+1.5 = 8, 7+4+2.25 = 13.25


def test_texm3x2pad_tex():
    text = "ps_1_1\ntex t0\ntexm3x2pad t1, t0\ntexm3x2tex t2, t0\nmov r0, t2\n"
    out, s = run(text, MATRIX, sampler=Sampler(s0=NORMAL, s2=(1, 2, 3, 4)))
    assert s.coord(2) == approx([2.75, 8])
    assert list(out["t2"]) == [1, 2, 3, 4] and "t1" not in out  # the pad writes no register
    program = lower(text)
    assert not stores_to(program, "t1") and [op.var.name for op in ops_of(program, Code.STORE)].count("texm_row1") == 1


def test_texm3x3pad_tex():
    text = "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3tex t3, t0\nmov r0, t3\n"
    _, s = run(text, MATRIX, options=Options(sampler_types=((3, SamplerType.CUBE),)), sampler=Sampler(s0=NORMAL))
    assert s.calls[-1] == (3, SamplerType.CUBE, approx([2.75, 8, 13.25]))
    program = lower(text)
    assert not stores_to(program, "t1") and not stores_to(program, "t2")


def test_texm3x3_writes_the_product_and_one():
    text = "ps_1_2\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3 t3, t0\nmov r0, t3\n"
    out, s = run(text, MATRIX, sampler=Sampler(s0=NORMAL))
    assert list(out["t3"]) == approx([2.75, 8, 13.25, 1]) and [c[0] for c in s.calls] == [0]


SPEC_ROWS = {"texcoord1": (1, 0, 0, 1), "texcoord2": (2, 0, 0, 0), "texcoord3": (2, 0, 0, 0)}


def test_texm3x3spec():
    # N = (1, 2, 2), E = (1, 0, 0): R = 2*1/9*N - E = (2/9 - 1, 4/9, 4/9)
    text = "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3spec t3, t0, c0\nmov r0, t3\n"
    options = Options(sampler_types=((3, SamplerType.CUBE),))
    _, s = run(text, dict(SPEC_ROWS, c={0: (1, 0, 0, 0)}), options=options, sampler=Sampler(s0=(1, 0, 0, 0)))
    assert s.coord(3) == approx([2 / 9 - 1, 4 / 9, 4 / 9])
    # N = 0: R = -E, not NaN
    _, s = run(text, dict(SPEC_ROWS, c={0: (1, 0.5, 0, 0)}), options=options, sampler=Sampler())
    assert s.coord(3) == approx([-1, -0.5, 0])


def test_texm3x3vspec_takes_the_eye_from_the_rows_w():
    text = "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3vspec t3, t0\nmov r0, t3\n"
    options = Options(sampler_types=((3, SamplerType.CUBE),))
    _, s = run(text, SPEC_ROWS, options=options, sampler=Sampler(s0=(1, 0, 0, 0)))  # E = (1, 0, 0)
    assert s.coord(3) == approx([2 / 9 - 1, 4 / 9, 4 / 9])
    rows = {"texcoord1": (1, 0, 0, 0), "texcoord2": (2, 0, 0, 1), "texcoord3": (2, 0, 0, 0)}  # E = (0, 1, 0)
    _, s = run(text, rows, options=options, sampler=Sampler(s0=(1, 0, 0, 0)))
    # N.E = 2: R = 4/9 N - E = (4/9, 8/9 - 1, 8/9)
    assert s.coord(3) == approx([4 / 9, 8 / 9 - 1, 8 / 9])


def test_texdp3_and_texdp3tex():
    out, _ = run("ps_1_2\ntex t0\ntexdp3 t1, t0\nmov r0, t1\n", MATRIX, sampler=Sampler(s0=NORMAL))
    assert list(out["t1"]) == approx([2.75] * 4)
    _, s = run("ps_1_2\ntex t0\ntexdp3tex t1, t0\nmov r0, t1\n", MATRIX, sampler=Sampler(s0=NORMAL))
    assert s.coord(1) == approx([2.75, 0])


# -- depth ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rows, depth", [
    ({"texcoord1": (0.5, 0, 0, 0), "texcoord2": (2, 0, 0, 0)}, 0.25),   # z / w
    ({"texcoord1": (0.5, 0, 0, 0), "texcoord2": (0, 0, 0, 0)}, 1.0),    # w == 0 -> 1
    ({"texcoord1": (3, 0, 0, 0), "texcoord2": (2, 0, 0, 0)}, 1.0),      # clamped
    ({"texcoord1": (-1, 0, 0, 0), "texcoord2": (2, 0, 0, 0)}, 0.0),
])
def test_texm3x2depth(rows, depth):
    text = "ps_1_3\ntex t0\ntexm3x2pad t1, t0\ntexm3x2depth t2, t0\nmov r0, v0\n"
    out, _ = run(text, rows, sampler=Sampler(s0=(1, 0, 0, 0)))
    assert list(out["oDepth"]) == approx([depth])
    program = lower(text)
    assert not stores_to(program, "t1") and not stores_to(program, "t2")
    (out_var,) = [v for v in program.variables if v.name == "oDepth"]
    assert out_var.storage is Storage.OUTPUT and out_var.semantic.usage is DeclUsage.DEPTH and str(out_var.type) == "f1"
    assert program.notes["draw_state"]["depth"] is True


@pytest.mark.parametrize("r5, depth", [((0.5, 2, 0, 0), 0.25), ((0.5, 0, 0, 0), 1.0), ((3, 1, 0, 0), 1.0), ((-1, 1, 0, 0), 0.0)])
def test_texdepth(r5, depth):
    text = "ps_1_4\ntexcrd r5.rg, t0\nphase\ntexdepth r5\nmov r0, r5\n"
    out, _ = run(text, {"t0": r5})
    assert list(out["oDepth"]) == approx([depth])
    assert list(out["r5"][:2]) == approx(list(r5[:2]))  # r5 keeps its value
    assert len(stores_to(lower(text), "r5")) == 1  # only texcrd's


# -- ps_1_4 texld / texcrd -----------------------------------------------------------------------------


def test_ps14_texld_stage_is_the_destination_and_dz_dw_divide():
    text = "ps_1_4\ntexld r0, t0_dw.xyw\ntexld r3, t1_dz\ntexld r4, t2\nmul r0, r0, r3\n"
    inputs = {"t0": (1, 2, 9, 4), "t1": (1, 3, 2, 9), "t2": (0.1, 0.2, 0.3, 0.4)}
    _, s = run(text, inputs)
    assert s.coord(0) == approx([0.25, 0.5]) and s.coord(3) == approx([0.5, 1.5]) and s.coord(4) == approx([0.1, 0.2])
    samples = ops_of(lower(text), Code.SAMPLE)
    assert [op.var.name for op in samples] == ["s0", "s3", "s4"] and all(op.imm[0] is SampleKind.PLAIN for op in samples)


def test_ps14_texld_from_a_register_in_phase_2():
    text = "ps_1_4\ntexcrd r1.rgb, t1\nphase\ntexld r1, r1\nmov r0, r1\n"
    _, s = run(text, {"t1": (0.5, 0.75, 1, 1)}, options=Options(sampler_types=((1, SamplerType.CUBE),)))
    assert s.calls == [(1, SamplerType.CUBE, [0.5, 0.75, 1])]


def test_texcrd_copies_without_clamping():
    out, _ = run("ps_1_4\ntexcrd r2.rgb, t2\nmov r0, r2\n", {"t2": (2, -3, 4, 5)})
    assert list(out["r2"]) == [2, -3, 4, 0]


# -- co-issue (§3.6) ---------------------------------------------------------------------------------


def test_coissue_reads_before_either_writes():
    # +mov reads r0.b as it was before the add of its pair writes it
    text = "ps_1_1\nmov r0, c0\nmov r1, c1\nadd r0.rgb, r0, r1\n+mov r0.a, r0.b\n"
    out, _ = run(text, {"c": {0: (0.1, 0.2, 0.3, 0.4), 1: (0.5, 0.5, 0.5, 0.5)}})
    assert list(out["r0"]) == approx([0.6, 0.7, 0.8, 0.3])


def test_coissued_cnd_sees_the_old_condition():
    # the Wine cnd_test shape: mov r0.a, r1.a + cnd r0.rgb, r0.a: the condition
    # is r0.a before the pair (0.2 -> c2), whatever the mov writes (0.9)
    text = "ps_1_1\nmov r0, c0\nmov r1, c3\nmov r0.a, r1.a\n+cnd r0.rgb, r0.a, c1, c2\n"
    consts = {0: (0, 0, 0, 0.2), 1: (1, 1, 1, 1), 2: (0.5, 0.25, 0.125, 0), 3: (0, 0, 0, 0.9)}
    out, _ = run(text, {"c": consts})
    assert list(out["r0"]) == approx([0.5, 0.25, 0.125, 0.9])
    consts[0] = (0, 0, 0, 0.7)  # old r0.a > 0.5 -> c1
    assert list(run(text, {"c": consts})[0]["r0"]) == approx([1, 1, 1, 0.9])


def test_coissue_stores_come_after_both_ops():
    program = lift_asm("ps_1_1\ntex t0\nmul r1.rgb, t0, v0\n+mov r1.a, v1.a\nmov r0, r1\n")
    body = [op.code for op in program.main.body]
    first_store = body.index(Code.D3D_STORE, body.index(Code.D3D_OP) + 2)  # after tex's store
    ops = [i for i, c in enumerate(body) if c is Code.D3D_OP]
    assert ops[1] < ops[2] < first_store and body[first_store + 1] is Code.D3D_STORE
    stores = [op for op in program.main.body if op.code is Code.D3D_STORE]
    assert [s.var.name for s in stores] == ["t0", "r1", "r1", "r0"]
    assert stores[1].imm[0].mask == 0x7 and stores[2].imm[0].mask == 0x8 and stores[2].imm[0].coissue


# -- the ps_1_x constant clamp (§3.5) -----------------------------------------------------------------


def test_ps1_constants_are_clamped_before_modifiers():
    text = "ps_1_1\nmov r0, c0\nadd r1, c1_bx2, -c2\n"
    consts = {0: (2, -3, 0.5, -0.5), 1: (2, 0.75, -2, 0), 2: (5, -5, 0, 1)}
    out, _ = run(text, {"c": consts})
    assert list(out["r0"]) == [1, -1, 0.5, -0.5]
    # bx2 of the clamped value: (1, 0.5, -3, -1); minus the clamped c2 (1, -1, 0, 1)
    assert list(out["r1"]) == approx([0, 1.5, -3, -2])


def test_ps1_def_values_are_clamped_too():
    text = "ps_1_4\ndef c0, 4, -4, 0.25, 1.5\nmov r0, c0\n"
    assert list(run(text)[0]["r0"]) == [1, -1, 0.25, 1]  # on load, before the constants pass
    program = lower(text, until="cleanup")
    out = evaluate(program)
    assert list(out["oC0"]) == [1, -1, 0.25, 1]


def test_the_texm3x3spec_constant_is_clamped():
    text = "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3spec t3, t0, c0\nmov r0, t3\n"
    options = Options(sampler_types=((3, SamplerType.CUBE),))
    # c0 = (7, 0, 0): clamped to (1, 0, 0), so the same R as test_texm3x3spec
    _, s = run(text, dict(SPEC_ROWS, c={0: (7, 0, 0, 0)}), options=options, sampler=Sampler(s0=(1, 0, 0, 0)))
    assert s.coord(3) == approx([2 / 9 - 1, 4 / 9, 4 / 9])


@pytest.mark.parametrize("text", ["vs_1_1\nmov oPos, c0\n", "ps_2_0\nmov oC0, c0\n"])
def test_other_versions_are_not_clamped(text):
    out = run_asm(text, {"c": {0: (2, -3, 0.5, 9)}})
    assert list(out.get("oPos", out.get("oC0"))) == [2, -3, 0.5, 9]
    assert Code.FCLAMP not in [op.code for _, op in lower(text).all_ops()]


def test_vs11_mov_a0_floors():
    out = run_asm("vs_1_1\nmov a0.x, c0.x\nmov oPos, c0\n", {"c": {0: (-1.5, 0, 0, 0)}})
    assert out["a0"][0] == -2


# -- pipeline and notes ------------------------------------------------------------------------------------


def test_pipeline_position():
    assert PIPELINE.index("texture_sm1") == PIPELINE.index("texture") + 1 < PIPELINE.index("destination")


def test_draw_state_notes():
    text = "ps_1_1\ntex t0\ntexbeml t1, t0\ntex t2\nmul r0, t1, t2\n"
    options = Options(texture_projection=((2, 4),), sampler_types=((1, SamplerType.VOLUME),))
    program = run_passes(lift_asm(text), options)
    assert program.notes["draw_state"] == {
        "samplers": {0: "2d", 1: "volume", 2: "2d"}, "projected": {2: "w"},
        "bumpenv": [1], "luminance": [1], "depth": False,
    }
    builtins = sorted(v.builtin for v in program.variables if v.storage is Storage.INPUT and v.builtin)
    assert builtins == ["bumpenv_loffset1", "bumpenv_lscale1", "bumpenv_mat1"]


def test_projection_count_is_checked():
    with pytest.raises(ValueError):
        lower("ps_1_1\ntex t0\nmov r0, t0\n", options=Options(texture_projection=((0, 1),)))


# -- every sm1 shader to valid core IR ---------------------------------------------------------------


def _own_corpus():
    from xlate.bytecode.asm import assemble_bytes

    for path in sorted(glob.glob(os.path.join(ROOT, "corpus", "*_1_*", "*.asm"))):
        with open(path) as f:
            yield os.path.relpath(path, ROOT), assemble_bytes(f.read())


def _synthetic_asm():
    from corpus import corpus_root

    for path in sorted(glob.glob(str(corpus_root() / "fxc-wine" / "synthetic-asm" / "*.asm.*_1_*.bin"))):
        with open(path, "rb") as f:
            yield os.path.basename(path), f.read()


def _peer(name):
    from corpus import iter_corpus, require_corpus

    require_corpus()
    return iter_corpus(name)


@pytest.mark.parametrize("corpus_name", ["own", "wine", "fxc-wine", "fxc-wine synthetic-asm", "hlsldecompiler"])
def test_every_sm1_shader_lowers_to_valid_core_ir(corpus_name, record_property):
    if corpus_name == "own":
        blobs = _own_corpus()
    elif corpus_name == "fxc-wine synthetic-asm":
        _peer("fxc-wine")
        blobs = _synthetic_asm()
    else:
        blobs = _peer(corpus_name)
    counts = collections.Counter()
    seen = set()
    for _id, data in blobs:
        if data in seen:
            continue
        seen.add(data)
        try:
            program = lift(decode(data))
        except XlateError:
            counts["not decodable (any version)"] += 1
            continue
        if program.version.major != 1:
            continue
        run_passes(program)  # validates
        validate(program)
        assert not d3d_ops(program), _id
        counts[f"{program.version}"] += 1
    total = sum(v for k, v in counts.items() if not k.startswith("not decodable"))
    summary = f"sm1 to core IR, {corpus_name}: {total} valid (" + ", ".join(
        f"{k} {v}" for k, v in sorted(counts.items())) + ")"
    print(summary)
    record_property("corpus_summary", summary)
    if corpus_name in ("own", "wine", "fxc-wine synthetic-asm"):
        assert total > 0


# -- differential: the lowered IR against the reference interpreter ------------------------------------
#
# Every ps_1_x shader of the corpora runs on random inputs, constants (some
# outside [-1, 1]), bump-environment state, projection flags and textures of
# random dimension, once through run_passes + ireval and once through
# xlate.verify's reference interpreter (written separately from the
# semantics document).  All four lanes of the reference's quad share their
# inputs, so its derivatives are 0 and it samples level 0, as the ireval
# sampler below does.


def _ps1_blobs():
    yield from _own_corpus()
    from corpus import corpus_available, iter_corpus

    if corpus_available("wine"):
        yield from iter_corpus("wine")
    if corpus_available("fxc-wine"):
        yield from _synthetic_asm()


def _differential_case(program_text_or_blob, seed):
    from xlate.verify import ReferenceConstants, Texture, TextureStage, run_shader
    from xlate.verify import sample as tx_sample

    rng = np.random.default_rng(seed)
    shader = decode(program_text_or_blob)
    kinds = {k: rng.choice(["2d", "2d", "cube", "volume"]) for k in range(6)}
    textures = {}
    for k, kind in kinds.items():
        shape = {"2d": (4, 4, 4), "volume": (4, 4, 4, 4), "cube": (6, 2, 2, 4)}[kind]
        textures[k] = Texture(kind, [rng.uniform(-1, 1, shape).astype(np.float32)])
    stages = {k: TextureStage(projected=bool(rng.integers(2)),
                              bump_env_mat=tuple(rng.uniform(-1, 1, 4)),
                              bump_env_lscale=float(rng.uniform(-2, 2)), bump_env_loffset=float(rng.uniform(-1, 1)))
              for k in range(6)}
    coords = {k: rng.uniform(-1, 1, 4).astype(np.float32) for k in range(6)}
    colours = {k: rng.uniform(0, 1, 4).astype(np.float32) for k in range(2)}
    consts = {k: rng.uniform(-1.5, 1.5, 4).astype(np.float32) for k in range(8)}

    inputs = {("t", k): np.tile(v, (4, 1)) for k, v in coords.items()}
    inputs.update({("v", k): np.tile(v, (4, 1)) for k, v in colours.items()})
    ref = run_shader(shader, inputs, ReferenceConstants(floats=consts), textures, n=4, texture_stages=stages)

    options = Options(
        sampler_types=tuple((k, {"2d": SamplerType.TEX2D, "cube": SamplerType.CUBE, "volume": SamplerType.VOLUME}[kind])
                            for k, kind in kinds.items()),
        texture_projection=tuple((k, 4) for k, st in stages.items() if st.projected),
    )
    program = run_passes(lift(shader), options)
    values = {"c": consts, "v0": colours[0], "v1": colours[1]}
    for k, v in coords.items():
        values[f"texcoord{k}" if shader.version.minor < 4 else f"t{k}"] = v
    for k, st in stages.items():
        values[f"bumpenv_mat{k}"] = st.bump_env_mat
        values[f"bumpenv_lscale{k}"] = st.bump_env_lscale
        values[f"bumpenv_loffset{k}"] = st.bump_env_loffset

    def sampler(op, args):
        coord = np.zeros((1, 3), np.float32)
        coord[0, :args[0].shape[0]] = args[0]
        return tx_sample(textures[op.var.register[1]], coord, lod=np.zeros(1, np.float32))[0]

    out = evaluate(program, values, sampler=sampler)
    return ref, out


def test_ps1_shaders_match_the_reference_interpreter(record_property):
    counts = collections.Counter()
    seen = set()
    for _id, data in _ps1_blobs():
        if data in seen:
            continue
        seen.add(data)
        try:
            version = decode(data).version
        except XlateError:
            continue
        if not (version.is_pixel and version.major == 1):
            continue
        for seed in range(3):
            ref, out = _differential_case(data, seed)
            killed = bool(ref.killed[0])
            assert out["discarded"] is killed, (_id, seed)
            counts["runs"] += 1
            if killed:
                counts["killed"] += 1
                continue
            np.testing.assert_allclose(out["oC0"], ref.outputs["oC0"][0], rtol=1e-4, atol=1e-5, err_msg=f"{_id} seed {seed}")
            if "oDepth" in ref.outputs:
                counts["depth"] += 1
                np.testing.assert_allclose(out["oDepth"], ref.outputs["oDepth"][0][:1], rtol=1e-4, atol=1e-5,
                                           err_msg=f"{_id} seed {seed}")
        counts["shaders"] += 1
    summary = (f"sm1 IR vs reference interpreter: {counts['shaders']} ps_1_x shaders, {counts['runs']} runs agree "
               f"({counts['killed']} killed, {counts['depth']} with depth)")
    print(summary)
    record_property("corpus_summary", summary)
    assert counts["shaders"] > 20
