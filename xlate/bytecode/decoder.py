"""Bytes -> ``Shader``.

The decoder walks the token stream once (cost linear in its length), checks
every field against the tables, and raises a ``BytecodeError`` subclass with
the byte offset of the token at fault for anything it does not understand.
Nothing else escapes: every read is bounds-checked before it happens.
"""

from __future__ import annotations

import struct

from ..errors import (
    BytecodeError,
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
from .model import (
    Comment,
    Declaration,
    DestOperand,
    Instruction,
    Item,
    RelativeAddress,
    Shader,
    SourceOperand,
)
from .tables import (
    BITS,
    DCL_RESERVED_MASK,
    DST_READ_OPCODES,
    FX_2_0_MAGIC,
    KNOWN_VERSIONS,
    OPCODES,
    PSEUDO_OPCODES,
    XNA_EFFECT_MAGIC,
    DstMod,
    Layout,
    Opcode,
    OpcodeInfo,
    RegisterType,
    ShaderKind,
    ShaderVersion,
    SrcMod,
    register_file,
    register_type_of,
)

R = RegisterType

# Operand roles, for messages and register checks.
_DST, _SRC, _PRED, _REL = "destination", "source", "predicate", "relative address"



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
    if token == FX_2_0_MAGIC:
        raise NotAShaderError(0, "this is an fx_2_0 effect (magic 0xFEFF0901), not a shader; extract its shaders first")
    if token == XNA_EFFECT_MAGIC:
        raise NotAShaderError(0, "this is an XNA effect (magic 0xBCF00BCF), not a shader")
    kind_bits = token >> 16
    if kind_bits not in (ShaderKind.VERTEX, ShaderKind.PIXEL):
        raise VersionError(0, f"0x{token:08x} is not a version token (its high 16 bits must be 0xFFFE for vs or 0xFFFF for ps)")
    version = ShaderVersion(ShaderKind(kind_bits), (token >> 8) & 0xFF, token & 0xFF)
    if version not in KNOWN_VERSIONS:
        raise VersionError(0, f"unsupported shader version {version.kind.prefix} {version.major}.{version.minor} (token 0x{token:08x})")
    return version


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


class _Decoder:
    def __init__(self, data: bytes, strict_ctab: bool = False):
        self.data = data
        self.strict_ctab = strict_ctab
        self.diagnostics: list[str] = []
        self.ntokens = len(data) // 4
        self.tokens = struct.unpack_from(f"<{self.ntokens}I", data, 0)
        self.version: ShaderVersion | None = None

    # -- helpers ----------------------------------------------------------

    def _truncated(self, index: int, what: str) -> TruncatedError:
        return TruncatedError(min(index * 4, len(self.data)), f"the stream ends inside {what}")

    def run(self) -> Shader:
        from .ctab import parse_ctab  # local: ctab.py imports nothing from here

        if self.ntokens == 0:
            raise TruncatedError(0, f"the blob is {len(self.data)} bytes long; a shader needs at least a version token")
        version = self.version = _parse_version(self.tokens[0])
        self.sm1 = version.major == 1
        items: list[Item] = []
        ctab = None
        i = 1
        n = self.ntokens
        tokens = self.tokens
        while True:
            if i >= n:
                if len(self.data) % 4:
                    raise TruncatedError(n * 4, f"the blob length {len(self.data)} is not a multiple of 4; the last token is cut short")
                raise MissingEndError(n * 4, "the stream ends without an END token (0x0000FFFF)")
            token = tokens[i]
            opcode = token & BITS.OPCODE_MASK
            if opcode == Opcode.COMMENT and not token & BITS.PARAM:
                size = (token & BITS.COMMENT_SIZE_MASK) >> BITS.COMMENT_SIZE_SHIFT
                if i + 1 + size > n:
                    raise CommentOverrunError(i * 4, f"a comment of {size} DWORDs runs past the end of the stream ({_plural(n - i - 1, 'DWORD')} remain)")
                payload = self.data[(i + 1) * 4:(i + 1 + size) * 4]
                comment = Comment(payload, i * 4)
                if ctab is None and comment.fourcc == "CTAB" and not self.diagnostics:
                    try:
                        ctab = parse_ctab(comment.payload, (i + 1) * 4 + 4)
                    except CtabError as exc:
                        if self.strict_ctab:
                            raise
                        self.diagnostics.append(f"constant table ignored: {exc}")
                items.append(comment)
                i += 1 + size
                continue
            if opcode == Opcode.END and not token & BITS.PARAM:
                if token != 0x0000FFFF:
                    raise ReservedBitsError(i * 4, f"the END token must be exactly 0x0000FFFF, found 0x{token:08x}")
                end = (i + 1) * 4
                if end != len(self.data):
                    raise TrailingDataError(end, f"{_plural(len(self.data) - end, 'byte')} follow the END token")
                return Shader(version, tuple(items), ctab, tuple(self.diagnostics))
            instruction, i = self._instruction(i)
            items.append(instruction)

    # -- instructions -------------------------------------------------------

    def _instruction(self, i: int) -> tuple[Instruction, int]:
        token = self.tokens[i]
        offset = i * 4
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

        if self.sm1:
            length_field = (token & BITS.LENGTH_MASK) >> BITS.LENGTH_SHIFT
            if length_field:
                raise ReservedBitsError(offset, f"bits 24-27 are reserved in shader model 1 but hold {length_field}")
            end = None  # parameter count comes from the tables
        else:
            length = (token & BITS.LENGTH_MASK) >> BITS.LENGTH_SHIFT
            end = i + 1 + length
            if end > self.ntokens:
                raise TruncatedError(offset, f"'{info.mnemonic}' declares {length} parameter tokens but only {self.ntokens - i - 1} remain")

        reader = _Operands(self, i + 1, end, info)
        if info.layout is Layout.DCL:
            usage_token = reader.raw("the DCL usage token")
            if not usage_token & BITS.PARAM:
                raise OperandError(reader.last_offset, f"the DCL usage token 0x{usage_token:08x} must have bit 31 set")
            if usage_token & DCL_RESERVED_MASK:
                raise ReservedBitsError(reader.last_offset, f"reserved bits are set in the DCL usage token 0x{usage_token:08x}")
            dst = reader.dst()
            reader.finish()
            inst = Instruction(opcode, dst, declaration=Declaration(usage_token), offset=offset)
        elif info.layout in (Layout.DEF, Layout.DEFI, Layout.DEFB):
            dst = reader.dst()
            count = 1 if info.layout is Layout.DEFB else 4
            literals = tuple(reader.raw("a constant value") for _ in range(count))
            reader.finish()
            inst = Instruction(opcode, dst, literals=literals, offset=offset)
        else:
            inst = self._operands(reader, info, opcode, control, predicated, coissue, offset)
        return inst, reader.pos

    def _operands(self, reader, info: OpcodeInfo, opcode, control, predicated, coissue, offset) -> Instruction:
        forms = info.forms_for(self.version)
        has_dst = forms[0].has_dst
        dst = reader.dst() if has_dst else None
        predicate = reader.predicate() if predicated else None
        srcs: list[SourceOperand] = []
        if self.sm1:
            for _ in range(forms[0].nsrc):
                srcs.append(reader.src())
        else:
            while not reader.at_end():
                srcs.append(reader.src())
            if not any(f.nsrc == len(srcs) for f in forms):
                want = " or ".join(str(f.nsrc) for f in forms)
                raise LengthMismatchError(offset, f"the length field gives '{info.mnemonic}' {len(srcs)} source operand(s); it takes {want}")
        return Instruction(opcode, dst, tuple(srcs), control, predicate, coissue, offset=offset)

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


class _Operands:
    """Reads the parameter tokens of one instruction."""

    def __init__(self, dec: _Decoder, pos: int, end: int | None, info: OpcodeInfo):
        self.dec = dec
        self.pos = pos
        self.end = end  # None in SM1: read exactly what the tables say
        self.info = info
        self.last_offset = pos * 4
        self.version = dec.version

    def at_end(self) -> bool:
        return self.pos >= self.end  # type: ignore[operator]

    def raw(self, what: str) -> int:
        limit = self.dec.ntokens if self.end is None else self.end
        if self.pos >= limit:
            if self.end is not None and self.end < self.dec.ntokens:
                raise LengthMismatchError(self.pos * 4, f"the length field of '{self.info.mnemonic}' ends before {what}")
            raise self.dec._truncated(self.pos, f"'{self.info.mnemonic}' (expected {what})")
        token = self.dec.tokens[self.pos]
        self.last_offset = self.pos * 4
        self.pos += 1
        return token

    def finish(self) -> None:
        if self.end is not None and self.pos != self.end:
            raise LengthMismatchError(self.pos * 4, f"the length field of '{self.info.mnemonic}' counts {self.end - self.pos} token(s) more than its operands use")

    def _param(self, what: str) -> tuple[int, int]:
        token = self.raw(f"its {what} token")
        offset = self.last_offset
        if not token & BITS.PARAM:
            raise OperandError(offset, f"expected the {what} token of '{self.info.mnemonic}', found 0x{token:08x} (bit 31 clear)")
        if token & BITS.PARAM_RESERVED:
            raise ReservedBitsError(offset, f"reserved bits 14-15 are set in {what} token 0x{token:08x}")
        return token, offset

    def _register(self, token: int, offset: int, role: str) -> tuple[RegisterType, int]:
        value = register_type_of(token)
        index = token & BITS.REG_NUM_MASK
        version = self.version
        try:
            rtype = RegisterType(value)
        except ValueError:
            raise RegisterError(offset, f"register type {value} in the {role} is not a D3D9 register type") from None
        rf = register_file(version, rtype)
        if rf is None:
            raise RegisterError(offset, f"register type {_type_name(rtype, version)} ({value}) in the {role} does not exist in {version}")
        if index >= rf.count:
            raise RegisterError(offset, f"{_type_name(rtype, version)} register index {index} in the {role} is out of range for {version} (0-{rf.count - 1})")
        return rtype, index

    def dst(self) -> DestOperand:
        token, offset = self._param(_DST)
        rtype, index = self._register(token, offset, _DST)
        version = self.version
        opcode = self.info.opcode
        if opcode not in DST_READ_OPCODES and self.info.layout is Layout.OPERANDS:
            rf = register_file(version, rtype)
            if not rf.writable:
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
            if self.dec.sm1 or not (version.is_vertex and version.major == 3 and rtype == R.TEXCRDOUT):
                raise RegisterError(offset, f"relative addressing of a {_type_name(rtype, version)} destination is not allowed in {version}")
            relative = self._relative(offset)
        return DestOperand(rtype, index, (token & BITS.WRITEMASK_MASK) >> BITS.WRITEMASK_SHIFT, DstMod(mods), shift, relative)

    def src(self, role: str = _SRC) -> SourceOperand:
        token, offset = self._param(role)
        rtype, index = self._register(token, offset, role)
        mod_value = (token & BITS.SRCMOD_MASK) >> BITS.SRCMOD_SHIFT
        try:
            modifier = SrcMod(mod_value)
        except ValueError:
            raise ReservedBitsError(offset, f"source modifier {mod_value} is reserved (token 0x{token:08x})") from None
        relative = None
        if token & BITS.RELATIVE:
            relative = self._source_relative(rtype, offset)
        return SourceOperand(rtype, index, (token & BITS.SWIZZLE_MASK) >> BITS.SWIZZLE_SHIFT, modifier, relative)

    def predicate(self) -> SourceOperand:
        pred = self.src(_PRED)
        if pred.type != R.PREDICATE:
            raise OperandError(self.last_offset, f"the predicate token of '{self.info.mnemonic}' names {pred.type.name}, not p0")
        if pred.modifier not in (SrcMod.NONE, SrcMod.NOT):
            raise OperandError(self.last_offset, "a predicate token may only carry the NOT modifier")
        return pred

    def _source_relative(self, rtype: RegisterType, offset: int) -> RelativeAddress:
        version = self.version
        allowed = False
        if version.is_vertex:
            allowed = rtype in (R.CONST, R.CONST2, R.CONST3, R.CONST4) or (version.major >= 3 and rtype == R.INPUT)
        elif version.major >= 3:
            allowed = rtype == R.INPUT
        if not allowed:
            raise RegisterError(offset, f"relative addressing of {_type_name(rtype, version)} registers is not allowed in {version}")
        if self.dec.sm1:
            return RelativeAddress(R.ADDR, 0, 0, implicit=True)
        return self._relative(offset)

    def _relative(self, operand_offset: int) -> RelativeAddress:
        token, offset = self._param(_REL)
        rtype, index = self._register(token, offset, _REL)
        if rtype not in (R.ADDR, R.LOOP) or (rtype == R.ADDR and self.version.is_pixel):
            raise RegisterError(offset, f"a relative address must be a0 or aL, not {_type_name(rtype, self.version)}")
        if token & (BITS.SRCMOD_MASK | BITS.RELATIVE):
            raise ReservedBitsError(offset, f"a relative-address token may carry no modifier or nested relative bit (0x{token:08x})")
        return RelativeAddress(rtype, index, (token & BITS.SWIZZLE_MASK) >> BITS.SWIZZLE_SHIFT)
