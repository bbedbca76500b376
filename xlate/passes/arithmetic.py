"""Component-wise arithmetic and dot products: D3D_OP -> core ops.

Each handler gets the sources (f4, already swizzled and modified) and
returns the four-component result; the destination pass applies the write
mask, so a handler may compute components the mask drops (semantics §2.1,
§2.2).  Products that D3D9 hardware computed with "anything x 0 = 0" use the
legacy multiply when ``options.legacy_multiply`` is set (§7.2): mul, mad,
the dot products and the internal products of lrp, crs and dst.
Compares are ordered (NaN -> false) except "not equal" (§7.3).

A handler whose value is one new op makes the D3D_OP become it
(``rw.become``: no op built and dropped, as when ``rewrite`` moves a
returned op into the D3D_OP); the others return the value they built.
"""

from __future__ import annotations

from ..bytecode.tables import Comparison, Opcode
from ..ir.ops import Code, Op
from ..ir.types import B4, F4
from .build import IDENTITY, Context, compare, component, construct, dot, fconst, fop, mul, splat, swizzle
from .rewrite import D3D_OP_READERS, Rewriter, rewrite


SPLAT = (0, 0, 0, 0)

# Enum members the frequent handlers use, as module constants (``Code.X``
# costs some 70 ns a lookup: build.py).
_FADD, _FMAD, _FMUL, _FMUL_LEGACY, _SWIZZLE = Code.FADD, Code.FMAD, Code.FMUL, Code.FMUL_LEGACY, Code.SWIZZLE


def _binary(code: Code):
    return lambda rw, op, ctx: rw.become(op, code, op.args[0].type, op.args[:2])


def _unary(code: Code):
    # sgn has two scratch registers in SM2 (nsrc 3): only the first source counts.
    return lambda rw, op, ctx: rw.become(op, code, op.args[0].type, op.args[:1])


def _mov(rw: Rewriter, op: Op, ctx: Context) -> Op:
    # Also mova and vs_1_x "mov a0": the float->int conversion (round or
    # floor, §2.9) is the destination pass's, which knows the register.
    return op.args[0]


def _mul(rw: Rewriter, op: Op, ctx: Context) -> Op:
    a, b = op.args[:2]
    return rw.become(op, _FMUL_LEGACY if ctx.legacy else _FMUL, a.type, (a, b))


def _mad(rw: Rewriter, op: Op, ctx: Context) -> Op:
    a, b, c = op.args
    if ctx.legacy:
        return rw.become(op, _FADD, a.type, (mul(rw, a, b, True), c))
    return rw.become(op, _FMAD, a.type, (a, b, c))


def _set(code: Code):
    # slt / sge: 1.0 where the (ordered) compare holds, else 0.0.
    def handler(rw: Rewriter, op: Op, ctx: Context) -> Op:
        return rw.become(op, Code.B2F, op.type, (compare(rw, code, *op.args[:2]),))

    return handler


def _dp(width: int):
    comps = IDENTITY[width]  # x..z / x..w

    def handler(rw: Rewriter, op: Op, ctx: Context) -> Op:
        a, b = op.args[:2]
        d = dot(rw, swizzle(rw, a, comps), swizzle(rw, b, comps), ctx.legacy)
        return rw.become(op, _SWIZZLE, F4, (d,), SPLAT)  # splat(rw, d): d is an FDOT

    return handler


def _dp2add(rw: Rewriter, op: Op, ctx: Context) -> Op:
    a, b, c = op.args
    d = dot(rw, swizzle(rw, a, (0, 1)), swizzle(rw, b, (0, 1)), ctx.legacy)
    return splat(rw, fop(rw, Code.FADD, d, component(rw, c, 0)))


def _lrp(rw: Rewriter, op: Op, ctx: Context) -> Op:
    # s2 + s0 * (s1 - s2)
    s0, s1, s2 = op.args
    return fop(rw, Code.FADD, s2, mul(rw, s0, fop(rw, Code.FSUB, s1, s2), ctx.legacy))


def _cmp(rw: Rewriter, op: Op, ctx: Context) -> Op:
    # s0 >= 0 ? s1 : s2: -0 >= 0 selects s1, NaN selects s2 (§2.2, §7.4).
    s0, s1, s2 = op.args
    return rw.become(op, Code.SELECT, s1.type, (compare(rw, Code.FGE, s0, fconst(rw, 0.0)), s1, s2))


def _cnd(rw: Rewriter, op: Op, ctx: Context) -> Op:
    # s0 > 0.5 ? s1 : s2 per component.  In ps_1_1-1_3 s0 is r0.a, lifted with
    # its replicate swizzle, so the per-component test is the documented one
    # (§2.6); the co-issue rule is the sm1 issue's.
    s0, s1, s2 = op.args
    return rw.become(op, Code.SELECT, s1.type, (compare(rw, Code.FGT, s0, fconst(rw, 0.5)), s1, s2))


def _crs(rw: Rewriter, op: Op, ctx: Context) -> Op:
    # a.yzx * b.zxy - a.zxy * b.yzx; w = 0 (the mask must exclude it).
    a, b = op.args[:2]
    left = mul(rw, swizzle(rw, a, (1, 2, 0)), swizzle(rw, b, (2, 0, 1)), ctx.legacy)
    right = mul(rw, swizzle(rw, a, (2, 0, 1)), swizzle(rw, b, (1, 2, 0)), ctx.legacy)
    return construct(rw, fop(rw, Code.FSUB, left, right), fconst(rw, 0.0, 1))


def _dst(rw: Rewriter, op: Op, ctx: Context) -> Op:
    # (1, s0.y * s1.y, s0.z, s1.w)
    a, b = op.args[:2]
    y = mul(rw, component(rw, a, 1), component(rw, b, 1), ctx.legacy)
    return construct(rw, fconst(rw, 1.0, 1), y, component(rw, a, 2), component(rw, b, 3))


SETP_COMPARE = {
    Comparison.GT: Code.FGT, Comparison.EQ: Code.FEQ, Comparison.GE: Code.FGE,
    Comparison.LT: Code.FLT, Comparison.NE: Code.FNE, Comparison.LE: Code.FLE,
}


def _setp(rw: Rewriter, op: Op, ctx: Context) -> Op:
    cmp = Comparison(op.imm[0].control & 7)
    if cmp in SETP_COMPARE:
        return compare(rw, SETP_COMPARE[cmp], *op.args[:2])
    # Reserved codes 0 / 7: never / always (§1.14).
    return rw.emit(Code.CONST, B4, imm=(cmp is Comparison.ALWAYS,) * 4)


HANDLERS = {
    Opcode.MOV: _mov,
    Opcode.MOVA: _mov,
    Opcode.ADD: _binary(Code.FADD),
    Opcode.SUB: _binary(Code.FSUB),
    Opcode.MUL: _mul,
    Opcode.MAD: _mad,
    Opcode.MIN: _binary(Code.FMIN),
    Opcode.MAX: _binary(Code.FMAX),
    Opcode.SLT: _set(Code.FLT),
    Opcode.SGE: _set(Code.FGE),
    Opcode.DP3: _dp(3),
    Opcode.DP4: _dp(4),
    Opcode.DP2ADD: _dp2add,
    Opcode.FRC: _unary(Code.FFRACT),
    Opcode.ABS: _unary(Code.FABS),
    Opcode.SGN: _unary(Code.FSIGN),
    Opcode.LRP: _lrp,
    Opcode.CMP: _cmp,
    Opcode.CND: _cnd,
    Opcode.CRS: _crs,
    Opcode.DST: _dst,
    Opcode.SETP: _setp,
}


def run(program, options) -> None:
    rewrite(program, {}, HANDLERS, Context(program, options), D3D_OP_READERS)
