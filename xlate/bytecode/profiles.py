"""The decoder's precomputed tables: what each shader version allows,
worked out once per version (``_Profile``), and the operands and
declarations every shader shares.  Split from ``decoder.py``, whose
``_Decoder`` walks a token stream with them; nothing here reads a stream.
"""

from __future__ import annotations

from .model import (
    Declaration,
    DestOperand,
    SourceOperand,
    new_declaration,
    new_dest_operand,
    new_source_operand,
)
from .tables import (
    BITS,
    DST_READ_OPCODES,
    OPCODES,
    PSEUDO_OPCODES,
    REGISTER_FILES,
    DeclUsage,
    DstMod,
    Layout,
    Opcode,
    OpcodeInfo,
    RegisterFile,
    RegisterType,
    SamplerType,
    ShaderVersion,
    SrcMod,
    register_type_bits,
)
from .validity import (
    NEST_OF,
    OPERAND_REGISTERS,
    SAMPLING_OPCODES,
    SLOT_ONLY_FILES,
    WRITTEN_ONLY_BY,
    checks_operands,
    dcl_problem,
    dcl_spelling,
    result_modifier_problem,
    semantic_linked,
    src_modifier_problem,
)

R = RegisterType

# --------------------------------------------------------------------------
# Precomputed tables
# --------------------------------------------------------------------------
#
# Most tokens in real shaders are plain: an instruction token with no
# reserved, co-issue or predicate bit, a control value its opcode allows and
# (in SM2+) the length one of its forms needs; a parameter token that names a
# register of this version, with no relative address, reserved bit or result
# shift.  The plain reader looks an instruction token up whole, and a
# parameter token by its "key" -- every bit except the register number and
# the swizzle / write mask -- in per-version dicts built here from the
# tables; the value holds what the instruction or operand needs.  A miss is
# not an error, only not plain: the general reader then checks the
# instruction field by field.  These tables are data, built once per version
# on its first shader (some 15 milliseconds for all eleven, shared operands
# included); only ``_Profile.read``, a bounded memory, changes afterwards.


# A parameter token's key is the token with the register number and the
# swizzle / write mask cleared: one ``&``, where packing the fields into a
# small int took six operations.
_SOURCE_KEY_MASK = 0xFF00F800  # bits 24-31 (bit 31, register type bits 0-2, source modifier), 11-15
_DEST_KEY_MASK = 0xFFF0F800  # bits 20-31 (as above, result shift and modifiers), 11-15


def _source_key(token: int) -> int:
    """Bit 31, register type, source modifier, relative and reserved bits."""
    return token & _SOURCE_KEY_MASK


def _dest_key(token: int) -> int:
    """Bit 31, register type, result shift and modifiers, relative and reserved bits."""
    return token & _DEST_KEY_MASK


# Raw field value -> enum member, so that no path calls an Enum (a try/except
# and about a microsecond per call).  Source modifiers 14 and 15 are reserved.
_SRC_MODS: tuple[SrcMod | None, ...] = tuple(SrcMod(v) if v in SrcMod._value2member_map_ else None for v in range(16))
_DST_MODS: tuple[DstMod, ...] = tuple(DstMod(v) for v in range(8))  # bit 3 (value 8) is reserved

_LITERAL_COUNTS = {Layout.DEF: 4, Layout.DEFI: 4, Layout.DEFB: 1}

# A plain operand: (register type, number of registers, modifier, shared
# operands), the last by ``_SHARED_FIELDS`` bits (see ``_SharedOperands``).
_PlainOperand = tuple[RegisterType, int, SrcMod | DstMod, dict]

# Shared operands: the operands that shaders name again and again -- a
# register read whole or replicated (.xyzw .xxxx .yyyy .zzzz .wwww, nine
# reads in ten) or written through any mask, with no modifier -- are built
# once at import and shared by every shader that names them; they are
# immutable, so sharing them is invisible.  Building an operand and freeing
# it later costs about as much as all the rest of decoding its token.  A
# plain token finds its operand by its swizzle / write mask and register
# number (``token & _SHARED_FIELDS``).
_SHARED_FIELDS = 0x00FF07FF  # bits 16-23 (swizzle, or write mask and 4 zero bits) and 0-10
_SHARED_SWIZZLES = (0xE4, 0x00, 0x55, 0xAA, 0xFF)
# Registers with shared operands: the first 32 of a file (as many as there
# are temporaries; c0-c31 take 96% of the constant reads), and as
# destinations only in files no larger (not the constants, which only def
# writes).
_SHARED_REGISTERS = 32


# The usage tokens of real dcls -- a usage and usage index (inputs and
# outputs) or a sampler type, with bit 31 set -- have their Declaration
# shared the same way.
_SHARED_DECLARATIONS: dict[int, Declaration] = {
    raw: new_declaration(raw)
    for raw in [BITS.PARAM | usage | index << 16 for usage in DeclUsage for index in range(16)]
    + [BITS.PARAM | sampler_type << 27 for sampler_type in SamplerType]
}


class _SharedOperands:
    """Builds the shared-operand tables for ``_Profile``, each once."""

    def __init__(self):
        self.tables: dict[tuple, dict[int, SourceOperand | DestOperand]] = {}

    def sources(self, rtype: RegisterType, count: int) -> dict[int, SourceOperand]:
        key = ("source", rtype, min(count, _SHARED_REGISTERS))
        if key not in self.tables:
            self.tables[key] = {
                swizzle << 16 | index: new_source_operand(rtype, index, swizzle, SrcMod.NONE, None)
                for swizzle in _SHARED_SWIZZLES
                for index in range(key[2])
            }
        return self.tables[key]

    def destinations(self, rtype: RegisterType, count: int) -> dict[int, DestOperand]:
        key = ("destination", rtype, count if count <= _SHARED_REGISTERS else 0)
        if key not in self.tables:
            self.tables[key] = {
                mask << 16 | index: new_dest_operand(rtype, index, mask, _DST_MODS[0], 0, None)
                for mask in range(16)
                for index in range(key[2])
            }
        return self.tables[key]


class _OpcodeEntry:
    """One opcode as one shader version sees it: what the decoder checks on
    every instruction, worked out once."""

    __slots__ = (
        "opcode", "info", "layout", "forms", "has_dst", "nsrc", "src_counts",
        "max_control", "check_writable", "literal_count", "plain_dsts", "sm1_length",
        "rules", "nest", "block", "checked", "slot_types", "plain_checked",
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
        # validity.py: operand rules to apply, the nesting kind a block opener
        # opens, and +1/-1 for openers and closers (``else`` neither).
        self.rules = (checks_operands(info.opcode, info.layout) or info.opcode in SAMPLING_OPCODES
                      or info.layout is not Layout.OPERANDS)
        self.nest = NEST_OF.get(info.opcode)
        self.block = info.block if info.block in (1, -1) else 0
        self.checked = bool(self.rules or self.block)
        # dcl and def* destinations: their plain tables hold only what the
        # rules allow (the files a dcl may name or a def* defines, the
        # modifiers they take), so that their plain reads need no check.
        if info.layout is not Layout.OPERANDS:
            if info.layout is Layout.DCL:
                allowed = profile.declarable
            else:
                allowed = OPERAND_REGISTERS[info.opcode][0].allowed
            self.plain_dsts = {
                key: plain for key, plain in profile.plain_dsts.items()
                if plain[0] in allowed and not (plain[2] and result_modifier_problem(profile.version, info, "", plain[2], 0))
            }
        elif not self.check_writable:  # texkill: it reads the register its destination token names
            self.plain_dsts = {key: plain for key, plain in self.plain_dsts.items() if plain[0] not in SLOT_ONLY_FILES}
        # (dcl: each declaration is remembered, validity.redeclaration_problem)
        self.plain_checked = (info.layout is Layout.OPERANDS and self.checked) or info.layout is Layout.DCL
        # The register files each operand slot accepts (None: any but the
        # slot-only files), by slot, destination first.
        rules = OPERAND_REGISTERS.get(info.opcode, {})
        self.slot_types = tuple(rules[k].allowed if k in rules else None for k in range(max(rules, default=-1) + 1))
        # SM1 has no length field: a plain instruction's parameter count.
        if info.layout is Layout.DCL:
            self.sm1_length = 2  # usage token, destination
        elif info.layout is Layout.OPERANDS:
            self.sm1_length = self.has_dst + self.nsrc
        else:
            self.sm1_length = 1 + self.literal_count


class _PlainForm:
    """One plain instruction token: its opcode's entry, the number of tokens
    the instruction takes (``size``, the instruction token included) and the
    plain reader for its layout (a method of the profile's ``readers``: the
    decoder's)."""

    __slots__ = ("entry", "opcode", "control", "size", "read", "plain_dsts", "plain_srcs", "unchecked_read",
                 "remembered", "declares")

    def __init__(self, entry: _OpcodeEntry, control: int, length: int, profile: _Profile):
        readers = profile.readers
        self.entry = entry
        self.opcode = entry.opcode
        self.control = control
        self.size = 1 + length
        self.plain_dsts = entry.plain_dsts
        # Samplers and labels are plain sources only of the instructions
        # whose operand rules (validity.py) name them; those, and the
        # instructions that open or close a block, are read by
        # ``_plain_checked``, which applies the rules on top.
        checked = entry.plain_checked
        self.plain_srcs = profile.plain_slot_srcs if entry.rules else profile.plain_srcs
        if entry.layout is Layout.DCL:
            read = readers._plain_dcl
            checked = False  # (it checks what it must itself)
        elif entry.layout is not Layout.OPERANDS:
            read = readers._plain_def
        elif entry.has_dst:
            read = readers._plain_operation
        else:
            read = readers._plain_control
        self.unchecked_read = read
        if entry.opcode in SAMPLING_OPCODES and entry.has_dst and length >= 3:
            self.read = readers._plain_sample  # texld and kin: the most common checked form
            self.plain_srcs = profile.plain_sampler_srcs
        else:
            self.read = readers._plain_checked if checked else read
        # What a plain read of this form makes depends on its tokens alone,
        # except where it opens or closes a block (the nesting limits count
        # them), so ``_Profile.read`` may hold it; a dcl is remembered by the
        # shader (``_Decoder._declare``) however it was read.
        self.remembered = entry.block == 0
        self.declares = entry.layout is Layout.DCL

    @staticmethod
    def lengths(entry: _OpcodeEntry, sm1: bool) -> list[int]:
        """The parameter counts a plain instruction of ``entry`` may have."""
        if entry.layout is not Layout.OPERANDS or sm1:
            return [entry.sm1_length]  # (the one count; SM1 reads only that many)
        return sorted(entry.has_dst + n for n in entry.src_counts)


class _Profile:
    """The decoder's view of one shader version.

    ``registers``: register files by raw 5-bit register type (``None`` where
    the type does not exist in this version); ``opcodes``: the opcodes the
    version allows, by raw value; ``plain_instructions`` (by whole token),
    ``plain_srcs``, ``plain_dsts`` and ``plain_written_dsts`` (writable files
    only; by key): the plain-token tables.
    """

    __slots__ = (
        "version", "sm1", "registers", "opcodes", "plain_instructions",
        "plain_srcs", "plain_slot_srcs", "plain_sampler_srcs", "plain_dsts", "plain_written_dsts", "declarable",
        "linked", "read", "readers",
    )

    def __init__(self, version: ShaderVersion, shared: _SharedOperands, readers: type):
        self.version = version
        # The class whose methods read plain instructions (``_PlainForm.read``):
        # the decoder's, which imports this module.
        self.readers = readers
        self.sm1 = version.major == 1
        files = REGISTER_FILES[version]
        self.registers: tuple[RegisterFile | None, ...] = tuple(
            files.get(R(v)) if v in R._value2member_map_ else None for v in range(32)
        )
        # Plain sources: a register with a modifier this version allows on it
        # for any opcode (validity.py); ``plain_slot_srcs`` adds the files
        # only some operand slots may name (samplers, labels).
        # The files a dcl may name (validity.dcl_problem, as the disassembler
        # would spell each one).
        self.declarable = frozenset(
            rf.type for rf in files.values()
            if dcl_problem(version, rf.type, "", usage=dcl_spelling(version, rf.type)[1],
                           sampler=dcl_spelling(version, rf.type)[2]) is None)
        # The files whose dcls link a semantic between stages (validity.semantic_linked).
        self.linked = frozenset(rf.type for rf in files.values() if semantic_linked(version, rf.type))
        self.plain_srcs: dict[int, _PlainOperand] = {}
        self.plain_slot_srcs: dict[int, _PlainOperand] = {}
        self.plain_sampler_srcs: dict[int, _PlainOperand] = {}  # (samplers, not labels)
        self.plain_dsts: dict[int, _PlainOperand] = {}
        self.plain_written_dsts: dict[int, _PlainOperand] = {}
        for rf in files.values():
            param = BITS.PARAM | register_type_bits(rf.type)
            for modifier in SrcMod:
                if not rf.readable or src_modifier_problem(version, modifier, rf.type, None, ""):
                    continue  # (output registers are never sources)
                common = shared.sources(rf.type, rf.count) if modifier is SrcMod.NONE else {}
                key = _source_key(param | modifier << BITS.SRCMOD_SHIFT)
                self.plain_slot_srcs[key] = (rf.type, rf.count, modifier, common)
                if rf.type != R.LABEL:
                    self.plain_sampler_srcs[key] = (rf.type, rf.count, modifier, common)
                if rf.type not in SLOT_ONLY_FILES:
                    self.plain_srcs[key] = (rf.type, rf.count, modifier, common)
            for modifiers in _DST_MODS:
                if version.is_vertex and modifiers & (DstMod.PARTIALPRECISION | DstMod.CENTROID):
                    continue  # validity.result_modifier_problem: _pp and _centroid are pixel-only
                key = _dest_key(param | modifiers << BITS.DSTMOD_SHIFT)
                common = shared.destinations(rf.type, rf.count) if not modifiers else {}
                self.plain_dsts[key] = (rf.type, rf.count, modifiers, common)
                if rf.writable and rf.type not in WRITTEN_ONLY_BY:  # (p0: setp only, checked in _dst)
                    self.plain_written_dsts[key] = (rf.type, rf.count, modifiers, common)
        self.opcodes: dict[int, _OpcodeEntry] = {
            int(op): _OpcodeEntry(info, self)
            for op, info in OPCODES.items()
            if op not in PSEUDO_OPCODES and info.allowed_in(version)
        }
        # Plain instructions read before in this version, by their tokens
        # (as bytes): (destination, sources, declaration, literals).  Shaders
        # repeat instructions -- the same ``dcl_texcoord0 v1``, ``dp4 oPos.x,
        # v0, c0`` or ``texld r0, t0, s0`` again and again, two in three of a
        # median fxc shader's in a batch -- and a look-up costs a fraction of
        # reading the operands.  Every part is immutable, so an Instruction
        # built from what another shader's read made is the one its own read
        # would make.  The only state the decoder keeps between shaders: at
        # most ``_READ_BEFORE_LIMIT`` entries, emptied when full.
        self.read: dict[bytes, tuple] = {}
        # SM1 has no length field: its bits must be 0 there.
        self.plain_instructions: dict[int, _PlainForm] = {}
        for op, entry in self.opcodes.items():
            for length in _PlainForm.lengths(entry, self.sm1):
                length_bits = 0 if self.sm1 else length << BITS.LENGTH_SHIFT
                for control in range(entry.max_control + 1):
                    form = _PlainForm(entry, control, length, self)
                    self.plain_instructions[op | control << BITS.CONTROL_SHIFT | length_bits] = form
