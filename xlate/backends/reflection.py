"""The reflection: everything a layer needs to bind a translated shader.

A plain, JSON-serialisable dict (docs/reflection.md describes every key).
The layout (``layout.py``) fills constants, samplers, inputs and outputs;
this module adds the facts about the program and the io pass.
"""

from __future__ import annotations

import math

from ..ir.program import Program, Storage

FILE = {Storage.FLOAT_CONST: "float", Storage.INT_CONST: "int", Storage.BOOL_CONST: "bool"}
# notes["draw_state"]["samplers"] holds the asm names (SamplerType.asm); the
# reflection spells them as its "samplers" list does
SAMPLER_NAMES = {"2d": "2d", "1d": "2d", "unknown": "2d", "cube": "cube", "volume": "volume"}


def _json_float(x: float):
    """JSON has no inf/nan: those become strings ("inf", "-inf", "nan")."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def build(program: Program, target, options, layout_reflection: dict) -> dict:
    io = dict(program.notes.get("io", {}))
    refl = {
        "stage": "vertex" if program.is_vertex else "fragment",
        "shader_model": program.version.name,
        "target": target.name,
        "constants": layout_reflection["constants"],
        "samplers": layout_reflection["samplers"],
        "inputs": layout_reflection["inputs"],
        "outputs": layout_reflection["outputs"],
        "viewport": layout_reflection.get("viewport"),
        "front_face": io.get("front_face"),
        "draw_state": draw_state(program, layout_reflection.get("draw_state", [])),
        "defs": defs(program),
        "extensions": layout_reflection.get("extensions", []),
        "options": {"clip_z": options.clip_z, "flip_y": options.flip_y, "half_pixel": options.half_pixel,
                    "half_pixel_scale": io.get("half_pixel_scale", 0.0),
                    "fixed_outputs": options.fixed_outputs, "legacy_multiply": options.legacy_multiply,
                    "infinities": options.infinities},
    }
    return refl


def draw_state(program: Program, uniforms: list[dict]) -> dict | None:
    """The D3D9 draw-time state the translation depends on (docs/ir.md
    "Draw-time state"): the uniforms the layer sets from texture-stage state,
    and what ``texture_sm1`` assumed (``program.notes["draw_state"]``).
    None for a shader that depends on none (everything but ps_1_x).  Stage
    maps become lists of objects, as JSON object keys cannot be numbers."""
    notes = program.notes.get("draw_state")
    if notes is None and not uniforms:
        return None
    notes = notes or {}
    return {
        "uniforms": uniforms,
        "samplers": [{"stage": int(s), "type": SAMPLER_NAMES.get(t, t)}
                     for s, t in sorted(notes.get("samplers", {}).items())],
        "projected": [{"stage": int(s), "divide_by": c} for s, c in sorted(notes.get("projected", {}).items())],
        "bumpenv": [int(s) for s in notes.get("bumpenv", [])],
        "luminance": [int(s) for s in notes.get("luminance", [])],
        "depth": bool(notes.get("depth", False)),
    }


def defs(program: Program) -> list[dict]:
    """DEF/DEFI/DEFB values as the shader sees them (the constants pass folds
    them into the code, so a layer needs them only for its own bookkeeping).
    From ``program.notes["defs"]`` ((file name, register, values) tuples)
    when the constants pass set it, else from ``program.defs``."""
    noted = program.notes.get("defs")
    rows = []
    if noted is not None:
        for name, index, values in noted:
            rows.append(({"c": "float", "i": "int", "b": "bool"}.get(str(name), str(name)), index, values))
    else:
        for d in program.defs:
            rows.append((FILE.get(d.storage, str(d.storage)), d.index, d.values))
    out = []
    for file, index, values in rows:
        if file == "float":
            values = [_json_float(v) for v in values]
        elif file == "bool":
            values = [bool(v) for v in values]
        else:
            values = [int(v) for v in values]
        out.append({"file": file, "register": int(index), "values": values})
    return out
