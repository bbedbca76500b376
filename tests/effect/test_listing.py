"""``format_effect`` against fxc's own /Fc listings of the 91 fxc-wine
effects, after the normalisation of docs/disassembly.md ("Effects")."""

from __future__ import annotations

import re
import struct

from effect_corpus import fxc_wine_effects, require_corpus

from xlate.effect import format_effect, parse_effect

# fxc's structural comment lines: kept by the normalisation (E1)
STRUCTURAL = ("//No embedded", "//listing for:", "//listing of all")
_NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d+(?:e[-+]?\d+)?")


def _float32(match: re.Match) -> str:
    return "0x%08x" % struct.unpack("<I", struct.pack("<f", float(match.group())))[0]


def normalise(text: str) -> list[str]:
    """E1 comments go (whole-line and trailing) except fxc's structural ones;
    E2 blank lines go, each line is stripped and runs of blanks collapse;
    E3 decimal literals compare as float32 bit patterns."""
    out = []
    for line in text.splitlines():
        s = line.strip()
        if not s.startswith(STRUCTURAL):
            s = s.split("//", 1)[0]
        s = " ".join(s.split())
        if s:
            out.append(_NUMBER.sub(_float32, s))
    return out


# Listings that differ from fxc's, with the reason (none today; array
# selectors list the element the index expression picks with the defaults,
# as fxc does, through xlate.preshader's evaluator).
MISSES: dict[str, str] = {}


def _first_difference(mine, ref):
    for n, (a, b) in enumerate(zip(mine, ref)):
        if a != b:
            return f"line {n}: ours {a!r}, fxc {b!r}"
    return f"ours has {len(mine)} lines, fxc {len(ref)}"


def test_fxc_wine_effect_listings(record_property):
    require_corpus("fxc-wine", "index.jsonl")
    effects = fxc_wine_effects()
    assert len(effects) == 91
    matched, failures, missed = 0, [], []
    for eid, data, asm in effects:
        mine, ref = normalise(format_effect(parse_effect(data))), normalise(asm)
        if mine == ref:
            matched += 1
            assert eid not in MISSES, f"{eid} matches now: take it out of MISSES"
        elif eid in MISSES:
            missed.append(eid)
        else:
            failures.append(f"{eid}: {_first_difference(mine, ref)}")
    record_property("corpus_summary", f"effect listings: {matched}/91 match fxc; {len(missed)} listed misses")
    assert matched == 91 - len(MISSES)
    assert not failures, "\n".join(failures)


def test_listing_shows_states_and_expressions():
    from effect_corpus import fxc_game_effects

    data = dict(fxc_game_effects())["fna/BasicEffect.fxb"]
    text = format_effect(parse_effect(data))
    assert "//listing for: VSArray[19]" in text
    assert "// vertexshader = VSArray[expression]; with the defaults: element 0" in text
    assert "//   mov c0.x, c0[c32.x].x" in text  # the array selector's index expression, decoded


def test_hostile_names_cannot_break_the_listing():
    data = bytearray(dict((i, d) for i, d, _ in fxc_wine_effects())[
        "dxdecompiler/Internal__Effect_StateBlock.effect.fx_2_0.bin"])
    at = data.find(b"Tech1")
    data[at:at + 5] = b"T\n\x1b[\x07"
    text = format_effect(parse_effect(bytes(data)))
    assert "\x1b" not in text and "\x07" not in text
    assert "technique T\\x0a\\x1b[\\x07" in text
