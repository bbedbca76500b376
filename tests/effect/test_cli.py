"""``xlate disasm`` / ``xlate info`` on effects, through the CLI."""

from __future__ import annotations

import json

from click.testing import CliRunner
from effect_corpus import all_effects

from xlate.cli import main


def _write(tmp_path, data: bytes):
    path = tmp_path / "effect.fxo"
    path.write_bytes(data)
    return str(path)


def test_disasm_and_info(tmp_path):
    data = dict(all_effects())["fna/SpriteEffect.fxb"]
    path = _write(tmp_path, data)
    r = CliRunner().invoke(main, ["disasm", path])
    assert r.exit_code == 0, r.output
    assert "//listing of all techniques and passes with embedded asm listings" in r.output
    assert "ps_2_0" in r.output
    r = CliRunner().invoke(main, ["info", "--json", path])
    assert r.exit_code == 0, r.output
    facts = json.loads(r.output)
    assert facts["format"] == "fx_2_0" and facts["techniques"] and facts["shader_count"] >= 1
    r = CliRunner().invoke(main, ["info", path])
    assert r.exit_code == 0 and "technique" in r.output


def test_bad_effect_is_one_line(tmp_path):
    data = dict(all_effects())["fna/SpriteEffect.fxb"]
    r = CliRunner().invoke(main, ["info", _write(tmp_path, data[:64])])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert "byte offset" in r.output


def test_hostile_names_are_escaped(tmp_path):
    data = bytearray(dict(all_effects())["dxdecompiler/Internal__Effect_StateBlock.effect.fx_2_0.bin"])
    at = data.find(b"Tech1")
    data[at:at + 5] = b"[b]\x1b\x07"
    path = _write(tmp_path, bytes(data))
    for args in (["info", path], ["info", "--json", path], ["disasm", path]):
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 0, r.output
        assert "\x1b" not in r.output and "\x07" not in r.output
    r = CliRunner().invoke(main, ["info", path])
    assert "[b]" in r.output  # printed literally, not taken as rich markup


def test_translate_effect_to_a_folder(tmp_path):
    data = dict(all_effects())["fna/SpriteEffect.fxb"]
    path = _write(tmp_path, data)
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["translate", path, "-t", "glsl330", "-o", str(out)])
    assert r.exit_code == 0, r.output
    refl = json.loads((out / "effect.json").read_text())
    for name, info in refl["shaders"].items():
        ext = {"vertex": "vert", "fragment": "frag"}[info["stage"]]
        assert (out / f"{name}.{ext}").read_text().startswith("#version 330")
        assert json.loads((out / f"{name}.json").read_text())["stage"] == info["stage"]
    r = CliRunner().invoke(main, ["translate", path, "-t", "spirv", "-o", str(tmp_path / "spv")])
    assert r.exit_code == 0 and list((tmp_path / "spv").glob("*.spv"))
    r = CliRunner().invoke(main, ["translate", path])
    assert r.exit_code == 1 and "give -o FOLDER" in r.output
