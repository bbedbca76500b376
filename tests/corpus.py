"""Access to the peer corpus (``shared/peer-corpus``) for tests and scripts.

The corpus is read-only reference data that lives *beside* the project, never
inside it: ``<checkout>/../shared/peer-corpus``, or wherever the environment
variable ``XLATE_PEER_CORPUS`` points.  Tests call ``require_corpus()`` first,
which skips them with a clear reason when the corpus is absent.

Every iterator yields ``(id, data)`` pairs, ``data`` being the raw blob as
``bytes``; the ``*_records()`` functions return the same shaders with their
metadata (Wine's ``token_walk``, fxc-wine's ``asm`` listing path, ...).  All
file reads are cached, so any number of tests can walk the corpus for the
price of one read.

Import it as ``from corpus import ...`` (pytest puts ``tests/`` on
``sys.path``; scripts insert it themselves).

The last sections hold what the hypothesis tests (``test_decode_fuzz.py``)
and the long campaign (``scripts/fuzz``) share: the decoder's contract
(``check_decode_invariants``), mutations of corpus shaders, and token
generators.  Mutations and generators are driven by plain integers, so
hypothesis can draw (and shrink) them and a ``random.Random`` can too.
"""

from __future__ import annotations

import functools
import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from xlate.bytecode import decode, encode
from xlate.bytecode.tables import (
    KNOWN_VERSIONS,
    OPCODES,
    REGISTER_FILES,
    Layout,
    RegisterType,
    register_type_bits,
)
from xlate.errors import BytecodeError, CtabError

ENV_VAR = "XLATE_PEER_CORPUS"
DEFAULT_ROOT = Path(__file__).resolve().parents[1].parent / "shared" / "peer-corpus"

FX_2_0_MAGIC = 0xFEFF0901  # first DWORD of an fx_2_0 effect (not a shader)

Blob = tuple[str, bytes]  # (id, data)


def corpus_root() -> Path:
    """Where the peer corpus is expected (it may not exist)."""
    override = os.environ.get(ENV_VAR)
    return Path(override).expanduser().resolve() if override else DEFAULT_ROOT


def corpus_available(*parts: str) -> bool:
    return (corpus_root().joinpath(*parts)).exists()


def require_corpus(*parts: str) -> Path:
    """Return ``corpus_root()/parts``, or skip the calling test when it is missing.

    ``parts`` names a sub-folder or file the test needs (``"wine"``,
    ``"fxc-wine", "index.jsonl"``); without it the corpus root itself is checked.
    """
    path = corpus_root().joinpath(*parts)
    if not path.exists():
        import pytest  # here, so that scripts can use this module without pytest

        pytest.skip(
            f"peer corpus not found at {path}: check out shared/peer-corpus beside the "
            f"project or set {ENV_VAR} to its location"
        )
    return path


# --------------------------------------------------------------------------
# Cached file access
# --------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def read_bytes(path: Path) -> bytes:
    return Path(path).read_bytes()


@functools.lru_cache(maxsize=None)
def read_jsonl(path: Path) -> tuple[dict, ...]:
    with open(path, encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f if line.strip())


def dwords_to_bytes(dwords: list[int]) -> bytes:
    """A list of DWORDs (as Wine's C arrays write them) -> little-endian bytes."""
    return struct.pack(f"<{len(dwords)}I", *(d & 0xFFFFFFFF for d in dwords))


def first_dword(data: bytes) -> int | None:
    return struct.unpack_from("<I", data)[0] if len(data) >= 4 else None


# --------------------------------------------------------------------------
# wine/ - token arrays from Wine's conformance tests
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class WineShader:
    id: str
    data: bytes
    version: str  # "vs_2_0", ... as the array's version token says
    kind: str  # "vs" | "ps"
    # "ok" when the array walks cleanly to END; anything else marks a
    # deliberately partial array (a header, a bare CTAB blob).  None for the
    # composed shaders, which Wine's tests assemble whole.
    token_walk: str | None
    asm_comment: str | None
    file: str

    @property
    def complete(self) -> bool:
        return self.token_walk in (None, "ok")


def _wine_records(name: str) -> tuple[WineShader, ...]:
    rows = read_jsonl(require_corpus("wine", name))
    return tuple(
        WineShader(
            id=row["id"],
            data=dwords_to_bytes(row["bytecode"]),
            version=row["version"],
            kind=row["kind"],
            token_walk=row.get("token_walk"),
            asm_comment=row.get("asm_comment"),
            file=row["file"],
        )
        for row in rows
    )


@functools.lru_cache(maxsize=None)
def wine_shader_records() -> tuple[WineShader, ...]:
    """``wine/shaders.jsonl``: 281 arrays, a few deliberately partial."""
    return _wine_records("shaders.jsonl")


@functools.lru_cache(maxsize=None)
def wine_composed_records() -> tuple[WineShader, ...]:
    """``wine/composed_shaders.jsonl``: header + body + footer arrays joined."""
    return _wine_records("composed_shaders.jsonl")


def iter_wine_shaders(complete_only: bool = False) -> Iterator[Blob]:
    for rec in wine_shader_records():
        if rec.complete or not complete_only:
            yield rec.id, rec.data


def iter_wine_composed() -> Iterator[Blob]:
    for rec in wine_composed_records():
        yield rec.id, rec.data


# --------------------------------------------------------------------------
# vkd3d/ - d3dbc blobs from vkd3d's HLSL compiler
# --------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _vkd3d_paths() -> tuple[Path, ...]:
    return tuple(sorted(require_corpus("vkd3d").glob("*.d3dbc")))


def iter_vkd3d() -> Iterator[Blob]:
    """``vkd3d/*.d3dbc`` (top level only: ``derived_*`` folders are not peer output)."""
    for path in _vkd3d_paths():
        yield path.name, read_bytes(path)


# --------------------------------------------------------------------------
# fxc/hlsldecompiler - fxc output with golden assembly listings
# --------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _hlsldecompiler_paths() -> tuple[Path, ...]:
    base = require_corpus("fxc", "hlsldecompiler", "CompiledShaders")
    return tuple(sorted(base.rglob("*.fxc")))


def iter_hlsldecompiler() -> Iterator[Blob]:
    """``fxc/hlsldecompiler/CompiledShaders/<profile>/<name>.fxc``; id ``<profile>/<name>.fxc``."""
    base = corpus_root() / "fxc" / "hlsldecompiler" / "CompiledShaders"
    for path in _hlsldecompiler_paths():
        yield path.relative_to(base).as_posix(), read_bytes(path)


# --------------------------------------------------------------------------
# fxc-wine/ - about 3,200 fxc blobs with fxc's own /Fc listings
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class FxcWineBlob:
    id: str  # path relative to fxc-wine/, e.g. "dxdecompiler/X.main.ps_3_0.bin"
    path: Path
    asm_path: Path  # fxc's /Fc listing beside the blob
    kind: str  # how the blob was produced: pragma, widen, fx_embedded, effect, ...
    shader_version: str  # "ps_3_0", "vs_2_x", "fx_2_0", ...
    profile: str
    meta: dict  # the whole index.jsonl line

    @property
    def data(self) -> bytes:
        return read_bytes(self.path)

    @property
    def is_effect(self) -> bool:
        """fx_2_0 effects start with 0xFEFF0901; they hold shaders but are none."""
        return first_dword(self.data) == FX_2_0_MAGIC

    @property
    def asm(self) -> str:
        return self.asm_path.read_text(encoding="utf-8", errors="replace")


@functools.lru_cache(maxsize=None)
def fxc_wine_records(root: Path | None = None) -> tuple[FxcWineBlob, ...]:
    """The blobs listed in ``fxc-wine/index.jsonl``, in index order.

    ``root`` overrides the folder (``scripts/bench --corpus``); it must hold
    an ``index.jsonl`` laid out like fxc-wine's.
    """
    base = Path(root) if root is not None else require_corpus("fxc-wine")
    rows = read_jsonl(base / "index.jsonl")
    return tuple(
        FxcWineBlob(
            id=row["path"],
            path=base / row["path"],
            asm_path=base / row["asm"],
            kind=row.get("kind", ""),
            shader_version=row.get("shader_version", ""),
            profile=row.get("profile", ""),
            meta=row,
        )
        for row in rows
    )


def iter_fxc_wine(include_effects: bool = True) -> Iterator[Blob]:
    for rec in fxc_wine_records():
        if include_effects or not rec.is_effect:
            yield rec.id, rec.data


# --------------------------------------------------------------------------
# Everything at once
# --------------------------------------------------------------------------

CORPORA = ("wine", "wine-composed", "vkd3d", "hlsldecompiler", "fxc-wine")


def iter_corpus(name: str) -> Iterator[Blob]:
    """One corpus by name (see ``CORPORA``), every blob in it."""
    return {
        "wine": iter_wine_shaders,
        "wine-composed": iter_wine_composed,
        "vkd3d": iter_vkd3d,
        "hlsldecompiler": iter_hlsldecompiler,
        "fxc-wine": iter_fxc_wine,
    }[name]()


@functools.lru_cache(maxsize=None)
def valid_shaders() -> tuple[Blob, ...]:
    """Every corpus blob the decoder accepts, ids prefixed by corpus name.

    The seeds for mutation fuzzing: starting from real shaders gets the
    mutations deep into the instruction stream, where random bytes never go.
    """
    out = []
    for name in CORPORA:
        if name == "wine":
            blobs = iter_wine_shaders(complete_only=True)
        else:
            blobs = iter_corpus(name)
        for blob_id, data in blobs:
            try:
                decode(data)
            except BytecodeError:
                continue
            out.append((f"{name}:{blob_id}", data))
    return tuple(out)


# --------------------------------------------------------------------------
# Mutations (shared by test_decode_fuzz.py and scripts/fuzz)
# --------------------------------------------------------------------------
#
# A mutation is (kind, position, value): three plain values so that
# hypothesis can draw and shrink them and random.Random can produce them.
# ``position`` is reduced modulo the stream length, so any int is valid.

MUTATIONS = ("flip", "truncate", "insert", "delete", "duplicate", "replace", "opcode")

# Opcodes a mutation may plant, with plausible SM2 length fields: real ones
# reach the operand readers, the odd ones (0x31, 0x4B, 0xFFFD) the error paths.
PLANT_OPCODES = tuple(range(0x00, 0x31)) + tuple(range(0x40, 0x61)) + (0xFFFD, 0xFFFE, 0xFFFF)


# Tokens worth planting besides random ones: END, comment headers of several
# sizes, common parameter tokens (r0 dst, v0 src, c0[a0] src), an SM2 mov.
INTERESTING_TOKENS = (
    0x0000FFFF, 0x0000FFFE, 0x0001FFFE, 0x7FFFFFFE, 0x80000000,
    0x800F0000, 0x90E40000, 0xA0E42000, 0x02000001,
)


def _pack(*tokens: int) -> bytes:
    return struct.pack(f"<{len(tokens)}I", *tokens)


# Seeds for mutation when the peer corpus is absent, so fuzzing still runs.
FALLBACK_SEEDS: tuple[Blob, ...] = (
    # vs_2_0: dcl_position v0; mov oPos, v0
    ("vs_2_0", _pack(0xFFFE0200, 0x0200001F, 0x80000000, 0x900F0000, 0x02000001, 0xC00F0000, 0x90E40000, 0xFFFF)),
    # ps_1_1: mov r0, v0
    ("ps_1_1", _pack(0xFFFF0101, 0x00000001, 0x800F0000, 0x90E40000, 0xFFFF)),
    # ps_2_0: def c0, 1, 1, 1, 1; add oC0, c0, v0
    ("ps_2_0", _pack(0xFFFF0200, 0x05000051, 0xA00F0000, *[0x3F800000] * 4,
                     0x03000002, 0x800F0800, 0xA0E40000, 0x90E40000, 0xFFFF)),
)


def mutation_seeds() -> tuple[Blob, ...]:
    """The shaders to mutate: the valid corpus shaders, or FALLBACK_SEEDS without a corpus."""
    return valid_shaders() if corpus_available() else FALLBACK_SEEDS


def tokens_of(data: bytes) -> list[int]:
    n = len(data) // 4
    return list(struct.unpack_from(f"<{n}I", data))


def mutate(data: bytes, kind: str, position: int, value: int) -> bytes:
    """Apply one mutation to a blob.  The result may be any length, even 0."""
    value &= 0xFFFFFFFF
    if kind == "truncate":  # byte-granular, so mid-token cuts happen too
        return data[: position % (len(data) + 1)]
    tail = data[len(data) - len(data) % 4:]  # keep a ragged tail as it is
    tokens = tokens_of(data)
    n = len(tokens)
    if kind == "insert":
        tokens.insert(position % (n + 1), value)
    elif n == 0:
        return data
    elif kind == "flip":
        tokens[position % n] ^= 1 << (value % 32)
    elif kind == "delete":
        del tokens[position % n]
    elif kind == "duplicate":  # repeat a run of 1-4 tokens in place
        start = position % n
        run = tokens[start:start + 1 + value % 4]
        tokens[start:start] = run
    elif kind == "replace":
        tokens[position % n] = value
    elif kind == "opcode":  # plant an instruction token: opcode, length, low control bits
        opcode = PLANT_OPCODES[value % len(PLANT_OPCODES)]
        length = (value >> 8) & 0xF
        control = (value >> 12) & 0x3 if (value >> 14) & 1 else 0
        tokens[position % n] = opcode | (control << 16) | (length << 24)
    else:
        raise ValueError(f"unknown mutation {kind!r}")
    return struct.pack(f"<{len(tokens)}I", *tokens) + tail


def mutate_all(data: bytes, mutations) -> bytes:
    for kind, position, value in mutations:
        data = mutate(data, kind, position, value)
    return data


def check_decode_invariants(data: bytes):
    """The decoder's contract on arbitrary input, as the fuzzers check it.

    * ``decode`` returns a ``Shader`` or raises a ``BytecodeError`` subclass
      whose offset lies inside the blob and whose reason is one line;
    * a decoded shader encodes back to the very same bytes;
    * a shader decoded with diagnostics (a malformed CTAB, dropped) has no
      constant table, and ``decode(strict_ctab=True)`` rejects it with a
      ``CtabError`` (whose offset and reason obey the same rules).

    Returns the decoded ``Shader`` or the ``BytecodeError`` raised.  Anything
    else escaping ``decode`` propagates (that is the crash a fuzzer reports);
    a broken invariant raises ``AssertionError``.
    """
    try:
        shader = decode(data)
    except BytecodeError as err:
        _check_error(err, data)
        return err
    again = encode(shader)
    assert again == data, (
        f"decode -> encode changed the blob ({len(data)} -> {len(again)} bytes, "
        f"first difference at byte {_first_difference(data, again)})"
    )
    diagnostics = getattr(shader, "diagnostics", ())
    for line in diagnostics:
        assert isinstance(line, str) and line and "\n" not in line, f"diagnostic is not one line: {line!r}"
    if diagnostics:
        # Without diagnostics the CTAB (if any) parsed, and strict_ctab would
        # parse it the same way: only this case needs the second decode.
        assert shader.ctab is None, "a shader with CTAB diagnostics kept a constant table"
        try:
            decode(data, strict_ctab=True)
        except CtabError as err:
            _check_error(err, data)
        else:
            raise AssertionError(f"strict_ctab accepted a shader decoded with diagnostics {diagnostics}")
    return shader


def _check_error(err, data: bytes) -> None:
    assert isinstance(err.offset, int) and 0 <= err.offset <= len(data), (
        f"{type(err).__name__} offset {err.offset} lies outside the {len(data)}-byte blob"
    )
    assert isinstance(err.reason, str) and err.reason and "\n" not in err.reason, (
        f"{type(err).__name__} reason is not a one-line sentence: {err.reason!r}"
    )


def _first_difference(a: bytes, b: bytes) -> int:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


# --------------------------------------------------------------------------
# Token generators (shared by test_decode_fuzz.py and scripts/fuzz)
# --------------------------------------------------------------------------
#
# Each generator turns one integer into tokens, so hypothesis pays for one
# draw (and can still replay and shrink it) and a random.Random drives them
# with getrandbits(64).

END_TOKEN = 0x0000FFFF
VERSION_TOKENS = tuple(sorted(v.token for v in KNOWN_VERSIONS))
OPCODE_VALUES = tuple(sorted(int(op) for op in OPCODES))
# Flag bits an instruction token may carry: none (mostly), predicated,
# co-issue, reserved bit 29, and control values (comparison / texld modes).
INSTRUCTION_FLAGS = (0, 0, 0, 0, 0x10000000, 0x40000000, 0x20000000, 0x00010000, 0x00020000, 0x00030000, 0x00050000)
# Parameter-token fields that most often make a token invalid: big register
# numbers, register types past 15, reserved bits 14-15, relative addressing,
# source modifier / result shift, result-modifier bit 23.
TROUBLE_FIELDS = (0x07F0, 0x1000, 0xC000, 0x2000, 0x0F000000, 0x00800000)


def mix64(x: int) -> int:
    """64 well-spread bits from any integer (a splitmix64 step).

    hypothesis draws small integers far more often than large ones, so the
    high bits of a drawn value are almost always 0; a value used as a bag
    of random bits goes through this first.
    """
    x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return x ^ (x >> 31)


def random_param(seed: int, clean: bool = False) -> int:
    """A parameter token (bit 31 set).  Each of TROUBLE_FIELDS survives one
    time in eight, so most tokens get past the cheap checks and the checks
    behind them get exercised too; ``clean`` clears them all."""
    bits = mix64(seed)
    token = 0x80000000 | (bits & 0x7FFFFFFF)
    knobs = bits >> 32
    for shift, field_mask in enumerate(TROUBLE_FIELDS):
        if clean or (knobs >> (3 * shift)) & 7:  # 7 times in 8: clear the field
            token &= ~field_mask
    return token


def random_token(seed: int) -> int:
    """One token of a random stream, of a kind the decoder tells apart:
    instruction, parameter (twice as likely), comment header, END, or any word."""
    bits = mix64(seed)
    kind = bits % 6
    if kind == 0:
        bits >>= 3
        return (
            OPCODE_VALUES[bits % len(OPCODE_VALUES)]
            | (((bits >> 8) & 0xF) << 24)
            | INSTRUCTION_FLAGS[(bits >> 12) % len(INSTRUCTION_FLAGS)]
        )
    if kind in (1, 2):
        return random_param(seed)
    if kind == 3:
        return 0xFFFE | (((bits >> 3) % 9) << 16)  # a comment of 0-8 DWORDs
    if kind == 4:
        return END_TOKEN
    return (bits >> 3) & 0xFFFFFFFF


@dataclass(frozen=True)
class _OpShape:
    """What an opcode's parameters look like in one version."""

    opcode: int
    has_dst: bool
    nsrc: int
    layout: Layout


def _shapes(version) -> tuple[_OpShape, ...]:
    out = []
    for op, info in sorted(OPCODES.items()):
        if info.allowed_in(version):
            form = info.forms_for(version)[0]
            out.append(_OpShape(int(op), form.has_dst, form.nsrc, info.layout))
    return tuple(out)


_SHAPES = {v.token: _shapes(v) for v in KNOWN_VERSIONS}
# (register type, number of registers, writable) per version
_FILES = {v.token: [(int(f.type), f.count, f.writable) for f in REGISTER_FILES[v].values()] for v in KNOWN_VERSIONS}
_LITERALS = {Layout.DEF: 4, Layout.DEFI: 4, Layout.DEFB: 1}
_P0 = [(int(RegisterType.PREDICATE), 1, True)]


def _operand(seed: int, files, writable: bool, clean: bool) -> int:
    """A parameter token that mostly names a register of this version, in
    range (and writable for a destination); its other fields come from
    ``random_param``."""
    token = random_param(seed, clean)
    knobs = mix64(seed + 1)
    if clean or knobs & 7:
        choices = [f for f in files if f[2]] if writable else files
        rtype, count, _ = choices[(knobs >> 3) % len(choices)]
        index = (knobs >> 8) % min(count, 16)
        token = (token & ~0x70001FFF) | register_type_bits(rtype) | index
    return token


def _usage_token(seed: int) -> int:
    """A DCL usage token, mostly with only the defined fields set."""
    bits = mix64(seed)
    if bits & 7 == 0:
        return 0x80000000 | (bits >> 32)
    usage, index, sampler = (bits >> 3) % 14, (bits >> 8) & 0xF, (bits >> 12) % 5
    return 0x80000000 | usage | (index << 16) | (sampler << 27)


def random_instruction(version_token: int, seed: int) -> list[int]:
    """One instruction (opcode token and parameters) for a known version.

    Three times in four it is clean: an opcode valid for the version, the
    operand count its form needs, registers that exist and are in range, a
    correct length field; about two thirds of such streams decode, so the
    encoder gets exercised as much as the error paths.  Otherwise the
    opcode, a flag, the operand fields, the count or the SM2 length field
    may be off, to exercise the checks.
    """
    shapes, files = _SHAPES[version_token], _FILES[version_token]
    x = mix64(seed)
    seeds = iter(mix64(seed + k) for k in range(1, 9))
    clean = bool(x & 0xC0)
    shape = shapes[(x >> 3) % len(shapes)]
    opcode = shape.opcode if clean or x & 7 else OPCODE_VALUES[(x >> 3) % len(OPCODE_VALUES)]
    flags = INSTRUCTION_FLAGS[(x >> 16) % len(INSTRUCTION_FLAGS)] if not clean and not x & 0x700000 else 0
    params = []
    if shape.layout is Layout.DCL:
        params.append(_usage_token(next(seeds)))
    if shape.has_dst:
        params.append(_operand(next(seeds), files, shape.layout is Layout.OPERANDS, clean))
    if flags & 0x10000000:  # predicated: p0 follows the destination
        params.append(_operand(next(seeds), _P0, False, clean))
    if shape.layout in _LITERALS:
        params += [next(seeds) & 0xFFFFFFFF for _ in range(_LITERALS[shape.layout])]
    params += [_operand(next(seeds), files, False, clean) for _ in range(shape.nsrc)]
    if not clean and not x & 0x3800000:  # one token too few or too many
        params = params[:-1] if x & 0x4000000 else params + [_operand(next(seeds), files, False, clean)]
    if clean or x >> 29:  # the right length field: the count in SM2+, 0 (reserved) in SM1
        length = len(params) if version_token & 0xFF00 >= 0x0200 else 0
    else:
        length = (x >> 24) & 0xF
    return [opcode | (length << 24) | flags, *params]
