"""N worker processes, each under the per-input time limit (SIGALRM) and an
address-space limit (RLIMIT_AS), fed chunks of input indices.

The parent hands out chunks ``[start, end)`` in order and merges what comes
back.  A worker that dies (a crash in C code, the memory limit) or stops
making progress (stuck where the alarm cannot reach) is killed and
replaced; the input it was on is recorded as a CRASH or HANG and the rest of
its chunk handed out again.  Inputs depend only on (seed, entry, index), so
the outcome of a run does not depend on the number of workers.

Workers are forked from the parent (warmed up once, pages shared) unless the
parent runs a graphics driver's threads (a test process that drew with
llvmpipe, lavapipe or wgpu): a fork of that can crash at random, so there the
workers start from a fresh forkserver process (``fuzzing.preload`` warms it
up) or, where there is none, are spawned.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import resource
import signal
import sys
import time
import traceback
from collections import Counter, deque
from dataclasses import dataclass, field
from multiprocessing.connection import wait

from .entries import Hang, classify, install_alarm, minimise, run_entry
from .inputs import GLSL_TARGETS, TREE_FILES, glslang_pick, make_input


@dataclass(frozen=True)
class Limits:
    seconds: float = 10.0  # per input
    memory: int = 1 << 30  # bytes of address space per worker
    glslang_share: float = 0.05  # of the GLSL produced, checked by glslang
    grace: float = 5.0  # a worker that shows no progress for 2 * seconds + grace is stuck


@dataclass
class Failure:
    kind: str  # CRASH ..., HANG, MEMORY, DISAGREE ..., GLSLANG
    index: int  # the input (for convert: the tree's first file)
    small: object  # minimised input
    original: object
    report: str


@dataclass
class Outcome:
    """What a run of inputs gave: outcome counts and the failures."""

    counts: Counter = field(default_factory=Counter)
    failures: list[Failure] = field(default_factory=list)

    def merge(self, counts: Counter, failures: list[Failure]) -> None:
        self.counts.update(counts)
        self.failures.extend(failures)


def unit_of(entry: str) -> int:
    """Inputs per call of the entry point (a convert tree is TREE_FILES files)."""
    return TREE_FILES if entry == "convert" else 1


def unit_input(entry: str, seed: int, index: int):
    if entry == "convert":
        return [make_input(entry, seed, index + k) for k in range(TREE_FILES)]
    return make_input(entry, seed, index)


def run_range(entry: str, seed: int, start: int, end: int, limits: Limits, progress=None) -> tuple[Counter, list[Failure]]:
    """Inputs ``start..end-1`` in this process (SIGALRM: ``install_alarm``)."""
    counts: Counter = Counter()
    failures: list[Failure] = []
    glsl: list = []
    sampled: list = []
    unit = unit_of(entry)
    checks_glsl = entry in GLSL_TARGETS or entry in ("effect", "spirv", "vulkan")
    # Vulkan GLSL compiles only with glslang -V, one process per shader
    # (plus spirv-val): a fifth of the share keeps that cost below the translation's.
    share = limits.glslang_share / 5 if entry == "vulkan" else limits.glslang_share
    for index in range(start, end, unit):
        if progress is not None:
            progress.value = index
        data = unit_input(entry, seed, index)
        out = glsl if checks_glsl and glslang_pick(seed, entry, index, share) else None
        before = len(glsl)
        signal.setitimer(signal.ITIMER_REAL, limits.seconds)
        try:
            result = run_entry(entry, data, out)
            signal.setitimer(signal.ITIMER_REAL, 0)
            if isinstance(result, list):
                counts.update(result)
            else:
                counts[result] += 1
            sampled += [(index, data)] * (len(glsl) - before)
        except (Exception, Hang) as exc:  # noqa: BLE001 - every escape is what we hunt
            signal.setitimer(signal.ITIMER_REAL, 0)
            kind = classify(exc)
            counts[kind.split()[0]] += unit
            report = traceback.format_exc()
            small = data if kind.startswith(("HANG", "MEMORY")) else minimise(entry, data, kind, limits.seconds)
            failures.append(Failure(kind, index, small, data, report))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    if glsl and entry == "spirv":  # one spirv-val run over the chunk's share
        from xlate.backends.spirv import validate_many

        counts["spirv-val checked"] += len(glsl)
        for (index, data), message in zip(sampled, validate_many([code for code, _ in glsl])):
            if message:
                counts["SPIRVVAL"] += 1
                failures.append(Failure("SPIRVVAL", index, data, data, message))
    elif glsl and entry == "vulkan":  # glslang -V and spirv-val, per shader
        from xlate.backends.spirv import SpirvError, compile_glsl

        counts["glslang -V checked"] += len(glsl)
        for (index, data), (code, stage) in zip(sampled, glsl):
            try:
                compile_glsl(code, stage)
            except SpirvError as err:
                counts["GLSLANG"] += 1
                failures.append(Failure("GLSLANG", index, data, data, f"{err}\n\n{code}"))
    elif glsl:  # one glslang run over the chunk's share
        from xlate.backends.check import validate_glsl

        counts["glslang checked"] += len(glsl)
        for (index, data), (code, _), message in zip(sampled, glsl, validate_glsl(glsl)):
            if message:
                counts["GLSLANG"] += 1
                failures.append(Failure("GLSLANG", index, data, data, message + "\n\n" + code))
    return counts, failures


def _worker(conn, progress, entry: str, seed: int, limits: Limits, forked: bool = True) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    if not forked:  # a fresh process: warm up here (cheap when the forkserver preloaded it)
        warm_up(entry)
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory, limits.memory))
    install_alarm()
    gc.enable()
    conn.send("ready")
    while True:
        task = conn.recv()
        if task is None:
            return
        start, end = task
        counts, failures = run_range(entry, seed, start, end, limits, progress)
        conn.send((start, end, counts, failures))


@dataclass
class _Slot:
    proc: multiprocessing.Process
    conn: object
    progress: object
    task: tuple[int, int] | None = None
    last: int = -1
    since: float = 0.0


def warm_up(entry: str) -> None:
    """Import and warm in the parent what every worker needs, so that forked
    workers start at once and share the pages (then freeze them from the
    collector, which would otherwise copy them)."""
    import xlate.api  # noqa: F401
    from xlate.bytecode import disasm  # noqa: F401
    from xlate.bytecode.asm import assemble_bytes

    from .inputs import shader_seeds

    shader_seeds()
    if entry in ("effect", "convert"):
        from .effects import effect_seeds

        effect_seeds()
        import xlate.convert  # noqa: F401
        import xlate.effect.translate  # noqa: F401
    tiny = assemble_bytes("ps_2_0\nmov oC0, c0\n")
    for target in GLSL_TARGETS + ("vulkan",):
        try:
            xlate.api.translate(tiny, target)
        except Exception:  # noqa: BLE001 - only a warm-up
            pass
    gc.collect()
    gc.freeze()


def _thread_names() -> list[str]:
    """The OS names of this process's threads (Linux; empty elsewhere)."""
    names = []
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return names
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            pass  # the thread ended meanwhile
    return names


def fork_hazard() -> str | None:
    """Why a fork of this process would be unsafe, or None.

    A graphics driver's threads make it unsafe: the verification runners note
    each driver they start (``xlate.verify.drivers``), and any thread named
    otherwise than the process (llvmpipe's ``llvmpipe-N``, Mesa's shader-cache
    thread ``python:disk$0``, ...) counts too.  BLAS's worker threads keep
    the process's name and hold no lock while idle: they do not count."""
    drivers = sys.modules.get("xlate.verify.drivers")  # not imported: no runner started a driver
    started = sorted(drivers.started()) if drivers is not None else []
    if started:
        return f"this process started {', '.join(started)}"
    try:
        with open("/proc/self/comm") as f:
            own = f.read().strip()
    except OSError:
        return None
    others = sorted({name for name in _thread_names() if name != own})
    if others:
        return f"this process runs threads named {', '.join(others)}"
    return None


def start_method() -> str:
    """How the pool starts its workers from this process: "fork" where that
    is safe (the campaign: warm pages shared, instant start), else
    "forkserver" (or "spawn" where there is none)."""
    if fork_hazard() is None:
        return "fork"
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


START_LIMIT = 300.0  # seconds a fresh worker may take to import and warm up


def run_pool(entry: str, seed: int, start: int, *, stop: int | None = None, deadline: float | None = None,
             jobs: int = 1, limits: Limits = Limits(), chunk: int = 200, on_chunk=None,
             method: str | None = None) -> tuple[int, Outcome]:
    """Run inputs from ``start`` until ``stop`` (exclusive) or until the
    ``deadline`` (time.monotonic) in ``jobs`` workers.  Returns the end of
    the contiguous range done (every chunk handed out is finished) and the
    outcome.  ``on_chunk(start, end, counts, failures)`` sees each chunk.
    ``method``: how workers start (default ``start_method()``)."""
    unit = unit_of(entry)
    chunk = max(unit, chunk - chunk % unit)
    method = method or start_method()
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        context.set_forkserver_preload(["fuzzing.preload"])  # applies when this process's server starts
    outcome = Outcome()
    pending: deque[tuple[int, int]] = deque()
    next_start = start

    def spawn() -> _Slot:
        parent, child = context.Pipe()
        progress = context.RawValue("q", -1)
        proc = context.Process(target=_worker, args=(child, progress, entry, seed, limits, method == "fork"),
                               daemon=True)
        proc.start()
        child.close()
        # Ready once warm: a fresh process's imports must not count against its first input's time.
        try:
            ready = parent.poll(START_LIMIT) and parent.recv() == "ready"
        except (EOFError, OSError):
            ready = False
        if not ready:
            proc.kill()
            proc.join()
            raise RuntimeError(f"a fuzz worker ({method}) did not start (exit code {proc.exitcode})")
        return _Slot(proc, parent, progress)

    def record(counts: Counter, failures: list[Failure], task) -> None:
        outcome.merge(counts, failures)
        if on_chunk is not None:
            on_chunk(task[0], task[1], counts, failures)

    slots = [spawn() for _ in range(max(1, jobs))]
    stall = 2 * limits.seconds + limits.grace
    try:
        while True:
            for slot in slots:
                if slot.task is not None:
                    continue
                if pending:
                    task = pending.popleft()
                elif (stop is None or next_start < stop) and (deadline is None or time.monotonic() < deadline):
                    end = next_start + chunk if stop is None else min(next_start + chunk, stop)
                    task, next_start = (next_start, end), end
                else:
                    continue
                slot.task, slot.last, slot.since = task, -1, time.monotonic()
                slot.conn.send(task)
            busy = [s for s in slots if s.task is not None]
            if not busy:
                break
            ready = wait([s.conn for s in busy], timeout=0.5)
            for slot in busy:
                if slot.conn in ready:
                    try:
                        _, _, counts, failures = slot.conn.recv()
                    except (EOFError, OSError):
                        pass  # it died: handled below
                    else:
                        record(counts, failures, slot.task)
                        slot.task = None
                        continue
                value = slot.progress.value
                if value != slot.last:
                    slot.last, slot.since = value, time.monotonic()
                alive = slot.proc.is_alive()
                if alive and time.monotonic() - slot.since <= stall:
                    continue
                # Dead, or stuck where the alarm cannot reach: record the input, replace the worker.
                if alive:
                    slot.proc.kill()
                slot.proc.join()
                index = max(slot.last, slot.task[0])
                code = slot.proc.exitcode
                kind = "HANG" if alive else ("MEMORY" if code == -signal.SIGKILL else f"CRASH worker exit {code}")
                data = unit_input(entry, seed, index)
                fail = Failure(kind, index, data, data, f"the worker process ended ({code}) on input {index}")
                record(Counter({kind.split()[0]: unit}), [fail], (index, index + unit))
                # The inputs before it ran, but their counts died with the worker: run them again
                # (they are the same inputs), and the rest of the chunk after it.
                if index > slot.task[0]:
                    pending.append((slot.task[0], index))
                if index + unit < slot.task[1]:
                    pending.append((index + unit, slot.task[1]))
                slot.conn.close()
                slots[slots.index(slot)] = spawn()
    finally:
        for slot in slots:
            try:
                slot.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for slot in slots:
            slot.proc.join(timeout=5)
            if slot.proc.is_alive():
                slot.proc.kill()
                slot.proc.join()
    return next_start, outcome
