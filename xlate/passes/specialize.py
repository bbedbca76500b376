"""b# and i# from the draw state (``Options.draw_state.specializeconstants``).

D3D9 shaders branch on b# (``if b#``, ``callnz``) and loop i#.x times;
DXVK makes them specialization constants, wined3d compile arguments.  When
the layer asks, every static LOAD of the bool or int file that is left after
``constants`` (so not a DEFB/DEFI register, which the shader sets itself)
reads the draw state instead of the uniform:

- baked: a CONST (``boolconstants`` / ``intconstants``; unset registers are
  FALSE / 0 as in D3D9); ``cleanup`` then folds the IFs on them and the
  loop arithmetic;
- dynamic: the state parameters ``b<n>`` (bool) and ``i<n>_<x-w>`` (int):
  specialization constants on the Vulkan targets, uniforms on GL.

The files' uniforms disappear from the layout once nothing loads them.
``program.notes["stage_state"]["constants"]`` lists the registers read.
"""

from __future__ import annotations

from ..ir.ops import Code, Op
from ..ir.program import Program, Storage
from ..ir.types import B1, I4
from .samplers_state import Out, dynamic


def run(program: Program, options) -> None:
    ds = options.draw_state
    if not ds.specializeconstants:
        return
    dyn = dynamic(options)
    ints = dict(ds.intconstants)
    used: dict[str, set[int]] = {"b": set(), "i": set()}
    for fn in program.functions.values():
        out: list[Op] = []
        changed = False
        for op in fn.body:
            var = op.var
            if op.code is not Code.LOAD or op.args or var is None or var.storage not in (
                    Storage.BOOL_CONST, Storage.INT_CONST):
                out.append(op)
                continue
            n = op.imm[0] if op.imm else (var.register[1] if var.register else 0)
            changed = True
            if var.storage is Storage.BOOL_CONST:
                used["b"].add(n)
                if dyn:
                    e = Out(out, program, options, op.origin)
                    value = e.param(f"b{n}")
                    out.pop()
                    op.var, op.imm = value.var, ()
                else:
                    op.code, op.type, op.imm, op.var = Code.CONST, B1, (n in ds.boolconstants,), None
                out.append(op)
                continue
            used["i"].add(n)
            if dyn:
                e = Out(out, program, options, op.origin)
                parts = [e.param(f"i{n}_{c}") for c in "xyzw"]
                op.code, op.type, op.args, op.imm, op.var = Code.CONSTRUCT, I4, tuple(parts), (), None
            else:
                op.code, op.type, op.imm, op.var = Code.CONST, I4, tuple(ints.get(n, (0, 0, 0, 0))), None
            out.append(op)
        if changed:
            fn.body = out
    if used["b"] or used["i"]:
        program.notes.setdefault("stage_state", {})["constants"] = {k: sorted(v) for k, v in used.items() if v}


