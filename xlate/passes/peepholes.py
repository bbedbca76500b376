"""The cleanup pass's forward steps (``cleanup``'s docstring, steps 1 and 2):
IFs on a constant condition keep only the branch that runs
(``fold_static_branches``), and one forward walk of peepholes folds what
can be folded in place (``peepholes``).  Split from ``cleanup.py``, which
runs them before its dead-code sweeps; they change no value a program
computes (float math in float32, ints wrapping at 32 bits).
"""

from __future__ import annotations

import math

from ..ir.ops import Code, Op
from ..ir.program import Function
from ..ir.types import to_f32


def fold_static_branches(body: list[Op], static: dict[Op, bool]) -> list[Op]:
    """Drop the branch of an ``IF CONST`` that never runs, and its markers.
    ``static``: IF -> the value of its condition, for the IFs whose
    condition was a CONST before the peepholes (``peepholes`` finds them)."""
    out: list[Op] = []
    # per open IF: [const (None when dynamic), active when opened, live]
    frames: list[list] = []
    dead = 0  # open frames whose current branch is not live: active() is dead == 0
    append = out.append
    IF, ELSE, ENDIF = Code.IF, Code.ELSE, Code.ENDIF

    for op in body:
        code = op.code
        if code is IF:
            const = static.get(op)
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


# -- peepholes -----------------------------------------------------------------------


def peepholes(fn: Function) -> tuple[bool, dict[Op, bool] | None]:
    """Apply the handlers of ``_PEEPHOLES`` to ``fn``'s body, in place, in one
    forward walk.  Returns whether the body has a LOAD with an index (which
    a peephole may have changed), and None when it has no IF, else IF -> its
    condition's value for the IFs whose condition was a CONST before the
    walk (what ``fold_static_branches`` folds).

    A handler returns the value that now stands for its op: the op itself,
    rewritten in place when it folds (into a CONST, a shorter SWIZZLE, a
    static LOAD: it keeps its place and origin, and every later use already
    points at it), or an older value (identity SWIZZLE, SELECT with a known
    side), which the later uses are remapped to.  Remapping is rare, so
    arguments are rebuilt only when one of them was replaced.  A replaced op
    stays in the body with no use left: the dead-code step right after
    removes it with the other unused values (no list is rebuilt here).

    Most ops have nothing to fold: a handler is called only when a quick look
    at the arguments says it may change something (a call per op was most of
    the cost of this pass).

    The walk runs before the static branches are folded, which spares a walk
    to find IFs first: ops in a branch that goes are rewritten for nothing,
    but nothing else can see them (a value is used only where its
    definition dominates), and an IF counts as static only when its
    condition was a CONST before the walk, not one the walk made."""
    remap: dict[Op, Op] = {}  # replaced op -> the older value standing for it
    indexed = False
    ifs: dict[Op, bool] | None = None
    folded: set[Op] = set()  # ops this walk turned into CONSTs
    rewired: set[Op] = set()  # IFs whose condition this walk replaced
    handlers = _PEEPHOLES
    SWIZZLE, CONST, SELECT, LOAD, IF = Code.SWIZZLE, Code.CONST, Code.SELECT, Code.LOAD, Code.IF
    for op in fn.body:
        args = op.args
        if not args:  # CONST, LOAD of a static register: nothing to fold
            continue
        if remap and not remap.keys().isdisjoint(args):
            args = op.args = tuple([remap.get(a, a) for a in args])
            if op.code is IF:
                rewired.add(op)
        code = op.code
        if code is SWIZZLE:  # the commonest op with args: tested before the table
            src = args[0]
            if src.code is not SWIZZLE and src.code is not CONST and op.imm != _IDENTITY[src.type.width]:
                continue
            value = _swizzle(op)
        elif code not in _LOOKED_AT:
            continue
        elif code is IF:
            if ifs is None:
                ifs = {}
            cond = args[0]
            if cond.code is CONST and cond not in folded and op not in rewired:
                ifs[op] = bool(cond.imm[0])
            continue
        else:
            if code is SELECT:
                if args[0].code is not CONST and args[1] is not args[2]:
                    continue
            else:  # folds need CONSTs, a LOAD a CONST index
                if code is LOAD:
                    indexed = True
                if args[0].code is not CONST:
                    continue
            value = handlers[code](op)
        if value is not op:
            remap[op] = value
        elif op.code is CONST:
            folded.add(op)
    return indexed, ifs


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


# Constant folding computes in float32 as the shader would: each float
# argument and each result is rounded to float32 (to_f32; doubles hold a
# float32 sum, difference or product exactly before that one rounding, so
# this is float32 arithmetic), without importing numpy for it.
_f32 = to_f32


def _i32(v: int) -> int:
    return (int(v) + 2**31) % 2**32 - 2**31


def _fsat(a):
    return 0.0 if a != a else min(1.0, max(0.0, a))


def _fmul_legacy(a, b):
    return 0.0 if a == 0 or b == 0 else a * b


def _ffloor(a):
    # floor keeps -0.0, infinities and NaN as they are
    return a if a == 0 or not math.isfinite(a) else float(math.floor(a))


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
    Code.FFLOOR: ("f", _ffloor),
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
# the codes ``peepholes`` stops at: those with a handler, and IF (noted for ``fold_static_branches``)
_LOOKED_AT = frozenset(_PEEPHOLES) | {Code.IF}
