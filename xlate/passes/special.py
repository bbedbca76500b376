"""Scalar and special-function instructions with D3D's documented edge values.

Scalar ops (rcp rsq exp log logp expp pow sincos) read the LAST component
of the swizzled source and replicate the result.  fxc always writes a
replicate swizzle, where every choice agrees; for the rest, Windows drivers
read the fourth swizzle slot (Wine's test_scalar_instructions: `rcp oD0, c0`
gives 1/c0.w), as wined3d does — not .x as semantics §2.1 rule 3 suggests.  Edge values follow the docs (§2.2, §2.5, §7.1):
rcp(+-0) = +-FLT_MAX (IEEE clamped), rsq(0) = FLT_MAX, log(0) = -FLT_MAX, log/rsq/pow of |x|,
pow(x, 0) = 1 for every x, nrm of a zero xyz = 0.  ``Options.infinities = "ieee"`` gives
NVIDIA's results instead (rcp(+-0) = +-inf, rsq(0) = +inf, log(0) = -inf, log(+inf) = +inf).
"""

from __future__ import annotations

from ..bytecode.tables import Opcode
from ..ir.ops import Code, Op
from ..ir.types import B1
from .build import FLT_MAX, Context, compare, component, construct, dot, fconst, fop, mul, select, splat, swizzle
from .rewrite import D3D_OP_READERS, Rewriter, d3d_census, rewrite

# lit clamps the exponent to this (§2.2).
LIT_EXPONENT_LIMIT = 127.9961


SCALAR_SLOT = 3  # the swizzle slot scalar ops read (see the module docstring)


def _scalar(rw: Rewriter, v: Op) -> Op:
    return component(rw, v, SCALAR_SLOT)


def _is_zero(rw: Rewriter, x: Op) -> Op:
    return compare(rw, Code.FEQ, x, fconst(rw, 0.0, x.type.width))


def _ieee(ctx: Context) -> bool:
    """``infinities="ieee"``: rcp/rsq/log give IEEE infinities (NVIDIA) instead of +-FLT_MAX."""
    return ctx.options.infinities == "ieee"


def _limit(rw: Rewriter, ctx: Context, value: Op) -> Op:
    """``value`` clamped to +-FLT_MAX (semantics 7.1), or as is in IEEE mode."""
    if _ieee(ctx):
        return value
    return fop(rw, Code.FCLAMP, value, fconst(rw, -FLT_MAX, 1), fconst(rw, FLT_MAX, 1))


def _largest(ctx: Context) -> float:
    """What rsq(0) gives, and log(0) negated: FLT_MAX, or +inf in IEEE mode."""
    return float("inf") if _ieee(ctx) else FLT_MAX


def _rcp(rw: Rewriter, op: Op, ctx: Context) -> Op:
    # The IEEE result clamped to +-FLT_MAX (semantics 7.1's recommendation):
    # the documented magnitude for rcp(0), the sign R600 and NVIDIA give for
    # rcp(-0), and products with 0 stay 0 even without the legacy multiply.
    # (rsq and log keep an explicit zero test, in IEEE mode too: GLSL leaves
    # inversesqrt(0) and log2(0) undefined, while 1/0 is IEEE infinity on
    # every GL/Vulkan target.)
    return splat(rw, _limit(rw, ctx, fop(rw, Code.FRCP, _scalar(rw, op.args[0]))))


def _rsq(rw: Rewriter, op: Op, ctx: Context) -> Op:
    x = fop(rw, Code.FABS, _scalar(rw, op.args[0]))
    at_zero = fconst(rw, _largest(ctx), 1)
    return splat(rw, select(rw, _is_zero(rw, x), at_zero, fop(rw, Code.FRSQ, x)))


def _log(rw: Rewriter, op: Op, ctx: Context) -> Op:
    # log and logp (no 4-component vs_1_1 form for logp, unlike expp).
    # log2 clamped to +-FLT_MAX like rcp (§7.1): log(+inf) = FLT_MAX.
    x = fop(rw, Code.FABS, _scalar(rw, op.args[0]))
    value = _limit(rw, ctx, fop(rw, Code.FLOG2, x))
    return splat(rw, select(rw, _is_zero(rw, x), fconst(rw, -_largest(ctx), 1), value))


def _exp(rw: Rewriter, op: Op, ctx: Context) -> Op:
    return splat(rw, fop(rw, Code.FEXP2, _scalar(rw, op.args[0])))


def _expp(rw: Rewriter, op: Op, ctx: Context) -> Op:
    version = ctx.program.version
    if not (version.is_vertex and version.major == 1):
        return _exp(rw, op, ctx)  # vs_2_0+: 2^s replicated
    # vs_1_1: (2^floor(s), s - floor(s), 2^s, 1)
    s = _scalar(rw, op.args[0])
    floor = fop(rw, Code.FFLOOR, s)
    return construct(
        rw, fop(rw, Code.FEXP2, floor), fop(rw, Code.FSUB, s, floor),
        fop(rw, Code.FEXP2, s), fconst(rw, 1.0, 1),
    )


def _pow(rw: Rewriter, op: Op, ctx: Context) -> Op:
    # |s0|^s1, and 1 whenever s1 == 0 (even for a 0 or NaN base; §2.5).
    # GLSL leaves pow(0, y <= 0) undefined (llvmpipe gives 0), so a zero
    # base is spelled out: 0 for y > 0, +inf for y < 0 (§2.5).
    base = fop(rw, Code.FABS, _scalar(rw, op.args[0]))
    exponent = _scalar(rw, op.args[1])
    negative = compare(rw, Code.FLT, exponent, fconst(rw, 0.0, 1))
    at_zero = select(rw, negative, fconst(rw, float("inf"), 1), fconst(rw, 0.0, 1))
    power = select(rw, _is_zero(rw, base), at_zero, fop(rw, Code.FPOW, base, exponent))
    return splat(rw, select(rw, _is_zero(rw, exponent), fconst(rw, 1.0, 1), power))


def _nrm(rw: Rewriter, op: Op, ctx: Context) -> Op:
    # L = dot(xyz, xyz); f = L != 0 ? 1/sqrt(L) : FLT_MAX; d = s * f on all
    # four components, so a zero xyz gives 0, never NaN (§2.5).
    s = op.args[0]
    xyz = swizzle(rw, s, (0, 1, 2))
    length2 = dot(rw, xyz, xyz, False)  # x*x is 0 only when x is 0: legacy changes nothing
    nonzero = compare(rw, Code.FNE, length2, fconst(rw, 0.0, 1))
    factor = select(rw, nonzero, fop(rw, Code.FRSQ, length2), fconst(rw, FLT_MAX, 1))
    return mul(rw, s, splat(rw, factor), ctx.legacy)


def _lit(rw: Rewriter, op: Op, ctx: Context) -> Op:
    # d = (1, 0, 0, 1); p = clamp(s.w, -127.9961, 127.9961);
    # if s.x > 0: d.y = s.x, and if also s.y > 0: d.z = s.y^p.
    # Strict tests, and pow only through SELECT so its value is never used
    # for y <= 0 (pow(0, 0) and friends; §2.2, §2.3).
    s = op.args[0]
    x, y, w = (component(rw, s, i) for i in (0, 1, 3))
    zero = fconst(rw, 0.0, 1)
    p = fop(rw, Code.FCLAMP, w, fconst(rw, -LIT_EXPONENT_LIMIT, 1), fconst(rw, LIT_EXPONENT_LIMIT, 1))
    x_pos = compare(rw, Code.FGT, x, zero)
    both_pos = rw.emit(Code.BAND, B1, (x_pos, compare(rw, Code.FGT, y, zero)))
    d_y = select(rw, x_pos, x, zero)
    d_z = select(rw, both_pos, fop(rw, Code.FPOW, y, p), zero)
    one = fconst(rw, 1.0, 1)
    return construct(rw, one, d_y, d_z, one)


def _sincos(rw: Rewriter, op: Op, ctx: Context) -> Op:
    # x = cos, y = sin (§2.4); the SM2 form's two constant sources are the
    # hardware macro's series coefficients and are ignored, as by every peer.
    # z and w are 0 here: the mask (.x, .y or .xy) keeps them unwritten.
    s = _scalar(rw, op.args[0])
    zero = fconst(rw, 0.0, 1)
    return construct(rw, fop(rw, Code.FCOS, s), fop(rw, Code.FSIN, s), zero, zero)


HANDLERS = {
    Opcode.RCP: _rcp,
    Opcode.RSQ: _rsq,
    Opcode.EXP: _exp,
    Opcode.LOG: _log,
    Opcode.LOGP: _log,
    Opcode.EXPP: _expp,
    Opcode.POW: _pow,
    Opcode.NRM: _nrm,
    Opcode.LIT: _lit,
    Opcode.SINCOS: _sincos,
}


def run(program, options) -> None:
    if d3d_census(program).isdisjoint(HANDLERS):
        return  # most shaders (checked before building the context)
    rewrite(program, {}, HANDLERS, Context(program, options), D3D_OP_READERS)
