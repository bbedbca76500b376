"""FX token stream -> ``Preshader``.

The stream is untrusted: every count and offset is checked against the bytes
before it is followed, nothing is allocated from a count before the data for
it has been seen, and each loop consumes input, so a hostile stream costs
O(len(data)) time and memory and fails with a ``PreshaderError`` that names
the absolute byte offset of the field at fault.  The layout is described in
``tables.py``.
"""

from __future__ import annotations

import struct

from ..bytecode.ctab import parse_ctab
from ..bytecode.model import Shader
from ..errors import CtabError, PreshaderError
from .model import Instruction, Operand, Preshader, PrsiInfo, Register, RegisterRange
from .tables import (
    COMMENT,
    COMPONENT_MASK,
    END_TOKEN,
    FOURCC_CLIT,
    FOURCC_CTAB,
    FOURCC_FXLC,
    FOURCC_PRSI,
    FX_SIGNATURE,
    KNOWN_CODES,
    MAX_COMPONENTS,
    MAX_REGISTERS,
    OPCODE_MASK,
    OPCODE_SHIFT,
    OPCODES_BY_CODE,
    SCALAR_FLAG,
    Reduction,
    RegisterFile,
)

_FILES = {int(f): f for f in RegisterFile}
_WRITABLE = (RegisterFile.TEMP, RegisterFile.OUTPUT, RegisterFile.OUTPUT_BOOL, RegisterFile.OUTPUT_INT)
PRSI_HEADER_WORDS = 7


def _fourcc_text(word: int) -> str:
    raw = struct.pack("<I", word)
    if all(0x20 <= b < 0x7F for b in raw):
        return raw.decode("ascii")
    return f"0x{word:08x}"


class _Words:
    """The DWORDs of one region, with error offsets made absolute."""

    def __init__(self, data: bytes, start: int, end: int, base: int):
        self.data = data
        self.pos = start
        self.end = end
        self.base = base

    def error(self, pos: int, reason: str) -> PreshaderError:
        return PreshaderError(self.base + pos, reason)

    def remaining(self) -> int:
        return (self.end - self.pos) // 4

    def take(self, what: str) -> int:
        if self.pos + 4 > self.end:
            raise self.error(self.pos, f"the block ends before {what}")
        value = struct.unpack_from("<I", self.data, self.pos)[0]
        self.pos += 4
        return value


def _register(words: _Words, what: str) -> Register:
    at = words.pos
    code = words.take(f"the register file of {what}")
    offset = words.take(f"the register offset of {what}")
    regfile = _FILES.get(code)
    if regfile is None:
        raise words.error(at, f"{what} names register file {code}, which FXLVM does not have")
    return Register(regfile, offset)


def _operand(words: _Words, components: int, what: str) -> Operand:
    at = words.pos
    flag = words.take(f"the relative-addressing flag of {what}")
    if flag not in (0, 1):
        raise words.error(at, f"{what} has relative-addressing flag {flag} (only 0 and 1 exist)")
    relative = _register(words, f"the index register of {what}") if flag else None
    register = _register(words, what)
    return Operand(register, components, relative)


def _instruction(words: _Words, literal_count: int, number: int) -> Instruction:
    at = words.pos
    raw = words.take(f"instruction {number}")
    count_at = words.pos
    input_count = words.take(f"the input count of instruction {number}")
    code = (raw & OPCODE_MASK) >> OPCODE_SHIFT
    components = raw & COMPONENT_MASK
    scalar = bool(raw & SCALAR_FLAG)
    opcode = OPCODES_BY_CODE.get((code, input_count))
    if opcode is None:
        if code in KNOWN_CODES:
            raise words.error(count_at, f"FXLVM operation 0x{code:03x} does not take {input_count} inputs")
        raise words.error(at, f"unknown FXLVM operation 0x{code:03x} (opcode token 0x{raw:08x})")
    if not 1 <= components <= MAX_COMPONENTS:
        raise words.error(at, f"instruction {number} ({opcode.mnemonic}) has {components} components; 1 to 4 are possible")
    if raw & ~(OPCODE_MASK | SCALAR_FLAG | COMPONENT_MASK):
        raise words.error(at, f"instruction {number} ({opcode.mnemonic}) sets reserved bits in its opcode token 0x{raw:08x}")
    inputs = []
    for k in range(input_count):
        width = 1 if (scalar and k == 0) or opcode.reduction is Reduction.DOTSWIZ else components
        op_at = words.pos
        operand = _operand(words, width, f"input {k + 1} of instruction {number} ({opcode.mnemonic})")
        reg = operand.register
        if reg.file == RegisterFile.LITERAL and operand.relative is None and reg.offset + width > literal_count:
            raise words.error(op_at, f"input {k + 1} of instruction {number} reads literal {reg.offset}"
                              f"{'' if width == 1 else f'..{reg.offset + width - 1}'} but CLIT holds {literal_count}")
        inputs.append(operand)
    out_at = words.pos
    out_width = 1 if opcode.reduction is Reduction.DOT else components
    output = _operand(words, out_width, f"the output of instruction {number} ({opcode.mnemonic})")
    if output.relative is not None:
        raise words.error(out_at, f"the output of instruction {number} ({opcode.mnemonic}) is relatively addressed, which FXLVM does not do")
    if output.file not in _WRITABLE:
        raise words.error(out_at, f"instruction {number} ({opcode.mnemonic}) writes to the {output.file.name.lower()} register file, which is read-only")
    if output.register.index + 1 >= MAX_REGISTERS:
        raise words.error(out_at, f"instruction {number} ({opcode.mnemonic}) writes register {output.register.index}, "
                          f"past the {MAX_REGISTERS} registers of Direct3D 9's largest constant file")
    return Instruction(opcode, components, scalar, tuple(inputs), output, raw, at)


def _literals(words: _Words) -> tuple[float, ...]:
    at = words.pos
    count = words.take("the literal count")
    available = words.remaining() // 2
    if count > available:
        raise words.error(at, f"CLIT says {count} literals but holds room for {available}")
    start = words.pos
    words.pos += 8 * count
    return struct.unpack_from(f"<{count}d", words.data, start)


def _program(words: _Words, literal_count: int) -> tuple[Instruction, ...]:
    at = words.pos
    count = words.take("the instruction count")
    # The smallest instruction (nop: token, count, output) is 5 DWORDs: a
    # count the block cannot hold fails before anything is read.
    if count > words.remaining() // 5:
        raise words.error(at, f"FXLC says {count} instructions but holds room for at most {words.remaining() // 5}")
    return tuple(_instruction(words, literal_count, n) for n in range(count))


def _prsi(words: _Words) -> PrsiInfo:
    at = words.pos
    if words.remaining() < PRSI_HEADER_WORDS:
        raise words.error(at, f"PRSI holds {words.remaining()} DWORDs; its header alone is {PRSI_HEADER_WORDS}")
    raw = struct.unpack_from(f"<{words.remaining()}I", words.data, words.pos)
    count = raw[6]
    if count > (len(raw) - PRSI_HEADER_WORDS) // 2:
        raise words.error(at + 24, f"PRSI says {count} register ranges but holds room for {(len(raw) - PRSI_HEADER_WORDS) // 2}")
    ranges = tuple(RegisterRange(raw[PRSI_HEADER_WORDS + 2 * i], raw[PRSI_HEADER_WORDS + 2 * i + 1]) for i in range(count))
    return PrsiInfo(raw[0], raw[3], ranges, raw)


def decode_preshader(data: bytes, base_offset: int = 0) -> Preshader:
    """Decode an FX token stream: a shader's ``PRES`` payload or an effect
    state's expression.

    ``data`` starts with the FX version token and normally ends with END
    (see ``Preshader.terminated``);
    ``base_offset`` is the absolute offset of ``data[0]`` in the enclosing
    blob and is added to every error offset.  Raises ``PreshaderError``
    (a malformed CTAB block included) and nothing else.
    """
    data = bytes(data)
    size = len(data)
    top = _Words(data, 0, size - size % 4, base_offset)
    if size < 4:
        raise PreshaderError(base_offset, f"{size} bytes are too few for an FX stream (a version token is 4)")
    version = top.take("the version token")
    if version >> 16 != FX_SIGNATURE:
        raise top.error(0, f"0x{version:08x} is no FX version token (expected 0x4658....)")
    ctab = prsi = None
    literals: tuple[float, ...] = ()
    program_at: tuple[int, int] | None = None
    blocks: list[str] = []
    seen: set[int] = set()
    # d3dx9 reads comment blocks until the first token that is not one and
    # needs no END: Wine's test effects hold expressions hand-edited inside
    # their old size, whose last block swallows the END.  So the stream ends
    # at END, at the end of the data, or at any other token; ``terminated``
    # and ``trailing_bytes`` tell a caller which, to say so.
    terminated = False
    while top.pos + 4 <= size:
        at = top.pos
        token = struct.unpack_from("<I", data, at)[0]
        if token & 0xFFFF != COMMENT or token & 0x80000000:
            if token == END_TOKEN:
                top.pos += 4
                terminated = True
            break
        top.pos += 4
        words = token >> 16
        start = top.pos
        end = start + 4 * words
        if end > top.end:
            raise top.error(at, f"a comment block of {words} DWORDs runs past the end of the FX stream")
        top.pos = end
        if words == 0:
            blocks.append("")
            continue
        fourcc = struct.unpack_from("<I", data, start)[0]
        blocks.append(_fourcc_text(fourcc))
        body = _Words(data, start + 4, end, base_offset)
        if fourcc in (FOURCC_CTAB, FOURCC_CLIT, FOURCC_FXLC, FOURCC_PRSI):
            if fourcc in seen:
                raise top.error(at, f"a second {_fourcc_text(fourcc)} block in one FX stream")
            seen.add(fourcc)
        if fourcc == FOURCC_CTAB:
            try:
                ctab = parse_ctab(data[start + 4:end], base_offset + start + 4)
            except CtabError as err:
                raise PreshaderError(err.offset, f"the preshader's constant table: {err.reason}") from None
        elif fourcc == FOURCC_CLIT:
            literals = _literals(body)
        elif fourcc == FOURCC_FXLC:
            program_at = (start + 4, end)  # decoded once CLIT (which may follow) is known
        elif fourcc == FOURCC_PRSI:
            prsi = _prsi(body)
    trailing = size - top.pos
    instructions: tuple[Instruction, ...] = ()
    if program_at is not None:
        instructions = _program(_Words(data, program_at[0], program_at[1], base_offset), len(literals))
    return Preshader(version, ctab, literals, instructions, prsi, tuple(blocks), terminated, trailing, base_offset)


def shader_preshader(shader: Shader) -> Preshader | None:
    """The preshader in ``shader``'s ``PRES`` comment, decoded; ``None``
    when it has none.  Raises ``PreshaderError`` when it is malformed."""
    for comment in shader.comments:
        if comment.fourcc == "PRES":
            base = comment.offset + 8 if comment.offset >= 0 else 0  # comment token, FourCC, payload
            return decode_preshader(comment.payload, base)
    return None

