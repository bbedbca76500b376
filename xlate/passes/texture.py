"""SM2+ texture instructions, texkill and derivatives -> SAMPLE / DISCARD / FDDX.

texld / texldp / texldb / texldl / texldd (semantics §2.10) become one
SAMPLE with imm ``(SampleKind, SamplerType)``; the coordinate keeps as many
components as the sampler's dimension needs (1D x, 2D xy, cube/volume xyz).
texldp divides the whole coordinate by w first; texldb's bias and texldl's
LOD are coord.w.  SM3 applies the swizzle written on s# to the texel.
Vertex shaders have no derivatives, so a vs_3_0 ``texld`` samples LOD 0.

The ps_1_x texture-address ops (tex, texcoord, texbem, texm3x*, bem,
texdepth, ps_1_x texkill ...) belong to the sm1 pass and stay D3D_OP here.
"""

from __future__ import annotations

from ..bytecode.tables import IDENTITY_SWIZZLE, Opcode, SamplerType, TexControl, swizzle_components
from ..ir.ops import Code, Op, SampleKind, SampleMode
from ..ir.types import B1, F4
from .build import IDENTITY, Context, compare, component, fconst, fop, splat, swizzle
from .rewrite import D3D_OP_READERS, Rewriter, d3d_census, rewrite
from .samplers_state import DEPTH_COORD_WIDTH, depth_compare

COORD_WIDTH = {
    SamplerType.TEX1D: 1,
    SamplerType.TEX2D: 2,
    SamplerType.CUBE: 3,
    SamplerType.VOLUME: 3,
}


def sampler_type(sampler, options) -> SamplerType:
    """The declared type, or the options' choice when it is unknown (§2.10)."""
    st = sampler.sampler_type
    if st in COORD_WIDTH:
        return st
    return options.sampler_type(sampler.register[1] if sampler.register else 0)


# Enum members _sample reads, as module constants: ``Opcode.X`` and
# friends cost some 70 ns a lookup (build.py), and texld is frequent.
_TEX, _TEXLDL, _TEXLDD = Opcode.TEX, Opcode.TEXLDL, Opcode.TEXLDD
_NO_CONTROL, _PROJECT, _BIAS = TexControl.NONE, TexControl.PROJECT, TexControl.BIAS
_PLAIN, _LOD, _GRAD, _WITH_BIAS = SampleKind.PLAIN, SampleKind.LOD, SampleKind.GRAD, SampleKind.BIAS
DEPTH_COMPARE = SampleMode.DEPTH_COMPARE


def _offset(program, op: Op) -> int:
    """The byte offset of the D3D instruction ``op`` came from, or -1."""
    if 0 <= op.origin < len(program.instructions):
        return program.instructions[op.origin].offset
    return -1


def _sample(rw: Rewriter, op: Op, ctx: Context) -> Op:
    info = op.imm[0]
    opcode = info.opcode
    stype = sampler_type(info.sampler, ctx.options)
    width = COORD_WIDTH[stype]
    # a shadow compare (Options.draw_state.depthtexture) keeps z, the reference depth
    shadow = depth_compare(info.sampler, stype, ctx.options, _offset(ctx.program, op))
    if shadow:
        width = DEPTH_COORD_WIDTH
    coord = op.args[0]
    control = info.control & 3 if opcode is _TEX else _NO_CONTROL
    # bias, lod and projection divisor are all the (unprojected) coord.w
    w = component(rw, coord, 3) if control or opcode is _TEXLDL else None
    if control == _PROJECT:
        coord = fop(rw, Code.FDIV, coord, splat(rw, w))
    extra: tuple[Op, ...] = ()
    if opcode is _TEXLDL:
        kind, extra = _LOD, (w,)
    elif opcode is _TEXLDD:
        kind = _GRAD
        extra = tuple(swizzle(rw, g, range(width)) for g in op.args[1:3])
    elif ctx.program.is_vertex:
        kind, extra = _LOD, (fconst(rw, 0.0, 1),)
    elif control == _BIAS:
        kind, extra = _WITH_BIAS, (w,)
    else:
        kind = _PLAIN
    texel = rw.emit(
        Code.SAMPLE, F4, (swizzle(rw, coord, IDENTITY[width]),) + extra,
        (kind, stype, DEPTH_COMPARE) if shadow else (kind, stype), info.sampler,
    )
    if ctx.program.version.major >= 3 and info.sampler_swizzle != IDENTITY_SWIZZLE:
        texel = swizzle(rw, texel, swizzle_components(info.sampler_swizzle))
    return texel


def _texkill(rw: Rewriter, op: Op, ctx: Context) -> None:
    # SM2+: kill when any of xyzw is < 0 (§2.12).
    v = op.args[0]
    negative = compare(rw, Code.FLT, v, fconst(rw, 0.0))
    rw.emit(Code.IF, args=(rw.emit(Code.BANY, B1, (negative,)),))
    rw.emit(Code.DISCARD)
    rw.emit(Code.ENDIF)
    return None


def _derivative(code: Code):
    return lambda rw, op, ctx: fop(rw, code, op.args[0])


HANDLERS = {
    Opcode.TEX: _sample,
    Opcode.TEXLDL: _sample,
    Opcode.TEXLDD: _sample,
    Opcode.TEXKILL: _texkill,
    Opcode.DSX: _derivative(Code.FDDX),
    Opcode.DSY: _derivative(Code.FDDY),
}


def run(program, options) -> None:
    if program.version.major < 2:
        return  # every ps_1_x texture op is the sm1 pass's
    if d3d_census(program).isdisjoint(HANDLERS):
        return  # no texture instruction (checked before building the context)
    rewrite(program, {}, HANDLERS, Context(program, options), D3D_OP_READERS)
