"""``inline_preshader``: the preshader computed in the translated shader
(xlate/ir/preshader_inline.py).  Every fxc-wine shader with a preshader is
translated both ways; on llvmpipe, the inlined shader fed the preshader's
inputs as uniforms draws what the CPU mode draws with the evaluator's
constants."""

from __future__ import annotations

import os

import numpy as np
import pytest

from corpus import require_corpus
from test_preshader import preshader_records
from xlate import translate
from xlate.bytecode import decode
from xlate.bytecode.ctab import RegisterSet
from xlate.preshader import shader_preshader

# Why the corpus shaders that keep the CPU mode do (inline_refused), by blob.
# Anything else refused is a failure.
EXPECTED_REFUSALS = {
    "the preshader uses relative addressing",
    "the shader indexes its float constants dynamically",
}


@pytest.mark.parametrize("target", ["glsl330", "spirv"])  # spirv: the vulkan GLSL through glslang
def test_corpus_translates_inlined(target, record_property):
    require_corpus("fxc-wine", "index.jsonl")
    inlined = refused = 0
    for rec in preshader_records():
        t = translate(rec.data, target, inline_preshader=True)
        entry = t.reflection["preshader"]
        if entry["mode"] == "inline":
            inlined += 1
            names = {c.get("ctab") for c in t.reflection["constants"]}
            for item in entry["inputs"]:
                assert item["name"] in names and item["glsl"], (rec.id, item)
            assert not any(r.get("glsl") for r in entry["registers"])
            assert any("is inlined" in d for d in t.diagnostics)
        else:
            refused += 1
            assert entry["inline_refused"] in EXPECTED_REFUSALS, (rec.id, entry["inline_refused"])
            assert any("stays on the CPU" in d for d in t.diagnostics)
    record_property("corpus_summary", f"inline_preshader ({target}): {inlined} inlined, {refused} kept on the CPU")
    assert inlined + refused == 49 and inlined >= 40


def _inputs(pre, rng) -> dict[str, np.ndarray]:
    """Random values for each input, as its registers (count x 4)."""
    values = {}
    for c in pre.ctab.constants:
        if c.register_set == RegisterSet.FLOAT4:
            values[c.name] = rng.uniform(-2.0, 2.0, size=(c.register_count, 4)).round(3)
    return values


def _by_register(pre, values) -> dict[int, np.ndarray]:
    return {c.register_index + k: values[c.name][k] for c in pre.ctab.constants if c.name in values
            for k in range(c.register_count)}


def _shader_constants(shader, rng, count: int) -> dict[int, np.ndarray]:
    return {r: rng.uniform(-1.0, 1.0, 4).round(3) for r in range(count)}


def _run(gl, t, shader, consts, rng_seed: int):
    """One execution: a vertex shader alone (transform feedback), or a pixel
    shader drawn over a small target with a pass-through vertex shader."""
    from xlate.verify import gl as glmod
    from xlate.verify.differential import point_texture

    rng = np.random.default_rng(rng_seed)
    refl = t.reflection
    if shader.version.is_vertex:
        vertices = {(i["usage"], int(i["usage_index"])): rng.uniform(-1, 1, (3, 4)).astype(np.float32)
                    for i in refl["inputs"]}
        if not vertices:
            vertices = {("position", 0): np.zeros((3, 4), np.float32)}
        out = gl.run_vertex(t, vertices, consts, count=3)
        return np.concatenate([v.reshape(3, -1) for _k, v in sorted(out.outputs.items())], axis=1)
    textures = {s["register"]: point_texture(rng, s["type"]) for s in refl["samplers"]}
    vertices = {("position", 0): np.array([[-1, -1, 0.5, 1], [3, -1, 0.5, 1], [-1, 3, 0.5, 1]], np.float32)}
    for i in refl["inputs"]:
        if not i["glsl"].startswith("gl_"):
            vertices[(i["usage"], int(i["usage_index"]))] = rng.uniform(0, 1, (3, 4)).astype(np.float32)
    draw = glmod.Draw(vertices, constants=consts, textures=textures, size=(4, 4))
    return np.concatenate([c.reshape(-1) for c in gl.draw(None, t, draw).colors])


def test_inlined_draws_what_the_cpu_mode_draws(record_property):
    require_corpus("fxc-wine", "index.jsonl")
    from xlate.verify import gl as glmod
    from xlate.verify.reference import ReferenceConstants

    try:
        gl = glmod.runner()
    except glmod.GLUnavailable as e:
        pytest.skip(str(e))
    compared = 0
    worst = 0.0
    # Two programs to compile per shader: CI runs a deterministic third of
    # them, XLATE_CORPUS_FULL=1 all of them.
    full = os.environ.get("XLATE_CORPUS_FULL") == "1"
    for n, rec in enumerate(preshader_records()):
        if not full and n % 3:
            continue
        shader = decode(rec.data)
        pre = shader_preshader(shader)
        inline = translate(rec.data, "glsl330", inline_preshader=True)
        entry = inline.reflection["preshader"]
        if entry["mode"] != "inline":
            continue
        cpu = translate(rec.data, "glsl330")
        rng = np.random.default_rng(n)
        values = _inputs(pre, rng)
        base = min(i["register"] for i in entry["inputs"]) if entry["inputs"] else 0
        regs = _shader_constants(shader, rng, 256)
        # CPU mode: the shader's constants, then what the evaluator computes
        cpu_consts = {r: v for r, v in regs.items()}
        cpu_consts.update({r: v.astype(np.float64) for r, v in pre.evaluate(_by_register(pre, values)).floats.items()})
        # inline mode: the same constants, plus the preshader's inputs where the reflection puts them
        inline_consts = {r: v for r, v in regs.items() if r < base}
        for item in entry["inputs"]:
            for k in range(item["count"]):
                inline_consts[item["register"] + k] = values[item["name"]][k]
        got_cpu = _run(gl, cpu, shader, ReferenceConstants(floats=cpu_consts), n)
        got_inline = _run(gl, inline, shader, ReferenceConstants(floats=inline_consts), n)
        same = (got_cpu == got_inline) | (np.isnan(got_cpu) & np.isnan(got_inline))  # infinities too
        with np.errstate(invalid="ignore"):
            diff = np.where(same, 0.0, np.abs(got_cpu - got_inline) / np.maximum(1.0, np.abs(got_cpu)))
        diff = np.where(np.isnan(diff), np.inf, diff)
        worst = max(worst, float(np.nanmax(diff)) if diff.size else 0.0)
        assert np.all(diff <= 2e-4), f"{rec.id}: inline and cpu modes differ by up to {np.nanmax(diff)}"
        compared += 1
    record_property("corpus_summary", f"inline_preshader on llvmpipe: {compared} shaders draw as the CPU mode "
                                      f"(largest relative difference {worst:.2e})")
    assert compared >= (40 if full else 13)


# --------------------------------------------------------------------------
# Hostile preshaders in real shaders: translated in both modes, never a crash
# --------------------------------------------------------------------------

from dataclasses import replace as _replace  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from corpus import corpus_available, mutate  # noqa: E402
from xlate.bytecode import Comment, encode  # noqa: E402
from xlate.errors import XlateError  # noqa: E402


def _hosts() -> list:
    if not corpus_available("fxc-wine", "index.jsonl"):
        return []
    return [decode(r.data) for r in preshader_records()[:8]]


HOSTS = _hosts()


@pytest.mark.skipif(not HOSTS, reason="needs the fxc-wine corpus")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 7), st.lists(st.tuples(st.sampled_from(["flip", "replace", "insert", "delete", "truncate"]),
                                             st.integers(0, 10**6), st.integers(0, 2**32 - 1)), min_size=1, max_size=3))
def test_fuzz_translate_with_mutated_preshader(host, mutations):
    shader = HOSTS[host % len(HOSTS)]
    items = []
    for item in shader.items:
        if isinstance(item, Comment) and item.fourcc == "PRES":
            payload = item.payload
            for kind, position, value in mutations:
                payload = mutate(payload, kind, position, value)
            payload += bytes(-len(payload) % 4)
            item = Comment(b"PRES" + payload)
        items.append(item)
    blob = encode(_replace(shader, items=tuple(items)))
    emptied = not any(isinstance(i, Comment) and i.fourcc == "PRES" and i.payload for i in items)
    for inline in (False, True):
        try:
            t = translate(blob, "glsl330", inline_preshader=inline)
        except XlateError:
            continue
        if emptied:
            # A bare PRES FourCC is how fxc writes "no preshader" (one rule:
            # xlate.preshader.shader_preshader), so nothing is reported.
            assert "preshader" not in t.reflection
        else:
            assert t.reflection["preshader"]["mode"] in ("cpu", "inline")
