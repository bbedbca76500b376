"""Preshader decoding and fxc's listing (xlate/preshader, docs/preshader.md)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus import fxc_wine_records, mutate, require_corpus
from xlate.bytecode import decode
from xlate.errors import BytecodeError, PreshaderError
from xlate.preshader import (
    FxlvmOpcode,
    Preshader,
    RegisterFile,
    decode_preshader,
    format_double,
    format_preshader,
    shader_preshader,
)
from xlate.preshader.tables import FOURCC_CLIT, FOURCC_FXLC, FOURCC_PRSI

# --------------------------------------------------------------------------
# Building FX streams by hand
# --------------------------------------------------------------------------

FX_VERSION = 0x46580201


def block(fourcc: int, words: list[int]) -> list[int]:
    return [((len(words) + 1) << 16) | 0xFFFE, fourcc, *words]


def operand(file: int, offset: int, index: tuple[int, int] | None = None) -> list[int]:
    return [1, *index, file, offset] if index else [0, file, offset]


def instruction(op: FxlvmOpcode, count: int, inputs: list[list[int]], output: list[int], scalar: bool = False) -> list[int]:
    token = (op.code << 20) | count | (0x80000000 if scalar else 0)
    return [token, len(inputs), *[w for i in inputs for w in i], *output]


def stream(instructions: list[list[int]], literals: tuple[float, ...] = (), prsi: list[int] | None = None) -> bytes:
    words = [FX_VERSION]
    if prsi is not None:
        words += block(FOURCC_PRSI, prsi)
    lit = list(struct.unpack(f"<{2 * len(literals)}I", struct.pack(f"<{len(literals)}d", *literals)))
    words += block(FOURCC_CLIT, [len(literals), *lit])
    words += block(FOURCC_FXLC, [len(instructions), *[w for i in instructions for w in i]])
    words.append(0xFFFF)
    return struct.pack(f"<{len(words)}I", *words)


L, C, O, T = RegisterFile.LITERAL, RegisterFile.INPUT, RegisterFile.OUTPUT, RegisterFile.TEMP

# --------------------------------------------------------------------------
# fxc-wine: every preshader decodes and lists as fxc lists it
# --------------------------------------------------------------------------


def fxc_preshader_block(asm: str) -> list[str]:
    """fxc's ``preshader`` block: from the ``preshader`` line to the first
    blank or ``//`` line, each line stripped and its blanks collapsed."""
    lines = [line.strip() for line in asm.splitlines()]
    start = lines.index("preshader")
    out = []
    for line in lines[start:]:
        if not line or line.startswith("//"):
            break
        out.append(" ".join(line.split()))
    return out


def preshader_records():
    return [r for r in fxc_wine_records() if not r.is_effect and b"PRES" in r.data]


def test_fxc_wine_preshaders_decode_and_list(record_property):
    require_corpus("fxc-wine", "index.jsonl")
    decoded = matched = 0
    failures = []
    opcodes = set()
    for rec in preshader_records():
        pre = shader_preshader(decode(rec.data))
        if pre is None:
            continue
        decoded += 1
        opcodes.update(inst.opcode for inst in pre.instructions)
        assert pre.version == (2, 1) and pre.ctab is not None and pre.prsi is not None
        assert pre.blocks == ("CTAB", "PRSI", "CLIT", "FXLC")
        mine, ref = format_preshader(pre), fxc_preshader_block(rec.asm)
        if mine == ref:
            matched += 1
        else:
            first = next((f"{a!r} vs fxc {b!r}" for a, b in zip(mine, ref) if a != b), f"{len(mine)} vs {len(ref)} lines")
            failures.append(f"{rec.id}: {first}")
    record_property("corpus_summary", f"preshader fxc-wine: {decoded} decoded, {matched} listings match fxc")
    assert decoded == 49
    assert not failures, "\n".join(failures[:10])
    # the corpus exercises relative addressing, dot, d3ds_dotswiz and cmp
    assert {FxlvmOpcode.DOT, FxlvmOpcode.DOTSWIZ6, FxlvmOpcode.CMP} <= opcodes


def test_prsi_names_the_output_registers():
    require_corpus("fxc-wine", "index.jsonl")
    for rec in preshader_records():
        pre = shader_preshader(decode(rec.data))
        written = set(pre.output_registers.get(RegisterFile.OUTPUT, ()))
        ranged = {r for rng in pre.prsi.ranges for r in range(rng.start, rng.start + rng.count)}
        assert written <= ranged, rec.id
        assert pre.prsi.first_register == min(ranged)
        assert pre.prsi.first_register + pre.prsi.register_span == max(ranged) + 1


def test_shader_without_preshader():
    shader = decode(struct.pack("<5I", 0xFFFE0200, 0x02000001, 0xC00F0000, 0xA0E40000, 0xFFFF))
    assert shader_preshader(shader) is None


# --------------------------------------------------------------------------
# Hand-made streams: every opcode, operands, listing details
# --------------------------------------------------------------------------


def test_every_opcode_decodes_and_lists():
    for op in FxlvmOpcode:
        inputs = [operand(T, 4 * k) for k in range(op.inputs)]
        count = 1 if op.inputs > 4 else 2
        pre = decode_preshader(stream([instruction(op, count, inputs, operand(O, 0))]))
        (inst,) = pre.instructions
        assert inst.opcode is op and len(inst.inputs) == op.inputs
        text = format_preshader(pre)[1]
        assert text.startswith(op.mnemonic + " ")


def test_listing_spellings():
    data = stream(
        [
            instruction(FxlvmOpcode.ADD, 4, [operand(L, 1), operand(C, 12)], operand(T, 0), scalar=True),
            instruction(FxlvmOpcode.ADD, 4, [operand(T, 0), operand(T, 4)], operand(O, 8), scalar=True),
            instruction(FxlvmOpcode.MOV, 2, [operand(C, 1, index=(T, 2))], operand(O, 5)),
            instruction(FxlvmOpcode.DOT, 4, [operand(C, 0), operand(T, 0)], operand(O, 17)),
            instruction(FxlvmOpcode.MUL, 3, [operand(L, 0), operand(T, 0)], operand(T, 4)),
        ],
        literals=(0.5, -2.52398518e-7, 1e30, 0.0),
    )
    assert format_preshader(decode_preshader(data)) == [
        "preshader",
        "add r0, (-2.52398518e-007, -2.52398518e-007, -2.52398518e-007, -2.52398518e-007), c3",
        "add c2, r0.x, r1",
        "mov c1.yz, c0[r0.z].yz",
        "dot c4.yzwx, c0, r0",
        "mul r1.xyz, (0.5, -2.52398518e-007, 1e+030), r0.xyz",
    ]


@pytest.mark.parametrize("value, text", [
    (5.0, "5"), (5.5, "5.5"), (-0.0, "-0"), (0.159154943091895, "0.159154943"),
    (-0.4999999963, "-0.499999996"), (2.47609e-5, "2.47609e-005"), (1e9, "1e+009"),
    (123456789.0, "123456789"), (float("inf"), "1.#INF"), (float("-inf"), "-1.#INF"),
    (float("nan"), "1.#QNAN"),
])
def test_format_double(value, text):
    assert format_double(value) == text


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------

GOOD = stream([instruction(FxlvmOpcode.MOV, 1, [operand(L, 0)], operand(O, 0))], literals=(1.0,))


@pytest.mark.parametrize("data, offset, words", [
    (b"", 0, "too few"),
    (struct.pack("<I", 0xFFFE0200), 0, "no FX version token"),
    (stream([instruction(FxlvmOpcode.MOV, 1, [operand(L, 3)], operand(O, 0))], literals=(1.0,)), None, "CLIT holds 1"),
    (stream([instruction(FxlvmOpcode.MOV, 5, [operand(T, 0)], operand(O, 0))]), None, "5 components"),
    (stream([instruction(FxlvmOpcode.MOV, 1, [operand(T, 0)], operand(O, 0, index=(T, 0)))]), None, "relatively addressed"),
    (stream([instruction(FxlvmOpcode.MOV, 1, [operand(T, 0)], operand(L, 0))]), None, "read-only"),
    (stream([instruction(FxlvmOpcode.MOV, 1, [operand(3, 0)], operand(O, 0))]), None, "register file 3"),
    (stream([instruction(FxlvmOpcode.MOV, 1, [operand(T, 0)], operand(T, 0xFFFFFFF0))]), None, "past the 8192 registers"),
    (stream([[0x20900001, 2, *operand(T, 0), *operand(T, 0), *operand(O, 0)]]), None, "unknown FXLVM operation 0x209"),
    (stream([[0x20400001, 3, *operand(T, 0), *operand(T, 0), *operand(T, 0), *operand(O, 0)]]), None, "does not take 3 inputs"),
])
def test_malformed_streams(data, offset, words):
    with pytest.raises(PreshaderError) as info:
        decode_preshader(data, base_offset=100)
    err = info.value
    assert words in err.reason
    assert 100 <= err.offset <= 100 + len(data)
    if offset is not None:
        assert err.offset == 100 + offset


def test_bytes_after_end_are_counted():
    pre = decode_preshader(GOOD + bytes(10))
    assert pre.terminated and pre.trailing_bytes == 10 and len(pre.instructions) == 1
    pre = decode_preshader(GOOD[:-4])  # no END: d3dx9 does not need one
    assert not pre.terminated and pre.trailing_bytes == 0 and len(pre.instructions) == 1
    pre = decode_preshader(GOOD[:-4] + struct.pack("<2I", 0, 0xFFFF))  # stops at the first non-comment token
    assert not pre.terminated and pre.trailing_bytes == 8
    assert decode_preshader(GOOD[:-2]).trailing_bytes == 2


def test_huge_counts_fail_fast():
    words = [FX_VERSION, *block(FOURCC_CLIT, [0xFFFFFFFF]), *block(FOURCC_FXLC, [0xFFFFFFFF]), 0xFFFF]
    with pytest.raises(PreshaderError, match="literals"):
        decode_preshader(struct.pack(f"<{len(words)}I", *words))
    words = [FX_VERSION, *block(FOURCC_FXLC, [0xFFFFFFFF, 0, 0]), 0xFFFF]
    with pytest.raises(PreshaderError, match="instructions"):
        decode_preshader(struct.pack(f"<{len(words)}I", *words))


# --------------------------------------------------------------------------
# Fuzzing: mutated corpus preshaders and random streams
# --------------------------------------------------------------------------


def _seeds() -> list[bytes]:
    try:
        records = preshader_records()
    except Exception:  # no corpus: hand-made seeds only
        records = []
    seeds = [GOOD]
    for rec in records[:12]:
        shader = decode(rec.data)
        seeds += [c.payload for c in shader.comments if c.fourcc == "PRES"]
    return seeds


SEEDS = _seeds()


def check_contract(data: bytes) -> Preshader | PreshaderError:
    """decode returns a Preshader that lists and evaluates, or raises a
    PreshaderError with an offset inside the stream and a one-line reason."""
    try:
        pre = decode_preshader(data, base_offset=8)
    except PreshaderError as err:
        assert 8 <= err.offset <= 8 + len(data), err
        assert err.reason and "\n" not in err.reason
        return err
    lines = format_preshader(pre)
    assert lines[0] == "preshader" and len(lines) == len(pre.instructions) + 1
    result = pre.evaluate()
    assert all(v.shape == (4,) for v in result.floats.values())
    return pre


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    mutations=st.lists(st.tuples(st.sampled_from(["flip", "truncate", "insert", "delete", "duplicate", "replace"]),
                                 st.integers(0, 10**6), st.integers(0, 2**32 - 1)), min_size=1, max_size=4),
)
def test_fuzz_mutated_preshaders(seed, mutations):
    data = SEEDS[seed % len(SEEDS)]
    for kind, position, value in mutations:
        data = mutate(data, kind, position, value)
    check_contract(data)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=256))
def test_fuzz_random_bytes(data):
    check_contract(struct.pack("<I", FX_VERSION) + data)


def test_error_is_a_bytecode_error():
    assert issubclass(PreshaderError, BytecodeError)


# --------------------------------------------------------------------------
# Every FX stream of the 124 effect files (Wine's 15, fxc-wine's 91, FNA's 8,
# omegaengine's 10): shaders' PRES comments and state expressions
# --------------------------------------------------------------------------


def _effect_blobs():
    import glob
    import json

    from corpus import corpus_root, dwords_to_bytes

    root = corpus_root()
    out = []
    with open(root / "wine" / "effects.jsonl", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["kind"] == "effect":
                out.append((row["id"], dwords_to_bytes(row["bytecode"])))
    for pattern in ("fxc/fna/*.fxb", "fxc/omegaengine/*.fxo", "fxc-wine/*/*.fx_2_0*.bin"):
        for path in sorted(glob.glob(str(root / pattern))):
            with open(path, "rb") as f:
                out.append((path.rsplit("/", 1)[-1], f.read()))
    return out


def fx_streams(data: bytes):
    """(offset, stream) for each FX stream in an effect, found the simple way
    (a test helper until the effect parser lists them): an FX version token
    followed by a comment block, whose size is the DWORD before it (a state
    expression's resource record), the comment token two DWORDs before it (a
    shader's PRES), or, for an array selector ``[2, size, name length, name,
    stream]``, the record's size less the name."""
    n = len(data) // 4
    w = struct.unpack(f"<{n}I", data[: 4 * n])
    for i in range(2, n - 1):
        if w[i] >> 16 != 0x4658 or w[i + 1] & 0xFFFF != 0xFFFE:
            continue
        if w[i - 1] == 0x53455250:  # "PRES"
            size = 4 * ((w[i - 2] >> 16) - 1)
        else:
            size = w[i - 1]
            for k in range(2, min(i - 2, 66)):  # [2, record size, name length, name: k - 1 DWORDs, stream]
                if w[i - k] == 4 * (k - 1) and w[i - k - 2] == 2:
                    size = w[i - k - 1] - 4 - w[i - k]
                    break
        if 8 <= size <= 4 * (n - i):
            yield 4 * i, data[4 * i: 4 * i + size]


def test_every_fx_stream_of_the_effect_corpora_decodes(record_property):
    require_corpus("fxc-wine", "index.jsonl")
    require_corpus("wine", "effects.jsonl")
    files = _effect_blobs()
    decoded = shaders = unterminated = 0
    for name, data in files:
        for offset, fx in fx_streams(data):
            pre = decode_preshader(fx, offset)
            decoded += 1
            shaders += pre.prsi is not None
            unterminated += not pre.terminated
            assert len(format_preshader(pre)) == len(pre.instructions) + 1
            pre.evaluate()
    record_property("corpus_summary", f"FX streams in {len(files)} effect files: {decoded} decode "
                                      f"({shaders} shader preshaders), {unterminated} without END")
    assert len(files) == 124 and decoded == 247 and unterminated == 1  # the hand-edited Wine blob
