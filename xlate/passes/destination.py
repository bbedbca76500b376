"""D3D_STORE -> STORE of the masked components (semantics §3.2-3.4, §2.9).

In order: the ps_1_x result shift (x 2^k), then saturate (NaN -> 0), then
the register's own rules (a0 takes an int: mova rounds half to even,
vs_1_x ``mov a0`` floors; scalar registers oFog/oPts/oDepth take x), then
predication (a SELECT between the new and the old value per component),
then a STORE of only the components in the write mask, so the others keep
their value (read-modify-write, §3.4).
"""

from __future__ import annotations

from ..bytecode.tables import Opcode
from ..ir.ops import Code, Op
from ..ir.types import F4, Scalar
from .build import FLOAT, fconst, fop, resized, select, swizzle
from .rewrite import Rewriter, rewrite

# write mask -> the components it writes, in order (0b1011 -> (0, 1, 3))
MASK_COMPONENTS = tuple(tuple(i for i in range(4) if mask >> i & 1) for mask in range(16))
# write mask -> the STORE's imm, and the type of an f4's masked components
# (shared: one tuple and no lookup per store)
_MASK_IMM = tuple((mask,) for mask in range(16))
_MASK_TYPE = tuple(FLOAT[len(comps)] if comps else None for comps in MASK_COMPONENTS)
_SCALAR_X = (0,)
_INT, _FLOAT = Scalar.INT, Scalar.FLOAT
_STORE, _SWIZZLE = Code.STORE, Code.SWIZZLE


def _lower(rw: Rewriter, op: Op) -> None:
    # Most stores (nearly all in real shaders) have no modifier and write a
    # plain f4 register: they only need the mask applied, done here without
    # the general path's tests and calls.  The result is the same.
    info, var = op.imm[0], op.var
    mask = info.mask
    if (var.type is not F4 or var.length is not None or not mask
            or info.shift or info.saturate or info.predicated or info.relative):
        return _lower_any(rw, op)
    value = op.args[0]
    if value.type is F4 and value.code is not _SWIZZLE:  # (nearly always: a D3D_OP's value)
        if mask != 0xF:  # ``swizzle(rw, value, MASK_COMPONENTS[mask])``, written out
            value = Op(_SWIZZLE, _MASK_TYPE[mask], (value,), MASK_COMPONENTS[mask], None, rw.origin)
            rw.out.append(value)
    elif mask != 0xF or value.code is _SWIZZLE or value.type.width != 4:
        value = swizzle(rw, value, MASK_COMPONENTS[mask])
    op.code, op.type, op.args, op.imm = _STORE, None, (value,), _MASK_IMM[mask]  # rw.become, var kept
    rw.out.append(op)
    return None


def _lower_any(rw: Rewriter, op: Op) -> None:
    info, var = op.imm[0], op.var
    value = op.args[0]
    if info.shift:
        value = fop(rw, Code.FMUL, value, fconst(rw, 2.0 ** info.shift, value.type.width))
    if info.saturate:
        value = fop(rw, Code.FSATURATE, value)
    vtype = var.type
    if vtype.scalar is _INT and value.type.scalar is _FLOAT:
        # a0 (§2.9): mova rounds to nearest (ties to even: no Windows evidence
        # decides ties); vs_1_x "mov a0" floors, as every peer does.
        code = Code.F2I_ROUND if info.opcode is Opcode.MOVA else Code.F2I_FLOOR
        value = rw.emit(code, resized(vtype, value.type.width), (value,))
    mask = info.mask
    if vtype.width == 1:
        comps = _SCALAR_X  # scalar register: the x result (§2.1 rule 4)
        if mask:
            mask = 0x1
    else:
        comps = MASK_COMPONENTS[mask]
    if not mask:
        return None
    value = swizzle(rw, value, comps)
    element = (info.element,) if var.length is not None else ()
    index = op.args[-1:] if info.relative else ()
    if info.predicated:
        old = swizzle(rw, rw.emit(Code.LOAD, vtype, index, element, var), comps)
        value = select(rw, swizzle(rw, op.args[1], comps), value, old)
    rw.become(op, Code.STORE, None, (value,) + index, (mask,) + element, var)
    return None


HANDLERS = {Code.D3D_STORE: _lower}


def run(program, options) -> None:
    rewrite(program, HANDLERS)
