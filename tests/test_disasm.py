"""Tests of the disassembler (xlate/bytecode/disasm.py).

Two kinds:

* corpus comparisons: our listing against fxc's own ``/Fc`` listing for
  every plain shader in ``fxc-wine`` (instruction for instruction, after the
  normalisation documented in docs/disassembly.md), and against the
  HlslDecompiler listings in ``fxc/hlsldecompiler``;
* unit tests, one per syntax element, on hand-made instructions.
"""

from __future__ import annotations

import functools
import random
import re
import struct

import pytest

from corpus import (
    CORPORA,
    first_dword,
    fxc_wine_records,
    iter_corpus,
    iter_hlsldecompiler,
    iter_wine_shaders,
    require_corpus,
)
from xlate.bytecode import decode
from xlate.bytecode.disasm import (
    disassemble,
    format_float_bits,
    format_instruction,
)
from xlate.bytecode.encoder import encode, instruction_tokens
from xlate.bytecode.model import (
    Comment,
    Declaration,
    DestOperand,
    Instruction,
    RelativeAddress,
    Shader,
    SourceOperand,
)
from xlate.bytecode.tables import (
    FX_2_0_MAGIC,
    IDENTITY_SWIZZLE,
    OUTPUT,
    TEXTURE,
    DstMod,
    Opcode,
    RegisterType,
    ShaderVersion,
    SrcMod,
    make_swizzle,
    swizzle_text,
)
from xlate.errors import BytecodeError

R = RegisterType
O = Opcode
V = ShaderVersion.parse

# ==========================================================================
# Normalisation (docs/disassembly.md, "Comparing with fxc")
# ==========================================================================

_VERSION_LINE = re.compile(r"^[vp]s_\d_(\d|x|sw)$")


def normalise(text: str) -> list[str]:
    """The listing as a list of instruction lines.

    N1 ``//`` comments go, whole-line and trailing (fxc's banner, CTAB
       block, /Zi source annotations, slot-count footer; our ``// comment:``
       lines).
    N2 ``#line`` directives (/Zi listings) go.
    N3 blank lines go; each line is stripped and runs of blanks collapse.
    N4 a leading ``preshader`` block (fxc /dumpbin of an effect's shader,
       ``kind: fx_embedded``) goes, up to the version line: fxc decodes the
       PRES comment into preshader assembly before the shader; we list that
       comment as one ``// comment: PRES`` line.
    """
    out = []
    for line in text.splitlines():
        line = line.split("//", 1)[0]
        if line.lstrip().startswith("#line"):
            continue
        line = " ".join(line.split())
        if line:
            out.append(line)
    if out and out[0] == "preshader":
        start = next((i for i, line in enumerate(out) if _VERSION_LINE.match(line)), 0)
        out = out[start:]
    return out


def first_difference(mine: list[str], ref: list[str]) -> str:
    for n, (a, b) in enumerate(zip(mine, ref)):
        if a != b:
            return f"line {n}: ours {a!r}, reference {b!r}"
    return f"ours has {len(mine)} lines, the reference {len(ref)}"


# ==========================================================================
# fxc-wine: fxc's own /Fc listings
# ==========================================================================


def test_fxc_wine_listings(record_property):
    require_corpus("fxc-wine", "index.jsonl")
    matched, total, effects = 0, 0, 0
    failures = []
    for rec in fxc_wine_records():
        data = rec.data
        if first_dword(data) == FX_2_0_MAGIC:
            effects += 1  # an effect container, not a shader (its shaders are listed separately)
            continue
        total += 1
        mine = normalise(disassemble(decode(data)))
        ref = normalise(rec.asm)
        if mine == ref:
            matched += 1
        else:
            failures.append(f"{rec.id}: {first_difference(mine, ref)}")
    summary = f"disasm fxc-wine: {matched}/{total} shader listings match fxc ({effects} fx_2_0 effects are not shaders)"
    record_property("corpus_summary", summary)
    assert total > 3000
    assert not failures, summary + "\n" + "\n".join(failures[:20])


# ==========================================================================
# hlsldecompiler: HlslDecompiler's own listings (not fxc's)
# ==========================================================================
#
# ShaderAssembly/*.asm were written by HlslDecompiler's AsmWriter from the
# .fxc blobs, not by fxc: no indentation, ``frac`` for frc, swizzles cut to
# the components the destination writes (``mov o2.xyz, c0.xxx``), source
# modifier suffixes after the swizzle (``v0.xx_abs``), ``0`` for -0.0.  The
# rules below (H1-H5 in docs/disassembly.md) map both listings to a form
# that keeps every component the instruction reads and nothing else, so the
# comparison stays exact where it matters.

_OPERAND = re.compile(
    r"^(?P<prefix>-|1-|!)?(?P<reg>[A-Za-z]+\d*)(?P<rel>\[[^\]]*\])?"
    r"(?:_(?P<mod1>[a-z0-9]+))?(?:\.(?P<swz>[xyzw]+))?(?:_(?P<mod2>[a-z0-9]+))?$"
)
_MNEMONIC_ALIASES = {"frac": "frc"}  # H1


def _read_components(inst: Instruction, k: int, sampler_dims: dict[int, int]) -> tuple[int, ...]:
    """Which swizzle positions of source ``k`` the instruction reads (H3)."""
    op = inst.opcode
    src = inst.srcs[k]
    if src.type == R.SAMPLER:
        return (0, 1, 2, 3)
    if op == O.DP3:
        return (0, 1, 2)
    if op == O.DP4:
        return (0, 1, 2, 3)
    if op == O.DP2ADD:
        return (0, 1)
    if op in (O.TEX, O.TEXLDD):
        if op == O.TEX and inst.control & 3:  # texldp / texldb read .w too
            return (0, 1, 2, 3)
        sampler = inst.srcs[1].index
        return tuple(range(sampler_dims.get(sampler, 4)))
    if op == O.TEXLDL:
        return (0, 1, 2, 3)
    if inst.dst is not None:
        return inst.dst.components
    return (0, 1, 2, 3)


def _components_at(letters: str, positions: tuple[int, ...]) -> str | None:
    """A printed swizzle (0, 1, n or 4 letters) read at ``positions``."""
    n = len(positions)
    if letters == "":
        return "".join("xyzw"[p] for p in positions)
    if len(letters) == 1:
        return letters * n
    if len(letters) == 4:
        return "".join(letters[p] for p in positions)
    if len(letters) == n:
        return letters
    return None


def _canonical_operand(text: str, positions: tuple[int, ...]) -> str:
    m = _OPERAND.match(text)
    if not m:
        return "?" + text
    mod = m["mod1"] or m["mod2"]  # H2: the modifier suffix may sit either side of the swizzle
    comps = _components_at(m["swz"] or "", positions)
    if comps is None:
        return "?" + text
    return f"{m['prefix'] or ''}{m['reg']}{m['rel'] or ''}{'_' + mod if mod else ''}.{comps}"


def hlsldecompiler_canonical(line: str, inst: Instruction, sampler_dims: dict[int, int]) -> str:
    mnemonic, _, rest = line.partition(" ")
    mnemonic = _MNEMONIC_ALIASES.get(mnemonic, mnemonic)
    operands = [o.strip() for o in rest.split(",")] if rest else []
    if inst.opcode == O.DEF:
        operands = ["0" if o == "-0" else o for o in operands]  # H5: .NET prints -0.0f as 0
    if inst.dst is None or inst.opcode in (O.DCL, O.DEF, O.DEFI, O.DEFB):
        return " ".join([mnemonic, *operands])  # no source swizzles to reduce
    out = [operands[0]]
    for k, text in enumerate(operands[1:]):
        positions = _read_components(inst, k, sampler_dims) if k < len(inst.srcs) else (0, 1, 2, 3)
        out.append(_canonical_operand(text, positions))
    return mnemonic + " " + ", ".join(out)


# Listings that are not of the blob beside them (H6 in docs/disassembly.md).
# They are still checked: they must keep differing, so that a corrected
# corpus shows up here.
HLSLDECOMPILER_STALE = {
    "ps_3_0/relative_address.fxc": "the listing is of another compilation of the source: 10 "
    "instructions (abs, mov, add, cmp, mul, add) where the blob has 6 (cmp -r0_abs, dp2add)",
}


def test_hlsldecompiler_listings(record_property):
    base = require_corpus("fxc", "hlsldecompiler", "ShaderAssembly")
    matched, total, stale = 0, 0, 0
    failures = []
    for blob_id, data in iter_hlsldecompiler():
        total += 1
        if blob_id in HLSLDECOMPILER_STALE:
            stale += 1
            shader = decode(data)
            ref = normalise((base / blob_id).with_suffix(".asm").read_text())
            assert len(ref) != len(shader.instructions) + 1, f"{blob_id} is no longer stale: drop it from the list"
            continue
        shader = decode(data)
        mine = normalise(disassemble(shader))
        ref = normalise((base / blob_id).with_suffix(".asm").read_text())
        insts = shader.instructions
        sampler_dims = {
            i.dst.index: {2: 2, 3: 3, 4: 3}.get(i.declaration.raw >> 27 & 0xF, 4)
            for i in insts
            if i.opcode == O.DCL and i.dst.type == R.SAMPLER
        }
        if len(mine) != len(ref) or len(mine) != len(insts) + 1:
            failures.append(f"{blob_id}: {first_difference(mine, ref)}")
            continue
        a = [mine[0]] + [hlsldecompiler_canonical(t, i, sampler_dims) for t, i in zip(mine[1:], insts)]
        b = [ref[0]] + [hlsldecompiler_canonical(t, i, sampler_dims) for t, i in zip(ref[1:], insts)]
        if a == b:
            matched += 1
        else:
            failures.append(f"{blob_id}: {first_difference(a, b)}")
    summary = (f"disasm hlsldecompiler: {matched}/{total} listings match HlslDecompiler's after normalisation "
               f"({stale} stale listing(s) of another compilation, see HLSLDECOMPILER_STALE)")
    record_property("corpus_summary", summary)
    assert total > 50 and matched + stale == total - len(failures)
    assert not failures, summary + "\n" + "\n".join(failures[:20])


def test_hlsldecompiler_normaliser_is_strict():
    """The relaxed swizzle rules must still catch a wrong component."""
    inst = Instruction(
        O.MUL,
        DestOperand(R.TEMP, 0, 0b0110),
        (SourceOperand(R.TEMP, 0, make_swizzle([1, 1, 1, 1])), SourceOperand(R.CONST, 1, make_swizzle([0, 0, 1, 3]))),
    )
    ours = hlsldecompiler_canonical("mul r0.yz, r0.y, c1.xxyw", inst, {})
    assert ours == hlsldecompiler_canonical("mul r0.yz, r0.yy, c1.xy", inst, {})
    assert ours != hlsldecompiler_canonical("mul r0.yz, r0.yy, c1.xx", inst, {})
    assert ours != hlsldecompiler_canonical("mul r0.yz, r0.yy_abs, c1.xy", inst, {})


# ==========================================================================
# Never raises on anything the decoder accepts
# ==========================================================================


@functools.lru_cache(maxsize=None)
def decodable_corpus() -> tuple[tuple[str, Shader], ...]:
    """Every corpus blob the decoder accepts, decoded once for all the tests
    here.  Wine's arrays include deliberately partial ones: whatever of them
    decodes counts too."""
    out = []
    for name in CORPORA:
        blobs = iter_wine_shaders() if name == "wine" else iter_corpus(name)
        for blob_id, data in blobs:
            try:
                out.append((f"{name}:{blob_id}", decode(data)))
            except BytecodeError:
                continue
    return tuple(out)


def test_disassemble_every_decodable_blob(record_property):
    require_corpus()
    shaders = decodable_corpus()
    for blob_id, shader in shaders:
        for header in (True, False):
            assert disassemble(shader, header=header).endswith("\n"), blob_id
    record_property("corpus_summary", f"disasm: {len(shaders)} decodable corpus blobs disassembled without error")
    assert len(shaders) > 3000


# ==========================================================================
# Unit tests
# ==========================================================================


def src(rtype, index=0, swizzle=IDENTITY_SWIZZLE, mod=SrcMod.NONE, rel=None) -> SourceOperand:
    return SourceOperand(rtype, index, swizzle, mod, rel)


def dst(rtype, index=0, mask=0xF, mods=DstMod.NONE, shift=0, rel=None) -> DestOperand:
    return DestOperand(rtype, index, mask, mods, shift, rel)


def swz(letters: str) -> int:
    return make_swizzle(["xyzw".index(c) for c in letters])


def line(version: str, inst: Instruction) -> str:
    return format_instruction(inst, V(version))


def f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


# -- versions and layout ---------------------------------------------------


@pytest.mark.parametrize("name", ["vs_1_1", "vs_2_0", "vs_2_x", "vs_2_sw", "vs_3_0", "vs_3_sw",
                                  "ps_1_1", "ps_1_4", "ps_2_0", "ps_2_x", "ps_2_sw", "ps_3_0", "ps_3_sw"])
def test_version_line(name):
    assert disassemble(Shader(V(name), ())) == f"    {name}\n"


def test_indentation_of_blocks():
    v = V("ps_3_0")
    items = (
        Instruction(O.IF, srcs=(src(R.CONSTBOOL, 0),)),
        Instruction(O.LOOP, srcs=(src(R.LOOP), src(R.CONSTINT, 1))),
        Instruction(O.ADD, dst(R.TEMP, 0), (src(R.TEMP, 0), src(R.INPUT, 0, rel=RelativeAddress(R.LOOP, 0, IDENTITY_SWIZZLE)))),
        Instruction(O.ENDLOOP),
        Instruction(O.ELSE),
        Instruction(O.REP, srcs=(src(R.CONSTINT, 0),)),
        Instruction(O.BREAK),
        Instruction(O.ENDREP),
        Instruction(O.ENDIF),
        Instruction(O.MOV, dst(R.COLOROUT, 0), (src(R.TEMP, 0),)),
    )
    assert disassemble(Shader(v, items)).splitlines() == [
        "    ps_3_0",
        "    if b0",
        "      loop aL, i1",
        "        add r0, r0, v0[aL]",
        "      endloop",
        "    else",
        "      rep i0",
        "        break",
        "      endrep",
        "    endif",
        "    mov oC0, r0",
    ]


def test_unbalanced_blocks_do_not_go_negative():
    items = (Instruction(O.ENDIF), Instruction(O.ELSE), Instruction(O.RET))
    assert disassemble(Shader(V("vs_2_0"), items)).splitlines()[1:] == ["    endif", "    else", "      ret"]


def test_coissue_prefix():
    v = V("ps_1_4")
    items = (
        Instruction(O.DP3, dst(R.TEMP, 0, 0b0111, DstMod.SATURATE), (src(R.TEMP, 3, mod=SrcMod.SIGN), src(R.TEMP, 4, mod=SrcMod.BIAS))),
        Instruction(O.MOV, dst(R.TEMP, 0, 0b1000, DstMod.SATURATE), (src(R.TEMP, 1, swz("zzzz"), SrcMod.COMP),), coissue=True),
    )
    assert disassemble(Shader(v, items)).splitlines()[1:] == [
        "    dp3_sat r0.xyz, r3_bx2, r4_bias",
        "  + mov_sat r0.w, 1-r1.z",
    ]


# -- comments and the CTAB header -----------------------------------------


def test_comment_lines():
    v = V("vs_2_0")
    items = (
        Comment(b"TEXTabcd"),
        Comment(b"\x01\x02\x03\x04\x05\x06\x07\x08"),
        Comment(b""),
        Instruction(O.NOP),
    )
    assert disassemble(Shader(v, items)).splitlines() == [
        "    vs_2_0",
        "    // comment: TEXT, 8 bytes",
        "    // comment: 0x04030201, 8 bytes",
        "    // comment: 0 bytes",
        "    nop",
    ]


def test_ctab_is_the_header():
    require_corpus("fxc-wine", "index.jsonl")
    rec = next(r for r in fxc_wine_records() if r.kind == "fx_embedded" and b"PRES" in r.data)
    shader = decode(rec.data)
    assert shader.ctab is not None
    with_header = disassemble(shader).splitlines()
    without = disassemble(shader, header=False).splitlines()
    version_at = with_header.index("    " + shader.version.name)
    assert all(l.startswith("//") for l in with_header[:version_at])
    assert with_header[version_at:] == without
    assert not any("CTAB" in l for l in without)  # the table is the header, not a stray comment
    assert any(l.strip().startswith("// comment: PRES, ") for l in without)


# -- def / defi / defb -----------------------------------------------------


@pytest.mark.parametrize("value, text", [
    (1.0, "1"), (0.0, "0"), (-0.0, "-0"), (0.5, "0.5"), (-0.5, "-0.5"), (5.5, "5.5"),
    (1.44269502, "1.44269502"), (0.2125, "0.212500006"), (6.28318548, "6.28318548"),
    (1e-5, "9.99999975e-006"), (-1.55009923e-006, "-1.55009923e-006"), (-1e20, "-1.00000002e+020"),
    (0.0001, "9.99999975e-005"), (0.00026041668, "0.00026041668"),  # %g switches at 1e-4
    (100000000.0, "100000000"), (1e9, "1e+009"), (123456789.0, "123456792"),
    (-1234567.0, "-1234567"), (1.001953125, "1.00195313"),  # an exact tie rounds away (MSVC)
    (3.4028234663852886e38, "3.40282347e+038"), (1.17549435e-38, "1.17549435e-038"),
])
def test_float_format(value, text):
    assert format_float_bits(f32(value)) == text


@pytest.mark.parametrize("bits, text", [
    (0x00000001, "1.40129846e-045"),  # the smallest denormal
    (0x80000001, "-1.40129846e-045"),
    (0x007FFFFF, "1.17549421e-038"),  # the largest denormal
    (0x7F800000, "0x7f800000"), (0xFF800000, "0xff800000"),  # infinities: raw bits
    (0x7FC00000, "0x7fc00000"), (0x7FA00001, "0x7fa00001"), (0xFFFFFFFF, "0xffffffff"),  # NaNs keep their payload
])
def test_float_format_special(bits, text):
    assert format_float_bits(bits) == text


def _parse_float_back(text: str) -> int:
    """How the assembler reads a def literal: raw bits for 0x, else decimal -> float32."""
    if text.startswith("0x"):
        return int(text, 16)
    return f32(float(text))


def test_float_format_round_trips():
    rng = random.Random(1234)
    samples = [rng.getrandbits(32) for _ in range(20000)]
    samples += [0x3F800000 + i for i in range(0, 1 << 23, 4099)]  # a sweep through one binade
    samples += [i for i in range(1, 1 << 23, 65521)]  # denormals
    for bits in samples:
        assert _parse_float_back(format_float_bits(bits)) == bits, hex(bits)


def test_def_defi_defb():
    def_ = Instruction(O.DEF, dst(R.CONST, 0), literals=tuple(map(f32, (1, 0, 0.5, 0))))
    assert line("vs_3_0", def_) == "def c0, 1, 0, 0.5, 0"
    defi = Instruction(O.DEFI, dst(R.CONSTINT, 0), literals=(4, 0, 1, 0))
    assert line("vs_3_0", defi) == "defi i0, 4, 0, 1, 0"
    defi_neg = Instruction(O.DEFI, dst(R.CONSTINT, 3), literals=(255, 0, 0xFFFFFFFF, 0x80000000))
    assert line("ps_3_0", defi_neg) == "defi i3, 255, 0, -1, -2147483648"
    assert line("vs_2_0", Instruction(O.DEFB, dst(R.CONSTBOOL, 0), literals=(1,))) == "defb b0, true"
    assert line("vs_2_0", Instruction(O.DEFB, dst(R.CONSTBOOL, 1), literals=(0,))) == "defb b1, false"
    # extension: a TRUE other than 1 keeps its bits
    assert line("vs_2_0", Instruction(O.DEFB, dst(R.CONSTBOOL, 2), literals=(2,))) == "defb b2, 0x00000002"


# -- dcl -------------------------------------------------------------------


def dcl(raw: int, d: DestOperand) -> Instruction:
    return Instruction(O.DCL, d, declaration=Declaration(raw))


@pytest.mark.parametrize("version, raw, d, text", [
    ("vs_1_1", 0x80000000, dst(R.INPUT, 0), "dcl_position v0"),
    ("vs_2_0", 0x80010005, dst(R.INPUT, 1, 0b0011), "dcl_texcoord1 v1.xy"),
    ("vs_2_0", 0x80000003, dst(R.INPUT, 2), "dcl_normal v2"),
    ("vs_3_0", 0x80000000, dst(OUTPUT, 0), "dcl_position o0"),
    ("vs_3_0", 0x8000000B, dst(OUTPUT, 1, 0b0001), "dcl_fog o1.x"),
    ("vs_3_0", 0x80000004, dst(OUTPUT, 5, 0b0001), "dcl_psize o5.x"),
    ("vs_3_0", 0x800F000A, dst(OUTPUT, 11), "dcl_color15 o11"),
    ("vs_3_0", 0x90000000, dst(R.SAMPLER, 0), "dcl_2d s0"),
    ("ps_2_0", 0x90000000, dst(R.SAMPLER, 0), "dcl_2d s0"),
    ("ps_2_0", 0x98000000, dst(R.SAMPLER, 1), "dcl_cube s1"),
    ("ps_2_0", 0xA0000000, dst(R.SAMPLER, 2), "dcl_volume s2"),
    ("ps_2_0", 0x88000000, dst(R.SAMPLER, 3), "dcl_1d s3"),
    ("ps_2_0", 0x80000000, dst(R.SAMPLER, 4), "dcl_unknown s4"),
    ("ps_2_0", 0x80000000, dst(TEXTURE, 0, 0b0011), "dcl t0.xy"),
    ("ps_2_0", 0x80000000, dst(R.INPUT, 0), "dcl v0"),
    ("ps_2_x", 0x80000000, dst(TEXTURE, 0, 0b0011, DstMod.CENTROID), "dcl_centroid t0.xy"),
    ("ps_2_0", 0x80000000, dst(TEXTURE, 1, 0b0011, DstMod.PARTIALPRECISION), "dcl_pp t1.xy"),
    ("ps_2_0", 0x80000000, dst(TEXTURE, 0, 0b0011, DstMod.PARTIALPRECISION | DstMod.CENTROID), "dcl_pp_centroid t0.xy"),
    ("ps_3_0", 0x80000005, dst(R.INPUT, 0, 0b0011, DstMod.PARTIALPRECISION), "dcl_texcoord_pp v0.xy"),
    ("ps_3_0", 0x80020005, dst(R.INPUT, 1, 0b0111, DstMod.PARTIALPRECISION), "dcl_texcoord2_pp v1.xyz"),
    ("ps_3_0", 0x80000005, dst(R.INPUT, 0, 0xF, DstMod.PARTIALPRECISION | DstMod.CENTROID), "dcl_texcoord_pp_centroid v0"),
    ("ps_3_0", 0x80010005, dst(R.INPUT, 2, 0xF, DstMod.CENTROID), "dcl_texcoord1_centroid v2"),
    ("ps_3_0", 0x8000000A, dst(R.INPUT, 3), "dcl_color v3"),
    ("ps_3_0", 0x80000000, dst(R.MISCTYPE, 0, 0b0011), "dcl vPos.xy"),
    ("ps_3_0", 0x80000000, dst(R.MISCTYPE, 1), "dcl vFace"),
    # extensions: usage tokens no fxc spelling produces keep their bits
    ("ps_2_0", 0x80000005, dst(TEXTURE, 0), "dcl_0x80000005 t0"),
    ("vs_2_0", 0x80000010, dst(R.INPUT, 0), "dcl_0x80000010 v0"),
    ("vs_2_0", 0x8000000E, dst(R.INPUT, 0), "dcl_0x8000000e v0"),
    ("ps_2_0", 0x90000005, dst(R.SAMPLER, 0), "dcl_0x90000005 s0"),
    ("ps_2_0", 0xA8000000, dst(R.SAMPLER, 0), "dcl_0xa8000000 s0"),
    ("vs_3_0", 0x90000005, dst(OUTPUT, 0), "dcl_0x90000005 o0"),
    ("ps_3_0", 0x80000001, dst(R.MISCTYPE, 1), "dcl_0x80000001 vFace"),
    ("ps_3_0", 0x80000005, dst(R.INPUT, 0, 0b0011, DstMod.PARTIALPRECISION), "dcl_texcoord_pp v0.xy"),
])
def test_dcl(version, raw, d, text):
    assert line(version, dcl(raw, d)) == text


# -- instruction modifiers -------------------------------------------------


@pytest.mark.parametrize("version, mods, shift, text", [
    ("ps_2_0", DstMod.SATURATE, 0, "mul_sat r0, r1, r2"),
    ("ps_2_0", DstMod.PARTIALPRECISION, 0, "mul_pp r0, r1, r2"),
    ("ps_2_0", DstMod.SATURATE | DstMod.PARTIALPRECISION, 0, "mul_sat_pp r0, r1, r2"),
    ("ps_1_4", DstMod.NONE, 1, "mul_x2 r0, r1, r2"),
    ("ps_1_4", DstMod.NONE, 2, "mul_x4 r0, r1, r2"),
    ("ps_1_4", DstMod.NONE, 3, "mul_x8 r0, r1, r2"),
    ("ps_1_4", DstMod.NONE, -1, "mul_d2 r0, r1, r2"),
    ("ps_1_4", DstMod.NONE, -2, "mul_d4 r0, r1, r2"),
    ("ps_1_4", DstMod.NONE, -3, "mul_d8 r0, r1, r2"),
    ("ps_1_4", DstMod.SATURATE, 1, "mul_x2_sat r0, r1, r2"),  # shift first, as Microsoft's assembler reads it
    ("ps_1_4", DstMod.SATURATE, 4, "mul_shift4_sat r0, r1, r2"),  # extension: a reserved shift
    ("ps_1_4", DstMod.NONE, -8, "mul_shift8 r0, r1, r2"),
    ("ps_1_4", DstMod.NONE, -4, "mul_shift12 r0, r1, r2"),
    ("ps_2_0", DstMod.CENTROID, 0, "mul_centroid r0, r1, r2"),
])
def test_instruction_modifiers(version, mods, shift, text):
    inst = Instruction(O.MUL, dst(R.TEMP, 0, mods=mods, shift=shift), (src(R.TEMP, 1), src(R.TEMP, 2)))
    assert line(version, inst) == text


# -- texture instructions --------------------------------------------------


def test_texld_family():
    coord, sampler = src(TEXTURE, 0), src(R.SAMPLER, 0)
    assert line("ps_2_0", Instruction(O.TEX, dst(R.TEMP, 0), (coord, sampler))) == "texld r0, t0, s0"
    assert line("ps_2_0", Instruction(O.TEX, dst(R.TEMP, 0), (coord, sampler), control=1)) == "texldp r0, t0, s0"
    assert line("ps_2_0", Instruction(O.TEX, dst(R.TEMP, 0), (coord, sampler), control=2)) == "texldb r0, t0, s0"
    pp = dst(R.TEMP, 1, mods=DstMod.PARTIALPRECISION)
    assert line("ps_2_0", Instruction(O.TEX, pp, (src(R.TEMP, 0), src(R.SAMPLER, 2)))) == "texld_pp r1, r0, s2"
    assert line("ps_3_0", Instruction(O.TEXLDL, dst(R.TEMP, 0), (src(R.INPUT, 0), sampler))) == "texldl r0, v0, s0"
    assert line("vs_3_0", Instruction(O.TEXLDL, dst(R.TEMP, 0), (src(R.TEMP, 1), sampler))) == "texldl r0, r1, s0"
    texldd = Instruction(O.TEXLDD, dst(R.TEMP, 0), (src(R.TEMP, 1), src(R.SAMPLER, 3), src(R.TEMP, 2), src(R.TEMP, 3)))
    assert line("ps_2_x", texldd) == "texldd r0, r1, s3, r2, r3"


def test_ps_1_x_texture_instructions():
    assert line("ps_1_1", Instruction(O.TEX, dst(TEXTURE, 0))) == "tex t0"
    assert line("ps_1_3", Instruction(O.TEXCOORD, dst(TEXTURE, 1))) == "texcoord t1"
    assert line("ps_1_4", Instruction(O.TEX, dst(R.TEMP, 0), (src(TEXTURE, 0),))) == "texld r0, t0"
    assert line("ps_1_4", Instruction(O.TEX, dst(R.TEMP, 1), (src(TEXTURE, 1, swz("xyww"), SrcMod.DW),))) == "texld r1, t1_dw.xyww"
    assert line("ps_1_4", Instruction(O.TEX, dst(R.TEMP, 1), (src(TEXTURE, 1, swz("xyzz"), SrcMod.DZ),))) == "texld r1, t1_dz.xyzz"
    assert line("ps_1_4", Instruction(O.TEXCOORD, dst(R.TEMP, 2, 0b0111), (src(TEXTURE, 2, swz("xyzz")),))) == "texcrd r2.xyz, t2.xyzz"
    assert line("ps_1_4", Instruction(O.TEXKILL, dst(TEXTURE, 3))) == "texkill t3"
    assert line("ps_1_4", Instruction(O.TEXDEPTH, dst(R.TEMP, 5))) == "texdepth r5"
    assert line("ps_1_4", Instruction(O.BEM, dst(R.TEMP, 0, 0b0011), (src(R.TEMP, 1), src(R.TEMP, 2)))) == "bem r0.xy, r1, r2"
    assert line("ps_1_4", Instruction(O.PHASE)) == "phase"
    assert line("ps_1_1", Instruction(O.TEXM3x2PAD, dst(TEXTURE, 1), (src(TEXTURE, 0, mod=SrcMod.SIGN),))) == "texm3x2pad t1, t0_bx2"
    assert line("ps_1_1", Instruction(O.TEXM3x3SPEC, dst(TEXTURE, 3), (src(TEXTURE, 0), src(R.CONST, 0)))) == "texm3x3spec t3, t0, c0"
    assert line("ps_1_1", Instruction(O.TEXBEM, dst(TEXTURE, 1), (src(TEXTURE, 0),))) == "texbem t1, t0"
    assert line("ps_1_2", Instruction(O.TEXREG2RGB, dst(TEXTURE, 1), (src(TEXTURE, 0),))) == "texreg2rgb t1, t0"
    assert line("ps_3_0", Instruction(O.TEXKILL, dst(R.TEMP, 0))) == "texkill r0"
    assert line("ps_2_0", Instruction(O.TEXKILL, dst(TEXTURE, 0, 0b0111))) == "texkill t0.xyz"


# -- flow control and predication ------------------------------------------


def test_comparisons():
    pair = (src(R.TEMP, 0, swz("xxxx")), src(R.CONST, 1, swz("yyyy")))
    assert line("ps_2_x", Instruction(O.IFC, srcs=pair, control=4)) == "if_lt r0.x, c1.y"
    assert line("ps_2_x", Instruction(O.BREAKC, srcs=pair, control=5)) == "break_ne r0.x, c1.y"
    for code, suffix in enumerate(["never", "gt", "eq", "ge", "lt", "ne", "le", "always"]):
        setp = Instruction(O.SETP, dst(R.PREDICATE, 0), (src(R.TEMP, 0), src(R.TEMP, 1)), control=code)
        assert line("vs_2_x", setp) == f"setp_{suffix} p0, r0, r1"  # never/always: extension


def test_flow_control_instructions():
    b0, p0x_not = src(R.CONSTBOOL, 0), src(R.PREDICATE, 0, swz("xxxx"), SrcMod.NOT)
    assert line("vs_2_0", Instruction(O.IF, srcs=(b0,))) == "if b0"
    assert line("vs_2_0", Instruction(O.IF, srcs=(src(R.CONSTBOOL, 3, mod=SrcMod.NOT),))) == "if !b3"
    assert line("ps_2_x", Instruction(O.IF, srcs=(p0x_not,))) == "if !p0.x"
    assert line("vs_2_0", Instruction(O.CALLNZ, srcs=(src(R.LABEL, 0), b0))) == "callnz l0, b0"
    assert line("vs_2_x", Instruction(O.CALLNZ, srcs=(src(R.LABEL, 1), p0x_not))) == "callnz l1, !p0.x"
    assert line("vs_2_0", Instruction(O.CALL, srcs=(src(R.LABEL, 2),))) == "call l2"
    assert line("vs_2_0", Instruction(O.LABEL, srcs=(src(R.LABEL, 0),))) == "label l0"
    assert line("vs_2_0", Instruction(O.LOOP, srcs=(src(R.LOOP), src(R.CONSTINT, 0)))) == "loop aL, i0"
    assert line("vs_2_0", Instruction(O.REP, srcs=(src(R.CONSTINT, 0),))) == "rep i0"
    assert line("vs_2_x", Instruction(O.BREAKP, srcs=(src(R.PREDICATE, 0, swz("wwww")),))) == "breakp p0.w"
    for op, text in [(O.NOP, "nop"), (O.RET, "ret"), (O.ELSE, "else"), (O.ENDIF, "endif"),
                     (O.ENDLOOP, "endloop"), (O.ENDREP, "endrep"), (O.BREAK, "break")]:
        assert line("vs_3_0", Instruction(op)) == text
    # extension: a swizzle on a label or a constant register is kept
    assert line("vs_2_0", Instruction(O.CALL, srcs=(src(R.LABEL, 0, swz("xxxx")),))) == "call l0.x"


def test_predication():
    add = (dst(R.TEMP, 2), (src(R.TEMP, 2), src(R.TEMP, 3)))
    assert line("vs_2_x", Instruction(O.ADD, *add, predicate=src(R.PREDICATE, 0, swz("xxxx")))) == "(p0.x) add r2, r2, r3"
    assert line("vs_2_x", Instruction(O.ADD, *add, predicate=src(R.PREDICATE, 0, mod=SrcMod.NOT))) == "(!p0) add r2, r2, r3"
    tex = Instruction(O.TEX, dst(R.TEMP, 0, mods=DstMod.PARTIALPRECISION), (src(TEXTURE, 0), src(R.SAMPLER, 0)),
                      predicate=src(R.PREDICATE, 0, swz("yzwx")))
    assert line("ps_2_x", tex) == "(p0.yzwx) texld_pp r0, t0, s0"


# -- operands --------------------------------------------------------------


@pytest.mark.parametrize("mod, text", [
    (SrcMod.NONE, "r0"), (SrcMod.NEG, "-r0"), (SrcMod.BIAS, "r0_bias"), (SrcMod.BIASNEG, "-r0_bias"),
    (SrcMod.SIGN, "r0_bx2"), (SrcMod.SIGNNEG, "-r0_bx2"), (SrcMod.COMP, "1-r0"), (SrcMod.X2, "r0_x2"),
    (SrcMod.X2NEG, "-r0_x2"), (SrcMod.DZ, "r0_dz"), (SrcMod.DW, "r0_dw"), (SrcMod.ABS, "r0_abs"),
    (SrcMod.ABSNEG, "-r0_abs"), (SrcMod.NOT, "!r0"),
])
def test_source_modifiers(mod, text):
    inst = Instruction(O.MOV, dst(R.TEMP, 1), (src(R.TEMP, 0, mod=mod),))
    assert line("ps_1_4", inst) == f"mov r1, {text}"
    swizzled = Instruction(O.MOV, dst(R.TEMP, 1), (src(R.TEMP, 0, swz("xyww"), mod),))
    # the modifier suffix comes before the swizzle: r0_abs.xyww
    assert line("ps_1_4", swizzled) == f"mov r1, {text}.xyww"


@pytest.mark.parametrize("letters, text", [
    ("xyzw", ""), ("xxxx", ".x"), ("yyyy", ".y"), ("zzzz", ".z"), ("wwww", ".w"),
    ("xyzz", ".xyzz"), ("yzww", ".yzww"), ("xyyy", ".xyyy"), ("xxxy", ".xxxy"), ("wzyx", ".wzyx"),
])
def test_swizzles(letters, text):
    assert swizzle_text(swz(letters)) == text


@pytest.mark.parametrize("mask, text", [
    (0b0001, "r0.x"), (0b0011, "r0.xy"), (0b0111, "r0.xyz"), (0b1001, "r0.xw"), (0b1000, "r0.w"),
    (0b1111, "r0"), (0b0000, "r0.none"),  # .none: extension
])
def test_write_masks(mask, text):
    assert line("vs_3_0", Instruction(O.MOV, dst(R.TEMP, 0, mask), (src(R.TEMP, 1),))) == f"mov {text}, r1"


@pytest.mark.parametrize("version, d, text", [
    ("vs_1_1", dst(R.RASTOUT, 0), "oPos"),
    ("vs_1_1", dst(R.RASTOUT, 1), "oFog"),
    ("vs_1_1", dst(R.RASTOUT, 2), "oPts"),
    ("vs_2_0", dst(R.RASTOUT, 1, 0b0001), "oFog.x"),
    ("vs_1_1", dst(R.ATTROUT, 1), "oD1"),
    ("vs_2_0", dst(R.TEXCRDOUT, 7, 0b0011), "oT7.xy"),
    ("vs_3_0", dst(OUTPUT, 11), "o11"),
    ("vs_2_0", dst(R.ADDR, 0, 0b0001), "a0.x"),
    ("ps_2_0", dst(R.COLOROUT, 3), "oC3"),
    ("ps_3_0", dst(R.DEPTHOUT, 0), "oDepth"),
    ("ps_1_1", dst(TEXTURE, 3), "t3"),
    ("vs_2_x", dst(R.PREDICATE, 0, 0b0011), "p0.xy"),
    ("vs_3_0", dst(OUTPUT, 3, rel=RelativeAddress(R.LOOP, 0, IDENTITY_SWIZZLE)), "o3[aL]"),
    ("vs_3_0", dst(OUTPUT, 12 - 12, 0b0011, rel=RelativeAddress(R.ADDR, 0, 0)), "o0[a0.x].xy"),
])
def test_destination_registers(version, d, text):
    assert line(version, Instruction(O.MOV, d, (src(R.TEMP, 0),))) == f"mov {text}, r0"


@pytest.mark.parametrize("version, s, text", [
    ("ps_3_0", src(R.MISCTYPE, 0, swz("xyyy")), "vPos.xyyy"),
    ("ps_3_0", src(R.MISCTYPE, 1, swz("xxxx")), "vFace.x"),
    ("ps_3_0", src(R.LOOP), "aL"),
    ("ps_2_0", src(R.SAMPLER, 5), "s5"),
    ("vs_2_0", src(R.CONSTINT, 15), "i15"),
    ("vs_2_0", src(R.CONSTBOOL, 15), "b15"),
    ("vs_2_sw", src(R.CONST2, 0), "c2048"),
    ("vs_2_sw", src(R.CONST4, 2047), "c8191"),
    ("vs_1_1", src(R.CONST, 6, rel=RelativeAddress(R.ADDR, 0, 0, implicit=True)), "c6[a0.x]"),
    ("vs_2_0", src(R.CONST, 5, rel=RelativeAddress(R.ADDR, 0, 0)), "c5[a0.x]"),
    ("vs_2_0", src(R.CONST, 5, rel=RelativeAddress(R.ADDR, 0, swz("wwww"))), "c5[a0.w]"),
    ("vs_2_0", src(R.CONST, 86, swz("yyyy"), rel=RelativeAddress(R.LOOP, 0, IDENTITY_SWIZZLE)), "c86[aL].y"),
    ("vs_2_0", src(R.CONST, 0, swz("xxyz"), SrcMod.NEG, RelativeAddress(R.ADDR, 0, swz("wwww"))), "-c0[a0.w].xxyz"),
    ("vs_3_0", src(R.INPUT, 0, rel=RelativeAddress(R.LOOP, 0, IDENTITY_SWIZZLE)), "v0[aL]"),
    # extensions: non-replicate a0 swizzle, a swizzled aL
    ("vs_2_0", src(R.CONST, 0, rel=RelativeAddress(R.ADDR, 0, swz("xyww"))), "c0[a0.xyww]"),
    ("vs_2_0", src(R.CONST, 0, rel=RelativeAddress(R.ADDR, 0, IDENTITY_SWIZZLE)), "c0[a0]"),
    ("vs_2_0", src(R.CONST, 0, rel=RelativeAddress(R.LOOP, 0, swz("xxxx"))), "c0[aL.xxxx]"),
])
def test_source_registers(version, s, text):
    assert line(version, Instruction(O.MOV, dst(R.TEMP, 0), (s,))) == f"mov r0, {text}"


def test_sincos_sgn_and_friends():
    two = (src(R.CONST, 10), src(R.CONST, 11))
    sm2 = Instruction(O.SINCOS, dst(R.TEMP, 1, 0b0011), (src(R.TEMP, 0, swz("xxxx")), *two))
    assert line("vs_2_0", sm2) == "sincos r1.xy, r0.x, c10, c11"
    sm3 = Instruction(O.SINCOS, dst(R.TEMP, 1, 0b0001, DstMod.PARTIALPRECISION), (src(R.TEMP, 0, swz("wwww")),))
    assert line("ps_3_0", sm3) == "sincos_pp r1.x, r0.w"
    sgn = Instruction(O.SGN, dst(R.TEMP, 0), (src(R.TEMP, 1), src(R.TEMP, 2), src(R.TEMP, 3)))
    assert line("vs_2_0", sgn) == "sgn r0, r1, r2, r3"
    assert line("vs_2_0", Instruction(O.MOVA, dst(R.ADDR, 0, 0b0001), (src(R.TEMP, 0, swz("yyyy")),))) == "mova a0.x, r0.y"
    assert line("vs_1_1", Instruction(O.MOV, dst(R.ADDR, 0, 0b0001), (src(R.INPUT, 2, swz("zzzz")),))) == "mov a0.x, v2.z"
    assert line("vs_1_1", Instruction(O.M4x4, dst(R.RASTOUT, 0), (src(R.INPUT, 0), src(R.CONST, 0)))) == "m4x4 oPos, v0, c0"
    assert line("vs_1_1", Instruction(O.EXPP, dst(R.TEMP, 1), (src(R.INPUT, 2, swz("xxxx")),))) == "expp r1, v2.x"
    dp2add = Instruction(O.DP2ADD, dst(R.TEMP, 0, 1), (src(R.TEMP, 1), src(R.TEMP, 2), src(R.CONST, 0, swz("zzzz"))))
    assert line("ps_2_0", dp2add) == "dp2add r0.x, r1, r2, c0.z"
    cnd = Instruction(O.CND, dst(R.TEMP, 3), (src(R.TEMP, 0, swz("xxxx")), src(R.TEMP, 1), src(R.TEMP, 2)))
    assert line("ps_1_4", cnd) == "cnd r3, r0.x, r1, r2"


# -- whole shaders from token arrays -----------------------------------------


def test_synthetic_ps_1_4_listing():
    """ps14_misc from fxc-wine/synthetic-asm, assembled by Microsoft's assembler."""
    base = require_corpus("fxc-wine", "synthetic-asm")
    shader = decode((base / "ps14_misc.asm.ps_1_4.bin").read_bytes())
    assert disassemble(shader, header=False).splitlines() == [
        "    ps_1_4",
        "    def c1, 0.5, 0.5, 0.5, 0.5",
        "    texld r0, t0",
        "    texld r1, t1_dw.xyww",
        "    texcrd r2.xyz, t2.xyzz",
        "    texkill t3",
        "    cnd r3, r0.x, r1, r2",
        "    mul_x8 r3, r3, c1",
        "    mul_d8 r4, r3, r1",
        "    dp3_sat r0.xyz, r3_bx2, r4_bias",
        "  + mov_sat r0.w, 1-r1.z",
    ]


def test_listing_from_tokens_matches_decoded_model():
    """Encode -> decode -> disassemble gives the same text as the model did."""
    v = V("vs_3_0")
    items = (
        Instruction(O.DCL, dst(R.INPUT, 0), declaration=Declaration(0x80000000)),
        Instruction(O.DCL, dst(OUTPUT, 0), declaration=Declaration(0x80000000)),
        Instruction(O.DEF, dst(R.CONST, 4), literals=(f32(1.0), 0x7FC00001, 0, 0x80000000)),
        Instruction(O.MOV, dst(OUTPUT, 0), (src(R.CONST, 2, swz("xxyz"), SrcMod.ABSNEG, RelativeAddress(R.ADDR, 0, swz("zzzz"))),)),
        Instruction(O.SETP, dst(R.PREDICATE, 0, 0b0011), (src(R.TEMP, 0), src(R.TEMP, 1)), control=3),
        Instruction(O.ADD, dst(R.TEMP, 0, 0b0001, DstMod.SATURATE), (src(R.TEMP, 0), src(R.CONST, 0)),
                    predicate=src(R.PREDICATE, 0, swz("yyyy"), SrcMod.NOT)),
    )
    shader = Shader(v, items)
    text = disassemble(shader)
    assert text == disassemble(decode(encode(shader)))
    assert text.splitlines()[1:] == [
        "    dcl_position v0",
        "    dcl_position o0",
        "    def c4, 1, 0x7fc00001, 0, -0",
        "    mov o0, -c2[a0.z]_abs.xxyz",
        "    setp_ge p0.xy, r0, r1",
        "    (!p0.y) add_sat r0.x, r0, c0",
    ]


def test_relative_destination_round_trip():
    shader = Shader(V("vs_3_0"), (
        Instruction(O.MOV, dst(OUTPUT, 3, 0b0011, rel=RelativeAddress(R.LOOP, 0, IDENTITY_SWIZZLE)), (src(R.TEMP, 0),)),
    ))
    text = disassemble(shader)
    assert text.splitlines()[1] == "    mov o3[aL].xy, r0"
    assert disassemble(decode(encode(shader))) == text


# ==========================================================================
# Text -> tokens: the assembler must read every line back to the same tokens
# ==========================================================================


def _assembler():
    return pytest.importorskip("xlate.bytecode.asm", reason="the assembler (xlate/bytecode/asm) is not there yet")


def _reassembles(version: ShaderVersion, insts: list[Instruction]) -> bool:
    asm = _assembler()
    text = version.name + "\n" + "".join(format_instruction(i, version) + "\n" for i in insts)
    back = asm.assemble(text)
    return back.version == version and [instruction_tokens(i, version) for i in back.instructions] == [
        instruction_tokens(i, version) for i in insts
    ]


def test_corpus_lines_reassemble(record_property):
    """Every distinct instruction of every decodable corpus blob, printed and
    assembled again, gives the same tokens (co-issued ones with their partner)."""
    _assembler()
    require_corpus()
    cases: dict[tuple, str] = {}
    for blob_id, shader in decodable_corpus():
        previous = None
        for inst in shader.instructions:
            cases.setdefault((shader.version, previous if inst.coissue else None, inst), blob_id)
            previous = inst
    failures = [
        f"{blob_id}: {format_instruction(inst, version)}"
        for (version, partner, inst), blob_id in cases.items()
        if not _reassembles(version, [partner, inst] if partner is not None else [inst])
    ]
    summary = f"disasm -> asm: {len(cases) - len(failures)}/{len(cases)} distinct corpus instructions re-assemble exactly"
    record_property("corpus_summary", summary)
    assert not failures, "\n".join(failures[:20])


# Every extension spelling (docs/disassembly.md), each with the text it prints.
EXTENSION_CASES = [
    ("vs_2_0", Instruction(O.DEF, dst(R.CONST, 0), literals=(0x7FC00000, 0xFF800000, 0x7F800000, 0x7FA00001)),
     "def c0, 0x7fc00000, 0xff800000, 0x7f800000, 0x7fa00001"),
    ("vs_2_0", Instruction(O.DEFB, dst(R.CONSTBOOL, 2), literals=(0x80000000,)), "defb b2, 0x80000000"),
    ("ps_2_0", dcl(0x80000005, dst(TEXTURE, 0)), "dcl_0x80000005 t0"),
    ("vs_2_0", dcl(0x80000010, dst(R.INPUT, 0)), "dcl_0x80000010 v0"),
    ("vs_2_0", dcl(0x8000000F, dst(R.INPUT, 1)), "dcl_0x8000000f v1"),
    ("ps_3_0", dcl(0xA8000000, dst(R.SAMPLER, 0)), "dcl_0xa8000000 s0"),
    ("ps_3_0", dcl(0x90000005, dst(R.SAMPLER, 1)), "dcl_0x90000005 s1"),
    ("ps_3_0", dcl(0x80000001, dst(R.MISCTYPE, 0, 0b0011, DstMod.PARTIALPRECISION)), "dcl_0x80000001_pp vPos.xy"),
    ("ps_1_4", Instruction(O.MOV, dst(R.TEMP, 0, shift=4), (src(R.TEMP, 1),)), "mov_shift4 r0, r1"),
    ("ps_1_4", Instruction(O.MOV, dst(R.TEMP, 0, mods=DstMod.SATURATE, shift=-8), (src(R.TEMP, 1),)), "mov_shift8_sat r0, r1"),
    ("vs_3_0", Instruction(O.MOV, dst(R.TEMP, 0, 0), (src(R.TEMP, 1),)), "mov r0.none, r1"),
    ("vs_2_x", Instruction(O.SETP, dst(R.PREDICATE, 0), (src(R.TEMP, 0), src(R.TEMP, 1)), control=0), "setp_never p0, r0, r1"),
    ("ps_2_x", Instruction(O.IFC, srcs=(src(R.TEMP, 0, swz("xxxx")), src(R.TEMP, 1, swz("xxxx"))), control=7), "if_always r0.x, r1.x"),
    ("vs_2_0", Instruction(O.MOV, dst(R.TEMP, 0), (src(R.CONST, 0, rel=RelativeAddress(R.ADDR, 0, swz("xyww"))),)), "mov r0, c0[a0.xyww]"),
    ("vs_2_0", Instruction(O.MOV, dst(R.TEMP, 0), (src(R.CONST, 0, rel=RelativeAddress(R.ADDR, 0, IDENTITY_SWIZZLE)),)), "mov r0, c0[a0]"),
    ("vs_2_0", Instruction(O.MOV, dst(R.TEMP, 0), (src(R.CONST, 3, rel=RelativeAddress(R.LOOP, 0, swz("yyyy"))),)), "mov r0, c3[aL.yyyy]"),
    ("vs_2_0", Instruction(O.CALL, srcs=(src(R.LABEL, 0, swz("wzyx")),)), "call l0.wzyx"),
    ("vs_2_0", Instruction(O.IF, srcs=(src(R.CONSTBOOL, 1, swz("xxxx")),)), "if b1.x"),
    ("vs_2_0", Instruction(O.LOOP, srcs=(src(R.LOOP, 0, swz("xxxx")), src(R.CONSTINT, 0, swz("yyyy")))), "loop aL.x, i0.y"),
    ("ps_2_0", Instruction(O.TEX, dst(R.TEMP, 0), (src(TEXTURE, 0), src(R.SAMPLER, 0, swz("xxxx")))), "texld r0, t0, s0.x"),
]


@pytest.mark.parametrize("version, inst, text", EXTENSION_CASES,
                         ids=[(c.values if hasattr(c, "values") else c)[2] for c in EXTENSION_CASES])
def test_extension_spellings(version, inst, text):
    assert line(version, inst) == text
    assert _reassembles(V(version), [inst])


# ==========================================================================
# Preshaders (docs/disassembly.md, "Preshaders")
# ==========================================================================

_BANNER = ("Generated by Microsoft", "fxc /nologo", "approximately ")


def header_lines(text: str) -> list[str]:
    """Everything before the version line, comment markers and banner gone
    (P1 in docs/disassembly.md): each line loses its leading ``//`` and
    blanks, fxc's banner, command line, file names and instruction count
    go, and so do empty lines."""
    out = []
    for line in text.splitlines():
        stripped = " ".join(line.split())
        if _VERSION_LINE.match(stripped):
            break
        body = stripped[2:].strip() if stripped.startswith("//") else stripped
        if not body or any(b in body for b in _BANNER) or body.endswith((".asm", ".bin")):
            continue
        out.append(body)
    return out


def test_fxc_wine_preshader_listings(record_property):
    """The header of every fxc-wine shader with a preshader -- the
    preshader's input table, the preshader block, the shader's constant
    table -- matches fxc's (after P1), and the commented listing reassembles
    to the same instructions."""
    require_corpus("fxc-wine", "index.jsonl")
    matched = total = 0
    failures = []
    for rec in fxc_wine_records():
        if rec.is_effect or b"PRES" not in rec.data:
            continue
        shader = decode(rec.data)
        total += 1
        text = disassemble(shader)
        mine, ref = header_lines(text), header_lines(rec.asm)
        if mine == ref:
            matched += 1
        else:
            failures.append(f"{rec.id}: {first_difference(mine, ref)}")
        assert not any(line.strip() == "preshader" for line in text.splitlines())  # commented out
        back = _assembler().assemble(text)
        version = shader.version
        assert [instruction_tokens(i, version) for i in back.instructions] == [
            instruction_tokens(i, version) for i in shader.instructions], rec.id
    summary = f"disasm preshaders: {matched}/{total} fxc-wine headers (preshader block included) match fxc"
    record_property("corpus_summary", summary)
    assert total == 49
    assert not failures, summary + "\n" + "\n".join(failures[:10])
