"""Draw-time render state (xlate/drawstate.py, passes/drawstate.py): the
model and its spellings (dict, CLI, JSON), what each form of translation
declares and reflects, and execution against the reference interpreter
(which applies the same DrawState on its own, verify/reference_drawstate.py)
for every fog mode and compare function, baked and as uniforms, plus a
share of random programs with random states.  The Wine fog and alpha-test
cases (tests/verify/test_wine_visual*.py) are the proof against Windows."""

from __future__ import annotations

import json
import re
import random
import struct

import pytest

from xlate import translate
from xlate.bytecode.asm import assemble_bytes
from xlate.drawstate import (PARAMS_BY_KEY, STATE_PARAMS, CmpFunc, DrawState, DrawStateError, DrawStateMode,
                             FogMode, parse_assignments, render_state_number)
from xlate.options import Options

PS20 = assemble_bytes("ps_2_0\ndcl v0\nmov oC0, v0\n")
PS11 = assemble_bytes("ps_1_1\nmov r0, v0\n")
PS30 = assemble_bytes("ps_3_0\ndcl_color0 v0\nmov oC0, v0\n")
VS11 = assemble_bytes("vs_1_1\ndcl_position v0\nmov oPos, v0\n")
FOG = {"fogenable": True, "fogtablemode": "linear", "fogstart": 0.1, "fogend": 0.9, "fogcolor": 0xFF00FF00}
ALPHA = {"alphatestenable": True, "alphafunc": "greater", "alpharef": 0x80}


# --------------------------------------------------------------------------- the model


def test_enums_have_d3d_numbers():
    assert [(m.name, m.value) for m in FogMode] == [("NONE", 0), ("EXP", 1), ("EXP2", 2), ("LINEAR", 3)]
    assert CmpFunc.NEVER == 1 and CmpFunc.ALWAYS == 8 and CmpFunc.GREATEREQUAL == 7
    assert render_state_number("fogenable") == 28 and render_state_number("alpharef") == 24


def test_from_dict_spellings():
    a = DrawState.from_dict({"D3DRS_FOGENABLE": 1, "FogColor": "0xff00ff00", "fogtablemode": "D3DFOG_EXP2",
                             "alphafunc": 5, "alpharef": "0xff70", "fogstart": "0.25"})
    assert a.fogenable is True and a.fogcolor == (0.0, 1.0, 0.0, 1.0) and a.fogtablemode is FogMode.EXP2
    assert a.alphafunc is CmpFunc.GREATER
    assert a.alpharef == 0x70  # D3D9 compares the low 8 bits only
    assert a.fogstart == 0.25
    assert DrawState.from_dict({"fogcolor": [0, 1, 0]}).fogcolor == (0.0, 1.0, 0.0, 1.0)
    assert DrawState.from_dict(None) == DrawState() and DrawState.from_dict(a) is a
    assert hash(DrawState(fogenable="true")) == hash(DrawState(fogenable=True))


@pytest.mark.parametrize("bad, named", [
    ({"fogenabl": True}, "fogenabl"),
    ({"fogenable": "maybe"}, "fogenable"),
    ({"alphafunc": "sometimes"}, "alphafunc"),
    ({"fogstart": float("nan")}, "fogstart"),
    ({"fogcolor": [1, 2]}, "fogcolor"),
    ({"alpharef": -1}, "alpharef"),
    ({"fogtablemode": 7}, "fogtablemode"),
    ({"fogenable": True, "D3DRS_FOGENABLE": False}, "twice"),
])
def test_bad_values_name_the_key(bad, named):
    with pytest.raises(DrawStateError, match=named):
        DrawState.from_dict(bad)
    with pytest.raises(ValueError, match=named):  # through translate's options
        translate(PS20, "glsl330", draw_state=bad)


def test_options_take_dicts_and_modes():
    o = Options.from_kwargs(draw_state=FOG, draw_state_mode="dynamic")
    assert o.draw_state.fogenable and o.draw_state_mode is DrawStateMode.DYNAMIC
    with pytest.raises(ValueError, match="draw_state_mode"):
        Options(draw_state_mode="sometimes")


def test_state_parameter_table():
    ids = [p.spec_id for p in STATE_PARAMS]
    assert ids == sorted(set(ids))
    assert all(p.spec_id < 16 for p in STATE_PARAMS if p.key.startswith(("fog", "alpha")))  # 16 on: samplers_state
    assert {p.key for p in STATE_PARAMS} == set(PARAMS_BY_KEY)
    for p in STATE_PARAMS:  # each names a real state and has a value under any DrawState
        if p.state.startswith("D3DRS_"):
            assert render_state_number(p.state.removeprefix("D3DRS_")) is not None
        else:  # sampler states, bound textures, clip planes, b#/i# (spec ids 32 on)
            assert p.state.startswith(("D3DSAMP_", "SetTexture", "SetClipPlane", "SetShaderConstant")) and p.spec_id >= 32
        DrawState().param_value(p.key)


def test_parse_assignments_and_json(tmp_path):
    assert parse_assignments(["fogenable=true", "fogcolor=0,1,0,1"]) == {"fogenable": "true",
                                                                      "fogcolor": ["0", "1", "0", "1"]}
    with pytest.raises(DrawStateError, match="key=value"):
        parse_assignments(["fogenable"])
    from xlate.drawstate import load_json

    f = tmp_path / "s.json"
    f.write_text(json.dumps(FOG))
    assert DrawState.from_dict(load_json(f)).fogtablemode is FogMode.LINEAR
    f.write_text("[1, 2]")
    with pytest.raises(DrawStateError, match="one JSON object"):
        load_json(f)


# --------------------------------------------------------------------------- translation


def test_nothing_added_by_default():
    for blob in (PS20, PS11, VS11):
        t = translate(blob, "glsl330")
        assert "render_state" not in t.reflection
        assert translate(blob, "glsl330", draw_state={}).code == t.code


def test_baked_fog_and_alpha_test_are_constants():
    t = translate(PS20, "glsl330", draw_state={**FOG, **ALPHA})
    rs = t.reflection["render_state"]
    assert rs["mode"] == "baked" and rs["fog"] and rs["alpha_test"] and rs["parameters"] == []
    assert rs["baked"]["fogtablemode"] == "linear" and rs["baked"]["alpharef"] == 128
    assert "uniform" not in t.code and "discard" in t.code and "gl_FragCoord" in t.code
    assert re.search(r"\.z / \w+\.w", t.code)  # the clip-space z: depth / gl_FragCoord.w


def test_dynamic_uniforms_on_gl():
    t = translate(PS20, "glsl330", draw_state_mode="dynamic")
    params = t.reflection["render_state"]["parameters"]
    assert [p["key"] for p in params if p["id"] < 16] == [p.key for p in STATE_PARAMS if p.spec_id < 16]
    assert [p["id"] for p in params] == sorted(p["id"] for p in params)  # one list, in id order
    assert all(p["form"] == "uniform" and f"uniform {p['type']} {p['glsl']};" in t.code for p in params)
    assert {p["state"] for p in params} >= {"D3DRS_FOGENABLE", "D3DRS_ALPHAREF", "D3DRS_FOGCOLOR"}


def test_dynamic_specialization_constants_in_vulkan_glsl():
    t = translate(PS20, "vulkan", draw_state={**FOG, **ALPHA}, draw_state_mode="dynamic")
    for p in t.reflection["render_state"]["parameters"]:
        assert p["form"] == "specialization_constant"
        line = f"layout(constant_id = {p['constant_id']}) const {p['type']} {p['glsl']} ="
        assert line in t.code
    assert "layout(constant_id = 9) const int xl_rs_alphafunc = 5;" in t.code  # the default: the given state


def _spec_ids(module: bytes) -> dict[int, int]:
    """SPIR-V: result id -> SpecId, and the OpSpecConstant* opcodes present."""
    words = struct.unpack(f"<{len(module) // 4}I", module)
    i, ids, spec = 5, {}, set()
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xFFFF
        if opcode == 71 and words[i + 2] == 1:  # OpDecorate %x SpecId n
            ids[words[i + 1]] = words[i + 3]
        if opcode in (48, 49, 50):  # OpSpecConstantTrue / False / OpSpecConstant
            spec.add(words[i + 2])
        i += count
    assert set(ids) == spec
    return ids


def test_native_spirv_spec_constants():
    from xlate.backends.spirv.glslang import check

    t = translate(PS20, "spirv", draw_state={**FOG, **ALPHA}, draw_state_mode="dynamic")
    check(t.code)
    ids = _spec_ids(t.code)
    listed = t.reflection["render_state"]["parameters"]  # fog, alpha test and sRGB write
    assert sorted(ids.values()) == sorted(p["constant_id"] for p in listed)
    baked = translate(PS20, "spirv", draw_state={**FOG, **ALPHA})
    check(baked.code)
    assert _spec_ids(baked.code) == {}


def test_only_what_the_shader_can_depend_on_is_listed():
    # a vertex shader: no fog or alpha parameters (it only passes oFog on)
    vs = translate(VS11, "glsl330", draw_state_mode="dynamic")
    assert not any(p["id"] < 16 for p in vs.reflection["render_state"]["parameters"])  # (point size)
    assert any(o["usage"] == "fog" for o in vs.reflection["outputs"])  # oFog = 0: the PS links
    # ps_3_0: D3D9 leaves fog to the shader; the alpha test remains
    keys = [p["key"] for p in translate(PS30, "glsl330", draw_state_mode="dynamic").reflection["render_state"]
            ["parameters"] if p["id"] < 16]
    assert keys == ["alphatestenable", "alphafunc", "alpharef"]
    assert "render_state" not in translate(PS30, "glsl330", draw_state=FOG).reflection
    # baked, fog off: nothing
    assert "render_state" not in translate(PS20, "glsl330", draw_state={"fogenable": False}).reflection
    # vertex fog (table NONE) reads the fog varying, table fog the depth only
    assert any(i["usage"] == "fog" for i in translate(PS20, "glsl330", draw_state={"fogenable": True})
               .reflection["inputs"])
    assert not any(i["usage"] == "fog" for i in translate(PS20, "glsl330", draw_state=FOG).reflection["inputs"])


def test_diagnostics_say_what_is_not_added():
    assert any("ps_3_0" in d for d in translate(PS30, "glsl330", draw_state=FOG).diagnostics)
    assert any("FOGVERTEXMODE" in d for d in
               translate(VS11, "glsl330", draw_state={**FOG, "fogvertexmode": "linear"}).diagnostics)
    depth_only = assemble_bytes("ps_2_0\ndef c0, 0.5, 0, 0, 0\nmov oDepth, c0.x\n")
    t = translate(depth_only, "glsl330", draw_state=ALPHA)
    assert any("no oC0" in d for d in t.diagnostics) and "render_state" not in t.reflection
    assert translate(PS20, "glsl330", draw_state=FOG).diagnostics == []


def test_every_dialect_compiles():
    from xlate.backends.check import validate_glsl
    from xlate.backends.spirv import compile_glsl

    items = []
    for target in ("glsl120", "glsl330", "glsl450", "essl100", "essl300", "vulkan"):
        for blob in (PS20, PS11, PS30, VS11):
            for mode in ("baked", "dynamic"):
                for state in ({**FOG, **ALPHA}, {"fogenable": True, "alphatestenable": True, "alphafunc": "never"}):
                    t = translate(blob, target, draw_state=state, draw_state_mode=mode)
                    stage = "vertex" if blob is VS11 else "fragment"
                    if target == "vulkan":
                        if mode == "dynamic" and "never" not in str(state):  # (one glslang run each: the
                            compile_glsl(t.code, stage)                        # constant_id forms)
                    else:
                        items.append((t.code, stage))
    errors = [e for e in validate_glsl(items) if e]
    assert not errors, errors[:3]


def test_cli_draw_state(tmp_path):
    from click.testing import CliRunner

    from xlate.cli import main

    src = tmp_path / "p.asm"
    src.write_text("ps_2_0\ndcl v0\nmov oC0, v0\n")
    (tmp_path / "s.json").write_text(json.dumps(FOG))
    r = CliRunner().invoke(main, ["translate", str(src), "-t", "vulkan", "--draw-state", str(tmp_path / "s.json"),
                                  "--draw-state", "alphatestenable=true", "--draw-state-mode", "dynamic"])
    assert r.exit_code == 0, r.output
    assert "layout(constant_id = 8) const bool xl_rs_alphatestenable = true;" in r.output
    r = CliRunner().invoke(main, ["translate", str(src), "--draw-state", "fogenabl=1"])
    assert r.exit_code != 0 and "fogenabl" in r.output


# --------------------------------------------------------------------------- execution


@pytest.fixture(scope="module")
def gl():
    from xlate.verify import differential as D

    why = D.gl_available()
    if why:
        pytest.skip(why)


def _check(program, seed, state, mode):
    from xlate.verify import differential as D

    v = D.check_generated(program, seed, draw_state=state, draw_state_mode=mode, name=f"seed {seed} {mode}")
    assert v.ok, v.report() + "\n" + program.asm
    return v


@pytest.mark.parametrize("mode", ["baked", "dynamic"])
def test_each_fog_mode_against_the_reference(gl, mode):
    from xlate.verify.generate import generate_seed

    compared = 0
    for k, fog in enumerate(FogMode):
        for version in ("ps_2_0", "ps_2_x"):
            state = DrawState(fogenable=True, fogtablemode=fog, fogstart=0.2, fogend=0.7, fogdensity=2.0,
                              fogcolor=(0.25, 0.5, 0.75, 1.0))
            compared += _check(generate_seed(100 + k, version), 100 + k, state, mode).compared
    assert compared > 0


@pytest.mark.parametrize("mode", ["baked", "dynamic"])
def test_each_alpha_func_against_the_reference(gl, mode):
    from xlate.verify.generate import generate_seed

    killed = 0
    for k, func in enumerate(CmpFunc):
        state = DrawState(alphatestenable=True, alphafunc=func, alpharef=96)
        killed += _check(generate_seed(200 + k, ("ps_2_0", "ps_3_0")[k % 2]), 200 + k, state, mode).killed
    assert killed > 0  # some pixels were discarded, and the translation agreed


# A share of the random differential programs with random fog / alpha states
# (the full campaign: scripts/difftest; XLATE_CORPUS_FULL=1 runs 4x as many).
RANDOM_SHARE = 20


@pytest.mark.parametrize("version", ["ps_2_0", "ps_2_x", "ps_3_0"])
def test_random_programs_with_random_states(gl, version):
    import os

    from xlate.verify.generate import generate_seed
    from xlate.verify.reference_drawstate import random_draw_state

    count = RANDOM_SHARE * (4 if os.environ.get("XLATE_CORPUS_FULL") == "1" else 1)
    for k in range(count):
        seed = 5000 + k
        state = random_draw_state(random.Random(seed))
        _check(generate_seed(seed, version), seed, state, ("baked", "dynamic")[k % 2])


def test_check_shader_and_cli_verify_with_a_state(gl, tmp_path):
    """check_shader(options=...) and `xlate verify --draw-state` draw a pixel
    shader with the state and apply it in the reference too."""
    from click.testing import CliRunner

    from xlate.cli import main
    from xlate.verify import differential as D

    ps = assemble_bytes("ps_2_0\ndcl v0\ndcl t0\nadd r0, v0, t0\nmov oC0, r0\n")
    state = {"fogenable": True, "fogtablemode": "exp", "fogdensity": 2.0, "alphatestenable": True,
             "alphafunc": "lessequal", "alpharef": 180}
    v = D.check_shader(ps, seeds=2, options={"draw_state": state})
    assert v.ok and v.killed > 0, v.report()
    assert D.check_shader(ps, options={"draw_state": state, "draw_state_mode": "dynamic"}).ok
    src = tmp_path / "p.asm"
    src.write_text("ps_2_0\ndcl v0\nmov oC0, v0\n")
    r = CliRunner().invoke(main, ["verify", str(src), "--draw-state", "fogenable=true",
                                  "--draw-state", "fogcolor=0xff336699", "--draw-state-mode", "dynamic"])
    assert r.exit_code == 0 and "PASS" in r.output, r.output


@pytest.mark.parametrize("mode", ["baked", "dynamic"])
def test_table_fog_depth_is_clip_z(gl, mode):
    """Table fog reads the position's z before the perspective divide (as
    wined3d and DXVK do with vertex shaders): with w = 2 and z = 0.8 the
    depth buffer holds 0.4 and the fog depth is 0.8."""
    import numpy as np

    from xlate.verify.gl import Draw, runner
    from xlate.verify.reference_drawstate import fog_blend, fog_factor

    state = DrawState(fogenable=True, fogtablemode="linear", fogstart=0.5, fogend=1.0, fogcolor=(0.0, 1.0, 0.0, 1.0))
    ps = translate(PS20, "glsl330", draw_state=state, draw_state_mode=mode)
    w = 2.0
    quad = np.array([[-w, -w, 0.8, w], [w, -w, 0.8, w], [-w, w, 0.8, w], [w, w, 0.8, w]], np.float32)
    colour = np.tile(np.array([[1.0, 0.0, 0.0, 1.0]], np.float32), (4, 1))
    res = runner().draw(None, ps, Draw(vertices={("position", 0): quad, ("color", 0): colour},
                                       primitive="triangle_strip", size=(8, 8), state_values=state))
    got = res.colors[0][4, 4]
    res.targets.release()
    want = fog_blend(state, colour[:1], fog_factor(state, None, np.array([0.8])))[0]
    assert np.allclose(got, want, atol=1e-5), (got, want)  # f = (1 - 0.8) / 0.5 = 0.4
    assert abs(want[0] - 0.4) < 1e-6
