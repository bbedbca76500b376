"""The post-pass invariants (xlate/ir/validate.py): each rule caught, clearly."""

from __future__ import annotations

import pickle

import pytest

from passes.irbuild import IRBuilder
from xlate.bytecode import decode
from xlate.bytecode.asm import assemble_bytes
from xlate.bytecode.tables import RegisterType as R
from xlate.errors import StructureError, UnsupportedError, XlateError
from xlate.ir.builder import lift
from xlate.ir.ops import Code
from xlate.ir.program import Storage, Variable
from xlate.ir.types import F1, F3, F4, I1
from xlate.ir.validate import IRValidationError, index_range, validate


def guarded_index(b: IRBuilder, raw, length):
    ok = b.op(Code.BAND, b.cmp(Code.IGE, raw, b.const(0)), b.cmp(Code.ILT, raw, b.const(length)))
    return ok, b.op(Code.SELECT, ok, raw, b.const(0), type=I1)


def good_program() -> IRBuilder:
    b = IRBuilder("vs_3_0")
    c = b.c_array(8)
    r0, n = b.temp(0), b.var("n", Storage.LOCAL, I1)
    a0 = b.var("a0", Storage.ADDRESS, I1)
    out = b.var("o0", Storage.OUTPUT)
    fog = b.var("oFog", Storage.OUTPUT, F1)
    b.store(r0, b.load(c, element=2))
    b.counted_loop(n, 2)
    ok, idx = guarded_index(b, b.load(a0), 8)
    v = b.op(Code.SELECT, ok, b.load(c, element=0, index=idx), b.const(0.0, 0.0, 0.0, 0.0), type=F4)
    b.store(r0, b.op(Code.FADD, b.load(r0), v))
    b.end_counted(n)
    b.call("l1")
    b.store(out, b.load(r0))
    b.store(fog, b.swizzle(b.load(r0), 3))
    b.function("l1")
    b.store(r0, b.const(1.0, 2.0), mask=0b0101)
    return b


def rule(excinfo) -> str:
    return excinfo.value.rule.split(":")[0]


def test_a_good_program_passes():
    validate(good_program().program)


def test_error_kind():
    assert issubclass(IRValidationError, AssertionError)
    assert not issubclass(IRValidationError, XlateError)  # a bug, never "bad input"
    e = IRValidationError("main", None, "3: types agree", "detail")
    assert str(pickle.loads(pickle.dumps(e))) == str(e)


# -- rule 1 ---------------------------------------------------------------------------------


def test_remaining_texture_address_op_is_unsupported_with_its_offset():
    program = lift(decode(assemble_bytes("ps_1_1\ntex t0\ntexbem t1, t0\nmov r0, t1\n")))
    texbem = next(op for _, op in program.all_ops()
                  if op.code is Code.D3D_OP and op.imm[0].opcode.name == "TEXBEM")
    texbem.args = ()
    program.main.body = [texbem]
    with pytest.raises(UnsupportedError) as excinfo:
        validate(program)
    inst = program.instructions[texbem.origin]
    assert excinfo.value.offset == inst.offset
    assert excinfo.value.reason == (
        f"'texbem' (instruction {texbem.origin + 1}): ps_1_x texture-address operations are not supported yet")


def test_remaining_d3d_op_is_unsupported():
    program = lift(decode(assemble_bytes("vs_2_0\nmov oPos, c0\n")))
    with pytest.raises(UnsupportedError, match=r"'mov' \(instruction \d+\): this instruction is not supported yet"):
        validate(program)


# -- rule 2 ---------------------------------------------------------------------------------


def test_value_used_after_its_if_closed():
    b = good_program()
    main = b.function("main")
    b.if_(b.const(True))
    inner = b.const(1.0, 1.0, 1.0, 1.0)
    b.endif()
    b.store(b.temp(5), inner)
    with pytest.raises(IRValidationError, match="dominating") as excinfo:
        validate(b.program)
    assert rule(excinfo) == "2" and excinfo.value.function == main.name


def test_value_used_from_the_else_of_its_then():
    b = IRBuilder()
    r0 = b.temp(0)
    b.if_(b.const(True))
    then = b.const(1.0, 1.0, 1.0, 1.0)
    b.else_()
    b.store(r0, then)
    b.endif()
    with pytest.raises(IRValidationError) as excinfo:
        validate(b.program)
    assert rule(excinfo) == "2"


def test_value_from_another_function_or_later():
    b = IRBuilder()
    r0 = b.temp(0)
    value = b.const(1.0, 1.0, 1.0, 1.0)
    b.function("l1")
    b.store(r0, value)
    with pytest.raises(IRValidationError) as excinfo:
        validate(b.program)
    assert rule(excinfo) == "2" and excinfo.value.function == "l1"

    b = IRBuilder()
    r0 = b.temp(0)
    store = b.store(r0, b.const(1.0, 1.0, 1.0, 1.0))
    b.program.main.body.reverse()  # the store now comes before its value
    with pytest.raises(IRValidationError) as excinfo:
        validate(b.program)
    assert excinfo.value.op is store


def test_an_op_twice():
    b = IRBuilder()
    op = b.const(1.0)
    b.fn.body.append(op)
    with pytest.raises(IRValidationError, match="twice"):
        validate(b.program)


# -- rule 3 ---------------------------------------------------------------------------------


def _types_case(build):
    b = IRBuilder()
    build(b)
    with pytest.raises(IRValidationError) as excinfo:
        validate(b.program)
    assert rule(excinfo) == "3", excinfo.value
    return excinfo.value


def test_componentwise_widths():
    _types_case(lambda b: b.emit(Code.FADD, F4, (b.const(1.0, 1.0, 1.0, 1.0), b.const(1.0, 1.0, 1.0))))


def test_store_width_against_mask():
    _types_case(lambda b: b.store(b.temp(0), b.const(1.0, 1.0, 1.0), mask=0b0011))


def test_store_to_read_only():
    _types_case(lambda b: b.store(b.var("v0", Storage.INPUT), b.const(1.0, 1.0, 1.0, 1.0)))


def test_swizzle_index_out_of_range():
    _types_case(lambda b: b.emit(Code.SWIZZLE, F1, (b.const(1.0, 2.0, 3.0),), (3,)))


def test_compare_must_give_bools():
    _types_case(lambda b: b.emit(Code.FLT, F1, (b.const(1.0), b.const(2.0))))


def test_select_condition_width():
    _types_case(lambda b: b.emit(Code.SELECT, F3, (b.const(True, False), b.const(1.0, 1.0, 1.0), b.const(2.0, 2.0, 2.0))))


def test_dot_gives_f1():
    _types_case(lambda b: b.emit(Code.FDOT, F4, (b.const(1.0, 1.0, 1.0, 1.0), b.const(1.0, 1.0, 1.0, 1.0))))


def test_if_condition_is_b1():
    def build(b):
        b.if_(b.const(1.0))
        b.endif()
    _types_case(build)


def test_load_type_and_unknown_variable():
    _types_case(lambda b: b.emit(Code.LOAD, F3, (), (), b.temp(0)))
    _types_case(lambda b: b.emit(Code.LOAD, F4, (), (), Variable("ghost", Storage.TEMP, F4)))


# -- rule 4 ---------------------------------------------------------------------------------


@pytest.mark.parametrize("codes, words", [
    ((Code.ENDIF,), "'endif' without"),
    ((Code.LOOP, Code.ENDIF), "'endif' without"),
    ((Code.BREAK,), "'break' outside"),
    ((Code.LOOP,), "open block"),
    ((Code.ELSE,), "'else' without"),
    ((Code.IF, Code.ELSE, Code.ELSE), "'else' without"),
    ((Code.LOOP,) * 5 + (Code.ENDLOOP,) * 5, "nested 5 deep"),  # validity.py: 4 at most
])
def test_nesting(codes, words):
    b = IRBuilder()
    for code in codes:
        b.emit(code)
    with pytest.raises(IRValidationError, match=words) as excinfo:
        validate(b.program)
    assert rule(excinfo) == "4"


def test_calls_to_missing_labels_and_recursion_are_input_errors():
    b = IRBuilder()
    b.call("l7")
    with pytest.raises(StructureError, match="l7"):
        validate(b.program)
    b = IRBuilder()
    b.call("l1")
    b.function("l1")
    b.call("l2")
    b.function("l2")
    b.call("l1")
    with pytest.raises(StructureError, match="recursive"):
        validate(b.program)


# -- rule 5 ---------------------------------------------------------------------------------


def test_dynamic_index_on_a_register_variable():
    b = IRBuilder()
    v0 = b.var("v0", Storage.INPUT, register=(R.INPUT, 0))
    al = b.var("aL", Storage.LOOP_COUNTER, I1)
    b.store(b.temp(0), b.load(v0, index=b.load(al)))
    with pytest.raises(IRValidationError, match="not an array") as excinfo:
        validate(b.program)
    assert rule(excinfo) == "5"


@pytest.mark.parametrize("length, base, guard_length, ok", [
    (8, 0, 8, True), (8, 0, 9, False), (8, 1, 8, False), (8, 1, 7, True), (8, -1, 8, False),
])
def test_dynamic_reads_must_be_guarded(length, base, guard_length, ok):
    b = IRBuilder()
    c = b.c_array(length)
    a0 = b.var("a0", Storage.ADDRESS, I1)
    _, idx = guarded_index(b, b.load(a0), guard_length)
    b.store(b.temp(0), b.load(c, element=base, index=idx))
    if ok:
        validate(b.program)
    else:
        with pytest.raises(IRValidationError, match="bounds") as excinfo:
            validate(b.program)
        assert rule(excinfo) == "5"


def test_unguarded_dynamic_read_and_static_out_of_range():
    b = IRBuilder()
    c = b.c_array(4)
    b.store(b.temp(0), b.load(c, element=0, index=b.load(b.var("a0", Storage.ADDRESS, I1))))
    with pytest.raises(IRValidationError, match="bounds"):
        validate(b.program)
    b = IRBuilder()
    c = b.c_array(4)
    b.store(b.temp(0), b.load(c, element=4))
    with pytest.raises(IRValidationError, match="outside"):
        validate(b.program)


def test_index_range():
    b = IRBuilder()
    raw = b.load(b.var("a0", Storage.ADDRESS, I1))
    assert index_range(raw) == (None, None)
    assert index_range(b.const(5)) == (5, 5)
    _, idx = guarded_index(b, raw, 10)
    assert index_range(idx) == (0, 9)
    assert index_range(b.op(Code.IADD, idx, b.const(3))) == (3, 12)
    flipped = b.op(Code.SELECT, b.op(Code.BAND, b.cmp(Code.IGT, b.const(10), raw), b.cmp(Code.ILE, b.const(2), raw)),
                   raw, b.const(0), type=I1)  # 10 > x && 2 <= x
    assert index_range(flipped) == (0, 9)


# -- run_passes without full validation: what cleanup saw on its way --------------------------


def test_the_input_checks_hold_when_cleanup_tells_validate_what_it_saw(monkeypatch):
    """Without full validation ``run_passes`` hands ``validate`` what the
    cleanup pass found in its walks (no D3D op left, whether a CALL is):
    a D3D op no pass lowers and a recursive call are still refused."""
    from xlate.bytecode.tables import Opcode
    from xlate.options import Options
    from xlate.passes import lowering, run_passes

    monkeypatch.setenv("XLATE_VALIDATE", "0")
    monkeypatch.delitem(lowering._TABLES_SM2, Opcode.ADD)  # (as if no pass lowered add)
    program = lift(decode(assemble_bytes("vs_2_0\ndcl_position v0\nadd r0, v0, v0\nmov oPos, r0\n")))
    with pytest.raises(UnsupportedError, match=r"'add' \(instruction \d+\): this instruction is not supported yet"):
        run_passes(program, Options())
    monkeypatch.undo()
    monkeypatch.setenv("XLATE_VALIDATE", "0")
    recursive = "vs_2_0\ndcl_position v0\nmov oPos, v0\ncall l1\nret\nlabel l1\ncall l1\nret\n"
    with pytest.raises(StructureError, match="recursive"):
        run_passes(lift(decode(assemble_bytes(recursive))), Options())
    # and a program with neither passes
    run_passes(lift(decode(assemble_bytes("vs_2_0\ndcl_position v0\nmov oPos, v0\n"))), Options())
