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
relative addressing -- goes to the general reader (``general_reader.py``,
a mixin of ``_Decoder``), which checks one field at a time in the
documented order and raises the first error.  The plain reader only ever accepts what the general one
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
    MissingEndError,
    NotAShaderError,
    OperandError,
    RegisterError,
    ReservedBitsError,
    StructureError,
    TrailingDataError,
    TruncatedError,
    VersionError,
)
from .ctab import parse_ctab
from .general_reader import GeneralReader
from .profiles import (
    _SHARED_DECLARATIONS,
    _OpcodeEntry,
    _PlainForm,
    _Profile,
    _SharedOperands,
)
from .validity import (
    SLOT_ONLY_FILES,
    Nest,
    dcl_problem,
    dcl_spelling,
    nesting_problem,
    redeclaration_problem,
    result_modifier_problem,
    operand_problem,
)
from .model import (
    _InstructionSlots,
    _SourceOperandSlots,
    Comment,
    DestOperand,
    Instruction,
    Item,
    Shader,
    SourceOperand,
    new_comment,
    new_declaration,
    new_dest_operand,
    new_instruction,
    new_shader,
)
from .tables import (
    BITS,
    DCL_RESERVED_MASK,
    FX_2_0_MAGIC,
    KNOWN_VERSIONS,
    XNA_EFFECT_MAGIC,
    Layout,
    Opcode,
    RegisterType,
    ShaderKind,
    ShaderVersion,
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


_dcl_spelling = dcl_spelling  # validity.py's: the assembler judges raw dcls by it too


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


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


class _Decoder(GeneralReader):
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
