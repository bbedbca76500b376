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


@dataclass(frozen=True)
class RelativeAddress:
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


@dataclass(frozen=True)
class Register:
    type: RegisterType
    index: int


@dataclass(frozen=True)
class SourceOperand:
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


@dataclass(frozen=True)
class DestOperand:
    type: RegisterType
    index: int
    write_mask: int = FULL_MASK
    modifiers: DstMod = DstMod.NONE
    shift: int = 0  # ps_1_x result shift k: the result is scaled by 2**k (signed 4-bit)
    relative: RelativeAddress | None = None

    @property
    def register(self) -> Register:
        return Register(self.type, self.index)

    @property
    def saturate(self) -> bool:
        return bool(self.modifiers & DstMod.SATURATE)

    @property
    def partial_precision(self) -> bool:
        return bool(self.modifiers & DstMod.PARTIALPRECISION)

    @property
    def centroid(self) -> bool:
        return bool(self.modifiers & DstMod.CENTROID)

    @property
    def components(self) -> tuple[int, ...]:
        return tuple(i for i in range(4) if self.write_mask & (1 << i))


@dataclass(frozen=True)
class Declaration:
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
        try:
            return DeclUsage(value)
        except ValueError:
            return value

    @property
    def usage_index(self) -> int:
        return (self.raw >> 16) & 0xF

    @property
    def sampler_type(self) -> SamplerType | int:
        value = (self.raw >> 27) & 0xF
        try:
            return SamplerType(value)
        except ValueError:
            return value


@dataclass(frozen=True)
class Instruction:
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
        return Comparison(self.control & 7)

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


@dataclass(frozen=True)
class Comment:
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


Item = Union[Instruction, Comment]


@dataclass(frozen=True)
class Shader:
    """A decoded shader.  ``items`` is the token stream in file order."""

    version: ShaderVersion
    items: tuple[Item, ...]
    ctab: "ConstantTable | None" = None  # noqa: F821 - see ctab.py
    # Problems that did not stop decoding (e.g. a malformed CTAB, which the
    # D3D9 runtime never reads either).
    diagnostics: tuple[str, ...] = field(default=(), compare=False)

    @property
    def instructions(self) -> tuple[Instruction, ...]:
        return tuple(i for i in self.items if isinstance(i, Instruction))

    @property
    def comments(self) -> tuple[Comment, ...]:
        return tuple(i for i in self.items if isinstance(i, Comment))

    def iter_instructions(self) -> Iterator[Instruction]:
        return (i for i in self.items if isinstance(i, Instruction))

    @property
    def stage(self) -> str:
        return "vertex" if self.version.is_vertex else "fragment"

    def register_name(self, rtype: RegisterType, index: int) -> str:
        return register_name(self.version, rtype, index)


def component_letters(components: tuple[int, ...]) -> str:
    return "".join(COMPONENTS[c] for c in components)
