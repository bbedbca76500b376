"""The decoded shader: typed, immutable, and encodable back to the same bytes.

One ``Shader`` holds the version, the instruction stream in file order
(comments included, so nothing is lost), and the parsed constant table.
Every field that the encoder needs is stored; every field the decoder
produces is typed (enums, dataclasses), never a raw dict.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Iterator, Union

from .tables import (
    COMPONENTS,
    FULL_MASK,
    IDENTITY_SWIZZLE,
    OPCODES,
    Comparison,
    DeclUsage,
    DstMod,
    Opcode,
    OpcodeInfo,
    RegisterType,
    SamplerType,
    ShaderVersion,
    SrcMod,
    TexControl,
    register_name,
    swizzle_components,
)


# Each class the decoder builds keeps its fields' slots in a bare base class
# (``_*Slots``), so that the decoder can fill an instance of the base and then
# make it the frozen class: see "Fast construction" below.


class _RelativeAddressSlots:
    __slots__ = ("type", "index", "swizzle", "implicit")


@dataclass(frozen=True, slots=True)
class RelativeAddress(_RelativeAddressSlots):
    """The address register that indexes an operand: ``a0.x`` or ``aL``.

    ``swizzle`` is kept whole so that the encoder reproduces the token
    exactly; the component actually used is ``swizzle & 3``.  ``implicit``
    marks vs_1_1's form, which has no extra token (a0.x is implied).
    """

    type: RegisterType
    index: int = 0
    swizzle: int = 0
    implicit: bool = False

    @property
    def component(self) -> int:
        return self.swizzle & 3


@dataclass(frozen=True, slots=True)
class Register:
    type: RegisterType
    index: int


class _SourceOperandSlots:
    __slots__ = ("type", "index", "swizzle", "modifier", "relative")


@dataclass(frozen=True, slots=True)
class SourceOperand(_SourceOperandSlots):
    type: RegisterType
    index: int
    swizzle: int = IDENTITY_SWIZZLE
    modifier: SrcMod = SrcMod.NONE
    relative: RelativeAddress | None = None

    @property
    def register(self) -> Register:
        return Register(self.type, self.index)

    @property
    def components(self) -> tuple[int, int, int, int]:
        return swizzle_components(self.swizzle)


_SATURATE = int(DstMod.SATURATE)
_PARTIALPRECISION = int(DstMod.PARTIALPRECISION)
_CENTROID = int(DstMod.CENTROID)


class _DestOperandSlots:
    __slots__ = ("type", "index", "write_mask", "modifiers", "shift", "relative")


@dataclass(frozen=True, slots=True)
class DestOperand(_DestOperandSlots):
    type: RegisterType
    index: int
    write_mask: int = FULL_MASK
    modifiers: DstMod = DstMod.NONE
    shift: int = 0  # ps_1_x result shift k: the result is scaled by 2**k (signed 4-bit)
    relative: RelativeAddress | None = None

    @property
    def register(self) -> Register:
        return Register(self.type, self.index)

    # The flag tests go through int(): ``DstMod & DstMod`` is IntFlag's
    # Python-level __and__ (about 0.6 us), and the lifter asks for every
    # destination.

    @property
    def saturate(self) -> bool:
        return bool(int(self.modifiers) & _SATURATE)

    @property
    def partial_precision(self) -> bool:
        return bool(int(self.modifiers) & _PARTIALPRECISION)

    @property
    def centroid(self) -> bool:
        return bool(int(self.modifiers) & _CENTROID)

    @property
    def components(self) -> tuple[int, ...]:
        return tuple(i for i in range(4) if self.write_mask & (1 << i))


class _DeclarationSlots:
    __slots__ = ("raw",)


@dataclass(frozen=True, slots=True)
class Declaration(_DeclarationSlots):
    """The usage token of a DCL instruction, decoded.

    ``usage``/``usage_index`` are meaningful for VS inputs, vs_3_0 outputs
    and ps_3_0 inputs; ``sampler_type`` for ``s#``.  ``raw`` is the whole
    token, so that bits without a meaning (bit 31, the unused bit 4) survive
    a round trip.
    """

    raw: int

    @property
    def usage(self) -> DeclUsage | int:
        value = self.raw & 0xF
        return _DECL_USAGES.get(value, value)

    @property
    def usage_index(self) -> int:
        return (self.raw >> 16) & 0xF

    @property
    def sampler_type(self) -> SamplerType | int:
        value = (self.raw >> 27) & 0xF
        return _SAMPLER_TYPES.get(value, value)


# Raw value -> enum member: a dict look-up instead of an Enum call, which
# costs a try/except and about a microsecond.
_DECL_USAGES = {int(u): u for u in DeclUsage}
_SAMPLER_TYPES = {int(t): t for t in SamplerType}


class _InstructionSlots:
    __slots__ = ("opcode", "dst", "srcs", "control", "predicate", "coissue", "declaration", "literals", "offset")


@dataclass(frozen=True, slots=True)
class Instruction(_InstructionSlots):
    """One instruction.  ``offset`` is the byte offset of its opcode token."""

    opcode: Opcode
    dst: DestOperand | None = None
    srcs: tuple[SourceOperand, ...] = ()
    control: int = 0  # bits 16-23: comparison code or texld mode
    predicate: SourceOperand | None = None
    coissue: bool = False
    declaration: Declaration | None = None  # DCL only
    literals: tuple[int, ...] = ()  # DEF/DEFI/DEFB raw DWORDs
    offset: int = field(default=-1, compare=False)

    @property
    def info(self) -> OpcodeInfo:
        return OPCODES[self.opcode]

    @property
    def predicated(self) -> bool:
        return self.predicate is not None

    @property
    def comparison(self) -> Comparison:
        return _COMPARISONS[self.control & 7]

    @property
    def tex_control(self) -> TexControl:
        return TexControl(self.control & 3)

    @property
    def float_values(self) -> tuple[float, ...]:
        """DEF literals as IEEE floats."""
        return struct.unpack("<4f", struct.pack("<4I", *self.literals))

    @property
    def int_values(self) -> tuple[int, ...]:
        """DEFI literals as signed int32."""
        return struct.unpack("<4i", struct.pack("<4I", *self.literals))

    @property
    def bool_value(self) -> bool:
        return bool(self.literals[0])


class _CommentSlots:
    __slots__ = ("data", "offset")


@dataclass(frozen=True, slots=True)
class Comment(_CommentSlots):
    """A comment block.  ``fourcc`` is the first four bytes when printable."""

    data: bytes
    offset: int = field(default=-1, compare=False)

    @property
    def fourcc(self) -> str | None:
        if len(self.data) < 4:
            return None
        tag = self.data[:4]
        if all(0x20 <= b < 0x7F for b in tag):
            return tag.decode("ascii")
        return None

    @property
    def payload(self) -> bytes:
        """The data after the FourCC."""
        return self.data[4:]


_COMPARISONS = tuple(Comparison(i) for i in range(8))  # indexed by the 3-bit code

Item = Union[Instruction, Comment]


class _ShaderSlots:
    # ``_instructions`` is no field: ``new_shader`` fills it (see ``Shader.instructions``).
    __slots__ = ("version", "items", "ctab", "diagnostics", "_instructions")


@dataclass(frozen=True, slots=True)
class Shader(_ShaderSlots):
    """A decoded shader.  ``items`` is the token stream in file order."""

    version: ShaderVersion
    items: tuple[Item, ...]
    ctab: "ConstantTable | None" = None  # noqa: F821 - see ctab.py
    # Problems that did not stop decoding (e.g. a malformed CTAB, which the
    # D3D9 runtime never reads either).
    diagnostics: tuple[str, ...] = field(default=(), compare=False)

    @property
    def instructions(self) -> tuple[Instruction, ...]:
        # The decoder hands them over as it goes (``new_shader``), sparing
        # every reader a pass over ``items``; a Shader built otherwise (the
        # constructor, ``dataclasses.replace``, unpickling) has no copy.
        try:
            return self._instructions
        except AttributeError:
            return tuple([i for i in self.items if isinstance(i, Instruction)])

    @property
    def comments(self) -> tuple[Comment, ...]:
        return tuple([i for i in self.items if isinstance(i, Comment)])

    def iter_instructions(self) -> Iterator[Instruction]:
        return (i for i in self.items if isinstance(i, Instruction))

    @property
    def stage(self) -> str:
        return "vertex" if self.version.is_vertex else "fragment"

    def register_name(self, rtype: RegisterType, index: int) -> str:
        return register_name(self.version, rtype, index)


def component_letters(components: tuple[int, ...]) -> str:
    return "".join(COMPONENTS[c] for c in components)


# --------------------------------------------------------------------------
# Fast construction, for the decoder
# --------------------------------------------------------------------------
#
# A frozen dataclass's __init__ stores each field with object.__setattr__,
# several times the cost of a plain attribute store; the decoder builds three
# or four of these objects per instruction, and the stores were a third of its
# time.  Each ``new_*`` function below instead creates an instance of the
# class's slots base (``_*Slots`` above, which holds the fields' slots: the
# dataclass adds none of its own), stores the fields plainly, then turns the
# object into the frozen class by assigning ``__class__`` (CPython allows that
# between classes whose instances have the same layout; with the slots in a
# shared base it checks that without comparing the slot names).  What comes
# out is an ordinary instance of the frozen class -- equal, hashable and
# immutable like any other -- so no reader can tell.  Every field is
# positional and required.  (Plain functions, not classes with an __init__:
# a Python-to-Python call is cheaper than calling a class.)

_new = object.__new__

# The layout the ``__class__`` assignments rely on: all slots in the base.
assert not any(cls.__slots__ for cls in (RelativeAddress, SourceOperand, DestOperand, Declaration, Instruction, Comment, Shader))


def new_relative_address(type, index, swizzle, implicit) -> RelativeAddress:
    self = _new(_RelativeAddressSlots)
    self.type = type
    self.index = index
    self.swizzle = swizzle
    self.implicit = implicit
    self.__class__ = RelativeAddress
    return self


def new_source_operand(type, index, swizzle, modifier, relative) -> SourceOperand:
    self = _new(_SourceOperandSlots)
    self.type = type
    self.index = index
    self.swizzle = swizzle
    self.modifier = modifier
    self.relative = relative
    self.__class__ = SourceOperand
    return self


def new_dest_operand(type, index, write_mask, modifiers, shift, relative) -> DestOperand:
    self = _new(_DestOperandSlots)
    self.type = type
    self.index = index
    self.write_mask = write_mask
    self.modifiers = modifiers
    self.shift = shift
    self.relative = relative
    self.__class__ = DestOperand
    return self


def new_declaration(raw) -> Declaration:
    self = _new(_DeclarationSlots)
    self.raw = raw
    self.__class__ = Declaration
    return self


def new_instruction(opcode, dst, srcs, control, predicate, coissue, declaration, literals, offset) -> Instruction:
    self = _new(_InstructionSlots)
    self.opcode = opcode
    self.dst = dst
    self.srcs = srcs
    self.control = control
    self.predicate = predicate
    self.coissue = coissue
    self.declaration = declaration
    self.literals = literals
    self.offset = offset
    self.__class__ = Instruction
    return self


def new_comment(data, offset) -> Comment:
    self = _new(_CommentSlots)
    self.data = data
    self.offset = offset
    self.__class__ = Comment
    return self


def new_shader(version, items, ctab, diagnostics, instructions) -> Shader:
    """(``instructions``: the Instructions of ``items``, in order.)"""
    self = _new(_ShaderSlots)
    self.version = version
    self.items = items
    self.ctab = ctab
    self.diagnostics = diagnostics
    self._instructions = instructions
    self.__class__ = Shader
    return self
