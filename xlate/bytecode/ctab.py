"""The CTAB constant table that fxc puts in a comment after the version token.

Layout (``shared/semantics/D3D9_SEMANTICS.md`` section 1.8): a 28-byte
D3DXSHADER_CONSTANTTABLE header, an array of 20-byte D3DXSHADER_CONSTANTINFO
records, 16-byte D3DXSHADER_TYPEINFO records, 8-byte struct member records,
NUL-terminated strings and raw default values.  Every offset inside the table
counts from the first byte *after* the ``CTAB`` FourCC.

The table is untrusted input: every offset and count is checked against the
payload before it is followed, struct nesting is bounded and cycles are
refused, so a hostile table costs O(payload) time and memory and fails with a
``CtabError`` that names the absolute byte offset of the field at fault.

``format_ctab`` prints the table the way fxc's ``/Fc`` listing does.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass

from ..errors import CtabError
from ..memo import remember

# --------------------------------------------------------------------------
# Enums
# --------------------------------------------------------------------------


class RegisterSet(enum.IntEnum):
    BOOL = 0
    INT4 = 1
    FLOAT4 = 2
    SAMPLER = 3

    @property
    def prefix(self) -> str:
        """The register file letter fxc prints: b#, i#, c#, s#."""
        return "bics"[self]


class ParameterClass(enum.IntEnum):
    SCALAR = 0
    VECTOR = 1
    MATRIX_ROWS = 2
    MATRIX_COLUMNS = 3
    OBJECT = 4
    STRUCT = 5


class ParameterType(enum.IntEnum):
    VOID = 0
    BOOL = 1
    INT = 2
    FLOAT = 3
    STRING = 4
    TEXTURE = 5
    TEXTURE1D = 6
    TEXTURE2D = 7
    TEXTURE3D = 8
    TEXTURECUBE = 9
    SAMPLER = 10
    SAMPLER1D = 11
    SAMPLER2D = 12
    SAMPLER3D = 13
    SAMPLERCUBE = 14
    PIXELSHADER = 15
    VERTEXSHADER = 16
    PIXELFRAGMENT = 17
    VERTEXFRAGMENT = 18
    UNSUPPORTED = 19


# HLSL spelling of each type, as fxc prints it in the Parameters block.
_TYPE_NAMES = {
    ParameterType.VOID: "void",
    ParameterType.BOOL: "bool",
    ParameterType.INT: "int",
    ParameterType.FLOAT: "float",
    ParameterType.STRING: "string",
    ParameterType.TEXTURE: "texture",
    ParameterType.TEXTURE1D: "texture1D",
    ParameterType.TEXTURE2D: "texture2D",
    ParameterType.TEXTURE3D: "texture3D",
    ParameterType.TEXTURECUBE: "textureCUBE",
    ParameterType.SAMPLER: "sampler",
    ParameterType.SAMPLER1D: "sampler1D",
    ParameterType.SAMPLER2D: "sampler2D",
    ParameterType.SAMPLER3D: "sampler3D",
    ParameterType.SAMPLERCUBE: "samplerCUBE",
    ParameterType.PIXELSHADER: "pixelshader",
    ParameterType.VERTEXSHADER: "vertexshader",
    ParameterType.PIXELFRAGMENT: "pixelfragment",
    ParameterType.VERTEXFRAGMENT: "vertexfragment",
    ParameterType.UNSUPPORTED: "unsupported",
}


# --------------------------------------------------------------------------
# The parsed table
# --------------------------------------------------------------------------


# The fields' slots of each class live in a bare base class, for the parser's
# fast construction (see "Fast construction" in model.py).


class _StructMemberSlots:
    __slots__ = ("name", "type")


@dataclass(frozen=True, slots=True)
class StructMember(_StructMemberSlots):
    name: str
    type: "TypeInfo"


class _TypeInfoSlots:
    __slots__ = ("cls", "type", "rows", "columns", "elements", "members")


@dataclass(frozen=True, slots=True)
class TypeInfo(_TypeInfoSlots):
    """D3DXSHADER_TYPEINFO.  ``cls`` and ``type`` are enums, or ints when unknown."""

    cls: ParameterClass | int
    type: ParameterType | int
    rows: int
    columns: int
    elements: int
    members: tuple[StructMember, ...] = ()

    @property
    def is_struct(self) -> bool:
        return self.cls == ParameterClass.STRUCT

    @property
    def hlsl_name(self) -> str:
        """``float4``, ``float4x3``, ``row_major float4x4``, ``sampler2D`` (no array suffix)."""
        base = _TYPE_NAMES.get(self.type, f"<type {int(self.type)}>")
        if self.cls == ParameterClass.SCALAR or self.cls == ParameterClass.OBJECT:
            return base
        if self.cls == ParameterClass.VECTOR:
            return f"{base}{self.columns}"
        if self.cls == ParameterClass.MATRIX_COLUMNS:
            return f"{base}{self.rows}x{self.columns}"
        if self.cls == ParameterClass.MATRIX_ROWS:
            # fxc marks row-major matrices; column-major is the HLSL default.
            return f"row_major {base}{self.rows}x{self.columns}"
        if self.cls == ParameterClass.STRUCT:
            return "struct"
        return f"<class {int(self.cls)}> {base}"


class _ConstantSlots:
    __slots__ = ("name", "register_set", "register_index", "register_count", "type", "default_value")


@dataclass(frozen=True, slots=True)
class Constant(_ConstantSlots):
    """One D3DXSHADER_CONSTANTINFO record.

    The constant lives in registers ``[register_index, register_index +
    register_count)`` of ``register_set``.  fxc drops registers the shader
    never reads, so ``register_count`` can be smaller than the type's size:
    trust it over the type.
    """

    name: str
    register_set: RegisterSet | int
    register_index: int
    register_count: int
    type: TypeInfo
    default_value: bytes | None = None

    @property
    def register_end(self) -> int:
        return self.register_index + self.register_count

    def covers(self, register_set: int, register_index: int) -> bool:
        return (self.register_set == register_set
                and self.register_index <= register_index < self.register_end)

    @property
    def default_floats(self) -> tuple[float, ...] | None:
        """The default value as little-endian 32-bit floats, or ``None``.

        fxc writes defaults in c# as floats whatever the HLSL type (an int 32
        is 32.0), four per register.  A b# default is one 32-bit value per
        register, shown here as a float too; fxc's corpus only has ``false``
        (all-zero) there, so whether ``true`` is 1 or 1.0 is unconfirmed.
        """
        if self.default_value is None:
            return None
        n = len(self.default_value) // 4
        return struct.unpack_from(f"<{n}f", self.default_value)

    @property
    def default_registers(self) -> tuple[tuple[float, ...], ...] | None:
        """The default value split per register: (x, y, z, w) in c#/i#, (x,) in b#."""
        floats = self.default_floats
        if floats is None:
            return None
        width = 1 if self.register_set == RegisterSet.BOOL else 4
        return tuple(floats[i:i + width] for i in range(0, len(floats) - width + 1, width))


class _ConstantTableSlots:
    __slots__ = ("creator", "version_token", "flags", "target", "constants")


@dataclass(frozen=True, slots=True)
class ConstantTable(_ConstantTableSlots):
    creator: str
    version_token: int
    flags: int
    target: str
    constants: tuple[Constant, ...]

    def find(self, register_set: int, register_index: int) -> Constant | None:
        """The constant whose register range covers ``register_set``/``register_index``.

        Look-ups go by register, never by name: one HLSL variable can appear
        in two register sets (a bool used both in a branch and in maths).
        """
        for constant in self.constants:
            if constant.covers(register_set, register_index):
                return constant
        return None

    def by_name(self, name: str, register_set: int | None = None) -> Constant | None:
        """The first constant called ``name`` (in ``register_set`` when given)."""
        for constant in self.constants:
            if constant.name == name and (register_set is None or constant.register_set == register_set):
                return constant
        return None


# Fast construction for the parser: an instance of the slots base, plain
# stores, then it becomes the frozen class (see "Fast construction" in
# model.py for why).

_new = object.__new__
assert not any(cls.__slots__ for cls in (StructMember, TypeInfo, Constant, ConstantTable))


def _new_struct_member(name, type) -> StructMember:
    self = _new(_StructMemberSlots)
    self.name = name
    self.type = type
    self.__class__ = StructMember
    return self


def _new_type_info(cls, type, rows, columns, elements, members) -> TypeInfo:
    self = _new(_TypeInfoSlots)
    self.cls = cls
    self.type = type
    self.rows = rows
    self.columns = columns
    self.elements = elements
    self.members = members
    self.__class__ = TypeInfo
    return self


def _new_constant(name, register_set, register_index, register_count, type, default_value) -> Constant:
    self = _new(_ConstantSlots)
    self.name = name
    self.register_set = register_set
    self.register_index = register_index
    self.register_count = register_count
    self.type = type
    self.default_value = default_value
    self.__class__ = Constant
    return self


def _new_constant_table(creator, version_token, flags, target, constants) -> ConstantTable:
    self = _new(_ConstantTableSlots)
    self.creator = creator
    self.version_token = version_token
    self.flags = flags
    self.target = target
    self.constants = constants
    self.__class__ = ConstantTable
    return self


# --------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------

HEADER_SIZE = 28
CONSTANT_INFO_SIZE = 20
TYPE_INFO_SIZE = 16
MEMBER_INFO_SIZE = 8
MAX_STRUCT_DEPTH = 32

# One precompiled unpacker per record: one call reads a whole record.
_HEADER = struct.Struct("<7I")  # Size, Creator, Version, Constants, ConstantInfo, Flags, Target
_CONSTANT_INFO = struct.Struct("<I4H2I")  # Name, RegisterSet, RegisterIndex, RegisterCount, Reserved, TypeInfo, DefaultValue
_TYPE_INFO = struct.Struct("<6HI")  # Class, Type, Rows, Columns, Elements, StructMembers, StructMemberInfo
_MEMBER_INFO = struct.Struct("<2I")  # Name, TypeInfo
_U32 = struct.Struct("<I")

# Raw value -> enum member, a dict look-up instead of an Enum call in a
# try/except.  Unknown values stay plain ints: a table from a newer or odd
# compiler should still load; only the layout has to be sound.
_REGISTER_SETS = {int(m): m for m in RegisterSet}
_PARAMETER_CLASSES = {int(m): m for m in ParameterClass}
_PARAMETER_TYPES = {int(m): m for m in ParameterType}
# Members compared per record, as ints (reading one off its Enum class costs
# about 0.1 us in Python 3.11).
_BOOL = int(RegisterSet.BOOL)
_MATRIX_ROWS = int(ParameterClass.MATRIX_ROWS)
_MATRIX_COLUMNS = int(ParameterClass.MATRIX_COLUMNS)


class _Parser:
    """One pass over one table.  Offsets are payload offsets until ``error``
    adds ``base``."""

    def __init__(self, payload: bytes, base: int):
        self.data = bytes(payload)
        # The table as text, for ``string``: latin-1 maps every byte to the
        # character of that code, so the offsets are the same, an untrusted
        # name can never fail to decode, and one decoding serves all strings.
        self.text = self.data.decode("latin-1")
        self.base = base
        # Work and memory limits that keep hostile tables O(payload).
        # ``budget`` caps the expanded type tree: a real table spends at
        # least 8 bytes per struct member, so one node per byte is generous
        # while a DAG of shared structs cannot expand exponentially.
        # ``copy_budget`` caps the bytes copied out as names and default
        # values, which could otherwise overlap arbitrarily often.
        self.budget = max(64, len(self.data))
        self.copy_budget = 4 * len(self.data) + 4096
        self.strings: dict[int, str] = {}
        # Per TYPEINFO offset (fxc shares them between constants): the
        # parsed type, its expanded node count, and its footprint in
        # registers (c#/i#) and scalar components (b#) for sizing defaults.
        self.types: dict[int, tuple[TypeInfo, int, int, int]] = {}
        self.in_progress: set[int] = set()

    def error(self, offset: int, reason: str) -> CtabError:
        return CtabError(self.base + offset, reason)

    def u32(self, offset: int) -> int:
        return _U32.unpack_from(self.data, offset)[0]

    def check_range(self, field_at: int, start: int, size: int, what: str) -> None:
        """Raise unless ``size`` bytes at ``start`` lie inside the table; blame ``field_at``."""
        if start > len(self.data) or size > len(self.data) - start:
            raise self._range_error(field_at, start, size, what)

    def _range_error(self, field_at: int, start: int, size: int, what: str) -> CtabError:
        return self.error(
            field_at,
            f"the {what} at table offset 0x{start:x} ({size} bytes) runs past the end "
            f"of the {len(self.data)}-byte constant table",
        )

    def copy(self, field_at: int, start: int, end: int, what: str) -> bytes:
        self.copy_budget -= end - start
        if self.copy_budget < 0:
            raise self._overlap_error(field_at, what)
        return self.data[start:end]

    def _overlap_error(self, field_at: int, what: str) -> CtabError:
        return self.error(
            field_at,
            f"the {what} overlaps other data so often that the table would expand "
            f"past {4 * len(self.data) + 4096} bytes",
        )

    def string(self, start: int, field_at: int, what: str) -> str:
        """The string at table offset ``start``, read from the field at ``field_at``."""
        cached = self.strings.get(start)
        if cached is not None:
            return cached
        end = self.text.find("\0", start)
        if end < 0:  # (find finds nothing from an offset past the end either)
            if start >= len(self.data):
                raise self.error(
                    field_at,
                    f"the {what} string offset 0x{start:x} is outside the {len(self.data)}-byte constant table",
                )
            raise self.error(start, f"the {what} string at table offset 0x{start:x} has no NUL terminator")
        # As ``copy`` does, without building its message unless it is needed.
        self.copy_budget -= end - start
        if self.copy_budget < 0:
            raise self._overlap_error(field_at, f"{what} string")
        text = self.strings[start] = self.text[start:end]
        return text

    def type_info(self, offset: int, field_at: int, depth: int) -> tuple[TypeInfo, int, int, int]:
        """The type at table offset ``offset`` (read from the field at
        ``field_at``), parsed once per offset: (type, expanded node count,
        registers, components)."""
        known = self.types.get(offset)
        if known is None:
            known = self.types[offset] = self._parse_type(field_at, offset, depth)
        return known

    def _parse_type(self, field_at: int, offset: int, depth: int) -> tuple[TypeInfo, int, int, int]:
        if offset in self.in_progress:
            raise self.error(field_at, f"the type at table offset 0x{offset:x} contains itself")
        if depth > MAX_STRUCT_DEPTH:
            raise self.error(field_at, f"structs are nested more than {MAX_STRUCT_DEPTH} levels deep")
        if offset + TYPE_INFO_SIZE > len(self.data):  # check_range, message built only when needed
            raise self._range_error(field_at, offset, TYPE_INFO_SIZE, "type description")
        cls, typ, rows, columns, elements, nmembers, members_at = _TYPE_INFO.unpack_from(self.data, offset)
        count = elements or 1  # 1 for a non-array; tolerate 0
        size = 1
        members: list | tuple = ()
        if nmembers:
            members = []
            # Members are read whatever the class, so that a count that does
            # not fit is reported rather than silently ignored.
            self.check_range(offset + 10, members_at, nmembers * MEMBER_INFO_SIZE, "struct member array")
            self.in_progress.add(offset)
            registers = components = 0
            for at in range(members_at, members_at + nmembers * MEMBER_INFO_SIZE, MEMBER_INFO_SIZE):
                name_at, type_at = _MEMBER_INFO.unpack_from(self.data, at)
                name = self.string(name_at, at, "struct member name")
                member, member_size, member_registers, member_components = self.type_info(type_at, at + 4, depth + 1)
                size += member_size
                if size > self.budget:
                    raise self._too_big(at + 4)
                registers += member_registers
                components += member_components
                members.append(_new_struct_member(name, member))
            self.in_progress.discard(offset)
            registers *= count
            components *= count
        elif cls == _MATRIX_COLUMNS:
            registers, components = count * columns, count * rows * columns
        elif cls == _MATRIX_ROWS:
            registers, components = count * rows, count * rows * columns
        else:
            registers, components = count, count * rows * columns
        info = _new_type_info(
            _PARAMETER_CLASSES.get(cls, cls),
            _PARAMETER_TYPES.get(typ, typ),
            rows, columns, elements, tuple(members),
        )
        return info, size, registers, components

    def _too_big(self, field_at: int) -> CtabError:
        return self.error(
            field_at,
            f"the struct types expand to more than {self.budget} members, "
            f"more than a {len(self.data)}-byte table can describe",
        )

    def default_value(self, offset: int, field_at: int, register_set: int, registers: int, components: int) -> bytes:
        """The default value at table offset ``offset`` (not 0, which means
        none) of a constant whose type spans ``registers`` registers /
        ``components`` scalars."""
        # fxc writes a default for the type's whole footprint, not for the
        # (possibly trimmed) RegisterCount: a float4x4 with RegisterCount 3
        # still gets 4 registers, a float2[16] with RegisterCount 9 gets 16.
        # A c#/i# register takes 16 bytes (four floats; ints and bools that
        # live in c# are written as floats), a b# register 4 bytes.  This
        # rule sizes every default in the fxc-wine corpus (1,578 of them),
        # in vkd3d's compiler output and in Wine's d3dx9 test tables exactly.
        if register_set == _BOOL:
            size = components * 4
        else:
            size = registers * 16
        self.check_range(field_at, offset, size, "default value")
        return self.copy(field_at, offset, offset + size, "default value")

    def parse(self) -> ConstantTable:
        data = self.data
        if len(data) < HEADER_SIZE:
            raise self.error(
                0, f"the constant table is {len(data)} bytes long, too short for its {HEADER_SIZE}-byte header"
            )
        size, creator_at, version, count, info_at, flags, target_at = _HEADER.unpack_from(data, 0)
        if size != HEADER_SIZE:
            raise self.error(0, f"the constant table header size is {size}; it must be {HEADER_SIZE}")
        creator = self.string(creator_at, 4, "creator")
        target = self.string(target_at, 24, "target")
        if info_at > len(data) or count * CONSTANT_INFO_SIZE > len(data) - info_at:  # check_range, message built only when needed
            raise self._range_error(12, info_at, count * CONSTANT_INFO_SIZE, f"array of {count} constant descriptions")
        # The loop asks the string and type caches itself (``string`` and
        # ``type_info`` would, one call later), and then the common types.
        strings = self.strings
        types = self.types
        budget = self.budget
        expanded = 0  # type nodes expanded over all constants
        constants = []
        for at in range(info_at, info_at + count * CONSTANT_INFO_SIZE, CONSTANT_INFO_SIZE):
            name_at, register_set, index, register_count, _reserved, type_at, default_at = _CONSTANT_INFO.unpack_from(data, at)
            name = strings.get(name_at)
            if name is None:
                name = self.string(name_at, at, "constant name")
            known = types.get(type_at)
            if known is None:
                known = (_COMMON_TYPES or _common_types()).get(data[type_at:type_at + TYPE_INFO_SIZE])
                if known is None:
                    known = self.type_info(type_at, at + 12, 0)
                else:
                    types[type_at] = known  # as ``type_info`` would (struct members may share it)
            info, type_size, registers, components = known
            expanded += type_size
            if expanded > budget:
                raise self._too_big(at + 12)
            constants.append(_new_constant(
                name,
                _REGISTER_SETS.get(register_set, register_set),
                index,
                register_count,
                info,
                self.default_value(default_at, at + 16, register_set, registers, components) if default_at else None,
            ))
        return _new_constant_table(creator, version, flags, target, tuple(constants))


def _common_types() -> dict[bytes, tuple[TypeInfo, int, int, int]]:
    """The types nearly every table has -- scalars, vectors and matrices of
    bool, int and float, and the objects (samplers, textures), none an array
    or a struct -- by their 16-byte TYPEINFO record, parsed once here (by the
    parser itself) rather than in every table.  A constant's type is looked
    up here by its record's bytes; TypeInfo is immutable, so every table may
    share these.  Filled into ``_COMMON_TYPES`` on the first table parsed,
    not at import (which would cost every process that imports the decoder
    without reading a CTAB)."""
    shapes = [(ParameterClass.OBJECT, typ, 1, 1) for typ in ParameterType]
    shapes += [
        (cls, typ, rows, columns)
        for cls in (ParameterClass.SCALAR, ParameterClass.VECTOR, ParameterClass.MATRIX_ROWS, ParameterClass.MATRIX_COLUMNS)
        for typ in (ParameterType.BOOL, ParameterType.INT, ParameterType.FLOAT)
        for rows in range(1, 5)
        for columns in range(1, 5)
    ]
    table = {}
    for cls, typ, rows, columns in shapes:
        record = _TYPE_INFO.pack(cls, typ, rows, columns, 1, 0, 0)
        table[record] = _Parser(record, 0).type_info(0, 0, 0)
    _COMMON_TYPES.update(table)  # (all at once: a thread reading it sees all or nothing)
    return _COMMON_TYPES


_COMMON_TYPES: dict[bytes, tuple[TypeInfo, int, int, int]] = {}


def _other_type(record: bytes) -> tuple[TypeInfo, int, int, int] | None:
    """A type outside ``_COMMON_TYPES`` that is no struct (an array, say) by
    its 16-byte TYPEINFO record, parsed as ``_Parser`` parses it; None for a
    struct or a record cut short.  The last ``_OTHER_TYPES_LIMIT`` seen are
    kept (``_OTHER_TYPES``, emptied when full): the arrays of a corpus are a
    few dozen shapes."""
    known = _OTHER_TYPES.get(record)
    if known is None:
        if len(record) != TYPE_INFO_SIZE or record[10:12] != b"\0\0":  # StructMembers, a u16 at 10
            return None
        known = remember(_OTHER_TYPES, record, _Parser(record, 0).type_info(0, 0, 0), _OTHER_TYPES_LIMIT)
    return known


_OTHER_TYPES: dict[bytes, tuple[TypeInfo, int, int, int]] = {}
_OTHER_TYPES_LIMIT = 256


def parse_ctab(payload: bytes, base_offset: int = 0) -> ConstantTable:
    """Parse a CTAB comment.

    ``payload`` is the comment data after the ``CTAB`` FourCC; ``base_offset``
    is the absolute offset of ``payload[0]`` in the shader blob and is added to
    every error offset.  Raises ``CtabError`` and nothing else.

    The offset blamed is that of the field holding a bad offset or count
    (the header's count field for the ConstantInfo array), or the first byte
    of a string that has no NUL terminator.
    """
    payload = bytes(payload)
    return _parse_plain(payload) or _Parser(payload, base_offset).parse()


def _parse_plain(data: bytes) -> ConstantTable | None:
    """The table of a plain ``data`` -- every offset and count in range,
    every string terminated, every type one of ``_COMMON_TYPES``, nothing
    copied out past ``_Parser``'s budget -- as ``_Parser.parse`` makes it;
    None for any other table, which ``_Parser`` then reads (and judges).

    Nearly every real table is plain, and this reads it in one loop with no
    per-table caches or parser object: the table of a median fxc shader was
    a sixth of its decoding.  It accepts only what ``_Parser`` accepts: its
    checks are the parser's, and it counts every string it copies, where
    the parser counts each offset once, so it bails out no later."""
    size = len(data)
    if size < HEADER_SIZE:
        return None
    header_size, creator_at, version, count, info_at, flags, target_at = _HEADER.unpack_from(data, 0)
    if header_size != HEADER_SIZE or info_at > size or count * CONSTANT_INFO_SIZE > size - info_at:
        return None
    text = data.decode("latin-1")  # (as ``_Parser.text``)
    find = text.find
    creator_end = find("\0", creator_at)
    target_end = find("\0", target_at)
    if creator_end < 0 or target_end < 0:
        return None
    # What ``_Parser.copy_budget`` allows to be copied out.
    budget = 4 * size + 4096 - (creator_end - creator_at) - (target_end - target_at)
    common = _COMMON_TYPES or _common_types()
    constants = []
    for at in range(info_at, info_at + count * CONSTANT_INFO_SIZE, CONSTANT_INFO_SIZE):
        name_at, register_set, index, register_count, _reserved, type_at, default_at = _CONSTANT_INFO.unpack_from(data, at)
        name_end = find("\0", name_at)
        if name_end < 0:
            return None
        record = data[type_at:type_at + TYPE_INFO_SIZE]
        known = common.get(record) or _other_type(record)
        if known is None:
            return None
        budget -= name_end - name_at
        info, _, registers, components = known
        default = None
        if default_at:  # (as ``_Parser.default_value``)
            default_size = components * 4 if register_set == _BOOL else registers * 16
            if default_at > size or default_size > size - default_at:
                return None
            budget -= default_size
            default = data[default_at:default_at + default_size]
        # (``_new_constant``, written out)
        constant = _new(_ConstantSlots)
        constant.name = text[name_at:name_end]
        constant.register_set = _REGISTER_SETS.get(register_set, register_set)
        constant.register_index = index
        constant.register_count = register_count
        constant.type = info
        constant.default_value = default
        constant.__class__ = Constant
        constants.append(constant)
    if budget < 0:
        return None
    return _new_constant_table(text[creator_at:creator_end], version, flags, text[target_at:target_end], tuple(constants))


# --------------------------------------------------------------------------
# fxc's listing header
# --------------------------------------------------------------------------


# The longest name a listing or a terminal shows whole; a longer one is cut
# there and says how much was left out (a 64 KB name is one line of noise).
SHOWN_NAME_LIMIT = 256


def shown_name(name: str, limit: int = SHOWN_NAME_LIMIT) -> str:
    """A name from a shader (CTAB constant, struct member, creator string) as
    a listing or a terminal may show it: printable ASCII as is, every other
    character (newline, ESC, NUL, non-ASCII) and the backslash as ``\\xNN``,
    cut to ``limit`` characters.  The result holds no line break and no
    trailing backslash, so it cannot end a ``//`` comment line, continue it
    onto the next or send a terminal control sequence; the names fxc writes
    (identifiers) come out unchanged."""
    cut = len(name) - limit
    if cut > 0:
        name = name[:limit]
    if not name.isascii() or not name.isprintable() or "\\" in name:
        name = "".join(c if " " <= c <= "~" and c != "\\" else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}"
                       for c in name)
    return name + (f"...({cut} more characters)" if cut > 0 else "")


def _declaration(name: str, info: TypeInfo, indent: str) -> list[str]:
    name = shown_name(name)
    suffix = f"[{info.elements}]" if info.elements > 1 else ""
    if not info.is_struct:
        return [f"//{indent}{info.hlsl_name} {name}{suffix};"]
    inner = indent + "    "
    lines = [f"//{indent}struct", f"//{indent}{{"]
    lines += _declarations([(m.name, m.type) for m in info.members], inner)
    lines += ["//", f"//{indent}}} {name}{suffix};"]  # fxc's blank line here is not indented
    return lines


def _declarations(items: list[tuple[str, TypeInfo]], indent: str) -> list[str]:
    # fxc separates a struct from its neighbours with an indented empty
    # comment line (``//   ``, trailing blanks included); plain
    # declarations follow one another directly.
    lines: list[str] = []
    previous_struct = None
    for name, info in items:
        if previous_struct is not None and (previous_struct or info.is_struct):
            lines.append(f"//{indent}")
        lines += _declaration(name, info, indent)
        previous_struct = info.is_struct
    return lines


def _register_name(constant: Constant) -> str:
    if isinstance(constant.register_set, RegisterSet):
        return f"{constant.register_set.prefix}{constant.register_index}"
    return f"?{constant.register_set}:{constant.register_index}"


def format_ctab(ctab: ConstantTable) -> list[str]:
    """The constant-table part of fxc's ``/Fc`` listing header.

    Returns the lines fxc prints between the command-line banner (which
    ends with its own ``//`` line) and the blank line before the version
    instruction: ``//``, ``// Parameters:``, the declarations, ``//``,
    ``// Registers:``, the register table and a closing ``//``.  An empty
    table gives ``[]`` (fxc then prints no blank line either).  Lines have no
    line terminator; fxc itself writes CRLF.
    """
    if not ctab.constants:
        return []
    # The Parameters block lists each variable once, in table order (fxc
    # sorts the table by name, byte order); a variable living in two
    # register sets still gets two rows under Registers, which are ordered
    # b#, i#, c#, s# and by index within a set.
    seen: set[str] = set()
    params = []
    for constant in ctab.constants:
        if constant.name not in seen:
            seen.add(constant.name)
            params.append((constant.name, constant.type))
    lines = ["//", "// Parameters:", "//"]
    lines += _declarations(params, "   ")
    lines += ["//", "//", "// Registers:", "//"]

    names = {id(c): shown_name(c.name) for c in ctab.constants}
    width = max(12, *(len(name) for name in names.values()))
    lines.append(f"//   {'Name':<{width}} Reg   Size")
    lines.append(f"//   {'-' * width} ----- ----")
    for constant in sorted(ctab.constants, key=_register_order):
        lines.append(f"//   {names[id(constant)]:<{width}} {_register_name(constant):<5} {constant.register_count:>4}")
    lines.append("//")
    return lines


def _register_order(constant: Constant) -> tuple[int, int]:
    return (int(constant.register_set), constant.register_index)
