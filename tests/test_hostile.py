"""Hostile input (issue 16): the fuzz findings of ``../shared/fuzz-findings``
as regression tests, hostile CTAB names through every entry point, nesting
limits, and the assembler preprocessor's expansion limits."""

from __future__ import annotations

import struct
import random
import time
from pathlib import Path

import pytest

from corpus import dwords_to_bytes, read_jsonl, require_corpus
from hostile import (HOSTILE_NAMES, _deepen, check_entry_points, info_text, one_line_error, unchecked_bytes,
                     with_hostile_ctab)
from xlate.api import translate
from xlate.backends.check import validate_glsl
from xlate.bytecode import decode
from xlate.bytecode.asm import assemble_bytes
from xlate.bytecode.ctab import shown_name
from xlate.bytecode.disasm import disassemble
from xlate.bytecode.tables import RegisterType, register_type_bits
from xlate.errors import AsmError, OperandError, RegisterError, ReservedBitsError, StructureError, XlateError

FINDINGS = Path(__file__).resolve().parents[1].parent / "shared" / "fuzz-findings"

# What each finding must give now: the error class the decoder (or the
# assembler) raises, or "ok" for the ones that translate.
EXPECTED = {
    "ps20_texld_c0.bin": OperandError,  # c0 as texld's sampler
    "ps30_texld_r0.bin": OperandError,  # r0 as texld's sampler
    "ps30_sampler_as_source.bin": OperandError,  # mul r0, s0.x, c0
    "vs20_loops_nested_128.bin": StructureError,  # loop nesting 128 > 4
    "ps2x_bias_modifier.bin": OperandError,  # _bias outside ps_1_x
    "not_modifier_on_float.bin": OperandError,  # '!' on t0
    "asm_texld_c0.asm": OperandError,  # assembles (Microsoft's assembler does), the decoder refuses
    "asm_texld_r0.asm": OperandError,
    "info_markup_ctab_name.bin": "ok",
    "info_markup_comment.bin": "ok",
    "info_escape_ctab_name.bin": "ok",
    "disasm_listing_injection.bin": "ok",
}


def _findings() -> list[str]:
    if not FINDINGS.is_dir():
        return ["<absent>"]
    return sorted(p.name for p in FINDINGS.iterdir() if p.suffix in (".bin", ".asm"))


def _glslang_clean(glsl: list) -> None:
    if not glsl:
        return
    results = validate_glsl([(code, stage) for code, stage, _ in glsl])
    bad = [(target, message) for (code, stage, target), message in zip(glsl, results) if message]
    assert not bad, f"{len(bad)} translations rejected by glslang, e.g. {bad[0][0]}: {bad[0][1][:400]}"


@pytest.mark.parametrize("name", _findings())
def test_fuzz_finding(name):
    if name == "<absent>":
        pytest.skip(f"no fuzz findings at {FINDINGS} (shared/fuzz-findings beside the project)")
    data = (FINDINGS / name).read_bytes()
    if name.endswith(".asm"):
        data = assemble_bytes(data.decode("utf-8"), source=name)
    glsl: list = []
    outcome = check_entry_points(data, glsl=glsl)
    want = EXPECTED.get(name)
    if want is None:  # a finding added since: it must at least be handled cleanly (checked above)
        return
    if want == "ok":
        assert set(outcome.values()) == {"ok"}, outcome
        _glslang_clean(glsl)
    else:
        assert outcome == {"decode": want.__name__}, outcome
    if name.endswith(".bin"):
        try:  # the spirv target (glslang -V and spirv-val) as well
            translate(data, "spirv")
        except XlateError as err:
            one_line_error(err, len(data))


def test_findings_listing_injection_stays_a_comment():
    if not (FINDINGS / "disasm_listing_injection.bin").exists():
        pytest.skip("no fuzz findings")
    shader = decode((FINDINGS / "disasm_listing_injection.bin").read_bytes())
    text = disassemble(shader)
    code = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("//")]
    assert code == ["ps_3_0", "dcl_texcoord v0", "mov r0, v0", "add r0, r0, c0", "mov oC0, r0"]
    assert "\\x0a" in text


@pytest.mark.parametrize("raw, shown", [
    ("gWorld", "gWorld"),
    ("a\nb", "a\\x0ab"),
    ("\x1b[31m", "\\x1b[31m"),
    ("back\\", "back\\x5c"),
    ("é", "\\xe9"),
    ("日", "\\u65e5"),
    ("x" * 300, "x" * 256 + "...(44 more characters)"),
])
def test_shown_name(raw, shown):
    assert shown_name(raw) == shown


# --------------------------------------------------------------------------
# Hostile CTAB names through every entry point
# --------------------------------------------------------------------------

HOSTILE_SEEDS = {
    "ps_3_0": "ps_3_0\ndcl_texcoord v0\ndcl_2d s0\ndcl_cube s1\ntexld r0, v0, s0\ntexld r1, v0, s1\n"
              "mad r0, r0, c0, c1\nadd r0, r0, r1\nmul r0, r0, c2\nadd oC0, r0, c3\n",
    "ps_2_0": "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmul r0, r0, c0\nadd r0, r0, c1\nmov oC0, r0\n",
    "vs_2_0": "vs_2_0\ndcl_position v0\ndp4 oPos.x, v0, c0\ndp4 oPos.y, v0, c1\ndp4 oPos.z, v0, c2\n"
              "dp4 oPos.w, v0, c3\nmul oT0, v0, c4\n",
    "vs_3_0": "vs_3_0\ndcl_position v0\ndcl_position o0\nmad o0, v0, c0, c1\n",
}


def _name_sets() -> list[tuple[str, ...]]:
    names = list(HOSTILE_NAMES)
    return [tuple(names[k:k + 6]) for k in range(0, len(names), 6)]


def test_hostile_ctab_names_everywhere():
    """Every hostile name, in every seed: the listing reassembles to the same
    tokens and shows no raw control character, info shows none, every GLSL
    target translates and glslang accepts it (the names never reach it raw)."""
    glsl: list = []
    cases = 0
    for version, text in HOSTILE_SEEDS.items():
        base = assemble_bytes(text)
        for names in _name_sets():
            data = with_hostile_ctab(base, list(names))
            outcome = check_entry_points(data, glsl=glsl)
            assert set(outcome.values()) == {"ok"}, (version, names, outcome)
            shader = decode(data)
            listing = disassemble(shader)
            for line in listing.splitlines():
                assert line.isprintable() and line.isascii(), repr(line[:200])
            info = info_text(shader)
            assert "Traceback" not in info and all(c == "\n" or c.isprintable() for c in info)
            if names == _name_sets()[0] or len(names[0]) > 1000:
                translate(data, "spirv")  # the Vulkan GLSL through glslang -V and spirv-val
            cases += 1
    assert cases >= 20
    for code, _, _ in glsl:
        for name in ("\x1b", "#define main", "*/ void", "\n#define ps_3_0"):
            assert name not in code
    _glslang_clean(glsl)


# --------------------------------------------------------------------------
# Nesting limits (validity.py)
# --------------------------------------------------------------------------

def _nested(kind: str, depth: int, version: str = "vs_3_0") -> bytes:
    text = {"vs_3_0": "vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n",
            "vs_2_0": "vs_2_0\ndcl_position v0\nmov oPos, v0\n"}[version]
    base = assemble_bytes(text)

    class Fixed(random.Random):
        def choice(self, seq):
            if seq and seq[0] == 2:
                return depth
            if "rep" in seq:
                return kind
            return super().choice(seq)

    tokens = list(memoryview(base).cast("I"))
    body_at = 7 if version == "vs_3_0" else 4  # after the version token and the dcls
    return _deepen(tokens, body_at, Fixed(0))


@pytest.mark.parametrize("kind, limit", [("rep", 4), ("loop", 4), ("if", 24)])
@pytest.mark.parametrize("version", ["vs_2_0", "vs_3_0"])
def test_nesting_limit(kind, limit, version):
    ok = _nested(kind, limit, version)
    decode(ok)
    translate(ok, "glsl330")
    with pytest.raises(StructureError, match="nested"):
        decode(_nested(kind, limit + 1, version))


def _call_chain(depth: int) -> str:
    lines = ["vs_3_0", "dcl_position v0", "dcl_position o0", "mov r0, v0", "call l0", "mov o0, r0", "ret"]
    for k in range(depth):
        lines += [f"label l{k}", "add r0, r0, r0"] + ([f"call l{k + 1}"] if k + 1 < depth else []) + ["ret"]
    return "\n".join(lines) + "\n"


def test_call_depth_limit():
    translate(assemble_bytes(_call_chain(4)), "glsl330")
    with pytest.raises(StructureError, match="call blocks are nested 5 deep"):
        translate(assemble_bytes(_call_chain(5)), "glsl330")


# --------------------------------------------------------------------------
# The essl100 volume sampler that is declared and never sampled
# --------------------------------------------------------------------------

def test_essl100_declared_volume_sampler_compiles():
    rows = {r["id"]: r for r in read_jsonl(require_corpus("wine", "asm_pairs.jsonl"))}
    glsl = []
    for case in ("asm.c:ps_2_0_test:2", "asm.c:ps_2_0_test:3"):
        out = translate(dwords_to_bytes(rows[case]["bytecode"]), "essl100")
        assert "GL_OES_texture_3D" in out.code and "sampler3D" in out.code
        glsl.append((out.code, "fragment", "essl100"))
    _glslang_clean(glsl)


# --------------------------------------------------------------------------
# The preprocessor's limits
# --------------------------------------------------------------------------

DOUBLING = "#define A0 mov r0, r0\n" + "".join(f"#define A{i} A{i - 1} A{i - 1}\n" for i in range(1, 16))


@pytest.mark.parametrize("text, reason", [
    ("vs_2_0\n" + DOUBLING + "A15\n" * 4000, "the preprocessor stops there"),
    ("vs_2_0\n" + DOUBLING + "A9\n" * 4000, "the preprocessor stops there"),
    ("vs_2_0\n#define E\n#define D E E E E E E E E E E E E E E E E\n" + "D D D D\n" * 5000, "macros in all"),
    ("vs_2_0\n#if " + "+".join(["1"] * 500_000) + "\n#endif\n", "more than 10000 tokens"),
])
def test_preprocessor_expansion_is_bounded(text, reason):
    start = time.perf_counter()
    with pytest.raises(AsmError, match=reason):
        assemble_bytes(text)
    assert time.perf_counter() - start < 30  # a hang guard, not a benchmark (it takes well under a second)


# --------------------------------------------------------------------------
# What scripts/fuzz found since (minimised), decoded now as the runtime would
# --------------------------------------------------------------------------

def _blob(*tokens: int) -> bytes:
    return struct.pack(f"<{len(tokens)}I", *tokens)


def _dst(rtype: RegisterType, index: int = 0, mods: int = 0) -> int:
    return 0x80000000 | register_type_bits(rtype) | 0xF << 16 | mods << 20 | index


def _src(rtype: RegisterType, index: int = 0) -> int:
    return 0x80000000 | register_type_bits(rtype) | 0xE4 << 16 | index


@pytest.mark.parametrize("blob, error, reason", [
    # ps_1_4 "+ texld r0, t0" first: nothing before it to pair with
    (_blob(0xFFFF0104, 0x40000042, _dst(RegisterType.TEMP), _src(RegisterType.ADDR), 0xFFFF), ReservedBitsError,
     "first instruction"),
    # ps_2_x "texkill l0" (its destination-format token names a label)
    (_blob(0xFFFF0201, 0x01000041, _dst(RegisterType.LABEL), 0xFFFF), OperandError, "cannot be l0"),
    # vs_2_0 "dcl_position c0": only inputs (and vs_3_0 outputs) are declared
    (_blob(0xFFFE0200, 0x0200001F, 0x80000000, _dst(RegisterType.CONST), 0xFFFF), RegisterError, "cannot be declared"),
    # vs_2_0 "def oPos, 0, 0, 0, 0": def defines c# only
    (_blob(0xFFFE0200, 0x05000051, _dst(RegisterType.RASTOUT), 0, 0, 0, 0, 0xFFFF), OperandError, "cannot be oPos"),
    # ps_2_0 "mov r0, oC0": outputs are never sources
    (_blob(0xFFFF0200, 0x02000001, _dst(RegisterType.TEMP), _src(RegisterType.COLOROUT), 0xFFFF), RegisterError,
     "cannot be read"),
    # vs_2_0 "dcl_position_pp v0": no result modifiers on a vertex dcl
    (_blob(0xFFFE0200, 0x0200001F, 0x80000000, _dst(RegisterType.INPUT, mods=2), 0xFFFF), OperandError,
     "dcl takes no modifiers in vertex shaders"),
])
def test_fuzz_found_since(blob, error, reason):
    with pytest.raises(error, match=reason):
        decode(blob)


@pytest.mark.parametrize("text, reason", [
    ("ps_3_0\ndcl_texcoord0 v0.xy\ndcl_texcoord1 v0.xy\nmov oC0, v0\n", "v0 is declared twice over the same components"),
    ("ps_3_0\ndcl_texcoord1 v0.xy\ndcl_texcoord1 v1.zw\nmov oC0, v0\n", "v1 is declared as texcoord1, which v0 already is"),
    ("vs_3_0\ndcl_position o0\ndcl_position o1\nmov o0, c0\n", "o1 is declared as position, which o0 already is"),
    ("ps_2_0\ndcl_2d s0\ndcl_cube s0\ntexld r0, t0, s0\nmov oC0, r0\n", "s0 is declared twice"),
])
def test_redeclarations_are_refused(text, reason):
    """scripts/fuzz found ps_3_0 inputs declared twice (GLSL with overlapping
    locations); the runtime refuses them, so do the decoder and the assembler."""
    with pytest.raises(RegisterError, match=reason):
        decode(unchecked_bytes(text))
    with pytest.raises(AsmError, match=reason) as info:
        assemble_bytes(text)
    assert info.value.line == 3


def test_packed_semantics_still_decode():
    # two semantics in one register over disjoint components: legal, fxc writes it
    translate(assemble_bytes("vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord0 o1.xy\ndcl_texcoord1 o1.zw\n"
                             "mov o0, v0\nmov o1, v0\n"), "glsl330")


# --------------------------------------------------------------------------
# Found by the campaign (scripts/fuzz, docs/fuzz.md)
# --------------------------------------------------------------------------

# glsl120, seed 0 input 73,213: "sge_sat p0.xyz, v1.yxyy, b4.wwwx" in ps_2_sw
# gave "p0.xyz = xl_saturate(vec4(...)).xyz", which glslang refuses (a float
# result stored in the bool predicate).  Only setp writes p0
# (validity.WRITTEN_ONLY_BY): the decoder refuses the rest.
CAMPAIGN_P0_WRITE = bytes.fromhex(
    "ff02ffff0f00000203086080010075800d000003001017b00100519004083fe05a0000040308228001001490001059b000005490ffff0000")


@pytest.mark.parametrize("text", [
    "ps_2_x\nadd p0, v1, c0\n(p0) mov oC0, c0\n",
    "ps_2_x\nmov_sat p0.x, v1\n(p0.x) mov oC0, c0\n",
    "vs_2_x\nmov p0, v0\nmov oPos, v0\n",
])
def test_only_setp_writes_the_predicate(text):
    with pytest.raises(AsmError, match="only setp writes") as refused:  # one rule for the assembler and the decoder
        assemble_bytes(text)
    assert (refused.value.line, refused.value.column) == (2, text.split("\n")[1].index("p0") + 1)
    blob = unchecked_bytes(text)
    with pytest.raises(OperandError, match="only setp writes") as info:
        decode(blob)
    one_line_error(info.value, len(blob))
    with pytest.raises(OperandError):
        translate(blob, "glsl330")


def test_campaign_finding_predicate_written_by_sge():
    with pytest.raises(OperandError, match="'sge' cannot write p0") as info:
        decode(CAMPAIGN_P0_WRITE)
    assert info.value.offset == 20  # the sge's destination token
    setp = translate(assemble_bytes("ps_2_x\nsetp_gt p0, v1, c0\n(p0) mov oC0, c0\n"), "glsl120")
    assert validate_glsl([(setp.code, "fragment")]) == [None]
