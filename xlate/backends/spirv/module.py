"""A SPIR-V module builder: ids, the logical layout's sections, types and
constants made once each, and the binary.

Every instruction is a run of 32-bit words (``(word count << 16) | opcode``,
then its operands) appended to the list of the section it belongs to
(SPIR-V 2.4, "Logical Layout of a Module"); ``to_bytes`` writes the header
and the sections in order.  Opcodes and enumerants come from the grammar
(``grammar.py``), looked up by name once, at import.

Types and constants are deduplicated (SPIR-V forbids two identical
non-aggregate types; equal constants share an id so the module stays
small): each has a key, and asking for a key twice gives the first id.
Aggregate types that carry explicit layout decorations (arrays in uniform
blocks) are kept apart from their undecorated twins (private arrays):
Vulkan forbids explicit layout on Private storage.

Specialization constants (``spec_constant``) are never deduplicated: each
has its own ``SpecId`` (room for the draw-state issue's switches).
"""

from __future__ import annotations

import struct
import sys
from array import array

from ...memo import remember
from .grammar import grammar

G = grammar()
OP = {name: inst.opcode for name, inst in G.instructions.items()}
E = G.enums
GLSL_STD_450 = "GLSL.std.450"
# SPIR-V versions the writer emits -> the header's version word
VERSIONS = {"1.0": 0x00010000, "1.3": 0x00010300}
# Generator magic: 0 ("no registered tool"), which the specification allows.
GENERATOR = 0

_BASES: dict = {}  # version -> the snapshot of the module Module.start copies
_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")
_SWAP = sys.byteorder != "little"  # SPIR-V files here are little-endian

OpTypeVoid, OpTypeBool, OpTypeInt, OpTypeFloat = (OP[n] for n in ("OpTypeVoid", "OpTypeBool", "OpTypeInt",
                                                                   "OpTypeFloat"))
OpTypeVector, OpTypeArray, OpTypeStruct, OpTypePointer = (OP[n] for n in ("OpTypeVector", "OpTypeArray",
                                                                          "OpTypeStruct", "OpTypePointer"))
OpTypeFunction, OpTypeImage, OpTypeSampledImage = (OP[n] for n in ("OpTypeFunction", "OpTypeImage",
                                                                   "OpTypeSampledImage"))
OpConstant, OpConstantComposite, OpConstantTrue, OpConstantFalse = (
    OP[n] for n in ("OpConstant", "OpConstantComposite", "OpConstantTrue", "OpConstantFalse"))
OpSpecConstant, OpSpecConstantTrue, OpSpecConstantFalse = (OP[n] for n in ("OpSpecConstant", "OpSpecConstantTrue",
                                                                           "OpSpecConstantFalse"))
OpVariable, OpDecorate, OpMemberDecorate, OpName, OpMemberName = (
    OP[n] for n in ("OpVariable", "OpDecorate", "OpMemberDecorate", "OpName", "OpMemberName"))
OpSource, OpString, OpCapability, OpExtInstImport = (OP[n] for n in ("OpSource", "OpString", "OpCapability",
                                                                     "OpExtInstImport"))
OpMemoryModel, OpEntryPoint, OpExecutionMode = (OP[n] for n in ("OpMemoryModel", "OpEntryPoint",
                                                                "OpExecutionMode"))
DECORATION = E["Decoration"]
BLOCK = DECORATION["Block"]
CONSTANT_HEAD = (4 << 16) | OpConstant
STORAGE = E["StorageClass"]
SPEC_ID = DECORATION["SpecId"]


_STRINGS: dict[str, tuple[int, ...]] = {}  # memo of string_words: names repeat from shader to shader
_STRINGS_MAX = 8192


def string_words(text: str) -> tuple[int, ...]:
    """A LiteralString: UTF-8, NUL-terminated, padded to whole words."""
    found = _STRINGS.get(text)
    if found is None:
        data = text.encode("utf-8") + b"\0"
        data += b"\0" * (-len(data) % 4)
        found = remember(_STRINGS, text, struct.unpack(f"<{len(data) // 4}I", data), _STRINGS_MAX)
    return found


def f32_bits(value: float) -> int:
    """The float32 bit pattern of ``value``; beyond float32's range, ±inf
    (D3D values are float32, as the GLSL literals' reading rounds too)."""
    try:
        return _U32.unpack(_F32.pack(value))[0]
    except OverflowError:
        return 0xFF800000 if value < 0 else 0x7F800000


# The sections of a module, in the order the specification lays them out
# (the debug ones are left out when names are stripped).
SECTIONS = ("capabilities", "ext_imports", "memory_model", "entry_points", "execution_modes", "debug_strings",
            "names", "annotations", "globals", "functions")
DEBUG_SECTIONS = frozenset({"debug_strings", "names"})


def pack_words(words) -> bytes:
    """Words as little-endian bytes (array's machine words, swapped on a
    big-endian host: no format string to build and parse per call)."""
    a = array("I", words)
    if _SWAP:
        a.byteswap()
    return a.tobytes()


_FAST_PACK = array("I").itemsize == 4  # else a platform whose unsigned int is not 32 bits: struct
if not _FAST_PACK:  # struct, whatever the length
    def pack_words(words) -> bytes:  # noqa: F811 - the portable fallback of the one above
        return struct.pack(f"<{len(words)}I", *words)


class Module:
    """One module under construction.  Sections are lists of words, filled
    in any order (appended to: a section's words never change once written,
    but for the functions' forward branch targets); ``to_bytes`` lays them
    out as the specification orders them.  A slotted class: the emitter
    reads ``bound`` and the sections for nearly every instruction."""

    __slots__ = ("version", "bound", *SECTIONS, "types", "constants", "spec_ids", "glsl", "prefix", "packed", "state")

    def __init__(self, version: str = "1.0"):
        if version not in VERSIONS:
            raise ValueError(f"SPIR-V version must be one of {', '.join(VERSIONS)}, not {version!r}")
        self.version = VERSIONS[version]
        self.bound = 1
        self.capabilities: list[int] = []
        self.ext_imports: list[int] = []
        self.memory_model: list[int] = []
        self.entry_points: list[int] = []
        self.execution_modes: list[int] = []
        self.debug_strings: list[int] = []  # OpString, OpSource
        self.names: list[int] = []  # OpName, OpMemberName
        self.annotations: list[int] = []
        self.globals: list[int] = []  # types, constants, global variables
        self.functions: list[int] = []
        self.types: dict = {}  # key -> id
        self.constants: dict = {}  # (type id, bits or component ids) -> id
        self.spec_ids: set[int] = set()
        self.glsl: int | None = None  # the GLSL.std.450 import (``start``)
        # a restored module (``restore``): per section, the snapshot's
        # words, before this module's own
        self.prefix: tuple | None = None
        # the prefix's sections as machine-order bytes, where its state has
        # them (``to_bytes``), or None; the state it was restored from
        self.packed: tuple | None = None
        self.state: dict | None = None

    # -- ids and raw instructions -------------------------------------------

    def new_id(self) -> int:
        i = self.bound
        self.bound = i + 1
        return i

    @staticmethod
    def put(section: list[int], opcode: int, *operands: int) -> None:
        section.append(((len(operands) + 1) << 16) | opcode)
        section.extend(operands)

    def capability(self, name: str) -> None:
        self.put(self.capabilities, OpCapability, E["Capability"][name])

    def import_glsl(self) -> int:
        i = self.new_id()
        self.put(self.ext_imports, OpExtInstImport, i, *string_words(GLSL_STD_450))
        return i

    def set_memory_model(self) -> None:
        self.put(self.memory_model, OpMemoryModel, E["AddressingModel"]["Logical"], E["MemoryModel"]["GLSL450"])

    def entry_point(self, model: str, function: int, name: str, interface: list[int]) -> None:
        self.put(self.entry_points, OpEntryPoint, E["ExecutionModel"][model], function, *string_words(name),
                 *interface)

    def execution_mode(self, function: int, mode: str, *literals: int) -> None:
        self.put(self.execution_modes, OpExecutionMode, function, E["ExecutionMode"][mode], *literals)

    def source(self, language: str, version: int) -> None:
        self.put(self.debug_strings, OpSource, E["SourceLanguage"][language], version)

    def name(self, target: int, text: str) -> None:
        self.put(self.names, OpName, target, *string_words(text))

    def member_name(self, struct_id: int, member: int, text: str) -> None:
        self.put(self.names, OpMemberName, struct_id, member, *string_words(text))

    def decorate(self, target: int, decoration: str, *literals: int) -> None:
        self.put(self.annotations, OpDecorate, target, DECORATION[decoration], *literals)

    def decorate_builtin(self, target: int, builtin: str) -> None:
        self.put(self.annotations, OpDecorate, target, DECORATION["BuiltIn"], E["BuiltIn"][builtin])

    def member_decorate(self, struct_id: int, member: int, decoration: str, *literals: int) -> None:
        self.put(self.annotations, OpMemberDecorate, struct_id, member, DECORATION[decoration], *literals)

    # -- types ----------------------------------------------------------------

    def _type(self, key, opcode: int, *operands: int) -> int:
        t = self.types.get(key)
        if t is None:
            t = self.types[key] = self.new_id()
            self.put(self.globals, opcode, t, *operands)
        return t

    def void(self) -> int:
        return self._type("void", OpTypeVoid)

    def bool(self) -> int:
        return self._type("bool", OpTypeBool)

    def int(self, signed: bool = True) -> int:
        return self._type("int" if signed else "uint", OpTypeInt, 32, 1 if signed else 0)

    def float(self) -> int:
        return self._type("float", OpTypeFloat, 32)

    def vector(self, component: int, n: int) -> int:
        return component if n == 1 else self._type(("vec", component, n), OpTypeVector, component, n)

    def array(self, element: int, length: int, stride: int | None = None) -> int:
        """``element[length]``; ``stride``: an explicitly laid out array
        (uniform blocks) with that ArrayStride, kept apart from the plain one."""
        key = ("array", element, length, stride)
        t = self.types.get(key)
        if t is None:
            t = self._type(key, OpTypeArray, element, self.uint_constant(length))
            if stride is not None:
                self.decorate(t, "ArrayStride", stride)
        return t

    def block_variable(self, storage_class: int, members: tuple) -> tuple[int, int]:
        """(struct, variable): a new struct type of ``members`` decorated
        Block (never shared: a block carries its own decorations), its
        pointer type in ``storage_class`` (a ``STORAGE`` number) and a
        variable of it; the ids in that order, one write per section (the
        interface makes one per uniform block and gl_PerVertex)."""
        s = self.bound
        v, ptr = s + 1, s + 2
        self.bound = s + 3
        self.types[("ptr", storage_class, s)] = ptr  # (``pointer``'s key: the type is new)
        self.globals += (((2 + len(members)) << 16) | OpTypeStruct, s, *members,
                         (4 << 16) | OpTypePointer, ptr, storage_class, s,
                         (4 << 16) | OpVariable, ptr, v, storage_class)
        self.annotations += ((3 << 16) | OpDecorate, s, BLOCK)
        return s, v

    def pointer(self, storage: str, pointee: int) -> int:
        sc = STORAGE[storage]
        return self._type(("ptr", sc, pointee), OpTypePointer, sc, pointee)

    def function_type(self, result: int) -> int:
        return self._type(("fn", result), OpTypeFunction, result)

    def sampled_image(self, dim: str) -> int:
        image = self._type(("image", dim), OpTypeImage, self.float(), E["Dim"][dim], 0, 0, 0, 1,
                           E["ImageFormat"]["Unknown"])
        return self._type(("sampled", image), OpTypeSampledImage, image)

    # -- constants ------------------------------------------------------------

    def scalar_constant(self, type_id: int, bits: int) -> int:
        key = (type_id, bits)
        c = self.constants.get(key)
        if c is None:
            c = self.constants[key] = self.bound
            self.bound = c + 1
            self.globals += (CONSTANT_HEAD, type_id, c, bits)
        return c

    def float_constant(self, value: float) -> int:
        return self.scalar_constant(self.float(), f32_bits(value))

    def int_constant(self, value: int) -> int:
        # (the int type, made first as before, then the constant, in one call)
        t = self.types.get("int") or self.int()
        key = (t, int(value) & 0xFFFFFFFF)
        c = self.constants.get(key)
        return c if c is not None else self.scalar_constant(*key)

    def uint_constant(self, value: int) -> int:
        return self.scalar_constant(self.int(False), int(value) & 0xFFFFFFFF)

    def bool_constant(self, value: bool) -> int:
        key = ("bool", bool(value))
        c = self.constants.get(key)
        if c is None:
            c = self.constants[key] = self.new_id()
            self.put(self.globals, OpConstantTrue if value else OpConstantFalse, self.bool(), c)
        return c

    def composite_constant(self, type_id: int, components: tuple[int, ...]) -> int:
        key = (type_id, components)
        c = self.constants.get(key)
        if c is None:
            c = self.constants[key] = self.new_id()
            self.put(self.globals, OpConstantComposite, type_id, c, *components)
        return c

    def spec_constant(self, type_id: int, spec_id: int, default) -> int:
        """A specialization constant with ``SpecId`` = ``spec_id`` (unique in
        the module): a bool (``type_id`` = ``bool()``) or a 32-bit scalar
        whose default is ``default`` (float, or int bits)."""
        if spec_id in self.spec_ids:
            raise ValueError(f"SpecId {spec_id} is used twice")
        self.spec_ids.add(spec_id)
        c = self.new_id()
        if type_id == self.types.get("bool"):
            self.put(self.globals, OpSpecConstantTrue if default else OpSpecConstantFalse, type_id, c)
        else:
            bits = f32_bits(default) if type_id == self.types.get("float") else int(default) & 0xFFFFFFFF
            self.put(self.globals, OpSpecConstant, type_id, c, bits)
        self.decorate(c, "SpecId", spec_id)
        return c

    # -- variables ------------------------------------------------------------

    def variable(self, storage: str, pointee: int, initializer: int | None = None) -> int:
        v = self.new_id()
        ptr = self.pointer(storage, pointee)
        if initializer is None:
            self.put(self.globals, OpVariable, ptr, v, STORAGE[storage])
        else:
            self.put(self.globals, OpVariable, ptr, v, STORAGE[storage], initializer)
        return v

    # -- a common start -------------------------------------------------------

    @classmethod
    def start(cls, version: str = "1.0") -> "Module":
        """A module that already holds what every shader's does (capability
        Shader, the GLSL.std.450 import as ``glsl``, the memory model, void
        and its function type, float, vec4, int, bool, bvec4, 0.0, 1.0 and vec4(0.0)
        and the vec4 pointers of the interface and the registers): a copy
        of one built once per version, cheaper than building them anew."""
        state = _BASES.get(version)
        if state is None:
            base = cls(version)
            base.capability("Shader")
            base.glsl = base.import_glsl()
            base.set_memory_model()
            base.function_type(base.void())
            f = base.float()
            v4 = base.vector(f, 4)
            base.int()
            base.vector(base.bool(), 4)
            zero = base.float_constant(0.0)
            base.float_constant(1.0)
            base.composite_constant(v4, (zero,) * 4)
            for storage in ("Input", "Output", "Private"):
                base.pointer(storage, v4)
            state = _BASES[version] = base.snapshot()
        return cls.restore(state)

    def snapshot(self) -> dict:
        """The module's state, for ``restore`` (containers copied)."""
        state = {"version": self.version, "bound": self.bound, "glsl": self.glsl, "types": self.types.copy(),
                 "constants": self.constants.copy(), "spec_ids": self.spec_ids.copy()}
        prefix = self.prefix
        state["prefix"] = tuple([getattr(self, name).copy() if prefix is None or not prefix[k]
                                 else prefix[k] + getattr(self, name) for k, name in enumerate(SECTIONS)])
        return state

    def freeze(self) -> dict:
        """``snapshot``'s state, made of this module's own containers, not
        copies: the module must not be written to afterwards (``restore``
        the state instead, which copies what a module changes).  A
        section's words go into the state's prefix as they are (after the
        module's own prefix, where it has one); prefixes are only read."""
        prefix = self.prefix or ((),) * len(SECTIONS)
        sections = (self.capabilities, self.ext_imports, self.memory_model, self.entry_points, self.execution_modes,
                    self.debug_strings, self.names, self.annotations, self.globals, self.functions)
        return {"version": self.version, "bound": self.bound, "glsl": self.glsl, "types": self.types,
                "constants": self.constants, "spec_ids": self.spec_ids,
                "prefix": tuple([(before + words if words else before) if before else words
                                 for before, words in zip(prefix, sections)])}

    @classmethod
    def restore(cls, state: dict) -> "Module":
        """A module in the state ``snapshot`` took.  Its sections start empty:
        the snapshot's words are its ``prefix`` (read, never written: every
        section is appended to, and only the functions, never in a
        snapshot, are patched), so a restore copies no word list (the
        copies were a third of an interface cache hit)."""
        m = cls.__new__(cls)
        m.version = state["version"]
        m.bound = state["bound"]
        m.capabilities = []
        m.ext_imports = []
        m.memory_model = []
        m.entry_points = []
        m.execution_modes = []
        m.debug_strings = []
        m.names = []
        m.annotations = []
        m.globals = []
        m.functions = []
        m.types = state["types"].copy()
        m.constants = state["constants"].copy()
        m.spec_ids = state["spec_ids"].copy()
        m.glsl = state["glsl"]
        m.prefix = state["prefix"]
        m.packed = state.get("packed")
        m.state = state
        return m

    # -- the binary -----------------------------------------------------------

    def section(self, k: int) -> list[int]:
        """All the words of section number ``k`` (of ``SECTIONS``), a
        restored module's prefix included."""
        words = getattr(self, SECTIONS[k])
        return words if self.prefix is None or not self.prefix[k] else self.prefix[k] + words

    def has_capability(self, name: str) -> bool:
        """Whether the module declares OpCapability ``name`` already."""
        return E["Capability"][name] in self.section(0)[1::2]

    def word_list(self, *, debug: bool = True) -> list[int]:
        words = [G.magic, self.version, GENERATOR, self.bound, 0]
        prefix = self.prefix
        for k, name in enumerate(SECTIONS):
            if debug or name not in DEBUG_SECTIONS:
                if prefix is not None:
                    words += prefix[k]
                words += getattr(self, name)
        return words

    def words(self, *, debug: bool = True) -> array:
        return array("I", self.word_list(debug=debug))

    def _write_packing(self, a: array, debug: bool) -> bytes:
        """``to_bytes`` of the first module restored from its state: each
        prefix's words written as ``to_bytes`` writes them, and kept, as
        they lie in ``a`` (machine order), as the state's ``packed``: every
        later module restored from it (the interface cache restores its
        states for many shaders) copies those bytes rather than converting
        each word again.  The packed bytes say what the prefix says;
        nothing else in the state changes.  (Written out, as ``to_bytes``
        is: a loop over the sections cost more than the conversions.)"""
        prefix, add, n = self.prefix, a.fromlist, len
        s0 = n(a)
        add(prefix[0])
        s1 = n(a)
        add(self.capabilities)
        t1 = n(a)
        add(prefix[1])
        s2 = n(a)
        add(self.ext_imports)
        t2 = n(a)
        add(prefix[2])
        s3 = n(a)
        add(self.memory_model)
        t3 = n(a)
        add(prefix[3])
        s4 = n(a)
        add(self.entry_points)
        t4 = n(a)
        add(prefix[4])
        s5 = n(a)
        add(self.execution_modes)
        if debug:
            t5 = n(a)
            add(prefix[5])
            s6 = n(a)
            add(self.debug_strings)
            t6 = n(a)
            add(prefix[6])
            s7 = n(a)
            add(self.names)
        t7 = n(a)
        add(prefix[7])
        s8 = n(a)
        add(self.annotations)
        t8 = n(a)
        add(prefix[8])
        s9 = n(a)
        add(self.globals)
        t9 = n(a)
        add(prefix[9])
        s10 = n(a)
        add(self.functions)
        # the prefixes: slices of the module's bytes in machine order (the
        # entry points', execution modes' and functions' are empty: an
        # interface writes none); the debug sections' where this module
        # has none of them
        out = a.tobytes()
        debug_words = (out[4 * t5:4 * s6], out[4 * t6:4 * s7]) if debug else \
            (array("I", prefix[5]).tobytes(), array("I", prefix[6]).tobytes())
        self.packed = self.state["packed"] = (
            out[4 * s0:4 * s1], out[4 * t1:4 * s2], out[4 * t2:4 * s3], out[4 * t3:4 * s4] if s4 > t3 else b"",
            out[4 * t4:4 * s5] if s5 > t4 else b"", *debug_words, out[4 * t7:4 * s8], out[4 * t8:4 * s9],
            out[4 * t9:4 * s10] if s10 > t9 else b"")
        if _SWAP:
            a.byteswap()
            return a.tobytes()
        return out

    def to_bytes(self, *, debug: bool = True) -> bytes:
        """The module, little-endian on every host: each section's words
        (a restored module's prefix first) go straight into one array
        (``fromlist``), without the joined list ``word_list`` builds; a
        prefix whose state is packed (``_write_packing``) goes in as bytes."""
        prefix = self.prefix
        if not _FAST_PACK or prefix is None:
            return pack_words(self.word_list(debug=debug))
        # a restored module (every emitted one): its sections in order,
        # each after its prefix, written out (a loop over them cost more
        # than the copying); the prefix's packed bytes where its state has
        # them (machine order, as fromlist's words: one swap below for all)
        a = array("I", (G.magic, self.version, GENERATOR, self.bound, 0))
        add = a.fromlist
        packed = self.packed
        if packed is None and self.state is not None:
            packed = self.packed = self.state.get("packed")
            if packed is None:  # the first module restored from its state
                return self._write_packing(a, debug)
        if packed is None:
            put = add
        else:
            put, prefix = a.frombytes, packed
        put(prefix[0])
        add(self.capabilities)
        put(prefix[1])
        add(self.ext_imports)
        put(prefix[2])
        add(self.memory_model)
        put(prefix[3])
        add(self.entry_points)
        put(prefix[4])
        add(self.execution_modes)
        if debug:
            put(prefix[5])
            add(self.debug_strings)
            put(prefix[6])
            add(self.names)
        put(prefix[7])
        add(self.annotations)
        put(prefix[8])
        add(self.globals)
        put(prefix[9])
        add(self.functions)
        if _SWAP:
            a.byteswap()
        return a.tobytes()
