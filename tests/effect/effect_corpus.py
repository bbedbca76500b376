"""The peer corpus's effects for the effect tests: 91 fxc-wine effects (with
fxc's listings), 8 FNA and 10 omegaengine effects, and the 15 effects of
Wine's d3dx9 tests (``wine/effects.jsonl``, kind ``effect``)."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus import corpus_root, dwords_to_bytes, read_bytes, read_jsonl, require_corpus  # noqa: E402


@functools.lru_cache(maxsize=None)
def fxc_wine_effects() -> tuple[tuple[str, bytes, str], ...]:
    """(id, data, fxc listing) of every fx_2_0 row of fxc-wine."""
    root = corpus_root() / "fxc-wine"
    out = []
    for row in read_jsonl(root / "index.jsonl"):
        if row.get("profile") == "fx_2_0":
            asm = (root / row["asm"]).read_text(encoding="utf-8", errors="replace")
            out.append((row["path"], read_bytes(root / row["path"]), asm))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def fxc_game_effects() -> tuple[tuple[str, bytes], ...]:
    root = corpus_root() / "fxc"
    paths = sorted((root / "fna").glob("*.fxb")) + sorted((root / "omegaengine").glob("*.fxo"))
    return tuple((f"{p.parent.name}/{p.name}", read_bytes(p)) for p in paths)


@functools.lru_cache(maxsize=None)
def wine_rows() -> tuple[dict, ...]:
    return read_jsonl(corpus_root() / "wine" / "effects.jsonl")


@functools.lru_cache(maxsize=None)
def wine_effects() -> dict[str, bytes]:
    return {r["id"]: dwords_to_bytes(r["bytecode"]) for r in wine_rows() if r["kind"] == "effect"}


def all_effects() -> list[tuple[str, bytes]]:
    """Every effect of the peer corpus (skips when it is absent)."""
    require_corpus("fxc-wine", "index.jsonl")
    require_corpus("fxc", "fna")
    require_corpus("wine", "effects.jsonl")
    return ([(i, d) for i, d, _ in fxc_wine_effects()] + list(fxc_game_effects())
            + [(f"wine/{k}", v) for k, v in wine_effects().items()])
