"""Point size and point sprites, baked (``Options.stage_state``).

Vertex shaders (``point_size`` given): D3D9 draws a point at oPts clamped
to [POINTSIZE_MIN, POINTSIZE_MAX], or at D3DRS_POINTSIZE (clamped the same
way) when the shader writes no oPts (semantics 5.2).  At every exit of main
the PSIZE output is clamped, or one is made (register RASTOUT 2, the
target's gl_PointSize) holding the state's size.

Pixel shaders (``point_sprite``): D3DRS_POINTSPRITEENABLE replaces every
TEXCOORD input by (u, v, 0, 0), the point coordinate, u right and v down in
the D3D image (semantics 5.4).  Each TEXCOORD input becomes a LOCAL set at
the start of main from the INPUT ``builtin = "point_coord"`` (f2, D3D's
orientation: the layout maps it to the target's gl_PointCoord, flipped
where the target's image orientation differs from D3D's).

Runs after ``io`` (outputs and inputs carrying two semantics are split by
then, so the PSIZE output and the TEXCOORD inputs are variables of their
own).
"""

from __future__ import annotations

from ..bytecode.tables import DeclUsage, RegisterType
from ..ir.ops import Code
from ..ir.program import Program, Semantic, Storage, Variable
from ..ir.types import F1, F2, F4
from .samplers_state import _Out, at_exits, state_of

POINT_COORD = "point_coord"


def run(program: Program, options) -> None:
    state = state_of(options)
    if state is None:
        return
    if program.is_vertex and state.point_size is not None:
        _point_size(program, state)
    elif program.is_pixel and state.point_sprite:
        _point_sprite(program)


def _point_size(program: Program, state) -> None:
    size = None
    for v in program.variables:
        if v.storage is Storage.OUTPUT and v.semantic is not None and v.semantic.usage is DeclUsage.PSIZE:
            size = v
            break
    lo, hi = state.point_size_min, state.point_size_max
    if size is None:
        size = Variable("oPts", Storage.OUTPUT, F1, register=(RegisterType.RASTOUT, 2),
                        semantics=((0x1, Semantic(DeclUsage.PSIZE, 0)),), mask=0x1)
        program.variables.append(size)
        fixed = min(max(state.point_size, lo), hi)

        def epilogue(out: list) -> None:
            e = _Out(out)
            e.op(Code.STORE, None, (e.const(F1, fixed),), (0x1,), size)
    else:
        def epilogue(out: list) -> None:
            e = _Out(out)
            v = e.op(Code.LOAD, size.type, var=size)
            if size.type.width > 1:
                v = e.op(Code.SWIZZLE, F1, (v,), (0,))
            clamped = e.op(Code.FCLAMP, F1, (v, e.const(F1, lo), e.const(F1, hi)))
            e.op(Code.STORE, None, (clamped,), (0x1,), size)
    at_exits(program, epilogue)
    program.notes.setdefault("stage_state", {})["point_size"] = {
        "size": state.point_size, "min": lo, "max": hi}


def _point_sprite(program: Program) -> None:
    texcoords = [v for v in program.variables
                 if v.storage is Storage.INPUT and v.semantic is not None and v.semantic.usage is DeclUsage.TEXCOORD]
    if not texcoords:
        return
    pc = Variable(POINT_COORD, Storage.INPUT, F2, builtin=POINT_COORD)
    program.variables.append(pc)
    prologue: list = []
    e = _Out(prologue)
    uv = e.op(Code.LOAD, F2, var=pc)
    value = e.op(Code.CONSTRUCT, F4, (uv, e.const(F2, 0.0)))
    for var in texcoords:
        width = var.type.width
        v = value if width == 4 else e.op(Code.SWIZZLE, var.type, (value,), tuple(range(width)))
        e.op(Code.STORE, None, (v,), (0xF >> (4 - width),), var)
        var.storage, var.semantics, var.builtin = Storage.LOCAL, (), None
    program.main.body[:0] = prologue
    program.notes.setdefault("stage_state", {})["point_sprite"] = True
