"""``xlate.report.report_entry``: the links between listing and code, errors, the CFG picture."""

from __future__ import annotations

import os
import pickle
import re
import struct
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from xlate import XlateError, translate
from xlate.backends.glsl import CONTINUED_ANNOTATION, SYNTHETIC_ANNOTATION
from xlate.bytecode import decode
from xlate.bytecode.asm import assemble_bytes
from xlate.bytecode.disasm import format_instruction
from xlate.report import ReportEntry, link_annotations, report_entry
from xlate.report.entry import Links, listing

sys.path.insert(0, str(Path(__file__).resolve().parent))
from page_hostile import HOSTILE_NAMES, ctab_shader  # noqa: E402

from xlate.bytecode.ctab import shown_name  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OWN = sorted((ROOT / "corpus").glob("*/*.asm"))
GLSL = ("glsl120", "glsl330", "glsl450", "essl100", "essl300", "vulkan")


def blob(name: str) -> bytes:
    return assemble_bytes((ROOT / "corpus" / name).read_text())


def code_of(entry: ReportEntry, target: str, disassembly_line: int) -> list[str]:
    """The code lines the instruction on ``disassembly_line`` became."""
    out = []
    lines = entry.code[target].split("\n")
    for at, first, last in entry.links[target]:
        if at == disassembly_line:
            out += [s.strip() for s in lines[first:last + 1]]
    return out


def line_of(entry: ReportEntry, text: str) -> int:
    return next(i for i, s in enumerate(entry.disassembly) if s.strip() == text)


# -- link_annotations on its own -------------------------------------------------


def test_links_strip_comments_and_cover_the_statements():
    code = "\n".join([
        "// xlate: header comment",
        "void main()",
        "{",
        "    // mov r0, c0",
        "    r0 = c0;",
        "    // loop aL, i0",
        "    n = 4;",
        "    for (;;) {",
        "        if (n <= 0) {",
        "            break;",
        "        }",
        "        // add r0, r0, c1",
        "        r0 = r0 + c1;",
        "        // endloop",
        "        n = n - 1;",
        "    }",
        "    after = 1;",
        "    // add r0, r0, c1",
        "    // mov oC0, r0",
        "    out0 = r0 + c1;",
        f"    // {SYNTHETIC_ANNOTATION}",
        "    vec4 t0 = out0;",
        "    if (t0.w < 0.0) {",
        "        out0.z = 0.0;",
        "    }",
        "}",
    ])
    texts = ["mov r0, c0", "loop aL, i0", "add r0, r0, c1", "endloop", "add r0, r0, c1", "mov oC0, r0"]
    closes = [False, False, False, True, False, False]
    linked = link_annotations(code, texts, closes)
    stripped, links = linked.code, linked.links
    lines = stripped.split("\n")
    assert SYNTHETIC_ANNOTATION not in stripped
    # code from no instruction is a run of its own, linked to no instruction
    assert [lines[a:b + 1] for a, b in linked.synthetic] == [
        ["    vec4 t0 = out0;", "    if (t0.w < 0.0) {", "        out0.z = 0.0;", "    }"]]
    assert "// xlate: header comment" in lines  # an ordinary comment stays
    assert not any(re.match(r"\s*// (mov|add|loop|endloop)", s) for s in lines)
    got = {i: [s.strip() for s in lines[a:b + 1]] for i, a, b in links}
    assert got[0] == ["r0 = c0;"]
    assert got[1] == ["n = 4;", "for (;;) {", "if (n <= 0) {", "break;", "}"]
    assert got[2] == ["r0 = r0 + c1;"]
    assert got[3] == ["n = n - 1;", "}"]  # the loop's closing brace is the endloop's
    # the same text twice: matched in program order; two comments share one statement
    assert got[4] == got[5] == ["out0 = r0 + c1;"]
    assert "after = 1;" not in sum(got.values(), [])  # code from no instruction is linked to none


def test_a_continued_annotation_names_the_instruction_last_matched():
    """``(xlate: continued) TEXT`` goes to the instruction TEXT last matched,
    even when a later instruction prints the same text (two endloops)."""
    code = "\n".join([
        "    for (;;) {",
        "        for (;;) {",
        "            // endloop",
        "            n = n - 1;",
        "        }",
        f"        // {CONTINUED_ANNOTATION} endloop",
        "        aL = saved;",
        "        // endloop",
        "        m = m - 1;",
        "    }",
        "    x = 1;",
    ])
    linked = link_annotations(code, ["endloop", "endloop"], [True, True])
    lines = linked.code.split("\n")
    got = sorted((i, [s.strip() for s in lines[a:b + 1]]) for i, a, b in linked.links)
    assert got == [(0, ["aL = saved;"]), (0, ["n = n - 1;", "}"]), (1, ["m = m - 1;", "}"])]
    assert linked.synthetic == [] and "continued" not in linked.code


def test_code_without_annotations_is_unchanged():
    code = "void main()\n{\n    x = 1;\n}\n"
    assert link_annotations(code, ["mov r0, c0"]) == Links(code, [], [])


# -- real shaders ---------------------------------------------------------------------


def test_bloom_loops_links_each_instruction_to_its_code():
    entry = report_entry("corpus/ps_3_0/bloom_loops.asm", blob("ps_3_0/bloom_loops.asm"), ["glsl330"])
    assert entry.outcome == {"glsl330": "converted"} and entry.errors == []
    assert entry.version == "ps_3_0"
    assert code_of(entry, "glsl330", line_of(entry, "texldl r2, r1, s0")) == [
        "vec4 t0 = r1;", "r2 = textureLod(ps_s0, t0.xy, t0.w);"]
    assert code_of(entry, "glsl330", line_of(entry, "exp r4.y, r3.y")) == ["r4.y = exp2(r3.y);"]
    assert code_of(entry, "glsl330", line_of(entry, "(p0.x) mov r4.w, c1.w")) == ["r4.w = p0.x ? 0.5 : r4.w;"]
    inner_endloop = [i for i, s in enumerate(entry.disassembly) if s.strip() == "endloop"][0]
    assert code_of(entry, "glsl330", inner_endloop) == ["loop1_count = loop1_count + -1;", "aL = aL + 1;", "}",
                                                        "aL = loop1_saved_aL;"]  # the aL restore, past the brace
    assert code_of(entry, "glsl330", line_of(entry, "dcl_2d s0")) == []  # declarations become no statement


VS_LOOP = """vs_3_0
defi i0, 3, 0, 1, 0
dcl_position v0
dcl_texcoord v1
dcl_position o0
dcl_texcoord o1
mov r0, v0
loop aL, i0
loop aL, i0
add r0, r0, v1
endloop
mov r1, c[aL]
endloop
mov o1, r1
mov o0, r0
"""


@pytest.mark.parametrize("target", GLSL)
def test_code_from_no_instruction_is_linked_to_none(target):
    """The position fix-ups the io pass adds after a vertex shader's last
    instruction (half-pixel offset, depth range), and the aL restore after an
    inner loop, are code from no instruction: shown as such, not credited to
    the instruction before them."""
    entry = report_entry("vs.asm", assemble_bytes(VS_LOOP), [target])
    assert entry.outcome == {target: "converted"}, entry.errors
    code = entry.code[target].split("\n")
    assert entry.code[target] == translate(assemble_bytes(VS_LOOP), target).code
    assert code_of(entry, target, line_of(entry, "mov o0, r0")) == [
        "gl_Position = r0;"]
    runs = entry.synthetic[target]
    assert runs, "no code from no instruction found"
    # the last run is the fix-up block closing main; it writes gl_Position
    first, last = runs[-1]
    assert code[last + 1] == "}" and any("gl_Position" in s for s in code[first:last + 1])
    linked = {n for _, a, b in entry.links[target] for n in range(a, b + 1)}
    assert not linked & {n for a, b in runs for n in range(a, b + 1)}
    # the aL restore after the inner loop, past the loop's brace, is still the inner endloop's
    # (the backend names it again), not the outer endloop's nor the next instruction's
    inner, outer = [i for i, s in enumerate(entry.disassembly) if s.strip() == "endloop"]
    assert code_of(entry, target, inner) == ["loop1_count = loop1_count + -1;", "aL = aL + 1;", "}",
                                             "aL = loop1_saved_aL;"]
    assert code_of(entry, target, outer) == ["loop0_count = loop0_count + -1;", "aL = aL + 1;", "}"]
    assert not any("saved" in s for s in code_of(entry, target, line_of(entry, "mov r1, c0[aL]")))
    assert entry.to_json()["x"] == {target: [list(r) for r in runs]}


@pytest.mark.parametrize("path", OWN, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_own_corpus_links_are_consistent(path):
    """For every own-corpus shader, one GLSL dialect per shader (in turn): the
    code shown is exactly what translate() gives without annotate; every link
    points at an instruction line of the listing and at statements of main's
    or a subroutine's body; every executable instruction that produced code
    is linked."""
    data = assemble_bytes(path.read_text())
    target = GLSL[OWN.index(path) % len(GLSL)]
    entry = report_entry(str(path.relative_to(ROOT)), data, [target])
    if entry.outcome == {target: "refused"}:  # as translate() refuses it (a feature the dialect lacks)
        with pytest.raises(XlateError) as refused:
            translate(data, target)
        assert entry.errors == [f"{target}: {refused.value}"]
        return
    assert entry.outcome == {target: "converted"}, entry.errors
    assert entry.code[target] == translate(data, target).code
    shader = decode(data)
    lines, where = listing(shader)
    assert lines == entry.disassembly
    texts = {where[i]: format_instruction(inst, shader.version) for i, inst in enumerate(shader.instructions)}
    code = entry.code[target].split("\n")
    assert entry.links[target], "no instruction linked"
    for at, first, last in entry.links[target]:
        assert at in texts
        assert 0 <= first <= last < len(code)
        assert all(code[n].startswith("    ") or code[n] == "}" for n in range(first, last + 1))
    lines_linked = {n for _, a, b in entry.links[target] for n in range(a, b + 1)}
    for first, last in entry.synthetic[target]:  # code from no instruction: credited to none
        assert 0 <= first <= last < len(code)
        assert not lines_linked & set(range(first, last + 1))
    if shader.version.is_vertex:  # the position fix-ups close main, from no instruction
        assert entry.synthetic[target] and code[entry.synthetic[target][-1][1] + 1] == "}"
    linked = {at for at, _, _ in entry.links[target]}
    arithmetic = [where[i] for i, inst in enumerate(shader.instructions)
                  if inst.info.mnemonic in ("add", "mul", "mad", "texld", "dp3", "dp4") and inst.predicate is None]
    assert set(arithmetic) <= linked


def fxc_wine_share():
    """Every 100th fxc-wine shader (all of them with XLATE_CORPUS_FULL=1)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from corpus import corpus_available, fxc_wine_records

    if not corpus_available("fxc-wine"):
        return []
    shaders = [r for r in fxc_wine_records() if not r.is_effect]
    return shaders if os.environ.get("XLATE_CORPUS_FULL") == "1" else shaders[::100]


def test_fxc_wine_links_are_consistent():
    records = fxc_wine_share()
    if not records:
        pytest.skip("the peer corpus (../shared/peer-corpus/fxc-wine) is absent")
    linked = 0
    for n, rec in enumerate(records):
        target = GLSL[n % len(GLSL)]
        entry = report_entry(rec.id, rec.data, [target])
        if entry.outcome == {target: "refused"}:  # as translate() refuses it (a feature the dialect lacks)
            with pytest.raises(XlateError) as refused:
                translate(rec.data, target)
            assert entry.errors == [f"{target}: {refused.value}"]
            continue
        assert entry.outcome == {target: "converted"}, (rec.id, entry.errors)
        assert entry.code[target] == translate(rec.data, target).code, rec.id
        code = entry.code[target].split("\n")
        for at, first, last in entry.links[target]:
            assert entry.disassembly[at].startswith("  ") and not entry.disassembly[at].lstrip().startswith("//")
            assert 0 <= first <= last < len(code)
        covered = {n for _, a, b in entry.links[target] for n in range(a, b + 1)}
        assert not covered & {n for a, b in entry.synthetic[target] for n in range(a, b + 1)}, rec.id
        linked += len(entry.links[target])
        assert entry.cfg_svg.startswith("<svg") and entry.cfg_svg.count("<svg") == entry.cfg_svg.count("</svg>")
    assert linked >= len(records)


def test_spirv_is_shown_as_its_listing():
    entry = report_entry("s.bin", blob("ps_3_0/bloom_loops.asm"), ["glsl330", "spirv"])
    assert entry.outcome == {"glsl330": "converted", "spirv": "converted"}
    assert "OpEntryPoint Fragment" in entry.code["spirv"]
    assert entry.links["spirv"] == [] and entry.links["glsl330"]
    assert entry.reflection["spirv"]["target"] == "spirv"
    # the caller's own SPIR-V translation is shown as it is, not compiled again
    done = {"spirv": translate(blob("ps_2_0/blur5.asm"), "spirv"), "glsl330": translate(blob("ps_2_0/blur5.asm"), "glsl330")}
    reused = report_entry("s.bin", blob("ps_3_0/bloom_loops.asm"), ["glsl330", "spirv"], done=done)
    assert reused.code["glsl330"] == entry.code["glsl330"]  # text targets: translated again, with links
    assert "OpEntryPoint Fragment" in reused.code["spirv"] and reused.code["spirv"] != entry.code["spirv"]


# -- errors ---------------------------------------------------------------------------


def test_bad_input_is_recorded_not_raised():
    good = blob("ps_3_0/bloom_loops.asm")
    cut = report_entry("cut.bin", good[:-6], ["glsl330", "essl300"])
    assert cut.outcome == {"glsl330": "refused", "essl300": "refused"}
    assert len(cut.errors) == 1 and "byte offset" in cut.errors[0]
    assert cut.disassembly == [] and cut.code == {} and cut.cfg_svg == ""
    effect = report_entry("fx.bin", b"\x01\x09\xff\xfe" + b"\0" * 60, ["glsl330"], kind="effect-shader")
    assert effect.outcome == {"glsl330": "refused"} and effect.errors
    text = report_entry("x.asm", b"ps_3_0\nmov oC0, c99999\n", ["glsl330"], kind="asm")
    assert text.outcome == {"glsl330": "refused"} and text.errors[0].startswith("line 2, column")
    assembled = report_entry("y.asm", b"ps_2_0\nmov oC0, c0\n", ["glsl330"], kind="asm")
    assert assembled.outcome == {"glsl330": "converted"} and assembled.version == "ps_2_0"
    # text is assembled only for kind="asm": a text file given as a blob is refused
    assert report_entry("z.bin", b"ps_2_0\nmov oC0, c0\n", ["glsl330"]).outcome == {"glsl330": "refused"}


def test_a_target_that_refuses_is_recorded_per_target():
    # ps_3_0 texldd needs derivatives ES 1.00 cannot give without an extension: one target may
    # refuse while the others convert; whichever happens, each target has exactly one outcome
    data = blob("ps_3_0/texldd_ps30.asm")
    entry = report_entry("t.bin", data, ["glsl330", "essl100"])
    assert set(entry.outcome) == {"glsl330", "essl100"}
    assert entry.outcome["glsl330"] == "converted"
    refused = [t for t, o in entry.outcome.items() if o != "converted"]
    assert len(entry.errors) == len(refused)
    assert all(e.split(":")[0] in refused for e in entry.errors)


def test_callers_mistakes_raise():
    data = blob("ps_3_0/bloom_loops.asm")
    with pytest.raises(ValueError, match="unknown target"):
        report_entry("a", data, ["glsl999"])
    with pytest.raises(TypeError, match="unknown translation option"):
        report_entry("a", data, ["glsl330"], {"no_such_option": 1})
    with pytest.raises(ValueError, match="kind"):
        report_entry("a", data, ["glsl330"], kind="texture")


def test_diagnostics_are_listed_once():
    data = bytearray(ctab_shader("abc"))
    struct.pack_into("<I", data, 4 + 8 + 28, 10000)  # the constant's name offset, far outside the table
    entry = report_entry("bad-ctab.bin", bytes(data), ["glsl330", "essl100"])
    assert entry.outcome == {"glsl330": "converted", "essl100": "converted"}
    (warning,) = entry.diagnostics  # given by both targets, listed once, without target names
    assert warning.startswith("constant table ignored: byte offset 40")
    assert "    // comment: CTAB, 84 bytes" in entry.disassembly


def test_entries_pickle():
    entry = report_entry("corpus/ps_2_x/flow_subroutines.asm", blob("ps_2_x/flow_subroutines.asm"), ["glsl330"])
    assert pickle.loads(pickle.dumps(entry)) == entry


@pytest.mark.parametrize("name", HOSTILE_NAMES[:6])
def test_ctab_names_keep_the_listing_one_line_per_element(name):
    entry = report_entry("h.bin", ctab_shader(name), ["glsl330"])
    assert entry.outcome == {"glsl330": "converted"}
    # the listing shows the name as every listing does (xlate.bytecode.ctab.shown_name: control characters
    # as \xNN), so the name cannot break the one-line-per-element listing
    assert any(shown_name(name) in line for line in entry.disassembly)
    assert not any("\n" in line or "\x1b" in line for line in entry.disassembly)
    # the instruction links still point at the instruction, whatever the name holds
    (at, first, last), = entry.links["glsl330"]
    assert entry.disassembly[at].strip() == "mov oC0, c0"
    assert name not in entry.code["glsl330"]


# -- the control-flow graph -------------------------------------------------------


def test_cfg_svg_draws_every_function_and_block():
    entry = report_entry("f.bin", blob("ps_2_x/flow_subroutines.asm"), ["glsl330"])
    svgs = re.findall(r"<svg\b.*?</svg>", entry.cfg_svg, flags=re.S)
    assert len(svgs) == 4  # main and the subroutines l0, l1, l2
    ns = {"s": "http://www.w3.org/2000/svg"}
    main = ET.fromstring(svgs[0])  # well-formed XML
    assert main.find("s:text", ns).text == "main"
    blocks = main.findall("s:g[@class='cfg-block']", ns)
    names = [g.find("s:text", ns).text for g in blocks]
    assert names == sorted(set(names), key=names.index) and len(names) >= 10
    assert len(main.findall("s:path[@class='cfg-back']", ns)) == 1  # the rep loop's back edge
    assert len(main.findall("s:g[@class='cfg-end']", ns)) == 2  # entry and exit
    # each block names the listing lines of its instructions (an if or a loop spans several blocks)
    every = [int(n) for g in blocks for n in g.get("data-lines").split()]
    assert all(entry.disassembly[n].strip() and not entry.disassembly[n].strip().startswith("//") for n in every)
    texld = line_of(entry, "texld r0, t0, s0")
    first = next(g for g in blocks if str(texld) in g.get("data-lines").split())
    assert "texld r0, t0, s0" in [t.text for t in first.findall("s:text", ns)]
    # the layout keeps blocks apart: no two rectangles of a layer overlap
    rects = [tuple(float(g.find("s:rect", ns).get(k)) for k in ("x", "y", "width", "height")) for g in blocks]
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1]
