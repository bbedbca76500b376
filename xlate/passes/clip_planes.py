"""User clip planes, baked (``Options.stage_state.clip_planes``).

With a vertex shader bound, D3D9's user clip planes are in clip space: a
vertex's distance to enabled plane i is dot(plane_i, oPos), and the part of
a primitive where it is negative is clipped (semantics 5.8).  For each
enabled plane this pass adds an OUTPUT f1 with ``builtin =
"clip_distance<i>"`` (the target's gl_ClipDistance[i] / SPIR-V ClipDistance
element i) and writes it at every exit of main from the position as the
shader wrote it: it runs before ``io``, whose position fix-ups (half
pixel, y flip, z remap) come after and do not move the distances.  The
layer enables GL_CLIP_DISTANCEi (Vulkan: the shaderClipDistance feature).
A pixel shader is left alone.
"""

from __future__ import annotations

from ..bytecode.tables import DeclUsage
from ..ir.ops import Code
from ..ir.program import Program, Storage, Variable
from ..ir.types import F1, F4
from .samplers_state import _Out, at_exits, state_of

CLIP_DISTANCE = "clip_distance"  # builtin name prefix: clip_distance0 ... clip_distance5


def run(program: Program, options) -> None:
    state = state_of(options)
    if state is None or not state.clip_planes or not program.is_vertex:
        return
    pos = _position(program)
    outputs = []
    for index, plane in state.clip_planes:
        var = Variable(f"{CLIP_DISTANCE}{index}", Storage.OUTPUT, F1, builtin=f"{CLIP_DISTANCE}{index}", mask=0x1)
        program.variables.append(var)
        outputs.append((var, plane))

    def epilogue(out: list) -> None:
        e = _Out(out)
        p = e.op(Code.LOAD, F4, var=pos) if pos is not None else e.const(F4, 0.0)
        for var, plane in outputs:
            eq = e.op(Code.CONST, F4, imm=plane)
            e.op(Code.STORE, None, (e.op(Code.FDOT, F1, (p, eq)),), (0x1,), var)

    at_exits(program, epilogue)
    program.notes.setdefault("stage_state", {})["clip_planes"] = [
        {"index": i, "plane": list(p)} for i, p in state.clip_planes]


def _position(program: Program) -> Variable | None:
    """The output carrying POSITION0 (io makes one later if there is none:
    the distances then read a zero position)."""
    for v in program.variables:
        if v.storage is Storage.OUTPUT:
            for _, sem in v.semantics:
                if sem.usage is DeclUsage.POSITION and sem.index == 0:
                    return v
    return None
