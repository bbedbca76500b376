"""Every shader of the peer corpus, translated to every target.

Checks, per target: translation (no crash; UnsupportedError only where the
target cannot express the shader), glslangValidator on every GLSL output,
compile + link on llvmpipe (each shader with a partner of its own dialect),
and for Vulkan: glslangValidator -V plus spirv-val (that SPIR-V is the
``spirv-glslang`` target's output; xlate's own writer, target ``spirv``, is
checked by tests/backends/test_spirv_native.py).

Shader model 1 (vs_1_x, ps_1_x) goes through the same checks, with the
project's own ``corpus/{vs_1_1,ps_1_1,...,ps_1_4}`` (assembled) on top of
the peer corpora, every sm1 shader of fxc-wine (not only every 16th) and
SPIR-V for every ps_1_x (not only every 2nd shader); its
counts are printed on lines of their own ("sm1 ...").
``test_sm1_pairs_link`` links every ps_1_x with real translated vs_1_1 and
vs_2_0 shaders (not only a pass-through), as a layer would pair them.

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

OWN_CORPUS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "corpus")
SM1_FOLDERS = ("vs_1_1", "ps_1_1", "ps_1_2", "ps_1_3", "ps_1_4")

GL_TARGETS = ("glsl120", "glsl330", "glsl450", "essl100", "essl300")
ALL_TARGETS = GL_TARGETS + ("vulkan", "spirv")
# What a target may refuse: the reason must contain one of these.
ACCEPTED_UNSUPPORTED = {
    "essl100": ("GLSL ES 1.00",),
}


def _is_sm1(data: bytes) -> bool:
    """Version token 0xFFFE01xx / 0xFFFF01xx (little-endian: minor, major, FE|FF, FF)."""
    return len(data) >= 4 and data[1] == 1 and data[2] in (0xFE, 0xFF) and data[3] == 0xFF


def _own_sm1() -> list[tuple[str, bytes]]:
    """The project's own sm1 corpus, assembled."""
    from pathlib import Path

    from xlate.bytecode.asm import assemble_bytes

    out = []
    for folder in SM1_FOLDERS:
        for path in sorted(Path(OWN_CORPUS, folder).glob("*.asm")):
            out.append((f"own:{folder}/{path.name}", assemble_bytes(path.read_text(encoding="utf-8"))))
    return out


def _selection() -> list[tuple[str, bytes]]:
    full = os.environ.get("XLATE_CORPUS_FULL") == "1"
    blobs = []
    for name in ("wine", "wine-composed", "vkd3d", "hlsldecompiler", "fxc-wine"):
        items = list(corpus.iter_corpus(name))
        if name == "fxc-wine" and not full:
            # every 16th, plus every sm1 shader (synthetic-asm ps_1_x, vs_1_1)
            items = [item for i, item in enumerate(items) if i % 16 == 0 or _is_sm1(item[1])]
        blobs.extend((f"{name}:{bid}", data) for bid, data in items)
    blobs.extend(_own_sm1())
    return blobs


def _sm1(version: str) -> bool:
    return version[:4] in ("vs_1", "ps_1")


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
    # Fork only where that is safe: a pytest worker that already drew with
    # llvmpipe/lavapipe has driver threads, and a forked child of it can crash.
    from fuzzing.pool import start_method

    with multiprocessing.get_context(start_method()).Pool(min(2, os.cpu_count() or 1)) as pool:
        full = os.environ.get("XLATE_CORPUS_FULL") == "1"
        # SPIR-V for every 2nd shader, and for every ps_1_x (few, and the
        # ones with draw-state uniform blocks)
        items = [(bid, data, full or i % 2 == 0 or (_is_sm1(data) and data[2] == 0xFF))
                 for i, (bid, data) in enumerate(blobs)]
        return pool.map(_work, items, chunksize=8)


@functools.lru_cache(maxsize=1)
def _sm1_ids() -> frozenset:
    return frozenset(bid for bid, v, _ in corpus_results() if _sm1(v))


def _outputs(target):
    for bid, version, res in corpus_results():
        if isinstance(res, dict) and target in res:
            yield bid, version, res[target]


def _summary(record_property, text):
    record_property(CORPUS_SUMMARY_KEY, text)
    print(text)


def _kind(version: str) -> str:
    if version in ("effect", "undecodable"):
        return version
    return "sm1" if _sm1(version) else "sm2/3"


def test_corpus_translates(record_property):
    results = corpus_results()
    kinds = collections.Counter(_kind(v) for _, v, _ in results)
    _summary(record_property, f"translate corpus: {len(results)} blobs: "
             + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    sm1_versions = collections.Counter(v for _, v, _ in results if _sm1(v))
    _summary(record_property, "sm1 corpus: " + ", ".join(f"{v} {n}" for v, n in sorted(sm1_versions.items())))
    problems = []
    for t in ALL_TARGETS:
        counts, sm1 = collections.Counter(), collections.Counter()
        for bid, v, r in _outputs(t):
            counts[r[0]] += 1
            if _sm1(v):
                sm1[r[0]] += 1
            if r[0] == "bug":
                problems.append(f"{t} {bid}: {r[1]}")
            elif r[0] == "unsupported" and not any(a in r[1] for a in ACCEPTED_UNSUPPORTED.get(t, ())):
                problems.append(f"{t} {bid}: unsupported: {r[1]}")
        _summary(record_property, f"translate {t}: " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
        _summary(record_property, f"sm1 translate {t}: " + ", ".join(f"{k} {n}" for k, n in sorted(sm1.items())))
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
    sm1 = collections.Counter(t for (t, bid), msg in zip(keys, verdicts) if not msg and bid in _sm1_ids())
    _summary(record_property, "sm1 glslang-valid: " + ", ".join(f"{t} {sm1[t]}" for t in GL_TARGETS))
    assert not bad, f"{len(bad)} outputs glslang rejects:\n" + "\n".join(bad[:20])


def test_corpus_llvmpipe(record_property):
    from glharness import gl_context, link

    ctx, why = gl_context()
    if ctx is None:
        pytest.skip(why)
    bad, per, no_ext, sm1 = [], collections.Counter(), collections.Counter(), collections.Counter()
    for t in GL_TARGETS:
        for bid, v, r in _outputs(t):
            if r[0] != "ok":
                continue
            try:
                link(t, r[2]["stage"], r[1], r[2]).release()
                per[t] += 1
                sm1[t] += _sm1(v)
            except Exception as exc:  # noqa: BLE001
                # An optional extension the shader declares (reflection
                # "extensions") that this driver lacks in this context is
                # the layer's concern, not a translation error.
                msg = str(exc)
                if any(f"extension `{e}' unsupported" in msg for e in r[2]["extensions"]):
                    no_ext[t] += 1
                else:
                    bad.append(f"{t} {bid}: {msg[:300]}")
    _summary(record_property, "sm1 linked on llvmpipe (pass-through partner): "
             + ", ".join(f"{t} {sm1[t]}" for t in GL_TARGETS))
    _summary(record_property, "linked on llvmpipe: " + ", ".join(f"{t} {per[t]}" for t in GL_TARGETS)
             + "; not linkable here (an optional extension llvmpipe lacks): "
             + (", ".join(f"{t} {n}" for t, n in sorted(no_ext.items())) or "none"))
    assert not bad, f"{len(bad)} outputs fail on llvmpipe:\n" + "\n".join(bad[:20])


def test_corpus_spirv(record_property):
    counts, sm1 = collections.Counter(), collections.Counter()
    bad = []
    for bid, v, r in _outputs("spirv"):
        counts[r[0]] += 1
        if _sm1(v):
            sm1[r[0]] += 1
        if r[0] == "invalid":
            bad.append(f"{bid}: {r[1][:300]}")
    _summary(record_property, "spirv (glslang -V + spirv-val): " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
    _summary(record_property, "sm1 spirv (glslang -V + spirv-val): "
             + ", ".join(f"{k} {n}" for k, n in sorted(sm1.items())))
    assert not bad, f"{len(bad)} SPIR-V failures:\n" + "\n".join(bad[:20])


def _own_vertex_shaders(target: str) -> dict[str, list[tuple[str, str, dict]]]:
    """The own corpus's vs_1_1 and vs_2_0 shaders translated for ``target``:
    {version: [(name, code, reflection)]}."""
    from pathlib import Path

    from xlate import translate
    from xlate.bytecode.asm import assemble_bytes

    out = {}
    for folder in ("vs_1_1", "vs_2_0"):
        out[folder] = []
        for path in sorted(Path(OWN_CORPUS, folder).glob("*.asm")):
            t = translate(assemble_bytes(path.read_text(encoding="utf-8")), target)
            out[folder].append((f"{folder}/{path.name}", t.code, t.reflection))
    return out


def _interface_mismatch(vs_refl: dict, ps_refl: dict) -> str | None:
    """Every PS input must be a VS output with the same (usage, index), GLSL
    name and location: what linking by name (GL) and by location (GL 4.50,
    Vulkan) both need."""
    outs = {(o["usage"], o["usage_index"]): o for o in vs_refl["outputs"]}
    for i in ps_refl["inputs"]:
        o = outs.get((i["usage"], i["usage_index"]))
        if o is None:
            return f"PS input {i['usage']}{i['usage_index']} has no VS output"
        if (o["glsl"], o["location"]) != (i["glsl"], i["location"]):
            return f"{i['usage']}{i['usage_index']}: VS {o['glsl']}@{o['location']} vs PS {i['glsl']}@{i['location']}"
    return None


def test_sm1_pairs_link(record_property):
    """Each ps_1_x with a real vs_1_1 and a real vs_2_0 (the own corpus's,
    round robin): the interfaces agree by (usage, index), name and location
    on every target, and each pair links on llvmpipe in every GL dialect."""
    from glharness import gl_context

    ctx, why = gl_context()
    bad, per = [], collections.Counter()
    for t in GL_TARGETS + ("vulkan",):
        vss = _own_vertex_shaders(t)
        pixel = [(bid, r) for bid, v, r in _outputs(t) if v.startswith("ps_1") and r[0] == "ok"]
        for k, (bid, r) in enumerate(pixel):
            for version, shaders in vss.items():
                vs_name, vs_code, vs_refl = shaders[k % len(shaders)]
                why_not = _interface_mismatch(vs_refl, r[2])
                if why_not:
                    bad.append(f"{t} {vs_name} + {bid}: {why_not}")
                    continue
                if t == "vulkan" or ctx is None:
                    per[t] += 1
                    continue
                try:
                    ctx.program(vertex_shader=vs_code, fragment_shader=r[1]).release()
                    per[t] += 1
                except Exception as exc:  # noqa: BLE001
                    bad.append(f"{t} {vs_name} + {bid}: {str(exc)[:300]}")
    _summary(record_property, "sm1 VS+PS pairs (vs_1_1 and vs_2_0 with every ps_1_x; GL: linked on llvmpipe, "
             "vulkan: interfaces checked): " + ", ".join(f"{t} {per[t]}" for t in GL_TARGETS + ("vulkan",))
             + ("" if ctx is not None else f" (not linked: {why})"))
    assert not bad, f"{len(bad)} pairs fail:\n" + "\n".join(bad[:20])
