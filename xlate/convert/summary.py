"""Counting a run's entries, and the table printed at the end."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .jobs import CONVERTED, FAILED, REFUSED


@dataclass
class Counts:
    files: int = 0
    not_shaders: int = 0
    kinds: Counter = field(default_factory=Counter)  # shader / effect / asm
    unreadable: int = 0
    per_target: dict = field(default_factory=dict)  # target -> Counter(status)
    reasons: Counter = field(default_factory=Counter)  # (status, type, message) -> files

    @property
    def problems(self) -> int:
        """Files with any output missing (refused, failed) or unreadable."""
        return self.unreadable + self._bad_files

    _bad_files: int = 0

    def to_json(self) -> dict:
        return {
            "files": self.files,
            "not_shaders": self.not_shaders,
            "unreadable": self.unreadable,
            "kinds": dict(sorted(self.kinds.items())),
            "targets": {t: {s: c[s] for s in (CONVERTED, REFUSED, FAILED)} for t, c in self.per_target.items()},
        }

    def reason_rows(self) -> list[tuple[str, int]]:
        """(status: type: message, files) for each reason, most files first."""
        return [(f"{status}: {kind}: {message}", n) for (status, kind, message), n in self.reasons.most_common()]


def count(targets, entries: list[dict], unreadable: list[dict], not_shaders: int) -> Counts:
    c = Counts(not_shaders=not_shaders, unreadable=len(unreadable))
    c.per_target = {t: Counter() for t in targets}
    for e in entries:
        c.kinds[e["kind"]] += 1
        bad = False
        seen = set()
        for target, out in e["outputs"].items():
            c.per_target[target][out["status"]] += 1
            if out["status"] != CONVERTED:
                bad = True
                err = out["error"] or {}
                reason = (out["status"], err.get("type", "?"), err.get("message", "?"))
                if reason not in seen:  # a file counts once per reason, not once per target
                    seen.add(reason)
                    c.reasons[reason] += 1
        c._bad_files += bad
    for u in unreadable:
        c.reasons[("unreadable", "OSError", u["error"]["message"])] += 1
    c.files = len(entries) + len(unreadable) + not_shaders
    return c


def _printable(text: str) -> str:
    """Control characters (from file or shader names) shown as escapes, not sent to the terminal."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def print_summary(counts: Counts, console, seconds: float | None = None, max_reasons: int = 12) -> None:
    """The per-target table and the grouped reasons, with rich."""
    from rich.markup import escape
    from rich.table import Table

    kinds = ", ".join(f"{n} {k}" for k, n in sorted(counts.kinds.items())) or "no shaders"
    timing = f" in {seconds:.2f} s" if seconds is not None else ""
    console.print(f"{counts.files} files{timing}: {kinds}; {counts.not_shaders} not shaders; {counts.unreadable} unreadable")
    table = Table(title=None, show_edge=False)
    table.add_column("target")
    for status in (CONVERTED, REFUSED, FAILED):
        table.add_column(status, justify="right")
    for target, c in counts.per_target.items():
        table.add_row(target, str(c[CONVERTED]), str(c[REFUSED]), str(c[FAILED]))
    console.print(table)
    if counts.reasons:
        reasons = Table(title="reasons (files)", show_edge=False)
        reasons.add_column("files", justify="right")
        reasons.add_column("status")
        reasons.add_column("reason", overflow="fold")
        for (status, kind, message), n in counts.reasons.most_common(max_reasons):
            # Messages may quote names from the input: never let rich read them as markup.
            reasons.add_row(str(n), status, escape(_printable(f"{kind}: {message}")))
        console.print(reasons)
        rest = len(counts.reasons) - max_reasons
        if rest > 0:
            console.print(f"... and {rest} more reasons: see manifest.json")
