"""``translate_effect`` over every effect of the peer corpus: every shader
translates, glslang accepts it, and every pass's VS/PS pair has matching
varyings and links on llvmpipe.  CI runs glsl330 (plus glslang for
essl300); XLATE_CORPUS_FULL=1 runs every GL target."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from effect_corpus import all_effects

import xlate
from xlate.effect import is_effect

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backends"))

FULL = os.environ.get("XLATE_CORPUS_FULL") == "1"
GL_TARGETS = ("glsl120", "glsl330", "glsl450", "essl100", "essl300")
CI_TARGETS = ("glsl330", "essl300")
# What a target may refuse (as tests/test_translate_corpus.py): the reason must contain this.
ACCEPTED_UNSUPPORTED = {"essl100": "GLSL ES 1.00"}


def _translations(target: str):
    out = []
    for eid, data in all_effects():
        out.append((eid, xlate.translate_effect(data, target)))
    return out


@pytest.mark.parametrize("target", GL_TARGETS if FULL else CI_TARGETS)
def test_every_effect_shader_translates_and_is_valid(target, record_property):
    from xlate.backends.check import validate_glsl

    items, names, problems = [], [], []
    effects = _translations(target)
    for eid, fx in effects:
        json.dumps(fx.reflection)  # JSON-serialisable
        assert fx.target == target
        for d in fx.diagnostics:
            if "could not be translated" in d and ACCEPTED_UNSUPPORTED.get(target, "\0") in d:
                continue
            if "could not be translated" in d or "do not link" in d:
                problems.append(f"{eid}: {d}")
        assert len({s.name for s in fx.shaders}) == len(fx.shaders)
        for s in fx.shaders:
            assert s.stage in ("vertex", "fragment") and "/" not in s.name
            items.append((s.translation.code, s.stage))
            names.append(f"{eid}:{s.name}")
    verdicts = validate_glsl(items)
    bad = [f"{n}: {v[:300]}" for n, v in zip(names, verdicts) if v]
    record_property("corpus_summary", f"effects {target}: {len(items)} shaders of {len(effects)} effects translated, "
                    f"{len(items) - len(bad)} glslang-valid")
    assert len(items) > 400
    assert not problems, "\n".join(problems[:20])
    assert not bad, "\n".join(bad[:20])


@pytest.mark.parametrize("target", GL_TARGETS if FULL else ("glsl330",))
def test_every_pass_links_on_llvmpipe(target, record_property):
    from glharness import gl_context

    ctx, why = gl_context()
    if ctx is None:
        pytest.skip(why)
    linked, no_ext, bad = 0, 0, []
    for eid, fx in _translations(target):
        by_name = {s.name: s.translation for s in fx.shaders}
        for tech in fx.reflection["techniques"]:
            for p in tech["passes"]:
                for vs in p["vertex_shader"]:
                    for ps in p["pixel_shader"]:
                        try:
                            ctx.program(vertex_shader=by_name[vs].code, fragment_shader=by_name[ps].code).release()
                            linked += 1
                        except Exception as exc:  # noqa: BLE001
                            # An optional extension the shader declares that this
                            # driver lacks in this context is the layer's concern
                            # (as in tests/test_translate_corpus.py).
                            msg = str(exc)
                            extensions = by_name[vs].reflection["extensions"] + by_name[ps].reflection["extensions"]
                            if any(f"extension `{e}' unsupported" in msg for e in extensions):
                                no_ext += 1
                            else:
                                bad.append(f"{eid} {vs} + {ps}: {msg[:300]}")
    record_property("corpus_summary", f"effects {target}: {linked} VS+PS pass pairs linked on llvmpipe; "
                    f"{no_ext} not linkable here (an optional extension llvmpipe lacks)")
    assert linked > 250
    assert not bad, "\n".join(bad[:20])


def test_reflection_maps_parameters_states_and_preshaders():
    effects = dict(all_effects())
    fx = xlate.translate_effect(effects["dxdecompiler/Internal__Effect_Expression2.effect.fx_2_0.bin"], "glsl330")
    refl = fx.reflection
    (shader,) = fx.shaders
    assert shader.name == "Tech0.P0.vs" and shader.stage == "vertex"
    pre = refl["preshaders"]["Tech0.P0.vs"]
    assert pre["mode"] == "cpu" and pre["listing"][0] == "preshader"
    assert [(r["file"], r["register"], r["glsl"]) for r in pre["registers"]] == [
        ("float", 0, "vs_c0"), ("float", 2, "vs_c2"), ("float", 4, "vs_c4")]
    assert [i["name"] for i in pre["inputs"]] == ["g1", "g3", "g5"]
    assert [d for d in fx.diagnostics if "preshader" in d and "c0, c2, c4" in d and "g1, g3, g5" in d]
    params = {p["name"]: p for p in refl["parameters"]}
    assert params["g3"]["preshader_inputs"] == {"Tech0.P0.vs": {"register": 1, "count": 1}}
    assert refl["techniques"][0]["parameters_used"] == ["g1", "g3", "g5"]
    # a sampler's states and a render state, decoded
    fx = xlate.translate_effect(effects["fna/SpriteEffect.fxb"], "glsl330")
    assert fx.reflection["samplers"]
    states = [s for t in fx.reflection["techniques"] for p in t["passes"] for s in p["states"]]
    assert all("state" in s and "kind" in s for s in states)
    # parameters carry the registers and GLSL names per shader
    params = {p["name"]: p for p in fx.reflection["parameters"]}
    assert any(p["shaders"] for p in params.values())
    for p in params.values():
        for where in p["shaders"].values():
            assert where["glsl"], p["name"]


def test_array_selected_shaders_all_translate():
    fx = xlate.translate_effect(dict(all_effects())["fna/BasicEffect.fxb"], "glsl330")
    (tech,) = fx.reflection["techniques"]
    (p,) = tech["passes"]
    assert len(p["vertex_shader"]) == 20 and len(p["pixel_shader"]) == 10
    selector = next(s for s in p["states"] if s["state"] == "VertexShader")
    assert selector["kind"] == "array_selector" and selector["parameter"] == "VSArray"
    assert selector["expression"]["listing"][0] == "preshader"


def test_is_effect_and_errors():
    data = dict(all_effects())["fna/SpriteEffect.fxb"]
    assert is_effect(data) and not is_effect(data[4:]) and not is_effect(b"")
    with pytest.raises(xlate.EffectError):
        xlate.translate_effect(data[:40])


def test_vulkan_pairs_agree_and_spirv_is_valid(record_property):
    """Vulkan: every pass's VS/PS interfaces agree (name and location of
    each varying); the GLSL compiles with glslang -V and passes spirv-val
    (every 16th shader in CI, all with XLATE_CORPUS_FULL=1), and the
    ``spirv`` target gives the same effect as SPIR-V words."""
    from xlate.backends.spirv import compile_glsl

    checked, pairs, bad = 0, 0, []
    k = 0
    for eid, fx in _translations("vulkan"):
        assert not [d for d in fx.diagnostics if "do not link" in d or "could not be translated" in d], eid
        by_name = {s.name: s.translation for s in fx.shaders}
        for tech in fx.reflection["techniques"]:
            for p in tech["passes"]:
                pairs += len(p["vertex_shader"]) * len(p["pixel_shader"])
        for s in fx.shaders:
            k += 1
            if not FULL and k % 16:
                continue
            try:
                compile_glsl(by_name[s.name].code, s.stage)
                checked += 1
            except Exception as exc:  # noqa: BLE001
                bad.append(f"{eid} {s.name}: {str(exc)[:300]}")
    record_property("corpus_summary", f"effects vulkan: {pairs} pass pairs with matching interfaces; "
                    f"{checked} shaders glslang -V + spirv-val valid")
    assert pairs > 250 and checked > 20
    assert not bad, "\n".join(bad[:20])
    spirv = xlate.translate_effect(dict(all_effects())["fna/SpriteEffect.fxb"], "spirv")
    assert spirv.shaders and all(isinstance(s.translation.code, bytes) and s.translation.code[:4] == b"\x03\x02\x23\x07"
                                 for s in spirv.shaders)


def test_inlined_preshaders_translate_and_link(record_property):
    """``inline_preshader=True`` through translate_effect: every shader with a
    preshader is glslang-valid with the preshader inlined (or refused with a
    reason in its reflection), and its passes still link on llvmpipe."""
    from glharness import gl_context

    from xlate.backends.check import validate_glsl

    ctx, why = gl_context()
    items, names, modes, bad = [], [], {}, []
    linked = 0
    for eid, data in all_effects():
        fx = xlate.translate_effect(data, "glsl330", inline_preshader=True)
        by_name = {s.name: s for s in fx.shaders}
        with_pre = {n for n, p in fx.reflection["preshaders"].items() if p and "mode" in p}
        for n in with_pre:
            modes[fx.reflection["preshaders"][n]["mode"]] = modes.get(fx.reflection["preshaders"][n]["mode"], 0) + 1
            items.append((by_name[n].translation.code, by_name[n].stage))
            names.append(f"{eid}:{n}")
        if ctx is None:
            continue
        for tech in fx.reflection["techniques"]:
            for p in tech["passes"]:
                for vs in p["vertex_shader"]:
                    for ps in p["pixel_shader"]:
                        if vs in with_pre or ps in with_pre:
                            try:
                                ctx.program(vertex_shader=by_name[vs].translation.code,
                                            fragment_shader=by_name[ps].translation.code).release()
                                linked += 1
                            except Exception as exc:  # noqa: BLE001
                                bad.append(f"{eid} {vs} + {ps}: {str(exc)[:300]}")
    verdicts = validate_glsl(items)
    bad += [f"{n}: {v[:300]}" for n, v in zip(names, verdicts) if v]
    record_property("corpus_summary", f"effects with inlined preshaders: {len(items)} shaders ({modes}), "
                    f"glslang-valid {len(items) - sum(1 for v in verdicts if v)}; {linked} pass pairs linked")
    assert modes.get("inline", 0) > 50
    assert not bad, "\n".join(bad[:20])
