"""The exceptions xlate raises.

Every failure caused by the input (bytes or assembly text) is an ``XlateError``;
anything else escaping from xlate is a bug.  Bytecode errors carry the byte
offset of the token at fault, assembly errors the line and column.
"""

from __future__ import annotations


class XlateError(Exception):
    """Base class of every error xlate reports about its input."""


class OffsetError(XlateError):
    """An error about a binary input, at a byte offset.

    ``offset`` is the byte offset of the field at fault from the start of
    the input (-1 when the fault is the input as a whole: the message then
    has no offset); ``reason`` is a plain sentence without the offset.
    """

    def __init__(self, offset: int, reason: str):
        self.offset = offset
        self.reason = reason
        super().__init__(f"byte offset {offset} (0x{offset:x}): {reason}" if offset >= 0 else reason)

    def __reduce__(self):  # keep errors picklable for process pools
        return (type(self), (self.offset, self.reason))


class BytecodeError(OffsetError):
    """Malformed shader bytecode.

    ``offset`` is the byte offset of the offending token from the start of the
    blob (-1 when the fault is the shader as a whole, not one token: the
    message then has no offset); ``reason`` is a plain sentence without the
    offset.
    """


class TruncatedError(BytecodeError):
    """The stream ends in the middle of a token or an instruction."""


class VersionError(BytecodeError):
    """The version token is not a vs/ps version xlate knows."""


class NotAShaderError(VersionError):
    """The blob is an effect (fx_2_0) or another container, not a shader."""


class UnknownOpcodeError(BytecodeError):
    """The opcode field names no D3D9 instruction."""


class OpcodeVersionError(BytecodeError):
    """The instruction exists but not in this shader version."""


class LengthMismatchError(BytecodeError):
    """The SM2+ length field disagrees with the operands that follow."""


class OperandError(BytecodeError):
    """An operand has the wrong kind (e.g. a source where a destination belongs)."""


class RegisterError(BytecodeError):
    """A register type or index is not valid for this shader version."""


class ReservedBitsError(BytecodeError):
    """A reserved bit is set."""


class CommentOverrunError(BytecodeError):
    """A comment block runs past the end of the stream."""


class MissingEndError(BytecodeError):
    """The stream ends without an END token."""


class TrailingDataError(BytecodeError):
    """Bytes follow the END token."""


class CtabError(BytecodeError):
    """The CTAB constant table inside a comment is malformed."""


class EffectError(OffsetError):
    """A malformed fx_2_0 effect container.

    ``offset`` is the byte offset of the field at fault from the start of the
    effect (-1 when the fault is the effect as a whole); ``reason`` is a plain
    sentence without the offset.
    """


class AsmError(XlateError):
    """Assembly text that cannot be assembled."""

    def __init__(self, line: int, column: int, reason: str, source: str = "<asm>"):
        self.line = line
        self.column = column
        self.reason = reason
        self.source = source
        super().__init__(f"{source}:{line}:{column}: {reason}")

    def __reduce__(self):
        return (type(self), (self.line, self.column, self.reason, self.source))


class StructureError(BytecodeError):
    """Ill-formed control flow: ENDIF without IF, unbalanced loops, BREAK
    outside a loop, CALL to a missing label, recursion."""


class UnsupportedError(BytecodeError):
    """Valid bytecode using a feature this version of xlate cannot translate
    yet, or that the requested target cannot express."""


class PreshaderError(BytecodeError):
    """A preshader or effect expression (an FX token stream: ``CTAB``,
    ``CLIT``, ``FXLC``, ``PRSI``) is malformed.  ``offset`` is the byte
    offset of the field at fault in the blob that holds the stream."""
