"""matrix: m4x4 ... m3x2 -> one dot product per row (semantics §2.2, §2.8)."""

from __future__ import annotations

import numpy as np
import pytest

from xlate.bytecode.tables import Opcode
from xlate.ir.ops import Code
from xlate.options import Options

from .conftest import d3d_opcodes, lower, ops_of, run_asm

M = {4: (1, 2, 3, 4), 5: (5, 6, 7, 8), 6: (9, 10, 11, 12), 7: (13, 14, 15, 16)}
V = (1, -1, 2, 0.5)


def _dots(v, rows, width):
    return [float(np.dot(np.float32(v[:width]), np.float32(M[4 + k][:width]))) for k in range(rows)]


@pytest.mark.parametrize("op, width, rows", [
    ("m4x4", 4, 4), ("m4x3", 4, 3), ("m3x4", 3, 4), ("m3x3", 3, 3), ("m3x2", 3, 2),
])
def test_structure(op, width, rows):
    program = lower(f"vs_2_0\ndcl_position v0\n{op} r0, v0, c4\n", only="matrix")
    assert Opcode[op.upper().replace("X", "x")] not in d3d_opcodes(program)
    dots = ops_of(program, Code.FDOT_LEGACY)
    assert len(dots) == rows and all(d.args[0].type.width == width for d in dots)
    loads = [op.imm[0] for op in ops_of(program, Code.LOAD) if op.var.name == "c"]
    assert loads == list(range(4, 4 + rows))
    (construct,) = ops_of(program, Code.CONSTRUCT)
    assert str(construct.type) == "f4"


@pytest.mark.parametrize("op, width, rows", [
    ("m4x4", 4, 4), ("m4x3", 4, 3), ("m3x4", 3, 4), ("m3x3", 3, 3), ("m3x2", 3, 2),
])
def test_values_and_mask(op, width, rows):
    out = run_asm(f"vs_2_0\ndcl_position v0\nmov r0, c9\n{op} r0, v0, c4\n", {"c": {**M, 9: (7, 7, 7, 7)}, "v0": V})
    expected = _dots(V, rows, width) + [7] * (4 - rows)  # rows beyond the count: unwritten
    assert list(out["r0"]) == expected


def test_plain_dot_without_legacy_multiply():
    program = lower("vs_2_0\ndcl_position v0\nm4x4 r0, v0, c4\n", options=Options(legacy_multiply=False), only="matrix")
    assert len(ops_of(program, Code.FDOT)) == 4 and not ops_of(program, Code.FDOT_LEGACY)


def test_legacy_rows_give_zero_for_zero_times_inf():
    out = run_asm("vs_2_0\ndcl_position v0\nm4x4 r0, v0, c4\n", {"c": {4: (float("inf"), 1, 0, 0)}, "v0": (0, 1, 0, 0)})
    assert out["r0"][0] == 1


def test_only_masked_rows_are_computed():
    program = lower("vs_2_0\ndcl_position v0\nm4x4 r0.xy, v0, c4\n", only="matrix")
    assert len(ops_of(program, Code.FDOT_LEGACY)) == 2


def test_relative_rows_keep_the_index():
    text = "vs_2_0\ndcl_position v0\nmova a0.x, c0.x\nm4x4 r0, v0, c[a0.x+4]\n"
    program = lower(text, only="matrix")
    rows = [op for op in ops_of(program, Code.LOAD) if op.var.name == "c" and op.args]
    assert [op.imm[0] for op in rows] == [4, 5, 6, 7]
    assert len({id(op.args[0]) for op in rows}) == 1
    out = run_asm(text, {"c": {0: (1, 0, 0, 0), **M, 8: (1, 1, 1, 1)}, "v0": V})
    assert list(out["r0"]) == [_dots(V, 4, 4)[k] for k in (1, 2, 3)] + [float(np.dot(V, (1, 1, 1, 1)))]


def test_modifier_and_swizzle_on_every_row():
    text = "vs_3_0\ndcl_position v0\nm3x3 r0.xyz, v0, -r4.yxzw\n"
    program = lower(text, only="matrix")
    srcmods = ops_of(program, Code.D3D_SRCMOD)
    assert len(srcmods) == 3 and all(s.args[0].code is Code.SWIZZLE for s in srcmods)
    assert [s.args[0].args[0].var.name for s in srcmods] == ["r4", "r5", "r6"]
    rows = {"r4": (1, 0, 0, 0), "r5": (0, 1, 0, 0), "r6": (0, 0, 1, 0)}
    out = run_asm(text, {**rows, "v0": (2, 3, 5, 0)})
    assert list(out["r0"]) == [-3, -2, -5, 0]


def test_aliasing_reads_the_old_value_in_every_row():
    text = "vs_2_0\nmov r0, c0\nm4x4 r0, r0, c4\n"
    out = run_asm(text, {"c": {0: V, **M}})
    assert list(out["r0"]) == _dots(V, 4, 4)


def test_store_mask_narrowed_to_the_rows():
    program = lower("vs_2_0\ndcl_position v0\nm3x3 r0, v0, c4\n")
    (store,) = [op for op in ops_of(program, Code.STORE) if op.var.name == "r0"]
    assert store.imm[0] == 0b0111
