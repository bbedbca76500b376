"""A translation leaves no cyclic garbage: its IR is freed by reference
counting as soon as the last reference goes.

A reference cycle anywhere in the IR (a pass keeping a closure over itself
while it holds the program, say) hands the whole program, every op of it,
to the cyclic collector, which then walks it after the translation: a few
percent of a batch conversion's CPU (issue #12).  These shaders go through
the passes that build such closures (io's epilogue: the position fix-ups,
split outputs, vs_1_x/2_x colours) and the rest of the pipeline.
"""

from __future__ import annotations

import gc
import weakref

import pytest

from xlate import translate
from xlate.backends import generate, get_target, resolve_options
from xlate.bytecode import decode
from xlate.bytecode.asm import assemble_bytes
from xlate.ir.builder import lift
from xlate.options import Options
from xlate.passes import run_passes

SHADERS = {
    "vs_2_0 colours": "vs_2_0\ndcl_position v0\ndcl_color v1\nmov oPos, v0\nmov oD0, v1\nmov oT0, v0\n",
    "vs_3_0 split output": (
        "vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord0 o1.xy\ndcl_texcoord1 o1.zw\n"
        "mov o0, v0\nmov o1, v0.yxwz\n"
    ),
    "vs_3_0 loop": (
        "vs_3_0\ndcl_position v0\ndcl_position o0\ndefi i0, 3, 0, 1, 0\nmov r0, v0\n"
        "loop aL, i0\nadd r0, r0, v0\nendloop\nmov o0, r0\n"
    ),
    "ps_3_0": "ps_3_0\ndcl_texcoord0 v0\ndcl_2d s0\ntexld r0, v0, s0\nmul oC0, r0, v0\n",
}


@pytest.mark.parametrize("name", sorted(SHADERS))
@pytest.mark.parametrize("target", ["glsl330", "essl100", "spirv"])
def test_the_ir_is_freed_without_the_cyclic_collector(name, target):
    blob = assemble_bytes(SHADERS[name])
    tgt = get_target(target)
    options = resolve_options(tgt, Options(half_pixel=True, flip_y=True))
    enabled = gc.isenabled()
    gc.disable()
    try:
        program = lift(decode(blob))
        run_passes(program, options)
        code, _ = generate(program, tgt, options)
        assert code
        freed = weakref.ref(program)
        del program
        assert freed() is None, "the IR is part of a reference cycle"
    finally:
        if enabled:
            gc.enable()


@pytest.mark.parametrize("name", sorted(SHADERS))
def test_translate_makes_no_cyclic_garbage(name):
    blob = assemble_bytes(SHADERS[name])
    translate(blob, "glsl330")  # first use: anything imported or cached once is made here
    gc.collect()
    translate(blob, "glsl330", half_pixel=True)
    assert gc.collect() == 0
