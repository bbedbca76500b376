"""Small emitters shared by the lowering passes.

Every function takes the ``Rewriter`` of the current ``rewrite`` walk and
emits core ops through it; types are inferred from the arguments so a
handler reads like the formula it implements.
"""

from __future__ import annotations

from ..ir.ops import Code, Op
from ..ir.types import Scalar, Type
from .rewrite import Rewriter

# Largest finite IEEE single: D3D's documented result for rcp(0), rsq(0) and
# (negated) log(0) (semantics §7.1).
FLT_MAX = 3.402823466e38

# Every IR type, by (scalar, width).  The handlers type each op they emit,
# and building a frozen ``Type`` (with its width check) costs more than
# looking one up.
TYPES = {(s, w): Type(s, w) for s in Scalar for w in range(1, 5)}
FLOAT = (None,) + tuple(TYPES[Scalar.FLOAT, w] for w in range(1, 5))  # FLOAT[width]
IDENTITY = (None,) + tuple(tuple(range(w)) for w in range(1, 5))  # IDENTITY[width]: (0, .., width-1)

_SWIZZLE = Code.SWIZZLE


def resized(t: Type, width: int) -> Type:
    """``t.with_width(width)`` from the table."""
    return t if t.width == width else TYPES[t.scalar, width]


def fconst(rw: Rewriter, value: float, width: int = 4) -> Op:
    """A float constant with ``value`` in every component."""
    return rw.emit(Code.CONST, FLOAT[width], imm=(float(value),) * width)


def swizzle(rw: Rewriter, v: Op, comps) -> Op:
    """``v`` with components ``comps``; no op for the identity, and a
    swizzle of a swizzle reads the original value directly."""
    comps = tuple(comps)
    if v.code is _SWIZZLE:
        comps, v = tuple(map(v.imm.__getitem__, comps)), v.args[0]
    t = v.type
    width = len(comps)
    if width == t.width:
        if comps == IDENTITY[width]:
            return v
    else:
        t = TYPES[t.scalar, width]
    # one of the most frequent emits: the Op built here, not through rw.emit
    op = Op(_SWIZZLE, t, (v,), comps, None, rw.origin)
    rw.out.append(op)
    return op


def component(rw: Rewriter, v: Op, index: int = 0) -> Op:
    return swizzle(rw, v, (index,))


def splat(rw: Rewriter, v: Op, width: int = 4) -> Op:
    """A scalar replicated to ``width`` components."""
    return swizzle(rw, v, (0,) * width)


def fop(rw: Rewriter, code: Code, *args: Op) -> Op:
    """A component-wise op: the result has the type of its first argument."""
    return rw.emit(code, args[0].type, args)


def compare(rw: Rewriter, code: Code, a: Op, b: Op) -> Op:
    return rw.emit(code, TYPES[Scalar.BOOL, a.type.width], (a, b))


def select(rw: Rewriter, cond: Op, a: Op, b: Op) -> Op:
    return rw.emit(Code.SELECT, a.type, (cond, a, b))


def construct(rw: Rewriter, *parts: Op) -> Op:
    width = sum([p.type.width for p in parts])
    return rw.emit(Code.CONSTRUCT, resized(parts[0].type, width), parts)


def mul(rw: Rewriter, a: Op, b: Op, legacy: bool) -> Op:
    """D3D9 multiply: "anything x 0 = 0" when ``legacy`` (semantics §7.2)."""
    return fop(rw, Code.FMUL_LEGACY if legacy else Code.FMUL, a, b)


def dot(rw: Rewriter, a: Op, b: Op, legacy: bool) -> Op:
    return rw.emit(Code.FDOT_LEGACY if legacy else Code.FDOT, FLOAT[1], (a, b))


class Context:
    """What a per-opcode handler may need besides the op itself."""

    def __init__(self, program, options):
        self.program = program
        self.options = options
        self.legacy = options.legacy_multiply

