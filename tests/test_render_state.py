"""One reflection entry for all draw-time state (``render_state``), the
position conventions in the draw-state model, and the CLI help that teaches
the draw-state keys."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from xlate import translate
from xlate.bytecode.asm import assemble_bytes
from xlate.drawstate import KEY_HELP, POSITION_KEYS, DrawState, DrawStateError
from xlate.options import Options

PS20 = assemble_bytes("ps_2_0\ndcl t0\ndcl_2d s0\ndcl_2d s1\ntexld r0, t0, s0\ntexld r1, t0, s1\n"
                      "add r0, r0, r1\nmov oC0, r0\n")
VS20 = assemble_bytes("vs_2_0\ndcl_position v0\ndcl_texcoord v1\nmov oPos, v0\nmov oT0, v1\n")
PS_STATE = {"fogenable": True, "fogtablemode": "exp", "alphatestenable": True, "alphafunc": "less",
            "srgbwriteenable": True, "srgbtexture": [1], "nulltexture": [0]}
VS_STATE = {"clipplaneenable": 0b10, "clipplanes": [[0] * 4, [1, 0, 0, 0.5]], "pointmode": True}


@pytest.mark.parametrize("target", ["glsl120", "glsl330", "vulkan", "spirv"])
def test_absent_when_nothing_is_depended_on(target):
    for blob in (PS20, VS20, assemble_bytes("ps_1_4\ntexld r0, t0\nmov r0, r0\n")):
        refl = translate(blob, target).reflection
        assert "render_state" not in refl and "stage_state" not in refl
        # a state the shader cannot depend on adds nothing either
        assert "render_state" not in translate(blob, target, draw_state={"fogvertexmode": "linear"}).reflection


def test_one_entry_lists_every_state():
    rs = translate(PS20, "glsl330", draw_state=PS_STATE).reflection["render_state"]
    assert rs["mode"] == "baked" and rs["fog"] and rs["alpha_test"] and rs["srgbwriteenable"]
    assert rs["srgbtexture"] == [1] and rs["nulltexture"] == [0] and rs["parameters"] == []
    # baked: exactly the values built in, as a draw_state that gives the same code again
    assert set(rs["baked"]) == {"fogenable", "fogtablemode", "fogstart", "fogend", "fogdensity", "fogcolor",
                                "alphatestenable", "alphafunc", "alpharef", "srgbwriteenable", "srgbtexture",
                                "nulltexture"}
    again = translate(PS20, "glsl330", draw_state=json.loads(json.dumps(rs["baked"])))
    assert again.code == translate(PS20, "glsl330", draw_state=PS_STATE).code
    vs = translate(VS20, "glsl330", draw_state=VS_STATE).reflection["render_state"]
    assert vs["clipplanes"] == [{"index": 1, "plane": [1.0, 0.0, 0.0, 0.5]}] and vs["pointsize"]["max"] == 64.0
    assert vs["baked"]["clipplaneenable"] == 2 and vs["baked"]["pointmode"] is True
    dyn = translate(VS20, "glsl330", draw_state=VS_STATE, draw_state_mode="dynamic").reflection["render_state"]
    assert dyn["baked"] == {"clipplaneenable": 2} and dyn["clipplanes"] == [{"index": 1, "plane": None}]


@pytest.mark.parametrize("target", ["glsl330", "vulkan"])
def test_dynamic_parameters_in_one_list(target):
    t = translate(PS20, target, draw_state=PS_STATE, draw_state_mode="dynamic")
    rs = t.reflection["render_state"]
    keys = [p["key"] for p in rs["parameters"]]
    assert {"fogenable", "alphafunc", "srgbwriteenable", "srgbtexture_s1", "nulltexture_s0"} <= set(keys)
    assert [p["id"] for p in rs["parameters"]] == sorted(p["id"] for p in rs["parameters"])
    assert "baked" not in rs  # nothing baked in both modes here
    for p in rs["parameters"]:
        assert {"key", "id", "state", "type", "encoding", "glsl", "form"} <= set(p)
        if target == "vulkan":
            assert p["constant_id"] == p["id"] and "default" in p
    depth = translate(PS20, target, draw_state={"depthtexture": [0]}, draw_state_mode="dynamic")
    assert depth.reflection["render_state"]["baked"] == {"depthtexture": [0]}  # baked in both modes


def test_position_conventions_in_the_draw_state():
    for key in POSITION_KEYS:
        assert key in {k for keys, _, _ in KEY_HELP for k in keys.split(", ")}
    o = Options(draw_state={"flip_y": "on", "half_pixel": False, "clip_z": "auto", "fogenable": True})
    assert (o.flip_y, o.half_pixel, o.clip_z, o.draw_state.fogenable) == (True, False, None, True)
    via_state = translate(VS20, "glsl330", draw_state={"flip_y": True, "half_pixel_exact": True})
    via_options = translate(VS20, "glsl330", flip_y=True, half_pixel_exact=True)
    assert via_state.code == via_options.code
    assert via_state.reflection["render_state"]["position"] == {"clip_z": True, "flip_y": True,
                                                                "half_pixel": True, "half_pixel_exact": True}
    assert via_state.reflection["options"]["flip_y"] is True
    # the target's own defaults are no dependency: Vulkan flips y by itself
    assert "render_state" not in translate(VS20, "vulkan", draw_state={"flip_y": True}).reflection
    # the same convention given twice, differently: an error naming it
    with pytest.raises(ValueError, match="flip_y"):
        translate(VS20, "glsl330", flip_y=False, draw_state={"flip_y": True})
    with pytest.raises(DrawStateError, match="half_pixel must be true or false"):
        Options(draw_state={"half_pixel": "auto"})
    with pytest.raises(DrawStateError, match="position convention"):
        DrawState.from_dict({"flip_y": True})


def test_cli_teaches_the_draw_state(tmp_path):
    from click.testing import CliRunner

    from xlate.cli import main

    help_text = CliRunner().invoke(main, ["translate", "--help"], terminal_width=200).output
    covered = {k for keys, _, _ in KEY_HELP for k in keys.split(", ")}
    assert {f.name for f in fields(DrawState)} | set(POSITION_KEYS) == covered
    for keys, values, _ in KEY_HELP:
        assert keys in help_text and values in help_text
    assert "Example: xlate translate ps.bin --draw-state fogenable=on" in help_text
    src = tmp_path / "v.asm"
    src.write_text("vs_2_0\ndcl_position v0\nmov oPos, v0\n")
    r = CliRunner().invoke(main, ["translate", str(src), "--draw-state", "flip_y=on", "--reflect", "-",
                                  "-o", str(tmp_path / "v.glsl")])
    assert r.exit_code == 0, r.output
    refl = json.loads(r.output[r.output.index("{"):])
    assert refl["render_state"]["position"]["flip_y"] is True and refl["options"]["flip_y"] is True
