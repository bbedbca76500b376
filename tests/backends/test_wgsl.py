"""The WGSL target (xlate/backends/wgsl): every decodable corpus shader
becomes WGSL that naga accepts (``create_shader_module`` on the lavapipe
adapter through the ``wgpu`` package), and the WGSL rules the backend
spells out (swizzle stores, const-expression folding, u32 bools, reserved
words, uniformity, point size) are checked on small shaders.

The corpus walk: every shader of wine, wine-composed, vkd3d,
hlsldecompiler, fxc-wine and the project's corpus/ (assembled); CI checks
every CI_STRIDE-th (deterministic), XLATE_CORPUS_FULL=1 all of them (about
12 s here).  A shader glsl330 translates must translate to wgsl too.
Tests needing naga skip with the reason when there is no adapter.
"""

from __future__ import annotations

import glob
import os
import re
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import corpus  # noqa: E402
from xlate import translate  # noqa: E402
from xlate.bytecode.asm import assemble_bytes  # noqa: E402
from xlate.errors import XlateError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CI_STRIDE = 8
FULL = os.environ.get("XLATE_CORPUS_FULL") == "1"


@pytest.fixture(scope="module")
def device():
    """One wgpu device (naga validates WGSL in create_shader_module)."""
    from xlate.verify import wgpu_runner

    try:
        return wgpu_runner.runner().device
    except wgpu_runner.WGPUUnavailable as e:
        pytest.skip(str(e))


def naga_errors(device, code: str) -> str | None:
    try:
        device.create_shader_module(code=code)
    except Exception as e:  # noqa: BLE001 - GPUValidationError carries naga's message
        return str(e)
    return None


def _asm(text: str) -> bytes:
    return assemble_bytes(text)


def _blobs() -> list[tuple[str, bytes]]:
    out = []
    if corpus.corpus_available():
        for name in ("wine", "wine-composed", "vkd3d", "hlsldecompiler", "fxc-wine"):
            out += [(f"{name}:{bid}", data) for bid, data in corpus.iter_corpus(name)]
    for path in sorted(glob.glob(str(ROOT / "corpus" / "*" / "*.asm"))):
        out.append((f"own:{Path(path).parent.name}/{Path(path).name}", _asm(Path(path).read_text())))
    return out


def test_corpus_wgsl_naga(device, record_property):
    blobs = _blobs()
    chosen = blobs if FULL else blobs[::CI_STRIDE]
    start = time.perf_counter()
    valid, refused, failures, mismatched = 0, 0, [], []
    for bid, data in chosen:
        try:
            t = translate(data, "wgsl")
        except XlateError as e:
            refused += 1
            try:
                translate(data, "glsl330")
            except XlateError:
                continue
            mismatched.append(f"{bid}: glsl330 translates it, wgsl refuses: {e}")
            continue
        err = naga_errors(device, t.code)
        if err is None:
            valid += 1
        else:
            failures.append(f"{bid}: {err[-600:]}")
    elapsed = time.perf_counter() - start
    summary = (f"wgsl (naga, wgpu): {valid} of {len(chosen) - refused} translated shaders valid "
               f"({len(chosen)} of {len(blobs)} corpus blobs{'' if FULL else f', every {CI_STRIDE}th'}, "
               f"{refused} not translatable by any target); {elapsed:.1f}s")
    print(summary)
    record_property("corpus_summary", summary)
    assert not mismatched, "\n".join(mismatched[:10])
    assert not failures, f"{len(failures)} shaders naga refuses:\n" + "\n\n".join(failures[:5])
    assert valid > 0


# -- the WGSL rules, one shader each ------------------------------------------------------------


PS_MASKED = """ps_3_0
def c0, 0.5, 0.25, 0, 1
dcl_texcoord0 v0
mov r0, c0.w
mov r0.xz, v0.yyxx
add r0.yw, r0, c0.xxyy
mov oC0, r0
"""


def test_partial_write_mask_rebuilds_the_vector(device):
    """WGSL cannot assign to a swizzle: r0.xz = ... keeps y and w."""
    t = translate(_asm(PS_MASKED), "wgsl")
    assert not re.search(r"\br0\.[xyzw]{2,} =", t.code)
    assert "xl_s" in t.code
    assert naga_errors(device, t.code) is None


def test_literal_only_ops_run_at_run_time(device):
    """rcp(0) with IEEE infinities: 1.0 / 0.0 folded by WGSL at shader
    creation is an error; the module computes it at run time, and infinite
    literals go through xl_f32_bits."""
    src = "ps_3_0\ndef c0, 0, -0, 2, 0\nrcp r0.x, c0.x\nrcp r0.y, c0.y\nlog r0.z, c0.x\nmov r0.w, c0.z\nmov oC0, r0\n"
    for infinities in ("ieee", "clamp"):
        t = translate(_asm(src), "wgsl", infinities=infinities)
        assert naga_errors(device, t.code) is None, t.code


def test_bool_constants_are_u32(device):
    src = "vs_3_0\ndcl_position v0\ndcl_position o0\nif b3\nmov o0, v0\nelse\nmov o0, -v0\nendif\n"
    t = translate(_asm(src), "wgsl")
    entry = next(c for c in t.reflection["constants"] if c["file"] == "bool")
    assert entry["wgsl_type"] == "u32" and entry["offset"] == 16 * 3 and entry["group"] == 0
    assert "!= 0u" in t.code
    assert naga_errors(device, t.code) is None


def test_reflection_texture_and_sampler_bindings(device):
    src = "ps_2_0\ndcl t0.xy\ndcl_2d s2\ndcl_cube s5\ntexld r0, t0, s2\ntexld r1, t0, s5\nadd r0, r0, r1\nmov oC0, r0\n"
    t = translate(_asm(src), "wgsl")
    by_reg = {s["register"]: s for s in t.reflection["samplers"]}
    assert by_reg[2]["binding"] == 6 and by_reg[2]["sampler_binding"] == 34 and by_reg[2]["group"] == 1
    assert by_reg[5]["type"] == "cube"
    assert f"@group(1) @binding(37) var {by_reg[5]['sampler']}: sampler;" in t.code
    assert f"var {by_reg[5]['texture']}: texture_cube<f32>;" in t.code
    assert t.reflection["entry_point"] == "main"
    assert naga_errors(device, t.code) is None


def test_wgsl_reserved_words_are_renamed(device):
    """A CTAB-free private named like a WGSL keyword must not reach the code
    as is: the namer knows WGSL's words (one list for every target)."""
    from xlate.backends.names import Namer, sanitize

    for word in ("loop", "fn", "let", "select", "texture_2d", "vec4f", "var", "override"):
        assert sanitize(word) != word
    assert Namer().name("let") == "let_"


def test_point_size_is_dropped_with_a_diagnostic(device):
    src = "vs_2_0\ndef c0, 4, 0, 0, 0\ndcl_position v0\nmov oPos, v0\nmov oPts, c0.x\n"
    t = translate(_asm(src), "wgsl")
    assert any("point" in d and "wgsl" in d for d in t.diagnostics)
    assert naga_errors(device, t.code) is None


def test_derivatives_in_divergent_flow(device):
    """texld inside an if on a varying: WGSL's uniformity check is turned off
    and a diagnostic names the instruction; at top level, neither."""
    divergent = ("ps_3_0\ndcl_texcoord0 v0\ndcl_2d s0\nmov r0, v0\nif_gt v0.x, v0.y\ntexld r0, v0, s0\nendif\n"
                 "mov oC0, r0\n")
    t = translate(_asm(divergent), "wgsl")
    assert t.code.startswith("diagnostic(off, derivative_uniformity);")
    assert any("(instruction 5)" in d and "uniform control flow" in d for d in t.diagnostics)
    assert naga_errors(device, t.code) is None
    uniform = ("ps_3_0\ndefb b0, true\ndcl_texcoord0 v0\ndcl_2d s0\nmov r0, v0\nif b0\ntexld r0, v0, s0\nendif\n"
               "mov oC0, r0\n")
    t = translate(_asm(uniform), "wgsl")
    assert not any("uniform" in d for d in t.diagnostics)
    top = "ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n"
    t = translate(_asm(top), "wgsl")
    assert "diagnostic(off" not in t.code and not t.diagnostics


def test_vertex_shader_samples_level_zero(device):
    src = "vs_3_0\ndcl_position v0\ndcl_2d s0\ndcl_position o0\ntexldl r0, v0, s0\nadd o0, v0, r0\n"
    t = translate(_asm(src), "wgsl")
    assert "textureSampleLevel" in t.code and "textureSample(" not in t.code
    assert naga_errors(device, t.code) is None


def test_position_is_negated_for_webgpu():
    """The Vulkan clip position with y negated: WebGPU's NDC y points up."""
    t = translate(_asm("vs_2_0\ndcl_position v0\nmov oPos, v0\n"), "wgsl")
    assert "-xl_position.y" in t.code
    assert t.reflection["options"]["flip_y"] is True and t.reflection["options"]["clip_z"] is False


def test_annotate_puts_each_instruction_above_its_code(device):
    t = translate(_asm("ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmul r0, r0, c1\nmov oC0, r0\n"), "wgsl",
                  annotate=True)
    lines = [line.strip() for line in t.code.splitlines()]
    assert any(line.startswith("// texld r0, t0, s0") for line in lines)
    assert any(line.startswith("// mul r0, r0, c1") for line in lines)
    assert naga_errors(device, t.code) is None


def test_varying_locations_within_webgpu_defaults(device):
    """WebGPU guarantees 16 inter-stage variables: WGSL's own locations
    (backends/wgsl/locations.py) put vs_1_x/2_x's fixed outputs at 0-10,
    COLOR0 at 8 in both stages; a varying_locations map still wins (a clash
    with a default location is refused), and a rare semantic past 15 gets a
    diagnostic and the limit it needs in the reflection."""
    from xlate.errors import XlateError

    vs_src = "vs_2_0\ndcl_position v0\nmov oPos, v0\nmov oD0, v0\nmov oFog, v0.x\n"
    vs = translate(_asm(vs_src), "wgsl")
    ps = translate(_asm("ps_2_0\ndcl v0\nmov oC0, v0\n"), "wgsl")
    assert "@location(8) v_color0: vec4<f32>" in vs.code and "@location(8) v_color0: vec4<f32>" in ps.code
    locations = {(o["usage"], o["usage_index"]): o["location"] for o in vs.reflection["outputs"]}
    assert locations[("texcoord", 7)] == 7 and locations[("color", 1)] == 9 and locations[("fog", 0)] == 10
    assert vs.reflection["limits"]["maxInterStageShaderVariables"] == 11
    assert ps.reflection["limits"]["maxInterStageShaderVariables"] == 9
    assert not [d for d in vs.diagnostics + ps.diagnostics if "inter-stage" in d]
    mapped = translate(_asm(vs_src), "wgsl", varying_locations=(("color", 0, 12),))
    assert "@location(12) v_color0: vec4<f32>" in mapped.code
    assert mapped.reflection["limits"]["maxInterStageShaderVariables"] == 13
    with pytest.raises(XlateError, match="both at location 0"):
        translate(_asm(vs_src), "wgsl", varying_locations=(("color", 0, 0),))
    rare = translate(_asm("vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord9 o1\nmov o0, v0\nmov o1, v0\n"),
                     "wgsl")
    assert "@location(17) v_texcoord9: vec4<f32>" in rare.code
    assert rare.reflection["limits"]["maxInterStageShaderVariables"] == 18
    assert any("maxInterStageShaderVariables >= 18" in d for d in rare.diagnostics), rare.diagnostics
    # semantics that share a location in the Vulkan scheme (TEXCOORD8 and BLENDWEIGHT1's fallback) have
    # their own WGSL ones, and no Vulkan diagnostic
    both = translate(_asm("vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord8 o1\ndcl_blendweight1 o2\n"
                          "mov o0, v0\nmov o1, v0\nmov o2, v0\n"), "wgsl")
    locations = {(o["usage"], o["usage_index"]): o["location"] for o in both.reflection["outputs"]}
    assert locations[("texcoord", 8)] == 16 and locations[("blendweight", 1)] == 32 + 16 * 1 + 1
    assert not [d for d in both.diagnostics if "Vulkan" in d], both.diagnostics
    device.create_shader_module(code=mapped.code)


HOSTILE_SEEDS = {
    "ps_3_0": "ps_3_0\ndcl_texcoord v0\ndcl_2d s0\ndcl_cube s1\ntexld r0, v0, s0\ntexld r1, v0, s1\n"
              "mad r0, r0, c0, c1\nadd r0, r0, r1\nmul r0, r0, c2\nadd oC0, r0, c3\n",
    "vs_2_0": "vs_2_0\ndcl_position v0\ndp4 oPos.x, v0, c0\ndp4 oPos.y, v0, c1\ndp4 oPos.z, v0, c2\n"
              "dp4 oPos.w, v0, c3\nmul oT0, v0, c4\n",
}
WGSL_WORDS = ("fn", "let", "var", "loop", "select", "textureSample", "vec4f", "texture_2d", "xl_main", "main",
              "XlIn", "ps_s0_sampler", "__x", "_", "f32", "bitcast")


def test_hostile_and_wgsl_named_ctab_entries(device):
    """CTAB names from tests/hostile.py and names WGSL reserves or the module
    uses itself: the WGSL still validates, and no raw name reaches it."""
    from hostile import HOSTILE_NAMES, with_hostile_ctab

    names = list(HOSTILE_NAMES) + list(WGSL_WORDS)
    checked = 0
    for text in HOSTILE_SEEDS.values():
        base = _asm(text)
        for k in range(0, len(names), 6):
            data = with_hostile_ctab(base, names[k:k + 6])
            t = translate(data, "wgsl")
            assert "\x1b" not in t.code and "#define" not in t.code and "*/" not in t.code
            assert naga_errors(device, t.code) is None, (names[k:k + 6], t.code)
            checked += 1
    assert checked >= 4


def test_depth_compare_with_a_level_reads_level_zero_with_a_diagnostic(device):
    """WGSL compares depth at level 0 only: texldl / texldb on a depth
    texture read the base level, and the translation says so."""
    src = "ps_3_0\ndcl_texcoord0 v0\ndcl_2d s0\ntexldl r0, v0, s0\nmov oC0, r0\n"
    t = translate(_asm(src), "wgsl", draw_state={"depthtexture": [0]})
    assert "textureSampleCompareLevel" in t.code and "var ps_s0: texture_depth_2d;" in t.code
    assert any("level 0 only" in d for d in t.diagnostics)
    assert naga_errors(device, t.code) is None
    plain = translate(_asm("ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n"), "wgsl",
                      draw_state={"depthtexture": [0]})
    assert "textureSampleCompare(" in plain.code and not plain.diagnostics


def test_dynamic_draw_state_is_override_constants(device):
    t = translate(_asm("ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n"), "wgsl",
                  draw_state_mode="dynamic")
    params = t.reflection["render_state"]["parameters"]
    assert params and all(p["form"] == "override" for p in params)
    for p in params:
        assert f"@id({p['override_id']}) override {p['glsl']}:" in t.code
    assert naga_errors(device, t.code) is None
