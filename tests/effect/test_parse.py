"""Parsing fx_2_0 effects: the whole peer corpus, Wine's tabulated
expectations, and errors (offsets, pickling) on malformed input."""

from __future__ import annotations

import pickle
import re
import struct

import pytest
from effect_corpus import all_effects, wine_effects, wine_rows

from xlate.bytecode.ctab import ParameterClass, ParameterType
from xlate.effect import StateKind, is_effect, parse_effect
from xlate.effect.states import StateClass, state_info, state_table
from xlate.errors import EffectError, XlateError


def test_every_corpus_effect_parses(record_property):
    effects = all_effects()
    counts = {"effects": 0, "passes": 0, "states": 0, "shaders": 0}
    kinds = set()
    for eid, data in effects:
        assert is_effect(data), eid
        e = parse_effect(data)
        counts["effects"] += 1
        for t in e.techniques:
            for p in t.passes:
                counts["passes"] += 1
                counts["states"] += len(p.states)
                for s in p.states:
                    assert s.info is not None
                    kinds.add(s.kind)
                    if s.kind == StateKind.SHADER:
                        counts["shaders"] += 1
                        assert s.shader and s.shader[2:4] in (b"\xfe\xff", b"\xff\xff"), eid
                    if s.kind in (StateKind.EXPRESSION, StateKind.ARRAY_SELECTOR):
                        assert s.expression is not None and s.expression.data[:4][2:] == b"XF", eid
    record_property("corpus_summary", f"effects parsed: {counts}")
    assert counts["effects"] == 91 + 8 + 10 + 15
    assert kinds == set(StateKind)  # every form of state occurs in the corpus


def test_state_table_is_d3dx9s():
    table = state_table()
    assert len(table) == 0xB3
    assert (table[0].name, table[0].d3d_value) == ("D3DRS_ZENABLE", 7)
    assert table[0x92].state_class == StateClass.VERTEX_SHADER
    assert table[0xB2].state_class == StateClass.SAMPLER
    assert state_info(0xB3) is None


def _float_bits(v) -> int:
    if v == "NAN":
        return 0x7FC00000
    if v == "INFINITY":
        return 0x7F800000
    return struct.unpack("<I", struct.pack("<f", v))[0]


# parameter_value rows whose expectation is not about parsing (none today)
PARAMETER_VALUE_MISSES: dict[str, str] = {}


def test_wine_parameter_values():
    rows = [r for r in wine_rows() if r["kind"] == "parameter_value"]
    assert len(rows) == 97
    effects = {k: parse_effect(v) for k, v in wine_effects().items()}
    bad = []
    for r in rows:
        if r["id"] in PARAMETER_VALUE_MISSES:
            continue
        p = effects[r["effect"]].parameter(r["name"])
        got = (p.parameter_class, p.parameter_type, p.rows, p.columns, p.elements) if p else None
        want = (ParameterClass(r["class_value"]), ParameterType(r["type_value"]), r["rows"], r["columns"], r["elements"])
        if got != want:
            bad.append(f"{r['id']}: {got} != {want}")
            continue
        if r["value"] is None:
            assert p.is_object and len(p.object_ids) == max(p.elements, 1)
            continue
        words = list(struct.unpack(f"<{len(p.value) // 4}I", p.value))
        if r["value_member"] == "f":
            expect = [_float_bits(v) for v in r["value"]]
        else:
            expect = [v & 0xFFFFFFFF for v in r["value"]]
        if words != expect:
            bad.append(f"{r['id']}: {words} != {expect}")
    assert not bad, "\n".join(bad)


_STEP = re.compile(r"\[(\d+)\]|\.([^.\[\]@]+)|@([^.\[\]@]+)")


def _walk(scope, path: str, root=None):
    """Resolve a D3DX name path (``a``, ``b[0]``, ``c@d``, ``f.e``,
    ``i@k[0].j``) on the parsed model: (parameter, canonical path, indexed,
    top-level), or None where d3dx9 returns NULL.  ``scope`` holds the
    parameters the first name is looked up in (the effect's, or a
    technique's or pass's annotations); ``root`` continues from a result."""
    if root is None:
        m = re.match(r"[^.\[\]@]+", path)
        if not m:
            return None
        param = next((p for p in scope if p.name == m.group()), None)
        if param is None:
            return None
        canon, indexed, top = m.group(), False, True
        rest = path[m.end():]
    else:
        (param, canon, indexed, top), rest = root, path
    pos = 0
    while pos < len(rest):
        m = _STEP.match(rest, pos)
        if not m:
            return None
        pos = m.end()
        if m.group(1) is not None:  # [i]
            i = int(m.group(1))
            if indexed or i >= param.elements:
                return None
            canon, indexed, top = f"{canon}[{i}]", True, False
        elif m.group(2) is not None:  # .member
            if (param.elements and not indexed) or not param.members:
                return None
            param = next((x for x in param.members if x.name == m.group(2)), None)
            if param is None:
                return None
            canon, indexed, top = f"{canon}.{m.group(2)}", False, False
        else:  # @annotation: only on a top-level parameter
            if not top:
                return None
            param = next((x for x in param.annotations if x.name == m.group(3)), None)
            if param is None:
                return None
            canon, indexed, top = f"{canon}@{m.group(3)}", False, False
    return param, canon, indexed, top


def _variable_name(effect, call: str, args: list):
    """One row's call on the model: what ``_walk`` gives, ("pass", Pass), or None."""
    parent, name = args
    if isinstance(parent, dict):
        parent = _variable_name(effect, parent["call"], parent["args"])
        if parent is None:
            return None
    if call == "GetPassByName":
        tech = next((t for t in effect.techniques if t.name == parent), None)
        pss = next((p for p in tech.passes if p.name == name), None) if tech else None
        return ("pass", pss) if pss else None
    if isinstance(parent, str):  # a name: a parameter, else a technique
        found = _walk(effect.parameters, parent)
        if found is None:
            tech = next((t for t in effect.techniques if t.name == parent), None)
            if tech is not None and call == "GetAnnotationByName" and name is not None:
                return _walk(tech.annotations, name)
            return None
        parent = found
    if isinstance(parent, tuple) and parent[0] == "pass":
        return _walk(parent[1].annotations, name) if call == "GetAnnotationByName" and name else None
    if call == "GetParameterByName":
        if name is None:  # d3dx9: the parent itself (NULL without one)
            return parent
        return _walk(effect.parameters, name) if parent is None else _walk(None, "." + name, parent)
    if parent is None:
        return None
    if call == "GetParameterElement":
        return _walk(None, f"[{name}]", parent)
    if call == "GetAnnotationByName":
        return None if name is None else _walk(None, "@" + name, parent)
    if call == "GetAnnotation":
        annos = parent[0].annotations if parent[3] else ()
        return _walk(None, "@" + annos[name].name, parent) if name < len(annos) else None
    raise AssertionError(f"unknown call {call}")


def test_wine_variable_names(record_property):
    """Every variable_names row: d3dx9's name lookups (GetParameterByName,
    GetParameterElement, GetAnnotation(ByName), GetPassByName) done on the
    parsed model give NULL, non-NULL, or the same parameter as the row named."""
    rows = [r for r in wine_rows() if r["kind"] == "variable_names"]
    assert len(rows) == 69
    effect = parse_effect(wine_effects()["test_effect_variable_names_blob"])
    results, bad = {}, []
    for r in rows:
        got = _variable_name(effect, r["call"], r["args"])
        key = got[1] if got else None
        results[r["id"]] = key
        if r["expected"] == "NULL" and got is not None:
            bad.append(f"{r['id']}: {r['call']}{r['args']} found {key}, d3dx9 gives NULL")
        elif r["expected"] in ("non-NULL", "same-as") and got is None:
            bad.append(f"{r['id']}: {r['call']}{r['args']} found nothing")
        elif r["expected"] == "same-as" and key != results.get(r["same_as"]):
            bad.append(f"{r['id']}: {key} is not {results.get(r['same_as'])}")
    record_property("corpus_summary", f"variable_names: {len(rows) - len(bad)}/{len(rows)} rows hold")
    assert not bad, "\n".join(bad)


def test_errors_have_offsets_and_pickle():
    data = wine_effects()["test_effect_parameter_value_blob_float"]
    with pytest.raises(EffectError) as info:
        parse_effect(data[:100])
    err = info.value
    assert 0 <= err.offset <= 100 and err.reason and "byte offset" in str(err)
    again = pickle.loads(pickle.dumps(err))
    assert (again.offset, again.reason, type(again)) == (err.offset, err.reason, EffectError)
    with pytest.raises(EffectError, match="magic"):
        parse_effect(b"\x00\x02\xff\xff" + data[4:])
    with pytest.raises(EffectError, match="at least 8 bytes"):
        parse_effect(data[:6])


def test_hostile_counts_are_refused_before_allocation():
    data = bytearray(wine_effects()["test_effect_parameter_value_blob_float"])
    start = 8 + struct.unpack_from("<I", data, 4)[0]
    for field, what in ((0, "parameter"), (4, "technique"), (12, "object")):
        bad = bytearray(data)
        struct.pack_into("<I", bad, start + field, 0xFFFFFFFF)
        with pytest.raises(XlateError, match=what):
            parse_effect(bytes(bad))


def test_state_values_decode_to_d3d_names():
    from xlate.effect.states import decode_state_value

    table = {info.name: info for info in state_table()}
    f = lambda x: struct.unpack("<I", struct.pack("<f", x))[0]  # noqa: E731
    assert decode_state_value(table["D3DRS_SRCBLEND"], 5, False) == "D3DBLEND_SRCALPHA"
    assert decode_state_value(table["D3DRS_SRCBLEND"], f(2.0), True) == "D3DBLEND_ONE"
    assert decode_state_value(table["D3DRS_ZENABLE"], 1, False) == "D3DZB_TRUE"
    assert decode_state_value(table["D3DRS_COLORWRITEENABLE"], 0xF, False) == (
        "D3DCOLORWRITEENABLE_RED | D3DCOLORWRITEENABLE_GREEN | D3DCOLORWRITEENABLE_BLUE | D3DCOLORWRITEENABLE_ALPHA")
    assert decode_state_value(table["D3DTSS_COLORARG1"], 0x22, False) == "D3DTA_TEXTURE | D3DTA_ALPHAREPLICATE"
    assert decode_state_value(table["MinFilter"], 2, False) == "D3DTEXF_LINEAR"
    assert decode_state_value(table["D3DRS_FOGCOLOR"], 0xFF00FF00, False) == "0xff00ff00"
    assert decode_state_value(table["D3DRS_FOGSTART"], f(0.5), True) == 0.5
    assert decode_state_value(table["D3DRS_LIGHTING"], 0, False) is False
    # hostile floats (found by the fuzzer): NaN and huge values as x86 converts them
    assert decode_state_value(table["D3DRS_SRCBLEND"], 0x7FC00000, True) == 0x80000000
    assert decode_state_value(table["D3DRS_STENCILREF"], f(3e10), True) == -(1 << 31)


def test_wine_effect_states():
    """test_effect_states: the pass's states as its checks (the `notes` prose
    and the `states` rows) describe them, decoded from the parsed model."""
    import numpy as np

    from xlate.effect.select import parameter_inputs
    from xlate.preshader import decode_preshader

    data = wine_effects()["test_effect_states_effect_blob"]
    effect = parse_effect(data)
    (tech,) = effect.techniques
    (p0,) = tech.passes
    by_name = {(s.name, s.index): s for s in p0.states}
    assert by_name[("D3DRS_BLENDOP", 0)].decoded_value() == ["D3DBLENDOP_SUBTRACT"]
    assert by_name[("D3DTSS_ALPHAOP", 3)].decoded_value() == ["D3DTOP_MODULATE"]
    assert by_name[("D3DRS_ZENABLE", 0)].decoded_value() == ["D3DZB_TRUE"]
    assert by_name[("LightEnable", 2)].decoded_value() == [True]
    assert by_name[("LightType", 2)].decoded_value() == ["D3DLIGHT_POINT"]
    assert by_name[("LightPosition", 2)].decoded_value() == [4.0, 5.0, 6.0]
    assert by_name[("VertexShaderConstant1", 1)].decoded_value() == [3.0]
    assert by_name[("VertexShaderConstant1", 3)].decoded_value() == [2.0] * 4
    assert by_name[("VertexShaderConstant4", 4)].decoded_value() == [4.0] * 4 + [5.0] * 4 + [6.0]
    sampler = by_name[("Sampler", 1)]
    assert sampler.kind == StateKind.PARAMETER and sampler.reference == "sampler1"
    (states,) = effect.parameter("sampler1").sampler_states
    assert [(s.name, s.decoded_value()) for s in states] == [("MipFilter", ["D3DTEXF_LINEAR"])]
    # the vertex shader is vs_arr1[1], the blob words from TEST_EFFECT_STATES_VSHADER_POS
    row = next(r for r in wine_rows() if r["kind"] == "effect" and r["id"] == "test_effect_states_effect_blob")
    vs = by_name[("VertexShader", 0)]
    blob = effect.shader_blob(vs)
    pos = 315  # DWORD offset, as the test's notes say
    assert "VSHADER_POS 315" in row["notes"]
    assert blob is not None and data[4 * pos: 4 * pos + len(blob)] == blob
    # the `states` rows after BeginPass(0): WorldTransform[1] (a constant) and
    # ViewTransform (an expression reading the `camera` parameter)
    rows = {(r["state"], r["phase"]): r["value"] for r in wine_rows() if r["kind"] == "states"}
    world = by_name[("D3DTS_WORLD", 1)]
    assert world.kind == StateKind.CONSTANT
    assert world.decoded_value() == rows[("D3DTS_WORLDMATRIX(1)", "after BeginPass(0)")]
    view = by_name[("D3DTS_VIEW", 0)]
    assert view.kind == StateKind.EXPRESSION
    pre = decode_preshader(view.expression.data, view.expression.offset)
    result = pre.evaluate(parameter_inputs(effect, pre))
    assert np.array_equal(result.float_table[:16], np.float32(rows[("D3DTS_VIEW", "after BeginPass(0)")]))


def test_wine_isparameterused():
    from xlate.effect.usage import parameters_used

    rows = [r for r in wine_rows() if r["kind"] == "isparameterused"]
    assert len(rows) == 16
    bad = []
    for r in rows:
        effect = parse_effect(wine_effects()[r["effect"]])
        tech = next(t for t in effect.techniques if t.name == r["technique"])
        got = r["param"] in parameters_used(effect, tech)
        if got != r["expected"]:
            bad.append(f"{r['id']}: {r['param']} used {got}, d3dx9 says {r['expected']}")
    assert not bad, "\n".join(bad)


def test_wine_state_manager_state_numbers():
    """The D3D numbers of the state table against Wine's state_manager_update
    rows (test_effect_state_manager, Windows-verified): the render states
    pass 0 sets are the SetRenderState calls, the sampler states of its
    samplers the SetSamplerState types."""
    rows = [r for r in wine_rows() if r["kind"] == "state_manager_update"]
    effect = parse_effect(wine_effects()[rows[0]["effect"]])
    p0 = effect.techniques[0].passes[0]
    render = {s.info.d3d_value for s in p0.states if s.state_class == StateClass.RENDER}
    assert render == {r["param1"] for r in rows if r["method"] == "SetRenderState"}
    sampler_types = {s.info.d3d_value for p in effect.parameters for states in p.sampler_states for s in states
                     if s.state_class == StateClass.SAMPLER_STATE}
    assert sampler_types == {r["param2"] for r in rows if r["method"] == "SetSamplerState"}
    lights = {s.index for s in p0.states if s.state_class == StateClass.LIGHT_ENABLE}
    assert lights == {r["param1"] for r in rows if r["method"] == "LightEnable"}
