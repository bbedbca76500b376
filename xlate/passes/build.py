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

# Enum members as module constants: ``Code.X`` goes through the enum's
# metaclass (some 70 ns a lookup), a global costs next to nothing, and these
# helpers run for most ops the passes make.  For the same reason the
# frequent emitters below build their ``Op`` themselves (code, type, args,
# imm, var, origin) rather than call ``rw.emit``.
_SWIZZLE, _CONST, _SELECT, _CONSTRUCT = Code.SWIZZLE, Code.CONST, Code.SELECT, Code.CONSTRUCT
_FMUL, _FMUL_LEGACY, _FDOT, _FDOT_LEGACY = Code.FMUL, Code.FMUL_LEGACY, Code.FDOT, Code.FDOT_LEGACY
_BOOL = Scalar.BOOL


def resized(t: Type, width: int) -> Type:
    """``t.with_width(width)`` from the table."""
    return t if t.width == width else TYPES[t.scalar, width]


def fconst(rw: Rewriter, value: float, width: int = 4) -> Op:
    """A float constant with ``value`` in every component."""
    op = Op(_CONST, FLOAT[width], (), (float(value),) * width, None, rw.origin)
    rw.out.append(op)
    return op


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
    op = Op(code, args[0].type, args, (), None, rw.origin)
    rw.out.append(op)
    return op


def compare(rw: Rewriter, code: Code, a: Op, b: Op) -> Op:
    op = Op(code, TYPES[_BOOL, a.type.width], (a, b), (), None, rw.origin)
    rw.out.append(op)
    return op


def select(rw: Rewriter, cond: Op, a: Op, b: Op) -> Op:
    op = Op(_SELECT, a.type, (cond, a, b), (), None, rw.origin)
    rw.out.append(op)
    return op


def construct(rw: Rewriter, *parts: Op) -> Op:
    width = sum([p.type.width for p in parts])
    return rw.emit(_CONSTRUCT, resized(parts[0].type, width), parts)


def mul(rw: Rewriter, a: Op, b: Op, legacy: bool) -> Op:
    """D3D9 multiply: "anything x 0 = 0" when ``legacy`` (semantics §7.2)."""
    op = Op(_FMUL_LEGACY if legacy else _FMUL, a.type, (a, b), (), None, rw.origin)
    rw.out.append(op)
    return op


def dot(rw: Rewriter, a: Op, b: Op, legacy: bool) -> Op:
    op = Op(_FDOT_LEGACY if legacy else _FDOT, FLOAT[1], (a, b), (), None, rw.origin)
    rw.out.append(op)
    return op


class Context:
    """What a per-opcode handler may need besides the op itself."""

    def __init__(self, program, options):
        self.program = program
        self.options = options
        self.legacy = options.legacy_multiply

