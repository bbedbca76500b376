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

# json.dumps(entry, sort_keys=True, separators=(",", ":")), built once; entries are acyclic.
_COMPACT = json.JSONEncoder(sort_keys=True, separators=(",", ":"), check_circular=False)
NAME = "manifest.json"
FORMAT = 1


def entry_line(entry: dict) -> str:
    """One entry's line of the manifest (workers encode their entries' lines
    while they convert, so that the parent does not, serially, at the end)."""
    return _COMPACT.encode(entry)


def dumps(header: dict, entries: list[dict], unreadable: list[dict], lines: dict | None = None) -> bytes:
    """The manifest's text; ``lines`` maps entry paths to their text already encoded."""
    lines = lines or {}

    def block(items: list[dict]) -> str:
        if not items:
            return "[]"
        return "[\n" + ",\n".join(lines.get(e["path"]) or entry_line(e) for e in items) + "\n]"

    head = json.dumps(dict(header, format=FORMAT), sort_keys=True, indent=1)
    text = head[:-2] + ',\n "entries": ' + block(entries) + ',\n "unreadable": ' + block(unreadable) + "\n}\n"
    return text.encode()


def write(out_root: str, header: dict, entries: list[dict], unreadable: list[dict], lines: dict | None = None) -> None:
    entries = sorted(entries, key=lambda e: e["path"])
    unreadable = sorted(unreadable, key=lambda e: e["path"])
    atomic_write(os.path.join(out_root, NAME), dumps(header, entries, unreadable, lines))


def load(out_root: str) -> tuple[str | None, dict[str, tuple[dict, str]]]:
    """The previous run's key and entries by path, each with its line of text
    (``(None, {})`` when there is no readable manifest).  Read line by line,
    as ``dumps`` writes it, so that a kept entry is written back as it was,
    not encoded again."""
    nothing = (None, {})
    try:
        with open(os.path.join(out_root, NAME), encoding="utf-8") as f:
            text = f.read()
    except (OSError, ValueError):
        return nothing
    start = text.find('\n "entries": [')
    if start < 0:
        return nothing
    try:
        head = json.loads(text[:start].rstrip(",") + "\n}")
    except ValueError:
        return nothing
    if not isinstance(head, dict) or head.get("format") != FORMAT or not isinstance(head.get("key"), str):
        return nothing
    end = text.find('\n],\n "unreadable": ', start)
    if end < 0:
        return nothing
    found = {}
    try:
        for line in text[start + len('\n "entries": [\n'):end].split("\n"):
            line = line.rstrip(",")
            if not line:
                continue
            entry = json.loads(line)
            found[entry["path"]] = (entry, line)
    except (ValueError, KeyError, TypeError):
        return nothing
    return head["key"], found


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
