"""special: rcp rsq exp log logp expp pow nrm lit sincos (semantics §2.2-2.5, §7.1)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from xlate.bytecode.tables import Opcode
from xlate.ir.ops import Code

from .conftest import FLT_MAX, codes, d3d_opcodes, lower, ops_of, run_asm

NAN, INF = float("nan"), float("inf")


def vs(body: str, version: str = "vs_2_0") -> str:
    return f"{version}\n{body}\n"


def scalar(op: str, *values: float, version: str = "vs_2_0") -> np.ndarray:
    """``op r0, c0.x[, c1.x]`` with c0.x/c1.x = values; returns r0."""
    srcs = ", ".join(f"c{i}.x" for i in range(len(values)))
    inputs = {"c": {i: [v, 0, 0, 0] for i, v in enumerate(values)}}
    return run_asm(vs(f"{op} r0, {srcs}", version), inputs)["r0"]


@pytest.mark.parametrize("op", ["rcp", "rsq", "exp", "log", "logp", "expp", "pow", "nrm", "lit", "sincos"])
def test_no_d3d_op_left(op):
    body = {
        "pow": "pow r0, c0.x, c1.x",
        "nrm": "nrm r0, c0",
        "lit": "lit r0, c0",
        "sincos": "sincos r0.xy, c0.x, c1, c2",
    }.get(op, f"{op} r0, c0.x")
    program = lower(vs(body), only="special")
    assert d3d_opcodes(program) == []


# rcp(-0) = -FLT_MAX: the IEEE result clamped (semantics 7.1's recommendation).
@pytest.mark.parametrize("value, expected", [(0.0, FLT_MAX), (-0.0, -FLT_MAX), (2.0, 0.5), (-4.0, -0.25), (1.0, 1.0), (1e-45, FLT_MAX)])
def test_rcp(value, expected):
    assert list(scalar("rcp", value)) == [np.float32(expected)] * 4


@pytest.mark.parametrize("value, expected", [(0.0, FLT_MAX), (4.0, 0.5), (-4.0, 0.5), (1.0, 1.0)])
def test_rsq_of_abs(value, expected):
    assert list(scalar("rsq", value)) == [np.float32(expected)] * 4


@pytest.mark.parametrize("op", ["log", "logp"])
@pytest.mark.parametrize("value, expected", [(0.0, -FLT_MAX), (-0.0, -FLT_MAX), (8.0, 3.0), (-8.0, 3.0), (0.25, -2.0)])
def test_log_of_abs(op, value, expected):
    assert list(scalar(op, value)) == [np.float32(expected)] * 4


def test_exp_and_sm2_expp_replicate():
    assert list(scalar("exp", 3.0)) == [8.0] * 4
    assert list(scalar("expp", 2.5)) == [np.float32(2 ** 2.5)] * 4


def test_expp_vs_1_1_layout():
    r0 = scalar("expp", 2.5, version="vs_1_1")
    np.testing.assert_allclose(r0, [4.0, 0.5, 2 ** 2.5, 1.0], rtol=1e-6)
    r0 = scalar("expp", -1.25, version="vs_1_1")
    np.testing.assert_allclose(r0, [0.25, 0.75, 2 ** -1.25, 1.0], rtol=1e-6)


@pytest.mark.parametrize("base, exponent, expected", [
    (-2.0, 2.0, 4.0), (-2.0, 3.0, 8.0), (2.0, -1.0, 0.5),
    (0.0, 0.0, 1.0), (NAN, 0.0, 1.0), (INF, 0.0, 1.0), (-5.0, -0.0, 1.0),
    (0.0, 2.0, 0.0), (0.0, -1.0, INF),
])
def test_pow(base, exponent, expected):
    assert list(scalar("pow", base, exponent)) == [np.float32(expected)] * 4


def test_pow_guards_are_selects():
    # y == 0 -> 1; else a zero base -> 0 / +inf (GLSL leaves pow(0, y <= 0)
    # undefined); else pow(|x|, y).
    program = lower(vs("pow r0, c0.x, c1.x"), only="special")
    selects = ops_of(program, Code.SELECT)
    assert len(selects) == 3
    (power,) = [s for s in selects if s.args[2].code is Code.FPOW]
    assert power.args[2].args[0].code is Code.FABS


def test_pow_of_zero_with_negative_exponent_is_infinite():
    assert list(scalar("pow", 0.0, -0.5)) == [np.float32("inf")] * 4


@pytest.mark.parametrize("v, expected", [
    ((3, 0, 4, 2), (0.6, 0, 0.8, 0.4)),
    ((0, 0, 0, 0.5), (0, 0, 0, 0.5 * float(FLT_MAX))),  # zero xyz: 0, never NaN; w = s.w * FLT_MAX
    ((0, 0, 0, 0), (0, 0, 0, 0)),
    ((0, -2, 0, 1), (0, -1, 0, 0.5)),
])
def test_nrm(v, expected):
    r0 = run_asm(vs("nrm r0, c0"), {"c": {0: v}})["r0"]
    assert not np.isnan(r0).any()
    np.testing.assert_allclose(r0, np.float32(expected), rtol=1e-6)


def test_nrm_length_from_xyz_even_for_a_partial_mask():
    r0 = run_asm(vs("nrm r0.xy, c0"), {"c": {0: (3, 0, 4, 100)}})["r0"]
    np.testing.assert_allclose(r0, [0.6, 0, 0, 0], rtol=1e-6)


@pytest.mark.parametrize("s, expected", [
    ((1, 2, 0, 3), (1, 1, 8, 1)),
    ((0.5, 4, 0, 0.5), (1, 0.5, 2, 1)),
    ((0, 2, 0, 3), (1, 0, 0, 1)),        # x == 0: strict test, nothing
    ((-1, 2, 0, 3), (1, 0, 0, 1)),
    ((1, 0, 0, 0), (1, 1, 0, 1)),        # y == 0, p == 0: z = 0, not pow(0, 0)
    ((1, 0, 0, -2), (1, 1, 0, 1)),       # y == 0, p < 0: z = 0, not +inf
    ((1, -2, 0, 2), (1, 1, 0, 1)),
    ((2, 3, 0, 0), (1, 2, 1, 1)),        # w == 0 with x, y > 0: y^0 = 1 (no w == 0 shortcut)
    ((1, 2, 0, 200), (1, 1, 2 ** 127.9961, 1)),  # exponent clamped: finite
    ((1, 2, 0, -200), (1, 1, 2 ** -127.9961, 1)),
])
def test_lit(s, expected):
    r0 = run_asm(vs("lit r0, c0"), {"c": {0: s}})["r0"]
    np.testing.assert_allclose(r0, np.float32(expected), rtol=1e-5)


def test_lit_pow_only_under_select():
    program = lower(vs("lit r0, c0"), only="special")
    users = [op for _, op in program.all_ops() for a in op.args if a.code is Code.FPOW]
    assert [u.code for u in users] == [Code.SELECT]
    assert Code.FMUL not in codes(program) and Code.FMUL_LEGACY not in codes(program)


@pytest.mark.parametrize("body", ["sincos r0.xy, c0.x, c1, c2", "sincos r0.xy, c0.x"])
def test_sincos_x_cos_y_sin(body):
    version = "vs_2_0" if "c1" in body else "vs_3_0"
    r0 = run_asm(vs("mov r0, c3\n" + body, version), {"c": {0: (0.5, 9, 9, 9), 3: (7, 7, 7, 7)}})["r0"]
    np.testing.assert_allclose(r0, [math.cos(0.5), math.sin(0.5), 7, 7], rtol=1e-6)


def test_sincos_single_component_mask():
    r0 = run_asm(vs("mov r0, c3\nsincos r0.y, c0.x", "vs_3_0"), {"c": {0: (1.0, 0, 0, 0), 3: (7, 7, 7, 7)}})["r0"]
    np.testing.assert_allclose(r0, [7, math.sin(1.0), 7, 7], rtol=1e-6)


def test_scalar_ops_read_the_first_swizzle_component():
    r0 = run_asm(vs("rcp r0, c0.z"), {"c": {0: (1, 2, 4, 8)}})["r0"]
    assert list(r0) == [0.25] * 4


def test_other_ops_are_left_alone():
    program = lower(vs("add r0, c0, c1\nrcp r1, c0.x"), only="special")
    assert d3d_opcodes(program) == [Opcode.ADD]
