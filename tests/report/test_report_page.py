"""``xlate.report.build_report``: the page's escaping, embedded data and summary."""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

from xlate.bytecode.asm import assemble_bytes
from xlate.report import build_report, report_entry
from xlate.report.page import pack, reason, summarise, unpack

sys.path.insert(0, str(Path(__file__).resolve().parent))
from page_hostile import HOSTILE_NAMES, ctab_shader  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def embedded(page: str) -> dict:
    return unpack(page)


class Tags(HTMLParser):
    """Every start tag and attribute the page's markup holds (what a browser would build before scripts run)."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def hostile_entries():
    good = assemble_bytes((ROOT / "corpus/ps_3_0/bloom_loops.asm").read_text())
    out = []
    for name in HOSTILE_NAMES:
        out.append(report_entry(name, ctab_shader(name), ["glsl330"]))  # the name as path and as CTAB name
        out.append(report_entry(name + ".bin", good[:-2], ["glsl330"]))  # and beside an error
    out.append(report_entry("lone\udc80surrogate", good, ["glsl330"]))
    return out


def test_hostile_names_stay_data():
    entries = hostile_entries()
    page = build_report(entries, {"source": "</script><script>alert(1)</script>", "note\u2028": "<!--"})
    assert page.isascii()
    # the page's own markup only: two scripts, one style, nothing from the names
    parser = Tags()
    parser.feed(page)
    names = [t for t, _ in parser.tags]
    assert names.count("script") == 2 and names.count("style") == 1
    assert not any(k.startswith("on") for _, attrs in parser.tags for k in attrs)
    assert page.count("</script") == 2 and "<!--" not in page and "alert" not in page
    # and the data travels whole
    data = embedded(page)
    assert data["entries"] == [e.to_json() for e in entries]
    assert data["summary"]["source"] == "</script><script>alert(1)</script>"
    assert data["entries"][-1]["p"] == "lone\udc80surrogate"


def test_packed_data_cannot_end_its_element_and_is_deterministic():
    value = {"a": "</script><!-- & \u2028 \x1b \udc80"}
    text = pack(value)
    assert re.fullmatch(r"[A-Za-z0-9+/=]*", text)
    assert text == pack(value)  # no timestamp inside: a rerun writes the same page
    assert unpack(f'<script type="application/octet-stream" id="xlate-data">{text}</script>') == value


def test_summary_counts_and_groups_reasons():
    good = assemble_bytes((ROOT / "corpus/ps_3_0/texldd_ps30.asm").read_text())
    entries = [
        report_entry("a.bin", good, ["glsl330", "essl100"]),
        report_entry("b.bin", good, ["glsl330", "essl100"]),
        report_entry("c.bin", good[:-4], ["glsl330", "essl100"]),
        report_entry("d.bin", good[:-8], ["glsl330", "essl100"]),
    ]
    s = summarise(entries)
    assert s["shaders"] == 4
    assert s["targets"]["glsl330"] == {"converted": 2, "refused": 2, "failed": 0}
    assert s["targets"]["essl100"] == {"converted": 0, "refused": 4, "failed": 0}
    reasons = dict(s["reasons"])
    # two shaders refused for the same reason at different offsets: one group of two
    (gradient, n), = [(r, n) for r, n in reasons.items() if "gradient" in r]
    assert n == 2 and "byte offset" not in gradient and "instruction" not in gradient
    assert sum(reasons.values()) == 4
    assert reason("glsl330: byte offset 8 (0x8): 'x' (instruction 3): why") == "'x': why"
    assert reason("line 2, column 5: unknown register") == "unknown register"


def test_the_runs_summary_wins_over_the_computed_one():
    e = report_entry("a.bin", assemble_bytes("ps_2_0\nmov oC0, c0\n"), ["glsl330"])
    data = embedded(build_report([e], {"targets": {"glsl330": {"converted": 7}}, "files": 3}))
    assert data["summary"]["targets"] == {"glsl330": {"converted": 7}}
    assert data["summary"]["files"] == 3 and data["summary"]["shaders"] == 1
    assert data["targets"] == ["glsl330"]


def test_the_page_is_self_contained():
    e = report_entry("a.bin", assemble_bytes("ps_2_0\nmov oC0, c0\n"), ["glsl330"])
    page = build_report([e], {})
    parser = Tags()
    parser.feed(page)
    for tag, attrs in parser.tags:
        assert not {"src", "href"} & set(attrs), (tag, attrs)
    assert not re.search(r"url\(|@import|https?:", page.split('id="xlate-data"')[0])
    assert "default-src 'none'" in page


def test_thousands_of_entries_cost_little_per_entry():
    """A page of 1,000 entries holds their compressed data and a fixed part (no per-entry markup)."""
    e = report_entry("a.bin", assemble_bytes((ROOT / "corpus/ps_3_0/bloom_loops.asm").read_text()), ["glsl330"])
    one = build_report([e], {})
    many = build_report([replace(e, path=f"dir/{i}.bin") for i in range(1000)], {})
    assert len(many) - len(one) < 999 * 200  # the same shader again and again: gzip keeps little of each
    assert many.count("<tr") == one.count("<tr")  # rows are built by the script, a page at a time
