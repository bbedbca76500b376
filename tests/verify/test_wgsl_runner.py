"""The WGSL target executed through WebGPU (``xlate.verify.wgpu_runner``:
wgpu-native + naga on lavapipe), as the GLSL and Vulkan targets are:

* vkd3d's D3D9 draws with their probes (the same case loaders and probe
  comparison as tests/verify/test_vkd3d_llvmpipe.py): CI runs the
  "exact_ieee" configuration, the one every non-todo case must pass;
  XLATE_CORPUS_FULL=1 adds "default".  The alpha test and user clip planes,
  which WebGPU lacks, are in the translations (``Options.draw_state`` baked,
  ``wgpu_state.shader_draw_state``); points with a size or sprites are drawn
  as quads (``wgpu_state.point_quads``), as a layer on WebGPU would.
* Wine's in-scope visual cases (fixed-function stages through the runner's
  pass-through VS and a WGSL fixed-function PS, texdepth_test's depth
  pre-pass on targets with a depth texture; fog and alpha test baked in, and
  as override constants): a CI share, all with XLATE_CORPUS_FULL=1;
* a render pipeline for every VS+PS pair of both corpora;
* random programs of every version (``generate``, all features on) and
  corpus shaders against the reference interpreter
  (``differential.check_generated`` / ``check_shader`` with this runner):
  a CI share, everything with XLATE_CORPUS_FULL=1.  Every random sampler
  state runs: border colours and mirror once through ``wgpu_address``
  (tested alone against the reference sampler below); a check whose state
  the runner cannot bind (a depth compare or FETCH4 through an emulated
  state) would be re-drawn with other input seeds, then counted apart.

Skips with the reason when there is no WebGPU adapter.
"""

from __future__ import annotations

import os
import re
import time
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from xlate import translate
from xlate.verify.cases import ProbeTally, TargetSession, load_cases, make_draw

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "peer-corpus" / "vkd3d"
CASES = CORPUS / "cases.jsonl"
FULL = os.environ.get("XLATE_CORPUS_FULL") == "1"
CONFIGS = {
    "default": {},
    "exact_ieee": {"flip_y": True, "half_pixel_exact": True, "infinities": "ieee"},
}

KNOWN_FAILURES: dict[str, dict[str, str]] = {
    "exact_ieee": {},
    "default": {
        "rcp__d8": "rcp(±0): the default clamps to ±FLT_MAX, the test expects IEEE ±inf (as on GL)",
        **{f"shade-mode__d{k}": "the 63/128-pixel shift interpolates 1/128 pixel off D3D's centre (as on GL)"
           for k in (1, 2)},
    },
}


@lru_cache(maxsize=None)
def translated(name: str, config: str, draw_state=None):
    extra = {"draw_state": draw_state} if draw_state is not None else {}
    return translate((CORPUS / name).read_bytes(), "wgsl", **CONFIGS[config], **extra)


@pytest.mark.skipif(not CASES.exists(), reason=f"peer corpus not found at {CORPUS}")
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_vkd3d_wgpu(wgr, config, record_property):
    if config != "exact_ieee" and not FULL:
        pytest.skip("the default configuration runs with XLATE_CORPUS_FULL=1 (CI runs exact_ieee)")
    from xlate.verify.wgpu_runner import RenderTargets
    from xlate.verify.wgpu_state import shader_draw_state

    start = time.perf_counter()
    cases = load_cases(CASES)
    by_id = {c["id"]: c for c in cases}

    def draw(case, targets):
        # alpha test and clip planes in the translations, as a layer on WebGPU does (wgpu_state)
        d = make_draw(case)
        vs = translated(case["vs_file_used"], config, shader_draw_state(d.state, "vertex"))
        ps = translated(case["ps"], config, shader_draw_state(d.state, "pixel"))
        wgr.draw(vs, ps, d, targets=targets, read=False)

    session = TargetSession(by_id, RenderTargets, draw)
    tally = ProbeTally(KNOWN_FAILURES[config])
    for case in cases:
        if not case.get("runnable_on_d3d9_runner", True):
            tally.counts["skipped"] += 1
            continue
        tally.run(case, lambda c: (session.run(c), session.probe(c))[1])
    session.close()
    summary = (f"vkd3d on wgpu/lavapipe (wgsl, {config}): {tally.text()}; {tally.counts['skipped']} cases skipped; "
               f"{time.perf_counter() - start:.1f}s")
    print(summary)
    record_property("corpus_summary", summary)
    tally.check()


def _wine_pairs():
    from xlate.verify import wine_cases as wc

    if wc.corpus_missing():
        return wc, [], wc.corpus_missing()
    cases = [c for c in wc.load_cases() if not wc.out_of_scope(c)]
    return wc, cases, None


def test_every_pair_builds_a_pipeline(wgr, record_property):
    """Each distinct VS+PS pair of the vkd3d cases and of Wine's in-scope
    visual cases (both shaders) links into a WebGPU render pipeline on a
    device with WebGPU's DEFAULT limits (16 inter-stage variables: the WGSL
    varying locations keep every pair within them, and each shader's
    reflected ``limits.maxInterStageShaderVariables`` says so)."""
    from xlate.verify.wgpu_runner import WGPURunner

    default = WGPURunner(default_limits=True)
    assert default.device.limits["max-inter-stage-shader-variables"] == 16
    pairs = set()
    if CASES.exists():
        for case in load_cases(CASES):
            pairs.add(("vkd3d", case["vs_file_used"], case["ps"]))
    wc, wine, _missing = _wine_pairs()
    for case in wine:
        if case.vs is not None and case.ps is not None:
            pairs.add(("wine", case.vs["id"], case.ps["id"]))
    if not pairs:
        pytest.skip("no peer corpus")
    start = time.perf_counter()
    failures = []
    for source, vs_name, ps_name in sorted(pairs):
        try:
            if source == "vkd3d":
                vs, ps = translated(vs_name, "exact_ieee"), translated(ps_name, "exact_ieee")
            else:
                vs, ps = wc._translate(vs_name, target="wgsl"), wc._translate(ps_name, target="wgsl")
                ps = link_unwritten(ps.code, ps.reflection, vs.reflection["outputs"])
            for t in (vs, ps):
                refl = t[1] if isinstance(t, tuple) else t.reflection
                assert refl["limits"]["maxInterStageShaderVariables"] <= 16, refl["limits"]
            default.pipeline(vs, ps)
        except Exception as e:  # noqa: BLE001 - any failure is a finding
            failures.append(f"{source} {vs_name} + {ps_name}: {type(e).__name__}: {str(e)[-400:]}")
    summary = (f"wgsl pipelines: {len(pairs) - len(failures)} of {len(pairs)} VS+PS pairs (vkd3d, wine) built "
               f"on a device with WebGPU's default limits; "
               f"{time.perf_counter() - start:.1f}s")
    print(summary)
    record_property("corpus_summary", summary)
    assert not failures, "\n".join(failures[:10])


def link_unwritten(code: str, refl: dict, vs_outputs: list[dict]) -> tuple[str, dict]:
    """A PS input no VS output writes reads 0 in D3D9; WebGPU refuses to link
    it, so it leaves the entry point's input struct and its private variable
    keeps its zero (as wine_cases does for GLSL and SPIR-V)."""
    written = {(o["usage"], o["usage_index"]) for o in vs_outputs}
    keep = []
    for inp in refl["inputs"]:
        if inp.get("builtin") or (inp["usage"], inp["usage_index"]) in written:
            keep.append(inp)
            continue
        name = re.escape(inp["glsl"])
        code = re.sub(rf"^\s*@location\(\d+\)[^\n]*\b{name}: vec4<f32>,\n", "", code, flags=re.M)
        code = re.sub(rf"^\s*{name} = xl_in\.{name};\n", "", code, flags=re.M)
    if re.search(r"struct XlIn \{\n\}", code):  # nothing left to pass in
        code = re.sub(r"struct XlIn \{\n\}\n\n", "", code).replace("(xl_in: XlIn)", "()")
    return code, dict(refl, inputs=keep)


def ff_pixel_shader_wgsl(vs_outputs: list[dict], specular: bool, combiner: tuple | None) -> tuple[str, dict]:
    """``wine_cases.ff_pixel_shader`` in WGSL: D3D9's default texture stages
    with no texture bound (the diffuse colour, + the specular one when
    D3DRS_SPECULARENABLE, or the case's one combiner setup)."""
    by_key = {(o["usage"], o["usage_index"]): o for o in vs_outputs}
    members, inputs = [], []
    diffuse, spec = "vec4<f32>(1.0)", "vec4<f32>(0.0)"
    for key, use in ((("color", 0), True), (("color", 1), specular or combiner is not None)):
        o = by_key.get(key)
        if not use or o is None:
            continue
        loc = o.get("location", 0)
        members.append(f"    @location({loc}) c{key[1]}: vec4<f32>,")
        inputs.append({"usage": "color", "usage_index": key[1], "register": key[1], "mask": "xyzw",
                       "glsl": f"c{key[1]}", "location": loc, "centroid": False})
        if key[1] == 0:
            diffuse = "i.c0"
        else:
            spec = "i.c1"
    if combiner is not None:
        tf = ", ".join(repr(float(c)) for c in combiner)
        expr = (f"vec4<f32>(clamp({diffuse}.rgb + {spec}.rgb, vec3<f32>(0.0), vec3<f32>(1.0)) * vec3<f32>({tf}), "
                f"{diffuse}.a)")
    elif specular:
        expr = f"vec4<f32>(clamp({diffuse}.rgb + {spec}.rgb, vec3<f32>(0.0), vec3<f32>(1.0)), {diffuse}.a)"
    else:
        expr = diffuse
    head = ["struct XlIn {", *members, "}", "@fragment", "fn main(i: XlIn) -> @location(0) vec4<f32> {"] if members \
        else ["@fragment", "fn main() -> @location(0) vec4<f32> {"]
    code = "\n".join(head + [f"    return {expr};", "}", ""])
    refl = {"stage": "fragment", "target": "wgsl", "constants": [], "samplers": [], "inputs": inputs,
            "outputs": [{"usage": "color", "usage_index": 0, "glsl": "xl_ff_out", "location": 0}],
            "viewport": None, "front_face": None, "draw_state": None, "options": {}, "entry_point": "main"}
    return code, refl


def _draw_texdepth(wgr, case, vs, ps, draw) -> np.ndarray:
    """``wine_cases._draw_texdepth_vk`` on WebGPU: targets with a depth
    texture, the pre-pass (white, ZFUNC ALWAYS, z writes), then the shader
    (ZFUNC GREATER, no z writes)."""
    import dataclasses

    from xlate.verify.wgpu_runner import RenderTargets

    targets = RenderTargets(*case.size, depth=True)
    try:
        targets.clear((1.0, 1.0, 0.0, 1.0))
        targets.clear_depth(0.0)
        pre = dataclasses.replace(draw, vertices={("position", 0): draw.vertices[("position", 0)]}, clear=None)
        wgr.draw(None, ff_pixel_shader_wgsl([], False, None), pre, targets=targets, read=False, depth=("always", True))
        if not case.notes.startswith("Draw 1 of"):  # the first shader draw follows the setup directly
            targets.clear(draw.clear)
        return wgr.draw(vs, ps, dataclasses.replace(draw, clear=None), targets=targets,
                        depth=("greater", False)).colors[0]
    finally:
        targets.release()


def _wine_case(wgr, wc, case, mode: str = "baked"):
    """One Wine case through WGSL: ``wine_cases.build_draw``'s draw (and its
    render state: fog and alpha test baked in or as overrides, ``mode``),
    the case's shaders translated to wgsl."""
    _vs, _ps, draw = wc.build_draw(case, vulkan=True, mode=mode)
    opts = wc.draw_state_options(case, mode)
    ds = wc.case_draw_state(case)
    vs_pair = None
    if case.vs is not None:
        vs = wc._translate(case.vs["id"], opts, target="wgsl")
        vs_pair = (vs.code, vs.reflection)
        if any(i["usage"] is None for i in vs.reflection["inputs"]):
            vs_pair = (vs.code, dict(vs.reflection, inputs=[
                dict(i, usage="v", usage_index=i["register"]) if i["usage"] is None else i
                for i in vs.reflection["inputs"]]))
        vs_outputs = [o for o in vs.reflection["outputs"] if not o.get("builtin")]
    else:
        vs_outputs = [{"usage": "color", "usage_index": 0, "glsl": "v_color0", "location": 0}]
    if case.ps is not None or ds is not None:
        ps_t = wc._translate(case.ps["id"] if case.ps is not None else wc.FF_PIXEL_STAND_IN, opts, target="wgsl")
        ps = (ps_t.code, ps_t.reflection)
        if case.vs is not None:
            ps = link_unwritten(ps_t.code, ps_t.reflection, vs_outputs)
    else:
        ps = ff_pixel_shader_wgsl(vs_outputs, wc._state(case, r"SPECULARENABLE TRUE"), wc._combiner(case))
    if case.function == "texdepth_test":
        pixels = wc.quantise(_draw_texdepth(wgr, case, vs_pair, ps, draw))
    else:
        res = wgr.draw(vs_pair, ps, draw)
        pixels = wc.quantise(res.colors[0])
        res.targets.release()
    return wc.CaseResult(case, [wc.check_probe(p, pixels) for p in case.probes])


# CI draws every WINE_STRIDE[mode]-th case (all of them take ~35 s here), XLATE_CORPUS_FULL=1 all.
WINE_STRIDE = {"baked": 3, "dynamic": 6} if not FULL else {"baked": 1, "dynamic": 1}


@pytest.mark.parametrize("mode", ["baked", "dynamic"])
def test_wine_visual_wgpu(wgr, record_property, mode):
    """Wine's in-scope visual cases drawn through the WGSL translations with
    each case's draw (``wine_cases.build_draw``) and checked with the same
    8-bit probes.  A fixed-function VS is the runner's pass-through VS fed
    with fixed-function vertex processing's outputs, a fixed-function PS
    ``ff_pixel_shader_wgsl`` (the stand-in PS of wine_cases where fog or
    the alpha test is on); texdepth_test with its depth pre-pass
    (``_draw_texdepth``).  "dynamic": the fog and alpha-test cases with
    their state as override constants set per pipeline."""
    wc, cases, missing = _wine_pairs()
    if missing:
        pytest.skip(missing)
    chosen = cases if mode == "baked" else [c for c in cases if wc.case_draw_state(c) is not None]
    total = len(chosen)
    chosen = chosen[::WINE_STRIDE[mode]]
    start = time.perf_counter()
    passed, failed = 0, []
    for case in chosen:
        try:
            result = _wine_case(wgr, wc, case, mode)
        except Exception as e:  # noqa: BLE001 - a failure is a result
            result = wc.CaseResult(case, [], f"{type(e).__name__}: {e}")
        if result.passed:
            passed += 1
        else:
            failed.append(f"{case.id}: {result.describe()}")
    what = "in-scope cases" if mode == "baked" else "fog/alpha-test cases, state as overrides"
    summary = (f"wine visual cases on wgpu/lavapipe (wgsl, {mode}): {passed} of {len(chosen)} {what} passed "
               f"(1 in {WINE_STRIDE[mode]} of {total}); {time.perf_counter() - start:.1f}s")
    print(summary)
    record_property("corpus_summary", summary)
    assert chosen, "no in-scope case"
    assert not failed, "\n".join(failed[:10])


def test_front_face_follows_the_reflection(wgr):
    """vFace on WebGPU: a D3D-front (clockwise) triangle reads +1, a back one
    -1, with the reflection's ``front_face["webgpu"]`` (both y directions)."""
    from xlate.bytecode.asm import assemble_bytes
    from xlate.verify.gl import Draw

    vs_src = "vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n"
    ps_src = ("ps_3_0\ndef c0, 1, 0, 0.5, 1\ndcl vFace\nmov r0, c0\nif_lt vFace, c0.y\nmov r0, c0.yyzw\nendif\n"
              "mov oC0, r0\n")
    # clockwise on screen (y up in NDC: top-left, top-right, bottom-left), then counter-clockwise
    cw = [(-1, 1, 0.5, 1), (1, 1, 0.5, 1), (-1, -1, 0.5, 1)]
    ccw = [(1, 1, 0.5, 1), (-1, 1, 0.5, 1), (1, -1, 0.5, 1)]
    for flip_y in (True, False):
        vs = translate(assemble_bytes(vs_src), "wgsl", flip_y=flip_y)
        ps = translate(assemble_bytes(ps_src), "wgsl", flip_y=flip_y)
        assert ps.reflection["front_face"]["webgpu"] == ("cw" if flip_y else "ccw")
        res = wgr.draw(vs, ps, Draw(vertices={("position", 0): np.array(cw + ccw, np.float32)}, size=(8, 8)))
        img = res.colors[0]
        # D3D pixel (0, 7) only the clockwise triangle covers, (7, 0) only the other
        front, back = img[7 if flip_y else 0, 0], img[0 if flip_y else 7, 7]
        assert tuple(front) == (1.0, 0.0, 0.5, 1.0), (flip_y, front)
        assert tuple(back) == (0.0, 0.0, 0.5, 1.0), (flip_y, back)
        res.targets.release()


# -- random programs and corpus vertex shaders against the reference interpreter ----------------

# per version: a CI share, with XLATE_CORPUS_FULL=1 as many as the GL test's
GENERATED_SEEDS = {"vertex": 20, "pixel": 40} if not FULL else {"vertex": 340, "pixel": 340}
# What the runner cannot bind (wgpu_address): the generator's random states never reach them now.
_NOT_ON_WEBGPU = ("lacks address-mode-clamp-to-border", "a depth compare with an emulated border colour or mirror once",
                  "a depth compare or gather with an emulated border colour or mirror once")
# A check whose random sampler state WebGPU cannot express is run again with
# the next input seeds (the same shader code, other random inputs and states).
SEED_ATTEMPTS = 3
SEED_STEP = 1_000_003


def _address_summary(wgr) -> str:
    """How many bound samplers used the address modes WebGPU's core lacks
    (the runner's ``address_counts``, wgpu_address)."""
    c = wgr.address_counts
    return (f"samplers bound with border {c['border']} (native colour) + {c['border emulated']} (emulated "
            f"colour), mirror once {c['mirror once']}")


def _unrunnable(verdict) -> bool:
    return verdict.status == "error" and any(why in verdict.message for why in _NOT_ON_WEBGPU)


def _first_runnable(check):
    """``check(seed offset)`` for offsets 0, SEED_STEP, ... until WebGPU can
    run it: (verdict, offset), or (the last verdict, None)."""
    for k in range(SEED_ATTEMPTS):
        verdict = check(k * SEED_STEP)
        if not _unrunnable(verdict):
            return verdict, k * SEED_STEP
    return verdict, None


@pytest.mark.parametrize("stage", ["vertex", "pixel"])
def test_generated_programs_match_reference(wgr, record_property, stage):
    """Generated programs (``generate_seed``, all features on, their own
    ``random_inputs`` and error bounds) of every vertex or pixel version,
    translated to WGSL and run through wgpu with ``differential.check_generated``
    (vertex shaders alone through ``run_vertex``'s capture entry point, pixel
    shaders with the runner's pass-through VS and probe output): every
    written output component within the generator's bound of the reference
    interpreter.  Every program runs (border colours and mirror once through
    ``wgpu_address``); the summary counts the samplers bound with them."""
    import random

    from xlate.verify.differential import check_generated
    from xlate.verify.generate import VERSIONS, generate_seed

    versions = [v for v in VERSIONS if v.startswith("vs" if stage == "vertex" else "ps")]
    start = time.perf_counter()
    failures, components, programs, unrunnable, reseeded = [], 0, 0, 0, 0
    wgr.address_counts.clear()
    for version in versions:
        for k in range(GENERATED_SEEDS[stage]):
            seed = random.Random(f"{version}/{k}").getrandbits(32)
            prog = generate_seed(seed, version)
            verdict, offset = _first_runnable(lambda d: check_generated(
                prog, seed + d, target="wgsl", runner=wgr, name=f"{version} seed {seed} inputs {seed + d}"))
            programs += 1
            components += verdict.compared
            reseeded += bool(offset)
            if verdict.ok:
                continue
            if offset is None:
                unrunnable += 1
                continue
            failures.append(verdict.report() + "\n" + prog.asm)
    summary = (f"generated {stage} shaders on wgpu/lavapipe (wgsl): {programs} programs ({', '.join(versions)}), "
               f"{programs - unrunnable} run ({reseeded} on later input seeds), {components} components compared, "
               f"{len(failures)} failures, {unrunnable} with sampler states WebGPU cannot bind in all "
               f"{SEED_ATTEMPTS} input seeds; {_address_summary(wgr)}; {time.perf_counter() - start:.1f}s")
    print(summary)
    record_property("corpus_summary", summary)
    assert not failures, "\n\n".join(failures[:5])
    # every program runs where the adapter has clamp-to-border (lavapipe)
    assert components > 0 and (not unrunnable or not wgr.border), f"{unrunnable} programs could not be bound"


def test_corpus_vertex_shaders_match_reference(wgr, record_property):
    """Corpus vertex shaders with ``differential.check_shader``'s seeded
    random inputs and tolerance model, through wgpu's ``run_vertex`` (the
    Vulkan runner's selection: test_vk_runner.corpus_vertex_shaders)."""
    from .test_vk_runner import check_corpus_vertex_shaders

    check_corpus_vertex_shaders(wgr, "wgsl", "wgpu/lavapipe (wgsl)", record_property)


CORPUS_DIFF_STRIDE = 1 if FULL else 48  # one corpus shader in 48 in CI (about 8 s here), all with FULL


def test_corpus_differential_wgpu(wgr, record_property):
    """Every CORPUS_DIFF_STRIDE-th shader of the differential corpus test's
    selection (``test_differential_corpus.corpus_shaders``: every decodable
    shader of the peer corpora) on the reference interpreter and through
    WGSL on wgpu, with ``differential.check_shader``'s seeded inputs and
    tolerance model, vertex and pixel shaders alike.  Its KNOWN_MISMATCHES
    apply; a shader whose random sampler state the runner cannot bind would
    be counted apart."""
    from .test_differential_corpus import KNOWN_MISMATCHES, corpus_shaders

    from xlate.verify.differential import check_shader

    shaders = corpus_shaders()[::CORPUS_DIFF_STRIDE]
    start = time.perf_counter()
    wgr.address_counts.clear()
    failures, fixed, components, counts = [], [], 0, {"pass": 0, "known": 0, "unrunnable": 0, "reseeded": 0}
    for sid, data in shaders:
        verdict, offset = _first_runnable(lambda d: check_shader(data, seed=d, target="wgsl", runner=wgr, name=sid))
        components += verdict.compared
        counts["reseeded"] += bool(offset)
        if verdict.ok:
            counts["pass"] += 1
            if sid in KNOWN_MISMATCHES:
                fixed.append(sid)
        elif sid in KNOWN_MISMATCHES:
            counts["known"] += 1
        elif offset is None:
            counts["unrunnable"] += 1
        else:
            failures.append(verdict.report())
    summary = (f"differential corpus on wgpu/lavapipe (wgsl): {len(shaders)} shaders (1 in {CORPUS_DIFF_STRIDE}), "
               f"{counts['pass']} pass ({counts['reseeded']} on later input seeds), {counts['known']} known "
               f"mismatches, {counts['unrunnable']} with sampler states WebGPU cannot bind in all "
               f"{SEED_ATTEMPTS} input seeds, {len(failures)} unexpected; {components} components "
               f"compared; {_address_summary(wgr)}; {time.perf_counter() - start:.1f}s")
    print(summary)
    record_property("corpus_summary", summary)
    assert not failures, "\n\n".join(failures[:5])
    assert not fixed, f"known mismatches pass on WGSL: {fixed}"


def test_gl_context_survives_the_webgpu_device(wgr):
    """The WebGPU device is made with wgpu's Vulkan backend only: its GLES
    backend made its own EGL context current while enumerating adapters, and
    every later GL program in the process failed ("cannot create program"),
    as in a CI worker that ran a WGSL test between two GL ones."""
    from xlate.verify import gl, wgpu_runner

    try:
        ctx = gl.context()
    except gl.GLUnavailable as exc:
        pytest.skip(str(exc))
    wgpu_runner._device(True)  # a second device (the default-limits kind), after the GL context exists
    program = ctx.program(vertex_shader="#version 330\nvoid main() { gl_Position = vec4(0.0); }")
    program.release()


# -- D3D9 address modes WebGPU's core lacks (wgpu_address): border colours, mirror once -----------

_ADDRESS_CASES = [
    # (u, v, w, border colour): an emulated colour, a native one, mirror once with wrap/clamp
    ("border", "mirroronce", "clamp", (0.25, 0.5, 0.75, 0.0625)),
    ("mirroronce", "border", "border", (0.0, 0.0, 0.0, 1.0)),
    ("mirroronce", "mirroronce", "mirroronce", (1.0, 0.5, 0.0, 1.0)),
    ("wrap", "border", "mirroronce", (1.0, 1.0, 1.0, 1.0)),
]


def _address_texture(kind: str, state, levels: int = 1):
    from xlate.verify.textures import Texture

    rng = np.random.default_rng(7)
    shape = (4, 4, 4, 4) if kind == "volume" else (4, 4, 4)
    out = []
    for k in range(levels):
        size = tuple(max(s >> k, 1) for s in shape[:-1]) + (4,)
        out.append((rng.integers(0, 17, size=size) / 16.0).astype(np.float32))
    return Texture(kind, out, state)


@pytest.mark.parametrize("kind", ["2d", "volume"])
@pytest.mark.parametrize("filt", ["point", "linear"])
def test_border_and_mirror_once_vertex_lookups(wgr, kind, filt):
    """texldl in a vs_3_0 through ``run_vertex`` at coordinates from -2.5 to
    2.5 in 3/16 steps, 1/64 off a texel edge (at an edge a point sample is
    the implementation's choice: lavapipe mirrors the float coordinate there,
    the reference the texel index), of a 4x4(x4) texture, with the address
    modes WebGPU's core lacks: every component equal to the reference
    sampler's (``textures.sample``), point and linear filtering."""
    from xlate.bytecode.asm import assemble_bytes
    from xlate.verify.textures import SamplerState, sample

    dcl = "dcl_volume" if kind == "volume" else "dcl_2d"
    vs = translate(assemble_bytes(f"vs_3_0\ndcl_position v0\ndcl_texcoord v1\n{dcl} s0\n"
                                  "dcl_position o0\ndcl_texcoord o1\nmov o0, v0\ntexldl o1, v1, s0\n"), "wgsl")
    steps = (np.arange(-40, 41, 3, dtype=np.float32) + 0.25) / 16.0
    grid = np.stack(np.meshgrid(steps, steps[::-1], indexing="ij"), -1).reshape(-1, 2)
    w = np.resize(steps[::2], len(grid)) if kind == "volume" else np.zeros(len(grid), np.float32)
    coords = np.column_stack([grid, w, np.zeros(len(grid), np.float32)]).astype(np.float32)
    for u, v, w_mode, colour in _ADDRESS_CASES:
        state = SamplerState(u, v, w_mode, mag_filter=filt, min_filter=filt, mip_filter="none", border_color=colour)
        tex = _address_texture(kind, state)
        res = wgr.run_vertex(vs, {("position", 0): np.tile([0, 0, 0, 1], (len(coords), 1)),
                                  ("texcoord", 0): coords}, textures={0: tex})
        got = res.output(("texcoord", 0))
        want = sample(tex, coords, lod=np.zeros(len(coords), np.float32))
        bad = np.flatnonzero(np.abs(got - want).max(axis=1) > (0 if filt == "point" else 1e-5))
        assert not len(bad), (u, v, w_mode, colour, coords[bad[:5]].tolist(), got[bad[:5]].tolist(), want[bad[:5]].tolist())


def test_mirror_once_keeps_implicit_level_of_detail(wgr):
    """A ps_3_0 texld (implicit LOD, point mips) of a 16x16 texture with
    three levels, mirror once on u and an emulated border colour on v, u
    3/16 a pixel across (LOD log2(3): level 2; D3D9's pixel i at
    -1.5 + 1/32 + 3i/16, never on a texel edge), v 3/32 a pixel down: the
    clamped coordinate must not change the level, so every pixel equals the
    reference's lookup with the same derivatives (with the derivatives of
    the clamped u, the pixels past +-1 would read level 1)."""
    from xlate.bytecode.asm import assemble_bytes
    from xlate.verify.gl import Draw
    from xlate.verify.textures import SamplerState, Texture, sample

    ps = translate(assemble_bytes("ps_3_0\ndcl_texcoord v0.xy\ndcl_2d s0\ntexld r0, v0, s0\nmov oC0, r0\n"), "wgsl")
    rng = np.random.default_rng(3)
    levels = [(rng.integers(0, 17, size=(16 >> k, 16 >> k, 4)) / 16.0).astype(np.float32) for k in range(3)]
    state = SamplerState("mirroronce", "border", mag_filter="point", min_filter="point", mip_filter="point",
                         border_color=(0.5, 0.25, 1.0, 0.75), max_mip_level=0)
    tex = Texture("2d", levels, state)
    quad = np.array([(-1, 1, 0.5, 1), (1, 1, 0.5, 1), (-1, -1, 0.5, 1), (1, -1, 0.5, 1)], np.float32)
    uv = np.array([(-1.5, -0.2, 0, 0), (1.5, -0.2, 0, 0), (-1.5, 1.3, 0, 0), (1.5, 1.3, 0, 0)], np.float32) + 1 / 32
    res = wgr.draw(None, ps, Draw(vertices={("position", 0): quad, ("texcoord", 0): uv}, primitive="triangle_strip",
                                  textures={0: tex}, size=(16, 16)))
    img = res.colors[0]
    res.targets.release()
    i = np.arange(16, dtype=np.float32)
    yy, xx = np.meshgrid(-0.2 + 1 / 32 + 1.5 * i / 16.0, -1.5 + 1 / 32 + 3.0 * i / 16.0, indexing="ij")
    coords = np.column_stack([xx.ravel(), yy.ravel(), np.zeros((256, 2), np.float32)]).astype(np.float32)
    d = np.float32(3.0 / 16.0)
    want = sample(tex, coords, ddx=np.tile([d, 0, 0], (256, 1)), ddy=np.tile([0, d / 2, 0], (256, 1)))
    got = img.reshape(-1, 4)
    bad = np.flatnonzero(np.abs(got - want).max(axis=1) > 0)
    assert not len(bad), (len(bad), coords[bad[:4]].tolist(), got[bad[:4]].tolist(), want[bad[:4]].tolist())


def test_address_emulation_rewrites_nested_lookups(wgr):
    """Every lookup through an emulated sampler becomes one helper call, one
    nested in another's coordinate too (each argument evaluated once), and
    the module is valid WGSL (naga)."""
    from xlate.verify.textures import SamplerState
    from xlate.verify.wgpu_address import emulate, plan

    code = ("@group(1) @binding(4) var t0: texture_2d<f32>;\n@group(1) @binding(32) var t0_sampler: sampler;\n"
            "@fragment\nfn main(@location(0) v: vec4<f32>) -> @location(0) vec4<f32> {\n"
            "    return textureSample(t0, t0_sampler, textureSampleLevel(t0, t0_sampler, v.xy, 0.0).xy + "
            "vec2<f32>(min(v.z, 1.0), 0.5));\n}\n")
    refl = {"stage": "pixel", "samplers": [{"register": 0, "type": "2d", "texture": "t0", "sampler": "t0_sampler",
                                            "binding": 4, "sampler_binding": 32, "group": 1}]}
    p = plan(SamplerState("mirroronce", "border", border_color=(0.5, 0.5, 0.5, 0.5)), "2d")
    out, new_refl = emulate(code, refl, {0: p})
    body = out.split("fn main", 1)[1].split("\n}\n", 1)[0]
    assert "textureSample" not in body.replace("xl_address0_textureSample", "")
    assert body.count("xl_address0_textureSampleLevel(t0, t0_sampler, t0_xl_white, v.xy, 0.0)") == 1
    assert new_refl["samplers"][0]["white_sampler_binding"] == 48
    wgr.module(out)
