"""Every sm2/sm3 shader of the peer corpus, translated to every target.

Checks, per target: translation (no crash; UnsupportedError only where the
target cannot express the shader), glslangValidator on every GLSL output,
compile + link on llvmpipe (each shader with a partner of its own dialect),
and for Vulkan: glslangValidator -V plus spirv-val (that SPIR-V *is* the
``spirv`` target's output).  ps_1_x / vs_1_x are out of scope here (their
passes are another issue) and only counted.

By default every shader of wine, vkd3d and hlsldecompiler and every 16th of
fxc-wine (deterministic),
and SPIR-V for every 2nd shader (glslang -V costs ~0.15 s a call) run, to stay within a couple of minutes on 2 cores;
XLATE_CORPUS_FULL=1 runs all of fxc-wine too.  Counts go to the corpus
summary at the end of the run.
"""

from __future__ import annotations

import collections
import functools
import multiprocessing
import os
import sys
import traceback

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "backends"))

import corpus  # noqa: E402
from conftest import CORPUS_SUMMARY_KEY  # noqa: E402

GL_TARGETS = ("glsl120", "glsl330", "glsl450", "essl100", "essl300")
ALL_TARGETS = GL_TARGETS + ("vulkan", "spirv")
# What a target may refuse: the reason must contain one of these.
ACCEPTED_UNSUPPORTED = {
    "essl100": ("GLSL ES 1.00",),
}


def _selection() -> list[tuple[str, bytes]]:
    full = os.environ.get("XLATE_CORPUS_FULL") == "1"
    blobs = []
    for name in ("wine", "wine-composed", "vkd3d", "hlsldecompiler", "fxc-wine"):
        items = list(corpus.iter_corpus(name))
        if name == "fxc-wine" and not full:
            items = items[::16]
        blobs.extend((f"{name}:{bid}", data) for bid, data in items)
    return blobs


def _work(item):
    """Translate one blob to every target (in a worker process)."""
    from xlate.backends import generate, get_target, resolve_options
    from xlate.backends.spirv import compile_glsl
    from xlate.bytecode import decode
    from xlate.errors import NotAShaderError, XlateError
    from xlate.ir.builder import lift
    from xlate.options import Options
    from xlate.passes import run_passes

    bid, data, want_spirv = item
    try:
        shader = decode(data)
    except NotAShaderError:
        return bid, "effect", {}
    except XlateError as exc:
        return bid, "undecodable", str(exc)
    if shader.version.major < 2:
        return bid, "sm1", {}
    res = {}
    for group in (GL_TARGETS, ("vulkan",)):
        opts = resolve_options(get_target(group[0]), Options())
        try:
            program = lift(shader)
            run_passes(program, opts)
        except XlateError as exc:
            for t in group:
                res[t] = ("unsupported", f"passes: {exc}")
            continue
        except Exception as exc:  # noqa: BLE001 - reported as a bug below
            for t in group:
                res[t] = ("bug", f"passes: {type(exc).__name__}: {exc}")
            continue
        for t in group:
            try:
                code, refl = generate(program, get_target(t), opts)
                res[t] = ("ok", code, refl)
            except XlateError as exc:
                res[t] = ("unsupported", str(exc))
            except Exception as exc:  # noqa: BLE001
                res[t] = ("bug", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()[-800:]}")
    vk = res.get("vulkan")
    if vk and vk[0] == "ok" and not want_spirv:
        pass
    elif vk and vk[0] == "ok":
        try:
            compile_glsl(vk[1], vk[2]["stage"])  # -V then spirv-val
            res["spirv"] = ("ok", None, vk[2])
        except Exception as exc:  # noqa: BLE001
            res["spirv"] = ("invalid", str(exc)[:2000])
    elif vk:
        res["spirv"] = vk
    return bid, shader.version.name, res


@functools.lru_cache(maxsize=1)
def corpus_results():
    corpus.require_corpus()
    blobs = _selection()
    with multiprocessing.get_context("fork").Pool(min(2, os.cpu_count() or 1)) as pool:
        full = os.environ.get("XLATE_CORPUS_FULL") == "1"
        items = [(bid, data, full or i % 2 == 0) for i, (bid, data) in enumerate(blobs)]
        return pool.map(_work, items, chunksize=8)


def _outputs(target):
    for bid, version, res in corpus_results():
        if isinstance(res, dict) and target in res:
            yield bid, version, res[target]


def _summary(record_property, text):
    record_property(CORPUS_SUMMARY_KEY, text)
    print(text)


def test_corpus_translates(record_property):
    results = corpus_results()
    kinds = collections.Counter(v if v in ("effect", "undecodable", "sm1") else "sm2/3" for _, v, _ in results)
    _summary(record_property, f"translate corpus: {len(results)} blobs: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
             + " (sm1 out of scope here)")
    problems = []
    for t in ALL_TARGETS:
        counts = collections.Counter()
        for bid, _v, r in _outputs(t):
            counts[r[0]] += 1
            if r[0] == "bug":
                problems.append(f"{t} {bid}: {r[1]}")
            elif r[0] == "unsupported" and not any(a in r[1] for a in ACCEPTED_UNSUPPORTED.get(t, ())):
                problems.append(f"{t} {bid}: unsupported: {r[1]}")
        _summary(record_property, f"translate {t}: " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
    assert not problems, f"{len(problems)} failures:\n" + "\n".join(problems[:40])


def test_corpus_glslang(record_property):
    from xlate.backends.check import validate_glsl

    items, keys = [], []
    for t in GL_TARGETS:
        for bid, _v, r in _outputs(t):
            if r[0] == "ok":
                items.append((r[1], r[2]["stage"]))
                keys.append((t, bid))
    verdicts = validate_glsl(items)
    bad = [f"{t} {bid}: {msg[:300]}" for (t, bid), msg in zip(keys, verdicts) if msg]
    per = collections.Counter(t for (t, _), msg in zip(keys, verdicts) if not msg)
    _summary(record_property, "glslang-valid: " + ", ".join(f"{t} {per[t]}" for t in GL_TARGETS))
    assert not bad, f"{len(bad)} outputs glslang rejects:\n" + "\n".join(bad[:20])


def test_corpus_llvmpipe(record_property):
    from glharness import gl_context, link

    ctx, why = gl_context()
    if ctx is None:
        pytest.skip(why)
    bad, per, no_ext = [], collections.Counter(), collections.Counter()
    for t in GL_TARGETS:
        for bid, _v, r in _outputs(t):
            if r[0] != "ok":
                continue
            try:
                link(t, r[2]["stage"], r[1], r[2]).release()
                per[t] += 1
            except Exception as exc:  # noqa: BLE001
                # An optional extension the shader declares (reflection
                # "extensions") that this driver lacks in this context is
                # the layer's concern, not a translation error.
                msg = str(exc)
                if any(f"extension `{e}' unsupported" in msg for e in r[2]["extensions"]):
                    no_ext[t] += 1
                elif r[2]["shader_model"].endswith("_sw") and "Too many" in msg and "uniform" in msg:
                    # software-VP shaders may index 8192 constants: more than
                    # plain GL uniforms hold (a known limit, see the report)
                    no_ext[t + " (sw constants over the GL uniform limit)"] += 1
                else:
                    bad.append(f"{t} {bid}: {msg[:300]}")
    _summary(record_property, "linked on llvmpipe: " + ", ".join(f"{t} {per[t]}" for t in GL_TARGETS)
             + "; not linkable here (optional extension llvmpipe lacks, or over its limits): "
             + (", ".join(f"{t} {n}" for t, n in sorted(no_ext.items())) or "none"))
    assert not bad, f"{len(bad)} outputs fail on llvmpipe:\n" + "\n".join(bad[:20])


def test_corpus_spirv(record_property):
    counts = collections.Counter()
    bad = []
    for bid, _v, r in _outputs("spirv"):
        counts[r[0]] += 1
        if r[0] == "invalid":
            bad.append(f"{bid}: {r[1][:300]}")
    _summary(record_property, "spirv (glslang -V + spirv-val): " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
    assert not bad, f"{len(bad)} SPIR-V failures:\n" + "\n".join(bad[:20])
