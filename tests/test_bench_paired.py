"""``scripts/bench``'s per-shader comparison of two translate targets
(``paired``): each shader's time under one target over its time under the
first, on the times the bench's own loop took.

(What the figures are is the bench's to print; these check only that each
ratio pairs one shader's two times, whatever order the shaders ran in.)
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

import pytest

from xlate.bytecode.asm import assemble_bytes

BENCH = Path(__file__).resolve().parents[1] / "scripts" / "bench"


@pytest.fixture(scope="module")
def bench():
    loader = importlib.machinery.SourceFileLoader("xlate_bench_script", str(BENCH))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[loader.name] = module  # (its dataclasses look their module up while they are made)
    loader.exec_module(module)
    yield module
    sys.modules.pop(loader.name, None)


def test_ratios_pair_each_shader_with_itself(bench):
    first = bench.Result("translate glsl330", by_shader={0: 100, 1: 200, 2: 400, 3: 50})
    # shader 3 failed under the second target; shader 2 ran twice as long
    second = bench.Result("translate spirv", by_shader={0: 90, 1: 180, 2: 800})
    other = bench.Result("decode", by_shader={0: 1, 1: 1, 2: 1, 3: 1})  # not a translate stage: left out
    (row,) = bench.paired([other, first, second])
    assert row["stage"] == "translate spirv" and row["against"] == "translate glsl330"
    assert row["shaders"] == 3
    assert row["ratio_median"] == pytest.approx(0.9)
    assert row["faster_share"] == pytest.approx(2 / 3)
    assert row["ratio_q1"] <= row["ratio_median"] <= row["ratio_q3"]
    assert bench.paired([first]) == []  # one target: nothing to pair


@pytest.mark.parametrize("interleave", [False, True])
def test_the_bench_loop_records_each_shaders_time(bench, monkeypatch, interleave):
    """The bench's own loop over three shaders and two targets: every
    shader's time lands under its number, in both orders of running."""
    stages = [bench.Stage(f"translate {t}", bench._translator(t), takes="bytes") for t in ("glsl330", "spirv")]
    monkeypatch.setattr(bench, "STAGES", stages)
    sources = ["ps_2_0\nmov oC0, c0\n", "vs_2_0\ndcl_position v0\nmov oPos, v0\n",
               "ps_3_0\ndcl_texcoord0 v0\ndcl_2d s0\ntexld r0, v0, s0\nmul oC0, r0, c0\n"]
    blobs = [(f"shader{k}", assemble_bytes(src)) for k, src in enumerate(sources)]
    results, effects = bench.run(blobs, 1, interleave)
    assert effects == 0
    for result in results:
        assert sorted(result.by_shader) == [0, 1, 2]
        assert sorted(result.by_shader.values()) == sorted(result.times_ns)
    (row,) = bench.paired(results)
    assert row["shaders"] == 3 and 0 < row["ratio_median"]
