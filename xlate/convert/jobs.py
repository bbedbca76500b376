"""The worker side: one file in, its manifest entry out.

``run_chunk`` converts a list of files (a chunk, so that a process pool
or a Dask cluster pays its per-task cost once per chunk, not per file).
For each file and target it takes the cache's entry or translates, then
either writes the outputs itself (``Job.out_root`` set: a local worker,
which shares the file system) or returns them for the caller to write
(a Dask worker, which may not).  Every failure of one file becomes part of
that file's entry; nothing a file holds can stop the chunk.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field

from ..errors import AsmError, UnsupportedError, XlateError
from .cache import Cache, CachedFile, CacheEntry, cache_key
from .detect import HEAD_BYTES, Kind, asm_version, blob_model, detect
from .manifest import entry_line
from .outputs import code_file, json_bytes
from .writer import atomic_write

CONVERTED, REFUSED, FAILED = "converted", "refused", "failed"


@dataclass(frozen=True)
class Job:
    """What every file of one run is converted with (sent once per chunk)."""

    targets: tuple[str, ...]
    options: dict  # keyword arguments for ``translate`` / ``translate_effect``
    keys: dict  # target -> options key (resolved options + xlate's source fingerprint)
    out_root: str | None  # write outputs here; None: return them to the caller
    cache_dir: str | None
    report: bool = False


@dataclass
class WorkItem:
    rel: str
    path: str
    data: bytes | None = None  # given when the worker cannot read ``path``


@dataclass
class Result:
    """One file's manifest entry (None: not a shader), plus what the caller must still do."""

    rel: str
    entry: dict | None
    pending: dict = field(default_factory=dict)  # target -> (CacheEntry, fresh) left to write
    report: list | None = None  # xlate.report entries, with --report
    line: str | None = None  # the entry's manifest line, when it is final (``manifest.entry_line``)


def run_chunk(items: list[WorkItem], job: Job) -> list[Result]:
    cache = Cache(job.cache_dir) if job.cache_dir else None
    return [convert_file(item, job, cache) for item in items]


def convert_file(item: WorkItem, job: Job, cache: Cache | None) -> Result:
    rel = item.rel
    data = item.data
    if data is None:
        try:
            data = read_file(item.path)
        except OSError as exc:
            return Result(rel, unreadable_entry(rel, exc.strerror or str(exc)))
    kind = detect(data) if data is not None else None
    if kind is None:
        return Result(rel, None)
    digest = hashlib.sha256(data).hexdigest()
    source = _Source(data, kind)
    entry = {"path": rel, "sha256": digest, "kind": kind.value, "model": source.model, "size": len(data), "outputs": {}}
    result = Result(rel, entry)
    for target in job.targets:
        key = cache_key(digest, target, job.keys[target])
        cached = cache.get(key) if cache is not None else None
        fresh = cached is None
        if fresh:
            cached = compute(source, target, job.options)
            if cache is not None and job.out_root is not None:
                cache.put(key, cached)
        if cached.model and not entry["model"]:
            entry["model"] = cached.model
        if job.out_root is None:
            result.pending[target] = (cached, fresh and cache is None)
            entry["outputs"][target] = None
        else:
            entry["outputs"][target] = write_outputs(cached, rel, job.out_root)
    if job.out_root is not None:  # the entry is final: encode its line here, in parallel
        result.line = entry_line(entry)
    if job.report:
        result.report = report_entries(rel, data, kind, job)
    return result


def finish(result: Result, out_root: str, cache: Cache | None, keys: dict) -> None:
    """Write what a worker left pending (the Dask path) and cache it."""
    entry = result.entry
    for target, (cached, fresh) in result.pending.items():
        if fresh and cache is not None:
            cache.put(cache_key(entry["sha256"], target, keys[target]), cached)
        entry["outputs"][target] = write_outputs(cached, result.rel, out_root)
    result.pending = {}


def write_outputs(cached: CacheEntry, rel: str, out_root: str) -> dict:
    files = []
    base = os.path.join(out_root, rel)  # each output's path is the input's with a suffix
    for f in cached.files:
        atomic_write(base + f.suffix, f.data, make_dirs=True)
        files.append({"path": rel + f.suffix, "sha256": f.sha256, "size": len(f.data)})
    error = dict(cached.error, file=rel) if cached.error else None
    return {
        "status": cached.status,
        "files": files,
        "diagnostics": [f"{rel}: {d}" for d in cached.diagnostics],
        "error": error,
    }


def read_file(path: str) -> bytes | None:
    """A file's bytes, or None when its first 64 KiB show it is no shader,
    effect or assembly text (so a big unrelated file is never read whole)."""
    fd = os.open(path, _READ_FLAGS)
    try:
        head = os.read(fd, _HEAD)
        if len(head) < _HEAD:
            return head  # the whole file (a short read of a regular file is its end)
        if detect(head) is None:
            return None
        chunks = [head]
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


_HEAD = HEAD_BYTES  # what detect needs to decide
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)


def unreadable_entry(rel: str, message: str) -> dict:
    return {"path": rel, "kind": "unreadable", "error": {"file": rel, "type": "OSError", "offset": None, "message": message}}


class _Source:
    """The input, assembled at most once when it is text."""

    def __init__(self, data: bytes, kind: Kind):
        self.data = data
        self.kind = kind
        self.model = blob_model(data) if kind is Kind.SHADER else ("fx_2_0" if kind is Kind.EFFECT else asm_version(data))
        self._blob: bytes | None = None
        self._asm_error: AsmError | None = None

    def blob(self) -> bytes:
        if self.kind is not Kind.ASM:
            return self.data
        if self._blob is None:
            if self._asm_error is not None:
                raise self._asm_error
            from ..bytecode.asm import assemble_bytes

            try:
                # "<asm>", not the path: the entry is cached by content, and the
                # manifest adds the file's name to the message itself.
                self._blob = assemble_bytes(self.data.decode("utf-8", errors="replace"), source="<asm>")
            except AsmError as exc:
                self._asm_error = exc
                raise
        return self._blob


def compute(source: _Source, target: str, options: dict) -> CacheEntry:
    """Translate one input for one target; every failure becomes the entry's error."""
    from ..api import translate

    try:
        if source.kind is Kind.EFFECT:
            from .effects import effect_files

            files, diagnostics, errors = effect_files(source.data, target, options)
            if errors:  # some pass shaders have no output: the effect is not converted whole
                listed = "; ".join(f"{name}: {message}" for name, message in sorted(errors.items()))
                error = {"type": "EffectShaderError", "offset": None,
                         "message": f"{len(errors)} of the effect's shaders could not be translated ({listed})"}
                return CacheEntry(tuple(files), tuple(diagnostics), REFUSED, error, source.model)
        else:
            blob = source.blob()
            t = translate(blob, target, **options)
            vertex = blob[2:4] == b"\xfe\xff"
            stem = f".{target}"
            files = [code_file(stem, t.code, vertex, target), CachedFile(f"{stem}.json", json_bytes(t.reflection))]
            diagnostics = list(t.diagnostics)
            if source.kind is Kind.ASM:
                diagnostics.insert(0, f"assembled from {source.model} text")
        return CacheEntry(tuple(files), tuple(diagnostics), CONVERTED, None, source.model)
    except UnsupportedError as exc:
        return CacheEntry((), (), REFUSED, error_dict(exc), source.model)
    except XlateError as exc:
        return CacheEntry((), (), FAILED, error_dict(exc), source.model)
    except Exception as exc:  # a bug in xlate: report it with the file, keep going
        return CacheEntry((), (), FAILED, {"type": "InternalError", "offset": None,
                                           "message": f"{type(exc).__name__}: {exc} (a bug in xlate; please report it)"}, source.model)


def error_dict(exc: XlateError) -> dict:
    error = {"type": type(exc).__name__, "offset": getattr(exc, "offset", None), "message": getattr(exc, "reason", None) or str(exc)}
    if error["offset"] is not None and error["offset"] < 0:
        error["offset"] = None
    if isinstance(exc, AsmError):
        error["line"], error["column"] = exc.line, exc.column
    return error


def report_entries(rel: str, data: bytes, kind: Kind, job: Job) -> list:
    """The --report hook: ``xlate.report.report_entry`` computed in the worker,
    only when a report is asked for; one entry per shader of an effect."""
    from ..report import report_entry as make

    if kind is Kind.EFFECT:
        from .effects import effect_shader_blobs

        try:
            shaders = effect_shader_blobs(data)
        except XlateError:
            return []  # a malformed effect: the manifest has its error
        return [make(f"{rel}#{name}", blob, job.targets, job.options, kind="effect-shader") for name, blob in shaders]
    if kind is Kind.ASM:
        return [make(rel, data, job.targets, job.options, kind="asm")]
    return [make(rel, data, job.targets, job.options)]
