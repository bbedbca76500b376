"""rewrite: the walk every lowering pass shares (xlate/passes/rewrite.py).

What it must keep while it skips work: a body without a handled op stays as
it is; a D3D_OP lowered to one new last op becomes that op; values replaced
by existing ones reach their readers; the D3D census stays a superset of the
D3D ops present and is taken again after a hand edit."""

from __future__ import annotations

import pytest

from xlate.bytecode.tables import DeclUsage, Opcode, SrcMod
from xlate.ir.ops import Code, Op
from xlate.ir.types import F4
from xlate.options import Options
from xlate.passes import PASSES, arithmetic, matrix, pipeline, run_pass, special
from xlate.passes.rewrite import D3D_OP_READERS, d3d_census, rewrite

from .conftest import codes, lift_asm, lower, ops_of


def test_body_without_handled_ops_is_left_alone():
    program = lift_asm("vs_2_0\nadd r0, c0, c1\nmov oPos, r0\n")
    body = program.main.body
    rewrite(program, {Code.FDDX: lambda rw, op: None})
    assert program.main.body is body


def test_table_handler_value_becomes_the_d3d_op():
    program = lift_asm("vs_2_0\nadd r0, c0, c1\nmov oPos, r0\n")
    (add,) = [op for op in ops_of(program, Code.D3D_OP) if op.imm[0].opcode is Opcode.ADD]
    store = next(op for op in ops_of(program, Code.D3D_STORE) if op.args[0] is add)
    run_pass("arithmetic", program, Options())
    # the same object, now the FADD, still read by its D3D_STORE
    assert add.code is Code.FADD and store.args[0] is add
    assert add in program.main.body


def test_existing_value_reaches_the_d3d_store():
    # mov's value is its source: the D3D_STORE must read the source
    program = lift_asm("vs_2_0\nmov r0, c0\nmov oPos, r0\n")
    (mov, _) = ops_of(program, Code.D3D_OP)
    source = mov.args[0]
    run_pass("arithmetic", program, Options())
    first_store = ops_of(program, Code.D3D_STORE)[0]
    assert first_store.args[0] is source
    assert Code.D3D_OP not in codes(program)


def test_readers_get_the_replacement():
    # with readers given, only D3D_STOREs are remapped: they are the only readers
    program = lift_asm("vs_2_0\nmov r0, c0\nmov oPos, r0\n")
    table = {Opcode.MOV: lambda rw, op, ctx: op.args[0]}
    rewrite(program, {}, table, None, D3D_OP_READERS)
    assert Code.D3D_OP not in codes(program)
    assert all(op.args[0].code is not Code.D3D_OP for op in ops_of(program, Code.D3D_STORE))


def test_census_lists_d3d_ops_and_shrinks_as_they_are_lowered():
    program = lift_asm("vs_2_0\nm4x4 r0, v0, c0\nrsq r1.x, r0.w\nmov oPos, r1.x\n")
    census = d3d_census(program)
    assert {Opcode.M4x4, Opcode.RSQ, Opcode.MOV, Code.D3D_STORE} <= census
    matrix.run(program, Options())
    assert Opcode.M4x4 not in d3d_census(program)
    arithmetic.run(program, Options())
    assert Opcode.MOV not in d3d_census(program) and Opcode.RSQ in d3d_census(program)
    special.run(program, Options())
    assert not {Opcode.M4x4, Opcode.MOV, Opcode.RSQ} & d3d_census(program)
    assert not [op for op in ops_of(program, Code.D3D_OP)]


def test_census_is_taken_again_after_a_hand_edit():
    program = lift_asm("vs_2_0\nmov r0, c0\nmov oPos, r0\n")
    assert Code.D3D_SRCMOD not in d3d_census(program)
    body = program.main.body
    i = next(n for n, op in enumerate(body) if op.code is Code.D3D_OP)
    modded = Op(Code.D3D_SRCMOD, F4, (body[i].args[0],), (SrcMod.NEG,))
    body.insert(i, modded)  # the body is longer: the census no longer describes it
    assert Code.D3D_SRCMOD in d3d_census(program)


def test_skipped_passes_change_nothing():
    text = "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n"
    program = lower(text, until="arithmetic")
    before = [(op.code, op.args, op.imm) for op in program.main.body]
    run_pass("special", program, Options())  # no special instruction
    run_pass("matrix", program, Options())
    assert [(op.code, op.args, op.imm) for op in program.main.body] == before


def _pipeline_outcome(program, runs, options):
    from xlate.errors import XlateError
    from xlate.ir.printer import format_program

    try:
        for run in runs:
            run(program, options)
    except XlateError as e:
        return f"{type(e).__name__}: {e}"
    # every note but the census (which holds the bodies it describes)
    notes = {k: repr(v) for k, v in program.notes.items() if k != "d3d_census"}
    return format_program(program), notes


@pytest.mark.parametrize("corpus_name", ["wine", "vkd3d", "hlsldecompiler", "fxc-wine"])
def test_fused_steps_give_what_the_passes_give_one_by_one(corpus_name):
    """``run_passes`` runs ``pipeline`` (``lower`` for several passes in one
    walk, the survey's findings for the others); the IR must be exactly what
    ``PIPELINE`` run pass by pass gives."""
    from corpus import iter_corpus, require_corpus

    from xlate.backends import get_target, resolve_options
    from xlate.bytecode import decode
    from xlate.errors import XlateError
    from xlate.ir.builder import lift

    require_corpus()
    every = [Options(), resolve_options(get_target("glsl330"), Options()),
             Options(legacy_multiply=False, infinities="ieee", flip_y=True, fixed_outputs=True)]
    checked = 0
    for n, (_id, data) in enumerate(iter_corpus(corpus_name)):
        if corpus_name == "fxc-wine" and n % 4:
            continue  # a quarter is enough (and keeps the test quick)
        try:
            shader = decode(data)
            lift(shader)
        except XlateError:
            continue
        for options in every:
            fused = _pipeline_outcome(lift(shader), [pipeline], options)
            alone = _pipeline_outcome(lift(shader), PASSES.values(), options)
            assert fused == alone, (_id, options)
        checked += 1
    assert checked


def test_pipeline_on_hand_built_core_ir():
    """Core IR that lifting would not make (an FDDY, a dynamic index with
    no address register, a RETURN) still gets what the passes give it."""
    from xlate.ir.program import Semantic, Storage
    from xlate.ir.types import F1, I1

    from .irbuild import IRBuilder

    def build(kind: str):
        b = IRBuilder(kind)
        c = b.c_array(4)
        out = b.var("o0", Storage.OUTPUT, F4,
                    semantic=Semantic(DeclUsage.POSITION if kind.startswith("vs") else DeclUsage.COLOR, 0))
        index = b.const(2, type=I1)
        value = b.load(c, element=1, index=index)
        if kind.startswith("ps"):
            value = b.op(Code.FDDY, value)
        b.if_(b.cmp(Code.FLT, b.swizzle(value, 0), b.const(0.0, type=F1)))
        b.store(out, value)
        b.ret()
        b.endif()
        b.store(out, b.load(c, element=0))
        return b.program

    for kind in ("vs_3_0", "ps_3_0"):
        alone = _pipeline_outcome(build(kind), PASSES.values(), Options())
        assert _pipeline_outcome(build(kind), [pipeline], Options()) == alone, kind
