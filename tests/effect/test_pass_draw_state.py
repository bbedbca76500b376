"""A pass's own render and sampler states become the draw state of its
shaders (xlate/effect/drawstate.py, ``translate_effect(pass_states=True)``):
fxc-compiled effects of the peer corpus that set ALPHATESTENABLE /
ALPHAFUNC / ALPHAREF and the fog states, and Wine's d3dx9 test effects
whose FogDensity comes from a parameter and that set states xlate does not
apply (named in a diagnostic)."""

from __future__ import annotations

import pytest
from effect_corpus import corpus_root, require_corpus, wine_effects

from xlate import translate, translate_effect
from xlate.drawstate import CmpFunc, DrawState
from xlate.effect import parse_effect
from xlate.effect.drawstate import pass_draw_state
from xlate.effect.states import StateClass

ALPHA_FX = "dxdecompiler/StateManager__AlphaTest.effect.fx_2_0.bin"
PIX_FX = "legacy-samples/PIXGameDebugging__PIXGameDebugging.effect.fx_2_0.bin"


def _fxc(path: str) -> bytes:
    require_corpus("fxc-wine", "index.jsonl")
    return (corpus_root() / "fxc-wine" / path).read_bytes()


def _pass_shader(data: bytes, cls: StateClass) -> bytes:
    effect = parse_effect(data)
    return effect.shader_blob(effect.techniques[0].passes[0].shader_state(cls))


def test_alpha_test_states_of_a_pass():
    data = _fxc(ALPHA_FX)
    pds = pass_draw_state(data)
    assert pds.values == {"alphatestenable": True, "alpharef": 156, "alphafunc": int(CmpFunc.GREATER)}
    assert pds.notes == ()  # ZENABLE, ZWRITEENABLE, CULLMODE, ALPHABLENDENABLE: the layer's pipeline state
    assert pds.pixel.alphatestenable and pds.pixel.alphafunc is CmpFunc.GREATER and pds.pixel.alpharef == 156
    # over a base state: the pass sets the alpha test, the base's fog stays
    base = DrawState(fogenable=True, alpharef=3)
    assert pass_draw_state(data, base=base).pixel == base.with_(alphatestenable=True, alphafunc="greater",
                                                               alpharef=156)


def test_translate_effect_bakes_the_pass_state():
    data = _fxc(ALPHA_FX)
    fx = translate_effect(data, "glsl330")
    ps = next(s.translation for s in fx.shaders if s.stage == "fragment")
    rs = ps.reflection["render_state"]
    assert rs["alpha_test"] and rs["baked"]["alphafunc"] == "greater" and rs["baked"]["alpharef"] == 156
    assert "discard" in ps.code
    # the same code as translating the shader with the pass's state
    blob = _pass_shader(data, StateClass.PIXEL_SHADER)
    assert ps.code == translate(blob, "glsl330", draw_state=pass_draw_state(data).pixel).code
    p0 = fx.reflection["techniques"][0]["passes"][0]
    assert p0["render_state"]["values"] == {"alphatestenable": True, "alpharef": 156, "alphafunc": 5}
    assert not [d for d in fx.diagnostics if "p0:" in d]  # (the VS's preshader note is another matter)
    # without pass states: the shader as it is
    plain = translate_effect(data, "glsl330", pass_states=False)
    ps_plain = next(s.translation for s in plain.shaders if s.stage == "fragment")
    assert "render_state" not in ps_plain.reflection and "discard" not in ps_plain.code
    assert "render_state" not in plain.reflection["techniques"][0]["passes"][0]


def test_dynamic_mode_takes_the_pass_values_as_defaults():
    fx = translate_effect(_fxc(ALPHA_FX), "vulkan", draw_state_mode="dynamic")
    ps = next(s.translation for s in fx.shaders if s.stage == "fragment")
    assert "layout(constant_id = 9) const int xl_rs_alphafunc = 5;" in ps.code
    assert "layout(constant_id = 10) const int xl_rs_alpharef = 156;" in ps.code
    assert {p["key"]: p["default"] for p in ps.reflection["render_state"]["parameters"]}["alphatestenable"] is True


def test_the_pass_state_executes_as_d3d9_does():
    """The pass's PS drawn on llvmpipe with the pass's draw state against the
    reference applying the same state: pixels with alpha <= 156/255 are
    discarded, the others agree."""
    from xlate.verify import differential as D

    why = D.gl_available()
    if why:
        pytest.skip(why)
    data = _fxc(ALPHA_FX)
    state = pass_draw_state(data).pixel
    v = D.check_shader(_pass_shader(data, StateClass.PIXEL_SHADER), seeds=2, options={"draw_state": state})
    assert v.ok and v.killed > 0 and v.compared > 0, v.report()


def test_fog_states_without_fogenable_keep_the_base():
    """PIXGameDebugging's Caustic pass sets FOGCOLOR / FOGTABLEMODE /
    FOGVERTEXMODE / RANGEFOGENABLE but not FOGENABLE: the device's (base)
    FOGENABLE decides, and with it on the shaders fog with the pass's colour."""
    data = _fxc(PIX_FX)
    effect = parse_effect(data)
    tech = next(t for t in effect.techniques if t.name == "Caustic")
    pds = pass_draw_state(effect, tech, 0)
    assert pds.values["fogcolor"] == "0x00006688" and "fogenable" not in pds.values
    assert not pds.pixel.fogenable
    fogged = pass_draw_state(effect, tech, 0, base=DrawState(fogenable=True)).pixel
    assert fogged.fogenable and fogged.fogcolor[:3] == (0.0, 0x66 / 255, 0x88 / 255)
    shaft = pass_draw_state(effect, "LightShaft", 0, base=DrawState(fogenable=True))
    assert not shaft.pixel.fogenable  # the pass turns it off


def test_parameter_states_and_states_not_applied_are_diagnosed():
    """Wine's test_effect_shared_parameters_blob: FogDensity = arr2[0] (a
    parameter: baked with its value, said so), PointScale_A (fixed-function
    point scaling: not applied, said so)."""
    data = wine_effects()["test_effect_shared_parameters_blob"]
    pds = pass_draw_state(data)
    assert pds.values["fogenable"] is True and pds.sources == {"fogdensity": ["arr2"]}
    assert any("D3DRS_POINTSCALE_A" in n for n in pds.notes)
    fx = translate_effect(data, "glsl330")
    text = "\n".join(fx.diagnostics)
    assert "D3DRS_POINTSCALE_A" in text and "fogdensity <- arr2" in text
    p0 = fx.reflection["techniques"][0]["passes"][0]
    assert p0["render_state"]["sources"] == {"fogdensity": ["arr2"]} and p0["render_state"]["notes"]
    # a parameter value given to pass_draw_state is what the state takes
    assert pass_draw_state(data, parameters={"arr2": [0.25]}).pixel.fogdensity == 0.25


def test_fixed_function_states_are_named():
    data = wine_effects()["test_two_techniques_blob"]
    notes = pass_draw_state(data, 1).notes
    assert notes and "LightEnable[0]" in notes[0]
    assert pass_draw_state(data, 1).pixel.fogenable and not pass_draw_state(data, 0).pixel.fogenable
