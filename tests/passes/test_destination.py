"""destination: D3D_STORE -> shift, saturate, a0 conversion, predication, masked STORE
(semantics §2.9, §3.2-3.4); and the six lowering passes over the corpus."""

from __future__ import annotations

import collections

import pytest

from xlate.bytecode import decode
from xlate.bytecode.tables import Opcode
from xlate.errors import XlateError
from xlate.ir.builder import lift
from xlate.ir.ops import Code
from xlate.passes import run_passes

from .conftest import codes, d3d_opcodes, lower, ops_of, run_asm

NAN = float("nan")


def stores(program, name):
    return [op for op in ops_of(program, Code.STORE) if op.var.name == name]


def test_mask_stores_only_masked_components():
    program = lower("vs_2_0\nmov r0.xz, c0\n")
    assert Code.D3D_STORE not in codes(program)
    (store,) = stores(program, "r0")
    assert store.imm == (0b0101,)
    assert store.args[0].code is Code.SWIZZLE and store.args[0].imm == (0, 2)
    out = run_asm("vs_2_0\nmov r0, c1\nmov r0.xz, c0\n", {"c": {0: (1, 2, 3, 4), 1: (9, 9, 9, 9)}})
    assert list(out["r0"]) == [1, 9, 3, 9]


def test_shift_then_saturate():
    # 0.3 * 4 = 1.2 -> saturate -> 1 (saturating first would give 1.2)
    text = "ps_1_4\nmov r1, c0\nmul_x4_sat r0, r1, c1\n"
    out = run_asm(text, {"c": {0: (0.3, -0.5, 0.1, 0.2), 1: (1, 1, 1, 1)}})
    assert list(out["r0"]) == pytest.approx([1, 0, 0.4, 0.8])
    # ps_1_x constants are clamped to [-1, 1] on load (semantics 3.5).
    out = run_asm("ps_1_4\nmov r1, c0\nmul_d2 r0, r1, c1\n", {"c": {0: (0.5, -1, 0.75, 0), 1: (1, 1, 1, 1)}})
    assert list(out["r0"]) == [0.25, -0.5, 0.375, 0]


def test_saturate_maps_nan_to_zero():
    out = run_asm("ps_2_0\nmov_sat r0, c0\nmov oC0, r0\n", {"c": {0: (NAN, -1, 0.5, 7)}})
    assert list(out["r0"]) == [0, 0, 0.5, 1]


def test_predicated_partial_write_keeps_old_values():
    text = "vs_3_0\nmov r0, c2\nsetp_gt p0, c0, c1\n(p0) mov r0.xyw, c3\n"
    consts = {0: (1, 0, 1, 0), 1: (0, 0, 0, 0), 2: (5, 6, 7, 8), 3: (1, 2, 3, 4)}
    assert list(run_asm(text, {"c": consts})["r0"]) == [1, 6, 7, 8]
    text = "vs_3_0\nmov r0, c2\nsetp_gt p0, c0, c1\n(!p0.y) mov r0.xy, c3\n"
    consts[0] = (0, 1, 0, 0)  # p0.y true -> !p0.y false: nothing written
    assert list(run_asm(text, {"c": consts})["r0"]) == [5, 6, 7, 8]
    consts[0] = (1, 0, 1, 1)  # p0.y false: both components written
    assert list(run_asm(text, {"c": consts})["r0"]) == [1, 2, 7, 8]


def test_predicated_store_selects_against_a_load():
    program = lower("vs_3_0\nsetp_gt p0, c0, c1\n(p0) mov r0.yz, c3\n")
    (store,) = stores(program, "r0")
    select = store.args[0]
    assert select.code is Code.SELECT and str(select.type) == "f2"
    assert select.args[2].code is Code.SWIZZLE and select.args[2].args[0].code is Code.LOAD


@pytest.mark.parametrize("value, expected", [(2.5, 2), (3.5, 4), (-2.5, -2), (1.6, 2), (-1.6, -2), (0.4, 0)])
def test_mova_rounds_half_to_even(value, expected):
    out = run_asm("vs_2_0\nmova a0.x, c0.x\n", {"c": {0: (value, 0, 0, 0)}})
    assert out["a0"][0] == expected


@pytest.mark.parametrize("value, expected", [(2.7, 2), (-1.5, -2), (-0.25, -1), (3.0, 3)])
def test_vs_1_1_mov_a0_floors(value, expected):
    program = lower("vs_1_1\nmov a0.x, c0.x\n")
    assert Code.F2I_FLOOR in codes(program)
    out = run_asm("vs_1_1\nmov a0.x, c0.x\n", {"c": {0: (value, 0, 0, 0)}})
    assert out["a0"][0] == expected


def test_mova_store_is_int():
    program = lower("vs_2_x\nmova a0.xy, c0\n")
    (store,) = stores(program, "a0")
    assert str(store.args[0].type) == "i2" and store.args[0].args[0].code is Code.F2I_ROUND


@pytest.mark.parametrize("text, name", [
    ("vs_2_0\nmov oFog, c0.yxzw\n", "oFog"),
    ("vs_2_0\nmov oPts, c0.yxzw\n", "oPts"),
    ("ps_2_0\nmov oDepth, c0.yxzw\nmov oC0, c0\n", "oDepth"),
])
def test_scalar_registers_take_x(text, name):
    (store,) = stores(lower(text), name)
    assert store.imm == (0x1,) and str(store.args[0].type) == "f1"
    assert list(run_asm(text, {"c": {0: (1, 2, 3, 4)}})[name]) == [2]


def test_bool_destination():
    program = lower("vs_3_0\nsetp_lt p0.xz, c0, c1\n")
    (store,) = stores(program, "p0")
    assert store.imm == (0b0101,) and str(store.args[0].type) == "b2"
    out = run_asm("vs_3_0\nsetp_lt p0.xz, c0, c1\n", {"c": {0: (0, 0, 0, 0), 1: (1, 1, 1, 1)}})
    assert list(out["p0"]) == [True, False, True, False]


def test_array_and_relative_destinations():
    text = "vs_3_0\ndcl_texcoord0 o0\ndcl_texcoord1 o1\ndefi i0, 2, 0, 1, 0\nloop aL, i0\nmov o[aL].xy, c0\nendloop\n"
    (store,) = stores(lower(text), "o0")
    assert store.imm == (0b0011,) and len(store.args) == 2 and store.args[1].type.is_int


# --------------------------------------------------------------------------
# The corpus: every lowering pass, every decodable shader.
# --------------------------------------------------------------------------

PS1_TEXTURE_OPS = {
    Opcode.TEX, Opcode.TEXCOORD, Opcode.TEXKILL, Opcode.TEXBEM, Opcode.TEXBEML, Opcode.TEXREG2AR,
    Opcode.TEXREG2GB, Opcode.TEXREG2RGB, Opcode.TEXM3x2PAD, Opcode.TEXM3x2TEX, Opcode.TEXM3x3PAD,
    Opcode.TEXM3x3TEX, Opcode.TEXM3x3SPEC, Opcode.TEXM3x3VSPEC, Opcode.TEXM3x2DEPTH, Opcode.TEXDP3,
    Opcode.TEXDP3TEX, Opcode.TEXM3x3, Opcode.TEXDEPTH, Opcode.BEM,
}


@pytest.mark.parametrize("corpus_name", ["fxc-wine", "vkd3d", "wine", "hlsldecompiler"])
def test_corpus_lowers(corpus_name, record_property):
    from corpus import iter_corpus, require_corpus

    require_corpus()
    counts = collections.Counter()
    left = collections.Counter()
    for _id, data in iter_corpus(corpus_name):
        try:
            program = lift(decode(data))
        except XlateError:
            counts["not decodable/liftable"] += 1
            continue
        run_passes(program, until="destination")
        counts[f"sm{program.version.major}"] += 1
        assert not [op for _, op in program.all_ops() if op.code in (Code.D3D_SRCMOD, Code.D3D_STORE)], _id
        remaining = d3d_opcodes(program)
        if remaining:
            assert program.is_pixel and program.version.major == 1, (_id, remaining)
            assert set(remaining) <= PS1_TEXTURE_OPS, (_id, remaining)
            left.update(op.name.lower() for op in remaining)
    summary = f"lowering {corpus_name}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    if left:
        summary += "; ps_1_x texture ops left: " + ", ".join(f"{k} {v}" for k, v in sorted(left.items()))
    record_property("corpus_summary", summary)
    assert sum(v for k, v in counts.items() if k.startswith("sm")) > 0
