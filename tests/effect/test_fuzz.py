"""Hostile effects: mutations of corpus effects (byte flips, truncations,
count and offset edits) must parse or raise XlateError (EffectError), never
crash, hang or allocate without bound; a bounded-time property checks the
cost stays linear in the size."""

from __future__ import annotations

import struct
import time

from effect_corpus import all_effects
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlate.effect import format_effect, parse_effect
from xlate.effect.info import effect_summary
from xlate.errors import EffectError

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
