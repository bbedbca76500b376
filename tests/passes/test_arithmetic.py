"""arithmetic: component-wise ops, dot products, compares, selects (semantics §2.2, §7)."""

from __future__ import annotations

import numpy as np
import pytest

from xlate.bytecode.tables import Opcode
from xlate.ir.ops import Code
from xlate.options import Options

from .conftest import codes, d3d_opcodes, lower, ops_of, run_asm

NAN, INF = float("nan"), float("inf")
NO_LEGACY = Options(legacy_multiply=False)


def run(body: str, consts: dict, version: str = "vs_3_0", out: str = "r0", options=None) -> np.ndarray:
    return run_asm(f"{version}\n{body}\n", {"c": consts}, options=options)[out]


@pytest.mark.parametrize("body", [
    "mov r0, c0", "add r0, c0, c1", "sub r0, c0, c1", "mul r0, c0, c1", "mad r0, c0, c1, c2",
    "min r0, c0, c1", "max r0, c0, c1", "slt r0, c0, c1", "sge r0, c0, c1", "dp3 r0, c0, c1",
    "dp4 r0, c0, c1", "frc r0, c0", "abs r0, c0", "sgn r0, c0", "lrp r0, c0, c1, c2",
    "crs r0.xyz, c0, c1", "dst r0, c0, c1", "setp_gt p0, c0, c1", "mova a0, c0",
])
def test_lowered(body):
    program = lower(f"vs_3_0\n{body}\n", only="arithmetic")
    assert d3d_opcodes(program) == []


def test_sm2_pixel_ops_lowered():
    program = lower("ps_2_0\ncmp r0, c0, c1, c2\ndp2add r1, c0, c1, c2.x\nmov oC0, r0\n", only="arithmetic")
    assert d3d_opcodes(program) == []


def test_legacy_multiply_codes():
    legacy = codes(lower("vs_3_0\nmul r0, c0, c1\nmad r1, c0, c1, c2\ndp4 r2, c0, c1\n", only="arithmetic"))
    assert legacy.count(Code.FMUL_LEGACY) == 2 and Code.FDOT_LEGACY in legacy
    assert Code.FMAD not in legacy and Code.FMUL not in legacy
    plain = codes(lower("vs_3_0\nmul r0, c0, c1\nmad r1, c0, c1, c2\ndp4 r2, c0, c1\n", options=NO_LEGACY, only="arithmetic"))
    assert Code.FMUL in plain and Code.FMAD in plain and Code.FDOT in plain
    assert Code.FMUL_LEGACY not in plain and Code.FDOT_LEGACY not in plain


def test_legacy_multiply_zero_times_inf():
    consts = {0: (0, INF, 0, NAN), 1: (INF, 0, NAN, 0), 2: (1, 1, 1, 1)}
    assert list(run("mul r0, c0, c1", consts)) == [0, 0, 0, 0]
    assert list(run("mad r0, c0, c1, c2", consts)) == [1, 1, 1, 1]
    assert list(run("dp4 r0, c0, c1", consts)) == [0, 0, 0, 0]
    assert np.isnan(run("mul r0, c0, c1", consts, options=NO_LEGACY)).all()


def test_basic_values():
    consts = {0: (1, -2, 3, 0.5), 1: (4, 5, -6, 0.5), 2: (10, 20, 30, 40)}
    assert list(run("add r0, c0, c1", consts)) == [5, 3, -3, 1]
    assert list(run("sub r0, c0, c1", consts)) == [-3, -7, 9, 0]
    assert list(run("mad r0, c0, c1, c2", consts)) == [14, 10, 12, 40.25]
    assert list(run("min r0, c0, c1", consts)) == [1, -2, -6, 0.5]
    assert list(run("max r0, c0, c1", consts)) == [4, 5, 3, 0.5]
    assert list(run("dp3 r0, c0, c1", consts)) == [-24] * 4
    assert list(run("dp4 r0, c0, c1", consts)) == [-23.75] * 4
    assert list(run("dp3 r0, c0.wzyx, c1", consts)) == [29] * 4


def test_swizzles_apply_per_component():
    consts = {0: (1, 2, 3, 4), 1: (10, 20, 30, 40)}
    assert list(run("add r0, c0.wzyx, c1.xxyy", consts)) == [14, 13, 22, 21]


def test_slt_sge_ordered():
    consts = {0: (1, 2, NAN, -0.0), 1: (2, 2, 0, 0)}
    assert list(run("slt r0, c0, c1", consts)) == [1, 0, 0, 0]
    assert list(run("sge r0, c0, c1", consts)) == [0, 1, 0, 1]


def test_frc_abs_sgn():
    consts = {0: (-1.25, 2.5, -0.0, -3)}
    assert list(run("frc r0, c0", consts)) == [0.75, 0.5, 0, 0]
    assert list(run("abs r0, c0", consts)) == [1.25, 2.5, 0, 3]
    sgn = run("sgn r0, c0", consts)
    assert list(sgn) == [-1, 1, 0, -1] and sgn[2] == 0


def test_sgn_sm2_scratch_form():
    r0 = run_asm("vs_2_0\nsgn r0, c0, r1, r2\n", {"c": {0: (-2, 0, 3, -0.0)}})["r0"]
    assert list(r0) == [-1, 0, 1, 0]


def test_lrp():
    consts = {0: (0, 1, 0.5, 0.25), 1: (10, 10, 10, 10), 2: (2, 2, 2, 2)}
    assert list(run("lrp r0, c0, c1, c2", consts)) == [2, 10, 6, 4]


def test_cmp_negative_zero_and_nan():
    consts = {0: (-0.0, 1, -1, NAN), 1: (1, 1, 1, 1), 2: (2, 2, 2, 2)}
    assert list(run("cmp r0, c0, c1, c2", consts, version="ps_2_0")) == [1, 1, 2, 2]


def test_cnd_ps_1_4():
    consts = {0: (0.5, 0.6, NAN, -1), 1: (1, 1, 1, 1), 2: (0.25, 0.25, 0.25, 0.25)}
    body = "mov r2, c0\ncnd r0, r2, c1, c2"
    assert list(run(body, consts, version="ps_1_4")) == [0.25, 1, 0.25, 0.25]


def test_cnd_ps_1_1_uses_r0_a_for_every_component():
    consts = {0: (0, 0, 0, 0.75), 1: (1, 1, 1, 1), 2: (0.25, 0.25, 0.25, 0.25)}
    r0 = run("mov r0, c0\ncnd r1, r0.a, c1, c2\nmov r0, r1", consts, version="ps_1_1")
    assert list(r0) == [1, 1, 1, 1]


def test_dp2add():
    consts = {0: (1, 2, 100, 100), 1: (3, 4, 100, 100), 2: (0.5, 7, 7, 7)}
    assert list(run("dp2add r0, c0, c1, c2.x", consts, version="ps_2_0")) == [11.5] * 4


def test_crs():
    consts = {0: (1, 0, 0, 9), 1: (0, 1, 0, 9)}
    assert list(run("mov r0, c1\ncrs r0.xyz, c0, c1", consts)) == [0, 0, 1, 9]
    consts = {0: (1, 2, 3, 0), 1: (4, 5, 6, 0)}
    assert list(run("crs r0.xyz, c0, c1", consts)) == [-3, 6, -3, 0]


def test_dst():
    consts = {0: (9, 4, 16, 9), 1: (9, 0.5, 9, 0.25)}
    assert list(run("dst r0, c0, c1", consts)) == [1, 2, 16, 0.25]


@pytest.mark.parametrize("cmp, expected", [
    ("gt", [False, False, True, False]),
    ("ge", [False, True, True, False]),
    ("lt", [True, False, False, False]),
    ("le", [True, True, False, False]),
    ("eq", [False, True, False, False]),
    ("ne", [True, False, True, True]),  # unordered: NaN != x
])
def test_setp(cmp, expected):
    consts = {0: (1, 2, 3, NAN), 1: (2, 2, 2, 2)}
    p0 = run(f"setp_{cmp} p0, c0, c1", consts, out="p0")
    assert list(p0) == expected


def test_setp_result_is_bool():
    program = lower("vs_3_0\nsetp_lt p0, c0, c1\n", only="arithmetic")
    (flt,) = ops_of(program, Code.FLT)
    assert str(flt.type) == "b4"


def test_other_ops_are_left_alone():
    program = lower("vs_3_0\nrcp r0, c0.x\nadd r1, c0, c1\n", only="arithmetic")
    assert d3d_opcodes(program) == [Opcode.RCP]
