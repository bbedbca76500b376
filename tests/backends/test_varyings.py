"""The varying-location plan (xlate/backends/varyings.py) as the layout
runs it: ``plan`` looks for Vulkan varyings sharing a location only when
one is off the location table (``Layout.off_table``); these tests check
that the look it skips would have found nothing."""

from __future__ import annotations

import os
import sys

import pytest

from xlate.api import decode, lift, run_passes
from xlate.backends import layout, varyings
from xlate.backends.targets import get_target, resolve_options
from xlate.bytecode.asm import assemble_bytes
from xlate.errors import XlateError
from xlate.options import Options

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import corpus  # noqa: E402

VARYING_KINDS = ("vs_output", "fs_input")


def _planned(blob: bytes, target_name: str):
    target = get_target(target_name)
    options = resolve_options(target, Options())
    program = lift(decode(blob))
    run_passes(program, options)
    return program, layout.plan(program, target, options)


def _locations(lay) -> list[tuple[str, int | None]]:
    return [(d.name, d.location) for d in lay.decls if d.kind in VARYING_KINDS]


def _assert_nothing_to_spread(program, lay) -> None:
    """``spread_varyings`` run anyway on a layout plan() skipped moves
    nothing and says nothing."""
    before = _locations(lay)
    noted = list(program.notes.get("diagnostics", ()))
    varyings.spread_varyings(lay, program)
    assert _locations(lay) == before
    assert list(program.notes.get("diagnostics", ())) == noted
    located = [loc for _, loc in before if loc is not None]
    assert len(located) == len(set(located))


@pytest.mark.parametrize("target", ["vulkan", "spirv"])
def test_table_varyings_skip_the_spread(target):
    vs = "vs_3_0\ndcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord7 o2\ndcl_color1 o3\ndcl_normal0 o4\n" \
         "mov o0, c0\nmov o1, c1\nmov o2, c2\nmov o3, c3\nmov o4, c4\n"
    ps = "ps_3_0\ndcl_texcoord0 v0\ndcl_texcoord7 v1\ndcl_color1 v2\ndcl_normal0 v3\n" \
         "add r0, v0, v1\nadd r0, r0, v2\nadd oC0, r0, v3\n"
    for src in (vs, ps):
        program, lay = _planned(assemble_bytes(src), target)
        assert not lay.off_table
        _assert_nothing_to_spread(program, lay)


@pytest.mark.parametrize("target", ["vulkan", "spirv"])
def test_off_table_varyings_are_spread(target):
    """normal2 and tangent1 are off the table and share a fallback
    location: the layout flags them and moves one."""
    program, lay = _planned(assemble_bytes("ps_3_0\ndcl_normal2 v0\ndcl_tangent1 v1\nadd oC0, v0, v1\n"), target)
    assert lay.off_table
    located = [loc for _, loc in _locations(lay)]
    assert len(located) == 2 and len(set(located)) == 2
    assert any("would share Vulkan location" in d for d in program.notes["diagnostics"])


def test_corpus_layouts_skipped_have_nothing_to_spread():
    """Every 16th fxc-wine shader (and every wine shader), spirv target:
    where plan() skipped the spread, it would have moved nothing."""
    if not corpus.corpus_available("fxc-wine", "index.jsonl"):
        pytest.skip("peer corpus (../shared/peer-corpus/fxc-wine) not present")
    blobs = [data for k, (_, data) in enumerate(corpus.iter_fxc_wine(include_effects=False)) if k % 16 == 0]
    blobs += [data for _, data in corpus.iter_wine_shaders(complete_only=True)]
    skipped = flagged = 0
    for blob in blobs:
        try:
            program, lay = _planned(blob, "spirv")
        except XlateError:
            continue
        if lay.off_table:
            flagged += 1
        else:
            skipped += 1
            _assert_nothing_to_spread(program, lay)
    print(f"spirv layouts: {skipped} skip the spread, {flagged} have a varying off the table")
    assert skipped > 100
