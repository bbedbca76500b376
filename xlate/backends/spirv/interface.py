"""The layout's declarations (``layout.Layout``, the ``vulkan`` GLSL
target's) as SPIR-V variables, so both Vulkan targets bind alike and share
one reflection.

Every declaration and block member the layout names becomes a ``Place``:
the variable, the member of its block, and the types a load or store
through it needs.  GLSL built-ins the layout reaches by name
(``gl_Position`` ...) become variables decorated ``BuiltIn``.  std140
blocks keep the layout's member offsets; their arrays (16-byte strides)
are the explicitly laid out array types, apart from the private ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import UnsupportedError
from ..layout import Layout
from . import stage_state
from .module import (DECORATION, E, STORAGE, Module, OpDecorate, OpMemberDecorate, OpMemberName, OpName, OpVariable,
                     string_words)

# GLSL type name -> (scalar, width)
GLSL_SCALARS = {"float": "float", "vec": "float", "int": "int", "ivec": "int", "bool": "bool", "bvec": "bool"}
SAMPLER_DIMS = {"sampler2D": "2D", "samplerCube": "Cube", "sampler3D": "3D", "sampler2DShadow": stage_state.SHADOW_DIM}
# GLSL built-in -> (storage class, SPIR-V BuiltIn, scalar, width)
BUILTINS = {
    "gl_Position": ("Output", "Position", "float", 4),
    "gl_PointSize": ("Output", "PointSize", "float", 1),
    "gl_FragCoord": ("Input", "FragCoord", "float", 4),
    "gl_FrontFacing": ("Input", "FrontFacing", "bool", 1),
    "gl_FragDepth": ("Output", "FragDepth", "float", 1),
}
STORAGE_OF_KIND = {"vs_input": "Input", "fs_input": "Input", "vs_output": "Output", "fs_output": "Output",
                   "global": "Private", "sampler": "UniformConstant"}
# the declarations Interface writes inline (unless arrays): one variable each
COMMON_KINDS = {kind: storage for kind, storage in STORAGE_OF_KIND.items() if kind != "sampler"}
STD140_ARRAY_STRIDE = 16  # every array in the layout's blocks is of 16-byte registers
# first words of the instructions the common declarations write inline
VARIABLE_HEAD, VARIABLE_INIT_HEAD = (4 << 16) | OpVariable, (5 << 16) | OpVariable
LOCATION, CENTROID, OFFSET = DECORATION["Location"], DECORATION["Centroid"], DECORATION["Offset"]
LOCATION_HEAD, CENTROID_HEAD, OFFSET_HEAD = (4 << 16) | OpDecorate, (3 << 16) | OpDecorate, (5 << 16) | OpMemberDecorate
UNIFORM, UNIFORM_CONSTANT = STORAGE["Uniform"], STORAGE["UniformConstant"]
DECORATE1_HEAD = (4 << 16) | OpDecorate  # OpDecorate with one literal
DESCRIPTOR_SET, BINDING = DECORATION["DescriptorSet"], DECORATION["Binding"]
# gl_PerVertex (Interface.per_vertex), its words' parts
OUTPUT, BUILTIN = STORAGE["Output"], DECORATION["BuiltIn"]
POSITION, POINT_SIZE = E["BuiltIn"]["Position"], E["BuiltIn"]["PointSize"]
MEMBER_BUILTIN_HEAD = (5 << 16) | OpMemberDecorate


def _name_words(text: str, operands: int) -> tuple:
    """(first word, the string's words) of an OpName (``operands`` = 1) or
    OpMemberName (2) of ``text``."""
    words = string_words(text)
    return ((len(words) + 1 + operands) << 16) | (OpName if operands == 1 else OpMemberName), words


PER_VERTEX_NAME, EMPTY_NAME = _name_words("gl_PerVertex", 1), _name_words("", 1)
PER_VERTEX_MEMBERS = (_name_words("gl_Position", 2), _name_words("gl_PointSize", 2))


@dataclass(slots=True)
class Place:
    """Where a layout name lives in the module."""

    var: int  # the OpVariable
    storage: str  # its storage class
    member: int | None  # the member of its block, or None
    value_type: int  # type of the variable (or member) as a whole
    element_type: int | None  # arrays: the element's type; else None
    uint_bool: bool = False  # a bool kept as a uint (blocks cannot hold bools)
    sampler_dim: str | None = None


def _split(glsl: str) -> tuple[str, int]:
    if glsl[-1].isdigit() and glsl[:-1] in GLSL_SCALARS:
        return GLSL_SCALARS[glsl[:-1]], int(glsl[-1])
    return GLSL_SCALARS[glsl], 1


# every GLSL type name a layout declares -> (scalar, width)
SPLIT = {name: _split(name) for base in GLSL_SCALARS for name in
         ((base,) if not base.endswith("vec") else tuple(f"{base}{n}" for n in (2, 3, 4)))}


def split_type(glsl: str) -> tuple[str, int]:
    """"vec3" -> ("float", 3), "int" -> ("int", 1)."""
    found = SPLIT.get(glsl)
    return found if found is not None else _split(glsl)


class Interface:
    """The module's variables for one layout."""

    def __init__(self, m: Module, lay: Layout, names: bool):
        self.m = m
        self.places: dict[str, Place] = {}
        self.io: list[int] = []  # Input/Output variables, for OpEntryPoint
        self.depth = False
        self.names = names
        self.locations: dict = {}  # (storage class, location) -> the name there
        self.vectors: dict = {}  # (scalar kind, width) -> type id
        # (declaration kind, GLSL type) -> (type, pointer type, storage class, initializer or None)
        common: dict = {}
        places, io, locations = self.places, self.io, self.locations
        for d in lay.decls:
            kind = d.kind
            storage = COMMON_KINDS.get(kind)
            if storage is None or d.array is not None:
                self._decl(d)
                continue
            # The common declaration (an input, output or private register),
            # written here: what _decl would do, in the same order (the same
            # ids, the same words).
            key = (kind, d.type)
            found = common.get(key)
            if found is None:
                split = SPLIT.get(d.type) or _split(d.type)
                t = self.vector_type(split)
                init = self._zero(split[0], split[1]) if kind == "global" else None
                v = m.bound
                m.bound = v + 1
                sc = STORAGE[storage]
                ptr = m.pointer(storage, t)
                found = common[key] = (t, ptr, sc, init)
            else:
                t, ptr, sc, init = found
                v = m.bound
                m.bound = v + 1
            name = d.name
            if init is None:
                m.globals += (VARIABLE_HEAD, ptr, v, sc)
            else:
                m.globals += (VARIABLE_INIT_HEAD, ptr, v, sc, init)
            places[name] = Place(v, storage, None, t, None)
            if init is None:  # an input or output (a private register has an initializer)
                io.append(v)
                location = d.location
                if location is not None:
                    taken = locations.setdefault((storage, location), name)
                    if taken != name:  # e.g. one semantic declared on two input registers
                        raise UnsupportedError(-1, f"{name} and {taken} would share location {location}")
                    m.annotations += (LOCATION_HEAD, v, LOCATION, location)
                if d.centroid:
                    m.annotations += (CENTROID_HEAD, v, CENTROID)
            if names:
                text = string_words(name)
                m.names += (((len(text) + 2) << 16) | OpName, v, *text)
        for b in lay.blocks:
            self._block(b)

    def scalar(self, kind: str) -> int:
        m = self.m
        return m.float() if kind == "float" else m.int() if kind == "int" else m.int(False) if kind == "uint" \
            else m.bool()

    def type_of(self, glsl: str) -> int:
        kind, width = split_type(glsl)
        return self.m.vector(self.scalar(kind), width)

    def _zero(self, kind: str, width: int) -> int:
        m = self.m
        z = m.float_constant(0.0) if kind == "float" else m.int_constant(0) if kind == "int" else m.bool_constant(False)
        return z if width == 1 else m.composite_constant(m.vector(self.scalar(kind), width), (z,) * width)

    def _decl(self, d) -> None:
        """A declaration ``__init__`` does not write inline: a state
        parameter, a sampler, an array."""
        m = self.m
        kind = d.kind
        storage = STORAGE_OF_KIND.get(kind)
        if kind == "spec_constant":  # a draw-time state parameter: its value is the constant's id
            kind, _ = split_type(d.type)
            t = self.scalar(kind)
            default = d.init == "true" if kind == "bool" else int(d.init) if kind == "int" else float(d.init)
            c = m.spec_constant(t, d.constant_id, default)
            self._name(c, d.name)
            self.places[d.name] = Place(c, "SpecConstant", None, t, None)
            return
        if storage is None:  # "uniform": GL only, never in a Vulkan layout
            raise ValueError(f"declaration kind {d.kind} has no SPIR-V form")
        if d.kind == "sampler":  # (Module.variable, decorate and name, written out)
            dim = SAMPLER_DIMS[d.type]
            image = stage_state.shadow_sampled_image(m) if dim == stage_state.SHADOW_DIM else m.sampled_image(dim)
            v = m.bound
            m.bound = v + 1
            ptr = m.pointer(storage, image)
            m.globals += (VARIABLE_HEAD, ptr, v, UNIFORM_CONSTANT)
            m.annotations += (DECORATE1_HEAD, v, DESCRIPTOR_SET, d.set, DECORATE1_HEAD, v, BINDING, d.binding)
            if self.names:
                text = string_words(d.name)
                m.names += (((len(text) + 2) << 16) | OpName, v, *text)
            self.places[d.name] = Place(v, storage, None, 0, None, False, dim)
            return
        kind, width = split_type(d.type)
        t = m.vector(self.scalar(kind), width)
        whole = m.array(t, d.array)
        v = m.variable(storage, whole)
        self.places[d.name] = Place(v, storage, None, whole, t)
        if storage != "Private":
            self.io.append(v)
            if d.location is not None:
                taken = self.locations.setdefault((storage, d.location), d.name)
                if taken != d.name:
                    raise UnsupportedError(-1, f"{d.name} and {taken} would share location {d.location}")
                m.decorate(v, "Location", d.location)
            if d.centroid:
                m.decorate(v, "Centroid")
        self._name(v, d.name)

    def vector_type(self, split: tuple[str, int]) -> int:
        """The type id of a ("float", 4) pair, made on first use."""
        t = self.vectors.get(split)
        if t is None:
            t = self.vectors[split] = self.m.vector(self.scalar(split[0]), split[1])
        return t

    def _block(self, b) -> None:
        m = self.m
        members, places = [], []
        for d in b.members:
            split = SPLIT.get(d.type) or _split(d.type)
            uint_bool = split[0] == "bool"
            t = self.vector_type(("uint", split[1]) if uint_bool else split)
            if d.array:
                whole = m.array(t, d.array, STD140_ARRAY_STRIDE)
                places.append((d.name, whole, t, uint_bool))
            else:
                whole = t
                places.append((d.name, whole, None, uint_bool))
            members.append(whole)
        s, v = m.block_variable(UNIFORM, members)
        annotations = m.annotations
        names = m.names if self.names else None
        for k, d in enumerate(b.members):
            annotations += (OFFSET_HEAD, s, k, OFFSET, d.offset if d.offset is not None else 0)
            if names is not None:
                text = string_words(d.name)
                names += (((len(text) + 3) << 16) | OpMemberName, s, k, *text)
        annotations += (DECORATE1_HEAD, v, DESCRIPTOR_SET, b.set, DECORATE1_HEAD, v, BINDING, b.binding)
        if names is not None:
            text = string_words(b.name)
            names += (((len(text) + 2) << 16) | OpName, s, *text)
        places_out = self.places
        for k, (name, whole, element, uint_bool) in enumerate(places):
            places_out[name] = Place(v, "Uniform", k, whole, element, uint_bool)

    def per_vertex(self) -> None:
        """gl_Position and gl_PointSize as glslang declares them: members of
        an output block decorated BuiltIn (the validation layer finds a
        point size written only through such a member)."""
        m = self.m
        f = m.types["float"]
        v4 = m.types[("vec", f, 4)]
        s, v = m.block_variable(OUTPUT, (v4, f))  # (the names' words ready-made: PER_VERTEX_*)
        m.annotations += (MEMBER_BUILTIN_HEAD, s, 0, BUILTIN, POSITION, MEMBER_BUILTIN_HEAD, s, 1, BUILTIN, POINT_SIZE)
        self.io.append(v)
        if self.names:
            m.names += (PER_VERTEX_NAME[0], s, *PER_VERTEX_NAME[1], PER_VERTEX_MEMBERS[0][0], s, 0,
                        *PER_VERTEX_MEMBERS[0][1], PER_VERTEX_MEMBERS[1][0], s, 1, *PER_VERTEX_MEMBERS[1][1],
                        EMPTY_NAME[0], v, *EMPTY_NAME[1])
        self.places["gl_Position"] = Place(v, "Output", 0, v4, None)
        self.places["gl_PointSize"] = Place(v, "Output", 1, f, None)

    def builtin(self, name: str) -> Place:
        """The variable of a GLSL built-in the layout reaches by name."""
        place = self.places.get(name)
        if place is None and name not in BUILTINS:  # clip distances, the point coordinate
            place = self.places[name] = stage_state.builtin_place(self, name, self.builtins)
        if place is None:
            storage, builtin, kind, width = BUILTINS[name]
            m = self.m
            t = m.vector(self.scalar(kind), width)
            v = m.variable(storage, t)
            m.decorate_builtin(v, builtin)
            self._name(v, name)
            self.io.append(v)
            place = self.places[name] = Place(v, storage, None, t, None)
            if builtin == "FragDepth":
                self.depth = True
        return place

    def _name(self, target: int, text: str) -> None:
        if self.names:
            self.m.name(target, text)


# Interfaces already built: their key -> (the module's state after them,
# places, io, depth).  Shaders of one game (and of the corpora) share a few
# interfaces between thousands of shaders; building one costs more than
# the code of a median shader, copying a finished one a few lists.  The
# oldest one goes first when it is full (about 10 KiB each; fxc-wine's
# 3,157 shaders have 772 interfaces between them: 75% find theirs).  Not
# least recently used: moving a hit to the end would hash its long key
# twice more.
_BUILT: dict = {}
_BUILT_MAX = 1024


def _signature(lay: Layout, vertex: bool, names: bool, version: int, builtins: tuple) -> tuple:
    # (attribute loads in a comprehension: faster than operator.attrgetter,
    # whose generic lookups miss the interpreter's specialised ones)
    decls = tuple([(d.kind, d.name, d.type, d.array, d.location, d.binding, d.set, d.centroid, d.constant_id, d.init)
                   for d in lay.decls])
    blocks = tuple([(b.name, b.set, b.binding, tuple([(d.name, d.type, d.array, d.offset) for d in b.members]))
                    for b in lay.blocks])
    return version, vertex, names, decls, blocks, builtins


def build(version: str, lay: Layout, names: bool, vertex: bool, builtins: tuple) -> tuple[Module, Interface]:
    """A module started with the layout's interface (``Module.start``, the
    declarations and blocks, a vertex shader's gl_PerVertex, then the
    built-ins ``builtins`` names): the same module whether it is built now
    or copied from an earlier shader with the same interface."""
    key = _signature(lay, vertex, names, version, builtins)
    found = _BUILT.get(key)
    if found is None:
        m = Module.start(version)
        iface = Interface(m, lay, names)
        if vertex:
            iface.per_vertex()
        iface.builtins = builtins
        for name in builtins:
            iface.builtin(name)
        iface.plain_info = plain_info(iface.places)
        if len(_BUILT) >= _BUILT_MAX:
            del _BUILT[next(iter(_BUILT))]  # the oldest (dicts keep insertion order)
        # the module's words become the cached state's (no copy), and this
        # shader's module a restore of it, as a later one's is
        state = m.freeze()
        _BUILT[key] = (state, dict(iface.places), list(iface.io), iface.depth, iface.plain_info)
        m = iface.m = Module.restore(state)
        return m, iface
    state, places, io, depth, info = found
    m = Module.restore(state)
    iface = Interface.__new__(Interface)
    iface.m, iface.places, iface.io, iface.depth, iface.names = m, dict(places), list(io), depth, names
    iface.builtins = builtins
    iface.plain_info = info  # read only: shared with the cache
    return m, iface


def plain_info(places: dict) -> dict:
    """Name -> (variable, its type, writable?, member or None) of the
    places a register may be read or written whole through (not an array,
    not a bool kept as a uint): what the emitter's ``plain`` table needs
    of a place, worked out once per interface rather than per variable."""
    return {name: (place.var, place.value_type, place.storage != "Input", place.member)
            for name, place in places.items() if place.element_type is None and not place.uint_bool}
