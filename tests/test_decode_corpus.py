"""Acceptance: every shader of the peer corpus decodes and re-encodes to the
same bytes; the deliberately invalid ones are rejected with the right error.

One test per corpus walks all of its blobs and reports every failure at once
(plus a one-line summary printed at the end of the run), rather than one
test id per blob: the corpus holds over 4,000 blobs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from corpus import (
    fxc_wine_records,
    iter_hlsldecompiler,
    iter_vkd3d,
    require_corpus,
    wine_composed_records,
    wine_shader_records,
)
from xlate.bytecode import decode, encode
from xlate.errors import (
    BytecodeError,
    CtabError,
    NotAShaderError,
    OpcodeVersionError,
    RegisterError,
)

# Shaders the decoder must reject: id substring -> (exact error class, why).
# Each entry must match at least one blob, and each matched blob must fail
# with exactly that class; a blob that fails and is not listed is a bug.
EXPECTED_REJECTS: dict[str, tuple[type[BytecodeError], str]] = {
    # Wine's d3d9 device tests (test_shader_versions and d3d9ex.c) check that
    # Windows refuses these with D3DERR_INVALIDCALL.
    "device.c:ps_1_8": (RegisterError, "c8 in ps_1_1, which has c0-c7"),
    "device.c:ps_3_224": (RegisterError, "c224 in ps_3_0, which has c0-c223"),
    "device.c:vs_3_i16": (RegisterError, "i16 in vs_3_0, which has i0-i15"),
    "device.c:vs_3_b16": (RegisterError, "b16 in vs_3_0, which has b0-b15"),
    "device.c:ps_2_0_boolint": (OpcodeVersionError, "defb in ps_2_0; b#/i# start at ps_2_x"),
}

# Shaders Windows refuses that the decoder accepts on purpose (a documented
# superset, see tables.py): they must decode and round-trip.
ACCEPTED_BEYOND_WINDOWS: dict[str, str] = {
    # Wine's ps_2_32 test: Windows refuses c32 in ps_2_0.  xlate accepts
    # c0-c223 in every SM2+ pixel shader, as DXVK does, because vkd3d's
    # HLSL compiler writes c32+ in ps_2_0 (float-comparison__1,
    # non-const-indexing__3/7/9) and its d3d9 runner executes them.
    "device.c:ps_2_32": "c32 in ps_2_0 (accepted like DXVK: c0-c223)",
}

# Shaders whose CTAB comment is malformed: they decode (the runtime never
# reads the CTAB) with a diagnostic and no constant table, and
# ``decode(strict_ctab=True)`` rejects them with CtabError.  A diagnostic on
# any other blob is a failure: it means the CTAB parser misreads fxc output.
BAD_CTAB = {
    # d3dx9's test: D3DXGetShaderConstantTable must fail with D3DXERR_INVALIDDATA
    # (the CTAB claims a 28-byte header in a 16-byte comment).
    "shader_with_invalid_ctab": "CTAB comment too short for its header",
}


def expected_reject(blob_id: str) -> tuple[type[BytecodeError], str] | None:
    for key, entry in EXPECTED_REJECTS.items():
        if key in blob_id:
            return entry
    return None


@dataclass
class Walk:
    """The outcome of decoding one corpus."""

    name: str
    total: int = 0
    decoded: int = 0
    rejected_as_expected: int = 0
    effects: int = 0
    bad_ctab: int = 0  # decoded, CTAB dropped with a diagnostic (BAD_CTAB)
    accepted_beyond_windows: int = 0  # decoded, though Windows refuses them
    skipped: int = 0
    failures: list[str] = field(default_factory=list)

    def check(self, blob_id: str, data: bytes, effect: bool = False) -> None:
        self.total += 1
        expected = expected_reject(blob_id)
        beyond_windows = any(key in blob_id for key in ACCEPTED_BEYOND_WINDOWS)
        try:
            shader = decode(data)
        except BytecodeError as err:
            if effect and type(err) is NotAShaderError:
                self.effects += 1
            elif expected and type(err) is expected[0]:
                self.rejected_as_expected += 1
            elif expected:
                self.failures.append(
                    f"{blob_id}: expected {expected[0].__name__} ({expected[1]}), "
                    f"got {type(err).__name__}: {err}"
                )
            elif beyond_windows:
                self.failures.append(f"{blob_id}: must decode (see ACCEPTED_BEYOND_WINDOWS), got {type(err).__name__}: {err}")
            else:
                self.failures.append(f"{blob_id}: {type(err).__name__}: {err}")
            return
        if effect:
            self.failures.append(f"{blob_id}: an fx_2_0 effect decoded as a shader")
        elif expected:
            self.failures.append(
                f"{blob_id}: decoded, but must be rejected with {expected[0].__name__} ({expected[1]})"
            )
        else:
            again = encode(shader)
            if again != data:
                self.failures.append(
                    f"{blob_id}: decode -> encode changed the blob ({len(data)} -> {len(again)} bytes)"
                )
                return
            if not self._ctab_as_expected(blob_id, data, shader):
                return
            self.decoded += 1
            self.accepted_beyond_windows += beyond_windows

    def _ctab_as_expected(self, blob_id: str, data: bytes, shader) -> bool:
        bad_ctab = next((why for key, why in BAD_CTAB.items() if key in blob_id), None)
        if bad_ctab is None:
            if shader.diagnostics:
                self.failures.append(f"{blob_id}: unexpected diagnostics {list(shader.diagnostics)}")
                return False
            return True
        self.bad_ctab += 1
        if not shader.diagnostics or shader.ctab is not None:
            self.failures.append(f"{blob_id}: the malformed CTAB ({bad_ctab}) went unnoticed")
            return False
        try:
            decode(data, strict_ctab=True)
        except CtabError:
            return True
        except BytecodeError as err:
            self.failures.append(f"{blob_id}: strict_ctab gave {type(err).__name__}, not CtabError: {err}")
            return False
        self.failures.append(f"{blob_id}: strict_ctab accepted the malformed CTAB ({bad_ctab})")
        return False

    def summary(self) -> str:
        valid = self.total - self.rejected_as_expected - self.effects
        parts = [f"{self.name}: {self.decoded}/{valid} decoded and round-tripped"]
        if self.rejected_as_expected:
            parts.append(f"{self.rejected_as_expected} rejected as expected")
        if self.accepted_beyond_windows:
            parts.append(f"{self.accepted_beyond_windows} accepted though Windows refuses them")
        if self.bad_ctab:
            parts.append(f"{self.bad_ctab} with a malformed CTAB dropped")
        if self.effects:
            parts.append(f"{self.effects} effects (NotAShaderError)")
        if self.skipped:
            parts.append(f"{self.skipped} partial arrays skipped")
        parts.append(f"{self.total + self.skipped} blobs")
        return ", ".join(parts)

    def finish(self, record_property) -> None:
        record_property("corpus_summary", self.summary())
        print(self.summary())
        if self.failures:
            shown = "\n  ".join(self.failures[:25])
            more = f"\n  ... and {len(self.failures) - 25} more" if len(self.failures) > 25 else ""
            pytest.fail(f"{len(self.failures)} failure(s) in {self.name}:\n  {shown}{more}", pytrace=False)


def test_wine_shaders(record_property):
    require_corpus("wine")
    walk = Walk("wine/shaders.jsonl")
    for rec in wine_shader_records():
        if not rec.complete:  # a header or bare CTAB blob, not a shader
            walk.skipped += 1
            continue
        walk.check(rec.id, rec.data)
    walk.finish(record_property)


def test_wine_composed_shaders(record_property):
    require_corpus("wine")
    walk = Walk("wine/composed_shaders.jsonl")
    for rec in wine_composed_records():
        walk.check(rec.id, rec.data)
    walk.finish(record_property)


def test_vkd3d(record_property):
    require_corpus("vkd3d")
    walk = Walk("vkd3d")
    for blob_id, data in iter_vkd3d():
        walk.check(blob_id, data)
    walk.finish(record_property)


def test_hlsldecompiler(record_property):
    require_corpus("fxc", "hlsldecompiler")
    walk = Walk("fxc/hlsldecompiler")
    for blob_id, data in iter_hlsldecompiler():
        walk.check(blob_id, data)
    assert walk.total >= 59, "the hlsldecompiler set holds 59 shaders"
    walk.finish(record_property)


def test_fxc_wine(record_property):
    require_corpus("fxc-wine", "index.jsonl")
    walk = Walk("fxc-wine")
    for rec in fxc_wine_records():
        # Effects are containers: decode must say so, not misread them.
        walk.check(rec.id, rec.data, effect=rec.shader_version == "fx_2_0" or rec.is_effect)
    walk.finish(record_property)


def test_expected_rejects_name_existing_blobs():
    """Every EXPECTED_REJECTS, ACCEPTED_BEYOND_WINDOWS and BAD_CTAB entry still
    names a blob (the walks above check what happens to each one)."""
    require_corpus()
    ids = [rec.id for rec in wine_shader_records()] + [blob_id for blob_id, _ in iter_vkd3d()]
    keys = (*EXPECTED_REJECTS, *ACCEPTED_BEYOND_WINDOWS, *BAD_CTAB)
    stale = sorted(key for key in keys if not any(key in blob_id for blob_id in ids))
    assert not stale, f"EXPECTED_REJECTS entries that match no corpus blob: {stale}"
