"""``Shader`` -> assembly text in the dialect of Microsoft fxc's ``/Fc`` listings.

The goal is twofold: a listing that reads like fxc's (so it can be diffed
against fxc output, see tests/test_disasm.py), and text that the assembler
(``xlate.bytecode.asm``) turns back into exactly the same tokens.  Where the
bytecode holds something fxc's syntax cannot say (reserved comparison codes,
odd DCL tokens, non-finite ``def`` values, ...) an explicit spelling is used;
each one is listed under "Extensions" in docs/disassembly.md.

Everything version-dependent (mnemonics, register names, modifier spellings)
comes from ``tables``; this module only decides layout.
"""

from __future__ import annotations

import math
import struct
from decimal import ROUND_HALF_UP, Decimal

from .model import Comment, DestOperand, Instruction, RelativeAddress, Shader, SourceOperand
from .tables import (
    ASM_SPELLINGS,
    COMPARISON_STEMS,
    DCL_SAMPLER_TYPE_MASK,
    DCL_SAMPLER_TYPE_SHIFT,
    DCL_USAGE_INDEX_MASK,
    DCL_USAGE_INDEX_SHIFT,
    DCL_USAGE_MASK,
    DST_MOD_SUFFIX,
    FULL_MASK,
    OPCODES,
    SHIFT_SUFFIX,
    SRC_MODS,
    TEXTURE,
    Comparison,
    DeclUsage,
    DstMod,
    Layout,
    Opcode,
    RegisterType,
    Range,
    SamplerType,
    ShaderVersion,
    in_range,
    mask_text,
    register_name,
    swizzle_text,
)

R = RegisterType

INDENT = "    "  # fxc's base indentation
BLOCK_INDENT = "  "  # each open if/loop/rep adds two spaces
COISSUE_PREFIX = "+ "  # fxc: "  + mov r0.w, ..." (the "+ " sits in the indentation)

# The DCL usage token with no usage, index or texture type: what fxc's
# ``dcl t0`` / ``dcl v0`` / ``dcl vPos`` encode.
_DCL_BARE = 0x80000000
_DCL_PARAM_BIT = 0x80000000

# Destination modifiers in fxc's order (``_sat_pp``; ``dcl_texcoord_pp_centroid``).
_DST_MOD_ORDER = (DstMod.SATURATE, DstMod.PARTIALPRECISION, DstMod.CENTROID)


# --------------------------------------------------------------------------
# Literals
# --------------------------------------------------------------------------


def format_float_bits(bits: int) -> str:
    """A ``def`` literal, printed as fxc does: MSVC's ``%.9g``.

    That is nine significant digits of the exact binary value, rounded half
    away from zero (MSVC; glibc and Python round half to even, which differs
    on exact ties such as 1.001953125 -> ``1.00195313``), trailing zeros
    dropped, exponent form below 1e-4 or from 1e9 with a three-digit
    exponent (``9.99999975e-006``), and ``-0`` for negative zero.

    Nine significant digits always round-trip a finite float32, denormals
    included.  NaN and infinity cannot be written that way (and a NaN's
    payload would be lost), so they are printed as their raw bits,
    ``0x7fc00000`` (extension).
    """
    bits &= 0xFFFFFFFF
    value = struct.unpack("<f", struct.pack("<I", bits))[0]
    if not math.isfinite(value):
        return f"0x{bits:08x}"
    if value == 0:
        return "-0" if bits & 0x80000000 else "0"
    return format_g9(value)  # a float32 widened to double is exact


def format_g9(value: float) -> str:
    """A finite, non-zero double as MSVC's ``printf("%.9g")`` prints it:
    nine significant digits of its exact binary value rounded half away
    from zero, trailing zeros dropped, the exponent form below 1e-4 and from
    1e9 with three exponent digits.  Shared by ``def`` literals and the
    preshader's literals (``xlate.preshader.listing``)."""
    exact = Decimal(value)
    exp = exact.adjusted()
    rounded = exact.quantize(Decimal(1).scaleb(exp - 8), rounding=ROUND_HALF_UP)
    if rounded.adjusted() != exp:  # 9.999999995 -> 10.0000000: one digit too many
        exp = rounded.adjusted()
        rounded = exact.quantize(Decimal(1).scaleb(exp - 8), rounding=ROUND_HALF_UP)
    negative, digit_tuple, _ = rounded.as_tuple()
    sign = "-" if negative else ""
    digits = "".join(map(str, digit_tuple)).rstrip("0")  # nine digits, the first non-zero
    if exp < -4 or exp >= 9:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):03d}"
    if exp < 0:
        return f"{sign}0.{'0' * (-exp - 1)}{digits}"
    whole, frac = digits[: exp + 1], digits[exp + 1:]
    return sign + whole.ljust(exp + 1, "0") + ("." + frac if frac else "")


def _format_int(bits: int) -> str:
    bits &= 0xFFFFFFFF
    return str(bits - (1 << 32) if bits & 0x80000000 else bits)


def _format_bool(bits: int) -> str:
    # fxc writes 1 for true; any other non-zero DWORD is kept exactly (extension).
    if bits == 0:
        return "false"
    if bits == 1:
        return "true"
    return f"0x{bits & 0xFFFFFFFF:08x}"


# --------------------------------------------------------------------------
# Operands
# --------------------------------------------------------------------------


def _relative_text(rel: RelativeAddress, version: ShaderVersion) -> str:
    # fxc: c5[a0.x], c86[aL], o3[aL].  The address token is printed like a
    # source (identity swizzle omitted, replicate as one letter, anything
    # else in full), which is also how the assembler reads it back.  The
    # vs_1_1 form has no token; its stored swizzle is 0 (= .x).  aL is a
    # scalar, so Microsoft's assembler refuses `aL.y`; a swizzled aL token is
    # printed with all four letters (`aL.yyyy`), which the assembler accepts.
    swizzle = swizzle_text(rel.swizzle)
    if rel.type == RegisterType.LOOP and len(swizzle) == 2:
        swizzle = "." + swizzle[1] * 4
    return "[" + register_name(version, rel.type, rel.index) + swizzle + "]"


def _register_text(rtype: RegisterType, index: int, rel: RelativeAddress | None, version: ShaderVersion) -> str:
    name = register_name(version, rtype, index)
    if rel is not None:
        name += _relative_text(rel, version)
    return name


def format_source(src: SourceOperand, version: ShaderVersion) -> str:
    """``-r0``, ``1-t1``, ``r0_bx2.xyz``, ``c4[a0.x].w``, ``!p0.x``.

    fxc puts modifier suffixes before the swizzle (``t1_dw.xyww``)."""
    info = SRC_MODS[src.modifier]
    return (
        info.prefix
        + _register_text(src.type, src.index, src.relative, version)
        + info.suffix
        + swizzle_text(src.swizzle)
    )


def format_dest(dst: DestOperand, version: ShaderVersion) -> str:
    """``r0.xyz``, ``oPos``, ``o3[aL].xy``.  Modifiers go on the mnemonic."""
    mask = dst.write_mask & FULL_MASK
    # An empty write mask has no fxc spelling (extension).
    mask_part = ".none" if mask == 0 else mask_text(mask)
    return _register_text(dst.type, dst.index, dst.relative, version) + mask_part


def _dst_suffix(dst: DestOperand | None) -> str:
    """Result shift, then ``_sat``, ``_pp``, ``_centroid`` (fxc's order:
    ``mov_x2_sat``, ``dp3_sat_pp``, ``dcl_texcoord_pp_centroid``)."""
    if dst is None:
        return ""
    out = ""
    if dst.shift:
        # Shift codes 4-12 are reserved; keep them exactly as the raw 4-bit
        # field, ``_shift4`` .. ``_shift12`` (extension).
        out = SHIFT_SUFFIX.get(dst.shift) or f"_shift{dst.shift & 0xF}"
    for flag in _DST_MOD_ORDER:
        if dst.modifiers & flag:
            out += DST_MOD_SUFFIX[flag]
    return out


# --------------------------------------------------------------------------
# Mnemonics
# --------------------------------------------------------------------------


# Spellings that depend on the version or the control field (tables.py):
# tex/texld/texldp/texldb, texcoord/texcrd; if_lt, break_ne, setp_ge.
_SPELLINGS: dict[tuple[Opcode, int], list[tuple[Range, str]]] = {}
for _spelling, (_op, _control, _range) in ASM_SPELLINGS.items():
    _SPELLINGS.setdefault((_op, int(_control)), []).append((_range, _spelling))
_COMPARISON_STEM = {op: stem for stem, op in COMPARISON_STEMS.items()}


def _dcl_mnemonic(inst: Instruction, version: ShaderVersion) -> str:
    """``dcl``, ``dcl_2d``, ``dcl_texcoord1`` -- or ``dcl_0x8005000a`` when the
    usage token holds bits no fxc spelling would produce (extension)."""
    dcl = OPCODES[Opcode.DCL].mnemonic
    raw = inst.declaration.raw if inst.declaration else _DCL_BARE
    rtype = inst.dst.type if inst.dst is not None else None
    spelled = None
    if rtype == R.SAMPLER:
        ttype = (raw & DCL_SAMPLER_TYPE_MASK) >> DCL_SAMPLER_TYPE_SHIFT
        if ttype <= max(SamplerType):
            spelled = f"{dcl}_{SamplerType(ttype).asm}"
            canonical = _DCL_PARAM_BIT | (ttype << DCL_SAMPLER_TYPE_SHIFT)
    elif rtype == R.MISCTYPE or (version.is_pixel and version.major < 3 and rtype in (R.INPUT, TEXTURE)):
        # ps_2_x t#/v# and vPos/vFace: the register is the semantic.
        spelled, canonical = dcl, _DCL_BARE
    else:
        usage = raw & DCL_USAGE_MASK
        if usage <= max(DeclUsage):
            index = (raw & DCL_USAGE_INDEX_MASK) >> DCL_USAGE_INDEX_SHIFT
            spelled = f"{dcl}_{DeclUsage(usage).asm}{index or ''}"
            canonical = _DCL_PARAM_BIT | usage | (index << DCL_USAGE_INDEX_SHIFT)
    if spelled is None or canonical != raw:
        return f"{dcl}_0x{raw & 0xFFFFFFFF:08x}"
    return spelled


def mnemonic(inst: Instruction, version: ShaderVersion) -> str:
    """The mnemonic with its comparison/texld variant, without modifiers."""
    op = inst.opcode
    if op in _COMPARISON_STEM:
        # Codes 0 and 7 are reserved: _never / _always (extension).
        return _COMPARISON_STEM[op] + Comparison(inst.control & 7).suffix
    if op == Opcode.DCL:
        return _dcl_mnemonic(inst, version)
    for rng, spelling in _SPELLINGS.get((op, inst.control), ()):
        if in_range(version, rng):
            return spelling
    return OPCODES[op].mnemonic


# --------------------------------------------------------------------------
# Instructions
# --------------------------------------------------------------------------


def format_instruction(inst: Instruction, version: ShaderVersion) -> str:
    """One instruction as fxc would print it, without indentation.

    A co-issued instruction starts with ``+ ``; a predicated one with
    ``(p0.x) `` / ``(!p0) ``.
    """
    parts: list[str] = []
    layout = OPCODES[inst.opcode].layout
    if inst.dst is not None:
        parts.append(format_dest(inst.dst, version))
    if layout is Layout.DEF:
        parts.extend(format_float_bits(v) for v in inst.literals)
    elif layout is Layout.DEFI:
        parts.extend(_format_int(v) for v in inst.literals)
    elif layout is Layout.DEFB:
        parts.extend(_format_bool(v) for v in inst.literals)
    else:
        parts.extend(format_source(s, version) for s in inst.srcs)

    text = mnemonic(inst, version) + _dst_suffix(inst.dst)
    if parts:
        text += " " + ", ".join(parts)
    if inst.predicate is not None:
        text = f"({format_source(inst.predicate, version)}) {text}"
    if inst.coissue:
        text = COISSUE_PREFIX + text
    return text


def format_comment(comment: Comment) -> str:
    """fxc does not show comment blocks; we do, as one line, so nothing in
    the stream is hidden."""
    tag = comment.fourcc
    if tag is None and len(comment.data) >= 4:
        tag = "0x" + comment.data[:4][::-1].hex()  # the first DWORD, as a number
    size = f"{len(comment.data)} bytes"
    return f"// comment: {tag}, {size}" if tag else f"// comment: {size}"


def _ctab_lines(shader: Shader) -> list[str] | None:
    """fxc-style constant-table header, or None when ctab.py cannot give one."""
    if shader.ctab is None:
        return None
    try:
        from .ctab import format_ctab  # local: ctab.py imports nothing from here
    except ImportError:  # a partial checkout: fall back to a ``// comment: CTAB`` line
        return None
    return list(format_ctab(shader.ctab))


PRESHADER_PREFIX = "//" + INDENT  # the preshader block, commented (docs/disassembly.md)


def _preshader_lines(shader: Shader) -> list[str]:
    """fxc's ``preshader`` block after the table of the preshader's inputs,
    each line commented out so that the listing still reassembles (the
    preshader runs on the CPU: no shader instruction holds it); one comment
    line when the PRES comment cannot be decoded."""
    if not any(c.fourcc == "PRES" for c in shader.comments):
        return []
    try:  # local: the preshader package sits beside bytecode/ and imports it
        from ..preshader import format_preshader, shader_preshader
    except ImportError:  # a partial checkout: the ``// comment: PRES`` line remains
        return []
    from ..errors import PreshaderError

    try:
        pre = shader_preshader(shader)
    except PreshaderError as err:
        return [f"// preshader: cannot be decoded ({err})"]
    if pre is None:  # an empty PRES comment: fxc's "nothing to compute"
        return []
    from .ctab import format_ctab

    inputs = format_ctab(pre.ctab) if pre.ctab is not None else []
    return inputs + [PRESHADER_PREFIX + line for line in format_preshader(pre)] + ["//"]


def disassemble(shader: Shader, *, header: bool = True) -> str:
    """The whole shader as an fxc-style listing (newline-terminated).

    With ``header`` the constant table is shown first, as fxc's ``//``
    block, after the preshader (if any) as fxc lists it, commented out.  The first CTAB comment *is* that header, so it is not listed
    again where it sits (nor at all with ``header=False``); every other
    comment block gets a ``// comment:`` line where it occurs.  fxc's banner
    and slot-count footer are not reproduced.
    """
    version = shader.version
    lines: list[str] = []
    if header:  # fxc lists the preshader (with its own inputs' table) first
        lines.extend(_preshader_lines(shader))
    ctab_lines = _ctab_lines(shader) if header else None
    if ctab_lines:
        lines.extend(ctab_lines)
    lines.append(INDENT + version.name)

    # The CTAB comment goes unlisted when it was parsed (the decoder sets
    # shader.ctab from the first one), unless the header was wanted and could
    # not be formatted.
    hide_ctab = shader.ctab is not None and (ctab_lines is not None or not header)
    depth = 0
    for item in shader.items:
        if isinstance(item, Comment):
            if hide_ctab and item.fourcc == "CTAB":
                hide_ctab = False  # only the first
                continue
            lines.append(INDENT + BLOCK_INDENT * depth + format_comment(item))
            continue
        block = OPCODES[item.opcode].block
        if block < 0 or block == 2:  # endif/endloop/endrep close; else closes and reopens
            depth = max(depth - 1, 0)
        text = format_instruction(item, version)
        indent = INDENT + BLOCK_INDENT * depth
        if item.coissue:
            indent = indent[: -len(COISSUE_PREFIX)]
        lines.append(indent + text)
        if block > 0:
            depth += 1
    return "\n".join(lines) + "\n"
