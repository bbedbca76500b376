"""The SPIR-V interface cache's shortcuts give what the long way gives.

``interface.build`` keeps each interface it builds (``_BUILT``); a later
shader with the same interface restores it.  These tests check the
shortcuts that sharing takes: a cached state's prefix packed as bytes once,
by the first module's ``to_bytes`` (``Module._write_packing``), and the cache's
places and io handed to shaders without a copy (``Interface.builtin``
copies them before it adds one).

Corpus share: every 8th fxc-wine shader; XLATE_CORPUS_FULL=1 takes all.
"""

from __future__ import annotations

import os
import sys

import pytest

from xlate import translate
from xlate.bytecode.asm import assemble_bytes
from xlate.backends.spirv import interface

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import corpus  # noqa: E402

FULL = os.environ.get("XLATE_CORPUS_FULL") == "1"

PS = "ps_3_0\ndcl_texcoord0 v0\ndcl_2d s0\ntexld r0, v0, s0\nmul oC0, r0, c0\n"
# PS's interface without temporaries (a cache hit copies nothing); and one
# vertex interface, with the temporaries each body adds (vec4 registers, an
# int loop counter, aL)
PS_NO_TEMPS = "ps_3_0\ndcl_texcoord0 v0\ndcl_2d s0\nmul oC0, v0, c0\n"
VS_TEMPS = "vs_3_0\ndcl_position v0\ndcl_position o0\n{body}add o0, {last}, c0\n"


def _fxc_wine_blobs() -> list[bytes]:
    records = corpus.fxc_wine_records(corpus.require_corpus("fxc-wine"))
    blobs = [rec.data for rec in records if not rec.is_effect]
    return blobs if FULL else blobs[::8]


def _spirv(blob: bytes, **options) -> bytes | None:
    try:
        return translate(blob, "spirv", **options).code
    except Exception:  # refused the same way however its interface is found (the test compares bytes)
        return None


@pytest.mark.parametrize("names", [True, False])
def test_a_packed_prefix_gives_the_bytes_of_a_built_interface(monkeypatch, names):
    """Each shader three times: its interface built (the cache emptied; its
    to_bytes packs the cached state's prefix), restored from the cache, and
    restored again: the same bytes each time, and the bytes of the module
    written without the packed prefix."""
    monkeypatch.setattr(interface, "_BUILT", {})
    blobs = _fxc_wine_blobs()
    options = {} if names else {"debug_names": False}
    packed = 0
    for blob in blobs:
        interface._BUILT.clear()
        built = _spirv(blob, **options)
        again = _spirv(blob, **options)
        packed += any("packed" in state for state, *_ in interface._BUILT.values())
        assert again == built
        assert _spirv(blob, **options) == built
    assert packed > len(blobs) // 2  # most shaders went through the packed path


def test_to_bytes_with_and_without_the_packed_prefix(monkeypatch):
    """A module restored from a packed state writes the words its prefix
    and sections hold, whichever path writes them."""
    monkeypatch.setattr(interface, "_BUILT", {})
    modules = []
    real = interface.build

    def spy(*args):
        m, iface = real(*args)
        modules.append(m)
        return m, iface

    monkeypatch.setattr(interface, "build", spy)
    for blob in _fxc_wine_blobs()[::4]:
        for _ in range(2):
            _spirv(blob)
    assert modules
    for m in modules:
        words = m.words().tobytes() if sys.byteorder == "little" else None
        packed = m.to_bytes()
        assert m.packed is not None
        m.packed, m.state = None, None  # the word-by-word path
        assert m.to_bytes() == packed
        if words is not None:
            assert packed == words


def test_a_late_builtin_leaves_the_cached_interface_alone(monkeypatch):
    """A built-in added after the interface came from the cache (the
    emitter's fallback for a name the layout reaches) goes into the
    shader's own copies of places and io, never into the cache's."""
    monkeypatch.setattr(interface, "_BUILT", {})
    calls = []
    real = interface.build

    def spy(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(interface, "build", spy)
    blob = assemble_bytes(PS_NO_TEMPS)  # no private registers: nothing copied on a hit
    first = translate(blob, "spirv").code
    (state, places, io, depth, info), = interface._BUILT.values()
    before = (dict(places), tuple(io))
    m, iface = real(*calls[0])  # a hit: the cache's places and io
    assert iface.places is places and iface.io is io
    words = m.bound
    iface.builtin("gl_FragCoord")
    assert "gl_FragCoord" in iface.places and len(iface.io) == len(io) + 1 and m.bound > words
    assert (dict(places), tuple(io)) == before
    assert translate(blob, "spirv").code == first


def test_shaders_differing_in_temporaries_share_one_interface(monkeypatch):
    """The private registers are written per shader after the cached part:
    shaders that differ only in them find one cached interface, whose
    places stay as built; each gets the bytes it gets with the cache
    emptied first, and its registers are in its own places."""
    monkeypatch.setattr(interface, "_BUILT", {})
    bodies = [
        ("", "v0"),
        ("mov r0, v0\n", "r0"),
        ("mov r0, v0\nadd r1, r0, v0\nmul r2, r1, r0\n", "r2"),
        ("defi i0, 3, 0, 0, 0\nmov r0, v0\nrep i0\nadd r0, r0, v0\nendrep\n", "r0"),
        ("defi i0, 3, 0, 1, 0\nmov r3, v0\nloop aL, i0\nadd r3, r3, v0\nendloop\n", "r3"),
    ]
    blobs = [assemble_bytes(VS_TEMPS.format(body=body, last=last)) for body, last in bodies]
    alone = []
    for blob in blobs:
        interface._BUILT.clear()
        alone.append(translate(blob, "spirv").code)
    interface._BUILT.clear()
    together = [translate(blob, "spirv").code for blob in blobs]
    assert together == alone
    assert len(interface._BUILT) == 1
    (state, places, io, depth, info), = interface._BUILT.values()
    assert not any(place.storage == "Private" for place in places.values())
    assert not any(name in info for name in ("r0", "r1", "r2", "r3"))
    assert len(set(together)) == len(blobs)
