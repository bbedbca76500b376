"""Shaders with many control blocks (xlate/verify/blocks.py): what the
translation of a large one gives, and that cleanup's one-walk removal of
dead-store chains ends where rounds of ``RegisterAnalysis`` end.
(How the cost grows is measured by ``scripts/bench --blocks``.)"""

from __future__ import annotations

import copy

import pytest

from xlate import translate
from xlate.backends.check import validate_glsl
from xlate.bytecode import decode
from xlate.bytecode.asm import assemble_bytes
from xlate.ir.builder import lift
from xlate.ir.ops import Code
from xlate.options import Options
from xlate.passes import run_passes
from xlate.passes.cleanup import remove_dead_code
from xlate.verify.blocks import IF_DEPTH, LOOP_DEPTH, PATTERNS, block_shader

from .test_cleanup import _dead_code_by_register_analysis


def _program_before_cleanup(pattern: str, blocks: int):
    program = lift(decode(assemble_bytes(block_shader(pattern, blocks)[0])))
    return run_passes(program, Options(), until="io")


def test_the_patterns_nest_as_deep_as_d3d9_allows():
    for pattern, opener, depth in (("nested-if", "if", IF_DEPTH), ("nested-loop", ("loop", "rep"), LOOP_DEPTH)):
        deepest = level = 0
        for line in block_shader(pattern, 100)[0].splitlines():
            word = line.split()[0]
            if word.startswith(opener):
                level += 1
                deepest = max(deepest, level)
            elif word in ("endif", "endloop", "endrep") and (word == "endif") == (opener == "if"):
                level -= 1
        assert deepest == depth, pattern


def test_a_large_control_heavy_shader_translates_to_valid_glsl():
    """Every pattern at 400 blocks (1,600 to 3,700 instructions): the full IR
    validator passes, glslang accepts the GLSL, and in sequential loops the
    save and restore of ``aL`` around each (a chain of dead stores through
    every loop: nothing reads ``aL`` after the last) are gone."""
    items = []
    for pattern in PATTERNS:
        text, count = block_shader(pattern, 400)
        assert count > 1500
        t = translate(assemble_bytes(text), "glsl330", validate=True)
        assert t.reflection["stage"] == ("vertex" if pattern == "loop-vs" else "fragment")
        if pattern.startswith("loop") and pattern != "loop-call-late":
            # (nested, an inner loop's save of the outer aL is needed; a
            # CALL at the end reads the last one restored)
            assert "saved" not in t.code
        items.append((t.code, t.reflection["stage"]))
    verdicts = validate_glsl(items)
    assert verdicts == [None] * len(items), [v for v in verdicts if v][:1]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_cleanup_of_block_shaders_agrees_with_the_register_analysis(pattern):
    """``remove_dead_code`` (``sweep`` and its chain walk; ``sweep_slots``
    for loop-vs's array) keeps exactly the ops that alternating
    ``remove_unused_values`` and ``remove_dead_stores`` keeps."""
    fast = _program_before_cleanup(pattern, 30)
    reference = copy.deepcopy(fast)
    results = []
    for program, dead_code in ((fast, remove_dead_code), (reference, _dead_code_by_register_analysis)):
        fn = program.functions["main"]
        place = {id(op): i for i, op in enumerate(fn.body)}
        dead_code(program, fn)
        results.append([place[id(op)] for op in fn.body])
    assert results[0] == results[1]
    # the chain is there to remove: a restored aL that nothing reads
    if pattern.startswith("loop") and pattern != "loop-call-late":
        stores = [op for op in reference.functions["main"].body if op.code is Code.STORE]
        assert not any("saved" in op.var.name for op in stores)
