"""Every sm1/sm2/sm3 shader of the peer corpora, translated to GLSL 3.30, on
the reference interpreter and on llvmpipe with seeded random inputs
(``xlate.verify.differential``: tolerance model and input ranges in its
docstring).  Corpora: fxc-wine (every blob that is a shader: plain, _sw,
/Gpp and the other flag variants, shaders extracted from effects), fxc
hlsldecompiler, vkd3d d3dbc, Wine's shaders.jsonl and composed shaders.

``KNOWN_MISMATCHES`` lists the shaders that fail, with the reason; the test
fails when an unlisted shader fails and when a listed one passes (then the
bug is fixed: remove the entry).  Counts go to the corpus summary.

The input seed is fixed (``XLATE_DIFF_SEED``, default 0) so that the table
stays exact; ``xlate verify FILE --seed N`` replays one shader.
"""

from __future__ import annotations

import functools
import os

import pytest
from corpus import CORPORA, iter_corpus, iter_wine_shaders, require_corpus

from xlate.bytecode import decode
from xlate.errors import XlateError
from xlate.verify import differential as D

SEED = int(os.environ.get("XLATE_DIFF_SEED", "0"))
CHUNKS = 8

POW0 = ("translator bug: pow(0, y < 0).  The translation emits `y == 0 ? 1 : pow(abs(x), y)`; GLSL's pow is "
        "undefined for x == 0, y < 0 and llvmpipe returns 0, where D3D9 (docs, semantics 2.5, the reference) "
        "gives +inf.  Minimal: ps_3_0 / def c0, 0, -0.5, 1, 0 / dcl_texcoord0 v0 / max r0.x, -v0_abs.x, c0.x / "
        "pow r1.x, r0.x, c0.y / min oC0, r1.x, c0.z: reference 1, driver 0")
POW0_NAN = POW0 + ("; here pow(0, c4.x < 0) = +inf feeds a loop that adds +inf and -inf, so the reference "
                   "is NaN and the driver finite")
LOG_INF = ("translator bug: log(+inf).  The translation special-cases log(0) = -FLT_MAX but leaves "
           "log2(+inf) = +inf, where the reference clamps the IEEE result to FLT_MAX (semantics 7.1, as the "
           "translation does for rcp); frc of it is then NaN.  An RGBE decode of random texels overflows to "
           "+inf.  Minimal: ps_3_0 / def c0, 3e38, 0, 0, 1 / dcl_texcoord0 v0 / mad r0.x, v0_abs.x, c0.x, c0.x / "
           "log r0.z, r0.x / mov oC0, r0: reference 3.4e38, driver inf")
SW_CUT = ("translator limitation by design (it says so in a diagnostic): a dynamically indexed c# file of a _sw "
          "shader keeps only the registers its CTAB allocates (86 here) and reads past them give 0; skinning with "
          "random bone indices reads past them, where the reference (8192 registers) reads the random "
          "constants")

KNOWN_MISMATCHES: dict[str, str] = {
    "fxc-wine:dxdecompiler/HDRLighting__HDRLighting.PointLight.ps_3_0.bin": POW0_NAN,
    "fxc-wine:dxdecompiler/HDRLighting__HDRLighting.PointLight.ps_3_0+Gpp.bin": POW0_NAN,
    "fxc-wine:dxdecompiler/HDRLighting__HDRLighting.PointLight.ps_3_0+Gfp.bin": POW0_NAN,
    "fxc-wine:dxdecompiler/HDRLighting__HDRLighting.PointLight.ps_3_0+Zi.bin": POW0_NAN,
    "fxc-wine:dxdecompiler/HDRLighting__HDRLighting.PointLight.ps_3_sw.bin": POW0_NAN,
    "fxc-wine:dxdecompiler/StateManager__reflective01.VS.vs_2_0+Zpr.bin": POW0,
    "fxc-wine:dxdecompiler/HDRFormats__HDRFormats.fxobj07.ps_2_0.bin": LOG_INF,
    "fxc-wine:dxdecompiler/MultiAnimation__MultiAnimation.VertSkinning.vs_2_sw.bin": SW_CUT,
    "fxc-wine:dxdecompiler/MultiAnimation__MultiAnimation.VertSkinning.vs_3_sw.bin": SW_CUT,
    "fxc-wine:dxdecompiler/SkinnedMesh__skinnedmesh.VShade.vs_2_sw.bin": SW_CUT,
    "fxc-wine:dxdecompiler/SkinnedMesh__skinnedmesh.VShade.vs_3_sw.bin": SW_CUT,
}


@functools.lru_cache(maxsize=None)
def corpus_shaders() -> tuple[tuple[str, bytes], ...]:
    """(id, blob) of every corpus blob that decodes as a shader."""
    require_corpus()
    out = []
    for name in CORPORA:
        blobs = iter_wine_shaders(complete_only=True) if name == "wine" else iter_corpus(name)
        for blob_id, data in blobs:
            try:
                decode(data)
            except XlateError:
                continue  # fx_2_0 effects, deliberately broken arrays
            out.append((f"{name}:{blob_id}", data))
    return tuple(out)


@pytest.fixture(scope="module")
def gl():
    why = D.gl_available()
    if why:
        pytest.skip(why)


def test_known_mismatches_exist():
    ids = {i for i, _ in corpus_shaders()}
    missing = sorted(set(KNOWN_MISMATCHES) - ids)
    assert not missing, f"KNOWN_MISMATCHES names shaders that are not in the corpus: {missing}"


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_corpus_differential(gl, chunk, record_property):
    shaders = corpus_shaders()[chunk::CHUNKS]
    unexpected, fixed = [], []
    counts = {"pass": 0, "fail": 0, "error": 0, "skip": 0}
    known = compared = skipped = 0
    stages = {"vs": 0, "ps": 0}
    for sid, data in shaders:
        verdict = D.check_shader(data, seed=SEED, name=sid)
        counts[verdict.status] += 1
        stages["vs" if verdict.version.startswith("vs") else "ps"] += 1
        compared += verdict.compared
        skipped += verdict.skipped
        if sid in KNOWN_MISMATCHES:
            if verdict.ok:
                fixed.append(f"{sid}: passes now; remove it from KNOWN_MISMATCHES ({KNOWN_MISMATCHES[sid][:60]}...)")
            else:
                known += 1
        elif not verdict.ok:
            unexpected.append(verdict.report())
    record_property("corpus_summary", (
        f"differential corpus [{chunk + 1}/{CHUNKS}]: {len(shaders)} shaders ({stages['vs']} vs, {stages['ps']} ps) "
        f"on llvmpipe, {counts['pass']} pass, {known} known mismatches, {len(unexpected)} unexpected; "
        f"{compared} components compared, {skipped} ill-conditioned skipped"))
    problems = unexpected + fixed
    assert not problems, f"{len(unexpected)} unexpected failures, {len(fixed)} fixed known mismatches:\n\n" + \
        "\n\n".join(problems)
