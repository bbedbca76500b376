"""The content-addressed conversion cache.

One entry per (input bytes, target, resolved options, xlate version,
xlate source): the files that conversion writes, its diagnostics, or the
error it raised (a refusal is as deterministic as a success, so it is
cached too).  The key includes a hash of xlate's own source and templates,
so a development change invalidates every entry without a version bump.

Layout: ``DIR/v2/ab/abcdef....entry``.  An entry is a small binary record
(the SHA-256 of the header, a JSON header line naming each file's suffix,
size and SHA-256, then the payloads back to back) rather than a pickle, so
a cache directory shared with others cannot run code.  An entry is written
straight under its name (``O_CREAT | O_EXCL``: one create and one write, no
temporary file and no rename, which cost as much again per file), so a
writer killed mid-write can leave a part of one; a reader checks every
entry whole (the header has its SHA-256, the sizes add up, each payload has
its SHA-256), takes a damaged one as missing and deletes it, so the next
writer puts it again.  Two writers of one key write the same bytes (the key
is the content's); the second finds the file there and leaves it.  The
digests are those the manifest lists, computed once when the entry is made.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from .. import __version__

_DIGEST = 64  # hex digits of a SHA-256
# json.dumps(header, separators=(",", ":")), built once (a header is plain acyclic data)
_HEADER_JSON = json.JSONEncoder(separators=(",", ":"), check_circular=False)
FORMAT = "v2"  # v1 entries (no digests) are left alone in their folder


@dataclass(frozen=True)
class CachedFile:
    suffix: str  # appended to the source file's path to name the output
    data: bytes
    sha256: str = ""  # hex digest of ``data``: computed when not given

    def __post_init__(self):
        if not self.sha256:
            object.__setattr__(self, "sha256", hashlib.sha256(self.data).hexdigest())


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
            "files": [[f.suffix, len(f.data), f.sha256] for f in self.files],
            "diagnostics": list(self.diagnostics),
            "status": self.status,
            "error": self.error,
            "model": self.model,
        }
        head = _HEADER_JSON.encode(header).encode()
        return b"".join((hashlib.sha256(head).hexdigest().encode(), b"\n", head, b"\n", *(f.data for f in self.files)))

    @classmethod
    def decode(cls, blob: bytes) -> "CacheEntry":
        """The entry ``encode`` wrote; ValueError (or KeyError, TypeError, IndexError) for anything else."""
        end = blob.index(b"\n", _DIGEST + 1)
        if blob[_DIGEST:_DIGEST + 1] != b"\n" or hashlib.sha256(blob[_DIGEST + 1:end]).hexdigest().encode() != blob[:_DIGEST]:
            raise ValueError("cache entry header digest mismatch")
        header = json.loads(blob[_DIGEST + 1:end])
        pos = end + 1
        files = []
        for suffix, size, digest in header["files"]:
            f = CachedFile(suffix, blob[pos:pos + size])
            if f.sha256 != digest:
                raise ValueError("cache entry digest mismatch")
            files.append(f)
            pos += size
        if pos != len(blob):
            raise ValueError("cache entry length mismatch")
        return cls(tuple(files), tuple(header["diagnostics"]), header["status"], header["error"], header["model"])


@functools.lru_cache(maxsize=1)
def source_fingerprint() -> str:
    """A hash of xlate's version, source files and GLSL templates.

    Each root's files (``__pycache__`` folders and ``.pyc`` files left out)
    are hashed in the order of their relative paths' parts, each as its
    relative path, a NUL and its bytes.  The walk is ``os.scandir``'s, not
    ``Path.rglob``'s: the same files in the same order (the test suite
    checks it against rglob) for about half the cost, paid once per run."""
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    h = hashlib.sha256(__version__.encode())
    roots = [package, os.path.join(os.path.dirname(package), "templates"), os.path.join(package, "templates")]
    for root in roots:
        if not os.path.isdir(root):
            continue
        found: list[tuple[tuple[str, ...], str]] = []
        _source_files(root, (), found)
        found.sort()
        for parts, path in found:
            h.update("/".join(parts).encode() + b"\0")
            with open(path, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def _source_files(folder: str, parts: tuple[str, ...], found: list) -> None:
    """Every file under ``folder`` but ``__pycache__``'s and ``.pyc`` files, as (relative parts, path)."""
    with os.scandir(folder) as it:
        for e in it:
            if e.name == "__pycache__":
                continue
            if e.is_dir():  # (follows links, as rglob's is_file did for the files below them)
                _source_files(e.path, parts + (e.name,), found)
            elif e.is_file() and not e.name.endswith(".pyc"):
                found.append((parts + (e.name,), e.path))


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/xlate``, or ``~/.cache/xlate``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "xlate"


def cache_key(input_digest: str, target: str, options_key: str) -> str:
    """The entry key: the input's SHA-256, the target and the job's options key
    (which already holds the resolved options and the source fingerprint)."""
    return hashlib.sha256(f"{input_digest}\0{target}\0{options_key}".encode()).hexdigest()


_READ = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


class Cache:
    """A directory of ``CacheEntry`` records (safe for concurrent writers and readers)."""

    def __init__(self, directory: str | os.PathLike):
        self.root = Path(directory) / FORMAT
        self._root = str(self.root)

    def _path(self, key: str) -> str:
        return f"{self._root}/{key[:2]}/{key}.entry"

    def get(self, key: str) -> CacheEntry | None:
        path = self._path(key)
        try:
            fd = os.open(path, _READ)
        except OSError:
            return None
        try:
            chunks = []
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError:
            return None
        finally:
            os.close(fd)
        try:
            return CacheEntry.decode(b"".join(chunks))
        except (ValueError, KeyError, TypeError, IndexError):
            # Damaged (its writer was killed mid-write) or being written
            # right now: either way it goes, and the caller puts it again.
            try:
                os.unlink(path)
            except OSError:
                pass
            return None

    def has(self, key: str) -> bool:
        return os.path.exists(self._path(key))

    def put(self, key: str, entry: CacheEntry) -> None:
        """Write ``entry`` under ``key`` unless it is there (a cache that cannot be written only costs time)."""
        path = self._path(key)
        data = entry.encode()
        try:
            try:
                fd = os.open(path, _CREATE, 0o644)
            except FileNotFoundError:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                fd = os.open(path, _CREATE, 0o644)
        except OSError:  # there already (another writer: the same bytes), or not writable
            return
        complete = False
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            complete = True
        except OSError:  # a full disk: what was written is no entry
            pass
        finally:
            os.close(fd)  # (interrupted: the part left is found damaged and put again)
        if not complete:
            try:
                os.unlink(path)
            except OSError:
                pass
