"""The decoder's general reader: an instruction read one field at a time.

``decoder._Decoder`` reads almost every instruction of a real shader with
its plain readers (a dict look-up or two per token).  Anything else -- an
error, or a rarer legal form: predication, co-issue, result shifts,
relative addressing -- comes here (``GeneralReader._instruction`` and
below), which checks each field in the documented order and raises the
first error, with the byte offset of the token at fault.  The plain
readers only ever accept what this one accepts and build the same objects.

A mixin of ``_Decoder``: it reads the decoder's state (``tokens``, ``pos``,
``end``, ``limit``, ``entry``, ``version``, ``profile``, ``sm1``), as its
docstring describes.
"""

from __future__ import annotations

from ..errors import (
    LengthMismatchError,
    OpcodeVersionError,
    OperandError,
    RegisterError,
    ReservedBitsError,
    TruncatedError,
    UnknownOpcodeError,
)
from .model import Instruction, RelativeAddress, SourceOperand, new_declaration, new_dest_operand, new_instruction, \
    new_relative_address, new_source_operand
from .profiles import _DST_MODS, _SRC_MODS, _OpcodeEntry
from .tables import (
    BITS,
    DCL_RESERVED_MASK,
    OPCODES,
    PSEUDO_OPCODES,
    SRC_MODS,
    Layout,
    Opcode,
    OpcodeInfo,
    RegisterType,
    ShaderVersion,
    SrcMod,
    register_name,
)
from .validity import SLOT_ONLY_FILES, WRITTEN_ONLY_BY, operand_problem, result_modifier_problem, src_modifier_problem, \
    written_problem

R = RegisterType
# (module constants: reading a member off its Enum class costs more than the test)
_OPERANDS = Layout.OPERANDS
_DCL = Layout.DCL

# Operand roles, for messages and register checks.
_DST, _SRC, _PRED, _REL = "destination", "source", "predicate", "relative address"



def _type_name(rtype: RegisterType, version: ShaderVersion) -> str:
    """The register file's name as this stage knows it (value 3 is ADDR in a
    vertex shader but TEXTURE in a pixel shader; 6 is OUTPUT in vs_3_0)."""
    if rtype == R.ADDR and version.is_pixel:
        return "TEXTURE (t#)"
    if rtype == R.TEXCRDOUT and version.is_vertex and version.major >= 3:
        return "OUTPUT (o#)"
    return rtype.name


def _spelling(modifier: SrcMod, name: str) -> str:
    """A modified source as the disassembler writes it (``-r0_bias``)."""
    info = SRC_MODS[modifier]
    return f"{info.prefix}{name}{info.suffix}"


def _register_type_of(token: int) -> int:
    """The 5-bit register type: bits 28-30 and 11-12 (tables.register_type_of)."""
    return ((token >> 28) & 7) | ((token >> 8) & 0x18)


class GeneralReader:
    """``_Decoder``'s general reader (module docstring)."""

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
