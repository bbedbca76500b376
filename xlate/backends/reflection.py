"""The reflection: everything a layer needs to bind a translated shader.

A plain, JSON-serialisable dict (docs/reflection.md describes every key).
The layout (``layout.py``) fills constants, samplers, inputs and outputs;
this module adds the facts about the program and the io pass.
"""

from __future__ import annotations

import math

from ..bytecode.tables import SW_MINOR, ShaderKind, ShaderVersion
from ..ir.program import Program, Storage

FILE = {Storage.FLOAT_CONST: "float", Storage.INT_CONST: "int", Storage.BOOL_CONST: "bool"}
FILE_LETTERS = {"c": "float", "i": "int", "b": "bool"}  # notes["defs"] names the files by their variables
# notes["draw_state"]["samplers"] holds the asm names (SamplerType.asm); the
# reflection spells them as its "samplers" list does
SAMPLER_NAMES = {"2d": "2d", "1d": "2d", "unknown": "2d", "cube": "cube", "volume": "volume"}
VERTEX = ShaderKind.VERTEX  # read once: an Enum member read off its class is slow in Python 3.11


def shader_model(version: ShaderVersion) -> str:
    """``version.name`` ("vs_2_0", "ps_2_x" ...), from a table: the header
    comment and the reflection both want it, and the property builds it
    anew (through three more properties) each time."""
    name = SHADER_MODELS.get((version.kind, version.major, version.minor))
    return name if name is not None else version.name


# Every D3D9 version (and a few that do not exist): any other is spelled by the property.
SHADER_MODELS = {
    (v.kind, v.major, v.minor): v.name
    for v in (ShaderVersion(kind, major, minor) for kind in ShaderKind
              for major, minor in ((1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 0), (2, 1), (2, SW_MINOR),
                                   (3, 0), (3, SW_MINOR)))
}


def _json_float(x: float):
    """JSON has no inf/nan: those become strings ("inf", "-inf", "nan")."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _json_floats(values) -> list:
    floats = list(map(float, values))
    if all(map(math.isfinite, floats)):  # the usual case, tested in one C loop
        return floats
    return [_json_float(x) for x in floats]


def _bools(values) -> list:
    return [bool(v) for v in values]


def _ints(values) -> list:
    return [int(v) for v in values]


DEF_VALUES = {"float": _json_floats, "bool": _bools}  # any other file: _ints


def build(program: Program, target, options, layout_reflection: dict) -> dict:
    notes = program.notes
    io = notes.get("io") or {}
    out = {
        "stage": "vertex" if program.version.kind is VERTEX else "fragment",
        "shader_model": shader_model(program.version),
        "target": target.name,
        "constants": layout_reflection["constants"],
        "samplers": layout_reflection["samplers"],
        "inputs": layout_reflection["inputs"],
        "outputs": layout_reflection["outputs"],
        "viewport": layout_reflection.get("viewport"),
        "front_face": io.get("front_face"),
        "draw_state": draw_state(program, layout_reflection.get("draw_state", [])),
    }
    rs = render_state(program, target, options, layout_reflection.get("state_parameters", []))
    if rs is not None:  # absent, not null, when the shader depends on no draw-time state
        out["render_state"] = rs
    out.update({
        "defs": defs(program),
        "extensions": layout_reflection.get("extensions", []),
        "options": {"clip_z": options.clip_z, "flip_y": options.flip_y, "half_pixel": options.half_pixel,
                    "half_pixel_scale": io.get("half_pixel_scale", 0.0),
                    "fixed_outputs": options.fixed_outputs, "legacy_multiply": options.legacy_multiply,
                    "infinities": options.infinities},
    })
    return out


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


# The DrawState fields behind each dependency the passes note (notes
# "drawstate" and "stage_state"): what ``baked`` reports, a valid draw_state.
_BAKED_FIELDS = {
    "fog": ("fogenable", "fogtablemode", "fogstart", "fogend", "fogdensity", "fogcolor"),
    "alpha_test": ("alphatestenable", "alphafunc", "alpharef"),
    "depthtexture": ("depthtexture",), "fetch4": ("fetch4",), "srgbtexture": ("srgbtexture",),
    "nulltexture": ("nulltexture",), "srgbwriteenable": ("srgbwriteenable",),
    "clipplanes": ("clipplaneenable", "clipplanes"),
    "pointsize": ("pointmode", "pointsize", "pointsize_min", "pointsize_max"),
    "pointspriteenable": ("pointspriteenable",),
    "constants": ("specializeconstants", "boolconstants", "intconstants"),
}
# Baked in both modes: they change a sampler's type or instruction, or which
# clip distances exist (docs/reflection.md); the planes themselves are
# parameters in the dynamic mode.
_ALWAYS_BAKED = {"depthtexture": ("depthtexture",), "fetch4": ("fetch4",), "clipplanes": ("clipplaneenable",)}


def render_state(program: Program, target, options, parameters: list[dict]) -> dict | None:
    """Every D3D9 draw-time state the translation depends on (fog, alpha
    test, sampler states, sRGB write, clip planes, points, b#/i# as
    specialization, position conventions; docs/reflection.md "Draw-time
    render state"), or None when it depends on none: ``mode``, one key per
    state the code does (``fog``, ``depthtexture`` ...), ``position`` when a
    position convention is not the default, ``baked`` (the draw_state values
    built into the code: a valid ``draw_state``) and ``parameters`` (dynamic
    mode: each state parameter the shader reads, in ``id`` order)."""
    pixel = program.notes.get("drawstate") or {}
    stage = program.notes.get("stage_state") or {}
    position = _position(target, options)
    if not (pixel or stage or position or parameters):
        return None
    dynamic = options.draw_state_mode.value == "dynamic"
    out: dict = {"mode": options.draw_state_mode.value}
    used = [k for k in ("fog", "alpha_test") if pixel.get(k)]
    out.update((k, True) for k in used)
    for k, v in stage.items():
        if k != "parameters":
            out[k] = v
            used.append(k)
    if position:
        out["position"] = position
    state = options.draw_state.to_dict()
    table = _ALWAYS_BAKED if dynamic else _BAKED_FIELDS
    baked = {f: state[f] for k in used for f in table.get(k, ())}
    if baked:
        out["baked"] = baked
    out["parameters"] = sorted(parameters, key=lambda p: p["id"])
    return out


def _position(target, options) -> dict | None:
    """The position conventions (Options clip_z, flip_y, half_pixel,
    half_pixel_exact, resolved for the target; also given in draw_state),
    when any is not the target's default (the ``options`` entry always has
    them)."""
    vulkan = bool(target.vulkan)
    if (options.clip_z, options.flip_y, options.half_pixel, options.half_pixel_exact) == (not vulkan, vulkan,
                                                                                            True, False):
        return None
    return {"clip_z": options.clip_z, "flip_y": options.flip_y,
            "half_pixel": options.half_pixel, "half_pixel_exact": options.half_pixel_exact}


def defs(program: Program) -> list[dict]:
    """DEF/DEFI/DEFB values as the shader sees them (the constants pass folds
    them into the code, so a layer needs them only for its own bookkeeping).
    From ``program.notes["defs"]`` ((file name, register, values) tuples)
    when the constants pass set it, else from ``program.defs``."""
    noted = program.notes.get("defs")
    if noted is not None:
        if not noted:
            return []  # most shaders: no list to build twice
        rows = [(FILE_LETTERS.get(str(name), str(name)), index, values) for name, index, values in noted]
    else:
        rows = [(FILE.get(d.storage, str(d.storage)), d.index, d.values) for d in program.defs]
    return [{"file": file, "register": int(index), "values": DEF_VALUES.get(file, _ints)(values)}
            for file, index, values in rows]
