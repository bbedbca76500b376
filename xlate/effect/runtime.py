"""The effect runtime's constant upload: what d3dx9's BeginPass / CommitChanges
send to the device for one pass, given the application's parameter values.

    from xlate.effect import parse_effect, evaluate_pass
    effect = parse_effect(blob)
    consts = evaluate_pass(effect, "Tech", 0, {"World": world, "Tint": [1, 0, 0, 1]})
    consts.vertex.floats[4]          # float32[4]: c4 of the vertex shader
    consts.pixel.bools               # {b#: bool}
    consts.states                    # states computed from parameters (LightDiffuse[0] = 1 / v, ...)
    consts.registers_of("World")     # {"vertex": ("c0", "c1", ...), "pixel": ()}: what CommitChanges rewrites

For each shader of the pass (an array selector evaluated with the values
given), the registers are d3dx9's (Wine's preshader.c ``set_constants`` and
Windows-verified tests; docs/preshader.md, "Effect runtime"):

* every CTAB constant of the shader takes the effect parameter of the same
  name: arrays element by element and struct members one after another,
  each from a new register (four components for c# and i#, one for b#); a
  matrix goes a row per register (``MATRIX_ROWS``) or a column per register
  (``MATRIX_COLUMNS``: the shader's CTAB class decides, the parameter's
  values are its rows); a bool table packs values one per register; the
  copy stops at the constant's register count; components a parameter does
  not cover are 0;
* values convert to the register file: to float (int -> float, bool ->
  0.0 / 1.0), to int (float truncated toward zero, as C's cast; a NaN or
  out-of-range float gives INT_MIN, the x86 conversion), to bool (any
  non-zero bit pattern, so -0.0 is TRUE);
* the shader's preshader runs first on the parameters it reads (the same
  layout, in its float input file) and fills its output registers;
* a ``VertexShaderConstant*`` / ``PixelShaderConstant*`` state writes its
  registers where it stands in the pass;
* states whose value an expression computes are evaluated: the expression's
  float output file from c0, converted to the state's type.

A register's ``sources`` are the top-level parameters it is computed from;
a register a preshader fills depends on every input of that preshader
(d3dx9 reruns the whole preshader when one changes), which is exactly what
``CommitChanges`` re-uploads when one parameter changes.
"""

from __future__ import annotations

import functools
import math
import struct
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from ..bytecode import decode
from ..bytecode.ctab import Constant, ParameterClass, ParameterType, RegisterSet, TypeInfo
from .model import Effect, Parameter, Pass, State, StateKind, Technique, safe_text
from .states import StateClass

_INT_MIN = -(1 << 31)


# --------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------


@dataclass
class ShaderConstants:
    """The constants d3dx9 uploads for one shader of a pass.

    ``floats`` maps c# to float32[4], ``ints`` i# to int32[4], ``bools`` b#
    to a bool; ``sources`` maps a register ("c5", "i0", "b3") to the
    top-level parameters its value comes from (empty for a constant state's
    register).  ``unmapped`` names CTAB constants the effect has no
    parameter for: d3dx9 uploads nothing for them, and neither does this.
    ``element`` is the array element an array-selector state picked.
    """

    stage: str  # "vertex" or "pixel"
    blob: bytes | None  # None: the pass sets constants of this stage but no shader
    shader: object | None  # xlate.bytecode Shader
    preshader: object | None  # xlate.preshader Preshader
    element: int | None = None
    floats: dict[int, np.ndarray] = field(default_factory=dict)
    ints: dict[int, np.ndarray] = field(default_factory=dict)
    bools: dict[int, bool] = field(default_factory=dict)
    sources: dict[str, tuple[str, ...]] = field(default_factory=dict)
    unmapped: tuple[str, ...] = ()
    # the preshader's input file as d3dx9 fills it (input register -> float32[4],
    # CTAB registers of the preshader): what an ``inline_preshader``
    # translation reads from the uniforms its reflection names
    preshader_inputs: dict[int, np.ndarray] = field(default_factory=dict)
    # sampler register s# -> (sampler parameter, element): whose sampler states
    # (``Parameter.sampler_states[element]``) d3dx9 applies to that sampler
    samplers: dict[int, tuple[str, int]] = field(default_factory=dict)

    def registers_of(self, parameter: str) -> tuple[str, ...]:
        """The registers whose value depends on ``parameter`` (top-level name),
        in file then register order: what CommitChanges rewrites after it changes."""
        regs = [r for r, names in self.sources.items() if parameter in names]
        return tuple(sorted(regs, key=lambda r: ("cib".index(r[0]), int(r[1:]))))


@dataclass(frozen=True)
class StateValue:
    """A pass state whose value comes from parameters: an expression's result
    (or a parameter's value), converted to the state's type."""

    state: State
    value: tuple
    sources: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.state.name

    @property
    def index(self) -> int:
        return self.state.index


@dataclass
class PassConstants:
    """What one pass uploads: ``vertex`` / ``pixel`` (None when the pass sets
    no such shader, or sets NULL) and the computed ``states``."""

    technique: Technique
    pass_: Pass
    vertex: ShaderConstants | None
    pixel: ShaderConstants | None
    states: tuple[StateValue, ...] = ()
    # (stage, sampler register) -> the numeric states of the sampler bound
    # there (MinFilter = g_i.y evaluated; constants with no sources)
    sampler_states: dict[tuple[str, int], tuple[StateValue, ...]] = field(default_factory=dict)

    @property
    def shaders(self) -> tuple[ShaderConstants, ...]:
        return tuple(s for s in (self.vertex, self.pixel) if s is not None)

    def registers_of(self, parameter: str) -> dict[str, tuple[str, ...]]:
        """Per stage, the registers that depend on ``parameter``."""
        return {s.stage: s.registers_of(parameter) for s in self.shaders}

    def states_of(self, parameter: str) -> tuple[StateValue, ...]:
        """The computed states that depend on ``parameter``."""
        return tuple(s for s in self.states if parameter in s.sources)


# --------------------------------------------------------------------------
# Parameter values
# --------------------------------------------------------------------------


def _flatten(value, out: list) -> None:
    if isinstance(value, (list, tuple)):
        for v in value:
            _flatten(v, out)
    elif isinstance(value, np.ndarray):
        out.extend(value.reshape(-1).tolist())
    else:
        out.append(value)


def _typed(value, ptype) -> float | int | bool:
    """One value as a parameter of type ``ptype`` holds it (SetValue of a number)."""
    if ptype == ParameterType.BOOL:
        return bool(value)
    if ptype == ParameterType.INT:
        return _to_int(value)
    return float(np.float32(value))


def _leaf_types(param: Parameter, out: list, depth: int = 0) -> None:
    for _ in range(max(param.elements, 1)):
        if param.parameter_class == ParameterClass.STRUCT and depth < 32:
            for m in param.members:
                _leaf_types(m, out, depth + 1)
        elif not param.is_object:
            out.extend([param.parameter_type] * (param.rows * param.columns))


def _logical(param: Parameter, values: list) -> list:
    """Storage order -> logical order: a MATRIX_COLUMNS parameter stores its
    matrix column by column; everything else is already row by row."""
    out: list = []

    def walk(p: Parameter, pos: int, depth: int) -> int:
        for _ in range(max(p.elements, 1)):
            if p.parameter_class == ParameterClass.STRUCT and depth < 32:
                for m in p.members:
                    pos = walk(m, pos, depth + 1)
                continue
            if p.is_object:
                continue
            n = p.rows * p.columns
            chunk = values[pos:pos + n]
            if p.parameter_class == ParameterClass.MATRIX_COLUMNS and len(chunk) == n:
                chunk = [chunk[c * p.rows + r] for r in range(p.rows) for c in range(p.columns)]
            out.extend(chunk)
            pos += n
        return pos

    walk(param, 0, 0)
    return out


def parameter_values(effect: Effect, values: Mapping[str, object] | None = None) -> dict[str, list]:
    """Every numeric top-level parameter's value, flat in logical order
    (matrices row by row, arrays element by element, struct members in
    order), typed as the parameter (float / int / bool): the effect's
    default, or the value given in ``values`` (nested lists, numpy arrays
    or flat, as many numbers as the parameter holds; a key ``name[i]`` sets
    one element of an array, applied in the mapping's order).  Raises ValueError for
    an unknown name, an object parameter or a wrong count."""
    out: dict[str, list] = {}
    for p in effect.parameters:
        if p.is_object or p.name in out:
            continue
        types: list = []
        _leaf_types(p, types)
        default = _logical(p, p.values())
        out[p.name] = (default + [0] * (len(types) - len(default)))[: len(types)]
    for name, value in (values or {}).items():
        top, _, rest = name.partition("[")
        param = effect.parameter(top)
        if param is None:
            raise ValueError(f"the effect has no parameter named {safe_text(name)!r}")
        if param.is_object:
            raise ValueError(f"parameter {safe_text(name)!r} is an object ({param.type_text()}), not a number")
        flat: list = []
        _flatten(value, flat)
        types: list = []
        _leaf_types(param, types)
        lo, hi = 0, len(types)
        if rest:  # "name[i]": one element of an array
            index = rest[:-1] if rest.endswith("]") else ""
            if not index.isdigit() or int(index) >= max(param.elements, 0):
                raise ValueError(f"{safe_text(name)!r} is not an element of parameter {safe_text(top)!r}")
            per = len(types) // param.elements
            lo, hi = int(index) * per, (int(index) + 1) * per
        if len(flat) != hi - lo:
            raise ValueError(f"{len(flat)} values for {safe_text(name)!r}, which holds {hi - lo}")
        try:
            typed = [_typed(v, t) for v, t in zip(flat, types[lo:hi])]
        except (TypeError, ValueError):
            raise ValueError(f"the values for {safe_text(name)!r} are not all numbers") from None
        out[top] = out[top][:lo] + typed + out[top][hi:]
    return out


# --------------------------------------------------------------------------
# Conversions to a register file (Wine's pres_*_from_* and get_int)
# --------------------------------------------------------------------------


def _bits_nonzero(value) -> bool:
    if isinstance(value, float):
        return struct.unpack("<I", struct.pack("<f", value))[0] != 0
    return bool(value)


def _to_int(value) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) or isinstance(value, np.floating):
        v = float(value)
        if not math.isfinite(v) or not -2.0**31 <= v < 2.0**31:
            return _INT_MIN  # cvttss2si's "integer indefinite"
        return int(v)  # truncation toward zero, C's cast
    return ((int(value) + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def _to_float(value) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    return float(np.float32(value))


# --------------------------------------------------------------------------
# Layout: a parameter's values in a CTAB constant's registers
# --------------------------------------------------------------------------


def _lines(info: TypeInfo, chunk: list, rows: int, columns: int) -> list[list]:
    """One element's values as register lines: the rows, or the columns of a
    MATRIX_COLUMNS constant, or the vector itself."""
    if info.cls == ParameterClass.MATRIX_COLUMNS and len(chunk) == rows * columns:
        return [[chunk[r * columns + c] for r in range(rows)] for c in range(columns)]
    if info.cls == ParameterClass.MATRIX_ROWS and len(chunk) == rows * columns:
        return [chunk[r * columns:(r + 1) * columns] for r in range(rows)]
    return [chunk]


def _layout(param: Parameter, info: TypeInfo, values: list, pos: int, width: int, out: list, depth: int = 0) -> int:
    """Append ``param``'s registers (lists of up to ``width`` values) to ``out``,
    reading its logical values from ``values[pos:]``; returns the new pos."""
    elements = max(param.elements, 1)
    for _ in range(elements):
        if param.parameter_class == ParameterClass.STRUCT and depth < 32:
            members = info.members if info.is_struct else ()
            for k, m in enumerate(param.members):
                sub = members[k].type if k < len(members) else info
                pos = _layout(m, sub, values, pos, width, out, depth + 1)
            continue
        if param.is_object:
            continue
        n = param.rows * param.columns
        chunk = values[pos:pos + n]
        pos += n
        for line in _lines(info, chunk, param.rows, param.columns):
            if width == 1:
                out.extend([v] for v in line)
            else:
                out.append(list(line[:width]))
    return pos


def _constant_registers(param: Parameter, constant: Constant, values: list, width: int) -> list[list]:
    regs: list[list] = []
    _layout(param, constant.type, values, 0, width, regs)
    return regs[: constant.register_count]


# --------------------------------------------------------------------------
# Decoding, once per blob
# --------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def _decoded(blob: bytes):
    from .model import shader_preshader

    shader = decode(blob)
    return shader, shader_preshader(shader)


@functools.lru_cache(maxsize=1024)
def _expression(data: bytes, offset: int):
    from ..preshader import decode_preshader

    return decode_preshader(data, offset)


def _run_fx(effect: Effect, pre, values: dict[str, list], inputs_out: dict | None = None):
    """Run an FX program with the parameters' current values in its input
    file (laid out as d3dx9 does, converted to float); returns
    (Evaluation, the top-level parameters it read).  ``inputs_out`` receives
    the input registers set from parameters."""
    inputs: dict[int, list] = {}
    read: list[str] = []
    for c in pre.ctab.constants if pre.ctab is not None else ():
        if c.register_set == RegisterSet.SAMPLER:
            continue
        found = effect.resolve(c.name)
        if found is None or found[1] is not None or found[0].is_object or c.name not in values:
            continue  # not a top-level parameter: the CTAB default stays
        read.append(c.name)
        for k, reg in enumerate(_constant_registers(found[0], c, values[c.name], 4)):
            row = [0.0] * 4
            row[: len(reg)] = [_to_float(v) for v in reg]
            inputs[c.register_index + k] = row
    if inputs_out is not None:
        inputs_out.update({k: np.asarray(v, np.float32) for k, v in inputs.items()})
    return pre.evaluate(inputs), tuple(read)


# --------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------


def _upload_shader(out: ShaderConstants, effect: Effect, blob: bytes, element: int | None,
                   values: dict[str, list]) -> None:
    """The shader's registers, written over what earlier states of the pass set."""
    shader, pre = _decoded(blob)
    out.blob, out.shader, out.preshader, out.element = blob, shader, pre, element
    if pre is not None:
        result, read = _run_fx(effect, pre, values, out.preshader_inputs)
        for index, row in result.floats.items():
            out.floats[index] = row.astype(np.float32)
            out.sources[f"c{index}"] = read
        for index, row in result.ints.items():
            out.ints[index] = row.astype(np.int32)
            out.sources[f"i{index}"] = read
        for index, flag in result.bools.items():
            out.bools[index] = flag
            out.sources[f"b{index}"] = read
    unmapped = []
    for c in shader.ctab.constants if shader.ctab is not None else ():
        if c.register_set == RegisterSet.SAMPLER:
            param = effect.parameter(c.name)
            if param is None or not param.is_sampler:
                unmapped.append(c.name)
                continue
            for k in range(min(c.register_count, max(len(param.sampler_states), 1))):
                out.samplers[c.register_index + k] = (c.name, k)
            continue
        param = effect.parameter(c.name)
        if param is None or param.is_object or c.name not in values:
            unmapped.append(c.name)
            continue
        width = 1 if c.register_set == RegisterSet.BOOL else 4
        for k, reg in enumerate(_constant_registers(param, c, values[c.name], width)):
            _store(out, c.register_set, c.register_index + k, reg, (c.name,))
    out.unmapped = tuple(unmapped)


def _store(out: ShaderConstants, register_set, index: int, values: list, sources: tuple[str, ...]) -> None:
    if register_set == RegisterSet.BOOL:
        out.bools[index] = _bits_nonzero(values[0]) if values else False
        out.sources[f"b{index}"] = sources
    elif register_set == RegisterSet.INT4:
        row = np.zeros(4, np.int32)
        row[: len(values)] = [_to_int(v) for v in values[:4]]
        out.ints[index] = row
        out.sources[f"i{index}"] = sources
    else:
        row = np.zeros(4, np.float32)
        row[: len(values)] = [_to_float(v) for v in values[:4]]
        out.floats[index] = row
        out.sources[f"c{index}"] = sources


def _convert(value: float, ptype) -> float | int | bool:
    if ptype == ParameterType.INT:
        return _to_int(float(value))
    if ptype == ParameterType.BOOL:
        return _bits_nonzero(float(value))
    return float(np.float32(value))


def _state_value(effect: Effect, state: State, values: dict[str, list]) -> tuple[tuple, tuple[str, ...]] | None:
    """(value, sources) of a state whose value comes from parameters, None
    for a constant, a shader or an object."""
    ptype = state.parameter.parameter_type
    count = max(len(state.parameter.value) // 4, state.parameter.rows * state.parameter.columns)
    if state.kind == StateKind.EXPRESSION and state.expression is not None:
        pre = _expression(state.expression.data, state.expression.offset)
        result, read = _run_fx(effect, pre, values)
        table = result.float_table[:count]
        return tuple(_convert(v, ptype) for v in table), read
    if state.kind == StateKind.PARAMETER and state.reference and not state.parameter.is_object:
        found = effect.resolve(state.reference)
        if found is None or found[0].is_object:
            return None
        param, index = found
        top = effect.parameter(state.reference.split("[")[0].split(".")[0])
        if top is not param or top.name not in values:
            return None  # a struct member: not resolved here
        flat = values[top.name]
        if index is not None:
            per = len(flat) // max(top.elements, 1)
            flat = flat[index * per:(index + 1) * per]
        return tuple(_convert(_to_float(v), ptype) for v in flat[:count]), (top.name,)
    return None


_SHADER_CONSTANT_FILES = {  # StateInfo.d3d_value -> (stage, register set)
    "vs_float": ("vertex", RegisterSet.FLOAT4), "vs_bool": ("vertex", RegisterSet.BOOL),
    "vs_int": ("vertex", RegisterSet.INT4), "ps_float": ("pixel", RegisterSet.FLOAT4),
    "ps_bool": ("pixel", RegisterSet.BOOL), "ps_int": ("pixel", RegisterSet.INT4),
}


def _constant_state(effect: Effect, state: State, values: dict[str, list]):
    """(stage, register set, registers, sources) a shader-constant state writes."""
    where = _SHADER_CONSTANT_FILES.get(state.info.d3d_value if state.info else None)
    if where is None:
        return None
    if state.kind == StateKind.CONSTANT:
        raw = state.parameter.values()
        sources: tuple[str, ...] = ()
    else:
        got = _state_value(effect, state, values)
        if got is None:
            return None
        raw, sources = list(got[0]), got[1]
    stage, register_set = where
    width = 1 if register_set == RegisterSet.BOOL else 4
    # As native d3dx9 does (test_effect_states): the value covers
    # ceil(n / width) registers from the state's index; a matrix value goes a
    # row (MATRIX_ROWS) or a column (MATRIX_COLUMNS, stored column by column)
    # per register, cut to the register's width, and registers left over
    # read 0 -- so {4,4,4,4,5,5,5,5,6}, a 9x1 column, gives c4 = (4,4,4,4)
    # and zeros in c5 and c6.
    p = state.parameter
    count = -(-len(raw) // width)
    if p.parameter_class == ParameterClass.MATRIX_COLUMNS and p.rows * p.columns == len(raw):
        lines = [raw[c * p.rows:(c + 1) * p.rows] for c in range(p.columns)]
    elif p.parameter_class == ParameterClass.MATRIX_ROWS and p.rows * p.columns == len(raw):
        lines = [raw[r * p.columns:(r + 1) * p.columns] for r in range(p.rows)]
    else:
        lines = [raw[i:i + width] for i in range(0, len(raw), width)]
    if width == 1:
        lines = [[v] for line in lines for v in line]
    regs = [list(line[:width]) for line in lines[:count]]
    regs += [[0.0] * width for _ in range(count - len(regs))]
    return stage, register_set, regs, sources


def _select(effect: Effect, state: State, values: dict[str, list]) -> tuple[bytes | None, int | None]:
    """The shader blob a VertexShader / PixelShader state sets with these
    values (array selectors evaluated: the index is the expression's c0.x
    converted to int as d3dx9 does, by truncation)."""
    if state.kind != StateKind.ARRAY_SELECTOR:
        return effect.shader_blob(state), None
    found = effect.resolve(state.reference or "")
    if found is None or not found[0].is_shader or state.expression is None:
        raise ValueError(f"shader array {safe_text(state.reference)!r} of a {state.name} state is not in the effect")
    param = found[0]
    pre = _expression(state.expression.data, state.expression.offset)
    result, _read = _run_fx(effect, pre, values)
    index = _to_int(float(result.float_table[0])) if len(result.float_table) else _INT_MIN
    if not 0 <= index < len(param.object_ids):
        raise ValueError(f"{state.name} = {safe_text(param.name)}[...] selects element {index} of "
                         f"{len(param.object_ids)} (d3dx9's BeginPass fails)")
    return effect.object_data(param.object_ids[index]), index


def evaluate_state(effect: Effect, state: State, parameters: Mapping[str, object] | None = None) -> StateValue | None:
    """One state's value with these parameter values (``evaluate_pass`` computes
    every state of a pass); None for a constant, shader or object state."""
    got = _state_value(effect, state, parameter_values(effect, parameters))
    return None if got is None else StateValue(state, got[0], got[1])


def _find(items, key, what: str):
    if isinstance(key, int):
        if not 0 <= key < len(items):
            raise ValueError(f"{what} {key} out of range (there are {len(items)})")
        return items[key]
    if isinstance(key, str):
        for item in items:
            if item.name == key:
                return item
        raise ValueError(f"no {what} named {safe_text(key)!r}")
    if key in items:
        return key
    raise ValueError(f"the {what} given is not in the effect")


def evaluate_pass(effect: Effect | bytes, technique: int | str | Technique = 0, pass_: int | str | Pass = 0,
                  parameters: Mapping[str, object] | None = None) -> PassConstants:
    """The constants and computed states one pass uploads (module docstring):
    ``effect`` (an ``Effect`` or fx_2_0 bytes), the technique and pass (index,
    name or object), and the parameter values that differ from the effect's
    defaults (top-level names; see ``parameter_values``).

    Raises ``EffectError`` for a malformed effect, ``BytecodeError`` /
    ``PreshaderError`` for a malformed shader or expression, and ValueError
    for unknown names, wrong value counts, or an array selector that picks
    no element (d3dx9's BeginPass fails there too)."""
    if isinstance(effect, (bytes, bytearray)):
        from .parse import parse_effect

        effect = parse_effect(bytes(effect))
    tech = _find(effect.techniques, technique, "technique")
    pss = _find(tech.passes, pass_, "pass")
    values = parameter_values(effect, parameters)
    stores = {stage: ShaderConstants(stage, None, None, None) for stage in ("vertex", "pixel")}
    has_shader = {"vertex": False, "pixel": False}
    states: list[StateValue] = []
    for state in pss.states:
        cls = state.state_class
        if cls in (StateClass.VERTEX_SHADER, StateClass.PIXEL_SHADER):
            stage = "vertex" if cls == StateClass.VERTEX_SHADER else "pixel"
            blob, element = _select(effect, state, values)
            has_shader[stage] = bool(blob)
            if blob:
                _upload_shader(stores[stage], effect, blob, element, values)
            continue
        if cls == StateClass.SHADER_CONSTANT:
            got = _constant_state(effect, state, values)
            if got is not None:
                stage, register_set, regs, sources = got
                for k, reg in enumerate(regs):
                    _store(stores[stage], register_set, state.index + k, reg, sources)
            continue
        got = _state_value(effect, state, values)
        if got is not None:
            states.append(StateValue(state, got[0], got[1]))
    # a stage without a shader keeps what shader-constant states set (blob None)
    picked = {k: v if has_shader[k] or v.sources else None for k, v in stores.items()}
    samplers = {}
    for stage, sc in picked.items():
        for register, (name, element) in sorted(sc.samplers.items()) if sc is not None else ():
            param = effect.parameter(name)
            if element < len(param.sampler_states):
                samplers[(stage, register)] = _sampler_values(effect, param.sampler_states[element], values)
    return PassConstants(tech, pss, picked["vertex"], picked["pixel"], tuple(states), samplers)


def _sampler_values(effect: Effect, states, values: dict[str, list]) -> tuple[StateValue, ...]:
    out = []
    for st in states:
        if st.parameter.is_object:
            continue  # Texture = <tex>: an object, bound by the application
        if st.kind == StateKind.CONSTANT:
            out.append(StateValue(st, tuple(st.parameter.values()), ()))
            continue
        got = _state_value(effect, st, values)
        if got is not None:
            out.append(StateValue(st, got[0], got[1]))
    return tuple(out)
