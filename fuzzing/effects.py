"""Structure-aware mutations of fx_2_0 effects from the peer corpus.

The parser reads every DWORD of an effect through one method
(``_Reader.dword(pos, what)``); a subclass that notes each read gives, for
each seed effect, a map of its fields -- counts, offsets, sizes, name
offsets, state records -- without a second description of the format.
Mutations then edit what a hostile effect would: counts, offsets and sizes
set to edge or neighbouring values, names pointed at hostile strings
appended to the effect, state records (operation, type, value) swapped,
shader tokens inside the effect mutated in place, bytes flipped and the
effect truncated.
"""

from __future__ import annotations

import functools
import random
import struct
import sys
from dataclasses import dataclass

import hostile
from corpus import corpus_available, mutate

from xlate.effect.parse import BASE, _Reader

from . import ROOT

EDGE_VALUES = (0, 1, 2, 3, 4, 0x7F, 0x100, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF)
NAME_FIELDS = ("name offset", "semantic offset", "technique name offset", "pass name offset")
SIZE_FIELDS = ("object size", "resource size", "name's length")
MAX_SEED_BYTES = 16_000  # big effects cost more to translate and find nothing the small ones do not
# Raw names besides the CTAB hostile names: invalid UTF-8, an unterminated name.
RAW_NAMES = (b"\xff\xfe\x80", b"ok\x00hidden", b"\x1b]0;title\x07", b"no terminator")


class _Recorder(_Reader):
    """The parser, noting (position, what) for each DWORD it reads."""

    def __init__(self, data: bytes):
        super().__init__(data)
        self.fields: dict[int, str] = {}

    def dword(self, pos: int, what: str) -> int:
        value = super().dword(pos, what)
        self.fields.setdefault(pos, what)
        return value


@dataclass(frozen=True)
class Seed:
    name: str
    data: bytes
    fields: tuple[tuple[int, str], ...]  # every DWORD the parser reads: (position, what)
    shaders: tuple[tuple[int, int], ...]  # (position, size) of each embedded shader blob

    def positions(self, test) -> list[int]:
        return [pos for pos, what in self.fields if test(what)]


def _seed_effects() -> list[tuple[str, bytes]]:
    sys.path.insert(0, str(ROOT / "tests" / "effect"))
    from effect_corpus import all_effects

    return all_effects()


@functools.lru_cache(maxsize=None)
def effect_seeds() -> tuple[Seed, ...]:
    """The peer corpus's effects (up to MAX_SEED_BYTES) with their field maps."""
    if not corpus_available("fxc-wine", "index.jsonl"):
        raise RuntimeError("the effect entry point needs the peer corpus (../shared/peer-corpus) for its seeds")
    out = []
    for name, data in _seed_effects():
        if len(data) > MAX_SEED_BYTES:
            continue
        reader = _Recorder(data)
        try:
            effect = reader.parse()
        except Exception:  # noqa: BLE001 - a seed the parser refuses is no seed
            continue
        shaders = {(s.shader_offset, len(s.shader)) for t in effect.techniques for p in t.passes for s in p.states
                   if s.shader and s.shader_offset >= 0}
        shaders |= {(o.offset, len(o.data)) for o in effect.objects.values()
                    if o.data and len(o.data) >= 8 and struct.unpack_from("<I", o.data)[0] >> 16 in (0xFFFE, 0xFFFF)}
        out.append(Seed(name, data, tuple(sorted(reader.fields.items())), tuple(sorted(shaders))))
    return tuple(out)


EFFECT_MUTATIONS = ("count", "offset", "size", "name", "state", "shader", "dword", "bytes")


def effect_case(rng: random.Random) -> bytes:
    """A mutated corpus effect: 1-3 structure-aware edits, sometimes truncated."""
    seed = rng.choice(effect_seeds())
    data = bytearray(seed.data)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        _mutate(data, seed, rng.choice(EFFECT_MUTATIONS), rng)
    if rng.random() < 0.05:
        del data[rng.randrange(len(data) + 1):]
    return bytes(data)


def _get(data: bytearray, pos: int) -> int:
    return struct.unpack_from("<I", data, pos)[0]


def _put(data: bytearray, pos: int, value: int) -> None:
    struct.pack_into("<I", data, pos, value & 0xFFFFFFFF)


def _edge(rng: random.Random, value: int) -> int:
    return rng.choice(EDGE_VALUES) if rng.random() < 0.5 else value + rng.choice((-1, 1, 2, -4, 4, 16))


def _mutate(data: bytearray, seed: Seed, kind: str, rng: random.Random) -> None:
    fields = {
        "count": lambda w: w.endswith("count"),
        "offset": lambda w: "offset" in w,
        "size": lambda w: w in SIZE_FIELDS,
        "name": lambda w: w in NAME_FIELDS,
        "state": lambda w: w == "state operation",
    }
    if kind in fields:
        where = seed.positions(fields[kind])
        if not where:
            kind = "dword"
    if kind in ("count", "size"):
        pos = rng.choice(where)
        _put(data, pos, _edge(rng, _get(data, pos)))
    elif kind == "offset":  # another field's offset (valid elsewhere), or an edge
        pos = rng.choice(where)
        _put(data, pos, _get(data, rng.choice(where)) if rng.random() < 0.5 else _edge(rng, _get(data, pos)))
    elif kind == "name":  # a hostile name appended to the effect, the field pointed at it
        pos = rng.choice(where)
        if rng.random() < 0.8:
            raw = rng.choice(hostile.HOSTILE_NAMES).encode("utf-8") + b"\0"
        else:
            raw = rng.choice(RAW_NAMES)
        at = len(data)
        data += struct.pack("<I", len(raw)) + raw + b"\0" * (-len(raw) % 4)
        _put(data, pos, at - BASE)
    elif kind == "state":  # swap two states' operation, type or value, or a new operation
        pos = rng.choice(where)
        other = rng.choice(where)
        part = rng.choice((0, 4, 8, 12))
        if rng.random() < 0.2:
            _put(data, pos, rng.randrange(200))
        else:
            a, b = _get(data, pos + part), _get(data, other + part)
            _put(data, pos + part, b)
            _put(data, other + part, a)
    elif kind == "shader" and seed.shaders:  # token mutations that keep the blob's size
        at, size = rng.choice(seed.shaders)
        blob = bytes(data[at:at + size])
        if rng.random() < 0.5:
            try:
                new = hostile.structured_mutation(blob, rng)
            except Exception:  # noqa: BLE001 - the blob was already changed by an earlier edit
                new = blob
        else:
            new = mutate(blob, rng.choice(("flip", "replace", "opcode")), rng.getrandbits(32), rng.getrandbits(32))
        if len(new) == size:
            data[at:at + size] = new
    elif kind == "bytes":
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.getrandbits(8)
    else:  # any DWORD the parser reads, to an edge value
        pos = rng.choice(seed.fields)[0]
        _put(data, pos, _edge(rng, _get(data, pos)))
