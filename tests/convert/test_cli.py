"""The command line: ``convert`` and the gaps fixed beside it (missing output
folders, ``--reflect -``, warnings naming their file, assembly text given to
``translate``, CLI spellings of the Python-only options)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from xlate import translate
from xlate.bytecode.asm import assemble_bytes
from xlate.cli import main
from xlate.options import Options

import corpus

VS_TEXT = "vs_2_0\ndcl_position v0\nmov oPos, v0\n"
PS11_TEXT = "ps_1_1\ntex t0\nmov r0, t0\n"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def vs_blob(tmp_path):
    path = tmp_path / "vs.bin"
    path.write_bytes(assemble_bytes(VS_TEXT))
    return path


def _one_line_error(result, *words):
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for w in words:
        assert w in lines[0]


@pytest.mark.parametrize("command", [
    ["translate", "{blob}", "-o", "{tmp}/missing/out.glsl"],
    ["translate", "{blob}", "-o", "{tmp}/code.glsl", "--reflect", "{tmp}/missing/r.json"],
    ["translate", "{blob}", "--reflect", "{tmp}/missing/r.json", "-o", "{tmp}/code.glsl"],
    ["disasm", "{blob}", "-o", "{tmp}/missing/out.asm"],
    ["asm", "{text}", "-o", "{tmp}/missing/out.bin"],
])
def test_a_missing_output_folder_is_one_line_and_nothing_is_written(command, vs_blob, tmp_path):
    text = tmp_path / "vs.asm"
    text.write_text(VS_TEXT)
    args = [c.format(blob=vs_blob, text=text, tmp=tmp_path) for c in command]
    result = run(*args)
    assert result.exit_code == 1
    _one_line_error(result, "missing", "does not exist")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vs.asm", "vs.bin"]


def test_reflect_dash_goes_to_standard_output(vs_blob, tmp_path):
    result = run("translate", vs_blob, "-o", tmp_path / "vs.glsl", "--reflect", "-")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == translate(vs_blob.read_bytes()).reflection
    assert "{" not in result.stderr
    both = run("translate", vs_blob, "--reflect", "-")
    assert both.exit_code == 2
    _one_line_error(both, "-o")


def test_warnings_name_their_file():
    path = corpus.require_corpus("fxc-wine") / "dxdecompiler" / "vs2__loop.main.vs_2_sw.bin"
    if not path.exists():
        pytest.skip(f"{path} is not in this corpus")
    result = run("translate", path)
    assert result.exit_code == 0
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warnings and all(line.startswith(f"xlate: {path}: warning: ") for line in warnings)


def test_assembly_text_is_assembled_with_a_note(tmp_path):
    text = tmp_path / "shader.vsh"
    text.write_text(VS_TEXT)
    result = run("translate", text)
    assert result.exit_code == 0
    assert result.stdout == translate(assemble_bytes(VS_TEXT)).code
    assert f"xlate: {text}: note: assembly text" in result.stderr


def test_cli_spellings_of_python_only_options(tmp_path):
    text = tmp_path / "ps.psh"
    text.write_text(PS11_TEXT)
    blob = assemble_bytes(PS11_TEXT)
    cube = run("translate", text, "--sampler-type", "0=cube")
    assert cube.exit_code == 0
    assert cube.stdout == translate(blob, sampler_types={"0": "cube"}).code
    assert "samplerCube" in cube.stdout and "samplerCube" not in translate(blob).code
    proj = run("translate", text, "--texture-projection", "0=4", "--sampler-type", "0=volume")
    assert proj.stdout == translate(blob, texture_projection={0: 4}, sampler_types={0: "volume"}).code
    assert proj.stdout != translate(blob, sampler_types={0: "volume"}).code
    for bad, words in ((["--sampler-type", "0=3d"], ["3d", "1d, 2d, cube or volume"]),
                       (["--texture-projection", "9=4"], ["stage 9"]),
                       (["--sampler-type", "cube"], ["STAGE=VALUE"])):
        result = run("translate", text, *bad)
        assert result.exit_code == 2
        assert all(w in result.stderr for w in words), result.stderr
        assert "Traceback" not in result.output


def test_python_api_takes_plain_values():
    from xlate.bytecode.tables import SamplerType

    o = Options.from_kwargs(sampler_types={"3": "cube", 1: "Volume"}, texture_projection={"0": "4"})
    assert o.sampler_types == ((1, SamplerType.VOLUME), (3, SamplerType.CUBE))
    assert o.texture_projection == ((0, 4),)
    assert Options.from_kwargs(sampler_types=[(2, SamplerType.TEX1D)]).sampler_types == ((2, SamplerType.TEX1D),)
    for bad, message in (({"sampler_types": {"x": "cube"}}, "not a stage number"),
                         ({"sampler_types": {3: "3d"}}, "not a sampler type"),
                         ({"sampler_types": {16: "cube"}}, "out of range"),
                         ({"sampler_types": "cube"}, "mapping"),
                         ({"sampler_types": {3: "cube", "3": "2d"}}, "given twice"),
                         ({"texture_projection": {0: 5}}, "2, 3 or 4")):
        with pytest.raises(ValueError, match=message):
            Options.from_kwargs(**bad)


def test_convert_command(tmp_path, vs_blob):
    src = tmp_path / "src"
    (src / "deep").mkdir(parents=True)
    (src / "deep" / "a.vso").write_bytes(vs_blob.read_bytes())
    (src / "b.txt").write_text(VS_TEXT)
    (src / "readme").write_text("hello\n")
    result = run("convert", src, "-o", tmp_path / "out", "-t", "glsl330", "-t", "spirv", "--no-cache")
    assert result.exit_code == 0, result.output
    assert "converted" in result.stdout and "xlate convert: 3/3 files" in result.stderr
    doc = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert [(e["path"], e["kind"]) for e in doc["entries"]] == [("b.txt", "asm"), ("deep/a.vso", "shader")]
    assert (tmp_path / "out" / "deep" / "a.vso.spirv.spv").read_bytes()[:4] == b"\x03\x02\x23\x07"
    assert (tmp_path / "out" / "b.txt.glsl330.vert").read_text() == translate(assemble_bytes(VS_TEXT)).code
    # A bad file: exit status 1, the others still written.
    (src / "c.bin").write_bytes(vs_blob.read_bytes()[:10])
    result = run("convert", src, "-o", tmp_path / "out2", "--no-cache", "-q")
    assert result.exit_code == 1 and result.stdout == ""
    assert (tmp_path / "out2" / "deep" / "a.vso.glsl330.vert").exists()
    missing = run("convert", tmp_path / "nowhere", "-o", tmp_path / "out3")
    assert missing.exit_code == 2
    _one_line_error(missing, "no such file")
    assert "Exit status" in run("convert", "--help").stdout


def test_report_hook_collects_entries_in_the_workers(tmp_path, vs_blob, monkeypatch):
    """--report's hook, against xlate.report's interface (report_entry in the
    worker, build_report at the end) with a double standing in for it."""
    import sys
    import types

    calls = []
    fake = types.ModuleType("xlate.report")
    fake.report_entry = lambda path, data, targets, options, kind="shader": calls.append(path) or {
        "path": path, "size": len(data), "targets": list(targets), "kind": kind}
    fake.build_report = lambda entries, summary: f"<html>{sorted(e['path'] for e in entries)} {summary['files']}</html>"
    monkeypatch.setitem(sys.modules, "xlate.report", fake)
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.bin").write_bytes(vs_blob.read_bytes())
    (src / "b.txt").write_text("plain text\n")
    result = run("convert", src, "-o", tmp_path / "out", "--report", tmp_path / "r.html", "--no-cache", "-j", "1", "-q")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "r.html").read_text() == "<html>['a.bin'] 2</html>"
    # Without --report nothing is collected.
    calls.clear()
    run("convert", src, "-o", tmp_path / "out2", "--no-cache", "-j", "1", "-q")
    assert calls == []


def test_progress_bar_and_lines():
    import io

    from xlate.convert.progress import Progress

    for mode in ("bar", "lines"):
        stream = io.StringIO()
        bar = Progress(10, mode, stream=stream, interval=0.0)
        bar.advance(4, 3, 1)
        bar.advance(6, 6, 0)
        bar.close()
        text = stream.getvalue()
        assert "10/10" in text and "9 shaders" in text and "1 errors" in text and "files/s" in text, (mode, text)


def test_report_with_the_report_package(tmp_path, vs_blob):
    """--report through the real xlate.report, where this checkout has it (its
    page is tested in a browser by its own tests)."""
    pytest.importorskip("xlate.report", reason="xlate.report is not in this checkout")
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.bin").write_bytes(vs_blob.read_bytes())
    (src / "b.vsh").write_text(VS_TEXT)
    (src / "c.bin").write_bytes(vs_blob.read_bytes()[:12])
    effect = corpus.require_corpus("fxc", "fna") / "BasicEffect.fxb"
    (src / "fx.fxb").symlink_to(effect)
    result = run("convert", src, "-o", tmp_path / "out", "--report", tmp_path / "r.html", "--no-cache", "-j", "1", "-q")
    assert result.exit_code == 1, result.output
    from xlate.report.page import unpack

    page = (tmp_path / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>")
    data = unpack(page)
    kinds = {e["p"]: e["k"] for e in data["entries"]}  # the page's short keys
    from xlate import translate_effect

    shaders = {f"fx.fxb#{s.name}": "effect-shader" for s in translate_effect(effect.read_bytes()).shaders}
    assert shaders and kinds == {"a.bin": "shader", "b.vsh": "asm", "c.bin": "shader", **shaders}
    assert data["summary"]["files"] == 4 and data["summary"]["targets"]["glsl330"]["failed"] == 1


def test_cli_spellings_of_the_spirv_and_location_options(vs_blob, tmp_path):
    """--varying-location, --spirv-version and --no-debug-names reach the
    same translation as the Python keywords; a bad spelling is one line."""
    blob = vs_blob.read_bytes()
    loc = run("translate", vs_blob, "-t", "vulkan", "--varying-location", "texcoord0=30")
    assert loc.exit_code == 0
    assert loc.stdout == translate(blob, "vulkan", varying_locations=(("texcoord", 0, 30),)).code
    assert "location = 30" in loc.stdout
    for flags, kwargs in (([], {}), (["--spirv-version", "1.3"], {"spirv_version": "1.3"}),
                          (["--no-debug-names"], {"debug_names": False})):
        out = tmp_path / "vs.spv"
        r = run("translate", vs_blob, "-t", "spirv", *flags, "-o", out)
        assert r.exit_code == 0, r.output
        assert out.read_bytes() == translate(blob, "spirv", **kwargs).code
    for bad, words in ((["--varying-location", "texcoord"], ["USAGE[INDEX]=LOCATION"]),
                       (["--varying-location", "bogus1=3"], ["varying_locations", "bogus"])):
        result = run("translate", vs_blob, "-t", "vulkan", *bad)
        assert result.exit_code == 2
        assert all(w in result.stderr for w in words), result.stderr
        assert "Traceback" not in result.output


def test_convert_wgsl_has_one_extension(tmp_path, vs_blob):
    """-t wgsl: a WGSL module is ``.wgsl`` whatever its stage (``a.vso.wgsl``,
    not ``.wgsl.vert``), beside ``a.vso.wgsl.json``; an effect's pass shaders
    are ``fx.fxb.<technique>.<pass>.<vs|ps><n>.wgsl``; the manifest lists them."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.vso").write_bytes(vs_blob.read_bytes())
    effect = corpus.corpus_root() / "fxc" / "fna" / "BasicEffect.fxb"
    if effect.exists():
        (src / "fx.fxb").symlink_to(effect)
    result = run("convert", src, "-o", tmp_path / "out", "-t", "wgsl", "--no-cache", "-j", "1", "-q")
    assert result.exit_code == 0, result.output
    out = tmp_path / "out"
    assert (out / "a.vso.wgsl").read_text() == translate(vs_blob.read_bytes(), "wgsl").code
    assert json.loads((out / "a.vso.wgsl.json").read_text())["target"] == "wgsl"
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert not [p for p in written if p.endswith((".vert", ".frag"))], written
    doc = json.loads((out / "manifest.json").read_text())
    listed = {f["path"] for e in doc["entries"] for o in e["outputs"].values() for f in o["files"]}
    assert {"a.vso.wgsl", "a.vso.wgsl.json"} <= listed
    assert listed <= set(written)
    if effect.exists():
        fx = [p for p in written if p.startswith("fx.fxb.") and p.endswith(".wgsl")]
        assert fx and all(p.rsplit(".", 2)[1].startswith(("vs", "ps")) for p in fx), fx
        assert set(fx) <= listed
        assert all(p + ".json" in written for p in fx)
        assert "fx.fxb.wgsl.json" in written
