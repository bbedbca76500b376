"""User clip planes (``Options.draw_state``: clipplaneenable, clipplanes).

With a vertex shader bound, D3D9's user clip planes are in clip space: a
vertex's distance to enabled plane i is dot(plane_i, oPos), and the part of
a primitive where it is negative is clipped (semantics 5.8).  For each
plane CLIPPLANEENABLE enables (in both modes: which distances exist is
pipeline state for the layer too) this pass adds an OUTPUT f1 with
``builtin = "clip_distance<i>"`` (gl_ClipDistance[i] / SPIR-V ClipDistance
element i) and writes it at every exit of main from the position as the
shader wrote it: it runs before ``io``, whose position fix-ups (half pixel,
y flip, z remap) come after and do not move the distances.  The plane's
coefficients are constants (baked) or the ``clipplane<i>_<a-d>`` state
parameters (dynamic).  The layer enables GL_CLIP_DISTANCEi (Vulkan: the
shaderClipDistance feature).  A pixel shader is left alone.
"""

from __future__ import annotations

from ..bytecode.tables import DeclUsage
from ..ir.ops import Code
from ..ir.program import Program, Storage, Variable
from ..ir.types import F1, F4
from .drawstate import at_exits
from .samplers_state import Out, dynamic

CLIP_DISTANCE = "clip_distance"  # builtin name prefix: clip_distance0 ... clip_distance5


def run(program: Program, options) -> None:
    ds = options.draw_state
    if not ds.clipplaneenable or not program.is_vertex:
        return
    enabled = [i for i in range(6) if ds.clipplaneenable >> i & 1]
    pos = _position(program)
    outputs = []
    for index in enabled:
        var = Variable(f"{CLIP_DISTANCE}{index}", Storage.OUTPUT, F1, builtin=f"{CLIP_DISTANCE}{index}", mask=0x1)
        program.variables.append(var)
        outputs.append((index, var))
    dyn = dynamic(options)

    def epilogue(out: list) -> None:
        e = Out(out, program, options)
        p = e.op(Code.LOAD, F4, var=pos) if pos is not None else e.const(F4, 0.0)
        for index, var in outputs:
            if dyn:
                eq = e.op(Code.CONSTRUCT, F4, [e.param(f"clipplane{index}_{c}") for c in "abcd"])
            else:
                eq = e.const_vec(ds.clipplanes[index])
            e.op(Code.STORE, None, (e.op(Code.FDOT, F1, (p, eq)),), (0x1,), var)

    at_exits(program, epilogue)
    notes = program.notes.setdefault("stage_state", {})
    notes["clipplanes"] = [{"index": i, "plane": None if dyn else list(ds.clipplanes[i])} for i in enabled]


def _position(program: Program) -> Variable | None:
    """The output carrying POSITION0 (io makes one later if there is none:
    the distances then read a zero position)."""
    for v in program.variables:
        if v.storage is Storage.OUTPUT:
            for _, sem in v.semantics:
                if sem.usage is DeclUsage.POSITION and sem.index == 0:
                    return v
    return None
