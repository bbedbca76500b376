"""Bytes -> ``Shader``.

The decoder walks the token stream once (cost linear in its length), checks
every field against the tables, and raises a ``BytecodeError`` subclass with
the byte offset of the token at fault for anything it does not understand.
Nothing else escapes: every read is bounds-checked before it happens.

It reads an instruction in one of two ways.  Almost every instruction in a
real shader is *plain* (see "Precomputed tables" in profiles.py): the plain readers
(``_plain_operation`` and its siblings) read those with a dict look-up or two
per token and nothing else.  Anything else --
an error, or a rarer legal form: predication, co-issue, result shifts,
relative addressing -- goes to the general reader (``_instruction`` and
below), which checks one field at a time in the documented order and raises
the first error.  The plain reader only ever accepts what the general one
accepts and builds the same objects, so which reader ran is invisible.
"""

from __future__ import annotations

import struct
import sys
from array import array
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
    StructureError,
    TrailingDataError,
    TruncatedError,
    UnknownOpcodeError,
    VersionError,
)
from .ctab import parse_ctab
from .profiles import (
    _DST_MODS,
    _SHARED_DECLARATIONS,
    _SRC_MODS,
    _OpcodeEntry,
    _PlainForm,
    _Profile,
    _SharedOperands,
)
from .validity import (
    SLOT_ONLY_FILES,
    WRITTEN_ONLY_BY,
    Nest,
    dcl_problem,
    dcl_spelling,
    nesting_problem,
    redeclaration_problem,
    result_modifier_problem,
    operand_problem,
    src_modifier_problem,
    written_problem,
)
from .model import (
    _InstructionSlots,
    _SourceOperandSlots,
    Comment,
    DestOperand,
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
    FX_2_0_MAGIC,
    KNOWN_VERSIONS,
    OPCODES,
    PSEUDO_OPCODES,
    XNA_EFFECT_MAGIC,
    Layout,
    Opcode,
    OpcodeInfo,
    RegisterType,
    SRC_MODS,
    ShaderKind,
    ShaderVersion,
    SrcMod,
    TexControl,
    register_name,
)

R = RegisterType
_new = object.__new__

_COMMENT_OR_END_MASK = BITS.PARAM | BITS.OPCODE_MASK  # an opcode word with bit 31 clear
_PARAM = int(BITS.PARAM)
_DCL_USAGE_CHECK = int(BITS.PARAM | DCL_RESERVED_MASK)  # a usage token has bit 31 set and no reserved bit

# Enum members the hot path compares against, as module constants: in Python
# 3.11 reading a member off its Enum class (``Layout.OPERANDS``) goes through
# the enum machinery and costs about 0.1 us, more than the test itself.
_COMMENT = int(Opcode.COMMENT)
_SAMPLER = RegisterType.SAMPLER
_END = int(Opcode.END)
_OPERANDS = Layout.OPERANDS
_DCL = Layout.DCL
_LOOP, _IF = Nest.LOOP, Nest.IF

# The most plain instructions a profile remembers (``_Profile.read``): some
# 200 bytes each (their operands are mostly the shared ones), half a
# megabyte for a version; a hostile stream of fifteen-operand instructions
# with unshared operands could make that a few megabytes.  The 3,157
# fxc-wine shaders have 13,083 different plain instructions over fifteen
# versions, at most 1,954 in one.
_READ_BEFORE_LIMIT = 2048

# Operand roles, for messages and register checks.
_DST, _SRC, _PRED, _REL = "destination", "source", "predicate", "relative address"

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
    profile = _profile(token)
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


_dcl_spelling = dcl_spelling  # validity.py's: the assembler judges raw dcls by it too


def _spelling(modifier: SrcMod, name: str) -> str:
    """A modified source as the disassembler writes it (``-r0_bias``)."""
    info = SRC_MODS[modifier]
    return f"{info.prefix}{name}{info.suffix}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _register_type_of(token: int) -> int:
    """The 5-bit register type: bits 28-30 and 11-12 (tables.register_type_of)."""
    return ((token >> 28) & 7) | ((token >> 8) & 0x18)


# The array type code of a 32-bit unsigned int ('I' on every common platform).
_DWORD = next(code for code in "IL" if array(code).itemsize == 4)


def _tokens(data: bytes, n: int) -> array:
    """The first ``n`` little-endian DWORDs of ``data``.

    An array rather than ``struct.unpack``'s tuple: unpacking makes an int
    object of every DWORD up front, comments and CTAB included (about 2 us
    for a typical shader), while an array is one copy and makes an int only
    for a token that is read.
    """
    tokens = array(_DWORD, data[:n * 4])
    if sys.byteorder != "little":
        tokens.byteswap()
    return tokens


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
        self.tokens = _tokens(data, self.ntokens)
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
        profile = self.profile = _PROFILES.get(tokens[0]) or _profile(tokens[0]) or _unknown_version(tokens[0])
        version = self.version = profile.version
        self.sm1 = profile.sm1
        # Open blocks, innermost last (their Nest kind), and how many of each
        # kind are open: the nesting limits of validity.py.
        self.nesting: list[Nest | None] = []
        # dcl: components declared per (register type, index); the register
        # each linked semantic (usage and index bits) names.
        self.declared: dict[tuple, int] = {}
        self.semantics: dict[int, int] = {}
        self.depth = {_LOOP: 0, _IF: 0}
        plain_instructions = profile.plain_instructions
        read_before = profile.read
        items: list[Item] = []
        # Shader.instructions is handed over, so that no reader filters
        # ``items``: it is ``items`` after the ``leading`` comments, unless a
        # comment comes between instructions (``interleaved``).
        leading = 0
        interleaved = False
        i = 1
        while True:
            if i >= n:
                if len(data) % 4:
                    raise TruncatedError(n * 4, f"the blob length {len(data)} is not a multiple of 4; the last token is cut short")
                raise MissingEndError(n * 4, "the stream ends without an END token (0x0000FFFF)")
            token = tokens[i]
            form = plain_instructions.get(token)
            if form is not None:
                if form.remembered:
                    # The same tokens read before in this version: their
                    # operands, without reading them again (``_Profile.read``).
                    end = i + form.size
                    key = data[i * 4:end * 4]
                    parts = read_before.get(key)
                    if parts is not None:
                        instruction = _new(_InstructionSlots)
                        instruction.opcode = form.opcode
                        instruction.dst, instruction.srcs, instruction.declaration, instruction.literals = parts
                        instruction.control = form.control
                        instruction.predicate = None
                        instruction.coissue = False
                        instruction.offset = i * 4
                        instruction.__class__ = Instruction
                        if form.declares:
                            self._declare(instruction)
                        items.append(instruction)
                        i = end
                        continue
                    instruction = form.read(self, i, form)
                    if instruction is not None:
                        if len(read_before) >= _READ_BEFORE_LIMIT:
                            read_before.clear()
                        read_before[key] = (instruction.dst, instruction.srcs, instruction.declaration, instruction.literals)
                        items.append(instruction)
                        i = end
                        continue
                else:
                    instruction = form.read(self, i, form)
                    if instruction is not None:
                        items.append(instruction)
                        i += form.size
                        continue
                entry = form.entry
            else:  # a comment, END, or an instruction token that needs a closer look
                special = token & _COMMENT_OR_END_MASK
                if special == _COMMENT:
                    if len(items) == leading:
                        leading += 1
                    else:
                        interleaved = True
                    items.append(self._comment(token, i))
                    i = self.pos
                    continue
                if special == _END:
                    if token != 0x0000FFFF:
                        raise ReservedBitsError(i * 4, f"the END token must be exactly 0x0000FFFF, found 0x{token:08x}")
                    end = (i + 1) * 4
                    if end != len(data):
                        raise TrailingDataError(end, f"{_plural(len(data) - end, 'byte')} follow the END token")
                    stream = tuple(items)
                    instructions = (tuple([item for item in stream if item.__class__ is not Comment])
                                    if interleaved else stream[leading:])
                    return new_shader(version, stream, self.ctab, tuple(self.diagnostics), instructions)
                entry = self._check_instruction_token(token, i * 4)
            self.entry = entry
            instruction = self._instruction(token, i, entry)
            if instruction.coissue and len(items) == leading:  # only comments before it
                raise ReservedBitsError(i * 4, "the co-issue bit (30) is set on the first instruction; "
                                               "a co-issued instruction pairs with the one before it")
            if entry.checked:
                self._check_rules(instruction, entry, raise_error=True)
            items.append(instruction)
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

    # Each reads the instruction whose plain token is ``tokens[i]``, if all of
    # it is plain: every register operand is plain, and a dcl's usage token
    # has no reserved bit set (def literals may be any DWORDs).  It returns
    # None for anything else, and the general reader takes over.  (``run``
    # steps past the ``form.size`` tokens read.)

    def _plain_operation(self, i: int, form: _PlainForm) -> Instruction | None:
        """A destination, then sources: nine instructions in ten.

        ``_plain_destination``, ``_plain_sources`` and ``new_instruction``
        are written out here: three calls cost a quarter of this reader."""
        end = i + form.size
        if end > self.ntokens:
            return None
        tokens = self.tokens
        t = tokens[i + 1]
        plain = form.plain_dsts.get(t & 0xFFF0F800)  # _dest_key(t)
        if plain is None:
            return None
        dst = plain[3].get(t & 0x00FF07FF)  # _SHARED_FIELDS
        if dst is None:
            rtype, count, modifiers, _ = plain
            index = t & 0x7FF  # the register number
            if index >= count:
                return None
            dst = new_dest_operand(rtype, index, (t >> 16) & 0xF, modifiers, 0, None)
        plain_srcs = form.plain_srcs
        srcs = []
        for t in tokens[i + 2:end]:
            plain = plain_srcs.get(t & 0xFF00F800)  # _source_key(t)
            if plain is None:
                return None
            src = plain[3].get(t & 0x00FF07FF)  # _SHARED_FIELDS
            if src is None:
                rtype, count, modifier, _ = plain
                index = t & 0x7FF
                if index >= count:
                    return None
                src = _new(_SourceOperandSlots)
                src.type = rtype
                src.index = index
                src.swizzle = (t >> 16) & 0xFF
                src.modifier = modifier
                src.relative = None
                src.__class__ = SourceOperand
            srcs.append(src)
        instruction = _new(_InstructionSlots)
        instruction.opcode = form.opcode
        instruction.dst = dst
        instruction.srcs = tuple(srcs)
        instruction.control = form.control
        instruction.predicate = None
        instruction.coissue = False
        instruction.declaration = None
        instruction.literals = ()
        instruction.offset = i * 4
        instruction.__class__ = Instruction
        return instruction

    def _plain_control(self, i: int, form: _PlainForm) -> Instruction | None:
        """Sources only (if, rep, call, ...)."""
        end = i + form.size
        if end > self.ntokens:
            return None
        srcs = self._plain_sources(i + 1, end, form.plain_srcs)
        if srcs is None:
            return None
        return new_instruction(form.opcode, None, srcs, form.control, None, False, None, (), i * 4)

    def _plain_sources(self, first: int, end: int, plain_srcs: dict) -> tuple[SourceOperand, ...] | None:
        """The source operands in ``tokens[first:end]``, if all are plain."""
        srcs = []
        for t in self.tokens[first:end]:
            plain = plain_srcs.get(t & 0xFF00F800)  # _source_key(t)
            if plain is None:
                return None
            src = plain[3].get(t & 0x00FF07FF)  # _SHARED_FIELDS
            if src is None:
                rtype, count, modifier, _ = plain
                index = t & 0x7FF  # the register number
                if index >= count:
                    return None
                # (``new_source_operand``, written out: a call would cost as
                # much again, and this is the decoder's innermost loop)
                src = _new(_SourceOperandSlots)
                src.type = rtype
                src.index = index
                src.swizzle = (t >> 16) & 0xFF
                src.modifier = modifier
                src.relative = None
                src.__class__ = SourceOperand
            srcs.append(src)
        return tuple(srcs)

    def _plain_checked(self, i: int, form: _PlainForm) -> Instruction | None:
        """A plain instruction with operand rules or a block (``validity.py``):
        None where a rule is broken, so that the general reader reports it."""
        instruction = form.unchecked_read(self, i, form)
        if instruction is None or not self._check_rules(instruction, form.entry, raise_error=False):
            return None
        return instruction

    def _plain_sample(self, i: int, form: _PlainForm) -> Instruction | None:
        """A plain SM2+ sampling instruction (texld, texldl, texldd): its
        sampler slot names an s# and no other operand does."""
        instruction = _Decoder._plain_operation(self, i, form)
        if instruction is None:
            return None
        srcs = instruction.srcs
        if srcs[1].type is not _SAMPLER or srcs[0].type is _SAMPLER or (len(srcs) > 2 and (
                srcs[2].type is _SAMPLER or srcs[3].type is _SAMPLER)):
            return None
        return instruction

    # -- validity.py's rules ------------------------------------------------------

    def _check_rules(self, instruction: Instruction, entry: _OpcodeEntry, *, raise_error: bool) -> bool:
        """Apply the operand rules and nesting limits to ``instruction`` (of
        an opcode that has them); False (or, with ``raise_error``, an
        OperandError or RegisterError) if an operand rule is broken.  Nesting
        beyond the limits raises at once: both readers would.  (Set look-ups
        first; the rule functions run only to word the error.)"""
        dst = instruction.dst
        if entry.layout is _DCL:
            ok = dst.type in self.profile.declarable
        elif entry.rules:
            slots = entry.slot_types
            k = 0
            ok = True
            for operand in ((dst,) if dst is not None else ()) + instruction.srcs:
                allowed = slots[k] if k < len(slots) else None
                if (operand.type not in allowed) if allowed is not None else (operand.type in SLOT_ONLY_FILES):
                    ok = False
                    break
                k += 1
        else:
            ok = True
        if ok and dst is not None and (dst.modifiers or dst.shift):
            ok = result_modifier_problem(self.version, entry.info, entry.info.mnemonic, dst.modifiers, dst.shift) is None
        if not ok:
            if not raise_error:
                return False
            self._rule_error(instruction, entry)
        if entry.layout is _DCL:
            self._declare(instruction)
        if entry.block == 1:
            nest = entry.nest
            self.nesting.append(nest)
            if nest is not None:
                depth = self.depth[nest] = self.depth[nest] + 1
                problem = nesting_problem(nest, depth, self.version)
                if problem:
                    raise StructureError(instruction.offset, problem)
        elif entry.block == -1 and self.nesting:
            nest = self.nesting.pop()
            if nest is not None:
                self.depth[nest] -= 1
        return True

    def _declare(self, instruction: Instruction) -> None:
        """Remember a dcl; refuse one that repeats a register's components or
        (where semantics link stages) a semantic."""
        dst = instruction.dst
        key = (dst.type, dst.index)
        declared = self.declared.get(key, 0)
        if declared & dst.write_mask:
            raise RegisterError(instruction.offset, redeclaration_problem(register_name(self.version, dst.type, dst.index), None, None))
        self.declared[key] = declared | dst.write_mask
        if dst.type in self.profile.linked:
            version = self.version
            raw = instruction.declaration.raw & 0x000F000F  # usage and usage index
            other = self.semantics.setdefault(raw, dst.index)
            if other != dst.index:
                usage = instruction.declaration.usage
                semantic = f"{getattr(usage, 'asm', usage)}{instruction.declaration.usage_index or ''}"
                raise RegisterError(instruction.offset, redeclaration_problem(
                    register_name(version, dst.type, dst.index), semantic, register_name(version, dst.type, other)))

    def _rule_error(self, instruction: Instruction, entry: _OpcodeEntry) -> NoReturn:
        """Raise the error for the rule ``_check_rules`` found broken."""
        dst = instruction.dst
        version = self.version
        if dst is not None and (dst.modifiers or dst.shift):
            problem = result_modifier_problem(version, entry.info, entry.info.mnemonic, dst.modifiers, dst.shift)
            if problem:
                raise OperandError(instruction.offset, problem)
        if entry.layout is _DCL:
            bare, usage, sampler = _dcl_spelling(version, dst.type)
            problem = dcl_problem(version, dst.type, register_name(version, dst.type, dst.index), usage=usage, sampler=sampler)
            raise RegisterError(instruction.offset, problem or f"{register_name(version, dst.type, dst.index)} cannot be declared in {version}")
        mnemonic = entry.info.mnemonic
        if entry.opcode is Opcode.TEX and not self.sm1:
            mnemonic = TexControl(instruction.control).mnemonic
        operands = ((dst,) if dst is not None else ()) + instruction.srcs
        for slot, operand in enumerate(operands):
            problem = operand_problem(entry.opcode, slot, operand.type,
                                      register_name(version, operand.type, operand.index), mnemonic)
            if problem:
                raise OperandError(instruction.offset, problem)
        raise AssertionError("a rule was broken but none says which")  # pragma: no cover

    def _plain_dcl(self, i: int, form: _PlainForm) -> Instruction | None:
        """The usage token, then the declared register; the declaration is
        remembered (``_declare``).  A dcl's plain destinations are only the
        registers it may declare, with the modifiers it may carry (see
        ``_OpcodeEntry``), so the rest of ``_check_rules`` has nothing to
        check."""
        if i + 3 > self.ntokens:
            return None
        tokens = self.tokens
        usage = tokens[i + 1]
        if usage & _DCL_USAGE_CHECK != _PARAM:
            return None
        t = tokens[i + 2]
        dst = self._plain_destination(t, form)
        if dst is None:
            return None
        declaration = _SHARED_DECLARATIONS.get(usage)
        if declaration is None:
            declaration = new_declaration(usage)
        # (``new_instruction``, written out as in ``_plain_operation``)
        instruction = _new(_InstructionSlots)
        instruction.opcode = form.opcode
        instruction.dst = dst
        instruction.srcs = ()
        instruction.control = 0
        instruction.predicate = None
        instruction.coissue = False
        instruction.declaration = declaration
        instruction.literals = ()
        instruction.offset = i * 4
        instruction.__class__ = Instruction
        self._declare(instruction)
        return instruction

    def _plain_def(self, i: int, form: _PlainForm) -> Instruction | None:
        """def, defi, defb: the destination, then raw literals."""
        end = i + form.size
        if end > self.ntokens:
            return None
        tokens = self.tokens
        t = tokens[i + 1]
        dst = self._plain_destination(t, form)
        if dst is None:
            return None
        return new_instruction(form.opcode, dst, (), 0, None, False, None, tuple(tokens[i + 2:end]), i * 4)

    @staticmethod
    def _plain_destination(t: int, form: _PlainForm) -> DestOperand | None:
        """The destination operand of token ``t`` if it is plain for ``form``
        (a shared one where there is one): None if it is not plain or its
        register is out of range."""
        plain = form.plain_dsts.get(t & 0xFFF0F800)  # _dest_key(t)
        if plain is None:
            return None
        dst = plain[3].get(t & 0x00FF07FF)  # _SHARED_FIELDS
        if dst is not None:
            return dst
        rtype, count, modifiers, _ = plain
        index = t & 0x7FF  # the register number
        if index >= count:
            return None
        return new_dest_operand(rtype, index, (t >> 16) & 0xF, modifiers, 0, None)

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
        if self.entry.check_writable and rtype in WRITTEN_ONLY_BY:
            problem = written_problem(self.entry.opcode, rtype, register_name(version, rtype, index), self.entry.info.mnemonic)
            if problem:
                raise OperandError(offset, problem)
        if rtype in SLOT_ONLY_FILES and self.entry.layout is _OPERANDS:  # texkill s0, texkill l0
            raise OperandError(offset, operand_problem(self.entry.opcode, 0, rtype, register_name(version, rtype, index),
                                                       self.entry.info.mnemonic) or f"{register_name(version, rtype, index)} cannot be named here")
        mods = (token & BITS.DSTMOD_MASK) >> BITS.DSTMOD_SHIFT
        if mods & 8:
            raise ReservedBitsError(offset, f"reserved result-modifier bit 23 is set in destination token 0x{token:08x}")
        shift = (token & BITS.SHIFT_MASK) >> BITS.SHIFT_SHIFT
        if shift and not (version.is_pixel and version.major == 1):
            raise ReservedBitsError(offset, f"a result shift (bits 24-27 = {shift}) exists only in ps_1_x, not {version}")
        if shift >= 8:
            shift -= 16
        if mods or shift:
            problem = result_modifier_problem(version, self.entry.info, self.entry.info.mnemonic, _DST_MODS[mods], shift)
            if problem:
                raise OperandError(offset, problem)
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
        if not self.profile.registers[rtype].readable:
            raise RegisterError(offset, f"{register_name(self.version, rtype, index)} cannot be read in {self.version}")
        mod_value = (token & BITS.SRCMOD_MASK) >> BITS.SRCMOD_SHIFT
        modifier = _SRC_MODS[mod_value]
        if modifier is None:
            raise ReservedBitsError(offset, f"source modifier {mod_value} is reserved (token 0x{token:08x})")
        if modifier is not SrcMod.NONE:
            problem = src_modifier_problem(self.version, modifier, rtype, self.entry.opcode,
                                           _spelling(modifier, register_name(self.version, rtype, index)))
            if problem:
                raise OperandError(offset, problem)
        if rtype in SLOT_ONLY_FILES and not self.entry.rules:
            what = "a sampler" if rtype == R.SAMPLER else "a label"
            raise OperandError(offset, f"'{self.entry.info.mnemonic}' cannot read {register_name(self.version, rtype, index)}: "
                                       f"{what} is only read where an instruction samples or calls")
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


# Version token -> profile, for the versions met so far: a profile is built
# the first time a shader of its version is decoded (a few milliseconds
# each; building all eleven at import was a fifth of the translator's import
# time, and most processes meet only some versions).
_PROFILES: dict[int, _Profile] = {}
_VERSIONS: dict[int, ShaderVersion] = {v.token: v for v in KNOWN_VERSIONS}
_SHARED = _SharedOperands()


def _profile(token: int) -> _Profile | None:
    """The profile of a version token (built on first use); None when the
    token is no known version."""
    profile = _PROFILES.get(token)
    if profile is None:
        version = _VERSIONS.get(token)
        if version is None:
            return None
        # (Two threads may both build it: the profiles are equal, either may stay.)
        profile = _PROFILES[token] = _Profile(version, _SHARED, _Decoder)
    return profile


def prepare_all_versions() -> None:
    """Build every version's tables now (about 15 ms in all).  A process that
    forks workers calls this first, so that the workers share the tables
    instead of each building the versions it meets."""
    for token in _VERSIONS:
        _profile(token)
