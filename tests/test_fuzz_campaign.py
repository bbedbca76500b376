"""The fuzz campaign's own logic (fuzzing/, scripts/fuzz) on tiny runs:
inputs depend on (seed, entry, index) only, N workers give what one gives,
a worker that crashes or hangs is recorded and replaced, the log adds parts
up, and the effect and convert entry points run their checks."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import fuzzing  # noqa: E402,F401  (puts tests/ on the path for corpus and hostile)
from corpus import corpus_available  # noqa: E402
from fuzzing import entries, inputs, pool  # noqa: E402
from fuzzing import log as campaign_log  # noqa: E402
from fuzzing.campaign import main  # noqa: E402


needs_effects = pytest.mark.skipif(not corpus_available("fxc-wine", "index.jsonl"),
                                   reason="the effect seeds come from ../shared/peer-corpus (absent)")


@pytest.mark.parametrize("entry", ["decode", "asm", "glsl330"])
def test_input_depends_on_seed_entry_and_index_only(entry):
    first = [inputs.make_input(entry, 7, i) for i in (0, 5, 123)]
    again = [inputs.make_input(entry, 7, i) for i in (123, 5, 0)][::-1]
    assert first == again
    assert inputs.make_input(entry, 7, 5) != inputs.make_input(entry, 8, 5) or inputs.make_input(entry, 7, 6) != \
        inputs.make_input(entry, 8, 6)
    assert len({repr(inputs.make_input(entry, 7, i)) for i in range(20)}) > 10


def test_workers_do_not_change_the_outcome():
    one_end, one = pool.run_pool("decode", 3, 40, stop=160, jobs=1, chunk=30)
    two_end, two = pool.run_pool("disasm", 3, 40, stop=160, jobs=2, chunk=17)
    again_end, again = pool.run_pool("decode", 3, 40, stop=160, jobs=2, chunk=17)
    assert one_end == two_end == again_end == 160
    assert one.counts == again.counts and sum(one.counts.values()) == 120
    assert sum(two.counts.values()) == 120 and not one.failures and not two.failures


@pytest.mark.parametrize("method", [None, "forkserver"])
def test_a_crash_or_hang_is_recorded_and_the_worker_replaced(method):
    # The hidden "selftest" entry: input 7 kills its worker, 13 overruns the
    # alarm, 21 blocks it (the parent's stall check ends it), 30 raises.  It
    # runs in the worker itself, so it works for fresh (forkserver) workers too.
    seen = []
    limits = pool.Limits(seconds=0.5, grace=0.5)
    end, outcome = pool.run_pool(inputs.SELFTEST, 0, 0, stop=40, jobs=2, chunk=10, limits=limits, method=method,
                                 on_chunk=lambda a, b, counts, failures: seen.append((a, b)))
    assert end == 40
    kinds = {f.index: f.kind for f in outcome.failures}
    assert kinds[7] == "CRASH worker exit 3"
    assert kinds[13] == "HANG" and kinds[21] == "HANG"
    assert kinds[30].startswith("CRASH KeyError")
    assert outcome.counts == Counter(ok=36, CRASH=2, HANG=2)  # every input counted once


def test_the_pool_forks_only_a_process_without_driver_threads(monkeypatch):
    import ctypes
    import threading

    from xlate.verify import drivers

    monkeypatch.setattr(drivers, "_STARTED", set())
    assert pool.fork_hazard() is None or "threads named" in pool.fork_hazard()  # xdist may run this after GL tests
    if pool.fork_hazard() is None:
        assert pool.start_method() == "fork"
    # A runner noted a driver: no fork.
    monkeypatch.setattr(drivers, "_STARTED", {"llvmpipe"})
    assert "llvmpipe" in pool.fork_hazard() and pool.start_method() == "forkserver"
    monkeypatch.setattr(drivers, "_STARTED", set())
    # A driver's native thread, seen by its name (llvmpipe names its threads so).
    named, done = threading.Event(), threading.Event()

    def driver_like():
        ctypes.CDLL(None).prctl(15, b"llvmpipe-9", 0, 0, 0)  # PR_SET_NAME
        named.set()
        done.wait(10)

    thread = threading.Thread(target=driver_like)
    thread.start()
    try:
        assert named.wait(10)
        assert "llvmpipe-9" in pool.fork_hazard() and pool.start_method() == "forkserver"
    finally:
        done.set()
        thread.join()


def test_a_process_that_drew_starts_fresh_workers():
    from xlate.verify.gl import GLUnavailable, runner

    try:
        runner()  # llvmpipe's threads now run in this process
    except GLUnavailable as exc:
        pytest.skip(str(exc))
    assert pool.fork_hazard() and pool.start_method() == "forkserver"
    end, outcome = pool.run_pool("decode", 3, 0, stop=60, jobs=2, chunk=25)
    here, failures = pool.run_range("decode", 3, 0, 60, pool.Limits())
    assert end == 60 and outcome.counts == here and not outcome.failures and not failures


def test_log_parts_add_up(tmp_path):
    lines = [campaign_log.record(seed=0, entry="asm", start=a, end=b, seconds=10, cpu_seconds=8, jobs=1,
                                 counts=Counter(ok=b - a)) for a, b in ((0, 100), (100, 250), (50, 120), (400, 500))]
    lines.append(campaign_log.record(seed=1, entry="asm", start=0, end=10, seconds=1, cpu_seconds=1, jobs=1,
                                     counts=Counter(ok=10)))
    assert campaign_log.covered_end(lines, 0, "asm") == 250
    assert campaign_log.covered_end(lines, 1, "asm") == 10
    assert campaign_log.covered_end(lines, 0, "decode") == 0
    total = campaign_log.totals(lines)["asm"]
    assert total["inputs"] == 250 + 100 + 10 and total["parts"] == 5
    assert "asm" in campaign_log.summary_text(lines)


def test_failures_rerun_later_are_no_longer_open():
    def line(a, b, **failures):
        counts = Counter(ok=b - a)
        counts.update(failures)
        return campaign_log.record(seed=0, entry="effect", start=a, end=b, seconds=1, cpu_seconds=1, jobs=1,
                                   counts=counts)
    lines = [line(0, 100, HANG=2), line(100, 200, CRASH=1), line(0, 60), line(50, 100)]
    assert campaign_log.rerun(lines, 0) and not campaign_log.rerun(lines, 1)
    total = campaign_log.totals(lines)["effect"]
    assert total["failures"]["HANG"] == 2 and total["failures"]["CRASH"] == 1 and total["open"] == 1
    lines.append(line(100, 200))
    assert campaign_log.totals(lines)["effect"]["open"] == 0
    # a gap in the later lines leaves the earlier failures open
    assert not campaign_log.rerun([line(0, 100, HANG=1), line(0, 40), line(60, 100)], 0)


def test_the_command_continues_where_the_log_ends(tmp_path, capsys):
    log = tmp_path / "campaign.jsonl"
    args = ["--entry", "decode,info", "--cases", "30", "--log", str(log), "--reproducers", str(tmp_path / "r")]
    assert main(args) == 0
    assert main(args + ["--continue"]) == 0
    assert main(["--entry", "decode", "--cases", "300", "--part", "3/10", "--log", str(log)]) == 0
    lines = campaign_log.read(log)
    assert [(ln["entry"], ln["start"], ln["end"]) for ln in lines] == [
        ("decode", 0, 30), ("info", 0, 30), ("decode", 30, 60), ("info", 30, 60), ("decode", 60, 90)]
    assert all(ln["failures"]["CRASH"] == 0 and sum(ln["outcomes"].values()) == ln["inputs"] for ln in lines)
    assert campaign_log.totals(lines)["decode"]["inputs"] == 90
    capsys.readouterr()
    assert main(["--summary", "--log", str(log)]) == 0
    assert "decode" in capsys.readouterr().out


@needs_effects
def test_effect_mutations_edit_the_fields_the_parser_reads():
    from fuzzing import effects

    seeds = effects.effect_seeds()
    assert len(seeds) > 50
    whats = {w for s in seeds for _, w in s.fields}
    assert {"parameter count", "state operation", "name offset", "resource size"} <= whats
    assert any(s.shaders for s in seeds)
    seed = next(s for s in seeds if s.positions(lambda w: w == "pass name offset"))
    rng = inputs.rng_of(0, "effect", 0)
    data = bytearray(seed.data)
    effects._mutate(data, seed, "name", rng)
    assert len(data) > len(seed.data)  # the hostile name went to the end, a name offset points there
    outcome = entries.run_effect(bytes(data))
    assert outcome.startswith("ok") or outcome == "EffectError"


@needs_effects
def test_effect_and_convert_entry_points_run(tmp_path):
    counts: Counter = Counter()
    c, failures = pool.run_range("effect", 0, 0, 40, pool.Limits(glslang_share=0.1))
    assert not failures and sum(c[k] for k in c if k != "glslang checked") == 40
    counts, failures = pool.run_range("convert", 0, 0, 16, pool.Limits())
    assert not failures and sum(counts.values()) == 16
    assert {"converted", "not a shader"} & set(counts)
    tree = pool.unit_input("convert", 0, 8)
    assert len(tree) == inputs.TREE_FILES and len({name for name, _ in tree}) == inputs.TREE_FILES
    # a saved tree replays
    from fuzzing.campaign import save
    path = save(tmp_path, "convert", "CRASH x", tree, tree, "seed 0 input 8", "report")
    assert main(["--entry", "convert", "--replay", str(path)]) == 0
    assert json.loads(json.dumps([n for n, _ in tree]))  # names survive JSON (the manifest's)


def test_memoised_refusals_do_not_pile_up_tracebacks():
    import traceback

    import xlate.api as api
    from xlate.errors import XlateError

    depths = []
    with entries.memoised_translate():
        for _ in range(3):
            with pytest.raises(XlateError) as info:
                api.translate(b"\x00\x02\xff\xff\x00\x00", "glsl330")
            depths.append(len(traceback.extract_tb(info.value.__traceback__)))
    assert depths[0] == depths[1] == depths[2]
    assert api.translate.__module__ == "xlate.api"  # put back
