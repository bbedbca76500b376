"""One conversion run: walk, plan, convert (in-process, a process pool or
a Dask cluster), write the manifest.

A run first locks OUT (``lock``: a second run into the same OUT stops
at once).  The parent plans: it walks SRC, and when OUT holds a manifest of a run
with the same options it reads and hashes each file, keeping the entry of
every file whose bytes and outputs are unchanged (the warm path: no
worker, no write).  The rest goes to workers in chunks.  A marker file
(``OUT/.xlate-convert-running``) lives while a run writes; a run that finds
one knows the last run was interrupted and first removes the temporary
files it may have left.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import signal
import time
from dataclasses import asdict, dataclass, field
from operator import itemgetter

from .. import __version__
from . import manifest as mf
from .cache import Cache, cache_key, default_cache_dir, source_fingerprint
from .detect import detect
from .jobs import CONVERTED, Job, WorkItem, convert_file, read_file, run_chunk, unreadable_entry
from .lock import lock_output
from .progress import Progress
from .summary import Counts, count
from .walk import SourceFile, walk
from .writer import atomic_write, remove_stale_temps

RUNNING_MARKER = ".xlate-convert-running"
_path_of = itemgetter("path")  # an entry's sort key
MAX_CHUNK = 64
MIN_CHUNK = 4


@dataclass
class RunResult:
    """What ``convert`` returns: the manifest's entries and the counts."""

    out: str
    entries: list[dict]
    unreadable: list[dict]
    counts: Counts
    seconds: float
    kept: int  # entries taken unchanged from the previous manifest
    report_entries: list = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0: every file found was converted for every target; 1: something was refused, failed or unreadable."""
        return 1 if self.counts.problems else 0


def job_keys(targets, options: dict) -> dict:
    """Per target, the hash of its resolved options and xlate's source fingerprint."""
    from ..backends import get_target, resolve_options
    from ..options import Options

    base = Options.from_kwargs(**options)
    fingerprint = source_fingerprint()
    keys = {}
    for t in targets:
        resolved = asdict(resolve_options(get_target(t), base))
        text = json.dumps(resolved, sort_keys=True, default=str)
        keys[t] = hashlib.sha256(f"{__version__}\0{fingerprint}\0{t}\0{text}".encode()).hexdigest()
    return keys


def convert(sources, out, targets=("glsl330",), *, options: dict | None = None, jobs: int | None = None,
            cache_dir=None, use_cache: bool = True, scheduler: str | None = None, report: bool = False,
            progress: str = "auto") -> RunResult:
    """Convert every shader, effect and assembly file under ``sources`` into ``out``.

    ``targets``: target names (``xlate.backends.TARGETS``); ``options``: the
    keyword options of ``xlate.translate``; ``jobs``: worker processes
    (default: one per CPU; 1 runs in this process); ``cache_dir``: the cache
    (default ``$XDG_CACHE_HOME/xlate``), ``use_cache=False`` to bypass it;
    ``scheduler``: a Dask scheduler address (or a ``distributed.Client``) to
    convert on a cluster; ``report``: collect per-file report entries
    (``xlate.report``); ``progress``: "auto", "bar", "lines" or "off".
    Raises ``ValueError``/``TypeError`` for bad arguments, ``SourceError`` for
    a missing SRC, ``OutputInUse`` when another run is writing into ``out``
    (nothing is touched then), ``KeyboardInterrupt`` when interrupted (outputs written
    so far are complete; a rerun finishes the job).
    """
    # The run builds many small acyclic dicts (entries, the previous
    # manifest): the cyclic collector would rescan them again and again.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _convert(sources, out, targets, options, jobs, cache_dir, use_cache, scheduler, report, progress)
    finally:
        if collecting:
            gc.enable()


def _convert(sources, out, targets, options, jobs, cache_dir, use_cache, scheduler, report, progress) -> RunResult:
    started = time.perf_counter()
    options = dict(options or {})
    targets = tuple(dict.fromkeys(targets))
    if not targets:
        raise ValueError("no target given")
    keys = job_keys(targets, options)
    run_key = hashlib.sha256("\0".join(f"{t}={keys[t]}" for t in targets).encode()).hexdigest()
    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    with lock_output(out):  # before anything in OUT is looked at: a second run stops here
        cache = None
        if use_cache:
            cache_dir = os.path.abspath(cache_dir or default_cache_dir())
            cache = Cache(cache_dir)
        marker = os.path.join(out, RUNNING_MARKER)
        # Temporary files of a writer still running (as a killed run's workers
        # may be for a moment) are looked at again once this run is done.
        busy = 0
        if os.path.exists(marker):  # the last run was interrupted (the cache needs no clean-up: see cache.py)
            _, busy = remove_stale_temps(out)
        atomic_write(marker, str(os.getpid()).encode())

        files, problems = walk(list(sources), skip=[out] + ([cache_dir] if cache is not None else []))
        # The previous run's entries: trusted for skipping when it had the same
        # key (and no report is asked for: a report needs every file's entry
        # computed afresh; the cache still spares the translations), and in any
        # case told which of its outputs to delete if this run does not write them.
        key_before, written_before = mf.load(out)
        previous = written_before if key_before == run_key and not report else {}
        entries: list[dict] = []
        unreadable = [unreadable_entry(p.rel, p.message) for p in problems]
        work: list[WorkItem] = []
        kept_lines: dict[str, str] = {}
        lines: dict[str, str] = {}  # every entry's manifest line known already: kept, or encoded by its worker
        not_shaders = 0
        bar = Progress(len(files) + len(problems), progress)
        bar.advance(len(problems), 0, len(problems))
        # The warm path: with a trusted previous manifest, read and hash here.
        if previous or scheduler is not None:
            for src in files:
                try:
                    data = read_file(src.path)
                except OSError as exc:
                    unreadable.append(unreadable_entry(src.rel, exc.strerror or str(exc)))
                    continue
                if data is None:  # no shader: its head said so
                    not_shaders += 1
                    continue
                old = previous.get(src.rel)
                if old is not None and old[0].get("sha256") == hashlib.sha256(data).hexdigest() and mf.outputs_intact(old[0], out):
                    entries.append(old[0])
                    kept_lines[src.rel] = old[1]
                    continue
                if detect(data) is None:
                    not_shaders += 1
                    continue
                work.append(WorkItem(src.rel, src.path, data if scheduler is not None else None))
            kept_bad = sum(any(o["status"] != CONVERTED for o in e["outputs"].values()) for e in entries)
            bar.advance(len(files) - len(work), len(entries), kept_bad)
        else:
            work = [WorkItem(s.rel, s.path) for s in files]

        job = Job(targets, options, keys, out, cache.root.parent.as_posix() if cache is not None else None, report)
        report_entries = []
        closing: list = []  # a process pool whose workers are done, to join once the manifest is written
        try:
            try:
                for result in _execute(work, job, jobs, scheduler, cache, closing):
                    if result.entry is None:
                        not_shaders += 1
                        bar.advance(1, 0, 0)
                        continue
                    if result.entry.get("kind") == "unreadable":
                        unreadable.append(result.entry)
                        bar.advance(1, 0, 1)
                        continue
                    entries.append(result.entry)
                    if result.line is not None:
                        lines[result.rel] = result.line
                    if result.report:
                        report_entries.extend(result.report)
                    bad = any(o["status"] != CONVERTED for o in result.entry["outputs"].values())
                    bar.advance(1, 1, int(bad))
            finally:
                bar.close()

            # Outputs the previous run wrote that this one no longer produces.
            # (Kept entries have the outputs they had: only the others can leave any.)
            gone = [e for path, (e, _line) in written_before.items() if path not in kept_lines]
            if gone:
                fresh = (e for e in entries if e["path"] not in kept_lines)
                for stale in mf.output_paths(gone) - mf.output_paths(fresh):
                    try:
                        os.unlink(os.path.join(out, stale))
                    except OSError:
                        pass
            counts = count(targets, entries, unreadable, not_shaders)
            header = {"xlate": __version__, "key": run_key, "targets": list(targets), "options": _plain(options),
                      "counts": counts.to_json()}
            lines.update(kept_lines)
            entries.sort(key=_path_of)  # (in place, once: mf.write's own sort then finds them in order)
            mf.write(out, header, entries, unreadable, lines)
            if busy:
                remove_stale_temps(out)
            os.unlink(marker)
            return RunResult(out, entries, unreadable, counts, time.perf_counter() - started, len(kept_lines), report_entries)
        finally:
            _join(closing)


def _plain(options: dict) -> dict:
    return json.loads(json.dumps(options, sort_keys=True, default=str))


def _chunks(items: list, workers: int) -> list[list]:
    """Chunks that shrink as the work left does (guided scheduling): big ones
    pay a task's cost (pickling, a round trip) once for many files, small ones
    at the end keep every worker busy until the last file."""
    chunks = []
    start, n, share = 0, len(items), max(1, workers * 4)
    while start < n:
        size = max(MIN_CHUNK, min(MAX_CHUNK, (n - start) // share))
        chunks.append(items[start:start + size])
        start += size
    return chunks


def _execute(work: list[WorkItem], job: Job, jobs: int | None, scheduler, cache, closing: list):
    """Yield each file's Result as it completes.  A process pool whose every
    result came back is put in ``closing`` for the caller to ``_join``: its
    workers have written everything, and their exit need not hold up the
    manifest.  Stopped early (an error, Ctrl-C), it is shut down here."""
    if not work:
        return
    if scheduler is not None:
        from .cluster import run_on_cluster

        yield from run_on_cluster(work, job, scheduler, cache)
        return
    jobs = jobs or _cpus()
    if jobs <= 1 or len(work) < 2 * MAX_CHUNK // 4:
        c = Cache(job.cache_dir) if job.cache_dir else None
        for item in work:
            gc.enable()  # translating makes cyclic garbage; ``convert`` turned the collector off
            try:
                result = convert_file(item, job, c)
            finally:
                gc.disable()
            yield result
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    if method == "fork":
        _prepare_for_fork(job.targets)
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(method),
                               initializer=_worker_init)
    finished = False
    try:
        pending = {pool.submit(run_chunk, chunk, job) for chunk in _chunks(work, jobs)}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                yield from fut.result()
        finished = True
    finally:
        if finished:
            closing.append(pool)
        else:
            # On Ctrl-C: drop the chunks not started, let the running ones
            # finish their (atomic) writes, then stop.
            _join([pool])


def _join(pools: list) -> None:
    """Wait for the pools' workers to exit (every chunk submitted has run or been cancelled)."""
    while pools:
        pools.pop().shutdown(wait=True, cancel_futures=True)
        gc.unfreeze()  # back to normal for a caller that goes on


# The warm-up's shaders, as bytes so that warming up does not import the
# assembler (tests/test_convert_speed.py checks them against it):
# "vs_2_0 / dcl_position v0 / mov oPos, v0" and "ps_2_0 / mov oC0, c0".
WARM_UP_SHADERS = (
    bytes.fromhex("0002feff1f0000020000008000000f900100000200000fc00000e490ffff0000"),
    bytes.fromhex("0002ffff0100000200080f800000e4a0ffff0000"),
)
_warmed: set[str] = set()  # the targets ``_prepare_for_fork`` has warmed up in this process


def _prepare_for_fork(targets) -> None:
    """Import the translator and translate a tiny shader per target here, once
    per process, so that forked workers inherit the imports, compiled
    templates and caches (about a second of CPU each otherwise); then freeze
    what exists so that the workers' collector never walks, and copies, the
    inherited objects."""
    from ..api import translate
    from ..bytecode.decoder import prepare_all_versions

    prepare_all_versions()  # (built lazily otherwise: in every worker, for each version it meets)
    todo = [t for t in dict.fromkeys("vulkan" if t == "spirv" else t for t in targets)  # spirv: no glslang run here
            if t not in _warmed]
    for target in todo:
        _warmed.add(target)
        for blob in WARM_UP_SHADERS:
            try:
                translate(blob, target)
            except Exception:  # noqa: BLE001 - only a warm-up; the real run reports everything
                pass
    gc.freeze()


def _cpus() -> int:
    """The CPUs this process may run on (a container's share, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:
        return os.cpu_count() or 1


def _worker_init() -> None:
    # Ctrl-C reaches the whole process group: the parent decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.enable()  # forked from ``convert``, which turned it off for its own bookkeeping
