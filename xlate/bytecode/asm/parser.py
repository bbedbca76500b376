"""Preprocessed assembly lines -> ``Shader``: lexing, parsing and the checks
of ``rules.py``, each error tied to the line and column of its token.

One statement per line: the version (``vs_3_0``, ``ps.1.4``), then
instructions of the form

    [+] [(!p0.x)] mnemonic[_cmp][_mods] [dst] [, src]...

where a source is ``[-|!][1-]reg[[index]][_mod][.swizzle]`` and a
destination ``reg[[index]][.mask]``.  Mnemonic suffixes are split on ``_``:
``if_lt``, ``dcl_texcoord1_pp``, ``mov_x2_sat``.  The syntax is fxc's
``/Fc`` listing syntax plus what Microsoft's assembler accepts (see the
module docstring of ``__init__``), and the spellings ``disasm.py`` uses for
what fxc cannot print (``docs/disassembly.md``, "Extensions").
"""

from __future__ import annotations

import functools
import re
import struct
from dataclasses import dataclass, field
from typing import NamedTuple

from ...errors import AsmError
from ..model import Declaration, DestOperand, Instruction, RelativeAddress, Shader, SourceOperand
from ..tables import (
    ASM_SPELLINGS,
    BITS,
    COLOR_COMPONENTS,
    COMPARISON_STEMS,
    COMPONENTS,
    CONST_FILE_BASE,
    DCL_SAMPLER_TYPE_SHIFT,
    DCL_USAGE_INDEX_SHIFT,
    DEF_REGISTER,
    DST_MOD_SUFFIX,
    FULL_MASK,
    IDENTITY_SWIZZLE,
    MISC_NAMES,
    MNEMONICS,
    OPCODES,
    RASTOUT_NAMES,
    REGISTER_FILES,
    SAMPLER_TYPE_BY_ASM,
    SHIFT_BY_SUFFIX,
    SRC_MOD_BY_SPELLING,
    USAGE_BY_ASM,
    Comparison,
    DstMod,
    Layout,
    Opcode,
    OpcodeInfo,
    RegisterFile,
    RegisterType,
    ShaderVersion,
    SrcMod,
    in_range,
    make_swizzle,
    register_name,
)
from . import rules
from .preprocess import Line

R = RegisterType

_VERSION = re.compile(r"(vs|ps)[._](\d{1,3})[._](\d{1,3}|x|sw)", re.IGNORECASE | re.ASCII)

_TOKEN = re.compile(
    r"""(?P<number>0[xX][0-9A-Fa-f]+ | (?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?:\#[A-Za-z]+\d*)?[fF]?)
      | (?P<word>[A-Za-z_]\w*)
      | (?P<punct>[,\[\]()+\-!.])
      | (?P<bad>\S)""",
    re.VERBOSE | re.ASCII,  # ASCII: a register or mnemonic never holds other letters or digits
)

_COMPONENT = {c: i for i, c in enumerate(COMPONENTS)} | {c: i for i, c in enumerate(COLOR_COMPONENTS)}
_COMPARISONS = {c.name.lower(): c for c in Comparison}  # gt eq ge lt ne le; never/always (extension)
_DST_MODS = {suffix[1:]: flag for flag, suffix in DST_MOD_SUFFIX.items()}  # sat pp centroid
_SHIFTS = {suffix[1:]: shift for suffix, shift in SHIFT_BY_SUFFIX.items()}  # x2 ... d8
_STEM_OF = {op: stem for stem, op in COMPARISON_STEMS.items()}

# Non-finite def values as MSVC's printf writes them (1.#INF, -1.#IND, 1.#QNAN).
_SPECIAL_FLOATS = {"inf": 0x7F800000, "qnan": 0x7FC00000, "ind": 0x7FC00000, "snan": 0x7F800001}
_SIGN_BIT = 0x80000000
_MAX_DIGITS = 64  # longer numbers are refused before int()/float() see them


class Token(NamedTuple):
    kind: str  # "number", "word", "punct" or "end"
    text: str
    off: int  # offset in the line's text


@dataclass
class Mnemonic:
    """A mnemonic word taken apart: ``dcl_texcoord1_pp``, ``if_lt``, ``mov_x2_sat``."""

    opcode: Opcode
    spelled: str  # the stem as written, lower-case ("texld", "if", "mov")
    control: int = 0
    mods: DstMod = DstMod.NONE
    shift: int = 0
    usage: int | None = None  # dcl_<usage><index>
    usage_index: int = 0
    sampler: int | None = None  # dcl_2d, dcl_cube, ...
    raw_decl: int | None = None  # dcl_0x80000005 (extension)
    suffix_at: dict[str, int] = field(default_factory=dict)  # "sat"/"pp"/"centroid"/"shift" -> offset


@functools.lru_cache(maxsize=None)
def _register_names(version: ShaderVersion) -> tuple[dict[str, tuple[RegisterType, int]], dict[str, tuple[RegisterFile, ...]]]:
    """(fixed names -> register, numbered prefix -> files) for one version.

    Fixed names are the unnumbered ones: oPos/oFog/oPts (RASTOUT 0-2),
    vPos/vFace (MISCTYPE 0-1), aL, oDepth.  The four float-constant files
    share the prefix ``c`` (c0-c8191 in vertex shaders)."""
    files = REGISTER_FILES[version]
    fixed: dict[str, tuple[RegisterType, int]] = {}
    prefixes: dict[str, list[RegisterFile]] = {}
    for rf in files.values():
        if rf.type == R.RASTOUT:
            fixed.update({n.lower(): (R.RASTOUT, i) for i, n in enumerate(RASTOUT_NAMES[: rf.count])})
        elif rf.type == R.MISCTYPE:
            fixed.update({n.lower(): (R.MISCTYPE, i) for i, n in enumerate(MISC_NAMES[: rf.count])})
        elif not rf.numbered:
            fixed[rf.prefix.lower()] = (rf.type, 0)
        else:
            prefixes.setdefault(rf.prefix.lower(), []).append(rf)
    return fixed, {k: tuple(v) for k, v in prefixes.items()}


def _split_word(word: str) -> tuple[str, str | None]:
    """``r1_bx2`` -> (``r1``, ``_bx2``); register names hold no underscore."""
    head, sep, tail = word.partition("_")
    return head, (sep + tail.lower() if sep else None)


class _Statement:
    """Parses one line (one instruction) of a shader of a known version."""

    def __init__(self, line: Line, version: ShaderVersion, source: str):
        self.line = line
        self.version = version
        self.source = source
        self.fixed, self.prefixes = _register_names(version)
        self.tokens = self._lex()
        self.i = 0

    # -- tokens ----------------------------------------------------------------

    def _lex(self) -> list[Token]:
        text = self.line.text
        tokens = []
        for m in _TOKEN.finditer(text):
            if m.lastgroup == "bad":
                raise self.fail(m.start(), f"unexpected character {m.group()!r}")
            tokens.append(Token(m.lastgroup, m.group(), m.start()))
        tokens.append(Token("end", "", len(text)))
        return tokens

    def fail(self, where: int | Token, reason: str) -> AsmError:
        off = where.off if isinstance(where, Token) else where
        line, col = self.line.position(off)
        return AsmError(line, col, reason, self.source)

    def peek(self) -> Token:
        return self.tokens[self.i]

    def next(self) -> Token:
        tok = self.tokens[self.i]
        if tok.kind != "end":  # the end token is never passed
            self.i += 1
        return tok

    def accept(self, punct: str) -> Token | None:
        tok = self.tokens[self.i]
        if tok.text == punct and tok.kind == "punct":
            self.i += 1
            return tok
        return None

    def expect_word(self, what: str) -> Token:
        tok = self.next()
        if tok.kind != "word":
            raise self.fail(tok, f"expected {what}, found {_describe(tok)}")
        return tok

    # -- the instruction --------------------------------------------------------

    def instruction(self, follows_instruction: bool) -> Instruction:
        version = self.version
        plus = self.accept("+")
        paren = self.peek()
        predicate = self.predicate() if paren.text == "(" else None
        tok = self.word = self.expect_word("an instruction")
        m = self.mnemonic(tok)
        info = OPCODES[m.opcode]
        if not info.allowed_in(version):
            raise self.fail(tok, f"'{m.spelled}' does not exist in {version}")
        if plus is not None:
            problem = rules.coissue_problem(version)
            if problem is None and not follows_instruction:
                problem = "a co-issued ('+') instruction must follow the instruction it pairs with"
            if problem:
                raise self.fail(plus, problem)
        if predicate is not None and (problem := rules.predicable_problem(info, m.spelled)):
            raise self.fail(paren, problem)
        for part, off in m.suffix_at.items():  # each modifier checked alone, to point at it
            mods, shift = (DstMod.NONE, m.shift) if part == "shift" else (_DST_MODS[part], 0)
            if problem := rules.result_modifier_problem(version, info, m.spelled, mods, shift):
                raise self.fail(off, problem)

        self.check_operand_count(m, info)
        if info.layout is Layout.DCL:
            inst = self.declaration(m)
        elif info.layout in DEF_REGISTER:
            inst = self.definition(m, info)
        else:
            dst = self.destination(m, info) if info.forms[0].has_dst else None
            srcs = []
            while self.peek().kind != "end":
                if dst is not None or srcs:
                    self.expect_comma()
                srcs.append(self.source_operand(info, int(dst is not None) + len(srcs), m.spelled))
            inst = Instruction(m.opcode, dst, tuple(srcs), m.control, predicate, plus is not None)
        if self.peek().kind != "end":
            raise self.fail(self.peek(), f"unexpected {_describe(self.peek())} after the operands")
        return inst

    def check_operand_count(self, m: Mnemonic, info: OpcodeInfo) -> None:
        """Count the comma-separated operands before reading any, so that a
        wrong count is reported as such (at the first extra operand)."""
        rest = self.tokens[self.i:-1]
        commas = [t for t in rest if t.kind == "punct" and t.text == ","]
        count = len(commas) + 1 if rest else 0
        if info.layout is Layout.DCL:
            allowed = [1]
        elif info.layout in DEF_REGISTER:
            allowed = [2 if info.layout is Layout.DEFB else 5]
        else:
            allowed = sorted({int(f.has_dst) + f.nsrc for f in info.forms_for(self.version)})
        if count in allowed:
            return
        want = " or ".join(map(str, allowed))
        reason = f"'{m.spelled}' takes {want} operand{'s' if allowed != [1] else ''} in {self.version}, not {count}"
        if count > max(allowed):
            extra = self.tokens.index(commas[max(allowed) - 1]) + 1 if max(allowed) else self.i
            raise self.fail(self.tokens[extra], reason)
        raise self.fail(len(self.line.text), reason)

    def expect_comma(self) -> None:
        if self.accept(",") is None:
            raise self.fail(self.peek(), f"expected ',', found {_describe(self.peek())}")

    # -- mnemonics --------------------------------------------------------------

    def mnemonic(self, tok: Token) -> Mnemonic:
        parts = tok.text.lower().split("_")
        offsets = [tok.off]
        for part in parts[:-1]:
            offsets.append(offsets[-1] + len(part) + 1)
        for part, off in zip(parts, offsets):
            if not part:
                raise self.fail(off, f"misplaced '_' in '{tok.text}'")
        stem, rest = parts[0], 1
        m = Mnemonic(Opcode.NOP, stem)
        if stem == "dcl":
            m.opcode = Opcode.DCL
            if len(parts) > 1 and parts[1] not in _DST_MODS and parts[1] not in _SHIFTS:
                self.dcl_kind(m, parts[1], offsets[1])
                rest = 2
        elif stem in COMPARISON_STEMS and len(parts) > 1 and parts[1] in _COMPARISONS:
            m.opcode, m.control = COMPARISON_STEMS[stem], int(_COMPARISONS[parts[1]])
            m.spelled = f"{stem}_{parts[1]}"
            rest = 2
        elif stem in ASM_SPELLINGS:
            m.opcode, m.control, versions = ASM_SPELLINGS[stem]
            if not in_range(self.version, versions) and OPCODES[m.opcode].allowed_in(self.version):
                right = [s for s, (op, control, v) in ASM_SPELLINGS.items()
                         if (op, control) == (m.opcode, m.control) and in_range(self.version, v)]
                hint = f"; {self.version} writes it '{right[0]}'" if right else ""
                raise self.fail(tok, f"'{stem}' is not a {self.version} instruction{hint}")
        elif stem in MNEMONICS:
            m.opcode = MNEMONICS[stem]
            if OPCODES[m.opcode].comparison:
                example = _STEM_OF[m.opcode] + "_lt"
                raise self.fail(tok, f"'{stem}' needs a comparison suffix: {example}, _gt, _eq, _ne, _ge or _le")
        else:
            raise self.fail(tok, f"unknown instruction '{tok.text}'")
        for part, off in zip(parts[rest:], offsets[rest:]):
            self.result_modifier(m, part, off)
        return m

    def result_modifier(self, m: Mnemonic, part: str, off: int) -> None:
        if part in _DST_MODS:
            flag = _DST_MODS[part]
            if m.mods & flag:
                raise self.fail(off - 1, f"the modifier _{part} is written twice")
            m.mods |= flag
            m.suffix_at[part] = off - 1
            return
        shift = _SHIFTS.get(part)
        # _shift4 ... _shift12: a reserved code, written as the raw 4-bit field (extension)
        reserved = re.fullmatch(r"shift(\d{1,2})", part)
        if shift is None and reserved and int(reserved.group(1)) < 16:
            code = int(reserved.group(1))
            shift = code - 16 if code >= 8 else code
        if shift is None:
            raise self.fail(off - 1, f"unknown modifier '_{part}' on '{m.spelled}'")
        if "shift" in m.suffix_at:
            raise self.fail(off - 1, "an instruction takes only one result shift")
        m.shift = shift
        m.suffix_at["shift"] = off - 1

    def dcl_kind(self, m: Mnemonic, part: str, off: int) -> None:
        """The part after ``dcl_``: a usage with optional index, a texture type,
        or the whole usage token in hex (extension)."""
        if re.fullmatch(r"0x[0-9a-f]{1,8}", part):
            m.raw_decl = int(part, 16)
        elif part in SAMPLER_TYPE_BY_ASM:
            m.sampler = int(SAMPLER_TYPE_BY_ASM[part])
        else:
            u = re.fullmatch(r"([a-z]+)(\d{0,2})", part)
            if u is None or u.group(1) not in USAGE_BY_ASM:
                raise self.fail(off, f"unknown dcl usage '{part}'")
            index = int(u.group(2) or 0)
            if index > 15:
                raise self.fail(off, f"usage index {index} is out of range (0-15)")
            m.usage, m.usage_index = int(USAGE_BY_ASM[u.group(1)]), index

    # -- operands -----------------------------------------------------------------

    def predicate(self) -> SourceOperand:
        paren = self.next()
        if problem := rules.predication_problem(self.version):
            raise self.fail(paren, problem)
        negate = self.accept("!") is not None
        tok = self.expect_word("the predicate register p0")
        name, suffix = _split_word(tok.text)
        rtype, index, _ = self.register(tok, name, dst=False, written=False)
        if rtype != R.PREDICATE or suffix:
            raise self.fail(tok, f"an instruction is predicated on p0, not {tok.text}")
        swizzle = self.swizzle() if self.accept(".") else IDENTITY_SWIZZLE
        if self.accept(")") is None:
            raise self.fail(self.peek(), f"expected ')' after the predicate, found {_describe(self.peek())}")
        return SourceOperand(rtype, index, swizzle, SrcMod.NOT if negate else SrcMod.NONE)

    def destination(self, m: Mnemonic, info: OpcodeInfo) -> DestOperand:
        tok = self.expect_word("a destination register")
        name, suffix = _split_word(tok.text)
        if suffix:
            raise self.fail(tok.off + len(name), f"'{suffix}' is a source modifier; a destination cannot take it")
        written = rules.destination_access(info)
        rtype, index, rel = self.register(tok, name, dst=True, written=written)
        problem = rules.operand_type_problem(info.opcode, 0, rtype, tok.text, m.spelled)
        if problem is None and written:  # p0 is written by setp alone (validity.WRITTEN_ONLY_BY)
            problem = rules.written_problem(info.opcode, rtype, tok.text, m.spelled)
        if problem:
            raise self.fail(tok, problem)
        mask = self.write_mask() if self.accept(".") else FULL_MASK
        return DestOperand(rtype, index, mask, m.mods, m.shift, rel)

    def source_operand(self, info: OpcodeInfo, slot: int, spelled: str) -> SourceOperand:
        start = self.peek()
        prefix = ""
        if self.accept("-"):
            prefix = "-"
        elif self.accept("!"):
            prefix = "!"
        if self.peek().kind == "number":
            one = self.next()
            if one.text != "1" or prefix == "!" or self.accept("-") is None:
                raise self.fail(one, f"only '1-' (complement) may come before a register, not '{one.text}'")
            prefix += "1-"
        tok = self.expect_word("a source register")
        name, suffix = _split_word(tok.text)
        rtype, index, rel = self.register(tok, name, dst=False, written=False)
        after = self.peek()
        if suffix is None and after.kind == "word" and after.text.startswith("_"):
            suffix = self.next().text.lower()  # c0[a0.x]_abs
        swizzle = IDENTITY_SWIZZLE
        if self.accept("."):
            letters, late = _split_word(self.peek().text)
            if late is not None and suffix is None:  # r0.x_abs: modifier after the swizzle (HlslDecompiler)
                suffix = late
            else:
                letters = None
            swizzle = self.swizzle(letters)
        spelling = f"{prefix}{name}{suffix or ''}"
        mod = SRC_MOD_BY_SPELLING.get((prefix, suffix or ""))
        if mod is None:
            raise self.fail(start, f"'{spelling}' is not a valid source modifier combination")
        if problem := rules.src_modifier_problem(self.version, mod, rtype, info.opcode, spelling):
            raise self.fail(start, problem)
        if problem := rules.operand_type_problem(info.opcode, slot, rtype, tok.text, spelled):
            raise self.fail(tok, problem)
        return SourceOperand(rtype, index, swizzle, mod, rel)

    def register(self, tok: Token, name: str, *, dst: bool, written: bool | None) -> tuple[RegisterType, int, RelativeAddress | None]:
        """Resolve a register name, with its optional ``[...]`` index, and
        check that it exists (and may be written/read) in this version."""
        rtype, number, files = self.lookup(tok, name)
        offset, rel = (0, None)
        bracket = self.peek()
        if bracket.text == "[":
            if files is None:
                raise self.fail(bracket, f"{name} cannot be indexed")
            offset, rel = self.index_expression()
        if files is not None:
            if number is None and bracket.text != "[":
                raise self.fail(tok, f"register {name} needs a number")
            index = (number or 0) + offset
            rtype, index = _pick_file(files, index)
            if index >= rules.FIELD_LIMIT:
                raise self.fail(tok, f"register {files[0].prefix}{(number or 0) + offset} is out of range: "
                                     f"register numbers stop at {rules.FIELD_LIMIT - 1}")
        else:
            index = number
        if problem := rules.register_problem(self.version, rtype, index, written=written, relative=rel is not None):
            raise self.fail(tok, problem)
        prefix = files[0].prefix + "#" if files else name
        if rel is not None and (problem := rules.relative_problem(self.version, rtype, prefix, dst=dst)):
            raise self.fail(tok, problem)
        return rtype, index, rel

    def lookup(self, tok: Token, name: str) -> tuple[RegisterType | None, int | None, tuple[RegisterFile, ...] | None]:
        """(type, index, None) for a fixed name like oPos, or (None, number
        or None, files) for a numbered prefix like r3 or a bare c."""
        lower = name.lower()
        if lower in self.fixed:
            rtype, index = self.fixed[lower]
            return rtype, index, None
        m = re.fullmatch(r"([a-z]+)(\d*)", lower)
        files = self.prefixes.get(m.group(1)) if m else None
        if files is None:
            raise self.fail(tok, f"register {name} does not exist in {self.version}")
        digits = m.group(2)
        if len(digits) > 5:
            raise self.fail(tok, f"register number {digits} is out of range")
        return None, (int(digits) if digits else None), files

    def index_expression(self) -> tuple[int, RelativeAddress | None]:
        """``[a0.x + 4]``, ``[4 + aL]``, ``[1 + 2 + 3]``: whole numbers and at
        most one address register, added up ('-' is refused as Microsoft's
        assembler does)."""
        self.next()  # [
        offset, rel = 0, None
        while True:
            tok = self.next_in_index()
            if tok.kind == "number":
                if not tok.text.isdigit():
                    raise self.fail(tok, f"an index offset must be a whole number, not {tok.text}")
                if len(tok.text) > 5:
                    raise self.fail(tok, f"index offset {tok.text} is out of range")
                offset += int(tok.text)
            elif tok.kind == "word":
                if rel is not None:
                    raise self.fail(tok, "only one address register may index a register")
                rel = self.address(tok)
            else:
                raise self.fail(tok, f"expected a number or an address register in the index, found {_describe(tok)}")
            tok = self.next_in_index()
            if tok.text == "]":
                return offset, rel
            if tok.text != "+":
                raise self.fail(tok, f"expected '+' or ']' in the index, found {_describe(tok)}")

    def next_in_index(self) -> Token:
        tok = self.next()
        if tok.text == "-":
            raise self.fail(tok, "'-' is not allowed inside an index; offsets are added, as in c[a0.x + 4]")
        return tok

    def address(self, tok: Token) -> RelativeAddress:
        name, suffix = _split_word(tok.text)
        if suffix:
            raise self.fail(tok, f"an address register takes no modifier ({tok.text})")
        rtype, number, files = self.lookup(tok, name)
        if files is not None:
            if number is None:
                raise self.fail(tok, f"register {name} needs a number")
            rtype, index = _pick_file(files, number)
        else:
            index = number
        if problem := rules.register_problem(self.version, rtype, index, written=False, relative=False):
            raise self.fail(tok, problem)
        swizzle_tok = None
        if self.accept("."):
            swizzle_tok = self.peek()
        if problem := rules.address_problem(self.version, rtype, name, swizzle_tok.text if swizzle_tok else None):
            raise self.fail(tok, problem)
        swizzle = self.swizzle() if swizzle_tok is not None else IDENTITY_SWIZZLE
        return RelativeAddress(rtype, index, swizzle, implicit=self.version.major == 1)

    def write_mask(self) -> int:
        tok = self.next()
        letters = tok.text.lower()
        if tok.kind == "word" and letters == "none":
            return 0  # an empty mask (extension)
        comps = [_COMPONENT.get(c) for c in letters] if tok.kind == "word" else [None]
        if None in comps or len(comps) > 4 or comps != sorted(set(comps)):
            raise self.fail(tok, f"'.{tok.text}' is not a write mask: name components once each, in xyzw (rgba) order")
        return sum(1 << c for c in comps)

    def swizzle(self, letters: str | None = None) -> int:
        """The swizzle word after a '.' (``letters``: its part before a late ``_mod``)."""
        tok = self.next()
        text = tok.text if letters is None else letters
        comps = [_COMPONENT.get(c) for c in text.lower()] if tok.kind == "word" else [None]
        if None in comps or not 1 <= len(comps) <= 4:
            raise self.fail(tok, f"'.{tok.text}' is not a swizzle: use one to four of x, y, z, w (or r, g, b, a)")
        return make_swizzle(comps)

    # -- dcl, def ------------------------------------------------------------------

    def declaration(self, m: Mnemonic) -> Instruction:
        tok = self.declared = self.expect_word("the register to declare")
        name, suffix = _split_word(tok.text)
        if suffix:
            raise self.fail(tok.off + len(name), f"'{suffix}' cannot follow a declared register")
        rtype, index, rel = self.register(tok, name, dst=True, written=None)
        if rel is not None:
            raise self.fail(tok, "a declared register cannot be relatively addressed")
        if m.raw_decl is None:
            usage, sampler = m.usage is not None, m.sampler is not None
        else:  # a raw usage token (dcl_0x...): judged as the disassembler would spell the register
            usage, sampler = rules.dcl_spelling(self.version, rtype)[1:]
        if problem := rules.dcl_problem(self.version, rtype, tok.text, usage=usage, sampler=sampler):
            raise self.fail(tok, problem)
        mask = self.write_mask() if self.accept(".") else FULL_MASK
        if m.raw_decl is not None:
            raw = m.raw_decl
        elif m.sampler is not None:
            raw = BITS.PARAM | (m.sampler << DCL_SAMPLER_TYPE_SHIFT)
        else:
            raw = BITS.PARAM | (m.usage or 0) | (m.usage_index << DCL_USAGE_INDEX_SHIFT)
        dst = DestOperand(rtype, index, mask, m.mods)
        return Instruction(Opcode.DCL, dst, declaration=Declaration(raw))

    def definition(self, m: Mnemonic, info: OpcodeInfo) -> Instruction:
        tok = self.expect_word("the constant register to define")
        name, suffix = _split_word(tok.text)
        rtype, index, rel = self.register(tok, name, dst=True, written=None)
        wanted = DEF_REGISTER[info.layout]
        if suffix or rel is not None or not (rtype == wanted or (wanted == R.CONST and rtype in CONST_FILE_BASE)):
            file_name = register_name(self.version, wanted, 0)[:-1] + "#"  # c#, i#, b#
            raise self.fail(tok, f"'{m.spelled}' defines {file_name} registers, not {tok.text}")
        mask = self.write_mask() if self.accept(".") else FULL_MASK
        literals = []
        for _ in range(1 if info.layout is Layout.DEFB else 4):
            self.expect_comma()
            literals.append(self.literal(info.layout, m.spelled))
        return Instruction(m.opcode, DestOperand(rtype, index, mask), literals=tuple(literals))

    def literal(self, layout: Layout, spelled: str) -> int:
        """One def/defi/defb value as the DWORD it stores."""
        start = self.peek()
        if layout is Layout.DEFB and start.kind == "word":
            self.next()
            value = {"true": 1, "false": 0}.get(start.text.lower())
            if value is None:
                raise self.fail(start, f"defb takes true or false, not {start.text}")
            return value
        negative = self.accept("-") is not None
        tok = self.next()
        if tok.kind != "number":
            raise self.fail(tok, f"expected a number, found {_describe(tok)}")
        text = tok.text.lower()
        if len(text) > _MAX_DIGITS:
            raise self.fail(tok, f"the number {tok.text[:20]}... is too long")
        if text.startswith("0x"):  # raw DWORD bits (what disasm prints for NaN, odd bools)
            if negative:
                raise self.fail(start, "a hexadecimal value takes no sign")
            value = int(text, 16)
            if value > 0xFFFFFFFF:
                raise self.fail(tok, f"{tok.text} does not fit in 32 bits")
            return value
        if layout is Layout.DEF:
            return self.float_bits(tok, text, negative)
        if layout is Layout.DEFB or not text.isdigit():
            kind = "true or false" if layout is Layout.DEFB else "whole numbers"
            raise self.fail(tok, f"'{spelled}' takes {kind}, not {tok.text}")
        value = -int(text) if negative else int(text)
        if not -(1 << 31) <= value <= 0xFFFFFFFF:
            raise self.fail(start, f"{value} does not fit in 32 bits")
        return value & 0xFFFFFFFF

    def float_bits(self, tok: Token, text: str, negative: bool) -> int:
        special = re.fullmatch(r"\d+\.#([a-z]+)\d*", text)
        if special:
            bits = _SPECIAL_FLOATS.get(special.group(1))
            if bits is None:
                raise self.fail(tok, f"'{tok.text}' is not a number")
            if negative or special.group(1) == "ind":  # MSVC's #IND is the negative quiet NaN
                bits |= _SIGN_BIT
            return bits
        if "#" in text:
            raise self.fail(tok, f"'{tok.text}' is not a number")
        value = float(text.rstrip("f"))
        try:
            bits = struct.unpack("<I", struct.pack("<f", -value if negative else value))[0]
        except OverflowError:
            raise self.fail(tok, f"{tok.text} is too large for a 32-bit float") from None
        return bits


def _pick_file(files: tuple[RegisterFile, ...], index: int) -> tuple[RegisterType, int]:
    """c2048 and up live in the CONST2-4 files (software vertex processing)."""
    if len(files) == 1:
        return files[0].type, index
    best = max((f for f in files if CONST_FILE_BASE.get(f.type, 0) <= index), key=lambda f: CONST_FILE_BASE[f.type])
    return best.type, index - CONST_FILE_BASE[best.type]


def _describe(tok: Token) -> str:
    return "the end of the line" if tok.kind == "end" else f"'{tok.text}'"


def _indent(line: Line) -> int:
    return len(line.text) - len(line.text.lstrip())


def _parse_version(line: Line, source: str) -> ShaderVersion:
    text = line.text.strip()
    off = _indent(line)
    m = _VERSION.fullmatch(text)
    if m is None:
        first = text.split()[0].lower() if text.split() else ""
        if first == "preshader":
            reason = "this is an effect's preshader listing, which cannot be assembled; remove it and keep the shader after it"
        else:
            reason = "expected the shader version (vs_1_1 ... vs_3_0, ps_1_1 ... ps_3_0) before any instruction"
        raise AsmError(*line.position(off), reason, source)
    try:
        return ShaderVersion.parse(m.group(0))
    except ValueError:
        raise AsmError(*line.position(off), f"{text} is not a shader version this assembler knows", source) from None


def parse(lines: list[Line], source: str) -> Shader:
    """Assemble preprocessed lines into a ``Shader``."""
    version: ShaderVersion | None = None
    items: list[Instruction] = []
    whole: rules.WholeShader | None = None
    for line in lines:
        if version is None:
            version = _parse_version(line, source)
            whole = rules.WholeShader(version)
            continue
        if _VERSION.fullmatch(line.text.strip()):
            raise AsmError(*line.position(_indent(line)), "a shader has one version line; this is a second one", source)
        statement = _Statement(line, version, source)
        inst = statement.instruction(follows_instruction=bool(items))
        if problem := whole.block_problem(OPCODES[inst.opcode]):
            raise statement.fail(statement.word, problem)
        if inst.declaration is not None:
            usage = inst.declaration.usage
            semantic = f"{getattr(usage, 'asm', usage)}{inst.declaration.usage_index or ''}"
            if problem := whole.declaration_problem(inst.dst, inst.declaration.raw, semantic):
                raise statement.fail(statement.declared, problem)
        items.append(inst)
    if version is None:
        raise AsmError(1, 1, "the text holds no shader: it needs a version line such as vs_3_0", source)
    return Shader(version, tuple(items))
