"""source_modifiers: D3D_SRCMOD -> core (semantics §3.1)."""

from __future__ import annotations

import pytest

from xlate.bytecode.tables import SrcMod
from xlate.ir.ops import Code, Op
from xlate.ir.types import F4
from xlate.options import Options
from xlate.passes import PIPELINE, run_pass

from .conftest import codes, lift_asm, lower, ops_of, run_asm
from .ireval import evaluate

R1 = (0.25, -0.5, 0.75, 2.0)


@pytest.mark.parametrize("src, expected", [
    ("-r1", [-0.25, 0.5, -0.75, -2]),
    ("r1_bias", [-0.25, -1, 0.25, 1.5]),
    ("-r1_bias", [0.25, 1, -0.25, -1.5]),
    ("r1_bx2", [-0.5, -2, 0.5, 3]),
    ("-r1_bx2", [0.5, 2, -0.5, -3]),
    ("1-r1", [0.75, 1.5, 0.25, -1]),
    ("r1_x2", [0.5, -1, 1.5, 4]),
    ("-r1_x2", [-0.5, 1, -1.5, -4]),
])
def test_ps_1_4_modifiers(src, expected):
    r0 = run_asm(f"ps_1_4\nmov r0, {src}\n", {"r1": R1})["r0"]
    assert list(r0) == expected


@pytest.mark.parametrize("src, expected", [
    ("r1_abs", [0.25, 0.5, 0.75, 2]),
    ("-r1_abs", [-0.25, -0.5, -0.75, -2]),
    ("-r1.wzyx", [-2, -0.75, 0.5, -0.25]),
    ("r1_abs.yyyy", [0.5] * 4),
])
def test_sm3_modifiers(src, expected):
    r0 = run_asm(f"ps_3_0\nmov r0, {src}\nmov oC0, r0\n", {"r1": R1})["r0"]
    assert list(r0) == expected


def test_no_srcmod_left_and_negation_last():
    program = lower("ps_1_4\nadd r0, -r1_bx2, -r2_bias\n", only="source_modifiers")
    assert Code.D3D_SRCMOD not in codes(program)
    negs = ops_of(program, Code.FNEG)
    assert [n.args[0].code for n in negs] == [Code.FMAD, Code.FSUB]


def _with_modifier(text: str, mod: SrcMod):
    """Lift ``text`` and put ``mod`` on the first D3D_OP's source (modifiers
    the assembler only allows on texld/texcrd, or not on floats at all)."""
    program = lift_asm(text)
    body = program.main.body
    i = next(n for n, op in enumerate(body) if op.code is Code.D3D_OP)
    src = body[i].args[0]
    modded = Op(Code.D3D_SRCMOD, F4, (src,), (mod,))
    body.insert(i, modded)
    body[i + 1].args = (modded,) + body[i + 1].args[1:]
    return program


def _lower_and_eval(program, inputs):
    for name in PIPELINE[: PIPELINE.index("destination") + 1]:
        run_pass(name, program, Options())
    return evaluate(program, inputs)


@pytest.mark.parametrize("mod, expected", [
    # r1 = (2, 4, 8, 16) read as .yxwz = (4, 2, 16, 8); dz/dw divide the
    # *unswizzled* register by its own z (8) / w (16), then swizzle.
    (SrcMod.DZ, [0.5, 0.25, 2, 1]),
    (SrcMod.DW, [0.25, 0.125, 1, 0.5]),
])
def test_dz_dw_divide_before_the_swizzle(mod, expected):
    program = _with_modifier("vs_3_0\nmov r0, r1.yxwz\n", mod)
    assert list(_lower_and_eval(program, {"r1": (2, 4, 8, 16)})["r0"]) == expected


def test_not_on_a_float_is_equal_zero():
    program = _with_modifier("vs_3_0\nmov r0, r1\n", SrcMod.NOT)
    assert list(_lower_and_eval(program, {"r1": (0, -0.0, 1, -3)})["r0"]) == [1, 1, 0, 0]
