"""One input through one entry point, with the checks issue 16 asks for.

``run_entry`` returns the outcome ("ok", or the class name of the
documented error that refused the input; for ``convert`` one outcome per
file of the tree).  Anything else escaping is what the campaign hunts: a
``Disagree`` (an invariant between entry points broke), any other exception
(a crash), ``Hang`` (the per-input alarm) or ``MemoryError``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import time
import traceback
import zlib
from contextlib import contextmanager
from pathlib import Path

import hostile
from corpus import check_decode_invariants

from xlate.errors import XlateError

from .inputs import GLSL_TARGETS, SELFTEST, TEXT_ENTRIES


class Hang(BaseException):
    """The per-input time limit ran out (a BaseException: no ``except
    Exception`` inside xlate may swallow it)."""


class Disagree(AssertionError):
    """An invariant between entry points broke."""


class InternalError(Exception):
    """``xlate convert`` caught an exception from xlate and filed it as an
    internal error: a crash all the same."""


def _one_line(err: BaseException, size: int | None = None) -> None:
    try:
        hostile.one_line_error(err, size)
    except AssertionError as exc:
        raise Disagree(str(exc)) from None


def _printable(text: str, what: str, extra: str = "\n") -> None:
    for c in extra:
        text = text.replace(c, "")
    if not text.isprintable():
        bad = next(c for c in text if not c.isprintable())
        raise Disagree(f"{what} holds the unprintable character {bad!r}")


def run_entry(entry: str, data, glsl: list | None = None):
    """One input through ``entry``.  ``glsl``: GLSL produced is appended
    there as (code, stage) for a batched glslang check (SPIR-V modules, for
    the ``spirv`` entry, for spirv-val)."""
    if entry == SELFTEST:
        return run_selftest(data)
    if entry == "effect":
        return run_effect(data, glsl)
    if entry == "convert":
        return run_convert(data)
    if entry == "decode":
        result = check_decode_invariants(data)
        return "ok" if not isinstance(result, XlateError) else type(result).__name__
    if entry == "asm":
        from xlate.bytecode.asm import assemble_bytes
        try:
            data = assemble_bytes(data)
        except XlateError as err:
            _one_line(err)
            return type(err).__name__
        entry = "disasm"  # what assembles must also decode cleanly and survive the listing
    from xlate.bytecode import decode
    try:
        shader = decode(data)
    except XlateError as err:
        _one_line(err, len(data))
        return type(err).__name__
    if entry == "disasm":
        try:
            text = hostile.listing_tokens_match(shader, data)
        except (XlateError, AssertionError) as err:
            raise Disagree(f"the listing does not reassemble: {err}") from None
        _printable(text, "the listing")
        return "ok"
    if entry == "info":
        from xlate.bytecode.stats import shader_info
        text = hostile.info_text(shader)
        json.dumps(shader_info(shader).to_json())
        _printable(text, "xlate info's text")
        return "ok"
    from xlate.api import translate
    try:
        result = translate(data, entry)
    except XlateError as err:
        _one_line(err, len(data))
        return type(err).__name__
    if glsl is not None and (entry in GLSL_TARGETS or entry in ("spirv", "vulkan")):
        glsl.append((result.code, "fragment" if shader.version.is_pixel else "vertex"))
    return "ok"


# --------------------------------------------------------------------------
# Effects
# --------------------------------------------------------------------------

EFFECT_TARGETS = GLSL_TARGETS + ("vulkan",)
_MEMO: dict = {}
MEMO_SIZE = 4096


@contextmanager
def memoised_translate():
    """``xlate.api.translate`` remembered per (blob, target) in this worker.

    Most shaders inside a mutated effect are the seed's own, unchanged: the
    translate entry points fuzz shaders, the effect entry point the
    container, so an unchanged blob's translation (or refusal) is taken from
    the last time; every changed blob is translated afresh."""
    import xlate.api as api

    real = api.translate

    def translate(blob, target="glsl330", **options):
        if options:
            return real(blob, target, **options)
        key = (bytes(blob), target)
        hit = _MEMO.get(key)
        if hit is None:
            try:
                hit = (True, real(blob, target))
            except XlateError as err:
                hit = (False, err.with_traceback(None))
            if len(_MEMO) >= MEMO_SIZE:
                _MEMO.clear()
            _MEMO[key] = hit
        if not hit[0]:
            # (without its old traceback: raising one exception again and
            # again would chain every raise's frames, and the effects they hold)
            raise hit[1].with_traceback(None)
        return hit[1]

    api.translate = translate
    try:
        yield
    finally:
        api.translate = real


def run_effect(data: bytes, glsl: list | None = None) -> str:
    """parse -> listing, summary -> translate_effect (one target, picked by
    the bytes) -> every pass evaluated with default parameters."""
    from xlate.effect import evaluate_pass, format_effect, parse_effect
    from xlate.effect.info import effect_summary
    from xlate.effect.translate import translate_effect

    try:
        effect = parse_effect(data)
    except XlateError as err:
        _one_line(err, len(data))
        return type(err).__name__
    _printable(format_effect(effect), "the effect listing", "\n\t")
    json.dumps(effect_summary(effect))
    target = EFFECT_TARGETS[zlib.crc32(data) % len(EFFECT_TARGETS)]
    with memoised_translate():
        try:
            result = translate_effect(data, target)
        except XlateError as err:
            _one_line(err, len(data))
            return type(err).__name__
    for line in result.diagnostics:
        if "\n" in line or not line:
            raise Disagree(f"an effect diagnostic is not one line: {line[:80]!r}")
    json.dumps(result.reflection)
    for shader in result.shaders:
        code = shader.translation.code
        if isinstance(code, str):
            if not code.isascii():
                raise Disagree("generated code holds a non-ASCII character (a name not sanitised?)")
            _printable(code, "generated code")
            if glsl is not None and target in GLSL_TARGETS:
                glsl.append((code, shader.stage))
    outcome = "ok"
    for tech in effect.techniques:
        for pss in tech.passes:
            try:
                evaluate_pass(effect, tech, pss)
            except XlateError as err:
                _one_line(err)
                outcome = "ok, a pass refused"
            except ValueError as err:  # the runtime's documented refusal (an array selector naming nothing, ...)
                _one_line(err)
                outcome = "ok, a pass refused"
    return outcome


# --------------------------------------------------------------------------
# convert
# --------------------------------------------------------------------------


def run_selftest(index: int) -> str:
    """The pool's own check, the same in a forked or a fresh worker (a test
    cannot patch a fresh process): input 7 kills its worker, 13 overruns the
    alarm, 21 blocks the alarm and sleeps (only the parent's stall check can
    end it), 30 raises; any other input is "ok"."""
    if index == 7:
        os._exit(3)
    if index == 13:
        time.sleep(30)
    if index == 21:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        time.sleep(60)
    if index == 30:
        {}["missing"]
    return "ok"


def run_convert(files: list[tuple[str, bytes]]) -> list[str]:
    """A tree of files through ``xlate.convert`` in this process (no cache,
    no progress bar, one target picked by the names): nothing raises, and the
    manifest lists each file that holds a shader once and nothing else."""
    from xlate.convert import convert
    from xlate.convert.detect import detect

    target = EFFECT_TARGETS[zlib.crc32("".join(n for n, _ in files).encode()) % len(EFFECT_TARGETS)]
    root = Path(tempfile.mkdtemp(prefix="xlate-fuzz-convert-"))
    try:
        src = root / "src"
        for name, data in files:
            path = src / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        run = convert([str(src)], str(root / "out"), [target], jobs=1, use_cache=False, progress="off")
        doc = json.loads((root / "out" / "manifest.json").read_text(encoding="utf-8"))
        listed = [e["path"] for e in doc["entries"]] + [e["path"] for e in doc.get("unreadable", [])]
        if len(listed) != len(set(listed)):
            raise Disagree("the manifest lists a file twice")
        shaders = {name for name, data in files if detect(data) is not None}
        if set(listed) != shaders:
            missing, extra = sorted(shaders - set(listed)), sorted(set(listed) - shaders)
            raise Disagree(f"the manifest does not list the tree's shaders: missing {missing[:3]!r}, extra {extra[:3]!r}")
        status = {e["path"]: e["outputs"][target]["status"] for e in doc["entries"]}
        for e in doc["entries"]:
            out = e["outputs"][target]
            if out["status"] != "converted":
                error = out.get("error") or {}
                message = error.get("message", "")
                if error.get("type") == "InternalError":  # convert caught an exception escaping xlate
                    raise InternalError(f"{e['path']}: {message}")
                if not message or "\n" in message:
                    raise Disagree(f"a refused file's message is not one line: {message[:80]!r}")
        if run.counts.problems and run.exit_code != 1:
            raise Disagree("convert reported problems but exit code 0")
        return [status.get(name, "unreadable" if name in listed else "not a shader") for name, _ in files]
    finally:
        shutil.rmtree(root, ignore_errors=True)


# --------------------------------------------------------------------------
# Failures: signature, replay, minimising
# --------------------------------------------------------------------------


def signature(exc: BaseException) -> str:
    """Exception type and innermost xlate frame: one per distinct bug."""
    frames = traceback.extract_tb(exc.__traceback__)
    inner = next((f for f in reversed(frames) if f"{os.sep}xlate{os.sep}" in f.filename), frames[-1] if frames else None)
    where = f"{Path(inner.filename).name}:{inner.lineno}" if inner else "?"
    return f"{type(exc).__name__} at {where}"


def classify(exc: BaseException) -> str:
    if isinstance(exc, Hang):
        return "HANG"
    if isinstance(exc, MemoryError):
        return "MEMORY"
    if isinstance(exc, AssertionError):
        return f"DISAGREE {str(exc)[:60]}"
    if isinstance(exc, InternalError):  # one signature per exception type convert saw
        return "CRASH convert InternalError " + str(exc).split(": ", 1)[-1].split(":", 1)[0][:40]
    return "CRASH " + signature(exc)


def _on_alarm(signum, frame):
    raise Hang()


def install_alarm() -> None:
    signal.signal(signal.SIGALRM, _on_alarm)


def failure_of(entry: str, data, limit: float) -> str | None:
    """The failure signature ``data`` gives, or None (SIGALRM must be
    ``install_alarm``'s)."""
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        run_entry(entry, data, None)
        return None
    except (Exception, Hang) as exc:  # noqa: BLE001
        return classify(exc)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def minimise(entry: str, data, want: str, limit: float, budget: int = 300):
    """Remove tokens (bytes), lines (text) or files (convert) while the
    failure stays ``want``.  Effects are not cut (their offsets would all
    break): they are saved as found."""
    if entry in ("effect", SELFTEST):
        return data
    if entry == "convert":
        parts, join, keep = list(data), list, 0
    elif entry in TEXT_ENTRIES:
        parts, join, keep = data.split("\n"), "\n".join, 0
    else:
        parts = [data[:4]] + [data[i:i + 4] for i in range(4, len(data), 4)]
        join, keep = b"".join, 1  # keep the version token
    size = max(1, len(parts) // 2)
    while size >= 1 and budget > 0:
        k = keep
        changed = False
        while k < len(parts) and budget > 0:
            trial = parts[:k] + parts[k + size:]
            budget -= 1
            if trial and failure_of(entry, join(trial), limit) == want:
                parts = trial
                changed = True
            else:
                k += size
        if not changed:
            size //= 2
    return join(parts)
