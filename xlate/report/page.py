"""``build_report``: the report's one self-contained HTML page.

The page holds no shader text as HTML.  Every entry travels in one JSON
document, gzip-compressed and base64-encoded inside a
``<script type="application/octet-stream">`` element (base64 has no
character that could end the element; the SPIR-V listings and code of
thousands of shaders shrink about tenfold), which the page's script unpacks
with the browser's own ``DecompressionStream`` and renders through
``textContent``.  Thousands of shaders stay usable: the table lists the
filter's matches a page at a time, and a shader's detail is built when it
is opened.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from typing import Mapping, Sequence

from .assets import CSS, JS
from .entry import OUTCOMES, ReportEntry

TITLE = "xlate conversion report"
# What the reasons are grouped by: the message without its byte offset or
# assembly line, its instruction number and the target that gave it.
_OFFSET = re.compile(r"byte offset \d+ \(0x[0-9a-f]+\): ")
_INSTRUCTION = re.compile(r" \(instruction \d+\)")
_LINE = re.compile(r"^line \d+, column \d+: ")
_TARGET = re.compile(r"^[A-Za-z0-9_]+: ")

def pack(value) -> str:
    """``value`` as the page embeds it: JSON (ASCII, so lone surrogates from
    odd names survive as escapes), gzip with a zero timestamp (the same run
    gives the same page, byte for byte), base64."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), default=str)
    return base64.b64encode(gzip.compress(text.encode("ascii"), compresslevel=6, mtime=0)).decode("ascii")


def unpack(page: str) -> dict:
    """The data a page built by ``build_report`` embeds (for tests and tools)."""
    m = re.search(r'<script type="application/octet-stream" id="xlate-data">([A-Za-z0-9+/=]*)</script>', page)
    if m is None:
        raise ValueError("no xlate report data in this page")
    return json.loads(gzip.decompress(base64.b64decode(m.group(1))))


def reason(error: str) -> str:
    """An error message as the summary groups it."""
    return _LINE.sub("", _INSTRUCTION.sub("", _OFFSET.sub("", _TARGET.sub("", error, count=1))))


def summarise(entries: Sequence[ReportEntry]) -> dict:
    """The summary figures the entries alone give: shaders, per-target
    outcomes, and the reasons for what was not converted, most frequent first."""
    targets: dict[str, dict[str, int]] = {}
    reasons: dict[str, int] = {}
    for e in entries:
        for t, o in e.outcome.items():
            targets.setdefault(t, dict.fromkeys(OUTCOMES, 0))[o] += 1
        for err in e.errors:
            key = reason(err)
            reasons[key] = reasons.get(key, 0) + 1
    return {
        "shaders": len(entries),
        "targets": targets,
        "reasons": sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])),
    }


def build_report(entries: Sequence[ReportEntry], summary: Mapping) -> str:
    """The whole report page as one string (write it UTF-8; it is ASCII).

    ``summary`` is the run's: its scalar values are shown as figures
    (``files``, ``converted``, ``seconds``, ...), ``targets`` as a table
    (target -> {"converted", "refused", "failed"} counts) and ``reasons``
    as a table of (reason, count) pairs or a reason -> count mapping; other
    nested values are shown as JSON.  Figures it lacks (``shaders``,
    ``targets``, ``reasons``) are computed from the entries.
    """
    merged = {**summarise(entries), **dict(summary)}
    targets: list[str] = []
    for e in entries:
        for t in e.outcome:
            if t not in targets:
                targets.append(t)
    data = {"summary": merged, "targets": targets, "entries": [e.to_json() for e in entries]}
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        # nothing may be fetched: the page is read offline, possibly from an untrusted tree
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{TITLE}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f"<header>\n<h1>{TITLE}</h1>\n<div id=\"summary\"></div>\n</header>\n"
        "<main>\n<div id=\"list-tools\"><input id=\"filter\" type=\"search\" autocomplete=\"off\" "
        "placeholder=\"Filter by path, model, target:status, error or warning text\" aria-label=\"Filter shaders\">"
        "<span id=\"count\"></span></div>\n"
        "<div id=\"list\"><table id=\"shaders\"><thead><tr></tr></thead><tbody></tbody></table></div>\n"
        "<button id=\"more\" type=\"button\" hidden>Show more</button>\n"
        "<section id=\"detail\" hidden></section>\n</main>\n"
        "<noscript>This report needs JavaScript to show its shaders.</noscript>\n"
        f"<script type=\"application/octet-stream\" id=\"xlate-data\">{pack(data)}</script>\n"
        f"<script>{JS}</script>\n</body>\n</html>\n"
    )
