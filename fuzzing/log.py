"""The campaign log: one JSON line per entry point per run, committed in
the repository (``fuzz/campaign.jsonl``) so that parts run in different
sessions add up.  Each line holds the input range ``[start, end)`` of a
seed, so a later run can go on where the log ends (``--continue``) and the
totals count an input once however many parts ran it."""

from __future__ import annotations

import datetime
import json
import subprocess
from collections import Counter, defaultdict
from pathlib import Path

from . import ROOT

DEFAULT_LOG = ROOT / "fuzz" / "campaign.jsonl"
FAILURE_KINDS = ("CRASH", "HANG", "MEMORY", "DISAGREE", "GLSLANG", "SPIRVVAL")
GOAL = 1_000_000


def commit() -> str:
    try:
        sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=10", "HEAD"], capture_output=True,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "--",
                                "xlate", "fuzzing", "tests/corpus.py", "tests/hostile.py"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (sha or "unknown") + ("+changes" if dirty else "")


def record(*, seed: int, entry: str, start: int, end: int, seconds: float, cpu_seconds: float, jobs: int,
           counts: Counter, note: str = "", sha: str | None = None) -> dict:
    """One log line (a dict) for a finished run of one entry point;
    ``sha``: the commit the run started from (``commit()`` at its start)."""
    inputs = end - start
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": sha or commit(),
        "seed": seed,
        "entry": entry,
        "start": start,
        "end": end,
        "inputs": inputs,
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu_seconds, 1),
        "rate": round(inputs / seconds, 1) if seconds else None,
        "jobs": jobs,
        "failures": {k: counts.get(k, 0) for k in FAILURE_KINDS},
        "glslang_checked": sum(v for k, v in counts.items() if k.endswith(" checked")),
        "outcomes": dict(sorted((k, v) for k, v in counts.items() if k not in FAILURE_KINDS and not k.endswith(" checked"))),
        "note": note,
    }


def append(path: Path, line: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(line, sort_keys=False) + "\n")


def read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def covered_end(lines: list[dict], seed: int, entry: str) -> int:
    """Where ``--continue`` starts: the end of the inputs run from 0 on
    without a gap (for ``seed`` and ``entry``)."""
    end = 0
    for a, b in sorted((ln["start"], ln["end"]) for ln in lines if ln["seed"] == seed and ln["entry"] == entry):
        if a > end:
            break
        end = max(end, b)
    return end


def _union(ranges) -> int:
    total, end = 0, None
    for a, b in sorted(ranges):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def rerun(lines: list[dict], index: int) -> bool:
    """Whether the inputs of ``lines[index]`` were all run again by later
    lines of the same entry point and seed (the log is in time order).  A
    rerun is how a fix is proven: the failures of the earlier line are then
    no longer open, though the totals still count them."""
    ln = lines[index]
    later = [(o["start"], o["end"]) for o in lines[index + 1:] if o["entry"] == ln["entry"] and o["seed"] == ln["seed"]]
    reach = ln["start"]
    for a, b in sorted(later):
        if a > reach:
            break
        reach = max(reach, b)
        if reach >= ln["end"]:
            return True
    return reach >= ln["end"]


def totals(lines: list[dict]) -> dict[str, dict]:
    """Per entry point: distinct inputs run (over seeds), seconds, CPU
    seconds, failures (all, and ``open``: those of lines not run again
    since, see ``rerun``) and outcomes, and the rate."""
    ranges: dict[tuple[str, int], list] = defaultdict(list)
    out: dict[str, dict] = {}
    for index, ln in enumerate(lines):
        ranges[(ln["entry"], ln["seed"])].append((ln["start"], ln["end"]))
        t = out.setdefault(ln["entry"], {"inputs": 0, "runs": 0, "seconds": 0.0, "cpu_seconds": 0.0, "failures": Counter(),
                                         "open": 0, "outcomes": Counter(), "glslang_checked": 0, "parts": 0})
        if not rerun(lines, index):
            t["open"] += sum(ln["failures"].values())
        t["runs"] += ln["inputs"]
        t["parts"] += 1
        t["seconds"] += ln["seconds"]
        t["cpu_seconds"] += ln.get("cpu_seconds") or 0.0
        t["failures"].update(ln["failures"])
        t["outcomes"].update(ln["outcomes"])
        t["glslang_checked"] += ln.get("glslang_checked", 0)
    for (entry, _), rs in ranges.items():
        out[entry]["inputs"] += _union(rs)
    return out


def _duration(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"


def summary_text(lines: list[dict], goal: int = GOAL) -> str:
    """The table ``scripts/fuzz --summary`` prints: the failure columns
    count every failure ever logged; ``open`` those whose inputs were not
    all run again later (on the fixed code)."""
    head = (f"{'entry':<9} {'inputs':>10} {'parts':>5} {'rate/s':>7} {'/cpu-s':>7} {'crash':>5} {'hang':>4} {'mem':>4} "
            f"{'disagr':>6} {'glslang/val':>12} {'open':>4} {'to 1M, quiet 2 cores':>21}")
    rows = [head]
    for entry, t in sorted(totals(lines).items()):
        rate = t["runs"] / t["seconds"] if t["seconds"] else 0
        per_cpu = t["runs"] / t["cpu_seconds"] if t["cpu_seconds"] else 0
        left = max(0, goal - t["inputs"])
        # A quiet 2-core machine runs -j 2 at about twice the rate per CPU second.
        eta = _duration(left / (2 * per_cpu)) if per_cpu and left else ("done" if not left else "-")
        f = t["failures"]
        rows.append(f"{entry:<9} {t['inputs']:>10,} {t['parts']:>5} {rate:>7.0f} {per_cpu:>7.0f} {f['CRASH']:>5} {f['HANG']:>4} "
                    f"{f['MEMORY']:>4} {f['DISAGREE']:>6} {str(f['GLSLANG'] + f['SPIRVVAL']) + '/' + str(t['glslang_checked']):>12} {t['open']:>4} {eta:>21}")
    return "\n".join(rows)
