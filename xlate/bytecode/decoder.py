"""Bytes -> ``Shader``.

The decoder walks the token stream once (cost linear in its length), checks
every field against the tables, and raises a ``BytecodeError`` subclass with
the byte offset of the token at fault for anything it does not understand.
Nothing else escapes: every read is bounds-checked before it happens.

It reads an instruction in one of two ways.  Almost every instruction in a
real shader is *plain* (see "Precomputed tables" below): ``_plain_instruction``
reads those with a dict look-up per token and nothing else.  Anything else --
an error, or a rarer legal form: predication, co-issue, result shifts,
relative addressing -- goes to the general reader (``_instruction`` and
below), which checks one field at a time in the documented order and raises
the first error.  The plain reader only ever accepts what the general one
accepts and builds the same objects, so which reader ran is invisible.
"""

from __future__ import annotations

import struct
from typing import NoReturn

from ..errors import (
    CommentOverrunError,
    CtabError,
    LengthMismatchError,
    MissingEndError,
    NotAShaderError,
    OpcodeVersionError,
    OperandError,
    RegisterError,
    ReservedBitsError,
    TrailingDataError,
    TruncatedError,
    UnknownOpcodeError,
    VersionError,
)
from .ctab import parse_ctab
from .model import (
    Comment,
    Instruction,
    Item,
    RelativeAddress,
    Shader,
    SourceOperand,
    new_comment,
    new_declaration,
    new_dest_operand,
    new_instruction,
    new_relative_address,
    new_shader,
    new_source_operand,
)
from .tables import (
    BITS,
    DCL_RESERVED_MASK,
    DST_READ_OPCODES,
    FX_2_0_MAGIC,
    KNOWN_VERSIONS,
    OPCODES,
    PSEUDO_OPCODES,
    REGISTER_FILES,
    XNA_EFFECT_MAGIC,
    DstMod,
    Layout,
    Opcode,
    OpcodeInfo,
    RegisterFile,
    RegisterType,
    ShaderKind,
    ShaderVersion,
    SrcMod,
    register_type_bits,
)

R = RegisterType

# Operand roles, for messages and register checks.
_DST, _SRC, _PRED, _REL = "destination", "source", "predicate", "relative address"

# --------------------------------------------------------------------------
# Precomputed tables
# --------------------------------------------------------------------------
#
# Most tokens in real shaders are plain: an instruction token with no
# reserved, co-issue or predicate bit and a control value its opcode allows; a
# parameter token that names a register of this version, with no relative
# address, reserved bit or result shift.  The plain reader looks up a token's
# "key" -- every bit except the register number, the swizzle / write mask and
# (for instructions, in SM2+) the length field -- in a per-version dict built
# here from the tables; the value holds what the instruction or operand
# needs.  A miss is not an error, only not plain: the general reader then
# checks the instruction field by field.  These tables are read-only data,
# built once at import (a few milliseconds).


def _instruction_key(token: int) -> int:
    """Opcode (bits 0-15), control (16-23) and flag bits (28-31)."""
    return token & 0xF0FFFFFF


def _source_key(token: int) -> int:
    """Bits 24-31 (bit 31, register type bits 0-2, source modifier) above
    bits 11-15 (register type bits 3-4, relative address, reserved)."""
    return ((token >> 19) & 0x1FE0) | ((token >> 11) & 0x1F)


def _dest_key(token: int) -> int:
    """Bits 20-31 (bit 31, register type bits 0-2, result shift, result
    modifiers) above bits 11-15 (as in ``_source_key``)."""
    return ((token >> 15) & 0x1FFE0) | ((token >> 11) & 0x1F)


# Raw field value -> enum member, so that no path calls an Enum (a try/except
# and about a microsecond per call).  Source modifiers 14 and 15 are reserved.
_SRC_MODS: tuple[SrcMod | None, ...] = tuple(SrcMod(v) if v in SrcMod._value2member_map_ else None for v in range(16))
_DST_MODS: tuple[DstMod, ...] = tuple(DstMod(v) for v in range(8))  # bit 3 (value 8) is reserved

_COMMENT_OR_END_MASK = BITS.PARAM | BITS.OPCODE_MASK  # an opcode word with bit 31 clear
_LITERAL_COUNTS = {Layout.DEF: 4, Layout.DEFI: 4, Layout.DEFB: 1}

# Enum members the hot path compares against, as module constants: in Python
# 3.11 reading a member off its Enum class (``Layout.OPERANDS``) goes through
# the enum machinery and costs about 0.1 us, more than the test itself.
_COMMENT = int(Opcode.COMMENT)
_END = int(Opcode.END)
_OPERANDS = Layout.OPERANDS
_DCL = Layout.DCL

# A plain operand: (register type, number of registers, modifier).
_PlainOperand = tuple[RegisterType, int, SrcMod | DstMod]


class _OpcodeEntry:
    """One opcode as one shader version sees it: what the decoder checks on
    every instruction, worked out once."""

    __slots__ = (
        "opcode", "info", "layout", "forms", "has_dst", "nsrc", "src_counts",
        "max_control", "check_writable", "literal_count", "plain_dsts", "sm1_length",
    )

    def __init__(self, info: OpcodeInfo, profile: _Profile):
        sm1 = profile.sm1
        self.opcode = info.opcode
        self.info = info
        self.layout = info.layout
        self.forms = info.forms_for(profile.version)
        self.has_dst = self.forms[0].has_dst
        self.nsrc = self.forms[0].nsrc  # SM1 reads exactly this many sources
        self.src_counts = frozenset(f.nsrc for f in self.forms)  # SM2+ accepts any form
        # The largest control value (bits 16-23) that _check_control accepts:
        # a 3-bit comparison code, texld's mode (0-2) in SM2+, else nothing.
        if info.comparison:
            self.max_control = 7
        elif info.opcode is Opcode.TEX and not sm1:
            self.max_control = 2
        else:
            self.max_control = 0
        # texkill and dcl name a register they read; other operand-layout
        # instructions must be able to write their destination.
        self.check_writable = info.opcode not in DST_READ_OPCODES and info.layout is Layout.OPERANDS
        self.plain_dsts = profile.plain_written_dsts if self.check_writable else profile.plain_dsts
        self.literal_count = _LITERAL_COUNTS.get(info.layout, 0)
        # SM1 has no length field: a plain instruction's parameter count.
        if info.layout is Layout.DCL:
            self.sm1_length = 2  # usage token, destination
        elif info.layout is Layout.OPERANDS:
            self.sm1_length = self.has_dst + self.nsrc
        else:
            self.sm1_length = 1 + self.literal_count


class _Profile:
    """The decoder's view of one shader version.

    ``registers``: register files by raw 5-bit register type (``None`` where
    the type does not exist in this version); ``opcodes``: the opcodes the
    version allows, by raw value; ``plain_instructions``, ``plain_srcs``,
    ``plain_dsts`` and ``plain_written_dsts`` (writable files only): the
    plain-token tables, by key.  ``instruction_key_mask`` is
    ``_instruction_key``'s mask, widened in SM1 to the length field, which
    must be 0 there.
    """

    __slots__ = (
        "version", "sm1", "registers", "opcodes", "plain_instructions", "instruction_key_mask",
        "plain_srcs", "plain_dsts", "plain_written_dsts",
    )

    def __init__(self, version: ShaderVersion):
        self.version = version
        self.sm1 = version.major == 1
        self.instruction_key_mask = 0xFFFFFFFF if self.sm1 else _instruction_key(0xFFFFFFFF)
        files = REGISTER_FILES[version]
        self.registers: tuple[RegisterFile | None, ...] = tuple(
            files.get(R(v)) if v in R._value2member_map_ else None for v in range(32)
        )
        self.plain_srcs: dict[int, _PlainOperand] = {}
        self.plain_dsts: dict[int, _PlainOperand] = {}
        self.plain_written_dsts: dict[int, _PlainOperand] = {}
        for rf in files.values():
            param = BITS.PARAM | register_type_bits(rf.type)
            for modifier in SrcMod:
                self.plain_srcs[_source_key(param | modifier << BITS.SRCMOD_SHIFT)] = (rf.type, rf.count, modifier)
            for modifiers in _DST_MODS:
                key = _dest_key(param | modifiers << BITS.DSTMOD_SHIFT)
                self.plain_dsts[key] = (rf.type, rf.count, modifiers)
                if rf.writable:
                    self.plain_written_dsts[key] = (rf.type, rf.count, modifiers)
        self.opcodes: dict[int, _OpcodeEntry] = {
            int(op): _OpcodeEntry(info, self)
            for op, info in OPCODES.items()
            if op not in PSEUDO_OPCODES and info.allowed_in(version)
        }
        self.plain_instructions: dict[int, _OpcodeEntry] = {
            _instruction_key(op | control << BITS.CONTROL_SHIFT): entry
            for op, entry in self.opcodes.items()
            for control in range(entry.max_control + 1)
        }


# Version token -> profile.  A token that is not here is not a known version.
_PROFILES: dict[int, _Profile] = {v.token: _Profile(v) for v in KNOWN_VERSIONS}


# --------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------


def decode(data: bytes | bytearray | memoryview, *, strict_ctab: bool = False) -> Shader:
    """Decode a D3D9 shader blob.  Raises a ``BytecodeError`` subclass.

    A malformed CTAB comment is reported in ``Shader.diagnostics`` and the
    table dropped (the runtime never reads it), unless ``strict_ctab``.
    """
    return _Decoder(bytes(data), strict_ctab).run()


def decode_version(data: bytes) -> ShaderVersion:
    """Read only the version token (raises like ``decode``)."""
    if len(data) < 4:
        raise TruncatedError(0, f"the blob is {len(data)} bytes long; a shader needs at least a version token")
    return _parse_version(struct.unpack_from("<I", data, 0)[0])


def _parse_version(token: int) -> ShaderVersion:
    profile = _PROFILES.get(token)
    if profile is None:
        _unknown_version(token)
    return profile.version


def _unknown_version(token: int) -> NoReturn:
    """Raise the error for a first token that is no known version token."""
    if token == FX_2_0_MAGIC:
        raise NotAShaderError(0, "this is an fx_2_0 effect (magic 0xFEFF0901), not a shader; extract its shaders first")
    if token == XNA_EFFECT_MAGIC:
        raise NotAShaderError(0, "this is an XNA effect (magic 0xBCF00BCF), not a shader")
    kind_bits = token >> 16
    if kind_bits not in (ShaderKind.VERTEX, ShaderKind.PIXEL):
        raise VersionError(0, f"0x{token:08x} is not a version token (its high 16 bits must be 0xFFFE for vs or 0xFFFF for ps)")
    version = ShaderVersion(ShaderKind(kind_bits), (token >> 8) & 0xFF, token & 0xFF)
    raise VersionError(0, f"unsupported shader version {version.kind.prefix} {version.major}.{version.minor} (token 0x{token:08x})")


def _type_name(rtype: RegisterType, version: ShaderVersion) -> str:
    """The register file's name as this stage knows it (value 3 is ADDR in a
    vertex shader but TEXTURE in a pixel shader; 6 is OUTPUT in vs_3_0)."""
    if rtype == R.ADDR and version.is_pixel:
        return "TEXTURE (t#)"
    if rtype == R.TEXCRDOUT and version.is_vertex and version.major >= 3:
        return "OUTPUT (o#)"
    return rtype.name


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _register_type_of(token: int) -> int:
    """The 5-bit register type: bits 28-30 and 11-12 (tables.register_type_of)."""
    return ((token >> 28) & 7) | ((token >> 8) & 0x18)


# --------------------------------------------------------------------------
# The decoder
# --------------------------------------------------------------------------


class _Decoder:
    """One pass over one blob.

    While the general reader reads an instruction's parameters, ``pos`` is
    the next token, ``end`` the token after the instruction (SM2+: from its
    length field; ``None`` in SM1, where the tables give the count),
    ``limit`` the first token that may not be read (``end``, or the stream's
    end in SM1) and ``entry`` the instruction's ``_OpcodeEntry``.
    """

    def __init__(self, data: bytes, strict_ctab: bool = False):
        self.data = data
        self.strict_ctab = strict_ctab
        self.diagnostics: list[str] = []
        self.ctab = None
        self.ntokens = len(data) // 4
        self.tokens = struct.unpack_from(f"<{self.ntokens}I", data, 0)
        self.pos = 0
        self.end: int | None = None
        self.limit = 0
        self.entry: _OpcodeEntry | None = None

    def run(self) -> Shader:
        data = self.data
        n = self.ntokens
        if n == 0:
            raise TruncatedError(0, f"the blob is {len(data)} bytes long; a shader needs at least a version token")
        tokens = self.tokens
        profile = self.profile = _PROFILES.get(tokens[0]) or _unknown_version(tokens[0])
        version = self.version = profile.version
        self.sm1 = profile.sm1
        self.plain_srcs = profile.plain_srcs
        plain_instructions = profile.plain_instructions
        key_mask = profile.instruction_key_mask
        items: list[Item] = []
        i = 1
        while True:
            if i >= n:
                if len(data) % 4:
                    raise TruncatedError(n * 4, f"the blob length {len(data)} is not a multiple of 4; the last token is cut short")
                raise MissingEndError(n * 4, "the stream ends without an END token (0x0000FFFF)")
            token = tokens[i]
            entry = plain_instructions.get(token & key_mask)  # _instruction_key(token), in SM2+
            if entry is not None:
                instruction = self._plain_instruction(token, i, entry)
                if instruction is not None:
                    items.append(instruction)
                    i = self.pos
                    continue
            else:  # a comment, END, or an instruction token that needs a closer look
                special = token & _COMMENT_OR_END_MASK
                if special == _COMMENT:
                    items.append(self._comment(token, i))
                    i = self.pos
                    continue
                if special == _END:
                    if token != 0x0000FFFF:
                        raise ReservedBitsError(i * 4, f"the END token must be exactly 0x0000FFFF, found 0x{token:08x}")
                    end = (i + 1) * 4
                    if end != len(data):
                        raise TrailingDataError(end, f"{_plural(len(data) - end, 'byte')} follow the END token")
                    return new_shader(version, tuple(items), self.ctab, tuple(self.diagnostics))
                entry = self._check_instruction_token(token, i * 4)
            self.entry = entry
            items.append(self._instruction(token, i, entry))
            i = self.pos

    def _comment(self, token: int, i: int) -> Comment:
        """The comment whose header is ``tokens[i]``; parses the first CTAB."""
        n = self.ntokens
        size = (token & BITS.COMMENT_SIZE_MASK) >> BITS.COMMENT_SIZE_SHIFT
        if i + 1 + size > n:
            raise CommentOverrunError(i * 4, f"a comment of {size} DWORDs runs past the end of the stream ({_plural(n - i - 1, 'DWORD')} remain)")
        payload = self.data[(i + 1) * 4:(i + 1 + size) * 4]
        if self.ctab is None and payload[:4] == b"CTAB" and not self.diagnostics:
            try:
                self.ctab = parse_ctab(payload[4:], (i + 1) * 4 + 4)
            except CtabError as exc:
                if self.strict_ctab:
                    raise
                self.diagnostics.append(f"constant table ignored: {exc}")
        self.pos = i + 1 + size
        return new_comment(payload, i * 4)

    # -- the plain reader ---------------------------------------------------------

    def _plain_instruction(self, token: int, i: int, entry: _OpcodeEntry) -> Instruction | None:
        """The instruction whose plain token is ``tokens[i]``, if all of it is
        plain: it has the length its opcode needs, every register operand is
        plain, and a dcl's usage token has no reserved bit set (def literals
        may be any DWORDs).  Sets ``pos`` past it.  Returns None, having
        changed nothing, for anything else: the general reader takes over.
        """
        pos = i + 1
        end = pos + (entry.sm1_length if self.sm1 else (token >> 24) & 0xF)
        if end > self.ntokens:
            return None
        tokens = self.tokens
        layout = entry.layout
        dst = None
        if entry.has_dst:
            at = pos + 1 if layout is _DCL else pos  # a dcl's usage token comes first
            if at >= end:
                return None
            t = tokens[at]
            plain = entry.plain_dsts.get(((t >> 15) & 0x1FFE0) | ((t >> 11) & 0x1F))  # _dest_key(t)
            if plain is None or (t & BITS.REG_NUM_MASK) >= plain[1]:
                return None
            dst = new_dest_operand(plain[0], t & BITS.REG_NUM_MASK, (t >> 16) & 0xF, plain[2], 0, None)
        if layout is _OPERANDS:
            first = pos + 1 if entry.has_dst else pos
            if end - first not in entry.src_counts:
                return None
            plain_srcs = self.plain_srcs
            srcs = []
            for at in range(first, end):
                t = tokens[at]
                plain = plain_srcs.get(((t >> 19) & 0x1FE0) | ((t >> 11) & 0x1F))  # _source_key(t)
                if plain is None or (t & BITS.REG_NUM_MASK) >= plain[1]:
                    return None
                srcs.append(new_source_operand(plain[0], t & BITS.REG_NUM_MASK, (t >> 16) & 0xFF, plain[2], None))
            instruction = new_instruction(entry.opcode, dst, tuple(srcs), (token >> 16) & 0xFF, None, False, None, (), i * 4)
        elif layout is _DCL:
            usage = tokens[pos]
            if end != pos + 2 or usage & (BITS.PARAM | DCL_RESERVED_MASK) != BITS.PARAM:
                return None
            instruction = new_instruction(entry.opcode, dst, (), 0, None, False, new_declaration(usage), (), i * 4)
        else:  # def, defi, defb: the destination, then raw literals
            if end != pos + 1 + entry.literal_count:
                return None
            instruction = new_instruction(entry.opcode, dst, (), 0, None, False, None, tokens[pos + 1:end], i * 4)
        self.pos = end
        return instruction

    # -- the general reader -------------------------------------------------------

    def _instruction(self, token: int, i: int, entry: _OpcodeEntry) -> Instruction:
        """The instruction whose token is ``tokens[i]``, already checked by
        ``_check_instruction_token`` or known plain; leaves ``pos`` at the
        token after it."""
        offset = i * 4
        self.pos = i + 1
        if self.sm1:
            if token & BITS.LENGTH_MASK:
                raise ReservedBitsError(offset, f"bits 24-27 are reserved in shader model 1 but hold {(token & BITS.LENGTH_MASK) >> BITS.LENGTH_SHIFT}")
            self.end = None  # parameter count comes from the tables
            self.limit = self.ntokens
        else:
            length = (token & BITS.LENGTH_MASK) >> BITS.LENGTH_SHIFT
            end = self.end = self.limit = i + 1 + length
            if end > self.ntokens:
                raise TruncatedError(offset, f"'{entry.info.mnemonic}' declares {length} parameter tokens but only {self.ntokens - i - 1} remain")

        if entry.layout is _DCL:
            usage_token = self._take("the DCL usage token")
            if not usage_token & BITS.PARAM:
                raise OperandError(self.pos * 4 - 4, f"the DCL usage token 0x{usage_token:08x} must have bit 31 set")
            if usage_token & DCL_RESERVED_MASK:
                raise ReservedBitsError(self.pos * 4 - 4, f"reserved bits are set in the DCL usage token 0x{usage_token:08x}")
            dst = self._dst()
            self._finish()
            return new_instruction(entry.opcode, dst, (), 0, None, False, new_declaration(usage_token), (), offset)
        if entry.layout is not _OPERANDS:  # def, defi, defb
            dst = self._dst()
            literals = tuple([self._take("a constant value") for _ in range(entry.literal_count)])
            self._finish()
            return new_instruction(entry.opcode, dst, (), 0, None, False, None, literals, offset)

        dst = self._dst() if entry.has_dst else None
        predicate = self._predicate() if token & BITS.PREDICATED else None
        if self.sm1:
            srcs = tuple([self._src() for _ in range(entry.nsrc)])
        else:
            srcs_list = []
            while self.pos < self.end:
                srcs_list.append(self._src())
            srcs = tuple(srcs_list)
            if len(srcs) not in entry.src_counts:
                want = " or ".join(str(f.nsrc) for f in entry.forms)
                raise LengthMismatchError(offset, f"the length field gives '{entry.info.mnemonic}' {len(srcs)} source operand(s); it takes {want}")
        return new_instruction(
            entry.opcode, dst, srcs, (token & BITS.CONTROL_MASK) >> BITS.CONTROL_SHIFT, predicate,
            bool(token & BITS.COISSUE), None, (), offset,
        )

    def _check_instruction_token(self, token: int, offset: int) -> _OpcodeEntry:
        """Check an instruction token field by field, in the documented order,
        and raise the first error; return its entry if it is sound (a
        predicated, co-issued or comparison instruction, say)."""
        version = self.version
        assert version is not None
        if token & BITS.PARAM:
            raise OperandError(offset, f"expected an instruction token, found parameter token 0x{token:08x} (bit 31 set); the stream is out of step")
        value = token & BITS.OPCODE_MASK
        try:
            opcode = Opcode(value)
        except ValueError:
            raise UnknownOpcodeError(offset, f"unknown opcode 0x{value:04x} in instruction token 0x{token:08x}") from None
        if opcode in PSEUDO_OPCODES:
            raise UnknownOpcodeError(offset, f"opcode 0x{value:04x} is reserved")
        info = OPCODES[opcode]
        if not info.allowed_in(version):
            raise OpcodeVersionError(offset, f"'{info.mnemonic}' is not valid in {version}")

        control = (token & BITS.CONTROL_MASK) >> BITS.CONTROL_SHIFT
        self._check_control(offset, info, control)
        if token & BITS.INSTR_RESERVED:
            raise ReservedBitsError(offset, f"reserved bit 29 is set in instruction token 0x{token:08x}")
        coissue = bool(token & BITS.COISSUE)
        if coissue and not (version.is_pixel and self.sm1):
            raise ReservedBitsError(offset, f"the co-issue bit (30) is set, but co-issue exists only in ps_1_x, not {version}")
        if coissue and info.layout is not Layout.OPERANDS:
            # def (the only such layout in ps_1_x) executes nothing to pair
            # with, and its Instruction has no place to keep the bit.
            raise ReservedBitsError(offset, f"the co-issue bit (30) is set on '{info.mnemonic}', which cannot be co-issued")
        predicated = bool(token & BITS.PREDICATED)
        if predicated and (self.sm1 or not info.predicable):
            what = "shader model 1" if self.sm1 else f"'{info.mnemonic}'"
            raise ReservedBitsError(offset, f"the predicate bit (28) is set, but {what} cannot be predicated")
        return self.profile.opcodes[value]

    def _check_control(self, offset: int, info: OpcodeInfo, control: int) -> None:
        if info.comparison:
            if control & ~7:
                raise ReservedBitsError(offset, f"'{info.mnemonic}' comparison control 0x{control:02x} has reserved bits set")
            return
        if info.opcode is Opcode.TEX and not self.sm1:
            if control > 2:
                raise ReservedBitsError(offset, f"texld control 0x{control:02x} is not 0 (texld), 1 (texldp) or 2 (texldb)")
            return
        if control:
            raise ReservedBitsError(offset, f"'{info.mnemonic}' has control bits 16-23 set (0x{control:02x}); they are reserved for it")

    # -- reading parameter tokens -------------------------------------------

    def _take(self, what: str) -> int:
        """The next parameter token (``what`` names it in the error if there is none)."""
        pos = self.pos
        if pos >= self.limit:
            raise self._missing(pos, what)
        self.pos = pos + 1
        return self.tokens[pos]

    def _missing(self, pos: int, what: str) -> LengthMismatchError | TruncatedError:
        mnemonic = self.entry.info.mnemonic  # type: ignore[union-attr]
        if self.end is not None and self.end < self.ntokens:
            return LengthMismatchError(pos * 4, f"the length field of '{mnemonic}' ends before {what}")
        return TruncatedError(min(pos * 4, len(self.data)), f"the stream ends inside '{mnemonic}' (expected {what})")

    def _finish(self) -> None:
        if self.end is not None and self.pos != self.end:
            raise LengthMismatchError(self.pos * 4, f"the length field of '{self.entry.info.mnemonic}' counts {self.end - self.pos} token(s) more than its operands use")

    # -- operands --------------------------------------------------------------

    def _predicate(self) -> SourceOperand:
        pred = self._src(_PRED)
        # Blame the last token read (a relative-address token, if one followed).
        offset = self.pos * 4 - 4
        mnemonic = self.entry.info.mnemonic
        if pred.type != R.PREDICATE:
            raise OperandError(offset, f"the predicate token of '{mnemonic}' names {pred.type.name}, not p0")
        if pred.modifier not in (SrcMod.NONE, SrcMod.NOT):
            raise OperandError(offset, "a predicate token may only carry the NOT modifier")
        return pred

    def _check_param(self, token: int, offset: int, what: str) -> None:
        if not token & BITS.PARAM:
            raise OperandError(offset, f"expected the {what} token of '{self.entry.info.mnemonic}', found 0x{token:08x} (bit 31 clear)")
        if token & BITS.PARAM_RESERVED:
            raise ReservedBitsError(offset, f"reserved bits 14-15 are set in {what} token 0x{token:08x}")

    def _register(self, token: int, offset: int, role: str) -> tuple[RegisterType, int]:
        value = _register_type_of(token)
        index = token & BITS.REG_NUM_MASK
        version = self.version
        try:
            rtype = RegisterType(value)
        except ValueError:
            raise RegisterError(offset, f"register type {value} in the {role} is not a D3D9 register type") from None
        rf = self.profile.registers[value]
        if rf is None:
            raise RegisterError(offset, f"register type {_type_name(rtype, version)} ({value}) in the {role} does not exist in {version}")
        if index >= rf.count:
            raise RegisterError(offset, f"{_type_name(rtype, version)} register index {index} in the {role} is out of range for {version} (0-{rf.count - 1})")
        return rtype, index

    def _dst(self):
        token = self._take(f"its {_DST} token")
        offset = self.pos * 4 - 4
        self._check_param(token, offset, _DST)
        rtype, index = self._register(token, offset, _DST)
        version = self.version
        if self.entry.check_writable and not self.profile.registers[rtype].writable:
            raise RegisterError(offset, f"{_type_name(rtype, version)} registers cannot be written in {version}")
        mods = (token & BITS.DSTMOD_MASK) >> BITS.DSTMOD_SHIFT
        if mods & 8:
            raise ReservedBitsError(offset, f"reserved result-modifier bit 23 is set in destination token 0x{token:08x}")
        shift = (token & BITS.SHIFT_MASK) >> BITS.SHIFT_SHIFT
        if shift and not (version.is_pixel and version.major == 1):
            raise ReservedBitsError(offset, f"a result shift (bits 24-27 = {shift}) exists only in ps_1_x, not {version}")
        if shift >= 8:
            shift -= 16
        relative = None
        if token & BITS.RELATIVE:
            # Only vs_3_0 o# (TEXCRDOUT's vs_3_0 meaning, tables.OUTPUT) may be indexed.
            if self.sm1 or not (version.is_vertex and version.major == 3 and rtype == R.TEXCRDOUT):
                raise RegisterError(offset, f"relative addressing of a {_type_name(rtype, version)} destination is not allowed in {version}")
            relative = self._relative()
        return new_dest_operand(rtype, index, (token & BITS.WRITEMASK_MASK) >> BITS.WRITEMASK_SHIFT, _DST_MODS[mods], shift, relative)

    def _src(self, role: str = _SRC):
        token = self._take(f"its {role} token")
        offset = self.pos * 4 - 4
        self._check_param(token, offset, role)
        rtype, index = self._register(token, offset, role)
        mod_value = (token & BITS.SRCMOD_MASK) >> BITS.SRCMOD_SHIFT
        modifier = _SRC_MODS[mod_value]
        if modifier is None:
            raise ReservedBitsError(offset, f"source modifier {mod_value} is reserved (token 0x{token:08x})")
        relative = None
        if token & BITS.RELATIVE:
            relative = self._source_relative(rtype, offset)
        return new_source_operand(rtype, index, (token & BITS.SWIZZLE_MASK) >> BITS.SWIZZLE_SHIFT, modifier, relative)

    def _source_relative(self, rtype: RegisterType, offset: int) -> RelativeAddress:
        version = self.version
        allowed = False
        if version.is_vertex:
            allowed = rtype in (R.CONST, R.CONST2, R.CONST3, R.CONST4) or (version.major >= 3 and rtype == R.INPUT)
        elif version.major >= 3:
            allowed = rtype == R.INPUT
        if not allowed:
            raise RegisterError(offset, f"relative addressing of {_type_name(rtype, version)} registers is not allowed in {version}")
        if self.sm1:
            return new_relative_address(R.ADDR, 0, 0, True)
        return self._relative()

    def _relative(self) -> RelativeAddress:
        token = self._take(f"its {_REL} token")
        offset = self.pos * 4 - 4
        self._check_param(token, offset, _REL)
        rtype, index = self._register(token, offset, _REL)
        if rtype not in (R.ADDR, R.LOOP) or (rtype == R.ADDR and self.version.is_pixel):
            raise RegisterError(offset, f"a relative address must be a0 or aL, not {_type_name(rtype, self.version)}")
        if token & (BITS.SRCMOD_MASK | BITS.RELATIVE):
            raise ReservedBitsError(offset, f"a relative-address token may carry no modifier or nested relative bit (0x{token:08x})")
        return new_relative_address(rtype, index, (token & BITS.SWIZZLE_MASK) >> BITS.SWIZZLE_SHIFT, False)
