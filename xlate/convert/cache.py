"""The content-addressed conversion cache.

One entry per (input bytes, target, resolved options, xlate version,
xlate source): the files that conversion writes, its diagnostics, or the
error it raised (a refusal is as deterministic as a success, so it is
cached too).  The key includes a hash of xlate's own source and templates,
so a development change invalidates every entry without a version bump.

Layout: ``DIR/v1/ab/abcdef....entry``.  An entry is a small binary record
(a JSON header line, then the payloads back to back) rather than a pickle,
so a cache directory shared with others cannot run code.  Entries are
written atomically (temporary file beside it + ``os.replace``); a reader
that finds a damaged entry treats it as missing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from .writer import atomic_write, remove_stale_temps

FORMAT = "v1"


@dataclass(frozen=True)
class CachedFile:
    suffix: str  # appended to the source file's path to name the output
    data: bytes


@dataclass(frozen=True)
class CacheEntry:
    """What converting one input for one target produced."""

    files: tuple[CachedFile, ...]
    diagnostics: tuple[str, ...]
    status: str  # "converted" | "refused" | "failed"
    error: dict | None  # {"type", "offset", "message"} when not converted
    model: str | None

    def encode(self) -> bytes:
        header = {
            "files": [[f.suffix, len(f.data)] for f in self.files],
            "diagnostics": list(self.diagnostics),
            "status": self.status,
            "error": self.error,
            "model": self.model,
        }
        return json.dumps(header, separators=(",", ":")).encode() + b"\n" + b"".join(f.data for f in self.files)

    @classmethod
    def decode(cls, blob: bytes) -> "CacheEntry":
        end = blob.index(b"\n")
        header = json.loads(blob[:end])
        pos = end + 1
        files = []
        for suffix, size in header["files"]:
            files.append(CachedFile(suffix, blob[pos:pos + size]))
            pos += size
        if pos != len(blob):
            raise ValueError("cache entry length mismatch")
        return cls(tuple(files), tuple(header["diagnostics"]), header["status"], header["error"], header["model"])


@functools.lru_cache(maxsize=1)
def source_fingerprint() -> str:
    """A hash of xlate's version, source files and GLSL templates."""
    package = Path(__file__).resolve().parents[1]
    h = hashlib.sha256(__version__.encode())
    roots = [package, package.parent / "templates", package / "templates"]
    for root in roots:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                h.update(str(path.relative_to(root)).encode() + b"\0")
                h.update(path.read_bytes())
    return h.hexdigest()


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/xlate``, or ``~/.cache/xlate``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "xlate"


def cache_key(input_digest: str, target: str, options_key: str) -> str:
    """The entry key: the input's SHA-256, the target and the job's options key
    (which already holds the resolved options and the source fingerprint)."""
    return hashlib.sha256(f"{input_digest}\0{target}\0{options_key}".encode()).hexdigest()


class Cache:
    """A directory of ``CacheEntry`` records (safe for concurrent writers)."""

    def __init__(self, directory: str | os.PathLike):
        self.root = Path(directory) / FORMAT

    def _path(self, key: str) -> str:
        return os.path.join(self.root, key[:2], key + ".entry")

    def get(self, key: str) -> CacheEntry | None:
        try:
            with open(self._path(key), "rb") as f:
                blob = f.read()
        except OSError:
            return None
        try:
            return CacheEntry.decode(blob)
        except (ValueError, KeyError, TypeError):
            return None  # damaged: rebuilt and rewritten

    def has(self, key: str) -> bool:
        return os.path.exists(self._path(key))

    def put(self, key: str, entry: CacheEntry) -> None:
        try:
            atomic_write(self._path(key), entry.encode(), make_dirs=True)
        except OSError:
            pass  # a cache that cannot be written only costs time

    def clean(self) -> int:
        """Remove temporary files left by a killed run; returns how many were
        kept because their writer still runs."""
        return remove_stale_temps(self.root)[1] if self.root.is_dir() else 0
