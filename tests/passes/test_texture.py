"""texture: texld family -> SAMPLE, texkill -> IF DISCARD, dsx/dsy (semantics §2.10, §2.12)."""

from __future__ import annotations

import numpy as np
import pytest

from xlate.bytecode.tables import Opcode, SamplerType
from xlate.ir.ops import Code, SampleKind
from xlate.options import Options

from .conftest import codes, d3d_opcodes, lift_asm, lower, ops_of, run_asm
from xlate.passes import run_pass


def sample_of(text: str, options=None):
    program = lower(text, only="texture", options=options)
    assert set(d3d_opcodes(program)) <= {Opcode.MOV}
    (sample,) = ops_of(program, Code.SAMPLE)
    return program, sample


@pytest.mark.parametrize("dcl, stype, width", [
    ("dcl_2d", SamplerType.TEX2D, 2), ("dcl_cube", SamplerType.CUBE, 3), ("dcl_volume", SamplerType.VOLUME, 3),
])
def test_texld_coordinate_width(dcl, stype, width):
    _, sample = sample_of(f"ps_2_0\ndcl t0\n{dcl} s0\ntexld r0, t0, s0\nmov oC0, r0\n")
    assert sample.imm == (SampleKind.PLAIN, stype)
    assert sample.var.name == "s0" and sample.args[0].type.width == width and len(sample.args) == 1


def test_unknown_sampler_type_comes_from_options():
    program = lift_asm("ps_2_0\ndcl t0\ndcl_2d s1\ntexld r0, t0, s1\nmov oC0, r0\n")
    (s1,) = [v for v in program.variables if v.name == "s1"]
    s1.sampler_type = SamplerType.UNKNOWN
    run_pass("texture", program, Options(sampler_types=((1, SamplerType.CUBE),)))
    (sample,) = ops_of(program, Code.SAMPLE)
    assert sample.imm[1] is SamplerType.CUBE and sample.args[0].type.width == 3


def test_texldp_divides_by_w():
    seen = []
    text = "ps_2_0\ndcl t0\ndcl_2d s0\ntexldp r0, t0, s0\nmov oC0, r0\n"
    run_asm(text, {"t0": (2, 4, 6, 2)}, sampler=lambda op, args: seen.append(args) or np.zeros(4))
    (args,) = seen
    assert list(args[0]) == [1, 2]


@pytest.mark.parametrize("text, kind, extra", [
    ("ps_2_0\ndcl t0\ndcl_2d s0\ntexldb r0, t0, s0\nmov oC0, r0\n", SampleKind.BIAS, 0.5),
    ("ps_3_0\ndcl_texcoord0 v0\ndcl_2d s0\ntexldl r0, v0, s0\nmov oC0, r0\n", SampleKind.LOD, 0.5),
    ("vs_3_0\ndcl_position v0\ndcl_2d s0\ntexldl r0, v0, s0\n", SampleKind.LOD, 0.5),
    ("vs_3_0\ndcl_position v0\ndcl_2d s0\ntexld r0, v0, s0\n", SampleKind.LOD, 0.0),  # no derivatives in a VS
])
def test_bias_and_lod(text, kind, extra):
    _, sample = sample_of(text)
    assert sample.imm[0] is kind
    seen = []
    coord = {"t0": (1, 2, 3, 0.5), "v0": (1, 2, 3, 0.5)}
    run_asm(text, coord, sampler=lambda op, args: seen.append(args) or np.zeros(4))
    assert list(seen[0][0]) == [1, 2] and list(seen[0][1]) == [extra]


def test_texldd_gradients():
    text = "ps_3_0\ndcl_texcoord0 v0\ndcl_volume s0\ntexldd r0, v0, s0, c0, c1\nmov oC0, r0\n"
    _, sample = sample_of(text)
    assert sample.imm == (SampleKind.GRAD, SamplerType.VOLUME)
    assert [a.type.width for a in sample.args] == [3, 3, 3]


def test_sm3_sampler_swizzle_applies_to_the_texel():
    text = "ps_3_0\ndcl_texcoord0 v0\ndcl_2d s0\ntexld r0, v0, s0.yxwz\nmov oC0, r0\n"
    out = run_asm(text, sampler=lambda op, args: np.float32([1, 2, 3, 4]))
    assert list(out["r0"]) == [2, 1, 4, 3]


@pytest.mark.parametrize("value, killed", [
    ((1, 1, 1, 1), False), ((1, -1, 1, 1), True), ((1, 1, 1, -0.5), True), ((0, -0.0, 0, 0), False),
])
def test_texkill(value, killed):
    text = "ps_2_0\ndcl t0\ntexkill t0\nmov oC0, t0\n"
    program = lower(text, only="texture")
    i = codes(program).index(Code.BANY)
    assert codes(program)[i - 2:i + 4] == [Code.CONST, Code.FLT, Code.BANY, Code.IF, Code.DISCARD, Code.ENDIF]
    assert Opcode.TEXKILL not in d3d_opcodes(program)
    assert run_asm(text, {"t0": value})["discarded"] is killed


def test_dsx_dsy():
    program = lower("ps_2_x\ndcl t0\ndsx r0, t0\ndsy r1, t0\nadd r0, r0, r1\nmov oC0, r0\n", only="texture")
    assert Code.FDDX in codes(program) and Code.FDDY in codes(program)
    assert d3d_opcodes(program) == [Opcode.ADD, Opcode.MOV]


def test_ps_1_x_texture_ops_are_left_for_the_sm1_pass():
    # The sm2+ texture pass leaves ps_1_x texture-address ops to texture_sm1.
    program = lower("ps_1_1\ntex t0\ntexcoord t1\ntexkill t2\nmov r0, t0\n", only="texture")
    assert d3d_opcodes(program) == [Opcode.TEX, Opcode.TEXCOORD, Opcode.TEXKILL, Opcode.MOV]
