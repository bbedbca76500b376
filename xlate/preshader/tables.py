"""FXLVM tables, written once as data: opcodes, register files, FourCCs.

FXLVM is the little virtual machine d3dx9 runs on the CPU for preshaders
(the ``PRES`` comment fxc puts in a shader taken from an effect) and for the
expressions of fx_2_0 effect states.  Its program is an FX token stream:

    0x4658MMmm                 version token ("FX" signature, major, minor)
    0xNNNNfffe 'CTAB' ...      the inputs (a D3DXSHADER_CONSTANTTABLE)
    0xNNNNfffe 'PRSI' ...      which shader constant registers it fills
    0xNNNNfffe 'CLIT' n d...   the literals, ``n`` IEEE doubles
    0xNNNNfffe 'FXLC' n ...    the instructions
    0x0000ffff                 END

An instruction is an opcode token (bit 31: the first input is a scalar
replicated over every component; bits 20-30: the operation; bits 0-15: the
component count), the input count, then each input and the output as
``[relative flag, file, offset]`` or, with the flag 1, ``[1, index file,
index offset, file, offset]``.  ``offset`` counts components: c3.y is 13.

Sources: Wine's dlls/d3dx9_36/preshader.c (its ``pres_op_info`` list is the
checklist, ``wine/effects.jsonl`` kind ``preshader_opcode``), MojoShader's
preshader parser and DXDecompiler's FXLVM reader (``movc``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

FX_SIGNATURE = 0x4658  # "FX": the high half of an FX stream's version token
COMMENT = 0xFFFE
END_TOKEN = 0x0000FFFF

# FourCCs as little-endian DWORDs.
FOURCC_PRES = 0x53455250
FOURCC_CTAB = 0x42415443
FOURCC_CLIT = 0x54494C43
FOURCC_FXLC = 0x434C5846
FOURCC_PRSI = 0x49535250

OPCODE_SHIFT = 20
OPCODE_MASK = 0x7FF00000
SCALAR_FLAG = 0x80000000
COMPONENT_MASK = 0x0000FFFF
MAX_COMPONENTS = 4
MAX_INPUTS = 8  # d3ds_dotswiz with 8 inputs is the widest
# The largest register file an output or temporary may index: Direct3D 9's
# biggest constant file (software vertex processing) has 8192 float4
# registers.  It bounds what an evaluator allocates for a hostile stream.
MAX_REGISTERS = 8192


class RegisterFile(enum.IntEnum):
    """The ``file`` field of an operand."""

    LITERAL = 1  # CLIT doubles
    INPUT = 2  # the preshader's inputs (CTAB constants), float
    OUTPUT = 4  # the shader's float constants c#
    OUTPUT_BOOL = 5  # the shader's bool constants b#
    OUTPUT_INT = 6  # the shader's int constants i#
    TEMP = 7  # r#

    @property
    def prefix(self) -> str:
        """The letter fxc prints: inputs and float outputs are both ``c``."""
        return _PREFIXES[self]

    @property
    def is_output(self) -> bool:
        return self in (RegisterFile.OUTPUT, RegisterFile.OUTPUT_BOOL, RegisterFile.OUTPUT_INT)


_PREFIXES = {
    RegisterFile.LITERAL: "l",
    RegisterFile.INPUT: "c",
    RegisterFile.OUTPUT: "c",
    RegisterFile.OUTPUT_BOOL: "b",
    RegisterFile.OUTPUT_INT: "i",
    RegisterFile.TEMP: "r",
}


class Reduction(enum.Enum):
    """How an operation uses the component count."""

    PER_COMPONENT = "per-component"  # out[j] = f(in0[j], in1[j], ...)
    DOT = "dot"  # out[0] = sum of in0[j] * in1[j] over the count
    DOTSWIZ = "dotswiz"  # scalar inputs: out = in0*in(n/2) + in1*in(n/2+1) + ...


@dataclass(frozen=True)
class OpcodeInfo:
    code: int  # bits 20-30 of the opcode token
    inputs: int
    mnemonic: str
    reduction: Reduction = Reduction.PER_COMPONENT


class FxlvmOpcode(enum.Enum):
    """Every FXLVM operation.  An operation is its code *and* input count
    (``d3ds_dotswiz`` comes with 6 or 8 inputs under one code)."""

    NOP = OpcodeInfo(0x000, 0, "nop")
    MOV = OpcodeInfo(0x100, 1, "mov")
    NEG = OpcodeInfo(0x101, 1, "neg")
    RCP = OpcodeInfo(0x103, 1, "rcp")
    FRC = OpcodeInfo(0x104, 1, "frc")
    EXP = OpcodeInfo(0x105, 1, "exp")
    LOG = OpcodeInfo(0x106, 1, "log")
    RSQ = OpcodeInfo(0x107, 1, "rsq")
    SIN = OpcodeInfo(0x108, 1, "sin")
    COS = OpcodeInfo(0x109, 1, "cos")
    ASIN = OpcodeInfo(0x10A, 1, "asin")
    ACOS = OpcodeInfo(0x10B, 1, "acos")
    ATAN = OpcodeInfo(0x10C, 1, "atan")
    MIN = OpcodeInfo(0x200, 2, "min")
    MAX = OpcodeInfo(0x201, 2, "max")
    LT = OpcodeInfo(0x202, 2, "lt")
    GE = OpcodeInfo(0x203, 2, "ge")
    ADD = OpcodeInfo(0x204, 2, "add")
    MUL = OpcodeInfo(0x205, 2, "mul")
    ATAN2 = OpcodeInfo(0x206, 2, "atan2")
    DIV = OpcodeInfo(0x208, 2, "div")
    CMP = OpcodeInfo(0x300, 3, "cmp")
    MOVC = OpcodeInfo(0x301, 3, "movc")
    DOT = OpcodeInfo(0x500, 2, "dot", Reduction.DOT)
    DOTSWIZ6 = OpcodeInfo(0x70E, 6, "d3ds_dotswiz", Reduction.DOTSWIZ)
    DOTSWIZ8 = OpcodeInfo(0x70E, 8, "d3ds_dotswiz", Reduction.DOTSWIZ)

    @property
    def code(self) -> int:
        return self.value.code

    @property
    def inputs(self) -> int:
        return self.value.inputs

    @property
    def mnemonic(self) -> str:
        return self.value.mnemonic

    @property
    def reduction(self) -> Reduction:
        return self.value.reduction


# (code, input count) -> opcode: how the decoder identifies an operation.
OPCODES_BY_CODE: dict[tuple[int, int], FxlvmOpcode] = {(op.code, op.inputs): op for op in FxlvmOpcode}
KNOWN_CODES = frozenset(op.code for op in FxlvmOpcode)
