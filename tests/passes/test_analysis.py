"""Reaching definitions, def-use chains and liveness (xlate/passes/analysis.py)."""

from __future__ import annotations

from xlate.ir.ops import Code
from xlate.ir.program import Storage
from xlate.ir.types import F4, I1
from xlate.passes.analysis import ENTRY_DEF, RegisterAnalysis, used_components

from .irbuild import IRBuilder


def analyze(b: IRBuilder, fn: str = "main") -> RegisterAnalysis:
    return RegisterAnalysis(b.program, b.program.functions[fn])


def test_partial_masks_per_component():
    b = IRBuilder()
    r0 = b.temp(0)
    a = b.store(r0, b.const(1.0, 2.0), mask=0b0011)
    c = b.store(r0, b.const(5.0), mask=0b0010)
    load = b.load(r0)
    an = analyze(b)
    assert an.reaching(load, 0) == {a}
    assert an.reaching(load, 1) == {c}
    assert an.reaching(load, 2) == {ENTRY_DEF}
    assert an.reaching(load, 3) == {ENTRY_DEF}
    assert an.reaching(load) == {a, c, ENTRY_DEF}
    assert an.loads_reached(a) == [load]
    assert an.loads_reached(c) == [load]


def test_if_else_merges_both_branches():
    b = IRBuilder()
    r0, p = b.temp(0), b.var("p", Storage.INPUT)
    cond = b.cmp(Code.FLT, b.swizzle(b.load(p), 0), b.const(0.0))
    b.if_(cond)
    then = b.store(r0, b.const(1.0, 1.0, 1.0, 1.0))
    b.else_()
    other = b.store(r0, b.const(2.0, 2.0), mask=0b0101)
    b.endif()
    load = b.load(r0)
    an = analyze(b)
    assert an.reaching(load, 0) == {then, other}
    assert an.reaching(load, 1) == {then, ENTRY_DEF}
    assert an.reaching(load, 2) == {then, other}


def test_if_without_else_keeps_entry_value():
    b = IRBuilder()
    r0 = b.temp(0)
    b.if_(b.const(True))
    inside = b.store(r0, b.const(1.0, 1.0, 1.0, 1.0))
    b.endif()
    load = b.load(r0)
    assert analyze(b).reaching(load, 0) == {inside, ENTRY_DEF}


def test_loop_back_edge_reaches_the_top_of_the_loop():
    b = IRBuilder()
    r0, n = b.temp(0), b.var("n", Storage.LOCAL, I1)
    init = b.store(r0, b.const(0.0, 0.0, 0.0, 0.0))
    b.counted_loop(n, 3)
    top = b.load(r0)
    step = b.store(r0, b.op(Code.FADD, top, b.const(1.0, 1.0, 1.0, 1.0)))
    b.end_counted(n)
    after = b.load(r0)
    an = analyze(b)
    assert an.reaching(top, 0) == {init, step}
    assert an.reaching(after, 0) == {init, step}
    assert set(an.loads_reached(step)) == {top, after}
    # the store is read by the next iteration: live even though nothing after the loop reads it
    assert not an.is_dead_store(step)


def test_break_carries_definitions_out_of_the_loop():
    b = IRBuilder()
    r0 = b.temp(0)
    b.loop()
    before = b.store(r0, b.const(1.0, 1.0, 1.0, 1.0))
    b.if_(b.const(True))
    b.brk()
    b.endif()
    later = b.store(r0, b.const(2.0, 2.0, 2.0, 2.0))
    b.endloop()
    after = b.load(r0)
    # the only way out is the break, right after `before`
    assert analyze(b).reaching(after, 0) == {before}
    assert analyze(b).is_dead_store(later)


def test_call_may_define_everything_private_and_read_it():
    b = IRBuilder()
    r0, r1 = b.temp(0), b.temp(1)
    a = b.store(r0, b.const(1.0, 1.0, 1.0, 1.0))
    call = b.call("l1")
    load = b.load(r0)
    b.function("l1")
    inner = b.load(r0)
    sub_store = b.store(r1, b.const(3.0, 3.0, 3.0, 3.0))
    main = analyze(b)
    assert main.reaching(load, 0) == {a, call}
    assert not main.is_dead_store(a)  # the callee may read r0
    sub = analyze(b, "l1")
    assert sub.reaching(inner, 0) == {ENTRY_DEF}
    assert not sub.is_dead_store(sub_store)  # the caller may read r1


def test_dead_and_live_stores_in_main():
    b = IRBuilder()
    r0 = b.temp(0)
    out = b.var("o0", Storage.OUTPUT)
    first = b.store(r0, b.const(1.0, 1.0, 1.0, 1.0))
    second = b.store(r0, b.const(2.0), mask=0b0001)
    x = b.swizzle(b.load(r0), 0)  # only .x is read: `first` is fully shadowed
    b.store(out, b.swizzle(x, 0, 0, 0, 0))
    last = b.store(r0, b.const(9.0, 9.0, 9.0, 9.0))  # nothing reads it before main ends
    an = analyze(b)
    assert an.is_dead_store(first)
    assert not an.is_dead_store(second)
    assert an.is_dead_store(last)
    assert an.live_after(first) == set()  # nothing of r0 is read before `second`


def test_reading_y_keeps_the_shadowed_store():
    b = IRBuilder()
    r0 = b.temp(0)
    out = b.var("o0", Storage.OUTPUT)
    first = b.store(r0, b.const(1.0, 1.0, 1.0, 1.0))
    b.store(r0, b.const(2.0), mask=0b0001)
    y = b.swizzle(b.load(r0), 1)
    b.store(out, b.swizzle(y, 0, 0, 0, 0))
    an = analyze(b)
    assert not an.is_dead_store(first)
    assert an.live_after(first) == {1}


def test_used_components():
    b = IRBuilder()
    r0 = b.temp(0)
    load = b.load(r0)
    s1, s2 = b.swizzle(load, 2), b.swizzle(load, 0, 2)
    assert used_components(load, [s1, s2]) == {0, 2}
    assert used_components(load, [s1, b.op(Code.FNEG, load)]) == {0, 1, 2, 3}


def test_small_array_elements_are_told_apart():
    b = IRBuilder()
    arr = b.var("a", Storage.LOCAL, F4, 4)
    i = b.var("i", Storage.INPUT, I1)
    e0 = b.store(arr, b.const(0.0, 0.0, 0.0, 0.0), element=0)
    e1 = b.store(arr, b.const(1.0, 1.0, 1.0, 1.0), element=1)
    e0b = b.store(arr, b.const(2.0, 2.0, 2.0, 2.0), element=0)
    static = b.load(arr, element=1)
    dynamic = b.load(arr, element=0, index=b.load(i))
    out = b.var("o", Storage.OUTPUT)
    b.store(out, b.op(Code.FADD, static, dynamic))
    an = analyze(b)
    assert an.reaching(static) == {e1}
    assert an.reaching(dynamic) == {e0b, e1, ENTRY_DEF}  # elements 2, 3 never written
    assert an.is_dead_store(e0)
    assert not an.is_dead_store(e0b)


def test_indexed_register_store_defines_the_whole_file_without_killing():
    from xlate.bytecode.tables import RegisterType as R

    b = IRBuilder()
    o1 = b.var("o1", Storage.OUTPUT, register=(R.TEXCRDOUT, 1))
    o2 = b.var("o2", Storage.OUTPUT, register=(R.TEXCRDOUT, 2))
    al = b.var("aL", Storage.LOOP_COUNTER, I1)
    s1 = b.store(o1, b.const(1.0, 1.0, 1.0, 1.0))
    rel = b.store(o1, b.const(2.0, 2.0, 2.0, 2.0), index=b.load(al))
    l1, l2 = b.load(o1), b.load(o2)
    an = analyze(b)
    assert an.reaching(l1, 0) == {s1, rel}
    assert an.reaching(l2, 0) == {rel, ENTRY_DEF}


def test_unreachable_code_sees_nothing():
    b = IRBuilder()
    r0 = b.temp(0)
    b.store(r0, b.const(1.0, 1.0, 1.0, 1.0))
    b.ret()
    load = b.load(r0)
    assert analyze(b).reaching(load) == frozenset()
