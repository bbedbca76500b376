"""Matrix macros (m4x4 m4x3 m3x4 m3x3 m3x2) -> one dot product per row.

``mAxB d, s0, sN`` is ``d[k] = dot(s0, reg(N + k))`` for k < B, where
reg(N + k) is the next register *of the same file* and keeps sN's relative
index, swizzle and modifier (semantics §2.2, §2.8).  Row k's operand is a
clone of sN's LOAD -> SWIZZLE -> D3D_SRCMOD chain with element + k; the
clones run in the source_modifiers pass next.

All rows are computed before the D3D_STORE, so ``m4x4 r0, r0, c0`` (which
the docs forbid but shaders do) reads the old r0 in every row.  Rows the
destination does not write are not computed (no loads past a matrix whose
last rows are unused) and the write mask is narrowed to the row count, as
dxbc-spirv does: ``m3x3 r0, ...`` with a .xyzw mask leaves w unchanged.
"""

from __future__ import annotations

from dataclasses import replace

from ..bytecode.tables import Opcode, register_name
from ..ir.ops import Code, Op
from ..ir.program import Semantic, Variable
from .build import Context, construct, dot, fconst, swizzle
from .rewrite import D3D_OP_READERS, Rewriter, d3d_census, rewrite

# opcode -> (components of s0 used, rows)
SHAPES = {
    Opcode.M4x4: (4, 4),
    Opcode.M4x3: (4, 3),
    Opcode.M3x4: (3, 4),
    Opcode.M3x3: (3, 3),
    Opcode.M3x2: (3, 2),
}


def run(program, options) -> None:
    # Few shaders use a matrix macro: without one there is nothing to lower
    # and no D3D_STORE mask to narrow (lifting makes a D3D_STORE only for
    # the value of a D3D_OP), and the census answers without a walk.
    if d3d_census(program).isdisjoint(SHAPES):
        return
    table = dict.fromkeys(SHAPES, _matrix)
    rewrite(program, {Code.D3D_STORE: _narrow_mask}, table, Context(program, options), D3D_OP_READERS)


def _matrix(rw: Rewriter, op: Op, ctx: Context) -> Op:
    width, rows = SHAPES[op.imm[0].opcode]
    vector = swizzle(rw, op.args[0], range(width))
    mask = op.imm[0].dst_mask
    values = []
    for k in range(4):
        if k < rows and mask & (1 << k):
            row = op.args[1] if k == 0 else _clone_row(rw, ctx.program, op.args[1], k)
            values.append(dot(rw, vector, swizzle(rw, row, range(width)), ctx.legacy))
        else:
            values.append(fconst(rw, 0.0, 1))
    return construct(rw, *values)


def _narrow_mask(rw: Rewriter, op: Op):
    info = op.imm[0]
    if info.opcode in SHAPES:
        rows = SHAPES[info.opcode][1]
        op.imm = (replace(info, mask=info.mask & ((1 << rows) - 1)),) + op.imm[1:]
    return rw.keep(op)


def _clone_row(rw: Rewriter, program, value: Op, k: int) -> Op:
    """Re-emit the operand chain ending in ``value`` for register + k."""
    if value.code is Code.LOAD:
        var, imm = value.var, value.imm
        if var.length is not None:  # a register file array (c#): element + k
            imm = (imm[0] + k,)
            var.length = max(var.length, imm[0] + 1)
        else:
            var = _register(program, var, k)
        return rw.emit(Code.LOAD, var.type, value.args, imm, var)
    if value.code in (Code.SWIZZLE, Code.D3D_SRCMOD, Code.I2F, Code.B2F):
        inner = _clone_row(rw, program, value.args[0], k)
        return rw.emit(value.code, value.type, (inner,), value.imm)
    raise AssertionError(f"unexpected matrix operand {value.code}")


def _register(program, base: Variable, k: int) -> Variable:
    """The variable of the register k after ``base`` in the same file."""
    rtype, index = base.register
    for var in program.variables:
        if var.register == (rtype, index + k):
            return var
    # Never used on its own (e.g. r5 read only as a matrix row): create it
    # like its neighbour.  Registers whose semantic is fixed by their number
    # (ps_1_x/ps_2_x v# and t#) shift it; declared ones (vs, sm3) have none.
    semantics = ()
    if program.is_pixel and program.version.major < 3:
        semantics = tuple((m, Semantic(s.usage, s.index + k)) for m, s in base.semantics)
    var = Variable(
        register_name(program.version, rtype, index + k), base.storage, base.type,
        register=(rtype, index + k), semantics=semantics,
    )
    program.variables.append(var)
    return var
