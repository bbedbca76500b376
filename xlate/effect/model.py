"""The typed model of an fx_2_0 effect (``parse_effect`` builds it).

An effect is a container: parameters (with default values, annotations and,
for samplers, sampler states), techniques made of passes made of state
assignments, and the objects (shaders, strings, textures) they refer to.
Every state keeps its form: a constant, a reference to a parameter, an
array element chosen by an expression, a value computed by an expression,
or an embedded shader.  Expressions (FXLVM token streams) stay raw bytes
with their byte offset in the effect; ``xlate.preshader`` decodes them.

Names are kept as the effect spells them (decoded as UTF-8 with
replacement); anything printing them must sanitise them first
(``safe_text``/``safe_stem``).
"""

from __future__ import annotations

import enum
import re
import struct
from dataclasses import dataclass, field

from ..bytecode.ctab import ParameterClass, ParameterType
from .states import StateClass, StateInfo, decode_state_value

SHADER_TYPES = (ParameterType.VERTEXSHADER, ParameterType.PIXELSHADER)
SAMPLER_TYPES = (
    ParameterType.SAMPLER, ParameterType.SAMPLER1D, ParameterType.SAMPLER2D,
    ParameterType.SAMPLER3D, ParameterType.SAMPLERCUBE,
)
TEXTURE_TYPES = (
    ParameterType.TEXTURE, ParameterType.TEXTURE1D, ParameterType.TEXTURE2D,
    ParameterType.TEXTURE3D, ParameterType.TEXTURECUBE,
)
# Object types whose value is an object id (samplers hold states instead).
OBJECT_ID_TYPES = (ParameterType.STRING, *TEXTURE_TYPES, *SHADER_TYPES)


class StateKind(enum.Enum):
    """The form of a state assignment's value."""

    CONSTANT = "constant"  # a literal value (numbers, or an object such as NULL)
    SHADER = "shader"  # an embedded compiled shader (the blob is in ``State.shader``)
    PARAMETER = "parameter"  # ``State.reference`` names the parameter whose value is used
    ARRAY_SELECTOR = "array_selector"  # element of ``reference`` chosen by ``expression``
    EXPRESSION = "expression"  # computed by ``expression`` (FXLVM) from parameters


@dataclass(frozen=True)
class Expression:
    """An FXLVM token stream (an ``FX`` preshader-like program), undecoded."""

    data: bytes
    offset: int  # byte offset of ``data`` in the effect


@dataclass(frozen=True)
class EffectObject:
    """An entry of the effect's object table: a string, a shader blob, the
    name of a referenced parameter, ...; ``data`` is None when the effect
    gives the object no data (textures, NULL shaders)."""

    id: int
    data: bytes | None
    offset: int  # byte offset of ``data`` (of its size field when empty), -1 when never given


@dataclass
class Parameter:
    """A parameter, annotation, struct member or state value type.

    ``value`` holds the raw little-endian DWORDs of a numeric default (all
    elements, struct members in order); object parameters keep one object id
    per element in ``object_ids`` and samplers one state list per element in
    ``sampler_states``.
    """

    name: str
    semantic: str | None
    parameter_class: ParameterClass | int
    parameter_type: ParameterType | int
    rows: int = 0
    columns: int = 0
    elements: int = 0
    members: tuple["Parameter", ...] = ()
    flags: int = 0
    annotations: tuple["Parameter", ...] = ()
    value: bytes = b""
    object_ids: tuple[int, ...] = ()
    sampler_states: tuple[tuple["State", ...], ...] = ()
    offset: int = -1  # byte offset of the type definition

    @property
    def is_object(self) -> bool:
        return self.parameter_class == ParameterClass.OBJECT

    @property
    def is_shader(self) -> bool:
        return self.parameter_type in SHADER_TYPES

    @property
    def is_sampler(self) -> bool:
        return self.parameter_type in SAMPLER_TYPES

    def values(self) -> list[int | float | bool]:
        """The numeric default as Python numbers (flattened; structs member by member)."""
        out: list[int | float | bool] = []
        _read_values(self, self.value, 0, out)
        return out

    def type_text(self) -> str:
        """HLSL-like spelling: ``float4x4``, ``int``, ``sampler2D``, ``struct``."""
        from ..bytecode.ctab import _TYPE_NAMES  # the one table of HLSL type names

        try:
            base = _TYPE_NAMES[ParameterType(self.parameter_type)]
        except ValueError:
            base = f"type{int(self.parameter_type)}"
        if self.parameter_class == ParameterClass.STRUCT:
            return "struct"
        if self.parameter_class == ParameterClass.VECTOR:
            return f"{base}{self.columns}"
        if self.parameter_class in (ParameterClass.MATRIX_ROWS, ParameterClass.MATRIX_COLUMNS):
            return f"{base}{self.rows}x{self.columns}"
        return base


def element_size(param: Parameter) -> int:
    """Bytes of one element of a numeric (or struct) value."""
    if param.parameter_class == ParameterClass.STRUCT:
        return sum(member_size(m) for m in param.members)
    if param.parameter_class == ParameterClass.OBJECT:
        return 0
    return 4 * param.rows * param.columns


def member_size(param: Parameter) -> int:
    """Bytes of the whole numeric value (all elements)."""
    return element_size(param) * max(param.elements, 1)


def _read_values(param: Parameter, data: bytes, pos: int, out: list) -> int:
    for _ in range(max(param.elements, 1)):
        if param.parameter_class == ParameterClass.STRUCT:
            for m in param.members:
                pos = _read_values(m, data, pos, out)
            continue
        n = param.rows * param.columns
        if param.parameter_class == ParameterClass.OBJECT or n == 0:
            continue
        words = struct.unpack_from(f"<{n}I", data, pos) if pos + 4 * n <= len(data) else ()
        pos += 4 * n
        for w in words:
            if param.parameter_type == ParameterType.FLOAT:
                out.append(struct.unpack("<f", struct.pack("<I", w))[0])
            elif param.parameter_type == ParameterType.BOOL:
                out.append(w != 0)
            else:
                out.append(w - (1 << 32) if w & 0x80000000 else w)
    return pos


@dataclass
class State:
    """One state assignment of a pass (or a sampler's state)."""

    operation: int
    index: int  # the state's index: texture stage, sampler, light, register, ...
    info: StateInfo | None  # None: an operation d3dx9 does not know
    parameter: Parameter  # the value's type (and constant value)
    kind: StateKind = StateKind.CONSTANT
    reference: str | None = None  # PARAMETER / ARRAY_SELECTOR: the parameter named
    expression: Expression | None = None  # EXPRESSION / ARRAY_SELECTOR
    shader: bytes | None = None  # SHADER: the compiled shader
    shader_offset: int = -1
    offset: int = -1  # byte offset of the state record

    @property
    def name(self) -> str:
        return self.info.name if self.info else f"state{self.operation}"

    @property
    def state_class(self) -> StateClass | None:
        return self.info.state_class if self.info else None

    def decoded_value(self) -> list:
        """A constant state's value as D3D names it (D3DBLEND_ONE, 0x000000ff, 1.5, ...)."""
        if self.kind != StateKind.CONSTANT or self.parameter.is_object or self.info is None:
            return []
        is_float = self.parameter.parameter_type == ParameterType.FLOAT
        n = len(self.parameter.value) // 4
        words = struct.unpack_from(f"<{n}I", self.parameter.value)
        return [decode_state_value(self.info, w, is_float) for w in words]


@dataclass
class Pass:
    name: str | None
    annotations: tuple[Parameter, ...] = ()
    states: tuple[State, ...] = ()
    offset: int = -1

    def shader_state(self, state_class: StateClass) -> State | None:
        """The pass's VertexShader or PixelShader assignment (the last one wins)."""
        found = None
        for s in self.states:
            if s.state_class == state_class:
                found = s
        return found


@dataclass
class Technique:
    name: str | None
    annotations: tuple[Parameter, ...] = ()
    passes: tuple[Pass, ...] = ()
    offset: int = -1


@dataclass
class Effect:
    """A parsed fx_2_0 effect."""

    parameters: tuple[Parameter, ...]
    techniques: tuple[Technique, ...]
    objects: dict[int, EffectObject] = field(default_factory=dict)
    object_count: int = 0
    size: int = 0

    def parameter(self, name: str) -> Parameter | None:
        """The top-level parameter called ``name`` (None when there is none);
        ``resolve`` also takes elements and struct members."""
        for p in self.parameters:
            if p.name == name:
                return p
        return None

    def object_data(self, object_id: int) -> bytes | None:
        obj = self.objects.get(object_id)
        return obj.data if obj else None

    def resolve(self, name: str) -> tuple[Parameter, int | None] | None:
        """A parameter reference as states write it: ``name``, ``name[3]``,
        ``name.member`` (struct members), with the element index if any."""
        m = re.fullmatch(r"([^\[\].]+)(?:\[(\d+)\])?((?:\.[^\[\].]+)*)", name)
        if not m:
            return None
        param = self.parameter(m.group(1))
        if param is None:
            return None
        index = int(m.group(2)) if m.group(2) is not None else None
        for member in filter(None, m.group(3).split(".")):
            found = next((x for x in param.members if x.name == member), None)
            if found is None:
                return None
            param = found
        return param, index

    def shader_blob(self, state: State) -> bytes | None:
        """The shader a VertexShader/PixelShader state sets, where the effect
        fixes it: embedded, or a reference to a shader parameter (or to a
        constant element of a shader array)."""
        if state.kind == StateKind.SHADER:
            return state.shader
        if state.kind == StateKind.PARAMETER and state.reference:
            found = self.resolve(state.reference)
            if found is None:
                return None
            param, index = found
            if not param.is_shader or not param.object_ids:
                return None
            i = index if index is not None else 0
            if i >= len(param.object_ids):
                return None
            return self.object_data(param.object_ids[i])
        return None


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def safe_text(name: str | None, limit: int = 200) -> str:
    """An effect-sourced name made safe to print: control and bidi
    characters become ``\\xNN``/``\\uNNNN`` escapes, and long names are cut."""
    if name is None:
        return ""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", name)
    return text if len(text) <= limit else text[:limit] + "..."


def safe_stem(name: str | None, fallback: str) -> str:
    """A filesystem- and identifier-safe form of an effect-sourced name
    (letters, digits, ``_`` and ``-``; ``fallback`` when nothing is left)."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", name or "").strip("_")[:64]
    return stem or fallback


def shader_preshader(shader):
    """The shader's decoded preshader (``xlate.preshader``), None when it has
    none.  fxc writes a bare ``PRES`` FourCC (no FX stream) for a preshader
    with nothing to compute; that counts as none."""
    from ..preshader import shader_preshader as decode_pres

    for comment in shader.comments:
        if comment.fourcc == "PRES" and not comment.payload:
            return None
    return decode_pres(shader)

