"""A source tree for the convert tests, built in tmp_path from the peer corpus.

CI takes a deterministic sample (every k-th blob, about ``SAMPLE`` files);
``XLATE_CORPUS_FULL=1`` takes every blob and effect of the corpus.  Blobs
from jsonl corpora are written as files, fxc files are symlinked (never
copied into the repository).  Besides the blobs the tree holds:

* duplicates (the same bytes again in a nested folder);
* unrelated files (text, HLSL source, random bytes, an empty file);
* fxc ``/Fc`` listings (assembly text) and a broken assembly text;
* a truncated shader (a valid vs_3_0 cut short);
* two unreadable entries.  The tests run as root, so ``chmod 000`` cannot
  make a file unreadable; a dangling symbolic link (ENOENT) and a link to
  itself (ELOOP) are what a walk meets that cannot be read;
* a folder named like a shader file (``folder.bin/``), walked as a folder.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ for corpus.py

import corpus  # noqa: E402

SAMPLE = 300
FULL = os.environ.get("XLATE_CORPUS_FULL") == "1"
REPO = Path(__file__).resolve().parents[2]


@dataclass
class Tree:
    root: Path
    blobs: dict = field(default_factory=dict)  # rel -> bytes (shader blobs and effects, duplicates included)
    asm: dict = field(default_factory=dict)  # rel -> text of assembly files
    unrelated: list = field(default_factory=list)
    truncated: str = ""
    bad_asm: str = ""
    unreadable: list = field(default_factory=list)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._/-]", "_", name).strip("/")


def _blobs() -> list[tuple[str, bytes, Path | None]]:
    """(rel, data, file to link or None) for every corpus blob, sorted."""
    found = []
    for name in ("wine", "vkd3d"):
        if corpus.corpus_available(name):
            for ident, data in corpus.iter_corpus(name):
                found.append((f"{name}/{_safe(ident)}.bin", data, None))
    if corpus.corpus_available("fxc-wine"):
        for rec in corpus.fxc_wine_records():
            found.append((f"fxc-wine/{rec.id}", rec.data, rec.path))
    fxc = corpus.corpus_root() / "fxc"
    for pattern in ("hlsldecompiler/CompiledShaders/*/*.fxc", "fna/*.fxb", "omegaengine/*.fxo"):
        for path in sorted(fxc.glob(pattern)):
            found.append((f"fxc/{path.relative_to(fxc)}", path.read_bytes(), path))
    seen = set()
    unique = []
    for rel, data, path in sorted(found, key=lambda f: f[0]):
        if rel not in seen:
            seen.add(rel)
            unique.append((rel, data, path))
    return unique


def build_tree(root: Path, sample: int | None = None) -> Tree:
    corpus.require_corpus()
    everything = _blobs()
    if not everything:
        import pytest

        pytest.skip("no corpus blobs found")
    sample = None if FULL else (sample or SAMPLE)
    chosen = everything if sample is None else everything[:: max(1, len(everything) // sample)]
    # Always include the effects: there are few, and they have their own path.
    chosen += [b for b in everything if b[0].endswith((".fxb", ".fxo")) and b not in chosen]
    tree = Tree(root)
    for rel, data, path in chosen:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if path is not None:
            target.symlink_to(path)
        else:
            target.write_bytes(data)
        tree.blobs[rel] = data
    for i, (rel, data, _path) in enumerate(chosen[:: max(1, len(chosen) // 5)][:5]):
        dup = f"dups/level{i}/deeper/{Path(rel).name}"
        (root / dup).parent.mkdir(parents=True, exist_ok=True)
        (root / dup).write_bytes(data)
        tree.blobs[dup] = data
    # fxc listings: assembly text, found by content (.asm here, but the name does not matter)
    listings = [r for r in chosen if r[2] is not None and r[2].with_suffix(".asm").exists() and r[0].startswith("fxc-wine/")]
    for rel, _data, path in listings[:: max(1, len(listings) // 8)][:8]:
        text = path.with_suffix(".asm").read_text(encoding="utf-8", errors="replace")
        if not text.lstrip().startswith("//") or "technique" in text:
            continue
        name = f"asm/{Path(rel).stem}.listing.txt"
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
        tree.asm[name] = text
    tree.bad_asm = "asm/broken.vsh"
    (root / tree.bad_asm).parent.mkdir(parents=True, exist_ok=True)
    (root / tree.bad_asm).write_text("// hand-written\nvs_2_0\nmov oPos, v0\nfrobnicate r0, r1\n")
    # unrelated files
    extra = {
        "notes/README.txt": b"not a shader\n",
        "notes/source.hlsl": b"float4 main() : COLOR { return 1; }\n",
        "notes/noise.dat": bytes((i * 37 + 11) % 256 for i in range(4096)),
        "notes/empty": b"",
        "notes/tiny.bin": b"\x01\x02\x03",
        "folder.bin/inside.txt": b"a folder named like a file\n",
    }
    for rel, data in extra.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
        tree.unrelated.append(rel)
    # a truncated vs_3_0
    whole = next(d for r, d, _p in everything if d[:4] == b"\x00\x03\xfe\xff" and len(d) > 200)
    tree.truncated = "broken/truncated.vso"
    (root / tree.truncated).parent.mkdir(parents=True, exist_ok=True)
    (root / tree.truncated).write_bytes(whole[: (len(whole) * 2 // 5) & ~3])
    # unreadable
    (root / "broken/dangling.bin").symlink_to(root / "broken/no-such-file.bin")
    (root / "broken/loop.bin").symlink_to(root / "broken/loop.bin")
    tree.unreadable = ["broken/dangling.bin", "broken/loop.bin"]
    return tree


def read_tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path, with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def cli_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env
