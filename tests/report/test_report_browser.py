"""The report page in a real browser: Playwright driving Debian's Chromium.

The page must load without a console error, its filter must filter the
table, clicking an instruction must highlight the code it became (and a
line of code its instruction, a CFG block its instructions), and names
from shaders must show as text, never run.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from xlate.bytecode.asm import assemble_bytes
from xlate.report import build_report, report_entry

sys.path.insert(0, str(Path(__file__).resolve().parent))
from page_hostile import HOSTILE_NAMES, ctab_shader  # noqa: E402

from xlate.bytecode.ctab import shown_name  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="no Chromium at /usr/bin/chromium (apt-get install chromium)")
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed (pip install -e '.[test]')")

ROOT = Path(__file__).resolve().parents[2]
CLONES = 600  # more than a page of the table (500 rows)


def corpus(name: str) -> bytes:
    return assemble_bytes((ROOT / "corpus" / name).read_text())


@pytest.fixture(scope="module")
def entries():
    main = [
        report_entry("game/shaders/bloom_loops.ps", corpus("ps_3_0/bloom_loops.asm"), ["glsl330", "essl300"]),
        report_entry("game/fx/water.fx#Ocean.P0.ps", corpus("ps_2_x/flow_subroutines.asm"), ["glsl330", "essl300"],
                     kind="effect-shader"),
        report_entry("game/broken.vso", corpus("vs_3_0/area_lights_nested.asm")[:-10], ["glsl330", "essl300"]),
    ]
    hostile = [report_entry(name, ctab_shader(name), ["glsl330", "essl300"]) for name in HOSTILE_NAMES]
    hostile.append(report_entry("game/shaders/lights.vs", corpus("vs_3_0/texcoord_array_loop.asm"), ["glsl330", "essl300"]))
    small = report_entry("x", assemble_bytes("ps_2_0\nmov oC0, c0\n"), ["glsl330", "essl300"])
    clones = [replace(small, path=f"game/generated/clone_{i:04d}.pso") for i in range(CLONES)]
    return main + hostile + clones


@pytest.fixture(scope="module")
def report_file(entries, tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(build_report(entries, {"files": len(entries) + 4, "not_shaders": 4}), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield b
        b.close()


class Page:
    """One tab on the report, recording every console error, page error and dialog."""

    def __init__(self, browser, path: Path):
        self.problems: list[str] = []
        self.page = browser.new_page(viewport={"width": 1300, "height": 900})
        self.page.on("console", lambda m: m.type in ("error", "warning") and self.problems.append(f"console {m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("dialog", lambda d: (self.problems.append(f"dialog: {d.message}"), d.dismiss()))
        self.page.on("request", lambda r: r.url.startswith("file:") or self.problems.append(f"request: {r.url}"))
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("body[data-ready]", timeout=15000)

    def rows(self) -> list[str]:
        return self.page.locator("#shaders tbody tr td.path").all_text_contents()

    def filter(self, text: str) -> None:
        self.page.fill("#filter", text)

    def open(self, path_text: str) -> None:
        self.filter("")
        self.page.locator("#shaders tbody tr", has_text=path_text).first.click()
        self.page.wait_for_selector("#detail:not([hidden])")

    def lines(self, selector: str) -> list[str]:
        return [t.strip() for t in self.page.locator(selector).all_text_contents()]

    def close(self) -> list[str]:
        self.page.close()
        return self.problems


@pytest.fixture(scope="module")
def opened(browser, report_file):
    t = Page(browser, report_file)
    yield t
    t.close()


@pytest.fixture
def tab(opened):
    """The one tab the tests share (each sets the filter and opens the shader it needs)."""
    yield opened
    assert opened.problems == []


def test_page_loads_and_lists_everything(tab, entries):
    p = tab.page
    assert p.title() == "xlate conversion report"
    assert p.locator("table.targets tbody tr").count() == 2  # glsl330 and essl300
    assert p.locator("#shaders tbody tr").count() == 500  # a page of rows at a time
    assert str(len(entries)) in p.text_content("#count")
    p.click("#more")
    assert p.locator("#shaders tbody tr").count() == len(entries)
    assert p.is_hidden("#more")
    (broken,) = entries[2].errors
    assert "parameter tokens" in broken and "parameter tokens" in p.text_content(".reasons-box")
    # every shader's detail renders without an error, the hostile ones included
    for i in range(3 + len(HOSTILE_NAMES)):
        p.locator(f'#shaders tbody tr[data-index="{i}"]').click()
        assert p.locator("#detail h2").count() == 1


def test_search_filters_the_table(tab):
    tab.filter("bloom")
    assert tab.rows() == ["game/shaders/bloom_loops.ps"]
    tab.filter("clone_00")  # clone_0000 .. clone_0099
    assert len(tab.rows()) == 100
    tab.filter("CLONE_01")  # case does not matter
    assert len(tab.rows()) == 100
    tab.filter("generated 0123")  # every word must match
    assert tab.rows() == ["game/generated/clone_0123.pso"]
    tab.filter("glsl330:refused")
    assert tab.rows() == ["game/broken.vso"]
    tab.filter("effect-shader")
    assert tab.rows() == ["game/fx/water.fx#Ocean.P0.ps"]
    tab.filter("</script>")
    assert tab.rows() == ["</script><script>window.__pwned = 1</script>"]
    tab.filter("no such shader anywhere")
    assert tab.rows() == [] and tab.page.text_content("#count").startswith("0 of")


def test_clicking_an_instruction_highlights_its_code(tab, entries):
    p = tab.page
    entry = entries[0]
    tab.open("bloom_loops")
    p.locator(".asm-line", has_text="texldl r2, r1, s0").click()
    assert tab.lines(".asm-line.hl-src") == ["texldl r2, r1, s0"]
    assert tab.lines(".code-line.hl") == ["vec4 t0 = r1;", "r2 = textureLod(ps_s0, t0.xy, t0.w);"]
    # the highlighted lines are those the entry links, and they were scrolled into view
    at = next(i for i, s in enumerate(entry.disassembly) if s.strip() == "texldl r2, r1, s0")
    (_, first, last), = [link for link in entry.links["glsl330"] if link[0] == at]
    marked = p.locator(".code-line.hl").evaluate_all("els => els.map(e => Number(e.dataset.line))")
    assert marked == list(range(first, last + 1))
    assert p.locator(".code-line.hl").first.is_visible()
    # another instruction moves the highlight
    p.locator(".asm-line", has_text="exp r4.z, r3.z").click()
    assert tab.lines(".code-line.hl") == ["r4.z = exp2(r3.z);"]
    # a line of code finds its instruction
    p.locator(".code-line", has_text="r4.w = p0.x ? 0.5 : r4.w;").click()
    assert tab.lines(".asm-line.hl-src") == ["(p0.x) mov r4.w, c1.w"]
    # the reflection of the target shown
    p.click("details.reflection summary")
    assert '"glsl": "ps_s0"' in p.text_content("details.reflection pre")
    # the other target's tab has its own code and links
    p.click('.tabs button[data-target="essl300"]')
    assert p.text_content(".code-pane .pane-title") == "essl300"
    assert p.locator(".code-line").first.text_content() == "#version 300 es"
    p.locator(".asm-line", has_text="texldl r2, r1, s0").click()
    assert "textureLod(ps_s0, t0.xy, t0.w)" in " ".join(tab.lines(".code-line.hl"))


def test_code_from_no_instruction_is_marked_and_linked_to_none(tab, entries):
    p = tab.page
    entry = next(e for e in entries if e.path == "game/shaders/lights.vs")
    tab.open("lights.vs")
    p.click('.tabs button[data-target="glsl330"]')
    # the register-file set-up opening main, the output copies and position fix-ups closing it
    runs = entry.synthetic["glsl330"]
    assert len(runs) == 2
    marked = p.locator(".code-line.synthetic").evaluate_all("els => els.map(e => Number(e.dataset.line))")
    assert marked == [n for first, last in runs for n in range(first, last + 1)]
    assert p.locator(".code-line.synthetic.linked").count() == 0
    assert p.locator(".code-line.synthetic").first.get_attribute("title") == "added by xlate: from no D3D instruction"
    # the last instruction highlights its own code, not the fix-ups after it
    p.locator(".asm-line", has_text="endloop").click()
    highlighted = tab.lines(".code-line.hl")
    assert highlighted and highlighted[-1] == "}" and p.locator(".code-line.hl.synthetic").count() == 0
    p.locator(".code-line.synthetic").first.click()  # linked to nothing: the highlight stays
    assert tab.lines(".code-line.hl") == highlighted


def test_cfg_blocks_highlight_their_instructions(tab):
    p = tab.page
    tab.open("water.fx")
    assert p.locator(".cfg-wrap svg").count() == 4  # main, l0, l1, l2
    p.locator(".cfg-wrap svg").nth(1).locator("g.cfg-block").first.click()  # l0's only block
    assert tab.lines(".asm-line.hl-src") == ["texld r1, t0, s1", "mul r0, r0, r1"]


def test_hostile_names_show_as_text(tab):
    p = tab.page
    for name in HOSTILE_NAMES:
        tab.filter(name[:20])
        p.locator("#shaders tbody tr").first.click()
        shown = p.text_content("#detail-title")
        # control and bidi characters are shown as escapes; everything else as it is
        visible = "".join(c if c.isprintable() and c not in "\u2028\u202e" else f"\\u{ord(c):04x}" for c in name)
        assert shown == visible
        if name.isascii():  # (the CTAB holds the name's UTF-8, which the decoder reads byte by byte)
            # the CTAB name in the listing header, as listings show names (shown_name: control characters as \xNN)
            assert any(shown_name(name) in line for line in tab.lines(".asm-line")), name
    assert p.evaluate("window.__pwned") is None
    assert p.locator("#detail script, #detail img, #shaders script, #shaders img").count() == 0
