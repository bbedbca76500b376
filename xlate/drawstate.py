"""D3D9 draw-time render state that a translated shader must honour.

Part of what D3D9 draws comes from device state applied around the shader:
fog is blended into the pixel shader's colour after it runs, the alpha test
discards pixels by oC0.a.  A D3D9-on-GL/Vulkan layer has to add that work
to the shader.  This module is the model: a frozen ``DrawState`` holding the
render states (D3DRS_* names, lower-case, without the prefix) and the table
of *state parameters*, the scalar values a translation can read at draw time
instead of baking them in (``Options.draw_state_mode``):

* ``"baked"``: the state's values become constants in the code; the shader
  is right for that state only (ports, offline conversion).
* ``"dynamic"``: each state the shader can depend on becomes a state
  parameter: a uniform on the GL targets, a specialization constant on the
  ``vulkan`` GLSL target (``layout(constant_id = N)``) and on native SPIR-V
  (``OpSpecConstant*`` with ``SpecId`` N).  ``DrawState``'s values are the
  constants' defaults.

The passes (``passes/drawstate.py``) read a parameter as a LOAD of a
``Storage.STATE`` variable (docs/ir.md); the layout names it, the
reflection lists it (docs/reflection.md "State parameters").

D3D's enum values (D3DFOG_*, D3DCMP_*) and the state numbers come from the
effect state table (``effect/states.json``), written once.
"""

from __future__ import annotations

import enum
import functools
import json
import math
from dataclasses import dataclass, fields, replace
from pathlib import Path


@functools.lru_cache(maxsize=1)
def _d3d_table() -> dict:
    with open(Path(__file__).parent / "effect" / "states.json", encoding="utf-8") as f:
        return json.load(f)


def _d3d_enum(name: str, prefix: str) -> dict[str, int]:
    return {k.removeprefix(prefix): v for k, v in _d3d_table()["enums"][name].items()}


# D3DFOGMODE and D3DCMPFUNC with D3D's numbers (include/d3d9types.h via states.json).
FogMode = enum.IntEnum("FogMode", _d3d_enum("D3DFOG", "D3DFOG_"), module=__name__)
FogMode.__doc__ = "D3DFOGMODE: NONE, EXP, EXP2, LINEAR (D3D's values 0-3)."
CmpFunc = enum.IntEnum("CmpFunc", _d3d_enum("D3DCMP", "D3DCMP_"), module=__name__)
CmpFunc.__doc__ = "D3DCMPFUNC: NEVER, LESS, EQUAL, LESSEQUAL, GREATER, NOTEQUAL, GREATEREQUAL, ALWAYS (1-8)."


def render_state_number(key: str) -> int | None:
    """The D3DRENDERSTATETYPE value of ``D3DRS_<KEY>``, or None."""
    name = "D3DRS_" + key.upper()
    for row in _d3d_table()["states"]:
        if row[0] == "render" and row[1] == name:
            return row[2]
    return None


class DrawStateMode(enum.Enum):
    BAKED = "baked"
    DYNAMIC = "dynamic"


class ParamType(enum.Enum):
    """A state parameter's scalar type, as declared in the shader."""

    BOOL = "bool"
    INT = "int"
    FLOAT = "float"


@dataclass(frozen=True)
class StateParam:
    """One state parameter: a scalar the layer sets per draw.

    ``key`` names it in the IR and the reflection (``fogcolor_r``);
    ``state`` is the D3D render state it comes from; ``spec_id`` is its
    fixed specialization-constant id (constant_id / SpecId), the same in
    every shader so that a layer fills one VkSpecializationInfo table;
    ``encoding`` says how the layer turns the D3D value into this scalar."""

    key: str
    state: str
    type: ParamType
    spec_id: int
    encoding: str

    @property
    def glsl(self) -> str:
        """The uniform / constant name in the generated code."""
        return f"xl_rs_{self.key}"


# The state parameters, in spec-id order.  Ids 0-15 fog and alpha test;
# 16 on are left to the other draw-time states (clip planes, points,
# samplers) so that these ids never move.
STATE_PARAMS: tuple[StateParam, ...] = (
    StateParam("fogenable", "D3DRS_FOGENABLE", ParamType.BOOL, 0, "bool: the state != 0"),
    StateParam("fogtablemode", "D3DRS_FOGTABLEMODE", ParamType.INT, 1,
               "int: the D3DFOGMODE value (0 NONE: vertex fog from oFog, 1 EXP, 2 EXP2, 3 LINEAR: pixel fog "
               "from the clip-space z)"),
    StateParam("fogstart", "D3DRS_FOGSTART", ParamType.FLOAT, 2, "float: the state's DWORD read as a float"),
    StateParam("fogend", "D3DRS_FOGEND", ParamType.FLOAT, 3, "float: the state's DWORD read as a float"),
    StateParam("fogdensity", "D3DRS_FOGDENSITY", ParamType.FLOAT, 4, "float: the state's DWORD read as a float"),
    StateParam("fogcolor_r", "D3DRS_FOGCOLOR", ParamType.FLOAT, 5, "float: red byte of the D3DCOLOR / 255"),
    StateParam("fogcolor_g", "D3DRS_FOGCOLOR", ParamType.FLOAT, 6, "float: green byte of the D3DCOLOR / 255"),
    StateParam("fogcolor_b", "D3DRS_FOGCOLOR", ParamType.FLOAT, 7, "float: blue byte of the D3DCOLOR / 255"),
    StateParam("alphatestenable", "D3DRS_ALPHATESTENABLE", ParamType.BOOL, 8, "bool: the state != 0"),
    StateParam("alphafunc", "D3DRS_ALPHAFUNC", ParamType.INT, 9, "int: the D3DCMPFUNC value (1 NEVER ... 8 ALWAYS)"),
    StateParam("alpharef", "D3DRS_ALPHAREF", ParamType.INT, 10,
               "int: the state's low 8 bits (0-255), compared with oC0.a quantised to 8 bits"),
)
# Sampler, clip-plane and point states (passes/samplers_state.py,
# clip_planes.py, points.py): ids 16-21, then per sampler s# 32+s (sRGB
# read) and 48+s (no texture), per clip plane i 64+4i+c (coefficient c).
STATE_PARAMS += (
    StateParam("srgbwriteenable", "D3DRS_SRGBWRITEENABLE", ParamType.BOOL, 16, "bool: the state != 0"),
    StateParam("pointsize", "D3DRS_POINTSIZE", ParamType.FLOAT, 18, "float: the state's DWORD read as a float"),
    StateParam("pointsize_min", "D3DRS_POINTSIZE_MIN", ParamType.FLOAT, 19,
               "float: the state's DWORD read as a float"),
    StateParam("pointsize_max", "D3DRS_POINTSIZE_MAX", ParamType.FLOAT, 20,
               "float: the state's DWORD read as a float"),
    StateParam("pointspriteenable", "D3DRS_POINTSPRITEENABLE", ParamType.BOOL, 21, "bool: the state != 0"),
) + tuple(
    StateParam(f"srgbtexture_s{n}", f"D3DSAMP_SRGBTEXTURE (sampler {n})", ParamType.BOOL, 32 + n,
               "bool: the sampler state != 0")
    for n in range(16)
) + tuple(
    StateParam(f"nulltexture_s{n}", f"SetTexture (sampler {n})", ParamType.BOOL, 48 + n,
               "bool: no texture is bound (D3D9 then reads (0, 0, 0, 1))")
    for n in range(16)
) + tuple(
    StateParam(f"clipplane{i}_{c}", f"SetClipPlane({i})", ParamType.FLOAT, 64 + 4 * i + "abcd".index(c),
               f"float: coefficient {c} of plane {i} (clip space)")
    for i in range(6) for c in "abcd"
) + tuple(
    StateParam(f"b{n}", f"SetShaderConstantB (b{n})", ParamType.BOOL, 96 + n, "bool: the register's value")
    for n in range(16)
) + tuple(
    StateParam(f"i{n}_{c}", f"SetShaderConstantI (i{n})", ParamType.INT, 112 + 4 * n + "xyzw".index(c),
               f"int: component {c} of the register")
    for n in range(16) for c in "xyzw"
)
PARAMS_BY_KEY: dict[str, StateParam] = {p.key: p for p in STATE_PARAMS}


class DrawStateError(ValueError):
    """A draw-state dictionary or JSON file with a bad key or value; the
    message names it."""


@dataclass(frozen=True)
class DrawState:
    """The D3D9 render states a translation honours (defaults: D3D's).

    Field names are the D3DRS_* names in lower case.  ``fogvertexmode`` and
    ``rangefogenable`` drive fixed-function vertex fog only: with a vertex
    shader D3D9 takes the fog coordinate from oFog as it is, so no shader
    depends on them (the reference interpreter's stand-in for
    fixed-function vertex processing reads them)."""

    fogenable: bool = False
    fogcolor: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # (r, g, b, a) in 0..1
    fogtablemode: FogMode = FogMode.NONE
    fogvertexmode: FogMode = FogMode.NONE
    fogstart: float = 0.0
    fogend: float = 1.0
    fogdensity: float = 1.0
    rangefogenable: bool = False
    alphatestenable: bool = False
    alphafunc: CmpFunc = CmpFunc.ALWAYS
    alpharef: int = 0
    # -- sampler, clip-plane and point state (passes/samplers_state.py,
    # clip_planes.py, points.py; docs/ir.md "Draw-time state") -------------
    # D3DRS_SRGBWRITEENABLE: every colour output's rgb saturated and encoded
    # with the sRGB curve (after the fog blend).
    srgbwriteenable: bool = False
    # D3DRS_CLIPPLANEENABLE: bit i writes clip distance i = dot(plane i, the
    # D3D position) in the vertex shader (which distances exist is fixed in
    # both modes: the layer enables GL_CLIP_DISTANCEi / sizes its pipeline);
    # clipplanes: the six SetClipPlane equations, clip space (dynamic: state
    # parameters).
    clipplaneenable: int = 0
    clipplanes: tuple[tuple[float, float, float, float], ...] = ((0.0, 0.0, 0.0, 0.0),) * 6
    # D3DRS_POINTSIZE / _MIN / _MAX, and pointmode: the draw is of points, so
    # the vertex shader writes the size: oPts (else POINTSIZE) clamped to
    # [MIN, MAX].  Without pointmode the baked mode leaves points alone
    # (oPts, when written, is the size unclamped); the dynamic mode always
    # writes the clamped size (harmless for other primitives).
    pointmode: bool = False
    pointsize: float = 1.0
    pointsize_min: float = 1.0
    pointsize_max: float = 64.0
    # D3DRS_POINTSPRITEENABLE: every TEXCOORD input of the pixel shader reads
    # (u, v, 0, 0) of the point (baked; dynamic: selected by the parameter).
    pointspriteenable: bool = False
    # Per sampler s# of the shader: D3DSAMP_SRGBTEXTURE (rgb decoded after the
    # lookup: exact under point filtering; for filtered sRGB textures a layer
    # binds an sRGB view instead); depthtexture: a D16/D24 texture is bound, so texld is a shadow
    # compare (sampler2DShadow); fetch4: ATI FETCH4; nulltexture: no texture
    # is bound, the lookup reads (0, 0, 0, 1).  depthtexture and fetch4
    # change the sampler's type or instruction: they are baked in both modes
    # (a layer keys its shader variants on them, as wined3d does).
    srgbtexture: tuple[int, ...] = ()
    depthtexture: tuple[int, ...] = ()
    fetch4: tuple[int, ...] = ()
    nulltexture: tuple[int, ...] = ()
    # specializeconstants: the shader's b# and i# (those no DEFB/DEFI sets)
    # come from here, not from its bool/int uniforms: baked, the branches on
    # b# fold and the loop counts are constants (boolconstants: the b#
    # registers that are TRUE; intconstants: {n: (x, y, z, w)}, others 0);
    # dynamic, each register read is a state parameter (a specialization
    # constant on Vulkan targets: b<n>, i<n>_<x-w>).
    specializeconstants: bool = False
    boolconstants: tuple[int, ...] = ()
    intconstants: tuple[tuple[int, tuple[int, int, int, int]], ...] = ()

    def __post_init__(self):
        # Normalise so that equal states compare (and hash) equal whatever
        # spelling built them; a bad value raises DrawStateError.
        for f in fields(self):
            parse = _PARSERS.get(f.name)
            if parse is not None:  # (a field added without a parser keeps its value)
                object.__setattr__(self, f.name, parse(f.name, getattr(self, f.name)))
        _check_samplers(self)

    @classmethod
    def from_dict(cls, values) -> "DrawState":
        """A DrawState from ``{"fogenable": True, "fogcolor": [0, 1, 0, 1],
        "alphafunc": "greater", ...}``: keys are D3DRS names in any case,
        with or without ``D3DRS_``; enum values by name (``"linear"``,
        ``"D3DCMP_GREATER"``) or number; colours as [r, g, b(, a)] in 0..1
        or a D3DCOLOR (0xAARRGGBB, also as a "0x..." string).  An unknown
        key or a bad value raises DrawStateError naming it."""
        if isinstance(values, DrawState):
            return values
        if values is None:
            return cls()
        if not isinstance(values, dict):
            raise DrawStateError(f"draw_state: give a mapping of render states, not {type(values).__name__}")
        known = {f.name for f in fields(cls)}
        out = {}
        for key, value in values.items():
            name = _state_key(key)
            if name in POSITION_KEYS:
                raise DrawStateError(f"draw_state: {name} is a position convention, an Options field: give it to "
                                     "translate()/Options (draw_state={..., \"{name}\": ...} works there too)")
            if name not in known:
                raise DrawStateError(f"draw_state: unknown render state {_show(str(key))}; known: "
                                     f"{', '.join(sorted(known))}")
            if name in out:
                raise DrawStateError(f"draw_state: render state {name} is given twice")
            out[name] = value
        return cls(**out)

    def with_(self, **changes) -> "DrawState":
        return replace(self, **changes)

    def to_dict(self) -> dict:
        """JSON-ready: enums by lower-case name."""
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = v.name.lower() if isinstance(v, enum.Enum) else list(v) if isinstance(v, tuple) else v
        return out

    def param_value(self, key: str):
        """The value of state parameter ``key`` under this state (a Python
        bool, int or float, as ``StateParam.type`` says).  A key names a
        field, or one component of a tuple field: ``fogcolor_r`` (r, g, b,
        a or x, y, z, w, or a number: ``<field>_<n>``)."""
        if key[0] == "b" and key[1:].isdigit():
            return int(key[1:]) in self.boolconstants
        if key[0] == "i" and key[1:].partition("_")[0].isdigit():
            n, _, c = key[1:].partition("_")
            return int(dict(self.intconstants).get(int(n), (0, 0, 0, 0))["xyzw".index(c)])
        if key.startswith(("srgbtexture_s", "nulltexture_s")):
            return int(key.rpartition("_s")[2]) in getattr(self, key.partition("_")[0])
        if key.startswith("clipplane"):
            plane, _, c = key[len("clipplane"):].partition("_")
            return float(self.clipplanes[int(plane)]["abcd".index(c)])
        param = PARAMS_BY_KEY[key]
        if hasattr(self, key):
            value = getattr(self, key)
        else:
            name, _, comp = key.rpartition("_")
            index = int(comp) if comp.isdigit() else ("rgba".index(comp) if comp in "rgba" else "xyzw".index(comp))
            value = getattr(self, name)[index]
        if param.type is ParamType.BOOL:
            return bool(value)
        if param.type is ParamType.INT:
            return int(value)
        return float(value)


def _show(value) -> str:
    """A value as an error message quotes it: repr, at most 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _state_key(key) -> str:
    if not isinstance(key, str):
        raise DrawStateError(f"draw_state: render state names are strings, not {_show(key)}")
    name = key.strip().lower()
    return name.removeprefix("d3drs_")


def _bool(name: str, value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0", "on", "off"):
        return value.strip().lower() in ("true", "1", "on")
    raise DrawStateError(f"draw_state: {name} must be true or false, not {_show(value)}")


def _float(name: str, value) -> float:
    if isinstance(value, bool):
        raise DrawStateError(f"draw_state: {name} must be a number, not {_show(value)}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise DrawStateError(f"draw_state: {name} must be a number, not {_show(value)}") from None
    if not math.isfinite(x):
        raise DrawStateError(f"draw_state: {name} must be finite, not {_show(value)}")
    return x


def _int(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip(), 0)
        except ValueError:
            return None
    return None


def _enum_parser(cls, prefix: str):
    def parse(name: str, value):
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            text = value.strip().upper().removeprefix(prefix)
            if text in cls.__members__:
                return cls[text]
        n = _int(value)
        if n is not None and n in {m.value for m in cls}:
            return cls(n)
        raise DrawStateError(f"draw_state: {name} must be one of {', '.join(m.name.lower() for m in cls)} "
                             f"(or D3D's number), not {_show(value)}")
    return parse


def _colour(name: str, value) -> tuple[float, float, float, float]:
    n = _int(value)
    if n is not None:
        if not 0 <= n <= 0xFFFFFFFF:
            raise DrawStateError(f"draw_state: {name} as a D3DCOLOR must be 0-0xffffffff, not {_show(value)}")
        a, r, g, b = ((n >> s) & 0xFF for s in (24, 16, 8, 0))
        return (r / 255.0, g / 255.0, b / 255.0, a / 255.0)
    if isinstance(value, (list, tuple)) and len(value) in (3, 4):
        comps = tuple(_float(name, c) for c in value) + ((1.0,) if len(value) == 3 else ())
        return comps
    raise DrawStateError(f"draw_state: {name} must be [r, g, b(, a)] or a D3DCOLOR 0xAARRGGBB, not {_show(value)}")


def _alpharef(name: str, value) -> int:
    """D3DRS_ALPHAREF is a DWORD of which D3D9 compares only the low 8 bits
    (Wine's alphatest_test sets 0xff70 and gets 0x70)."""
    n = _int(value)
    if n is None or not 0 <= n <= 0xFFFFFFFF:
        raise DrawStateError(f"draw_state: {name} must be an integer 0-0xffffffff (its low 8 bits count), "
                             f"not {_show(value)}")
    return n & 0xFF


MAX_CLIP_PLANES = 6  # D3DMAXUSERCLIPPLANES


def _nonneg(name: str, value) -> float:
    x = _float(name, value)
    if x < 0:
        raise DrawStateError(f"draw_state: {name} must be >= 0, not {value!r}")
    return x


def _clipmask(name: str, value) -> int:
    n = _int(value)
    if n is None or not 0 <= n < 1 << MAX_CLIP_PLANES:
        raise DrawStateError(f"draw_state: {name} must be a bit mask 0-63 (bit i enables plane i), not {value!r}")
    return n


def _clipplanes(name: str, value) -> tuple:
    """Six planes from a list of up to six [a, b, c, d] or {index: [a, b, c, d]}."""
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, (list, tuple)):
        items = list(enumerate(value))
    else:
        raise DrawStateError(f"draw_state: {name} must be a list of [a, b, c, d] or {{index: [a, b, c, d]}}")
    planes = [(0.0, 0.0, 0.0, 0.0)] * MAX_CLIP_PLANES
    for index, plane in items:
        i = _int(index)
        if i is None or not 0 <= i < MAX_CLIP_PLANES:
            raise DrawStateError(f"draw_state: {name}: {str(index)[:32]!r} is not a plane index 0-5")
        if not isinstance(plane, (list, tuple)) or len(plane) != 4:
            raise DrawStateError(f"draw_state: {name}: plane {i} must be [a, b, c, d]")
        planes[i] = tuple(_float(name, c) for c in plane)
    return tuple(planes)


def _samplers(name: str, value) -> tuple[int, ...]:
    if isinstance(value, str):  # the CLI's "srgbtexture=1" (a list is "srgbtexture=0,1")
        value = [v for v in value.split(",") if v.strip()]
    if isinstance(value, (bytes, dict)) or not isinstance(value, (list, tuple, set, frozenset)):
        raise DrawStateError(f"draw_state: {name} must be a list of sampler or register numbers (0-15), not {value!r}")
    out = set()
    for v in value:
        n = _int(v)
        if n is None or not 0 <= n <= 15:
            raise DrawStateError(f"draw_state: {name}: {v!r} is not a sampler or register number (0-15)")
        out.add(n)
    return tuple(sorted(out))


def _check_samplers(state) -> None:
    """Sampler states that cannot hold together."""
    pairs = (("depthtexture", "fetch4"), ("depthtexture", "nulltexture"), ("fetch4", "nulltexture"),
             ("depthtexture", "srgbtexture"))
    for a, b in pairs:
        both = set(getattr(state, a)) & set(getattr(state, b))
        if both:
            raise DrawStateError(f"draw_state: sampler {min(both)} is in both {a} and {b}")
    if state.pointsize_min > state.pointsize_max:
        raise DrawStateError("draw_state: pointsize_min is above pointsize_max")


def _intconstants(name: str, value) -> tuple:
    """{n: [x, y, z, w]} (or (n, values) pairs) as sorted pairs of int4s."""
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise DrawStateError(f"draw_state: {name} must be {{register: [x, y, z, w]}}, not {value!r}")
    out = {}
    for entry in items:
        try:
            n, values = entry
        except (TypeError, ValueError):
            raise DrawStateError(f"draw_state: {name}: {str(entry)[:40]!r} is not (register, [x, y, z, w])") from None
        i = _int(n)
        ints = [_int(v) for v in values] if isinstance(values, (list, tuple)) else []
        if i is None or not 0 <= i <= 15 or len(ints) != 4 or any(v is None or abs(v) >= 2**31 for v in ints):
            raise DrawStateError(f"draw_state: {name}: register {str(n)[:16]!r} must be 0-15 with four 32-bit ints")
        out[i] = tuple(ints)
    return tuple(sorted(out.items()))


_PARSERS = {
    "specializeconstants": _bool, "boolconstants": _samplers, "intconstants": _intconstants,
    "srgbwriteenable": _bool, "pointspriteenable": _bool, "pointmode": _bool, "clipplaneenable": _clipmask,
    "clipplanes": _clipplanes, "pointsize": _nonneg, "pointsize_min": _nonneg, "pointsize_max": _nonneg,
    "srgbtexture": _samplers, "depthtexture": _samplers, "fetch4": _samplers, "nulltexture": _samplers,
    "fogenable": _bool, "rangefogenable": _bool, "alphatestenable": _bool,
    "fogcolor": _colour, "fogtablemode": _enum_parser(FogMode, "D3DFOG_"),
    "fogvertexmode": _enum_parser(FogMode, "D3DFOG_"), "fogstart": _float, "fogend": _float,
    "fogdensity": _float, "alphafunc": _enum_parser(CmpFunc, "D3DCMP_"), "alpharef": _alpharef,
}


# Position conventions (Options.clip_z, flip_y, half_pixel, half_pixel_exact)
# join the draw-state model: a draw_state dict or JSON file may give them
# beside the render states, and Options takes them out (``split_position``).
# clip_z and flip_y also take "auto" (None: the target decides).
POSITION_KEYS = ("clip_z", "flip_y", "half_pixel", "half_pixel_exact")
_AUTO_KEYS = ("clip_z", "flip_y")


# One line per key a draw_state dict (--draw-state KEY=VALUE, a JSON file)
# takes: (key, values, what it does); the CLI help is made from it and a test
# checks it names every DrawState field and position key.
KEY_HELP: tuple[tuple[str, str, str], ...] = (
    ("fogenable", "true|false", "blend fog into oC0 after a ps_1_x/2_x"),
    ("fogtablemode", "none|exp|exp2|linear", "none: the factor is the VS's oFog; else pixel fog from depth"),
    ("fogvertexmode", "none|exp|exp2|linear", "fixed-function vertex fog only (a diagnostic with a VS)"),
    ("fogstart, fogend, fogdensity", "float", "the fog formula's terms"),
    ("fogcolor", "0xAARRGGBB|r,g,b[,a]", "the colour fog blends towards (0..1 components)"),
    ("rangefogenable", "true|false", "fixed-function vertex fog only"),
    ("alphatestenable", "true|false", "discard by oC0.a (8-bit) against alpharef"),
    ("alphafunc", "never|less|equal|lessequal|greater|notequal|greaterequal|always", "the alpha test's compare"),
    ("alpharef", "0-255 (a DWORD: its low 8 bits)", "the alpha test's reference"),
    ("srgbwriteenable", "true|false", "encode the colour outputs with the sRGB curve"),
    ("srgbtexture", "sampler list, e.g. 0,2", "decode these samplers' texels from sRGB"),
    ("depthtexture", "sampler list", "a D16/D24 texture is bound: texld is a shadow compare"),
    ("fetch4", "sampler list", "ATI FETCH4: texld gathers four texels"),
    ("nulltexture", "sampler list", "no texture bound: the lookup reads (0, 0, 0, 1)"),
    ("clipplaneenable", "bit mask 0-63", "bit i: write clip distance i"),
    ("clipplanes", "JSON: [[a,b,c,d], ...]", "the six SetClipPlane equations (clip space)"),
    ("pointmode", "true|false", "the draw is of points: the VS writes the clamped size"),
    ("pointsize, pointsize_min, pointsize_max", "float", "D3DRS_POINTSIZE and its clamp"),
    ("pointspriteenable", "true|false", "TEXCOORD inputs read the point coordinate"),
    ("specializeconstants", "true|false", "b#/i# come from boolconstants/intconstants"),
    ("boolconstants", "register list", "the b# registers that are TRUE"),
    ("intconstants", "JSON: {\"n\": [x,y,z,w]}", "the i# registers' values"),
    ("clip_z, flip_y", "on|off|auto", "position conventions, as --clip-z / --flip-y"),
    ("half_pixel, half_pixel_exact", "on|off", "position conventions, as --half-pixel / --half-pixel-exact"),
)


def split_position(values: dict) -> tuple[dict, dict]:
    """``values`` (a draw_state dict) as (render states, position
    conventions): the second maps the Options field names of
    ``POSITION_KEYS`` to bool (or None: "auto", for clip_z / flip_y)."""
    states, position = {}, {}
    for key, value in values.items():
        name = key.strip().lower() if isinstance(key, str) else key
        if name not in POSITION_KEYS:
            states[key] = value
            continue
        if name in position:
            raise DrawStateError(f"draw_state: {name} is given twice")
        auto = value is None or (isinstance(value, str) and value.strip().lower() == "auto")
        if auto and name not in _AUTO_KEYS:
            raise DrawStateError(f"draw_state: {name} must be true or false, not {_show(value)}")
        position[name] = None if auto else _bool(name, value)
    return states, position


def parse_assignments(items) -> dict:
    """``["fogenable=true", "alphafunc=greater", "fogcolor=0xff00ff00"]``
    (the CLI's ``--draw-state key=value``) as a dict for ``DrawState.from_dict``;
    a list value is written ``fogcolor=0,1,0,1``."""
    out = {}
    for item in items:
        key, sep, value = str(item).partition("=")
        if not sep or not key.strip():
            raise DrawStateError(f"draw_state: {_show(str(item))} is not key=value")
        value = value.strip()
        out[key.strip()] = [v.strip() for v in value.split(",")] if "," in value else value
    return out


def load_json(path) -> dict:
    """A JSON file holding one object of render states (``DrawState.from_dict``'s form)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise DrawStateError(f"draw_state: cannot read {path}: {e.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise DrawStateError(f"draw_state: {path} is not JSON: {e}") from None
    if not isinstance(data, dict):
        raise DrawStateError(f"draw_state: {path} must hold one JSON object of render states")
    return data

