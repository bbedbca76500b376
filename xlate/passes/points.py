"""Point size and point sprites (``Options.draw_state``).

Vertex shaders: D3D9 draws a point at oPts clamped to [POINTSIZE_MIN,
POINTSIZE_MAX], or at D3DRS_POINTSIZE (clamped the same way) when the
shader writes no oPts (semantics 5.2).  Baked with ``pointmode`` (the draw
is of points), or always in the dynamic mode (sizes from the state
parameters), at every exit of main the PSIZE output is clamped, or one is
made (register RASTOUT 2, the target's gl_PointSize) holding the size.

Pixel shaders: D3DRS_POINTSPRITEENABLE replaces every TEXCOORD input by
(u, v, 0, 0), the point coordinate, u right and v down in the D3D image
(semantics 5.4).  Each TEXCOORD input becomes a LOCAL set at the start of
main from the INPUT ``builtin = "point_coord"`` (f2, D3D's orientation: the
layout maps it to the target's gl_PointCoord, flipped where the target's
image lies otherwise than D3D's).  Dynamic: every TEXCOORD input is
selected between the point coordinate and itself by ``pointspriteenable``.

Runs after ``io`` (outputs and inputs carrying two semantics are split by
then, so the PSIZE output and the TEXCOORD inputs are variables of their
own).
"""

from __future__ import annotations

from dataclasses import replace

from ..bytecode.tables import DeclUsage, RegisterType
from ..ir.ops import Code
from ..ir.program import Program, Semantic, Storage, Variable
from ..ir.types import F1, F2, F4
from .drawstate import at_exits
from .samplers_state import Out, dynamic

POINT_COORD = "point_coord"


def run(program: Program, options) -> None:
    ds = options.draw_state
    dyn = dynamic(options)
    if program.is_vertex:
        if dyn or ds.pointmode:
            _point_size(program, options)
    elif dyn or ds.pointspriteenable:
        _point_sprite(program, options)


def _point_size(program: Program, options) -> None:
    size = None
    for v in program.variables:
        if v.storage is Storage.OUTPUT and v.semantic is not None and v.semantic.usage is DeclUsage.PSIZE:
            size = v
            break
    writes = size is not None
    if size is None:
        size = Variable("oPts", Storage.OUTPUT, F1, register=(RegisterType.RASTOUT, 2),
                        semantics=((0x1, Semantic(DeclUsage.PSIZE, 0)),), mask=0x1)
        program.variables.append(size)

    def epilogue(out: list) -> None:
        e = Out(out, program, options)
        if writes:
            v = e.op(Code.LOAD, size.type, var=size)
            if size.type.width > 1:
                v = e.op(Code.SWIZZLE, F1, (v,), (0,))
        else:
            v = e.param("pointsize")
        clamped = e.op(Code.FCLAMP, F1, (v, e.param("pointsize_min"), e.param("pointsize_max")))
        e.op(Code.STORE, None, (clamped,), (0x1,), size)

    at_exits(program, epilogue)
    ds = options.draw_state
    program.notes.setdefault("stage_state", {})["pointsize"] = (
        "parameters" if dynamic(options) else {"size": ds.pointsize, "min": ds.pointsize_min,
                                               "max": ds.pointsize_max, "oPts": writes})


def _point_sprite(program: Program, options) -> None:
    texcoords = [v for v in program.variables
                 if v.storage is Storage.INPUT and v.semantic is not None and v.semantic.usage is DeclUsage.TEXCOORD]
    if not texcoords:
        return
    dyn = dynamic(options)
    pc = Variable(POINT_COORD, Storage.INPUT, F2, builtin=POINT_COORD)
    program.variables.append(pc)
    prologue: list = []
    e = Out(prologue, program, options)
    uv = e.op(Code.LOAD, F2, var=pc)
    value = e.op(Code.CONSTRUCT, F4, (uv, e.const(F2, 0.0)))
    enabled = e.param("pointspriteenable") if dyn else None
    for var in texcoords:
        width = var.type.width
        v = value
        if dyn:  # the varying itself, through a new INPUT: ``var`` becomes the LOCAL
            raw = replace(var)
            program.variables.append(raw)
            read = e.op(Code.LOAD, var.type, var=raw)
            if width != 4:
                read = e.op(Code.CONSTRUCT, F4, (read, e.const_vec((0.0,) * (4 - width))))
            v = e.op(Code.SELECT, F4, (enabled, value, read))
        if width != 4:
            v = e.op(Code.SWIZZLE, var.type, (v,), tuple(range(width)))
        e.op(Code.STORE, None, (v,), (0xF >> (4 - width),), var)
        var.storage, var.semantics, var.builtin = Storage.LOCAL, (), None
    program.main.body[:0] = prologue
    program.notes.setdefault("stage_state", {})["pointspriteenable"] = True
