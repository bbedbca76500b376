"""A bare shader blob with a preshader through ``xlate.translate``: the
diagnostic, the reflection's ``preshader`` entry, and a draw on llvmpipe with
the constants the CPU evaluator computes (docs/reflection.md, "Preshader")."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from corpus import fxc_wine_records, require_corpus
from test_preshader import preshader_records
from xlate import translate
from xlate.bytecode import decode
from xlate.preshader import RegisterFile, shader_preshader
from xlate.preshader.reflect import display_name


def _record(suffix: str):
    return next(r for r in fxc_wine_records() if r.id.endswith(suffix))


@pytest.mark.parametrize("target", ["glsl330", "vulkan"])
def test_every_corpus_preshader_is_reported(target, record_property):
    require_corpus("fxc-wine", "index.jsonl")
    count = 0
    for rec in preshader_records():
        pre = shader_preshader(decode(rec.data))
        t = translate(rec.data, target)
        entry = t.reflection["preshader"]
        assert entry["mode"] == "cpu" and entry["instructions"] == len(pre.instructions)
        filled = {(r["file"], r["register"]) for r in entry["registers"]}
        assert filled == {("float", i) for i in pre.output_registers[RegisterFile.OUTPUT]}
        assert {i["name"] for i in entry["inputs"]} == set(pre.input_names())
        # every filled register the shader reads has the GLSL name it is read through
        assert any(r["glsl"] for r in entry["registers"]), rec.id
        (note,) = [d for d in t.diagnostics if "preshader" in d]
        for r in entry["registers"]:
            assert f"c{r['register']}" in note
        count += 1
    record_property("corpus_summary", f"preshader reflection ({target}): {count} shaders report their preshader")
    assert count == 49


def test_shader_without_preshader_has_no_entry():
    blob = struct.pack("<5I", 0xFFFE0200, 0x02000001, 0xC00F0000, 0xA0E40000, 0xFFFF)
    t = translate(blob, "glsl330")
    assert "preshader" not in t.reflection
    assert not any("preshader" in d for d in t.diagnostics)


def test_undecodable_preshader_is_diagnosed_not_fatal():
    # vs_2_0 with a PRES comment holding a bad FX stream, then mov oPos, c0
    pres = struct.pack("<3I", 0x53455250, 0x46580201, 0x1234FFFE)  # "PRES", version, a block past the end
    blob = struct.pack("<2I", 0xFFFE0200, (len(pres) // 4) << 16 | 0xFFFE) + pres + struct.pack(
        "<4I", 0x02000001, 0xC00F0000, 0xA0E40000, 0xFFFF)
    t = translate(blob, "glsl330")
    assert t.reflection["preshader"]["error"].startswith("byte offset 16")
    assert any("cannot be decoded" in d for d in t.diagnostics)


def test_empty_pres_comment_is_no_preshader():
    """fxc writes a bare ``PRES`` FourCC for a preshader with nothing to
    compute: one rule (xlate.preshader.shader_preshader) calls it none, for
    the bare-shader API and the effect container alike."""
    from xlate.effect.model import shader_preshader as effect_shader_preshader

    pres = struct.pack("<I", 0x53455250)  # "PRES" and nothing else
    blob = struct.pack("<2I", 0xFFFE0200, (len(pres) // 4) << 16 | 0xFFFE) + pres + struct.pack(
        "<4I", 0x02000001, 0xC00F0000, 0xA0E40000, 0xFFFF)
    shader = decode(blob)
    assert shader_preshader(shader) is None and effect_shader_preshader(shader) is None
    t = translate(blob, "glsl330")
    assert "preshader" not in t.reflection
    assert not any("preshader" in d for d in t.diagnostics)
    from xlate.bytecode.disasm import disassemble

    assert "preshader" not in disassemble(shader)


def test_display_name_escapes():
    assert display_name("g_Light") == "g_Light"
    assert display_name("a\x1b[31mred") == "a\\x1b[31mred"
    assert display_name("x" * 100).endswith("...")


def test_cpu_mode_draws_what_the_evaluator_computes():
    """Internal__Effect_Expression2's vertex shader writes c0, c2, c4 to oPos,
    oD1, oT1; its preshader fills them from g1, g3, g5.  With the evaluator's
    constants uploaded through the reflection, llvmpipe outputs them, and the
    reference interpreter agrees."""
    require_corpus("fxc-wine", "index.jsonl")
    from xlate.verify import gl as glmod
    from xlate.verify.reference import ReferenceConstants

    try:
        gl = glmod.runner()
    except glmod.GLUnavailable as e:
        pytest.skip(str(e))
    rec = _record("Internal__Effect_Expression2.fxobj00.vs_2_0.bin")
    shader = decode(rec.data)
    pre = shader_preshader(shader)
    result = pre.evaluate({"g1": [0.25, -0.5, 0.125, 1], "g3": [1, 2, 3, 4], "g5": [-8, -9, 0.5, 0]})
    t = translate(rec.data, "glsl330")
    consts = ReferenceConstants(floats={k: v for k, v in result.floats.items()})
    out = gl.run_vertex(t, {("position", 0): np.zeros((1, 4), np.float32)}, consts)
    np.testing.assert_allclose(out.position[0], [5.25, 4.5, 5.125, 6], rtol=0, atol=0)
    np.testing.assert_array_equal(out.output(("color", 1))[0], np.clip([8, 9, 10, 11], 0, 1))
    np.testing.assert_array_equal(out.output(("texcoord", 1))[0], [1, 0, 9.5, 9])
    from xlate.verify.reference import run_shader

    ref = run_shader(shader, {}, consts, n=1)
    np.testing.assert_array_equal(ref.output("oPos")[0], out.position[0])
    np.testing.assert_array_equal(ref.output("oT1")[0], out.output(("texcoord", 1))[0])


def test_cli_inline_preshader_flag(tmp_path):
    """``xlate translate --inline-preshader`` reaches the option: the
    reflection says "inline", the code declares the inputs' uniforms, and the
    warning (naming the file) says the shader computes the registers itself."""
    require_corpus("fxc-wine", "index.jsonl")
    import json

    from click.testing import CliRunner

    from xlate.cli import main

    src = tmp_path / "expr2.vs"
    src.write_bytes(_record("Internal__Effect_Expression2.fxobj00.vs_2_0.bin").data)
    for flag, mode in ((["--inline-preshader"], "inline"), ([], "cpu")):
        out, refl = tmp_path / f"{mode}.glsl", tmp_path / f"{mode}.json"
        r = CliRunner().invoke(main, ["translate", str(src), "-t", "glsl330", *flag, "-o", str(out), "--reflect", str(refl)])
        assert r.exit_code == 0, r.output
        pre = json.loads(refl.read_text())["preshader"]
        assert pre["mode"] == mode
        assert str(src) in r.output and "preshader" in r.output
        code = out.read_text()
        assert ("vs_g1" in code) == (mode == "inline"), mode
