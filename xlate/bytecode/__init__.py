"""The bytecode layer: tables, the typed shader model, decoder, encoder,
constant table, disassembler and assembler.  Imports nothing above it."""

from .decoder import decode, decode_version
from .encoder import encode
from .model import (
    Comment,
    Declaration,
    DestOperand,
    Instruction,
    RelativeAddress,
    Shader,
    SourceOperand,
)
from .tables import Opcode, RegisterType, ShaderKind, ShaderVersion

__all__ = [
    "Comment", "Declaration", "DestOperand", "Instruction", "Opcode", "RegisterType",
    "RelativeAddress", "Shader", "ShaderKind", "ShaderVersion", "SourceOperand",
    "decode", "decode_version", "encode",
]
