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
from ...memo import remember
from ..layout import Layout
from . import stage_state
from .module import (DECORATION, E, STORAGE, VERSIONS, Module, OpDecorate, OpMemberDecorate, OpMemberName, OpName,
                     OpVariable, string_words)

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
# of them, the ones of the cached part (``__init__``): the private
# registers ("global") are each shader's own (``privates``)
IO_KINDS = {kind: storage for kind, storage in COMMON_KINDS.items() if kind != "global"}
STD140_ARRAY_STRIDE = 16  # every array in the layout's blocks is of 16-byte registers
# first words of the instructions the common declarations write inline
VARIABLE_HEAD, VARIABLE_INIT_HEAD = (4 << 16) | OpVariable, (5 << 16) | OpVariable
LOCATION, CENTROID, OFFSET = DECORATION["Location"], DECORATION["Centroid"], DECORATION["Offset"]
LOCATION_HEAD, CENTROID_HEAD, OFFSET_HEAD = (4 << 16) | OpDecorate, (3 << 16) | OpDecorate, (5 << 16) | OpMemberDecorate
UNIFORM, UNIFORM_CONSTANT, PRIVATE = STORAGE["Uniform"], STORAGE["UniformConstant"], STORAGE["Private"]
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


@dataclass(frozen=True, slots=True)
class Place:
    """Where a layout name lives in the module.  Frozen: modules share one
    per field set between shaders (``_PLACES``)."""

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


# Memos shared by every interface built in the process (names and places
# recur from shader to shader; each is a pure function of its key):
# a name -> (OpName's first word, the name's words), the same for
# OpMemberName, and a Place's fields -> the Place (never changed once made).
# Each is bounded (``xlate.memo``).
NAME_WORDS: dict = {}
MEMBER_NAME_WORDS: dict = {}
_PLACES: dict = {}
_MEMO_MAX = 8192


def _name_entry(text: str) -> tuple:
    return remember(NAME_WORDS, text, _name_words(text, 1), _MEMO_MAX)


def _member_name_entry(text: str) -> tuple:
    return remember(MEMBER_NAME_WORDS, text, _name_words(text, 2), _MEMO_MAX)


def _place(key: tuple, place: Place) -> Place:
    return remember(_PLACES, key, place, _MEMO_MAX)


_SEEDS: dict = {}  # SPIR-V version word -> _common_seed's table


def _common_seed(m: Module) -> dict:
    """``Interface``'s table of common declarations, with the entries whose
    type, pointer and initializer every module has from ``Module.start``
    (vec4 inputs, outputs and private registers): their first declaration
    makes no new id, so looking them up gives the same ids and words."""
    seed = _SEEDS.get(m.version)
    if seed is None:
        seed = {}
        probe = Module.start(next(name for name, word in VERSIONS.items() if word == m.version))
        iface = Interface.__new__(Interface)
        iface.m, iface.vectors = probe, {}
        for kind, storage in COMMON_KINDS.items():
            bound, words = probe.bound, len(probe.globals)
            t = iface.vector_type(("float", 4))
            init = iface._zero("float", 4) if kind == "global" else None
            ptr = probe.pointer(storage, t)
            if probe.bound == bound and len(probe.globals) == words:  # nothing new: in every module
                seed[(kind, "vec4")] = (t, ptr, STORAGE[storage], init, storage)
        _SEEDS[m.version] = seed
    return seed


def _decl_keys(decls) -> tuple:
    """The fields of each declaration that make its words (``_signature``'s
    part for them).  (Attribute loads in a comprehension: faster than
    operator.attrgetter, whose generic lookups miss the interpreter's
    specialised ones.)"""
    return tuple([(d.kind, d.name, d.type, d.array, d.location, d.binding, d.set, d.centroid, d.constant_id, d.init)
                  for d in decls])


class Interface:
    """The module's variables for one layout.  Slotted: a cache hit makes
    one per shader and sets each of these."""

    __slots__ = ("m", "places", "io", "shared", "depth", "names", "locations", "vectors", "builtins", "plain_info")

    def __init__(self, m: Module, lay: Layout, names: bool, decl_keys: tuple | None = None):
        """``decl_keys``: the declarations' fields as ``_signature`` reads
        them (one tuple per declaration of ``lay.decls``), when the caller
        has them already."""
        self.m = m
        self.places: dict[str, Place] = {}
        self.io: list[int] = []  # Input/Output variables, for OpEntryPoint
        self.shared = False  # whether places and io are the interface cache's (``build``)
        self.depth = False
        self.names = names
        self.locations: dict = {}  # (storage class, location) -> the name there
        self.vectors: dict = {}  # (scalar kind, width) -> type id
        # (declaration kind, GLSL type) -> (type, pointer type, storage class
        # number, initializer or None, storage class); the vec4 ones are in
        # every module from its start (``_common_seed``)
        common = _common_seed(m).copy()
        common_get = common.get
        places, io, locations = self.places, self.io, self.locations
        io_append, taken_at = io.append, locations.setdefault
        place_get = _PLACES.get
        globals_, annotations = m.globals, m.annotations
        names_out = m.names if names else None
        decls = lay.decls
        if decl_keys is None:
            decl_keys = _decl_keys(decls)
        for k, (kind, name, gtype, array, location, _, _, centroid, _, _) in enumerate(decl_keys):
            if kind == "global":  # (``build`` leaves them out of the cached part: ``privates`` writes them)
                raise ValueError(f"private register {name} among an interface's cached declarations")
            found = common_get((kind, gtype)) if array is None else None
            if found is None:
                storage = IO_KINDS.get(kind)
                if storage is None or array is not None:
                    self._decl(decls[k])
                    continue
                # The first input or output of its kind and type: its type
                # and pointer, made in _decl's order (the same ids)
                split = SPLIT.get(gtype) or _split(gtype)
                t = self.vector_type(split)
                v = m.bound
                m.bound = v + 1
                sc = STORAGE[storage]
                ptr = m.pointer(storage, t)
                found = common[(kind, gtype)] = (t, ptr, sc, None, storage)
            else:
                v = m.bound
                m.bound = v + 1
            # The input or output, written here: what _decl would do, in
            # the same order (the same ids, the same words).
            t, ptr, sc, _, storage = found
            globals_ += (VARIABLE_HEAD, ptr, v, sc)
            io_append(v)
            if location is not None:
                taken = taken_at((storage, location), name)
                if taken != name:  # e.g. one semantic declared on two input registers
                    raise UnsupportedError(-1, f"{name} and {taken} would share location {location}")
                annotations += (LOCATION_HEAD, v, LOCATION, location)
            if centroid:
                annotations += (CENTROID_HEAD, v, CENTROID)
            key = (v, storage, t)
            place = place_get(key)
            if place is None:
                place = _place(key, Place(v, storage, None, t, None))
            places[name] = place
            if names_out is not None:
                head, text = NAME_WORDS.get(name) or _name_entry(name)
                names_out += (head, v)
                names_out += text
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
            types = m.types
            if dim == stage_state.SHADOW_DIM:
                image = stage_state.shadow_sampled_image(m)
            else:  # (sampled_image's types, looked up first: most modules have them already)
                image = types.get(("sampled", types.get(("image", dim)))) or m.sampled_image(dim)
            v = m.bound
            m.bound = v + 1
            ptr = types.get(("ptr", UNIFORM_CONSTANT, image)) or m.pointer(storage, image)
            m.globals += (VARIABLE_HEAD, ptr, v, UNIFORM_CONSTANT)
            m.annotations += (DECORATE1_HEAD, v, DESCRIPTOR_SET, d.set, DECORATE1_HEAD, v, BINDING, d.binding)
            if self.names:
                head, text = NAME_WORDS.get(d.name) or _name_entry(d.name)
                m.names += (head, v)
                m.names += text
            key = (v, storage, None, 0, None, False, dim)
            self.places[d.name] = _PLACES.get(key) or _place(key, Place(*key))
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
        types = m.types
        vectors = self.vectors
        members, parts = [], []
        for d in b.members:
            split = SPLIT.get(d.type) or _split(d.type)
            uint_bool = split[0] == "bool"
            if uint_bool:
                split = ("uint", split[1])
            t = vectors.get(split) or self.vector_type(split)
            length = d.array
            if length:
                whole = types.get(("array", t, length, STD140_ARRAY_STRIDE)) or m.array(t, length,
                                                                                        STD140_ARRAY_STRIDE)
                parts.append((d.name, whole, t, uint_bool, d.offset))
            else:
                whole = t
                parts.append((d.name, whole, None, uint_bool, d.offset))
            members.append(whole)
        s, v = m.block_variable(UNIFORM, members)
        annotations = m.annotations
        names = m.names if self.names else None
        places_out = self.places
        place_get = _PLACES.get
        for k, (name, whole, element, uint_bool, offset) in enumerate(parts):
            annotations += (OFFSET_HEAD, s, k, OFFSET, offset if offset is not None else 0)
            if names is not None:
                head, text = MEMBER_NAME_WORDS.get(name) or _member_name_entry(name)
                names += (head, s, k)
                names += text
            key = (v, "Uniform", k, whole, element, uint_bool)
            place = place_get(key)
            places_out[name] = place if place is not None else _place(key, Place(*key))
        annotations += (DECORATE1_HEAD, v, DESCRIPTOR_SET, b.set, DECORATE1_HEAD, v, BINDING, b.binding)
        if names is not None:
            head, text = NAME_WORDS.get(b.name) or _name_entry(b.name)
            names += (head, s)
            names += text

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

    def privates(self, decls) -> None:
        """The private registers ``decls`` (global declarations), written
        after the cached part of the interface: a variable each, zero
        initialised (an array: ``_decl``'s), in the shader's own copies of
        the places (the cache's are read only)."""
        m = self.m
        if self.shared:  # (io too: a later ``builtin`` adds to it, and ``shared`` covers both)
            self.places, self.io, self.plain_info, self.shared = \
                dict(self.places), list(self.io), dict(self.plain_info), False
        places, info = self.places, self.plain_info
        seed = _common_seed(m)  # the vec4 registers' type, pointer and initializer: in every module
        globals_ = m.globals
        names_out = m.names if self.names else None
        place_get = _PLACES.get
        for d in decls:
            if d.array is not None:
                self._decl(d)
                continue
            found = seed.get(("global", d.type))
            if found is None:
                kind, width = SPLIT.get(d.type) or _split(d.type)
                t = m.vector(self.scalar(kind), width)
                init = self._zero(kind, width)
                ptr = m.pointer("Private", t)
            else:
                t, ptr, _, init, _ = found
            v = m.bound
            m.bound = v + 1
            globals_ += (VARIABLE_INIT_HEAD, ptr, v, PRIVATE, init)
            name = d.name
            key = (v, "Private", t)
            place = place_get(key)
            places[name] = place if place is not None else _place(key, Place(v, "Private", None, t, None))
            info[name] = (v, t, True, None)
            if names_out is not None:
                head, text = NAME_WORDS.get(name) or _name_entry(name)
                names_out += (head, v)
                names_out += text

    def builtin(self, name: str) -> Place:
        """The variable of a GLSL built-in the layout reaches by name."""
        place = self.places.get(name)
        if place is None and self.shared:  # the cache's places and io: this shader's own copies first
            self.places, self.io, self.shared = dict(self.places), list(self.io), False
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
# 3,157 shaders have 444 interfaces between them, private registers left
# out (``privates``): 86% find theirs; 772 with them).  Not
# least recently used: moving a hit to the end would hash its long key
# twice more.
_BUILT: dict = {}
_BUILT_MAX = 1024


def _signature(lay: Layout, shared: int, vertex: bool, names: bool, version: int, builtins: tuple) -> tuple:
    """The cache key of the layout's interface: its first ``shared``
    declarations (all but the private registers), blocks and built-ins."""
    decls = _decl_keys(lay.decls[:shared])
    blocks = lay.blocks
    # each block's own fields and its member count, then every member's:
    # flat comprehensions (a nested one makes a function per block)
    heads = tuple([(b.name, b.set, b.binding, len(b.members)) for b in blocks])
    members = tuple([(d.name, d.type, d.array, d.offset) for b in blocks for d in b.members])
    return version, vertex, names, decls, heads, members, builtins


def build(version: str, lay: Layout, names: bool, vertex: bool, builtins: tuple) -> tuple[Module, Interface]:
    """A module started with the layout's interface (``Module.start``, the
    declarations and blocks, a vertex shader's gl_PerVertex, then the
    built-ins ``builtins`` names): the same module whether it is built now
    or copied from an earlier shader with the same interface.  The
    interface's ``places``, ``io`` and ``plain_info`` may be the cache's:
    read only (``builtin`` makes its own copies before it adds one).

    The private registers (temporaries, address registers, loop
    counters: the layout's last declarations) are not part of the cached
    interface: every shader writes its own after it (``privates``), so
    shaders that differ only in the temporaries they use share one."""
    decls = lay.decls
    shared = len(decls)
    while shared and decls[shared - 1].kind == "global":
        shared -= 1
    key = _signature(lay, shared, vertex, names, version, builtins)
    found = _BUILT.get(key)
    if found is None:
        m = Module.start(version)
        iface = Interface(m, lay, names, key[3])
        if vertex:
            iface.per_vertex()
        iface.builtins = builtins
        for name in builtins:
            iface.builtin(name)
        iface.plain_info = plain_info(iface.places)
        if len(_BUILT) >= _BUILT_MAX:
            del _BUILT[next(iter(_BUILT))]  # the oldest (dicts keep insertion order)
        # the module's words become the cached state's (no copy), and this
        # shader's module a restore of it, as a later one's is; its places
        # and io are the cache's from now on
        state = m.freeze()
        iface.io = tuple(iface.io)
        iface.shared = True
        _BUILT[key] = (state, iface.places, iface.io, iface.depth, iface.plain_info)
        m = iface.m = Module.restore(state)
    else:
        state, places, io, depth, info = found
        m = Module.restore(state)  # (its prefix packed by the first shader's to_bytes)
        iface = Interface.__new__(Interface)
        iface.m, iface.places, iface.io, iface.depth, iface.names, iface.shared = m, places, io, depth, names, True
        iface.builtins = builtins
        iface.plain_info = info
    if shared < len(decls):
        iface.privates(decls[shared:])
    return m, iface


def plain_info(places: dict) -> dict:
    """Name -> (variable, its type, writable?, member or None) of the
    places a register may be read or written whole through (not an array,
    not a bool kept as a uint): what the emitter's ``plain`` table needs
    of a place, worked out once per interface rather than per variable."""
    return {name: (place.var, place.value_type, place.storage != "Input", place.member)
            for name, place in places.items() if place.element_type is None and not place.uint_bool}
