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

SW_CUT = ("translator limitation by design (it says so in a diagnostic): a dynamically indexed c# file of a _sw "
          "shader keeps only the registers its CTAB allocates (86 here) and reads past them give 0; skinning with "
          "random bone indices reads past them, where the reference (8192 registers) reads the random "
          "constants")

KNOWN_MISMATCHES: dict[str, str] = {
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
