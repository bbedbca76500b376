"""Hostile effects: mutations of corpus effects (byte flips, truncations,
count and offset edits) must parse or raise XlateError (EffectError), never
crash, hang or allocate without bound -- and the runtime (evaluate_pass)
evaluates every pass of what parses or refuses it with XlateError /
ValueError; a bounded-time property checks the cost stays linear in the
size."""

from __future__ import annotations

import struct
import time

from effect_corpus import all_effects
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlate.effect import evaluate_pass, format_effect, parse_effect
from xlate.effect.info import effect_summary
from xlate.errors import EffectError, XlateError

FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def _corpus() -> list[bytes]:
    # small and medium effects: mutations of big ones find nothing new
    return [d for _, d in all_effects() if len(d) <= 12000]


def _check(data: bytes) -> None:
    try:
        effect = parse_effect(data)
    except EffectError as err:
        assert -1 <= err.offset <= len(data) and err.reason
        return
    format_effect(effect)  # the listing and the summary walk every part of the model
    effect_summary(effect)
    for tech in effect.techniques:  # and the runtime runs every pass (defaults) or refuses it
        for pss in tech.passes:
            try:
                evaluate_pass(effect, tech, pss)
            except (XlateError, ValueError) as err:
                assert str(err)


@FUZZ
@given(st.integers(0, 10**6), st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=8))
def test_byte_flips(pick, flips):
    corpus = _corpus()
    data = bytearray(corpus[pick % len(corpus)])
    for pos, value in flips:
        data[pos % len(data)] = value
    _check(bytes(data))


@FUZZ
@given(st.integers(0, 10**6), st.integers(0, 10**6))
def test_truncations(pick, cut):
    corpus = _corpus()
    data = corpus[pick % len(corpus)]
    _check(data[: cut % len(data)])


@FUZZ
@given(st.integers(0, 10**6), st.integers(0, 10**6),
       st.sampled_from([0, 1, 2, 0x7F, 0x100, 0xFFFF, 0x10000, 0x7FFFFFFF, 0xFFFFFFFF, 0xFFFFFFF0]))
def test_dword_edits(pick, where, value):
    """Any aligned DWORD (counts, offsets, ids, sizes) set to an edge value."""
    corpus = _corpus()
    data = bytearray(corpus[pick % len(corpus)])
    pos = (where % (len(data) // 4)) * 4
    struct.pack_into("<I", data, pos, value)
    _check(bytes(data))


def test_bounded_time_on_hostile_sizes():
    """Every count of the header at its maximum, and a 1 MB effect of one
    repeated type reference: each fails (or parses) in bounded time."""
    base = dict(all_effects())["fna/SpriteEffect.fxb"]
    start = 8 + struct.unpack_from("<I", base, 4)[0]
    for field in range(0, 16, 4):
        data = bytearray(base)
        struct.pack_into("<I", data, start + field, 0xFFFFFFFF)
        t = time.perf_counter()
        _check(bytes(data))
        assert time.perf_counter() - t < 2.0
    # 60,000 parameters all pointing at the same type and value
    n = 60000
    body = struct.pack("<4I", 3, 0, 0, 0) + b"\0" * 16 + struct.pack("<5I", 3, 0, 0, 0, 0) + struct.pack("<2I", 1, 1)
    # (the name at offset 0 is 3 NULs; a float scalar's type at offset 32)
    structured = struct.pack("<4I", n, 0, 0, 0) + struct.pack("<4I", 32, 0, 0, 0) * n + struct.pack("<2I", 0, 0)
    blob = struct.pack("<2I", 0xFEFF0901, len(body)) + body + structured
    t = time.perf_counter()
    effect = parse_effect(blob)
    assert time.perf_counter() - t < 10.0
    assert len(effect.parameters) == n and effect.parameters[-1].type_text() == "float"


def _effect_with_type(typedef: bytes) -> bytes:
    """A one-parameter effect whose type definition is ``typedef`` (at body
    offset 8, after an empty name at offset 0)."""
    body = struct.pack("<2I", 0, 0) + typedef
    structured = struct.pack("<4I", 1, 0, 0, 0) + struct.pack("<4I", 8, 0, 0, 0) + struct.pack("<2I", 0, 0)
    return struct.pack("<2I", 0xFEFF0901, len(body)) + body + structured


def test_deep_struct_nesting_is_refused():
    inner = struct.pack("<7I", 3, 0, 0, 0, 0, 1, 1)  # float scalar
    typedef = inner
    for _ in range(40):  # struct { struct { ... } }
        typedef = struct.pack("<6I", 0, 5, 0, 0, 0, 1) + typedef
    try:
        parse_effect(_effect_with_type(typedef))
    except EffectError as err:
        assert "nest" in err.reason
    else:
        raise AssertionError("40 nested structs accepted")
    ok = inner
    for _ in range(8):
        ok = struct.pack("<6I", 0, 5, 0, 0, 0, 1) + ok
    (param,) = parse_effect(_effect_with_type(ok)).parameters
    assert param.type_text() == "struct"


def test_huge_names_and_sizes_are_refused():
    typedef = struct.pack("<7I", 3, 0, 0, 0, 0, 1, 1)
    data = bytearray(_effect_with_type(typedef))
    struct.pack_into("<I", data, 8, 0x7FFFFFFF)  # the name at offset 0 claims 2 GB
    try:
        parse_effect(bytes(data))
    except EffectError as err:
        assert "name" in err.reason and err.offset == 8
    else:
        raise AssertionError("a 2 GB name accepted")
    bad = _effect_with_type(struct.pack("<7I", 3, 2, 0, 0, 0xFFFFFF, 4, 4))  # float4x4[16M]
    try:
        parse_effect(bad)
    except EffectError as err:
        assert "larger than the effect" in err.reason
    else:
        raise AssertionError("a 1 GB value accepted")


def test_zero_size_arrays_are_bounded_by_the_effect():
    """Object elements take no bytes of the value area, so the byte check
    cannot bound them: a texture[2^31] (fuzz campaign, effect input 562,084)
    or nested arrays of them (struct[1000] { texture[1000] }) made every walk
    over the values take minutes.  More values than the effect has DWORDs are
    refused at the type, in bounded time; a real array still parses."""
    texture = 5  # D3DXPT_TEXTURE, class OBJECT (4)
    cases = {
        "texture[2^31]": struct.pack("<5I", texture, 4, 0, 0, 0x80000000),
        "struct[1000] { texture[1000] }": struct.pack("<6I", 0, 5, 0, 0, 1000, 1) + struct.pack("<5I", texture, 4, 0, 0, 1000),
    }
    for what, typedef in cases.items():
        t = time.perf_counter()
        try:
            parse_effect(_effect_with_type(typedef))
        except EffectError as err:
            assert "more than an effect of" in err.reason, what
            assert err.offset >= 8, what
        else:
            raise AssertionError(f"{what} accepted")
        assert time.perf_counter() - t < 2.0, what
    # texture[4] (object ids 1-4 of 5) parses
    body = struct.pack("<2I", 0, 0) + struct.pack("<5I", texture, 4, 0, 0, 4) + struct.pack("<4I", 1, 2, 3, 4)
    structured = struct.pack("<4I", 1, 0, 0, 5) + struct.pack("<4I", 8, 28, 0, 0) + struct.pack("<2I", 0, 0)
    (param,) = parse_effect(struct.pack("<2I", 0xFEFF0901, len(body)) + body + structured).parameters
    assert param.elements == 4 and param.type_text() == "texture"
