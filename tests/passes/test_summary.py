"""``ir.summary``: what the passes' last walk saw (``program.notes["summary"]``)
is what a walk over every op finds, and a backend given a program without
it (or with one that no longer holds) writes the same code."""

from __future__ import annotations

import os
import sys

import pytest

from xlate.backends import generate, get_target
from xlate.backends.targets import resolve_options
from xlate.bytecode.decoder import decode
from xlate.errors import XlateError
from xlate.ir.builder import lift
from xlate.ir.ops import Code, Op
from xlate.ir.summary import summarize, summary_of
from xlate.ir.types import F4
from xlate.options import Options
from xlate.passes import run_passes

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import corpus  # noqa: E402

from .conftest import lift_asm  # noqa: E402


def _facts(summary) -> tuple:
    """A summary's content, its loads by identity and in no particular order."""
    return summary.calls, sorted(map(id, summary.constant_loads)), summary.legacy_uses


def _passed(data: bytes, options: Options):
    try:
        program = lift(decode(data))
        run_passes(program, options)
    except XlateError:
        return None
    return program


@pytest.mark.parametrize("options", [Options(), Options(fixed_outputs=True, half_pixel=True, flip_y=True,
                                                         clip_z=True, legacy_multiply=True)],
                         ids=["default", "fixed-outputs"])
def test_the_pipelines_summary_is_what_a_walk_finds(options):
    """Over every fxc-wine shader (every 4th unless XLATE_CORPUS_FULL=1):
    the summary the pipeline records holds and agrees with ``summarize``
    (constant-file LOADs, legacy multiplies and dots, CALLs), io's islands
    included; the few programs without one are the ones cleanup's walks do
    not see whole."""
    root = corpus.require_corpus("fxc-wine")
    records = [r for r in corpus.fxc_wine_records(root) if not r.is_effect]
    if os.environ.get("XLATE_CORPUS_FULL") != "1":
        records = records[::4]
    recorded = legacy = loads = calls = 0
    for record in records:
        program = _passed(record.data, options)
        if program is None:
            continue
        found = program.notes.get("summary")
        if found is None:
            continue
        recorded += 1
        assert found.holds(program)
        walked = summarize(program)
        assert _facts(found) == _facts(walked), record.id
        legacy += bool(walked.legacy_uses)
        loads += bool(walked.constant_loads)
        calls += walked.calls
    assert recorded > 0.95 * len(records)
    assert legacy and loads and calls  # (the corpus exercises each fact)


def test_a_summary_that_no_longer_holds_is_not_used():
    """An edit after the passes that replaces or resizes a body: the
    summary no longer holds, and ``summary_of`` walks the program as it is."""
    program = lift_asm("vs_2_0\ndcl_position v0\nmul r0, v0, c3\nmov oPos, r0\n")
    run_passes(program, Options())
    recorded = program.notes["summary"]
    assert summary_of(program) is recorded
    loads = [op for op in program.main.body if op.code is Code.LOAD and op.var.name == "c"]
    assert [op.imm for op in recorded.constant_loads] == [op.imm for op in loads] == [(3,)]
    c = loads[0].var
    extra = Op(Code.LOAD, F4, (), (7,), c, -1)
    program.main.body.insert(0, extra)  # resized in place
    assert not recorded.holds(program)
    assert sorted(op.imm for op in summary_of(program).constant_loads) == [(3,), (7,)]
    program.main.body = list(program.main.body)  # replaced, as long
    assert not recorded.holds(program)
    assert summary_of(program) is not recorded


@pytest.mark.parametrize("target", ["spirv", "glsl330", "vulkan", "wgsl"])
def test_backends_write_the_same_code_without_the_summary(target):
    """Every 8th fxc-wine shader: the code and reflection with the passes'
    summary are those written from a walk of their own (the note dropped)."""
    root = corpus.require_corpus("fxc-wine")
    records = [r for r in corpus.fxc_wine_records(root) if not r.is_effect][::8]
    tgt = get_target(target)
    options = resolve_options(tgt, Options())
    compared = 0
    for record in records:
        program = _passed(record.data, options)
        if program is None or "summary" not in program.notes:
            continue
        try:
            with_summary = generate(program, tgt, options)
        except XlateError:
            continue
        del program.notes["summary"]
        assert generate(program, tgt, options) == with_summary, record.id
        compared += 1
    assert compared > 0.9 * len(records)
