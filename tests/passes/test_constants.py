"""DEF/DEFI/DEFB folding and constant-file trimming (xlate/passes/constants.py)."""

from __future__ import annotations

import numpy as np

from xlate.ir.ops import Code
from xlate.ir.program import Storage
from xlate.ir.types import B1, I1, I4
from xlate.ir.validate import validate
from xlate.options import Options
from xlate.passes import run_pass

from .conftest import lower, ops_of
from .ireval import evaluate
from .irbuild import IRBuilder


def finish(program, passes=("relative", "constants", "cleanup")):
    for name in passes:
        run_pass(name, program, Options())
    validate(program)
    return program


def var(program, name):
    found = [v for v in program.variables if v.name == name]
    return found[0] if found else None


def test_static_def_becomes_a_const_and_the_file_goes():
    program = finish(lower("vs_2_0\ndef c3, 1, 2, 3, 4\ndcl_position v0\nmov oPos, c3\n"))
    assert var(program, "c") is None  # nothing loads c# any more
    assert program.notes["defs"] == [("c", 3, (1.0, 2.0, 3.0, 4.0))]
    assert program.notes["array_ranges"] == {}
    (store,) = ops_of(program, Code.STORE)
    assert store.args[0].code is Code.CONST and store.args[0].imm == (1.0, 2.0, 3.0, 4.0)


def test_last_def_wins():
    program = finish(lower("vs_2_0\ndef c0, 1, 1, 1, 1\ndef c0, 2, 2, 2, 2\nmov oPos, c0\n"))
    (store,) = ops_of(program, Code.STORE)
    assert store.args[0].imm == (2.0,) * 4
    assert [d[2] for d in program.notes["defs"]] == [(2.0,) * 4, (2.0,) * 4]


DYNAMIC = """vs_2_0
def c3, 7, 8, 9, 10
dcl_position v0
mova a0.x, v0.x
mov oPos, c[a0.x+1]
mov oD0, c3
mov oD1, c4
"""


def test_dynamic_reads_see_defs_without_the_runtime():
    program = finish(lower(DYNAMIC))
    program.defs = []  # the translated shader must not need them
    app = {k: (k, k, k, k) for k in range(256)}  # the application's values (c3 differs from the DEF)
    for a0, expected in [(2, (7, 8, 9, 10)), (3, (4, 4, 4, 4)), (0, (1, 1, 1, 1)), (255, (0, 0, 0, 0))]:
        result = evaluate(program, {"v0": (a0, 0, 0, 0), "c": app})
        np.testing.assert_array_equal(result["oPos"], expected)
        np.testing.assert_array_equal(result["oD0"], [7, 8, 9, 10])  # static: folded
        np.testing.assert_array_equal(result["oD1"], [4, 4, 4, 4])
    assert program.notes["array_ranges"] == {"c": (0, 256)}
    # one IEQ against the DEF'd register feeds the chain
    eqs = [op for op in ops_of(program, Code.IEQ)]
    assert len(eqs) == 1 and eqs[0].args[1].imm == (3,)


def test_defs_outside_the_index_range_are_not_chained():
    b = IRBuilder("vs_2_0")
    c = b.c_array(16)
    b.define(Storage.FLOAT_CONST, 9, 1.0, 1.0, 1.0, 1.0)
    b.define(Storage.FLOAT_CONST, 3, 5.0, 5.0, 5.0, 5.0)
    out = b.var("o", Storage.OUTPUT)
    cond = b.cmp(Code.FGT, b.swizzle(b.load(b.var("v", Storage.INPUT)), 0), b.const(0.0))
    index = b.op(Code.SELECT, cond, b.const(0), b.const(2), type=I1)  # reads c4 or c6
    b.store(out, b.load(c, element=4, index=index))
    run_pass("constants", b.program, Options())
    validate(b.program)
    assert not ops_of(b.program, Code.IEQ)
    assert b.program.notes["array_ranges"] == {"c": (4, 3)}
    assert c.length == 7


def test_array_ranges_cover_what_is_still_loaded():
    program = finish(lower("vs_2_0\ndcl_position v0\nadd r0, v0, c2\nadd oPos, r0, c7\n"))
    assert program.notes["array_ranges"] == {"c": (2, 6)}
    assert var(program, "c").length == 8


def test_defb_folds_into_a_static_branch():
    text = """vs_2_0
defb b0, true
defb b1, false
dcl_position v0
if b0
mov oPos, v0
else
mov oPos, -v0
endif
if b1
mov oD0, c0
endif
"""
    program = finish(lower(text))
    assert not ops_of(program, Code.IF)
    assert var(program, "b") is None
    assert ("b", 0, (True,)) in program.notes["defs"]
    result = evaluate(program, {"v0": (1, 2, 3, 4)})
    np.testing.assert_array_equal(result["oPos"], [1, 2, 3, 4])


def test_defi_folds_the_loop_count():
    text = """vs_2_0
defi i0, 3, 0, 0, 0
dcl_position v0
mov r0, c0
rep i0
add r0, r0, v0
endrep
mov oPos, r0
"""
    program = finish(lower(text))
    assert var(program, "i") is None
    (count,) = [op for op in ops_of(program, Code.STORE) if op.var.name.endswith("_count")
                and op.args[0].code is Code.CONST and op.args[0].imm == (3,)]
    assert count
    result = evaluate(program, {"v0": (1, 2, 3, 4), "c": {0: (10, 10, 10, 10)}})
    np.testing.assert_array_equal(result["oPos"], [13, 16, 19, 22])


def test_ps1_defs_are_clamped():
    program = lower("ps_1_1\ndef c0, 2, -3, 0.5, 1\nmov r0, c0\n")
    finish(program)
    stores = [op for op in ops_of(program, Code.STORE) if op.var.storage is Storage.OUTPUT]
    value = evaluate(program)["oC0"]
    np.testing.assert_array_equal(value, [1, -1, 0.5, 1])
    assert program.notes["defs"] == [("c", 0, (1.0, -1.0, 0.5, 1.0))]
    assert stores


def test_bool_and_int_const_values_have_their_types():
    b = IRBuilder("vs_3_0")
    bools = b.var("b", Storage.BOOL_CONST, type=B1, length=2)
    ints = b.var("i", Storage.INT_CONST, type=I4, length=1)
    b.define(Storage.BOOL_CONST, 1, True)
    b.define(Storage.INT_CONST, 0, 4, 5, 6, 0)
    out = b.var("n", Storage.LOCAL, I1)
    b.if_(b.load(bools, element=1))
    b.store(out, b.swizzle(b.load(ints, element=0), 1))
    b.endif()
    run_pass("constants", b.program, Options())
    validate(b.program)
    consts = [op for op in b.program.main.body if op.code is Code.CONST]
    assert [(op.type.scalar.value, op.imm) for op in consts] == [("b", (True,)), ("i", (4, 5, 6, 0))]
