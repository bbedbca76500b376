"""D3D_SRCMOD -> core ops (semantics §3.1).

The lifted operand chain is LOAD -> SWIZZLE -> D3D_SRCMOD, so a modifier
sees the swizzled value.  Every modifier is component-wise, so that order is
right for all of them except _dz/_dw, which divide by the z/w of the
*unswizzled* register: they look through the SWIZZLE, divide, and swizzle
again.  Negation is applied last (-abs, -(r - 0.5), -(2r - 1), -2r).

Hook for ps_1_x (the sm1 issue): constants are clamped to [-1, 1] *before*
modifiers apply (§3.5).  That clamp belongs on the FLOAT_CONST LOAD at the
head of the chain, so it is a ``Code.LOAD`` handler added to the same
``rewrite`` call in ``run``; being earlier in the chain, it applies before
any modifier below, and to unmodified sources too.
"""

from __future__ import annotations

from ..bytecode.tables import SrcMod
from ..ir.ops import Code, Op
from ..ir.program import Storage
from .build import compare, fconst, fop, splat, swizzle
from .rewrite import Rewriter, d3d_census, rewrite


def _bias(rw: Rewriter, v: Op) -> Op:
    return fop(rw, Code.FSUB, v, fconst(rw, 0.5))


def _bx2(rw: Rewriter, v: Op) -> Op:
    # 2r - 1 (= 2(r - 0.5)); FMAD is unfused, so this is exactly 2r rounded, minus 1.
    return fop(rw, Code.FMAD, v, fconst(rw, 2.0), fconst(rw, -1.0))


def _comp(rw: Rewriter, v: Op) -> Op:
    return fop(rw, Code.FSUB, fconst(rw, 1.0), v)


def _x2(rw: Rewriter, v: Op) -> Op:
    return fop(rw, Code.FMUL, v, fconst(rw, 2.0))


def _abs(rw: Rewriter, v: Op) -> Op:
    return fop(rw, Code.FABS, v)


def _not(rw: Rewriter, v: Op) -> Op:
    # Only meant for b#/p0 (lifted as bool conditions, never as SRCMOD), but
    # fxc has been seen writing it on a float temp: "x == 0" (§3.1 note).
    return rw.emit(Code.B2F, v.type, (compare(rw, Code.FEQ, v, fconst(rw, 0.0, v.type.width)),))


def _divide_by(component: int):
    def divide(rw: Rewriter, v: Op) -> Op:
        # Look through the swizzle: the divisor is the register's own z/w.
        comps = tuple(range(4))
        if v.code is Code.SWIZZLE and v.args[0].type.width == 4:
            comps, v = v.imm, v.args[0]
        divisor = splat(rw, swizzle(rw, v, (component,)))
        return swizzle(rw, fop(rw, Code.FDIV, v, divisor), comps)

    return divide


def _identity(rw: Rewriter, v: Op) -> Op:
    return v


# modifier -> (what it computes, then negate?)
MODIFIERS = {
    SrcMod.NONE: (_identity, False),
    SrcMod.NEG: (_identity, True),
    SrcMod.BIAS: (_bias, False),
    SrcMod.BIASNEG: (_bias, True),
    SrcMod.SIGN: (_bx2, False),
    SrcMod.SIGNNEG: (_bx2, True),
    SrcMod.COMP: (_comp, False),
    SrcMod.X2: (_x2, False),
    SrcMod.X2NEG: (_x2, True),
    SrcMod.DZ: (_divide_by(2), False),
    SrcMod.DW: (_divide_by(3), False),
    SrcMod.ABS: (_abs, False),
    SrcMod.ABSNEG: (_abs, True),
    SrcMod.NOT: (_not, False),
}


def _lower(rw: Rewriter, op: Op) -> Op:
    compute, negate = MODIFIERS[op.imm[0]]
    mark = len(rw.out)
    value = compute(rw, op.args[0])
    if negate:
        value = fop(rw, Code.FNEG, value)
    # The D3D_SRCMOD becomes its value's last op (nearly always one it just
    # made), so nothing reading it needs remapping: ``passes.lower`` runs
    # this in a walk that remaps only the readers of D3D_OPs until then.
    return rw.become_value(op, value, mark)


def _clamp_constant(rw: Rewriter, op: Op) -> Op:
    # ps_1_x: every c# read sees a value in [-1, 1], whether the application
    # set it or a DEF did (§3.5; DXSO and dxbc-spirv clamp on load).  DEF'd
    # registers are clamped again by the constants pass when it folds them;
    # the clamp here keeps each pass's output right on its own.
    value = rw.keep(op)
    if op.var is None or op.var.storage is not Storage.FLOAT_CONST:
        return value
    return fop(rw, Code.FCLAMP, value, fconst(rw, -1.0), fconst(rw, 1.0))


def handlers(program) -> dict:
    """The ``rewrite`` handlers of this pass for ``program``."""
    version = program.version
    if version.is_pixel and version.major == 1:
        return HANDLERS_PS1
    return HANDLERS


HANDLERS = {Code.D3D_SRCMOD: _lower}
HANDLERS_PS1 = {Code.D3D_SRCMOD: _lower, Code.LOAD: _clamp_constant}


def run(program, options) -> None:
    chosen = handlers(program)
    if chosen is HANDLERS and Code.D3D_SRCMOD not in d3d_census(program):
        return  # most shaders: no modifier, and no walk to find that out
    rewrite(program, chosen)
