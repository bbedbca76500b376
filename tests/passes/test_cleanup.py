"""Dead code, peepholes, constant folding (xlate/passes/cleanup.py)."""

from __future__ import annotations

import copy
import glob
import os

import numpy as np
import pytest

from xlate.bytecode.tables import RegisterType

from xlate.bytecode import decode
from xlate.errors import XlateError
from xlate.ir.builder import lift
from xlate.ir.ops import Code
from xlate.ir.program import Storage
from xlate.ir.program import CONSTANT_FILES
from xlate.ir.types import B1, F1, F4, I1
from xlate.ir.validate import validate
from xlate.options import Options
from xlate.passes import run_pass

from .conftest import ops_of
from .ireval import evaluate
from .irbuild import IRBuilder


def cleanup(program):
    run_pass("cleanup", program, Options())
    validate(program)
    return program


def test_swizzle_peepholes():
    b = IRBuilder()
    v = b.var("v", Storage.INPUT)
    out = b.var("o", Storage.OUTPUT)
    x = b.load(v)
    ident = b.swizzle(x, 0, 1, 2, 3)
    twice = b.swizzle(b.swizzle(ident, 3, 2, 1, 0), 3, 2, 1, 0)  # back to identity
    picked = b.swizzle(b.swizzle(x, 2, 2, 0, 1), 1, 3)  # = x.zy
    b.store(out, twice)
    b.store(out, picked, mask=0b0011)
    b.store(out, b.swizzle(b.const(1.0, 2.0, 3.0, 4.0), 3, 0), mask=0b1100)
    cleanup(b.program)
    stores = ops_of(b.program, Code.STORE)
    assert stores[0].args[0] is x
    assert stores[1].args[0].code is Code.SWIZZLE and stores[1].args[0].imm == (2, 1) and stores[1].args[0].args[0] is x
    assert stores[2].args[0].code is Code.CONST and stores[2].args[0].imm == (4.0, 1.0)
    assert len(ops_of(b.program, Code.SWIZZLE)) == 1


@pytest.mark.parametrize("code, args, expected", [
    (Code.FADD, ((0.1,), (0.2,)), (float(np.float32(0.1) + np.float32(0.2)),)),
    (Code.FMUL_LEGACY, ((0.0,), (float("inf"),)), (0.0,)),
    (Code.FMUL, ((3.0,), (-2.0,)), (-6.0,)),
    (Code.FSATURATE, ((float("nan"),),), (0.0,)),
    (Code.FNEG, ((1.5,),), (-1.5,)),
    (Code.FMAD, ((2.0,), (3.0,), (1.0,)), (7.0,)),
])
def test_float_folding_is_float32(code, args, expected):
    b = IRBuilder()
    out = b.var("o", Storage.OUTPUT, F1)
    b.store(out, b.op(code, *[b.const(*a) for a in args]))
    cleanup(b.program)
    (store,) = ops_of(b.program, Code.STORE)
    assert store.args[0].code is Code.CONST and store.args[0].imm == expected


def test_int_and_bool_folding():
    b = IRBuilder()
    n = b.var("n", Storage.OUTPUT, I1)
    f = b.var("f", Storage.OUTPUT, F1)
    b.store(n, b.op(Code.IADD, b.const(2**31 - 1), b.const(1)))  # wraps
    lt = b.cmp(Code.ILT, b.const(1), b.const(2))
    b.store(f, b.op(Code.SELECT, b.op(Code.BNOT, lt), b.const(1.0), b.const(2.0), type=F1))
    cleanup(b.program)
    values = [op.args[0].imm for op in ops_of(b.program, Code.STORE)]
    assert values == [(-2**31,), (2.0,)]
    assert [op.code for op in b.program.main.body] == [Code.CONST, Code.STORE, Code.CONST, Code.STORE]


def test_unused_values_go_effects_stay():
    b = IRBuilder("ps_3_0")
    v = b.var("v", Storage.INPUT)
    x = b.load(v)
    b.op(Code.FADD, x, b.op(Code.FMUL, x, x))  # unused chain
    b.if_(b.cmp(Code.FLT, b.swizzle(x, 0), b.const(0.0)))
    b.emit(Code.DISCARD)
    b.endif()
    cleanup(b.program)
    assert [op.code for op in b.program.main.body] == [
        Code.LOAD, Code.SWIZZLE, Code.CONST, Code.FLT, Code.IF, Code.DISCARD, Code.ENDIF]


def test_dead_stores_go_but_loop_carried_stores_stay():
    b = IRBuilder()
    r0, r1, n = b.temp(0), b.temp(1), b.var("n", Storage.LOCAL, I1)
    out = b.var("o", Storage.OUTPUT)
    b.store(r0, b.const(0.0, 0.0, 0.0, 0.0))
    dead = b.store(r1, b.const(5.0, 5.0, 5.0, 5.0))  # overwritten before any read
    b.store(r1, b.const(1.0, 1.0, 1.0, 1.0))
    b.counted_loop(n, 4)
    acc = b.op(Code.FADD, b.load(r0), b.load(r1))
    carried = b.store(r0, acc)  # read by the next iteration only
    b.end_counted(n)
    b.store(out, b.load(r0))
    after = b.store(r0, b.const(9.0, 9.0, 9.0, 9.0))  # dead: main ends
    before = evaluate(b.program)["o"]
    cleanup(b.program)
    body = b.program.main.body
    assert carried in body and dead not in body and after not in body
    np.testing.assert_array_equal(evaluate(b.program)["o"], before)
    np.testing.assert_array_equal(before, [4, 4, 4, 4])


def test_store_read_by_a_later_iteration_through_a_partial_mask():
    b = IRBuilder()
    r0, n = b.temp(0), b.var("n", Storage.LOCAL, I1)
    out = b.var("o", Storage.OUTPUT, F1)
    b.counted_loop(n, 3)
    y = b.swizzle(b.load(r0), 1)
    b.store(out, y)
    b.store(r0, b.op(Code.FADD, y, b.const(1.0)), mask=0b0010)  # only .y, read next time round
    b.store(r0, b.const(7.0), mask=0b0001)  # .x: never read
    b.end_counted(n)
    cleanup(b.program)
    masks = [op.imm[0] for op in ops_of(b.program, Code.STORE) if op.var is r0]
    assert masks == [0b0010]
    assert evaluate(b.program)["o"][0] == 2.0


def test_straight_line_dead_stores_free_what_they_stored():
    """A dead STORE frees its value, which may be the only read of another
    register, whose STORE is then dead too (the fallback of the one-walk
    check, ``sweep_with_stores``, finds the whole chain at once)."""
    b = IRBuilder()
    r0, r1, r2 = b.temp(0), b.temp(1), b.temp(2)
    v, out = b.var("v", Storage.INPUT), b.var("o", Storage.OUTPUT)
    x = b.load(v)
    b.store(r0, x)
    b.store(r1, b.swizzle(b.load(r0), 3, 2, 1, 0))
    b.store(r2, b.op(Code.FADD, b.load(r1), x))  # never read: r1, then r0, are not needed either
    b.store(r0, b.const(1.0, 2.0), mask=0b0011)
    kept = b.store(out, b.load(r0))  # reads r0.xy from the last store, r0.zw from the first
    cleanup(b.program)
    body = b.program.main.body
    assert kept in body
    assert [op.imm[0] for op in ops_of(b.program, Code.STORE) if op.var is r0] == [0xF, 0b0011]
    assert [v.name for v in b.program.variables] == ["r0", "v", "o"]
    assert not ops_of(b.program, Code.FADD) and not ops_of(b.program, Code.SWIZZLE)


def test_partial_overwrites_keep_the_components_still_read():
    b = IRBuilder()
    r0 = b.temp(0)
    out = b.var("o", Storage.OUTPUT, F1)
    first = b.store(r0, b.const(1.0, 2.0, 3.0, 4.0))  # .y is read below
    dead = b.store(r0, b.const(5.0, 6.0), mask=0b0101)  # .x and .z: overwritten, never read
    b.store(r0, b.const(7.0, 8.0), mask=0b0101)
    b.store(out, b.swizzle(b.load(r0), 1))
    cleanup(b.program)
    body = b.program.main.body
    assert first in body and dead not in body


def test_a_subroutine_keeps_its_last_stores_only():
    """What a subroutine leaves in a register the caller may read; what it
    overwrites itself before returning is dead."""
    b = IRBuilder()
    r0 = b.temp(0)
    out = b.var("o", Storage.OUTPUT)
    b.call("l1")
    b.store(out, b.load(r0))
    b.function("l1")
    overwritten = b.store(r0, b.const(1.0, 1.0, 1.0, 1.0))
    last = b.store(r0, b.const(2.0, 2.0, 2.0, 2.0))
    cleanup(b.program)
    body = b.program.functions["l1"].body
    assert overwritten not in body and last in body
    np.testing.assert_array_equal(evaluate(b.program)["o"], [2, 2, 2, 2])


def test_indexed_private_arrays_are_followed_element_by_element():
    b = IRBuilder()
    arr = b.var("a", Storage.LOCAL, F4, length=4)
    out = b.var("o", Storage.OUTPUT)
    i = b.var("i", Storage.INPUT, I1)
    b.store(arr, b.const(1.0, 1.0, 1.0, 1.0), element=0)
    b.store(arr, b.const(2.0, 2.0, 2.0, 2.0), element=1)
    dead = b.store(arr, b.const(3.0, 3.0, 3.0, 3.0), element=3)  # overwritten below, never read before
    b.store(arr, b.const(4.0, 4.0, 4.0, 4.0), element=3)
    iv = b.load(i)
    ok = b.op(Code.BAND, b.cmp(Code.IGE, iv, b.const(0)), b.cmp(Code.ILT, iv, b.const(4)), type=B1)
    index = b.op(Code.SELECT, ok, iv, b.const(0), type=I1)
    b.store(out, b.load(arr, element=0, index=index))
    cleanup(b.program)
    stores = [op for op in ops_of(b.program, Code.STORE) if op.var is arr]
    assert dead not in stores and len(stores) == 3


def _random_program(seed: int, function: str) -> "IRBuilder":
    """Stores to three temps and a scalar under random masks, reads of them
    through random swizzles or whole, values nobody uses, nested
    IF/ELSE/ENDIF and LOOP/ENDLOOP, BREAK, RETURN and CALLs of a subroutine,
    with odd seeds stores to and loads of a private array (static and
    dynamic indices), in ``function`` (main, or a subroutine that main
    calls).  (A scalar takes x under any mask with
    x: the others must not count.)"""
    rng = np.random.default_rng(seed)
    b = IRBuilder("ps_3_0")
    temps = [b.temp(n) for n in range(3)]
    v, out = b.var("v", Storage.INPUT), b.var("o", Storage.OUTPUT)
    scalar, scalar_out = b.var("s", Storage.LOCAL, F1), b.var("o1", Storage.OUTPUT, F1)
    if function != "main":
        b.call(function)
        b.store(out, b.load(temps[0]))
        b.function(function)

    def condition():
        return b.cmp(Code.FLT, b.swizzle(b.load(v), int(rng.integers(0, 4))), b.const(0.0))

    blocks: list[list] = []  # open blocks, innermost last: ["if", ELSE seen] / ["loop"]
    callee = False
    arrays = seed % 2 == 1  # (``sweep`` leaves a function with an array to ``sweep_slots``)
    arr, i = b.var("a", Storage.LOCAL, F4, length=3), b.var("i", Storage.INPUT, I1)
    for _ in range(int(rng.integers(4, 40))):
        choice = rng.integers(0, 16)
        if choice <= 1:
            mask = int(rng.integers(1, 16))
            width = bin(mask).count("1")
            src = b.load(temps[rng.integers(0, 3)] if rng.integers(0, 2) else v)
            b.store(temps[rng.integers(0, 3)], b.swizzle(src, *rng.integers(0, 4, width).tolist()), mask=mask)
        elif choice == 2:
            b.store(out, b.swizzle(b.load(temps[rng.integers(0, 3)]), *rng.integers(0, 4, 4).tolist()))
        elif choice == 3:
            b.op(Code.FADD, b.load(temps[rng.integers(0, 3)]), b.load(v))  # nobody uses it
        elif choice == 4:
            b.store(scalar, b.swizzle(b.load(v), int(rng.integers(0, 4))), mask=int(rng.integers(0, 8)) * 2 + 1)
        elif choice == 5:
            x = b.load(scalar)
            b.store(scalar_out, b.op(Code.FADD, x, x) if rng.integers(0, 2) else b.swizzle(x, 0))
        elif choice == 6 and len(blocks) < 4:
            b.if_(condition())
            blocks.append(["if", False])
        elif choice == 7 and blocks and blocks[-1] == ["if", False]:
            b.else_()
            blocks[-1][1] = True
        elif choice == 8 and blocks and blocks[-1][0] == "if":
            b.endif()
            blocks.pop()
        elif choice == 9 and len(blocks) < 4:
            b.loop()
            blocks.append(["loop"])
        elif choice == 10 and blocks and blocks[-1][0] == "loop":
            b.if_(condition())
            b.brk()
            b.endif()
            b.endloop()
            blocks.pop()
        elif choice == 11 and any(block[0] == "loop" for block in blocks):
            b.if_(condition())
            b.brk()
            b.endif()
        elif choice == 12 and rng.integers(0, 3) == 0:
            b.if_(condition())
            b.ret()
            b.endif()
        elif choice == 13 and rng.integers(0, 2) == 0:
            b.call("l2")  # reads every temp, may write any
            callee = True
        elif choice == 14 and arrays:
            index = b.load(i) if rng.integers(0, 3) == 0 else None
            value = b.swizzle(b.load(temps[rng.integers(0, 3)]), *rng.integers(0, 4, 4).tolist())
            b.store(arr, value, mask=int(rng.integers(1, 16)), element=int(rng.integers(0, 3)), index=index)
        elif choice == 15 and arrays:
            index = b.load(i) if rng.integers(0, 2) == 0 else None
            b.store(out, b.swizzle(b.load(arr, element=int(rng.integers(0, 3)), index=index), 2, 1, 0, 3))
    for block in reversed(blocks):
        if block[0] == "loop":
            b.brk()
            b.endloop()
        else:
            b.endif()
    if callee:
        b.function("l2")
        b.store(temps[0], b.load(temps[1]), mask=int(rng.integers(1, 16)))
    return b


@pytest.mark.parametrize("function", ["main", "l1"])
@pytest.mark.parametrize("seed", range(100))
def test_the_sweep_agrees_with_the_register_analysis(seed, function):
    """``sweep`` (two cheap walks, per-variable masks, IF/ELSE joins, loops to
    a fixpoint; its straight-line fallback) removes what alternating
    ``remove_unused_values`` and ``remove_dead_stores`` removes."""
    from xlate.passes.cleanup import remove_dead_code

    fast = _random_program(seed, function).program
    reference = copy.deepcopy(fast)
    results = []
    for program, dead_code in ((fast, remove_dead_code), (reference, _dead_code_by_register_analysis)):
        fn = program.functions[function]
        place = {id(op): i for i, op in enumerate(fn.body)}
        dead_code(program, fn)
        results.append([place[id(op)] for op in fn.body])
    assert results[0] == results[1]


@pytest.mark.parametrize("function", ["main", "l1"])
@pytest.mark.parametrize("seed", range(100))
def test_the_slot_sweep_agrees_with_the_register_analysis(seed, function):
    """``sweep_slots`` (what ``sweep`` leaves: arrays, loops in a subroutine)
    on every random program: it keeps what the rounds keep."""
    fast = _random_program(seed, function).program
    reference = copy.deepcopy(fast)
    results = []
    for program, dead_code in ((fast, _dead_code_by_slots), (reference, _dead_code_by_register_analysis)):
        fn = program.functions[function]
        place = {id(op): i for i, op in enumerate(fn.body)}
        dead_code(program, fn)
        results.append([place[id(op)] for op in fn.body])
    assert results[0] == results[1]


def _dead_code_by_slots(program, fn):
    from xlate.passes.sweep_slots import sweep_slots

    fn.body = sweep_slots(program, fn)[0]


def _dead_code_by_register_analysis(program, fn):
    from xlate.passes.cleanup import remove_dead_stores, remove_unused_values

    while True:
        remove_unused_values(fn)
        if not remove_dead_stores(program, fn):
            break


def test_stores_before_calls_and_in_subroutines_stay():
    b = IRBuilder()
    r0, r1 = b.temp(0), b.temp(1)
    out = b.var("o", Storage.OUTPUT)
    before_call = b.store(r0, b.const(1.0, 2.0, 3.0, 4.0))
    b.call("l1")
    b.store(out, b.load(r1))
    b.function("l1")
    in_sub = b.store(r1, b.op(Code.FADD, b.load(r0), b.load(r0)))
    cleanup(b.program)
    assert before_call in b.program.main.body and in_sub in b.program.functions["l1"].body
    np.testing.assert_array_equal(evaluate(b.program)["o"], [2, 4, 6, 8])


def test_static_branches_fold():
    b = IRBuilder()
    out = b.var("o", Storage.OUTPUT, F1)
    b.if_(b.const(True))
    b.store(out, b.const(1.0))
    b.else_()
    b.store(out, b.const(2.0))
    b.endif()
    b.if_(b.const(False))
    b.if_(b.cmp(Code.FLT, b.const(0.0), b.swizzle(b.load(b.var("v", Storage.INPUT)), 0)))
    b.store(out, b.const(3.0))
    b.endif()
    b.endif()
    cleanup(b.program)
    assert [op.code for op in b.program.main.body] == [Code.CONST, Code.STORE]
    assert b.program.main.body[0].imm == (1.0,)


def test_only_conditions_constant_before_the_peepholes_fold_branches():
    """Static branches are those of the input (folded DEFBs, ``ifc`` 0/7): an
    IF whose condition only the peepholes make constant stays an IF."""
    b = IRBuilder()
    out = b.var("o", Storage.OUTPUT, F1)
    x = b.cmp(Code.FLT, b.swizzle(b.load(b.var("v", Storage.INPUT)), 0), b.const(0.0))
    b.if_(b.cmp(Code.FLT, b.const(0.0), b.const(1.0)))  # folded to true by a peephole
    b.store(out, b.const(1.0))
    b.endif()
    b.if_(b.op(Code.SELECT, b.const(True), b.const(False), x, type=B1))  # replaced by the CONST false
    b.store(out, b.const(2.0))
    b.endif()
    b.if_(b.const(False))  # static: goes
    b.store(out, b.const(3.0))
    b.endif()
    cleanup(b.program)
    ifs = ops_of(b.program, Code.IF)
    assert [i.args[0].imm for i in ifs] == [(True,), (False,)]
    assert [s.args[0].imm for s in ops_of(b.program, Code.STORE)] == [(1.0,), (2.0,)]


def test_unused_private_variables_are_dropped():
    b = IRBuilder()
    r0 = b.temp(0)
    b.var("o", Storage.OUTPUT)
    b.store(r0, b.const(1.0, 1.0, 1.0, 1.0))
    cleanup(b.program)
    assert [v.name for v in b.program.variables] == ["o"]


# -- equivalence on real shaders --------------------------------------------------------

CORPUS = "/work/shared/peer-corpus/fxc-wine/dxdecompiler"
VKD3D = "/work/shared/peer-corpus/vkd3d"
LATE = ("relative", "constants", "cleanup")
EARLY = ("matrix", "source_modifiers", "arithmetic", "special", "texture", "destination")


def _eligible(path) -> bool:
    """SM2/SM3 shaders (not effects, not sm1, whose texture ops are lowered
    by a later pass) without register-file indexing, which ireval does not
    model.  Filtering here keeps the test from reporting skips."""
    try:
        shader = decode(open(path, "rb").read())
    except XlateError:
        return False
    if shader.version.major < 2:
        return False
    return not any(
        s.relative is not None and s.type in (RegisterType.INPUT, RegisterType.TEXCRDOUT)
        for inst in shader.instructions for s in (*inst.srcs, *((inst.dst,) if inst.dst else ()))
    )


def _corpus_sample(n=240):
    files = sorted(glob.glob(os.path.join(CORPUS, "*.bin"))) + sorted(glob.glob(os.path.join(VKD3D, "*.d3dbc")))
    files = [f for f in files if _eligible(f)]
    return files[:: max(1, len(files) // n)]


def _random_inputs(program, rng):
    """Random values for every input and constant; DEF'd registers are left
    alone (ireval lets given values override DEFs; D3D does not)."""
    inputs = {}
    defined = {(d.storage, d.index) for d in program.defs}
    for var in program.variables:
        if var.storage is Storage.INPUT:
            inputs[var.name] = rng.uniform(-4, 4, var.type.width).astype(np.float32)
        elif var.storage is Storage.FLOAT_CONST:
            inputs[var.name] = {k: rng.uniform(-4, 4, 4).astype(np.float32) for k in range(var.length)}
        elif var.storage is Storage.INT_CONST:  # small loop counts
            inputs[var.name] = {k: (int(rng.integers(0, 4)), int(rng.integers(0, 8)), 1, 0) for k in range(var.length)}
        elif var.storage is Storage.BOOL_CONST:
            inputs[var.name] = {k: (bool(rng.integers(0, 2)),) for k in range(var.length)}
        if var.length is not None:
            inputs[var.name] = {k: v for k, v in inputs[var.name].items() if (var.storage, k) not in defined}
    return inputs


@pytest.mark.skipif(not os.path.isdir(CORPUS), reason="peer corpus not available")
@pytest.mark.parametrize("path", _corpus_sample(), ids=os.path.basename)
def test_late_passes_keep_what_a_shader_computes(path):
    program = lift(decode(open(path, "rb").read()))
    for name in EARLY:
        run_pass(name, program, Options())
    assert not any(op.code.name.startswith("D3D_") for _, op in program.all_ops())
    reference = copy.deepcopy(program)
    for name in LATE:
        run_pass(name, program, Options())
    validate(program)
    outputs = [v.name for v in reference.variables if v.storage is Storage.OUTPUT]
    rng = np.random.default_rng(1234)
    for _ in range(3):
        inputs = _random_inputs(reference, rng)
        try:
            want = evaluate(reference, inputs)
        except NotImplementedError as e:
            pytest.skip(f"ireval: {e}")
        got = evaluate(program, inputs)
        assert got["discarded"] == want["discarded"]
        for name in outputs:
            if name in got or not want["discarded"]:
                np.testing.assert_array_equal(got[name], want[name], err_msg=name)


@pytest.mark.parametrize("text, options, expected", [
    # vs_2_0 with fixed outputs: 10 defaults (CONST + STORE each) and the position fix-up
    ("vs_2_0\ndcl_position v0\nmov oPos, v0\nmov oD0, v0\n",
     Options(fixed_outputs=True, half_pixel=True, flip_y=True, clip_z=True), "islands"),
    ("vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n", Options(), "islands"),
    # a register with two semantics is a LOCAL copied out at the end: not an island
    ("vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord0 o1.xy\ndcl_texcoord1 o1.zw\n"
     "mov o0, v0\nmov o1, v0\n", Options(), None),
    # vPos becomes a LOCAL set in the prologue: not an island
    ("ps_3_0\ndcl vPos.xy\nmov oC0, vPos.xyxy\n", Options(), None),
])
def test_io_islands_are_left_as_cleanup_leaves_them(text, options, expected):
    """``io.run`` reports its prologue and epilogue as islands only when
    cleanup would keep them as they are; cleanup given them gives what it
    gives without them."""
    from xlate.ir.printer import format_program
    from xlate.passes import PIPELINE, cleanup, io

    from .conftest import lift_asm

    def through_io():
        program = lift_asm(text)
        for name in PIPELINE[:PIPELINE.index("io")]:
            run_pass(name, program, options)
        return program

    program = through_io()
    islands = io.run(program, options)
    if expected is None:
        assert islands is None
        return
    assert islands is not None and islands[0] + islands[1] > 0
    # nothing cleanup's summary counts (it leaves the islands out of its walks)
    body = program.main.body
    for op in body[:islands[0]] + body[len(body) - islands[1]:]:
        assert op.code not in (Code.CALL, Code.FMUL_LEGACY, Code.FDOT_LEGACY, Code.D3D_OP, Code.D3D_SRCMOD)
        assert not (op.code is Code.LOAD and op.var.storage in CONSTANT_FILES)
    reference = through_io()
    io.run(reference, options)
    run_pass("cleanup", reference, options)
    cleanup.run(program, options, islands)
    assert format_program(program) == format_program(reference)
