"""Wine's visual cases as data (``wine_cases``): the case model, the
records of peer-corpus/wine/visual_cases.jsonl, the render states a case
sets (``case_draw_state``), and its vertex data expanded as a vertex shader
reads it, with fixed-function vertex processing's outputs (positions, fog,
varyings).  Split from ``wine_cases.py``, which re-exports every name."""

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
