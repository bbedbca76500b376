"""ps_1_x texture-address instructions -> core ops (semantics §2.10-2.12).

Lifting gives each op what it reads (``ir/builder.py``):
* the written sources, swizzled and modified (``t(n)`` is the texture
  *register*, a TEMP in ps_1_0-1_3);
* in ps_1_0-1_3, for the ops that use ``tc[m]`` (the interpolated coordinate
  set of the destination's stage m), a LOAD of that coordinate input last;
* ``D3DOpInfo.sampler`` = ``s<m>`` for the ops that sample: the stage is
  always the destination register's number;
* texkill: the coordinate set (ps_1_0-1_3) or the register (ps_1_4);
  texdepth: r5.

Ops that write no register (texkill, the pads, texm3x2depth, texdepth) are
lifted without a D3D_STORE, so nothing here has to remove one; the others
keep theirs, and the ``destination`` pass (which runs after this one)
applies mask, shift and saturate to the value computed here.

State between instructions: a pad (``texm3x2pad``, ``texm3x3pad`` on t(m))
stores ``(tc[m].xyz . t(n).xyz, tc[m].w)`` in a LOCAL ``texm_row<m>`` that the
op finishing the matrix reads (rows m-1 / m-2 of its own register m).  A row
no pad wrote reads 0.

Draw-time state the D3D9 runtime owns becomes options or uniforms, never a
guess (docs/ir.md "Draw-time state"): sampler dimensions
(``options.sampler_types``, 2D by default), projection
(``options.texture_projection``), the bump-environment matrix and luminance
scale/offset (uniform INPUT variables with builtins ``bumpenv_mat<m>``,
``bumpenv_lscale<m>``, ``bumpenv_loffset<m>``).  What a shader depends on is
recorded in ``program.notes["draw_state"]``.  Depth goes to an OUTPUT with
semantic DEPTH0 (``oDepth``), created here.
"""

from __future__ import annotations

from ..bytecode.tables import DeclUsage, Opcode, RegisterType
from ..errors import UnsupportedError
from ..ir.ops import Code, Op, SampleKind, SampleMode
from ..ir.program import Program, Semantic, Storage, Variable
from ..ir.types import B1, F1, F2, F4, Type
from .build import Context, compare, component, construct, dot, fconst, fop, select, splat, swizzle
from .rewrite import D3D_OP_READERS, Rewriter, rewrite
from .samplers_state import DEPTH_COORD_WIDTH, depth_compare
from .texture import COORD_WIDTH, sampler_type


class _State(Context):
    """Per-program state: the pad locals, uniforms and what was assumed."""

    def __init__(self, program: Program, options):
        super().__init__(program, options)
        self.ps14 = program.version.minor >= 4
        self.rows: dict[int, Variable] = {}
        self.notes = {"samplers": {}, "projected": {}, "bumpenv": [], "luminance": [], "depth": False}

    def uniform(self, name: str, type: Type) -> Variable:
        """A draw-time value the layer supplies (docs/ir.md "Draw-time state")."""
        for v in self.program.variables:
            if v.storage is Storage.INPUT and v.builtin == name:
                return v
        var = Variable(name, Storage.INPUT, type, builtin=name)
        self.program.variables.append(var)
        return var

    def depth_output(self) -> Variable:
        self.notes["depth"] = True
        for v in self.program.variables_of(Storage.OUTPUT):
            if v.semantic is not None and v.semantic.usage is DeclUsage.DEPTH:
                return v
        var = Variable("oDepth", Storage.OUTPUT, F1, register=(RegisterType.DEPTHOUT, 0),
                       semantics=((0x1, Semantic(DeclUsage.DEPTH, 0)),), mask=0x1)
        self.program.variables.append(var)
        return var

    def row_var(self, register: int) -> Variable:
        var = self.rows.get(register)
        if var is None:
            var = self.rows[register] = self.program.new_local(f"texm_row{register}", F2)
        return var


# -- helpers ---------------------------------------------------------------------


def _stage(op: Op) -> int:
    return op.imm[0].dst[1]


def _coord(op: Op) -> Op:
    """tc[m]: the coordinate input lifting appended (ps_1_0-1_3)."""
    return op.args[-1]


def _xyz(rw: Rewriter, v: Op) -> Op:
    return swizzle(rw, v, (0, 1, 2))


def _dp3(rw: Rewriter, ctx: _State, a: Op, b: Op) -> Op:
    return dot(rw, _xyz(rw, a), _xyz(rw, b), ctx.legacy)


def _vec4(rw: Rewriter, *parts: Op) -> Op:
    """Concatenate and pad with zeros to f4 (coordinates of any sampler width)."""
    width = sum(p.type.width for p in parts)
    if width < 4:
        parts = parts + (fconst(rw, 0.0, 4 - width),)
    return construct(rw, *parts)


def _sample(rw: Rewriter, ctx: _State, op: Op, coord: Op) -> Op:
    """SAMPLE stage m with the components its dimension needs (§2.10)."""
    sampler = op.imm[0].sampler
    stype = sampler_type(sampler, ctx.options)
    ctx.notes["samplers"][_stage(op)] = stype.asm
    offset = ctx.program.instructions[op.origin].offset if 0 <= op.origin < len(ctx.program.instructions) else -1
    if depth_compare(sampler, stype, ctx.options, offset):
        # a shadow compare (Options.draw_state.depthtexture): z is the reference depth
        if coord.type.width < DEPTH_COORD_WIDTH:
            raise UnsupportedError(offset, f"draw_state: sampler {_stage(op)} is a depth texture, but this "
                                           "instruction's coordinate has no z to compare")
        coord = swizzle(rw, coord, range(DEPTH_COORD_WIDTH))
        return rw.emit(Code.SAMPLE, F4, (coord,), (SampleKind.PLAIN, stype, SampleMode.DEPTH_COMPARE), sampler)
    coord = swizzle(rw, coord, range(COORD_WIDTH[stype]))
    return rw.emit(Code.SAMPLE, F4, (coord,), (SampleKind.PLAIN, stype), sampler)


def _projected(rw: Rewriter, ctx: _State, op: Op, tc: Op) -> Op:
    """tc divided by the component the stage's D3DTTFF_PROJECTED names (§2.10).

    Cube stages are divided too, as dxbc-spirv and the reference interpreter
    do (wined3d and DXSO skip them): only a negative divisor changes a cube
    lookup, and nothing on Windows decides that case."""
    stage = _stage(op)
    c = ctx.options.projection_component(stage)
    if c is None:
        return tc
    ctx.notes["projected"][stage] = "xyzw"[c]
    return fop(rw, Code.FDIV, tc, splat(rw, component(rw, tc, c)))


def _row(rw: Rewriter, ctx: _State, register: int) -> Op:
    """(dot, tc.w) a pad stored for ``register``; 0 when no pad wrote it."""
    var = ctx.rows.get(register)
    if var is None:
        return fconst(rw, 0.0, 2)
    return rw.emit(Code.LOAD, F2, var=var)


def _matrix_result(rw: Rewriter, ctx: _State, op: Op, rows: int) -> tuple[list[Op], list[Op]]:
    """The matrix product of texm3x2*/texm3x3*: (components, row loads)."""
    m = _stage(op)
    earlier = [_row(rw, ctx, m - rows + 1 + k) for k in range(rows - 1)]
    last = _dp3(rw, ctx, _coord(op), op.args[0])
    return [component(rw, r, 0) for r in earlier] + [last], earlier


# -- ps_1_0-1_3 -----------------------------------------------------------------------


def _tex(rw: Rewriter, op: Op, ctx: _State) -> Op:
    if ctx.ps14:  # texld r(m), src: the source (its _dz/_dw already divided) is the coordinate
        return _sample(rw, ctx, op, op.args[0])
    return _sample(rw, ctx, op, _projected(rw, ctx, op, _coord(op)))


def _texcoord(rw: Rewriter, op: Op, ctx: _State) -> Op:
    if ctx.ps14:  # texcrd: a plain copy, not clamped
        return op.args[0]
    # saturate(tc[m]) with w = 1, as the docs say (§2.10)
    tc = fop(rw, Code.FSATURATE, _coord(op))
    return construct(rw, _xyz(rw, tc), fconst(rw, 1.0, 1))


def _texkill(rw: Rewriter, op: Op, ctx: _State) -> None:
    # xyz < 0 kills; w is never tested in ps_1_x (§2.12)
    negative = compare(rw, Code.FLT, _xyz(rw, op.args[0]), fconst(rw, 0.0, 3))
    rw.emit(Code.IF, args=(rw.emit(Code.BANY, B1, (negative,)),))
    rw.emit(Code.DISCARD)
    rw.emit(Code.ENDIF)
    return None


def _bump(rw: Rewriter, ctx: _State, stage: int, base: Op, d: Op) -> Op:
    """base.xy + (M00 d.r + M10 d.g, M01 d.r + M11 d.g), M of ``stage`` (f2).

    The bump and luminance products are the texture stage's fixed-function
    math, not shader ALU products, so they are plain IEEE multiplies (the
    legacy multiply of §7.2 is for mul/mad/dp*; the reference interpreter
    agrees).  The texm3x* rows are dot products like dp3 and follow
    ``options.legacy_multiply``."""
    ctx.notes["bumpenv"].append(stage)
    mat = rw.emit(Code.LOAD, F4, var=ctx.uniform(f"bumpenv_mat{stage}", F4))  # (M00, M01, M10, M11)
    by_r = fop(rw, Code.FMUL, swizzle(rw, mat, (0, 1)), splat(rw, component(rw, d, 0), 2))
    by_g = fop(rw, Code.FMUL, swizzle(rw, mat, (2, 3)), splat(rw, component(rw, d, 1), 2))
    return fop(rw, Code.FADD, swizzle(rw, base, (0, 1)), fop(rw, Code.FADD, by_r, by_g))


def _texbem(rw: Rewriter, op: Op, ctx: _State) -> Op:
    # Only tc[m] is projected, before the displacement is added (§2.11).
    stage, d = _stage(op), op.args[0]
    tc = _projected(rw, ctx, op, _coord(op))
    texel = _sample(rw, ctx, op, construct(rw, _bump(rw, ctx, stage, tc, d), swizzle(rw, tc, (2, 3))))
    if op.imm[0].opcode is not Opcode.TEXBEML:
        return texel
    # texbeml: texel * saturate(d.b * LSCALE + LOFFSET); the factor is clamped
    # to [0, 1] as DXSO and dxbc-spirv do, and as Windows does in the same
    # fixed-function stage (§2.11).
    ctx.notes["luminance"].append(stage)
    scale = rw.emit(Code.LOAD, F1, var=ctx.uniform(f"bumpenv_lscale{stage}", F1))
    offset = rw.emit(Code.LOAD, F1, var=ctx.uniform(f"bumpenv_loffset{stage}", F1))
    factor = fop(rw, Code.FSATURATE, fop(rw, Code.FMAD, component(rw, d, 2), scale, offset))
    return fop(rw, Code.FMUL, texel, splat(rw, factor))


def _texreg(comps):
    """texreg2ar (a, r), texreg2gb (g, b), texreg2rgb (r, g, b): t(n) as coordinate."""

    def handler(rw: Rewriter, op: Op, ctx: _State) -> Op:
        return _sample(rw, ctx, op, _vec4(rw, swizzle(rw, op.args[0], comps)))

    return handler


def _pad(rw: Rewriter, op: Op, ctx: _State) -> None:
    # t(m) is not written; the row waits in a LOCAL for the op that finishes
    # the matrix, with tc[m].w for texm3x3vspec's eye vector (§2.11).
    tc = _coord(op)
    row = construct(rw, _dp3(rw, ctx, tc, op.args[0]), component(rw, tc, 3))
    rw.emit(Code.STORE, None, (row,), (0x3,), ctx.row_var(_stage(op)))
    return None


def _texm3x2tex(rw: Rewriter, op: Op, ctx: _State) -> Op:
    comps, _ = _matrix_result(rw, ctx, op, 2)
    return _sample(rw, ctx, op, _vec4(rw, *comps))


def _texm3x2depth(rw: Rewriter, op: Op, ctx: _State) -> None:
    # depth = w == 0 ? 1 : z / w with z from the pad, then clamped to [0, 1]
    # as wined3d does (§2.11, §5.6); t(m+1) is not written.
    (z, w), _ = _matrix_result(rw, ctx, op, 2)
    _write_depth(rw, ctx, z, w)
    return None


def _texdepth(rw: Rewriter, op: Op, ctx: _State) -> None:
    # depth = r5.r / r5.g, 1 when r5.g == 0, clamped to [0, 1] (§2.11); r5 keeps its value.
    r5 = op.args[0]
    _write_depth(rw, ctx, component(rw, r5, 0), component(rw, r5, 1))
    return None


def _write_depth(rw: Rewriter, ctx: _State, num: Op, den: Op) -> None:
    ratio = fop(rw, Code.FDIV, num, den)
    zero = compare(rw, Code.FEQ, den, fconst(rw, 0.0, 1))
    depth = fop(rw, Code.FSATURATE, select(rw, zero, fconst(rw, 1.0, 1), ratio))
    rw.emit(Code.STORE, None, (depth,), (0x1,), ctx.depth_output())


def _texm3x3(rw: Rewriter, op: Op, ctx: _State) -> Op:
    # (row0, row1, row2, 1), no sampling (1.2+)
    comps, _ = _matrix_result(rw, ctx, op, 3)
    return construct(rw, *comps, fconst(rw, 1.0, 1))


def _texm3x3tex(rw: Rewriter, op: Op, ctx: _State) -> Op:
    comps, _ = _matrix_result(rw, ctx, op, 3)
    return _sample(rw, ctx, op, _vec4(rw, *comps))


def _texm3x3spec(rw: Rewriter, op: Op, ctx: _State) -> Op:
    # R = 2 (N.E) / (N.N) N - E, the docs' formula (wined3d normalises N only,
    # which is the same; DXSO and dxbc-spirv also normalise E, which only
    # scales R by 1/|E|).  E = c#.xyz for spec, (tc[m].w, tc[m+1].w,
    # tc[m+2].w) for vspec.  N = 0 gives R = -E rather than NaN.
    comps, rows = _matrix_result(rw, ctx, op, 3)
    n = construct(rw, *comps)
    if op.imm[0].opcode is Opcode.TEXM3x3SPEC:
        e = _xyz(rw, op.args[1])
    else:
        e = construct(rw, *(component(rw, r, 1) for r in rows), component(rw, _coord(op), 3))
    nn = dot(rw, n, n, False)
    scale = fop(rw, Code.FDIV, fop(rw, Code.FMUL, fconst(rw, 2.0, 1), dot(rw, n, e, ctx.legacy)), nn)
    scale = select(rw, compare(rw, Code.FEQ, nn, fconst(rw, 0.0, 1)), fconst(rw, 0.0, 1), scale)
    r = fop(rw, Code.FSUB, fop(rw, Code.FMUL, splat(rw, scale, 3), n), e)
    return _sample(rw, ctx, op, _vec4(rw, r))


def _texdp3(rw: Rewriter, op: Op, ctx: _State) -> Op:
    return splat(rw, _dp3(rw, ctx, _coord(op), op.args[0]))


def _texdp3tex(rw: Rewriter, op: Op, ctx: _State) -> Op:
    # (u, 0) on stage m
    return _sample(rw, ctx, op, _vec4(rw, _dp3(rw, ctx, _coord(op), op.args[0])))


# -- ps_1_4 ------------------------------------------------------------------------------


def _bem(rw: Rewriter, op: Op, ctx: _State) -> Op:
    # d.rg = s0.rg + M(k) s1.rg, k = the destination register number (§2.11);
    # b and a are s0's (the .rg mask drops them).
    s0, s1 = op.args[:2]
    return construct(rw, _bump(rw, ctx, _stage(op), s0, s1), swizzle(rw, s0, (2, 3)))


HANDLERS = {
    Opcode.TEX: _tex,
    Opcode.TEXCOORD: _texcoord,
    Opcode.TEXKILL: _texkill,
    Opcode.TEXBEM: _texbem,
    Opcode.TEXBEML: _texbem,
    Opcode.TEXREG2AR: _texreg((3, 0)),
    Opcode.TEXREG2GB: _texreg((1, 2)),
    Opcode.TEXREG2RGB: _texreg((0, 1, 2)),
    Opcode.TEXM3x2PAD: _pad,
    Opcode.TEXM3x2TEX: _texm3x2tex,
    Opcode.TEXM3x2DEPTH: _texm3x2depth,
    Opcode.TEXM3x3PAD: _pad,
    Opcode.TEXM3x3TEX: _texm3x3tex,
    Opcode.TEXM3x3SPEC: _texm3x3spec,
    Opcode.TEXM3x3VSPEC: _texm3x3spec,
    Opcode.TEXM3x3: _texm3x3,
    Opcode.TEXDP3: _texdp3,
    Opcode.TEXDP3TEX: _texdp3tex,
    Opcode.TEXDEPTH: _texdepth,
    Opcode.BEM: _bem,
}


def run(program: Program, options) -> None:
    if not (program.is_pixel and program.version.major == 1):
        return
    ctx = _State(program, options)
    rewrite(program, {}, HANDLERS, ctx, D3D_OP_READERS)
    record(ctx)


def context(program: Program, options) -> _State:
    """The context ``HANDLERS`` need (one per program); ``record`` it after the walk."""
    return _State(program, options)


def record(ctx: _State) -> None:
    """Note what the shader assumed of the draw-time state (docs/ir.md)."""
    program = ctx.program
    notes = ctx.notes
    program.notes["draw_state"] = {
        "samplers": dict(sorted(notes["samplers"].items())),
        "projected": dict(sorted(notes["projected"].items())),
        "bumpenv": sorted(set(notes["bumpenv"])),
        "luminance": sorted(set(notes["luminance"])),
        "depth": notes["depth"],
    }
