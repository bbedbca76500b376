"""Parse an fx_2_0 effect (``fxc /T fx_2_0``: .fxo, .fxb) into the model.

Layout (as d3dx9 reads it; see Wine's dlls/d3dx9_36/effect.c):

* DWORD magic 0xFEFF0901, DWORD ``start``.  Every offset inside the effect
  counts from byte 8 (the "base"); the structured part begins at
  ``base + start``, the bytes before it hold names, type definitions and
  default values that the structured part points into.
* Structured part: parameter count, technique count, an unused DWORD, the
  object count; the parameters (type offset, value offset, flags,
  annotation count, annotations), the techniques (name offset, annotation
  count, pass count, annotations, passes: name offset, annotation count,
  state count, annotations, states), then the object data: a count of
  "strings" (object id + sized data: strings and shader parameters' blobs)
  and a count of "resources" (technique or parameter index, pass index,
  element index, state index, usage + sized data) that give states their
  embedded shader (usage 0 on a shader state), expression (usage 0 on a
  numeric state), referenced parameter name (usage 1) or array selector
  (usage 2: name + expression).
* A type definition: type, class, name offset, semantic offset, element
  count, then rows/columns (vectors store columns first) or a member count
  followed by the members' type definitions inline.
* An annotation or state: type offset + value offset (a state has
  operation and index first).

Everything is untrusted: each count is checked against the bytes left
before anything is allocated, each offset against the data, type
definitions are parsed once per offset (memoised) with bounded nesting,
so a hostile effect costs O(size) time and memory and fails with an
``EffectError`` naming the byte offset at fault.
"""

from __future__ import annotations

import struct

from ..bytecode.ctab import ParameterClass, ParameterType
from ..errors import EffectError
from .model import (
    OBJECT_ID_TYPES,
    SAMPLER_TYPES,
    SHADER_TYPES,
    Effect,
    EffectObject,
    Expression,
    Parameter,
    Pass,
    State,
    StateKind,
    Technique,
    element_size,
)
from .states import state_info, state_table

FX_2_0_MAGIC = 0xFEFF0901
BASE = 8  # offsets in the effect count from here
NO_INDEX = 0xFFFFFFFF
MAX_DEPTH = 16  # struct nesting; fxc's HLSL never comes close
MAX_NAME = 1 << 16


def _class(value: int, at: int) -> ParameterClass:
    try:
        return ParameterClass(value)
    except ValueError:
        raise EffectError(at, f"parameter class {value} is not one D3DX knows (0-5)") from None


def _type(value: int, at: int) -> ParameterType:
    try:
        t = ParameterType(value)
    except ValueError:
        raise EffectError(at, f"parameter type {value} is not one D3DX knows (0-19)") from None
    return t


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.size = len(data)
        self._types: dict[int, tuple[Parameter, int]] = {}
        self._leaves: dict[int, int] = {}  # typedef position -> values it holds, elements and members expanded
        self._names: dict[int, str | None] = {}
        self.objects: dict[int, EffectObject] = {}
        self.object_count = 0

    # ---- primitives (positions are absolute byte offsets) -------------

    def dword(self, pos: int, what: str) -> int:
        if pos < 0 or pos + 4 > self.size:
            raise EffectError(min(max(pos, 0), self.size), f"the effect ends before the {what}")
        return struct.unpack_from("<I", self.data, pos)[0]

    def target(self, offset: int, what: str, at: int) -> int:
        """An offset field's absolute position, checked against the data."""
        pos = BASE + offset
        if pos + 4 > self.size:
            raise EffectError(at, f"the {what} offset {offset} points past the end of the effect ({self.size} bytes)")
        return pos

    def count(self, value: int, min_bytes: int, pos: int, what: str) -> int:
        """A count whose items need ``min_bytes`` each from ``pos`` on."""
        if value * min_bytes > self.size - pos:
            raise EffectError(pos - 4, f"{what} count {value} cannot fit in the {max(self.size - pos, 0)} bytes left")
        return value

    def name(self, offset: int, at: int) -> str | None:
        if offset in self._names:
            return self._names[offset]
        pos = self.target(offset, "name", at)
        n = self.dword(pos, "name's length")
        if n == 0:
            text = None
        else:
            if n > MAX_NAME or pos + 4 + n > self.size:
                raise EffectError(pos, f"a name of {n} bytes runs past the end of the effect")
            raw = self.data[pos + 4 : pos + 4 + n].split(b"\0", 1)[0]
            text = raw.decode("utf-8", errors="replace")
        self._names[offset] = text
        return text

    # ---- type definitions and values ----------------------------------

    def typedef(self, pos: int, depth: int = 0) -> tuple[Parameter, int]:
        """The type definition at ``pos`` and the position after it."""
        cached = self._types.get(pos)
        if cached is not None:
            p, end = cached
            return _copy_type(p), end
        if depth > MAX_DEPTH:
            raise EffectError(pos, f"struct members nest deeper than {MAX_DEPTH} levels")
        ptype = _type(self.dword(pos, "parameter type"), pos)
        pclass = _class(self.dword(pos + 4, "parameter class"), pos + 4)
        name = self.name(self.dword(pos + 8, "name offset"), pos + 8)
        semantic = self.name(self.dword(pos + 12, "semantic offset"), pos + 12)
        elements = self.dword(pos + 16, "element count")
        end = pos + 20
        rows = columns = 0
        members: tuple[Parameter, ...] = ()
        if pclass == ParameterClass.VECTOR:
            columns, rows = self.dword(end, "column count"), self.dword(end + 4, "row count")
            end += 8
        elif pclass in (ParameterClass.SCALAR, ParameterClass.MATRIX_ROWS, ParameterClass.MATRIX_COLUMNS):
            rows, columns = self.dword(end, "row count"), self.dword(end + 4, "column count")
            end += 8
        elif pclass == ParameterClass.STRUCT:
            n = self.count(self.dword(end, "member count"), 24, end + 4, "struct member")
            end += 4
            out = []
            member_leaves = 0
            for _ in range(n):
                member_pos = end
                member, end = self.typedef(end, depth + 1)
                out.append(member)
                member_leaves += self._leaves[member_pos]
            members = tuple(out)
        if pclass in (ParameterClass.SCALAR, ParameterClass.VECTOR, ParameterClass.MATRIX_ROWS, ParameterClass.MATRIX_COLUMNS):
            # HLSL types have 1-4 rows and columns, but state values are wider
            # (VertexShaderConstant[n] = a float array as one matrix): only
            # the size, checked below against the data, bounds them.
            if ptype not in (ParameterType.BOOL, ParameterType.INT, ParameterType.FLOAT, ParameterType.VOID):
                raise EffectError(pos, f"a numeric class holding the object type {ptype.name}")
        elif pclass == ParameterClass.OBJECT and ptype not in (*OBJECT_ID_TYPES, *SAMPLER_TYPES):
            raise EffectError(pos, f"an object of type {ptype.name}, which effects cannot hold")
        param = Parameter(name or "", semantic, pclass, ptype, rows, columns, elements, members, offset=pos)
        if element_size(param) * max(elements, 1) > self.size:
            raise EffectError(pos + 16, f"{elements} elements of {element_size(param)} bytes are larger than the effect")
        # Every value a type holds -- a number, an object id, a sampler's state
        # list -- takes 4 bytes or more of a real effect, so more values than
        # the effect has DWORDs is hostile.  Zero-size elements (objects, empty
        # structs) escape the byte check above, and nested arrays multiply:
        # unbounded, each walk over the values would take minutes.
        leaves = max(elements, 1) * (max(member_leaves, 1) if pclass == ParameterClass.STRUCT else 1)
        if leaves > max(self.size // 4, 1):
            raise EffectError(pos + 16, f"{elements} elements make {leaves} values in all, more than an effect of "
                                        f"{self.size} bytes can hold")
        self._leaves[pos] = leaves
        self._types[pos] = (param, end)
        return _copy_type(param), end

    def value(self, param: Parameter, pos: int) -> None:
        """Fill ``param``'s default value from ``pos``."""
        size = element_size(param) * max(param.elements, 1)
        if pos + size > self.size:
            raise EffectError(pos, f"the value of {size} bytes runs past the end of the effect")
        param.value = self.data[pos : pos + size]
        if not _holds_objects(param):
            return
        if param.parameter_class == ParameterClass.STRUCT:
            raise EffectError(param.offset, "a struct member is an object (textures, samplers, shaders and strings cannot sit in structs)")
        n = max(param.elements, 1)
        self.count(n, 4, pos, "object element")
        if param.parameter_type in SAMPLER_TYPES:
            states = []
            for _ in range(n):
                k = self.count(self.dword(pos, "sampler state count"), 16, pos + 4, "sampler state")
                pos += 4
                one = []
                for _ in range(k):
                    state, pos = self.state(pos)
                    one.append(state)
                states.append(tuple(one))
            param.sampler_states = tuple(states)
            param.value = b""
        else:
            ids = []
            for i in range(n):
                ids.append(self.object_id(self.dword(pos + 4 * i, "object id"), pos + 4 * i))
            param.object_ids = tuple(ids)
            param.value = b""

    def object_id(self, value: int, at: int) -> int:
        if value >= self.object_count:
            raise EffectError(at, f"object id {value} is not below the object count {self.object_count}")
        return value

    def annotated(self, pos: int, count: int) -> tuple[tuple[Parameter, ...], int]:
        out = []
        for _ in range(count):
            t = self.target(self.dword(pos, "annotation type offset"), "annotation type", pos)
            param, _ = self.typedef(t)
            v = self.target(self.dword(pos + 4, "annotation value offset"), "annotation value", pos + 4) if element_size(param) or param.is_object else BASE
            param.flags = 0
            self.value(param, v)
            out.append(param)
            pos += 8
        return tuple(out), pos

    def state(self, pos: int) -> tuple[State, int]:
        operation = self.dword(pos, "state operation")
        index = self.dword(pos + 4, "state index")
        info = state_info(operation)
        if info is None:
            raise EffectError(pos, f"state operation {operation} is not one D3DX knows (0-{len(state_table()) - 1})")
        t = self.target(self.dword(pos + 8, "state type offset"), "state type", pos + 8)
        param, _ = self.typedef(t)
        v = self.target(self.dword(pos + 12, "state value offset"), "state value", pos + 12)
        self.value(param, v)
        return State(operation, index, info, param, offset=pos), pos + 16

    # ---- the structured part -------------------------------------------

    def parse(self) -> Effect:
        if self.size < 8:
            raise EffectError(0, f"an effect needs at least 8 bytes, this one has {self.size}")
        if self.dword(0, "magic") != FX_2_0_MAGIC:
            raise EffectError(0, f"magic 0x{self.dword(0, 'magic'):08x} is not fx_2_0's 0xfeff0901")
        start = self.dword(4, "header")
        pos = BASE + start
        if pos + 16 > self.size:
            raise EffectError(4, f"the structured part at offset {start} lies past the end of the effect ({self.size} bytes)")
        n_params = self.count(self.dword(pos, "parameter count"), 16, pos + 16, "parameter")
        n_techs = self.count(self.dword(pos + 4, "technique count"), 12, pos + 16, "technique")
        self.object_count = self.count(self.dword(pos + 12, "object count"), 0, pos + 16, "object")
        if self.object_count > self.size:  # every object needs an id somewhere
            raise EffectError(pos + 12, f"object count {self.object_count} is larger than the effect")
        pos += 16
        params = []
        for _ in range(n_params):
            p, pos = self.parameter(pos)
            params.append(p)
        techniques = []
        for _ in range(n_techs):
            t, pos = self.technique(pos)
            techniques.append(t)
        n_strings = self.count(self.dword(pos, "string count"), 8, pos + 8, "string")
        n_resources = self.count(self.dword(pos + 4, "resource count"), 24, pos + 8, "resource")
        pos += 8
        for _ in range(n_strings):
            oid = self.object_id(self.dword(pos, "object id"), pos)
            pos = self.object_data(oid, pos + 4)
        effect = Effect(tuple(params), tuple(techniques), self.objects, self.object_count, self.size)
        for _ in range(n_resources):
            pos = self.resource(effect, pos)
        return effect

    def object_data(self, oid: int, pos: int) -> int:
        n = self.dword(pos, "object size")
        if pos + 4 + n > self.size:
            raise EffectError(pos, f"object {oid}'s {n} bytes run past the end of the effect")
        self.objects[oid] = EffectObject(oid, self.data[pos + 4 : pos + 4 + n] if n else None, pos + 4)
        return pos + 4 + ((n + 3) & ~3)

    def parameter(self, pos: int) -> tuple[Parameter, int]:
        t = self.target(self.dword(pos, "parameter type offset"), "parameter type", pos)
        voff = self.dword(pos + 4, "parameter value offset")
        flags = self.dword(pos + 8, "parameter flags")
        n_annos = self.count(self.dword(pos + 12, "annotation count"), 8, pos + 16, "annotation")
        param, _ = self.typedef(t)
        param.flags = flags
        self.value(param, self.target(voff, "parameter value", pos + 4) if element_size(param) or param.is_object else BASE)
        param.annotations, pos = self.annotated(pos + 16, n_annos)
        return param, pos

    def technique(self, pos: int) -> tuple[Technique, int]:
        name = self.name(self.dword(pos, "technique name offset"), pos)
        n_annos = self.count(self.dword(pos + 4, "annotation count"), 8, pos + 12, "annotation")
        n_passes = self.count(self.dword(pos + 8, "pass count"), 12, pos + 12, "pass")
        at = pos
        annos, pos = self.annotated(pos + 12, n_annos)
        passes = []
        for _ in range(n_passes):
            p, pos = self.pass_(pos)
            passes.append(p)
        return Technique(name, annos, tuple(passes), at), pos

    def pass_(self, pos: int) -> tuple[Pass, int]:
        name = self.name(self.dword(pos, "pass name offset"), pos)
        n_annos = self.count(self.dword(pos + 4, "annotation count"), 8, pos + 12, "annotation")
        n_states = self.count(self.dword(pos + 8, "state count"), 16, pos + 12, "state")
        at = pos
        annos, pos = self.annotated(pos + 12, n_annos)
        states = []
        for _ in range(n_states):
            s, pos = self.state(pos)
            states.append(s)
        return Pass(name, annos, tuple(states), at), pos

    def resource(self, effect: Effect, pos: int) -> int:
        tech, index, element, state_index, usage = (self.dword(pos + 4 * i, "resource record") for i in range(5))
        at = pos
        pos += 20
        if tech == NO_INDEX:
            if index >= len(effect.parameters):
                raise EffectError(at + 4, f"resource names parameter {index}, the effect has {len(effect.parameters)}")
            param = effect.parameters[index]
            if not param.is_sampler:
                raise EffectError(at + 4, f"resource names parameter {index}, which is not a sampler")
            element = 0 if element == NO_INDEX else element
            if element >= len(param.sampler_states):
                raise EffectError(at + 8, f"resource names element {element} of a sampler with {len(param.sampler_states)}")
            states = param.sampler_states[element]
        else:
            if tech >= len(effect.techniques):
                raise EffectError(at, f"resource names technique {tech}, the effect has {len(effect.techniques)}")
            passes = effect.techniques[tech].passes
            if index >= len(passes):
                raise EffectError(at + 4, f"resource names pass {index}, the technique has {len(passes)}")
            states = passes[index].states
        if state_index >= len(states):
            raise EffectError(at + 12, f"resource names state {state_index}, there are {len(states)}")
        state = states[state_index]
        size = self.dword(pos, "resource size")
        if pos + 4 + size > self.size:
            raise EffectError(pos, f"a resource of {size} bytes runs past the end of the effect")
        data = self.data[pos + 4 : pos + 4 + size]
        data_at = pos + 4
        pos = data_at + ((size + 3) & ~3)
        ptype = state.parameter.parameter_type
        if state.parameter.object_ids:
            oid = state.parameter.object_ids[0]
            self.objects[oid] = EffectObject(oid, data or None, data_at)
        if usage == 0:
            if ptype in SHADER_TYPES:
                state.kind = StateKind.SHADER if data else StateKind.CONSTANT
                state.shader = data or None
                state.shader_offset = data_at
            elif ptype in (ParameterType.BOOL, ParameterType.INT, ParameterType.FLOAT, ParameterType.STRING):
                state.kind = StateKind.EXPRESSION
                state.expression = Expression(data, data_at)
            else:
                raise EffectError(at + 16, f"a computed value for a {ptype.name} state")
        elif usage == 1:
            state.kind = StateKind.PARAMETER
            state.reference = _cstring(data)
            if not state.reference:
                raise EffectError(data_at, "a parameter reference with an empty name")
        elif usage == 2:
            if len(data) < 4:
                raise EffectError(data_at, "an array selector too short for its name length")
            n = struct.unpack_from("<I", data)[0]
            if 4 + n > len(data):
                raise EffectError(data_at, f"an array selector's name of {n} bytes runs past its {len(data)} bytes")
            state.kind = StateKind.ARRAY_SELECTOR
            state.reference = _cstring(data[4 : 4 + n])
            state.expression = Expression(data[4 + n :], data_at + 4 + n)
        else:
            raise EffectError(at + 16, f"resource usage {usage} is not one D3DX knows (0-2)")
        return pos


def _cstring(data: bytes) -> str:
    return data.split(b"\0", 1)[0].decode("utf-8", errors="replace")


def _holds_objects(param: Parameter) -> bool:
    if param.parameter_class == ParameterClass.OBJECT:
        return True
    return param.parameter_class == ParameterClass.STRUCT and any(_holds_objects(m) for m in param.members)


def _copy_type(p: Parameter) -> Parameter:
    """A fresh Parameter of the same type: values, flags and annotations are
    per use; the members (types only, their values live in the parent's
    ``value``) are shared, so each use costs O(1) however big the type."""
    return Parameter(p.name, p.semantic, p.parameter_class, p.parameter_type, p.rows, p.columns, p.elements,
                     p.members, offset=p.offset)


def parse_effect(data: bytes | bytearray | memoryview) -> Effect:
    """Parse an fx_2_0 effect.  Raises ``EffectError`` (with the byte offset
    at fault and a plain sentence) for anything malformed."""
    try:
        return _Reader(bytes(data)).parse()
    except RecursionError:  # belt and braces: nesting is bounded above
        raise EffectError(-1, "the effect's structure nests too deeply") from None
