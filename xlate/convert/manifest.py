"""``OUT/manifest.json``: what a build system reads after a conversion.

Deterministic: entries sorted by path, keys sorted, no times and no
machine-specific values, so an interrupted-and-resumed run, a cached run
and a run on a Dask cluster write the same bytes as a plain one.  One
entry per line (compact JSON) keeps it readable, diffable and fast to
write for a hundred thousand files.

Top level: ``format``, ``xlate`` (version), ``key`` (hash of the targets'
resolved options and xlate's source: a previous manifest with another key
is not trusted for skipping), ``targets``, ``options``, ``counts``,
``entries`` (every shader, effect and assembly file found, and every file
that looked like one but failed) and ``unreadable`` (entries that could
not be read).  Files that are not shaders are only counted.
"""

from __future__ import annotations

import json
import os

from .writer import atomic_write

NAME = "manifest.json"
FORMAT = 1


def dumps(header: dict, entries: list[dict], unreadable: list[dict]) -> bytes:
    def block(items: list[dict]) -> str:
        if not items:
            return "[]"
        return "[\n" + ",\n".join(json.dumps(e, sort_keys=True, separators=(",", ":")) for e in items) + "\n]"

    head = json.dumps(dict(header, format=FORMAT), sort_keys=True, indent=1)
    text = head[:-2] + ',\n "entries": ' + block(entries) + ',\n "unreadable": ' + block(unreadable) + "\n}\n"
    return text.encode()


def write(out_root: str, header: dict, entries: list[dict], unreadable: list[dict]) -> None:
    entries = sorted(entries, key=lambda e: e["path"])
    unreadable = sorted(unreadable, key=lambda e: e["path"])
    atomic_write(os.path.join(out_root, NAME), dumps(header, entries, unreadable))


def load(out_root: str, key: str) -> dict[str, dict]:
    """The previous run's entries by path, when it had the same key (else empty)."""
    try:
        with open(os.path.join(out_root, NAME), "rb") as f:
            doc = json.loads(f.read())
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("key") != key:
        return {}
    entries = doc.get("entries")
    if not isinstance(entries, list):
        return {}
    return {e["path"]: e for e in entries if isinstance(e, dict) and isinstance(e.get("path"), str)}


def output_paths(entries) -> set[str]:
    paths = set()
    for e in entries:
        for out in (e.get("outputs") or {}).values():
            if out:
                paths.update(f["path"] for f in out.get("files", ()))
    return paths


def outputs_intact(entry: dict, out_root: str) -> bool:
    """Whether every file a previous entry lists is still there with its size."""
    for out in (entry.get("outputs") or {}).values():
        if not out:
            return False
        for f in out.get("files", ()):
            try:
                if os.stat(os.path.join(out_root, f["path"])).st_size != f["size"]:
                    return False
            except OSError:
                return False
    return True
