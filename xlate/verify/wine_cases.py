"""Wine's d3d8/d3d9 visual tests (peer-corpus/wine/visual_cases.jsonl) on GL.

Each case is one draw with expected pixel colours that real Windows drivers
produced.  This module parses a case, supplies the small part of Direct3D 9's
fixed-function pipeline the cases need around the translated shaders, draws
it with the project's GL runner (``xlate.verify.gl``: one context, programs
cached by source) and checks the probes as a D3DFMT_A8R8G8B8 target would
store the colour: round(clamp(x, 0, 1) * 255) per channel.

What this layer supplies (the translation is xlate's, untouched):

* Vertex fetch.  ``vertex_format`` is free text: FVF flags, D3D9 vertex
  declarations (three spellings) and d3d8 declarations (bound by v#) are
  parsed into elements; every element is expanded on the CPU to the vec4 a
  vertex shader reads (D3DCOLOR -> (R, G, B, A) / 255, UBYTE4 unscaled,
  FLOAT16 decoded, missing y, z = 0 and w = 1).  An element the declaration
  lacks, or one on a stream with no buffer, reads 0.
* ``vs: null``: the runner's pass-through VS fed with fixed-function vertex
  processing's results.  D3DFVF_XYZ positions with identity transforms are
  already clip space; POSITIONT / D3DFVF_XYZRHW (screen x, y, z, rhw) are
  mapped back to clip space with D3D9's pixel centres (the pass-through's
  half-pixel fix-up then applies, as for a translated VS).  Varyings link by
  the PS reflection's (usage, index): COLOR0 = the diffuse element (opaque
  white without one), other usages the element of that usage and index, or 0.
* ``ps: null``: D3D9's default texture stages without a texture (diffuse, +
  specular when D3DRS_SPECULARENABLE) and the one non-default combiner a
  case uses (test_color_clamping), as a (code, reflection) pair.
* Linking: a PS input no VS output matches reads 0 (GL would not link it).
* Render state: D3DCULL_CCW (default) / NONE, D3DSHADE_FLAT (the runner's
  RenderState), the textures of test_vertex_texture and texbem_test and the
  BUMPENVMAT stage state (parsed from render_state_notes), and texdepth_test's
  depth pre-pass, drawn here because the runner's targets have no depth.

On Vulkan (``build_draw(case, vulkan=True)``, ``run_case(case, vulkan=True)``):
the shaders are native ``"spirv"``, the fixed-function PS Vulkan GLSL, an
unwritten PS input a zero Private variable (``spirv_edit.zero_inputs``),
texdepth_test's pre-pass on targets with a depth image.

* Fog and the alpha test (fog_with_shader_test, alphatest_test): the case's
  render states (``case_draw_state``) go to the translation, baked or as
  state parameters set per draw (``build_draw(..., mode=)``); xlate adds the
  work to the shaders.  Without a pixel shader a ps_2_0 stand-in that passes
  the diffuse colour on is translated with them (``FF_PIXEL_STAND_IN``);
  without a vertex shader the fog coordinate is fixed-function vertex fog
  (``ff_fog``).

Out of scope (``out_of_scope()`` gives each case's reason): fixed-function
lighting feeding a colour the pixel shader reads.
"""

from __future__ import annotations

import functools
import json
import os
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

CORPUS = Path(os.environ.get("XLATE_PEER_CORPUS", Path(__file__).resolve().parents[3] / "shared" / "peer-corpus"))
WINE = CORPUS / "wine"
TARGET = "glsl330"
OPTIONS: tuple = ()  # translation options (key, value) pairs


# --------------------------------------------------------------------------- case model


@dataclass(frozen=True)
class Element:
    """One vertex element: DWORD offset into a row, D3DDECLTYPE name, usage."""

    stream: int
    offset: int  # bytes
    type: str  # FLOAT1-4, D3DCOLOR, UBYTE4, FLOAT16_2, FLOAT16_4
    usage: str | None  # lower case: position, positiont, color, texcoord, ... (None: d3d8 register only)
    index: int
    register: int | None = None  # d3d8 declarations bind by v#

    @property
    def dwords(self) -> int:
        return _TYPE_DWORDS[self.type]

    @property
    def raw(self) -> bool:
        """True when the DWORDs are not floats (the row holds integers)."""
        return self.type in ("D3DCOLOR", "UBYTE4", "FLOAT16_2", "FLOAT16_4")


_TYPE_DWORDS = {"FLOAT1": 1, "FLOAT2": 2, "FLOAT3": 3, "FLOAT4": 4, "D3DCOLOR": 1, "UBYTE4": 1,
                "FLOAT16_2": 1, "FLOAT16_4": 2}


@dataclass(frozen=True)
class Expected:
    color: int | None  # 0xAARRGGBB; None for "any colour"
    tolerance: int | None
    channel_mask: int | None = None


@dataclass(frozen=True)
class Probe:
    x: int | None  # None: the whole render target
    y: int | None
    color: int
    tolerance: int
    alpha: bool  # compare alpha too (the test read it unmasked)
    also: tuple[Expected, ...] = ()
    broken: tuple[Expected, ...] = ()
    todo_wine: bool = False

    def where(self) -> str:
        return "whole target" if self.x is None else f"({self.x},{self.y})"


@dataclass
class Case:
    id: str
    function: str
    source: str
    vs: dict | None  # the shaders.jsonl / composed_shaders.jsonl record
    ps: dict | None
    vs_constants: dict[int, tuple]
    ps_constants: dict[int, tuple]
    int_constants: dict[str, dict[int, tuple]]
    elements: list[Element]
    stride: int
    strip: bool
    vertices: list[list[float]]
    clear_color: int | None
    size: tuple[int, int]
    probes: list[Probe]
    states: str
    notes: str
    wine_todo: bool
    raw: dict = field(repr=False)

    @property
    def pretransformed(self) -> bool:
        return any(e.usage == "positiont" for e in self.elements)


def _hex(s: str) -> int:
    return int(s, 16) & 0xFFFFFFFF


def _constants(d: dict) -> dict[int, tuple]:
    return {int(k.lstrip("cib")): tuple(v) for k, v in d.items()}


def _expected(lst) -> tuple[Expected, ...]:
    out = []
    for e in lst or ():
        if e.get("color") == "any":
            out.append(Expected(None, None))
        else:
            mask = _hex(e["channel_mask"]) if e.get("channel_mask") else None
            out.append(Expected(_hex(e["color"]), e.get("tolerance") or 0, mask))
    return tuple(out)


# --- vertex formats ----------------------------------------------------------------------

_DECL = re.compile(r"\{\s*(?:stream\s*)?(\d+)\s*,\s*(?:offset\s*)?(\d+)\s*,\s*(\w+)\s*,\s*([A-Z]+)\s*(\d+)\s*\}")
_DECL_FLAT = re.compile(r"(\d+) (FLOAT\d|D3DCOLOR|UBYTE4|FLOAT16_\d) ([A-Z]+?)(\d*)(?=,|;|$)")
_D3D8_REG = re.compile(r"REG\(v(\d+)(?:\s+([A-Z]+))?\s*,\s*(\w+)\)")
_D3D8_USAGE = {"POSITION": ("position", 0), "NORMAL": ("normal", 0), "DIFFUSE": ("color", 0), "SPECULAR": ("color", 1)}


def parse_vertex_format(text: str) -> list[Element]:
    """The elements a case's free-text `vertex_format` describes."""
    if text.startswith("FVF"):
        return _parse_fvf(text.split(" (", 1)[0])
    if text.startswith("d3d8 vertex shader declaration"):
        out, offset = [], 0
        for reg, usage, typ in _D3D8_REG.findall(text):
            u, i = _D3D8_USAGE.get(usage, (None, 0)) if usage else (None, 0)
            out.append(Element(0, offset, typ, u, i, register=int(reg)))
            offset += 4 * _TYPE_DWORDS[typ]
        return out
    if "(all stream 0):" in text:
        body = text.split(":", 1)[1]
        out = []
        for off, typ, usage, idx in _DECL_FLAT.findall(body.split(";")[0]):
            out.append(Element(0, int(off), typ, usage.lower(), int(idx or 0)))
        return out
    if text.startswith("vertex declaration"):
        return [Element(int(s), int(o), t, u.lower(), int(i)) for s, o, t, u, i in _DECL.findall(text)]
    raise ValueError(f"unrecognised vertex format: {text!r}")


def _parse_fvf(head: str) -> list[Element]:
    flags = [f.split()[0] for f in head[len("FVF"):].split("|") if f.strip()]
    sizes = {int(i): int(n) for n, i in (re.match(r"D3DFVF_TEXCOORDSIZE(\d)\((\d)\)", f).groups()
                                          for f in flags if f.startswith("D3DFVF_TEXCOORDSIZE"))}
    out, off = [], 0

    def add(typ, usage, index):
        nonlocal off
        out.append(Element(0, off, typ, usage, index))
        off += 4 * _TYPE_DWORDS[typ]

    if "D3DFVF_XYZRHW" in flags:
        add("FLOAT4", "positiont", 0)
    elif "D3DFVF_XYZ" in flags:
        add("FLOAT3", "position", 0)
    if "D3DFVF_NORMAL" in flags:
        add("FLOAT3", "normal", 0)
    if "D3DFVF_DIFFUSE" in flags:
        add("D3DCOLOR", "color", 0)
    if "D3DFVF_SPECULAR" in flags:
        add("D3DCOLOR", "color", 1)
    ntex = max([int(m.group(1)) for f in flags if (m := re.fullmatch(r"D3DFVF_TEX(\d)", f))] or [0])
    for t in range(ntex):
        add(f"FLOAT{sizes.get(t, 2)}", "texcoord", t)
    return out


# --- loading -----------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def shader_records() -> dict[str, dict]:
    out = {}
    for name in ("shaders.jsonl", "composed_shaders.jsonl"):
        with open(WINE / name) as f:
            for line in f:
                d = json.loads(line)
                out[d["id"]] = d
    return out


def corpus_missing() -> str | None:
    if not (WINE / "visual_cases.jsonl").is_file():
        return f"peer corpus not found at {WINE} (set XLATE_PEER_CORPUS)"
    return None


@functools.lru_cache(maxsize=1)
def load_cases() -> tuple[Case, ...]:
    recs = shader_records()
    out = []
    with open(WINE / "visual_cases.jsonl") as f:
        for line in f:
            c = json.loads(line)
            ints = {stage: _constants(v) for stage, v in (c.get("int_constants") or {}).items()}
            probes = []
            for p in c["probes"]:
                probes.append(Probe(p["x"], p["y"], _hex(p["color"]), p["tolerance"], bool(p.get("alpha_included")),
                                    _expected(p.get("also_accepted")), _expected(p.get("broken_accepted")),
                                    bool(p.get("todo_wine"))))
            out.append(Case(
                id=c["id"], function=c["test_function"], source=c["source_file"],
                vs=recs[c["vs"]] if c["vs"] else None, ps=recs[c["ps"]] if c["ps"] else None,
                vs_constants=_constants(c["vs_constants"]), ps_constants=_constants(c["ps_constants"]),
                int_constants=ints, elements=parse_vertex_format(c["vertex_format"]),
                stride=c["vertex_stride_bytes"], strip="TRIANGLESTRIP" in c["primitive"],
                vertices=c["vertices"], clear_color=_hex(c["clear_color"]) if c["clear_color"] else None,
                size=tuple(c["viewport"]), probes=probes, states=c["render_state_notes"], notes=c["notes"],
                wine_todo=c["wine_todo"], raw=c))
    return tuple(out)


def shader_blob(rec: dict) -> bytes:
    words = rec["bytecode"]
    return struct.pack(f"<{len(words)}I", *(w & 0xFFFFFFFF for w in words))


# --------------------------------------------------------------------------- scope

_OUT_OF_SCOPE_FUNCTIONS: dict[str, str] = {}

# The render states of render_state_notes that xlate's draw-state model
# (xlate/drawstate.py) takes: "FOGSTART 0.1f", "ALPHAFUNC D3DCMP_LESS", ...
_RENDER_STATE = re.compile(r"\b(FOGENABLE|FOGCOLOR|FOGSTART|FOGEND|FOGDENSITY|FOGVERTEXMODE|FOGTABLEMODE|"
                           r"RANGEFOGENABLE|ALPHATESTENABLE|ALPHAFUNC|ALPHAREF)\s+(?:=\s*)?([\w.+-]+)")


def case_draw_state(case: Case):
    """The case's fog and alpha-test render states as a DrawState, or None
    when it turns neither on (FOGENABLE FALSE is D3D's default)."""
    from ..drawstate import DrawState

    found = {}
    for name, value in _RENDER_STATE.findall(case.states):
        if name in ("FOGSTART", "FOGEND", "FOGDENSITY"):
            value = value.rstrip("fF")
        found[name.lower()] = value
    state = DrawState.from_dict(found)
    return state if state.fogenable or state.alphatestenable else None


# How the cases give the translation its render state: "baked" (the values
# are constants in the code) or "dynamic" (uniforms on GL, specialization
# constants on Vulkan, set per draw from the case's state).
DRAW_STATE_MODES = ("baked", "dynamic")


def _lighting_on(case: Case) -> bool:
    s = case.states.upper()
    return not re.search(r"LIGHTING\s*(=\s*)?FALSE", s)


def out_of_scope(case: Case) -> str | None:
    """Why the case cannot be checked here, or None."""
    why = _OUT_OF_SCOPE_FUNCTIONS.get(case.function)
    if why:
        return why
    if case.vs is None and not case.pretransformed and _lighting_on(case) and case.ps is not None:
        reads_colour = any(i["usage"] == "color" for i in _translate(case.ps["id"]).reflection["inputs"])
        if reads_colour:
            return "fixed-function vertex lighting (D3DRS_LIGHTING TRUE) computes the colour the pixel shader reads"
    return None


VULKAN_TARGET = "spirv"  # xlate's own SPIR-V writer


# --------------------------------------------------------------------------- vertex data


def _half(h: int) -> float:
    return float(np.array([h], dtype=np.uint16).view(np.float16)[0])


def element_values(case: Case, el: Element) -> np.ndarray:
    """(n, 4) float32: the element of every vertex as the vertex shader reads it."""
    out = np.zeros((len(case.vertices), 4), np.float32)
    out[:, 3] = 1.0
    if el.stream != 0:  # the cases' only non-zero stream has no buffer bound: reads 0
        out[:] = 0.0
        return out
    first = el.offset // 4
    for v, row in enumerate(case.vertices):
        words = row[first:first + el.dwords]
        if el.type.startswith("FLOAT") and not el.type.startswith("FLOAT16"):
            out[v, :len(words)] = words
        elif el.type == "D3DCOLOR":
            w = int(words[0]) & 0xFFFFFFFF
            b = [(w >> s) & 0xFF for s in (0, 8, 16, 24)]  # memory order B, G, R, A
            out[v] = [b[2] / 255, b[1] / 255, b[0] / 255, b[3] / 255]
        elif el.type == "UBYTE4":
            w = int(words[0]) & 0xFFFFFFFF
            out[v] = [(w >> s) & 0xFF for s in (0, 8, 16, 24)]
        elif el.type.startswith("FLOAT16"):
            halves = []
            for w in words:
                w = int(w) & 0xFFFFFFFF
                halves += [_half(w & 0xFFFF), _half(w >> 16)]
            out[v, :len(halves)] = halves
        else:
            raise ValueError(el.type)
    return out


def find_element(case: Case, usage: str, index: int) -> Element | None:
    for e in case.elements:
        if e.usage == usage and e.index == index:
            return e
    return None


def ff_positions(case: Case) -> np.ndarray:
    """D3D9 clip-space positions for fixed-function vertex processing (the
    GL runner's pass-through VS applies the io fix-ups to them)."""
    w_px, h_px = case.size
    pos_el = find_element(case, "positiont", 0) or find_element(case, "position", 0)
    p = element_values(case, pos_el)
    if pos_el.usage != "positiont":
        out = p.copy()  # identity world/view/projection: the position is clip space
        out[:, 3] = 1.0
        return out
    # Pre-transformed (x, y, z, rhw): screen pixels, y down, a pixel's centre at
    # integer coordinates.  The inverse of D3D's viewport transform gives NDC;
    # the half-pixel fix-up of the pass-through VS then moves it to GL's centres.
    # Multiplying by w = 1/rhw keeps the interpolation perspective-correct.
    w = 1.0 / p[:, 3]
    out = np.empty_like(p)
    out[:, 0] = (2.0 * p[:, 0] / w_px - 1.0) * w
    out[:, 1] = (1.0 - 2.0 * p[:, 1] / h_px) * w
    out[:, 2] = p[:, 2] * w
    out[:, 3] = w
    return out


def ff_fog(case: Case) -> np.ndarray:
    """(n, 4) with the fog factor fixed-function vertex processing computes
    per vertex in x: FOGVERTEXMODE's formula of the eye-space depth (the
    position's z: the cases' world, view and projection are identity; with
    RANGEFOGENABLE the distance from the eye), when fog is on, FOGTABLEMODE
    is NONE and FOGVERTEXMODE is not; else 0 (as D3D passes no fog
    coordinate then, and table fog ignores it)."""
    from ..drawstate import FogMode

    n = len(case.vertices)
    out = np.zeros((n, 4), np.float32)
    ds = case_draw_state(case)
    if ds is None or not ds.fogenable or ds.fogtablemode is not FogMode.NONE or ds.fogvertexmode is FogMode.NONE:
        return out
    pos_el = find_element(case, "position", 0)
    p = element_values(case, pos_el) if pos_el is not None else np.zeros((n, 4), np.float32)
    d = np.linalg.norm(p[:, :3], axis=1) if ds.rangefogenable else p[:, 2]
    d = d.astype(np.float64)
    if ds.fogvertexmode is FogMode.LINEAR:
        f = (ds.fogend - d) / (ds.fogend - ds.fogstart)
    elif ds.fogvertexmode is FogMode.EXP:
        f = np.exp(-ds.fogdensity * d)
    else:
        f = np.exp(-(ds.fogdensity * d) ** 2)
    out[:, 0] = np.clip(f, 0.0, 1.0)
    return out


def ff_varying(case: Case, usage: str, index: int) -> np.ndarray:
    """What fixed-function vertex processing outputs for a PS input (usage, index)."""
    if (usage, index) == ("fog", 0) and find_element(case, "fog", 0) is None and case_draw_state(case) is not None:
        return ff_fog(case)
    n = len(case.vertices)
    el = find_element(case, usage, index)
    if el is not None:
        v = element_values(case, el)
        return np.clip(v, 0.0, 1.0) if usage == "color" else v
    # No such element: diffuse is opaque white, anything else 0 (D3D9 pre-transformed
    # vertices pass missing elements to a ps_3_0 as 0; for untransformed ones the
    # texture coordinates the FVF lacks read 0 or (0, 0, 0, 1) by vendor, both accepted).
    default = (1, 1, 1, 1) if (usage, index) == ("color", 0) else (0, 0, 0, 0)
    return np.tile(np.array(default, np.float32), (n, 1))


# --------------------------------------------------------------------------- translation


# The pixel shader that stands in for fixed-function pixel processing when a
# case draws with fog or the alpha test and no pixel shader: D3D9's default
# texture stages without a texture give the diffuse colour, which this
# shader passes on; the translation then adds the render state's work.
FF_PIXEL_STAND_IN = "ff-pixel-stand-in"
_STAND_INS = {FF_PIXEL_STAND_IN: "ps_2_0\ndcl v0\nmov oC0, v0\n"}


@functools.lru_cache(maxsize=None)
def _translate(rec_id: str, options: tuple = (), target: str | None = None):
    from .. import translate

    if rec_id in _STAND_INS:
        from ..bytecode.asm import assemble_bytes

        blob = assemble_bytes(_STAND_INS[rec_id])
    else:
        blob = shader_blob(shader_records()[rec_id])
    return translate(blob, target or TARGET, **dict(options or OPTIONS))


def draw_state_options(case: Case, mode: str = "baked") -> tuple:
    """The translation options (pairs, for ``_translate``) that give a
    case's shaders its render state in ``mode`` ("baked" / "dynamic")."""
    ds = case_draw_state(case)
    if ds is None:
        return tuple(OPTIONS)
    if mode == "dynamic":
        return tuple(OPTIONS) + (("draw_state_mode", "dynamic"),)
    return tuple(OPTIONS) + (("draw_state", ds),)


def _varyings(refl: dict, key: str) -> list[dict]:
    return [v for v in refl[key] if not v["glsl"].startswith("gl_")]


def ff_pixel_shader(vs_outputs: list[dict], specular: bool, combiner: tuple | None,
                    vulkan: bool = False) -> tuple[str, dict]:
    """D3D9's default texture stages with no texture bound: the diffuse colour,
    + the specular one when D3DRS_SPECULARENABLE.  ``combiner``: the one
    non-default setup a case uses (stage 0 ADD(DIFFUSE, SPECULAR), stage 1
    MODULATE(TFACTOR, CURRENT)), given as the TEXTUREFACTOR RGB.
    Returns (code, reflection) as the GL runner takes them, or with ``vulkan``
    as the Vulkan runner does (GLSL 450, inputs at the VS outputs' locations)."""
    names = {(o["usage"], o["usage_index"]): o["glsl"] for o in vs_outputs}
    locations = {(o["usage"], o["usage_index"]): o.get("location", 0) for o in vs_outputs}
    lines = ["#version 450" if vulkan else "#version 330", "layout(location = 0) out vec4 xl_ff_out;"]
    inputs = []
    diffuse, spec = "vec4(1.0)", "vec4(0.0)"
    for key, use in ((("color", 0), True), (("color", 1), specular or combiner is not None)):
        if use and key in names:
            loc = locations[key] if vulkan else 16 + key[1]
            lines.append((f"layout(location = {loc}) " if vulkan else "") + f"in vec4 {names[key]};")
            inputs.append({"usage": key[0], "usage_index": key[1], "register": key[1], "mask": "xyzw",
                           "glsl": names[key], "location": loc, "centroid": False})
            if key == ("color", 0):
                diffuse = names[key]
            else:
                spec = names[key]
    if combiner is not None:
        tf = ", ".join(repr(float(c)) for c in combiner)
        expr = f"vec4(clamp({diffuse}.rgb + {spec}.rgb, 0.0, 1.0) * vec3({tf}), {diffuse}.a)"
    elif specular:
        expr = f"vec4(clamp({diffuse}.rgb + {spec}.rgb, 0.0, 1.0), {diffuse}.a)"
    else:
        expr = diffuse
    code = "\n".join(lines + ["void main()", "{", f"    xl_ff_out = {expr};", "}"]) + "\n"
    refl = {"stage": "fragment", "target": "vulkan" if vulkan else TARGET, "constants": [], "samplers": [], "inputs": inputs,
            "outputs": [{"usage": "color", "usage_index": 0, "glsl": "xl_ff_out", "location": 0}],
            "viewport": None, "front_face": None, "draw_state": None, "options": {}}
    return code, refl


def _link_unwritten(ps_code: str, ps_refl: dict, vs_outputs: list[dict]) -> tuple[str, dict]:
    """A PS input that no VS output matches by (usage, index) reads 0 in D3D9
    (uninitialised varyings read 0 or (0, 0, 0, 1) depending on the vendor); GL
    refuses to link it, so it becomes a global initialised to 0."""
    written = {(o["usage"], o["usage_index"]) for o in vs_outputs}
    keep = []
    for inp in ps_refl["inputs"]:
        if inp["glsl"].startswith("gl_") or (inp["usage"], inp["usage_index"]) in written:
            keep.append(inp)
            continue
        ps_code = re.sub(rf"^[^\n;]*\bin\s+vec4\s+{inp['glsl']}\s*;", f"vec4 {inp['glsl']} = vec4(0.0);",
                         ps_code, count=1, flags=re.M)
    return ps_code, dict(ps_refl, inputs=keep)


def _link_unwritten_spirv(ps_code: bytes, ps_refl: dict, vs_outputs: list[dict]) -> tuple[bytes, dict]:
    """``_link_unwritten`` for a SPIR-V PS: the unmatched inputs become
    Private variables initialised to 0 (``spirv_edit.zero_inputs``)."""
    from .spirv_edit import zero_inputs

    written = {(o["usage"], o["usage_index"]) for o in vs_outputs}
    unread = {i["glsl"] for i in ps_refl["inputs"]
              if not i["glsl"].startswith("gl_") and (i["usage"], i["usage_index"]) not in written}
    keep = [i for i in ps_refl["inputs"] if i["glsl"] not in unread]
    return zero_inputs(ps_code, unread), dict(ps_refl, inputs=keep)


# --------------------------------------------------------------------------- draws


def _rgba(argb: int) -> tuple[float, float, float, float]:
    return (((argb >> 16) & 0xFF) / 255, ((argb >> 8) & 0xFF) / 255, (argb & 0xFF) / 255, ((argb >> 24) & 0xFF) / 255)


def _state(case: Case, pattern: str) -> bool:
    return re.search(pattern, case.states, re.I) is not None


def _combiner(case: Case):
    if case.ps is None and _state(case, r"COLOROP ADD\(DIFFUSE, SPECULAR\)"):
        m = re.search(r"TEXTUREFACTOR (0x[0-9a-fA-F]{8})", case.states)
        tf = _rgba(_hex(m.group(1)))[:3]
        if _state(case, r"stage 1 COLOROP MODULATE\(TFACTOR, CURRENT\)"):
            return tf
        return (1.0, 1.0, 1.0)
    return None


def build_draw(case: Case, vulkan: bool = False, mode: str = "baked"):
    """(vs, ps, Draw) for ``xlate.verify.gl.GLRunner.draw``, or with ``vulkan``
    for ``xlate.verify.vk.VKRunner.draw`` (the shaders translated to native
    ``"spirv"``):
    vs/ps are Translations or (code, reflection) pairs; vs None = the runner's
    pass-through VS fed with fixed-function vertex processing's outputs.
    ``mode``: how the translation gets the case's fog / alpha-test state
    (``DRAW_STATE_MODES``)."""
    from .gl import Draw, RenderState
    from .reference import ReferenceConstants
    from .reference_sm1 import TextureStage

    n = len(case.vertices)
    target = VULKAN_TARGET if vulkan else None
    ds = case_draw_state(case)
    opts = draw_state_options(case, mode)
    vs_t = _translate(case.vs["id"], opts, target=target) if case.vs else None
    vertices: dict = {}
    vs = vs_t
    if vs_t is not None:
        refl = vs_t.reflection
        if any(i["usage"] is None for i in refl["inputs"]):
            # vs_1_1 without dcl (d3d8): v# binds by register; give those inputs
            # the register as their key for the runner's (usage, index) binding.
            inputs = [dict(i, usage="v", usage_index=i["register"]) if i["usage"] is None else i
                      for i in refl["inputs"]]
            vs = (vs_t.code, dict(refl, inputs=inputs))
        for inp in vs[1]["inputs"] if isinstance(vs, tuple) else refl["inputs"]:
            if inp["usage"] == "v":
                el = next((e for e in case.elements if e.register == inp["usage_index"]), None)
            else:
                el = find_element(case, inp["usage"], inp["usage_index"])
            # an element the declaration lacks (or on a stream without a buffer) reads 0
            vertices[(inp["usage"], inp["usage_index"])] = (element_values(case, el) if el
                                                            else np.zeros((n, 4), np.float32))
        vs_outputs = _varyings(refl, "outputs")
    if case.ps is not None or ds is not None:
        ps_t = _translate(case.ps["id"] if case.ps is not None else FF_PIXEL_STAND_IN, opts, target=target)
        ps = ps_t
        if vs_t is not None:
            link = _link_unwritten_spirv if vulkan else _link_unwritten
            code, prefl = link(ps_t.code, ps_t.reflection, vs_outputs)
            if code != ps_t.code:
                ps = (code, prefl)
    else:
        outs = vs_outputs if vs_t is not None else [{"usage": "color", "usage_index": 0, "glsl": "v_color0",
                                                     "location": 0}]
        ps = ff_pixel_shader(outs, _state(case, r"SPECULARENABLE TRUE"), _combiner(case), vulkan)
    if vs_t is None:
        ps_refl = ps[1] if isinstance(ps, tuple) else ps.reflection
        vertices[("position", 0)] = ff_positions(case)
        for inp in _varyings(ps_refl, "inputs"):
            vertices[(inp["usage"], inp["usage_index"])] = ff_varying(case, inp["usage"], inp["usage_index"])

    stages = {}
    num = r"(-?\d+(?:\.\d+)?)"
    for stage, *m in re.findall(rf"on stage (\d): 00={num}, 01={num}, 10={num}, 11={num}", case.states):
        stages[int(stage)] = TextureStage(bump_env_mat=tuple(float(x) for x in m))
    textures = _case_textures(case)
    ps_refl = ps[1] if isinstance(ps, tuple) else ps.reflection
    state = RenderState(
        cull="none" if _state(case, r"CULL(MODE)?\s*(=\s*)?(D3DCULL_)?NONE") else _cull_ccw(ps_refl, vulkan),
        shade_mode="flat" if _state(case, r"SHADEMODE D3DSHADE_FLAT") else "gouraud")
    draw = Draw(
        vertices=vertices, primitive="triangle_strip" if case.strip else "triangle_list",
        constants=ReferenceConstants(floats=case.ps_constants, ints=case.int_constants.get("ps", {})),
        vs_constants=ReferenceConstants(floats=case.vs_constants, ints=case.int_constants.get("vs", {})),
        textures={s: t for (st, s), t in textures.items() if st == "ps"},
        vs_textures={s: t for (st, s), t in textures.items() if st == "vs"},
        texture_stages=stages, size=case.size,
        clear=_rgba(case.clear_color) if case.clear_color is not None else (0.0, 0.0, 0.0, 0.0),
        state=state, state_values=ds if mode == "dynamic" else None)
    return vs, ps, draw


def _cull_ccw(ps_refl: dict, vulkan: bool = False) -> str:
    """The RenderState.cull value that makes the GL runner cull what D3DCULL_CCW
    (the default) culls: triangles counter-clockwise on screen.

    The runner sets glFrontFace from the PS reflection's ``front_face``, or
    else GL_CW when flip_y / GL_CCW when not, and maps cull "ccw" to
    GL_BACK, "cw" to GL_FRONT.  With flip_y off the GL image is upright, so
    on-screen winding is GL window winding and D3D's back faces are GL's CCW
    triangles; with flip_y on they are GL's CW ones.  Whichever front face the
    runner picks, the side holding those triangles is asked for here, so
    culling stays right even where that front face is not.

    The Vulkan runner takes the reflection's ``front_face["vulkan"]``, or
    else CLOCKWISE when flip_y (its default) / COUNTER_CLOCKWISE when not,
    and the same cull values ("ccw" -> BACK, "cw" -> FRONT); with flip_y on
    its framebuffer is the D3D image, so D3D's back faces are its CCW ones."""
    if vulkan:
        flip_y = bool(ps_refl.get("options", {}).get("flip_y", True))
        front = (ps_refl.get("front_face") or {}).get("vulkan") or (
            "VK_FRONT_FACE_CLOCKWISE" if flip_y else "VK_FRONT_FACE_COUNTER_CLOCKWISE")
        d3d_back = "VK_FRONT_FACE_COUNTER_CLOCKWISE" if flip_y else "VK_FRONT_FACE_CLOCKWISE"
        return "cw" if front == d3d_back else "ccw"
    flip_y = bool(ps_refl.get("options", {}).get("flip_y"))
    front = (ps_refl.get("front_face") or {}).get("gl") or ("GL_CW" if flip_y else "GL_CCW")
    d3d_back = "GL_CW" if flip_y else "GL_CCW"
    return "cw" if front == d3d_back else "ccw"  # "cw" -> cull GL_FRONT, "ccw" -> GL_BACK


def _texture(rgba: np.ndarray, address: str = "wrap"):
    from .textures import SamplerState, Texture

    return Texture("2d", [rgba], SamplerState(address_u=address, address_v=address))


def _argb_texels(words: list[int]) -> np.ndarray:
    return np.array([_rgba(w) for w in words], np.float32)


def _case_textures(case: Case) -> dict:
    """{("vs"|"ps", s#): Texture} for the cases that bind textures (parsed from
    render_state_notes); samplers not listed stay unbound, which GL and D3D9
    both read as (0, 0, 0, 1)."""
    if case.function == "test_vertex_texture":
        m = re.search(r"texels (0x[0-9a-fA-F]{8})", case.states)
        return {("vs", 0): _texture(np.tile(np.array(_rgba(_hex(m.group(1))), np.float32), (2, 2, 1)))}
    if case.function == "texbem_test":
        texels = [_hex(x) for x in re.findall(r"0x[0-9a-fA-F]{8}", case.states.split("texture2 texels:")[1])]
        tex2 = _argb_texels(texels).reshape(8, 8, 4)  # row-major, row 0 = v 0
        # D3DFMT_V8U8 (du, dv) signed bytes -> /127 (SNORM); the missing blue/alpha read 1
        bumps = re.findall(r"= \((-?\d+), (-?\d+)\)", case.states)
        v8u8 = [np.array([[[int(du) / 127.0, int(dv) / 127.0, 1.0, 1.0]]], np.float32) for du, dv in bumps]
        return {("ps", 0): _texture(v8u8[0], "clamp"), ("ps", 1): _texture(tex2, "clamp"),
                ("ps", 2): _texture(v8u8[1], "clamp"), ("ps", 3): _texture(tex2, "clamp")}
    return {}


# --------------------------------------------------------------------------- texdepth


def _draw_texdepth(case: Case, vs, ps, draw) -> np.ndarray:
    """texdepth_test needs a depth buffer, which the GL runner's targets lack:
    clear z to 0, fill it with the quad's own z gradient (no pixel shader,
    ZFUNC ALWAYS), clear the colour, then draw the shader with ZFUNC GREATER
    and no depth writes.  Uses the runner's program (pipeline) and context."""
    import moderngl

    from .gl import runner

    r = runner()
    ctx = r.ctx
    prog, vs_refl, ps_refl = r.pipeline(vs, ps, draw.state, draw.primitive)
    w_px, h_px = case.size
    color = ctx.texture((w_px, h_px), 4, dtype="f4")
    depth = ctx.depth_renderbuffer((w_px, h_px))
    fbo = ctx.framebuffer(color_attachments=[color], depth_attachment=depth)
    made = []
    pre_prog, pre_vs_refl, _ = r.pipeline(None, ff_pixel_shader([], False, None), draw.state, draw.primitive)
    try:
        fbo.use()
        ctx.viewport = (0, 0, w_px, h_px)
        if "xl_viewport" in prog:
            prog["xl_viewport"].value = (1.0 / w_px, 1.0 / h_px, float(h_px), 0.0)
        r._upload_constants(prog, ps_refl, draw.constants)
        ctx.disable(moderngl.CULL_FACE | moderngl.BLEND)
        vao, bufs, n = r._vertex_array(prog, vs_refl, draw.vertices)
        made += [vao, *bufs]
        mode = moderngl.TRIANGLE_STRIP if case.strip else moderngl.TRIANGLES
        # setup: Clear(TARGET | ZBUFFER, 0xffffff00, z = 0), then the quad without a
        # pixel shader (white: default diffuse), ZFUNC ALWAYS, writes its z gradient
        if "xl_viewport" in pre_prog:
            pre_prog["xl_viewport"].value = (1.0 / w_px, 1.0 / h_px, float(h_px), 0.0)
        pre_vao, pre_bufs, _ = r._vertex_array(pre_prog, pre_vs_refl, {("position", 0): draw.vertices[("position", 0)]})
        made += [pre_vao, *pre_bufs]
        fbo.clear(1.0, 1.0, 0.0, 1.0, depth=0.0)
        ctx.enable(moderngl.DEPTH_TEST)
        ctx.depth_func = "1"
        fbo.depth_mask = True
        pre_vao.render(mode, vertices=n)
        if not case.notes.startswith("Draw 1 of"):  # the first shader draw follows the setup directly
            color.write(np.tile(np.array(draw.clear, np.float32), (h_px, w_px, 1)).tobytes())
        ctx.depth_func = ">"
        fbo.depth_mask = False
        vao.render(mode, vertices=n)
        img = np.frombuffer(fbo.read(components=4, dtype="f4"), np.float32).reshape(h_px, w_px, 4)[::-1]
    finally:
        ctx.disable(moderngl.DEPTH_TEST)
        fbo.depth_mask = True
        for m in made:
            m.release()
        fbo.release()
        depth.release()
        color.release()
    return img


def _draw_texdepth_vk(case: Case, vs, ps, draw) -> np.ndarray:
    """``_draw_texdepth`` on the Vulkan runner: targets with a depth image,
    the pre-pass (white, ZFUNC ALWAYS, z writes) then the shader (ZFUNC
    GREATER, no z writes)."""
    import dataclasses

    from . import vk

    r = vk.runner()
    targets = vk.RenderTargets(*case.size, depth=True)
    try:
        targets.clear((1.0, 1.0, 0.0, 1.0))
        targets.clear_depth(0.0)
        pre = dataclasses.replace(draw, vertices={("position", 0): draw.vertices[("position", 0)]}, clear=None)
        r.draw(None, ff_pixel_shader([], False, None, vulkan=True), pre, targets=targets, read=False,
               depth=("always", True))
        if not case.notes.startswith("Draw 1 of"):  # the first shader draw follows the setup directly
            targets.clear(draw.clear)
        res = r.draw(vs, ps, dataclasses.replace(draw, clear=None), targets=targets, depth=("greater", False))
        return res.colors[0]
    finally:
        targets.release()


# --------------------------------------------------------------------------- probes


@dataclass
class ProbeResult:
    probe: Probe
    got: int  # 0xAARRGGBB as read back (alpha masked off unless the probe compares it)
    ok: bool
    broken_only: bool  # failed, but a broken_accepted colour matches
    bad: int = 0  # pixels that failed (whole-target probes)
    first_bad: tuple[int, int] | None = None  # (x, y) of one, D3D coordinates

    def describe(self) -> str:
        where = self.probe.where()
        if self.probe.x is None and self.first_bad is not None:
            where += f" ({self.bad} pixels of that colour, e.g. ({self.first_bad[0]},{self.first_bad[1]}))"
        text = f"{where}: got 0x{self.got:08x}, want 0x{self.probe.color:08x}±{self.probe.tolerance}"
        if self.probe.also:
            text += " or " + ", ".join(f"0x{e.color:08x}" for e in self.probe.also if e.color is not None)
        return text + (" (only a broken_accepted colour matches)" if self.broken_only else "")


@dataclass
class CaseResult:
    case: Case
    probes: list[ProbeResult]
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and all(p.ok for p in self.probes)

    def describe(self) -> str:
        if self.error:
            return self.error
        return "; ".join(p.describe() for p in self.probes if not p.ok)

    @property
    def broken_only(self) -> bool:
        """Failed, and every failing probe matches a broken_accepted colour."""
        bad = [p for p in self.probes if not p.ok]
        return self.error is None and bool(bad) and all(p.broken_only for p in bad)


def quantise(img: np.ndarray) -> np.ndarray:
    """(h, w, 4) float RGBA -> (h, w) uint32 0xAARRGGBB as a UNORM8 target stores it."""
    q = np.rint(np.clip(np.nan_to_num(img, nan=0.0), 0.0, 1.0) * 255.0).astype(np.uint32)
    return (q[..., 3] << 24) | (q[..., 0] << 16) | (q[..., 1] << 8) | q[..., 2]


def _match(got: int, want: int, tol: int, alpha: bool, mask: int | None = None) -> bool:
    for s in ((16, 8, 0, 24) if alpha else (16, 8, 0)):
        if mask is not None and not (mask >> s) & 0xFF:
            continue
        if abs(((got >> s) & 0xFF) - ((want >> s) & 0xFF)) > tol:
            return False
    return True


def check_probe(probe: Probe, pixels: np.ndarray) -> ProbeResult:
    """pixels: (h, w) uint32 0xAARRGGBB, row 0 = top.  A whole-target probe
    needs every pixel to match."""
    region = pixels.reshape(-1) if probe.x is None else pixels[probe.y, probe.x].reshape(1)
    wanted = [Expected(probe.color, probe.tolerance)] + list(probe.also)
    ok_all, broken_all, shown = True, True, int(region[0])
    for got in (int(g) for g in np.unique(region)):
        ok = any(_match(got, e.color, e.tolerance, probe.alpha) for e in wanted if e.color is not None)
        if not ok:
            br = any(_match(got, e.color, e.tolerance, probe.alpha, e.channel_mask)
                     for e in probe.broken if e.color is not None)
            ok_all, shown, broken_all = False, got, broken_all and br
    if not probe.alpha:
        shown &= 0x00FFFFFF
    result = ProbeResult(probe, shown, ok_all, (not ok_all) and broken_all)
    if probe.x is None and not ok_all:
        keep = 0xFFFFFFFF if probe.alpha else 0x00FFFFFF
        ys, xs = np.nonzero((pixels & keep) == shown)
        result.bad, result.first_bad = len(ys), (int(xs[0]), int(ys[0]))
    return result


# --------------------------------------------------------------------------- running


def render(case: Case, vulkan: bool = False, mode: str = "baked") -> np.ndarray:
    """Draw the case (on lavapipe with native SPIR-V when ``vulkan``);
    (h, w) uint32 0xAARRGGBB, row 0 = top."""
    from .gl import runner

    vs, ps, draw = build_draw(case, vulkan, mode)
    if vulkan:
        from . import vk

        if case.function == "texdepth_test":
            return quantise(_draw_texdepth_vk(case, vs, ps, draw))
        res = vk.runner().draw(vs, ps, draw)
        res.targets.release()
        return quantise(res.colors[0])
    if case.function == "texdepth_test":
        return quantise(_draw_texdepth(case, vs, ps, draw))
    res = runner().draw(vs, ps, draw, targets=_targets(case.size))
    return quantise(res.colors[0])


_TARGETS: dict = {}


def _targets(size):
    """One RenderTargets per size, reused (every draw clears it).  Releasing
    a runner's RenderTargets while its framebuffer is bound makes the next
    framebuffer creation fail with GL_INVALID_OPERATION, so they are kept."""
    from .gl import RenderTargets

    if size not in _TARGETS:
        _TARGETS[size] = RenderTargets(*size)
    return _TARGETS[size]


def run_case(case: Case, vulkan: bool = False, mode: str = "baked") -> CaseResult:
    try:
        pixels = render(case, vulkan, mode)
    except Exception as exc:  # noqa: BLE001 - a failure is a result
        return CaseResult(case, [], f"{type(exc).__name__}: {exc}")
    return CaseResult(case, [check_probe(p, pixels) for p in case.probes])


def run_all(cases=None) -> tuple[dict[str, CaseResult], dict[str, str]]:
    """(results of the in-scope cases, {case id: out-of-scope reason})."""
    results, skipped = {}, {}
    for case in cases if cases is not None else load_cases():
        reason = out_of_scope(case)
        if reason:
            skipped[case.id] = reason
        else:
            results[case.id] = run_case(case)
    return results, skipped
