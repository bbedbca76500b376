"""Remove what the program does not need; never change what it computes.

In order, per function:
1. IFs on a constant condition (folded DEFBs, ``ifc`` codes 0/7) keep only
   the branch that runs.
2. Peepholes (one forward walk; an op that folds is rewritten in place):
   identity SWIZZLEs go, SWIZZLE of SWIZZLE composes, SWIZZLE/CONSTRUCT of
   CONSTs and simple CONST-only arithmetic fold to a CONST (float math in
   float32, ints wrap at 32 bits, exactly what the GPU computes;
   min/max/dot/transcendentals are left alone), SELECT on a constant
   condition picks its side, an array LOAD with a constant in-bounds index
   becomes a static LOAD.
3. Until nothing changes: values nobody uses are removed (their ops have no
   effects), and STOREs to private variables none of whose written
   components can be read afterwards are removed, which frees more values.
   Straight-line functions (nearly all) get there in one backward sweep
   (``sweep_straight_line``); the others alternate ``remove_unused_values``
   and ``remove_dead_stores`` (``analysis.RegisterAnalysis``: sees loops'
   back edges, CALLs read everything, subroutines leave everything live for
   the caller).
Finally private variables nothing touches any more are dropped, and the
constant files are re-trimmed (``constants.shrink_arrays``) when the
constants pass has run and a LOAD may have gone or changed here.
"""

from __future__ import annotations

import numpy as np

from ..ir.ops import CONTROL, Code, Op
from ..ir.program import Function, Program
from ..options import Options
from .analysis import PICKED, PRIVATE, LiveSlots, RegisterAnalysis


def run(program: Program, options: Options) -> None:
    functions = program.functions.values()
    # ``array_ranges`` (the constants pass, just before) stays right unless a
    # LOAD goes or changes here: in a folded branch, through the peepholes
    # (which only touch LOADs with an index, or their index), or as a value
    # nobody uses.  Recomputing it costs as much as the rest of the pass.
    loads_may_change = False
    for fn in functions:
        has_if, indexed = _shape(fn.body)
        if has_if:
            fn.body = fold_static_branches(fn.body)
        loads_may_change |= has_if or indexed
    for fn in functions:
        fn.body = peepholes(fn)
    LOAD = Code.LOAD
    for fn in functions:
        removed = remove_dead_code(program, fn)
        loads_may_change = loads_may_change or any(op.code is LOAD for op in removed)
    _drop_unused_variables(program)
    if loads_may_change and "array_ranges" in program.notes:
        from .constants import shrink_arrays

        shrink_arrays(program)


def _shape(body: list[Op]) -> tuple[bool, bool]:
    """(whether ``body`` has an IF, whether it has a LOAD with an index)."""
    has_if = indexed = False
    IF, LOAD = Code.IF, Code.LOAD
    for op in body:
        code = op.code
        if code is IF:
            has_if = True
        elif code is LOAD and op.args:
            indexed = True
    return has_if, indexed


# -- 1. static branches ------------------------------------------------------------


def fold_static_branches(body: list[Op]) -> list[Op]:
    """Drop the branch of an ``IF CONST`` that never runs, and its markers."""
    out: list[Op] = []
    # per open IF: [const (None when dynamic), active when opened, live]
    frames: list[list] = []
    dead = 0  # open frames whose current branch is not live: active() is dead == 0
    append = out.append
    IF, ELSE, ENDIF, CONST = Code.IF, Code.ELSE, Code.ENDIF, Code.CONST

    for op in body:
        code = op.code
        if code is IF:
            cond = op.args[0]
            const = bool(cond.imm[0]) if cond.code is CONST else None
            outer = dead == 0
            live = const is not False
            frames.append([const, outer, live])
            if not live:
                dead += 1
            if const is None and outer:
                append(op)
        elif code is ELSE:
            f = frames[-1]
            live = f[0] is not True
            if live != f[2]:
                dead += -1 if live else 1
                f[2] = live
            if f[0] is None and f[1]:
                append(op)
        elif code is ENDIF:
            f = frames.pop()
            if not f[2]:
                dead -= 1
            if f[0] is None and f[1]:
                append(op)
        elif dead == 0:
            append(op)
    return out


# -- 2. peepholes -----------------------------------------------------------------------


def peepholes(fn: Function) -> list[Op]:
    """``fn``'s body with the handlers of ``_PEEPHOLES`` applied, in one
    forward walk.

    A handler returns the value that now stands for its op: the op itself,
    rewritten in place when it folds (into a CONST, a shorter SWIZZLE, a
    static LOAD: it keeps its place and origin, and every later use already
    points at it), or an older value (identity SWIZZLE, SELECT with a known
    side), which the later uses are remapped to.  Remapping is rare, so
    arguments are rebuilt only when one of them was replaced.

    Most ops have nothing to fold: a handler is called only when a quick look
    at the arguments says it may change something (a call per op was most of
    the cost of this pass)."""
    out: list[Op] = []
    append = out.append
    remap: dict[Op, Op] = {}  # replaced op -> the older value standing for it
    get = _PEEPHOLES.get
    SWIZZLE, CONST, SELECT = Code.SWIZZLE, Code.CONST, Code.SELECT
    for op in fn.body:
        args = op.args
        if not args:  # CONST, LOAD of a static register: nothing to fold
            append(op)
            continue
        if remap and not remap.keys().isdisjoint(args):
            args = op.args = tuple([remap.get(a, a) for a in args])
        code = op.code
        handler = get(code)
        if handler is None:
            worth = False
        elif code is SWIZZLE:
            src = args[0]
            worth = src.code is SWIZZLE or src.code is CONST or op.imm == _IDENTITY[src.type.width]
        elif code is SELECT:
            worth = args[0].code is CONST or args[1] is args[2]
        else:  # folds need CONSTs, a LOAD a CONST index
            worth = args[0].code is CONST
        if worth:
            value = handler(op)
            if value is not op:
                remap[op] = value
                continue
        append(op)
    return out


_IDENTITY = (None, (0,), (0, 1), (0, 1, 2), (0, 1, 2, 3))  # width -> the SWIZZLE that changes nothing


def _become(op: Op, code: Code, args: tuple = (), imm: tuple = ()) -> Op:
    """Rewrite ``op`` in place (same type, variable, origin and place)."""
    op.code, op.args, op.imm = code, args, imm
    return op


def _swizzle(op: Op) -> Op:
    src, picks = op.args[0], op.imm
    while src.code is Code.SWIZZLE:
        picks = _pick(src.imm, picks)
        src = src.args[0]
    if src.code is Code.CONST:
        imm = src.imm
        return _become(op, Code.CONST, imm=imm * len(picks) if len(imm) == 1 else _pick(imm, picks))
    if picks == _IDENTITY[src.type.width]:
        return src
    if src is op.args[0]:
        return op
    return _become(op, Code.SWIZZLE, (src,), picks)


def _pick(values: tuple, picks: tuple[int, ...]) -> tuple:
    """``values[i]`` for each pick (``map`` of ``__getitem__``: no Python frame per item)."""
    return tuple(map(values.__getitem__, picks))


def _select(op: Op) -> Op:
    cond, a, b = op.args
    if a is b:
        return a
    if cond.code is Code.CONST and len(set(bool(v) for v in cond.imm)) == 1:
        return a if cond.imm[0] else b
    return _fold(op)


def _load(op: Op) -> Op:
    var = op.var
    if op.args and op.args[0].code is Code.CONST and var.length is not None:
        element = op.imm[0] + int(op.args[0].imm[0])
        if 0 <= element < var.length:
            return _become(op, Code.LOAD, imm=(element,))
    return op


def _component(op: Op, i: int):
    return op.imm[i] if len(op.imm) > 1 else op.imm[0]


_f32 = np.float32


def _i32(v: int) -> int:
    return (int(v) + 2**31) % 2**32 - 2**31


def _fsat(a):
    return _f32(0.0) if a != a else min(_f32(1.0), max(_f32(0.0), a))


def _fmul_legacy(a, b):
    return _f32(0.0) if a == 0 or b == 0 else a * b


# code -> (argument kind, per-component function); float args arrive as float32.
_FOLDERS = {
    Code.FNEG: ("f", lambda a: -a),
    Code.FABS: ("f", abs),
    Code.FADD: ("f", lambda a, b: a + b),
    Code.FSUB: ("f", lambda a, b: a - b),
    Code.FMUL: ("f", lambda a, b: a * b),
    Code.FMUL_LEGACY: ("f", _fmul_legacy),
    Code.FMAD: ("f", lambda a, b, c: _f32(a * b) + c),
    Code.FSATURATE: ("f", _fsat),
    Code.FFLOOR: ("f", np.floor),
    Code.FLT: ("f", lambda a, b: a < b),
    Code.FLE: ("f", lambda a, b: a <= b),
    Code.FGT: ("f", lambda a, b: a > b),
    Code.FGE: ("f", lambda a, b: a >= b),
    Code.FEQ: ("f", lambda a, b: a == b),
    Code.FNE: ("f", lambda a, b: a != b),
    Code.ILT: ("i", lambda a, b: a < b),
    Code.ILE: ("i", lambda a, b: a <= b),
    Code.IGT: ("i", lambda a, b: a > b),
    Code.IGE: ("i", lambda a, b: a >= b),
    Code.IEQ: ("i", lambda a, b: a == b),
    Code.INE: ("i", lambda a, b: a != b),
    Code.IADD: ("i", lambda a, b: _i32(a + b)),
    Code.IMUL: ("i", lambda a, b: _i32(a * b)),
    Code.BNOT: ("b", lambda a: not a),
    Code.BAND: ("b", lambda a, b: a and b),
    Code.BOR: ("b", lambda a, b: a or b),
    Code.B2F: ("b", lambda a: 1.0 if a else 0.0),
    Code.I2F: ("i", lambda a: _f32(a)),
    Code.SELECT: ("any", lambda c, a, b: a if c else b),
    Code.CONSTRUCT: ("any", None),
    Code.BANY: ("b", None),
}


def _fold(op: Op) -> Op:
    """``op`` as a CONST when its arguments are all CONSTs (see _FOLDERS)."""
    if not op.args or any(a.code is not Code.CONST for a in op.args):
        return op
    kind, fn = _FOLDERS[op.code]
    if op.code is Code.CONSTRUCT:
        values = [v for a in op.args for v in a.imm]
    elif op.code is Code.BANY:
        values = [any(bool(v) for v in op.args[0].imm)]
    else:
        convert = {"f": _f32, "i": int, "b": bool}.get(kind)
        values = []
        with np.errstate(all="ignore"):
            for i in range(op.type.width):
                comps = [_component(a, i) for a in op.args]
                if convert is not None:
                    comps = [convert(c) for c in comps]
                values.append(fn(*comps))
    if op.type.is_float:
        values = [float(_f32(v)) for v in values]
    elif op.type.is_int:
        values = [int(v) for v in values]
    else:
        values = [bool(v) for v in values]
    return _become(op, Code.CONST, imm=tuple(values))


_PEEPHOLES = {**{c: _fold for c in _FOLDERS}, Code.SWIZZLE: _swizzle, Code.SELECT: _select, Code.LOAD: _load}


# -- 3. unused values and dead stores ---------------------------------------------------


def remove_dead_code(program: Program, fn: Function) -> list[Op]:
    """Remove values nobody uses and STOREs nobody reads, until neither is
    left; returns the ops removed."""
    swept = sweep_straight_line(program, fn)
    if swept is not None:
        fn.body, removed = swept
        return removed
    before = fn.body
    while True:
        remove_unused_values(fn)
        if not remove_dead_stores(program, fn):
            break
    kept = set(fn.body)
    return [op for op in before if op not in kept]


# Ops that end a straight line: control flow needs the CFG, a CALL reads and
# writes every private register, a D3D_STORE is not lowered yet.
_NOT_STRAIGHT = frozenset(CONTROL | {Code.D3D_STORE})


def sweep_straight_line(program: Program, fn: Function) -> tuple[list[Op], list[Op]] | None:
    """``fn``'s body without unused values and dead stores, in one backward
    walk, and the ops removed; None when the body has control flow
    (``_NOT_STRAIGHT``).

    Walking backward through straight-line code, every later op is already
    final: a value stays when a kept op uses it, a STORE to a private variable
    when a kept LOAD may read a slot it writes before a STORE kills it.  That
    is the fixpoint the ``remove_unused_values`` / ``remove_dead_stores`` loop
    reaches (removing an unused value or a dead store never makes anything
    needed again), found without building a ``RegisterAnalysis`` per round.
    Only private slots are followed: other stores are never dead."""
    slots = LiveSlots(program, fn)
    # Variables that are not arrays, accessed without an index: one shift
    # inline instead of the general ``slots.read`` / ``slots.write``.  Only
    # private variables are ever given slots here, so a hit in ``plain`` is a
    # private variable; the first access of each goes the general way.
    plain = slots.plain
    # private slots live at the exit: none in main, all in a subroutine (the
    # caller may read them; -1 has every bit set)
    live = 0 if fn.name == "main" else -1
    used: dict[Op, int] = {}  # value -> the components its kept uses read (LOADs: ``loaded_components``)
    get = used.get
    keep: list[Op] = []
    removed: list[Op] = []
    LOAD, STORE, SWIZZLE = Code.LOAD, Code.STORE, Code.SWIZZLE
    for op in reversed(fn.body):
        code = op.code
        if op.type is not None:
            comps = get(op)
            if comps is None:
                removed.append(op)  # nobody uses it
                continue
            if code is LOAD:
                bits = plain.get(op.var)
                if bits is not None and not op.args:
                    live |= (comps & bits[1]) << bits[0]
                elif op.var.storage in PRIVATE:
                    live |= slots.read(op, comps)
        elif code is STORE and op.var.storage in PRIVATE:  # other stores are observable
            bits = plain.get(op.var)
            if bits is not None and len(op.args) == 1 and op.imm:
                # a plain variable without an index: certainly overwritten
                kill = written = (op.imm[0] & bits[1]) << bits[0]
            else:
                kill, written = slots.write(op)
            if not written & live:
                removed.append(op)  # dead
                continue
            live &= ~kill
        elif code in _NOT_STRAIGHT:
            return None
        keep.append(op)
        args = op.args
        if args:
            if code is SWIZZLE:
                a = args[0]
                used[a] = get(a, 0) | PICKED[op.imm]
            else:
                for a in args:
                    used[a] = 0xF
    keep.reverse()
    return keep, removed


def remove_unused_values(fn: Function) -> bool:
    """Drop value ops nobody uses (values have no effects).  One backward walk
    suffices: uses come after definitions, so an op's users are all decided
    when the walk reaches it."""
    used: set[Op] = set()
    keep = []
    for op in reversed(fn.body):
        if op.type is not None and op not in used:
            continue
        keep.append(op)
        used.update(op.args)
    if len(keep) == len(fn.body):
        return False
    keep.reverse()
    fn.body = keep
    return True


def remove_dead_stores(program: Program, fn: Function) -> bool:
    analysis = RegisterAnalysis(program, fn)
    dead = {op for op in fn.body if op.code is Code.STORE and analysis.is_dead_store(op)}
    if dead:
        fn.body = [op for op in fn.body if op not in dead]
    return bool(dead)


def _drop_unused_variables(program: Program) -> None:
    used: set = set()
    for fn in program.functions.values():
        used |= {op.var for op in fn.body}
    program.variables[:] = [v for v in program.variables if v.storage not in PRIVATE or v in used]

