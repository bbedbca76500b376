"""Wine's visual tests (peer-corpus/wine/visual_cases.jsonl) on lavapipe with
xlate's native SPIR-V writer (target "spirv"): the in-scope cases of
test_wine_visual.py (fog and alpha test with their state baked in), drawn
by ``xlate.verify.vk`` through ``wine_cases.build_draw(case, vulkan=True)``
and checked with the same probes.  What the GL path does by editing GLSL
is done on the SPIR-V words (``xlate.verify.spirv_edit``): D3DSHADE_FLAT
as a Flat decoration on the PS's colour inputs, a PS input no VS output
writes as a Private variable initialised to 0; texdepth_test's depth
pre-pass on the runner's targets with a depth image.

CI runs every SHARE_STRIDE-th runnable case (1: all of them, ~5 s here);
XLATE_VK_CASES=N runs every N-th, XLATE_VK_CASES=all or XLATE_CORPUS_FULL=1
every case.  XLATE_VK_VALIDATION=1 runs them under the validation layer.
"""

from __future__ import annotations

import os
import time

import pytest

from xlate.verify import wine_cases as wc

# case id -> why native SPIR-V on lavapipe does not match the probes
KNOWN_FAILURES: dict[str, str] = {}
SHARE_STRIDE = 1  # the whole set costs ~5 s on lavapipe here

_MISSING = wc.corpus_missing()
_IN_SCOPE = [] if _MISSING else [c for c in wc.load_cases() if not wc.out_of_scope(c)]


def _stride() -> int:
    choice = os.environ.get("XLATE_VK_CASES", "all" if os.environ.get("XLATE_CORPUS_FULL") == "1" else "")
    if choice == "all":
        return 1
    return max(int(choice), 1) if choice else SHARE_STRIDE


def test_flat_shading_needs_the_names(vkr):
    """D3DSHADE_FLAT on SPIR-V is a Flat decoration found by OpName
    (xlate.verify.spirv_edit): a module without names is refused, never
    drawn smooth."""
    if _MISSING:
        pytest.skip(_MISSING)
    from xlate import translate

    case = next(c for c in _IN_SCOPE if c.id == "d3d9:test_shademode:tests8")
    vs, ps, draw = wc.build_draw(case, vulkan=True)
    stripped = translate(wc.shader_blob(case.ps), "spirv", debug_names=False)
    with pytest.raises(NotImplementedError, match="names stripped"):
        vkr.draw(vs, stripped, draw)


def test_wine_visual_lavapipe_specialization_constants(vkr, record_property):
    """The fog and alpha-test cases with their render state as
    specialization constants (draw_state_mode "dynamic"): the runner fills
    VkSpecializationInfo from the reflection's render_state parameters."""
    if _MISSING:
        pytest.skip(_MISSING)
    chosen = [c for c in _IN_SCOPE if wc.case_draw_state(c) is not None][::_stride()]
    start = time.perf_counter()
    failed = [f"{c.id}: {r.describe()}" for c in chosen if not (r := wc.run_case(c, vulkan=True, mode="dynamic")).passed]
    summary = (f"wine fog/alpha-test cases on lavapipe (native spirv, specialization constants): "
               f"{len(chosen) - len(failed)} of {len(chosen)} passed; {time.perf_counter() - start:.1f}s")
    print(summary)
    record_property("corpus_summary", summary)
    assert chosen and not failed, "\n".join(failed)


def test_wine_visual_lavapipe_native_spirv(vkr, record_property):
    if _MISSING:
        pytest.skip(_MISSING)
    stride = _stride()
    runnable = _IN_SCOPE
    chosen = runnable[::stride]
    start = time.perf_counter()
    passed, unexpected, fixed = 0, [], []
    for case in chosen:
        res = wc.run_case(case, vulkan=True)
        known = KNOWN_FAILURES.get(case.id)
        passed += res.passed
        if res.passed and known:
            fixed.append(case.id)
        elif not res.passed and not known:
            unexpected.append(f"{case.id}: {res.describe()}")
    elapsed = time.perf_counter() - start
    summary = (f"wine visual cases on lavapipe (native spirv): {len(chosen)} of {len(runnable)} in-scope "
               f"(every {stride}), {passed} passed, {len(chosen) - passed} failed ({len(KNOWN_FAILURES)} known); "
               f"{elapsed:.1f}s")
    print(summary)
    record_property("corpus_summary", summary)
    assert not unexpected, "\n".join(unexpected)
    assert not fixed, f"known failures now pass (remove them from KNOWN_FAILURES): {fixed}"
    assert passed >= len(chosen) - len(KNOWN_FAILURES) and len(chosen) > 0
