"""Fuzz every entry point of xlate: a campaign with per-input limits.

Entry points (``--entry``, comma-separated; default all):

  decode     bytes -> Shader or a BytecodeError (offset inside the blob, one
             line); a Shader encodes back to the same bytes; a dropped CTAB
             is refused by strict_ctab (tests/corpus.check_decode_invariants)
  disasm     what decodes disassembles to a listing that assembles back to
             the same tokens (comments aside) and holds no control character
  info       what decodes gives an ``xlate info`` text with no control
             character and no markup error
  asm        mutated assembly text -> bytes or an AsmError (one line); bytes
             that decode survive disasm -> asm again
  glsl120 glsl330 glsl450 essl100 essl300 vulkan spirv
             translate: code or an XlateError (one line); a sampled share
             of the GLSL (--glslang-share) goes to glslang, in one run per
             chunk, which must accept it; for spirv the same share of the
             modules goes to spirv-val (SPIRVVAL when it refuses one); for
             vulkan a fifth of it to glslang -V and spirv-val (per shader)
  effect     mutated corpus effects (counts, offsets, sizes, names, state
             records, embedded shader tokens): parse or EffectError; the
             listing and summary hold no control character; translate_effect
             (one target per effect) gives one-line diagnostics and ASCII
             code (a share to glslang); every pass evaluates or is refused
  convert    trees of 8 files (mutated shaders, effects, listings, seeds,
             junk; hostile file names) through xlate.convert in-process: no
             exception, the manifest lists each shader file once, one-line
             messages.  An input is a file.

Input i of an entry point comes from (seed, entry, i) alone, so results do
not depend on --jobs or on how the campaign is split into parts.  Every
input runs under a time limit (--time-limit, default 10 s) and an address
-space limit (--memory-limit, default 1024 MiB) in a worker process; a
worker that dies or overruns is replaced and the input counted as a CRASH,
HANG or MEMORY.  Anything other than the documented errors is a CRASH; a
broken invariant a DISAGREE; glslang refusing generated GLSL a GLSLANG.
Each failure is saved, minimised, under --reproducers with a .txt telling
what happened; the exit status is 1.

The campaign runs in parts: each run of an entry point appends a line to the
log (--log, default fuzz/campaign.jsonl: date, commit, seed, input range,
seconds, CPU seconds, outcomes); --continue starts where the log ends,
--part K/N runs the K-th of N slices of --cases; --summary adds up the log.

  scripts/fuzz --cases 20000                        # inputs 0-19,999 of each entry point
  scripts/fuzz -j 2 --entry asm,decode --seconds 600 --continue
  scripts/fuzz --entry effect --cases 1000000 --part 3/50
  scripts/fuzz --summary
  scripts/fuzz --replay build/fuzz/disasm-*.bin --entry disasm
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import sys
import time
from collections import Counter
from pathlib import Path

from . import ROOT
from . import log as campaign_log
from .entries import failure_of, install_alarm
from .inputs import ALL_ENTRIES, TEXT_ENTRIES, TREE_FILES
from .pool import Limits, run_pool, warm_up

DEFAULT_ENTRIES = ALL_ENTRIES
CHUNK = {"effect": 100, "convert": 96}


def save(directory: Path, entry: str, kind: str, small, original, where: str, report: str) -> Path:
    """Write a reproducer (a .bin, .asm, .fx or a folder for a convert
    tree) and a .txt beside it."""
    directory.mkdir(parents=True, exist_ok=True)
    if entry == "convert":
        digest = hashlib.sha1(b"".join(n.encode("utf-8", "surrogatepass") + d for n, d in small)).hexdigest()[:16]
        path = directory / f"convert-{digest}"
        for name, data in small:
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_bytes(data)
        size, unit = len(original), "files"
        small_size = len(small)
    else:
        raw = small.encode("utf-8", "surrogatepass") if isinstance(small, str) else small
        suffix = ".asm" if isinstance(small, str) else (".fx" if entry == "effect" else ".bin")
        path = directory / (f"{entry}-" + hashlib.sha1(raw).hexdigest()[:16] + suffix)
        path.write_bytes(raw)
        size, small_size = len(original), len(small)
        unit = "characters" if isinstance(small, str) else "bytes"
    Path(str(path) + ".txt").write_text(
        f"{entry}: {kind}\n{where}; minimised from {size} to {small_size} {unit}\n"
        f"replay: scripts/fuzz --entry {entry} --replay {path}\n\n{report}",
        encoding="utf-8",
    )
    return path


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_entry_part(args, entry: str, start: int, stop: int | None, seconds: float | None) -> tuple[int, Counter, float]:
    """One entry point from input ``start``: to ``stop`` or for ``seconds``."""
    limits = Limits(args.time_limit, args.memory_limit * 1024 * 1024, args.glslang_share)
    kept: Counter = Counter()
    failed = [False]

    def on_chunk(a, b, counts, failures):
        for f in failures:
            failed[0] = True
            kept[f.kind] += 1
            if kept[f.kind] <= args.keep:
                path = save(args.reproducers, entry, f.kind, f.small, f.original,
                            f"seed {args.seed} input {f.index}", f.report)
                print(f"  {entry}: {f.kind}: input {f.index}: saved {path}", flush=True)

    t0, cpu0 = time.perf_counter(), _cpu_children()
    deadline = time.monotonic() + seconds if seconds else None
    end, outcome = run_pool(entry, args.seed, start, stop=stop, deadline=deadline, jobs=args.jobs, limits=limits,
                            chunk=CHUNK.get(entry, args.chunk), on_chunk=on_chunk)
    elapsed, cpu = time.perf_counter() - t0, _cpu_children() - cpu0
    if args.log is not None and end > start:
        line = campaign_log.record(seed=args.seed, entry=entry, start=start, end=end, seconds=elapsed, cpu_seconds=cpu,
                                   jobs=args.jobs, counts=outcome.counts, note=args.note, sha=args.sha)
        campaign_log.append(args.log, line)
    print(figure(entry, start, end, elapsed, outcome.counts), flush=True)
    return end - start, outcome.counts, elapsed if not failed[0] else -elapsed


def figure(entry: str, start: int, end: int, elapsed: float, totals: Counter) -> str:
    done = end - start
    refused = sorted(((k, v) for k, v in totals.items() if k != "ok" and k.split()[0] not in campaign_log.FAILURE_KINDS
                      and not k.endswith(" checked")), key=lambda kv: -kv[1])
    top = ", ".join(f"{k} {v:,}" for k, v in refused[:4])
    bad = ", ".join(f"{k} {totals[k]}" for k in campaign_log.FAILURE_KINDS if totals[k])
    checked = "".join(f"; {k} {v:,}" for k, v in totals.items() if k.endswith(" checked"))
    return (f"{entry}: inputs {start:,}-{end - 1:,} ({done:,}) in {elapsed:.0f} s ({done / elapsed if elapsed else 0:,.1f}/s): "
            f"ok {totals['ok']:,}; other outcomes {top or '-'}{checked}; failures {bad or 'none'}")


# Entry points whose outputs go to glslang / spirv-val: without the tools,
# every such check would fail and be counted as the translator's crash.
_NO_VALIDATOR = frozenset({"decode", "disasm", "info", "asm", "convert"})


def _validators_missing(entries) -> str | None:
    if _NO_VALIDATOR.issuperset(entries):
        return None
    from xlate.toolchain import ToolchainError, find_tool

    try:
        find_tool("glslangValidator")
        find_tool("spirv-val")
    except ToolchainError as exc:
        return f"scripts/fuzz: {exc} (run it with the project's venv python: .venv/bin/python scripts/fuzz ...)"
    return None


def campaign(args, entries) -> int:
    missing = _validators_missing(entries)
    if missing:
        print(missing, file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    args.sha = campaign_log.commit()  # the code this run loads (HEAD may move while it runs)
    warm_up("effect" if {"effect", "convert"} & set(entries) else entries[0])
    print(f"seed {args.seed}; entries {', '.join(entries)}; {args.jobs} worker(s); limits {args.time_limit:g} s and "
          f"{args.memory_limit} MiB per input; warm-up {time.perf_counter() - t0:.1f} s", flush=True)
    lines = campaign_log.read(args.log) if args.log is not None else []
    share = args.seconds / len(entries) if args.seconds else None
    status = 0
    for entry in entries:
        if args.part:
            k, n = args.part
            start, stop = (k - 1) * args.cases // n, k * args.cases // n
        elif args.cont:
            start = campaign_log.covered_end(lines, args.seed, entry)
            stop = None if share else start + args.cases
        else:
            start = args.start
            stop = None if share else start + args.cases
        if entry == "convert":  # a tree's files are inputs 8k..8k+7
            start -= start % TREE_FILES
            stop = None if stop is None else stop + -stop % TREE_FILES
        _, _, elapsed = run_entry_part(args, entry, start, stop, share)
        status |= elapsed < 0
    if args.log is not None:
        print()
        print(campaign_log.summary_text(campaign_log.read(args.log)))
    return status


def replay(args, entries, paths: list[Path]) -> int:
    status = 0
    install_alarm()
    for path in paths:
        if path.is_dir():
            data = [(p.relative_to(path).as_posix(), p.read_bytes()) for p in sorted(path.rglob("*")) if p.is_file()]
        else:
            raw = path.read_bytes()
            data = raw.decode("utf-8", "surrogateescape") if path.suffix == ".asm" else raw
        for entry in entries:
            if (entry == "convert") != isinstance(data, list) or (entry in TEXT_ENTRIES) != isinstance(data, str):
                continue
            kind = failure_of(entry, data, args.time_limit)
            status |= kind is not None
            print(f"{path} [{entry}]: {kind or 'handled'}")
    return status


def _part(text: str) -> tuple[int, int]:
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError("--part takes K/N, e.g. 3/50") from None
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError("--part K/N needs 1 <= K <= N")
    return k, n


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/fuzz",
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--entry", default=",".join(DEFAULT_ENTRIES),
                        help=f"entry points, comma-separated (default {','.join(DEFAULT_ENTRIES)})")
    parser.add_argument("--cases", type=int, default=10_000,
                        help="inputs per entry point (default 10000); with --part, the whole campaign's")
    parser.add_argument("--seconds", type=float, help="run this long in all, shared between the entry points")
    parser.add_argument("--seed", type=int, default=0, help="seed of the input generator (default 0)")
    parser.add_argument("--start", type=int, default=0, help="first input index (default 0)")
    parser.add_argument("--continue", dest="cont", action="store_true",
                        help="start each entry point where the log's inputs (this seed) end")
    parser.add_argument("--part", type=_part, metavar="K/N", help="run the K-th of N equal slices of --cases")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default 1: the machine is shared)")
    parser.add_argument("--chunk", type=int, default=200, help="inputs per task handed to a worker (default 200)")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per input (default 10)")
    parser.add_argument("--memory-limit", type=int, default=1024, help="MiB of address space per worker (default 1024)")
    parser.add_argument("--glslang-share", type=float, default=0.05,
                        help="share of GLSL translations checked by glslang (default 0.05)")
    parser.add_argument("--reproducers", type=Path, default=ROOT / "build" / "fuzz",
                        help="folder for minimised reproducers (default build/fuzz)")
    parser.add_argument("--keep", type=int, default=3, help="reproducers kept per entry point and failure (default 3)")
    parser.add_argument("--log", type=Path, default=campaign_log.DEFAULT_LOG,
                        help="campaign log to append to (default fuzz/campaign.jsonl)")
    parser.add_argument("--no-log", dest="log", action="store_const", const=None, help="write no log line")
    parser.add_argument("--note", default=os.environ.get("XLATE_FUZZ_NOTE", ""),
                        help="a note for the log lines (e.g. the machine's load)")
    parser.add_argument("--summary", action="store_true", help="print the log's totals and stop")
    parser.add_argument("--replay", type=Path, nargs="+", metavar="FILE", help="check saved inputs instead of fuzzing")
    args = parser.parse_args(argv)
    entries = [e.strip() for e in args.entry.split(",") if e.strip()]
    unknown = [e for e in entries if e not in ALL_ENTRIES]
    if unknown:
        parser.error(f"unknown entry point(s) {', '.join(unknown)}; known: {', '.join(ALL_ENTRIES)}")
    if args.summary:
        print(campaign_log.summary_text(campaign_log.read(args.log or campaign_log.DEFAULT_LOG)))
        return 0
    if args.replay:
        return replay(args, entries, args.replay)
    if args.cases < 1 or args.jobs < 1:
        parser.error("--cases and --jobs must be at least 1")
    if args.part and (args.cont or args.seconds):
        parser.error("--part runs a fixed slice of --cases: not with --continue or --seconds")
    return campaign(args, entries)


if __name__ == "__main__":
    sys.exit(main())
