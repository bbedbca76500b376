"""Dynamic indices (xlate/passes/relative.py)."""

from __future__ import annotations

import numpy as np
import pytest

from xlate.bytecode.tables import RegisterType as R
from xlate.ir.ops import Code
from xlate.ir.program import Storage
from xlate.ir.types import F4, I1
from xlate.ir.validate import validate
from xlate.options import Options
from xlate.passes import relative, run_pass

from .conftest import lower, ops_of
from .ireval import evaluate
from .irbuild import IRBuilder, version


def finish(program, passes=("relative", "constants", "cleanup")):
    for name in passes:
        run_pass(name, program, Options())
    validate(program)
    return program


@pytest.mark.parametrize("name, storage, size", [
    ("vs_1_1", Storage.FLOAT_CONST, 256), ("vs_2_0", Storage.FLOAT_CONST, 256),
    ("vs_3_0", Storage.FLOAT_CONST, 256), ("vs_3_sw", Storage.FLOAT_CONST, 8192),
    ("vs_2_sw", Storage.INT_CONST, 2048), ("ps_3_0", Storage.FLOAT_CONST, 224),
    ("ps_2_x", Storage.FLOAT_CONST, 32), ("ps_2_0", Storage.FLOAT_CONST, 32), ("ps_1_4", Storage.FLOAT_CONST, 8),
    ("vs_3_0", Storage.BOOL_CONST, 16), ("vs_3_0", Storage.INPUT, 16), ("ps_3_0", Storage.INPUT, 10),
    ("vs_3_0", Storage.OUTPUT, 12),
])
def test_file_sizes(name, storage, size):
    assert relative.file_size(version(name), storage) == size


C_INDEXED = """vs_2_0
dcl_position v0
mova a0.x, v0.x
mov oPos, c[a0.x+2]
"""


@pytest.mark.parametrize("a0, element", [(-3, -1), (-2, 0), (0, 2), (253, 255), (254, 256), (1000, 1002)])
def test_constant_reads_out_of_range_give_zero(a0, element):
    program = finish(lower(C_INDEXED))
    c = program.variables[[v.name for v in program.variables].index("c")]
    assert c.length == 256
    assert program.notes["dynamic_arrays"] == {"c"}
    consts = {k: (k + 0.5, -k, 2.0 * k, 1.0) for k in range(256)}
    out = evaluate(program, {"v0": (a0, 0, 0, 0), "c": consts})["oPos"]
    expected = consts[element] if 0 <= element < 256 else (0, 0, 0, 0)
    np.testing.assert_array_equal(out, np.array(expected, np.float32))


def test_guard_shape_and_idempotence():
    program = lower(C_INDEXED)
    run_pass("relative", program, Options())
    (load,) = [op for op in ops_of(program, Code.LOAD) if op.args]
    index = load.args[0]
    assert index.code is Code.SELECT and load.imm == (0,)
    before = [op.code for _, op in program.all_ops()]
    run_pass("relative", program, Options())  # already guarded: nothing changes
    assert [op.code for _, op in program.all_ops()] == before
    validate(program)


def test_unguarded_index_fails_validation_before_the_pass():
    from xlate.ir.validate import IRValidationError

    program = lower(C_INDEXED)
    with pytest.raises(IRValidationError, match="not bounds-checked"):
        validate(program)


O_LOOP = """vs_3_0
dcl_position v0
dcl_position o0
dcl_texcoord0 o1
dcl_texcoord1 o2
dcl_texcoord2 o3
dcl_texcoord3 o11
defi i0, 3, 1, 1, 0
defi i1, 2, 11, 1, 0
mov o0, v0
mov o1, c10
mov o2, c10
mov o3, c10
mov o11, c10
loop aL, i0
mov o[aL].xy, c[aL]
endloop
loop aL, i1
mov o[aL].w, c20
endloop
"""


def test_vs3_output_writes_in_a_loop_land_in_the_right_outputs():
    program = finish(lower(O_LOOP))
    consts = {1: (1, 2, 3, 4), 2: (5, 6, 7, 8), 3: (9, 10, 11, 12), 10: (-1, -2, -3, -4), 20: (7, 7, 7, 7)}
    # poison the local array: the pass must initialise what it reads
    result = evaluate(program, {"c": consts, "v0": (4, 3, 2, 1), "o_file": {k: (99,) * 4 for k in range(12)}})
    np.testing.assert_array_equal(result["o0"], [4, 3, 2, 1])
    np.testing.assert_array_equal(result["o1"], [1, 2, -3, -4])  # .xy from c1, zw kept
    np.testing.assert_array_equal(result["o2"], [5, 6, -3, -4])
    np.testing.assert_array_equal(result["o3"], [9, 10, -3, -4])
    np.testing.assert_array_equal(result["o11"], [-1, -2, -3, 7])  # aL = 12 is outside the file: dropped
    outputs = [op for op in ops_of(program, Code.STORE) if op.var.storage is Storage.OUTPUT]
    assert all(op.args[0].code is Code.LOAD and op.args[0].var.name == "o_file" for op in outputs)
    assert "o_file" in program.notes["dynamic_arrays"]


def test_vs3_indexed_input_reads():
    text = """vs_3_0
dcl_position v0
dcl_texcoord0 v1
dcl_texcoord1 v2
dcl_position o0
defi i0, 5, 0, 1, 0
mov r0, c0
loop aL, i0
add r0, r0, v0[aL]
endloop
mov o0, r0
"""
    program = finish(lower(text))
    result = evaluate(program, {"v0": (1, 0, 0, 0), "v1": (0, 10, 0, 0), "v2": (0, 0, 100, 0),
                                "c": {0: (0, 0, 0, 1000)}, "v_file": {k: (5,) * 4 for k in range(16)}})
    # v3, v4 are not declared: they read 0
    np.testing.assert_array_equal(result["o0"], [1, 10, 100, 1000])


def test_outputs_are_copied_before_a_return_in_main():
    b = IRBuilder("vs_3_0")
    o1 = b.var("o1", Storage.OUTPUT, register=(R.TEXCRDOUT, 1))
    o2 = b.var("o2", Storage.OUTPUT, register=(R.TEXCRDOUT, 2))
    al = b.var("aL", Storage.LOOP_COUNTER, I1)
    flag = b.var("flag", Storage.INPUT, F4, register=(R.INPUT, 0))
    b.store(al, b.const(1))
    b.store(o2, b.const(2.0, 2.0, 2.0, 2.0))
    b.store(o1, b.const(1.0, 1.0, 1.0, 1.0), index=b.load(al))  # o[aL + 1] = o2
    b.if_(b.cmp(Code.FGT, b.swizzle(b.load(flag), 0), b.const(0.0)))
    b.ret()
    b.endif()
    b.store(o2, b.const(3.0), mask=0b0001)
    b.call("l0")
    b.function("l0")
    b.store(o1, b.const(4.0), mask=0b1000)  # a subroutine writes an output too
    program = finish(b.program, ("relative",))
    body = program.main.body
    ret = next(i for i, op in enumerate(body) if op.code is Code.RETURN)
    copies = [op.var.name for op in body[:ret] if op.code is Code.STORE and op.var.storage is Storage.OUTPUT]
    assert copies == ["o1", "o2"]
    early = evaluate(program, {"flag": (1, 0, 0, 0)})
    np.testing.assert_array_equal(early["o2"], [1, 1, 1, 1])
    np.testing.assert_array_equal(early["o1"], [0, 0, 0, 0])
    late = evaluate(program, {"flag": (-1, 0, 0, 0)})
    np.testing.assert_array_equal(late["o2"], [3, 1, 1, 1])
    np.testing.assert_array_equal(late["o1"], [0, 0, 0, 4])
    stores_in_l0 = ops_of(program, Code.STORE)
    assert all(op.var.storage is not Storage.OUTPUT for op in program.functions["l0"].body if op.code is Code.STORE)
    assert stores_in_l0


def test_in_bounds_index_is_not_guarded():
    b = IRBuilder("vs_2_0")
    c = b.c_array(256)
    out = b.var("o", Storage.OUTPUT)
    cond = b.cmp(Code.FGT, b.swizzle(b.load(b.var("v", Storage.INPUT)), 0), b.const(0.0))
    index = b.op(Code.SELECT, cond, b.const(3), b.const(7), type=I1)
    b.store(out, b.load(c, element=10, index=index))
    finish(b.program, ("relative",))
    (load,) = [op for op in ops_of(b.program, Code.LOAD) if op.var is c]
    assert load.args == (index,) and load.imm == (10,)


def test_software_profile_file_is_cut_at_the_ctab_extent():
    """vs_*_sw: 8192 float constants fit no GPU's uniforms; with a CTAB the
    dynamically indexed file keeps only what the compiler allocated (and says so)."""
    import json
    from pathlib import Path

    from xlate.api import translate

    corpus = Path(__file__).resolve().parents[2].parent / "shared" / "peer-corpus" / "fxc-wine"
    if not corpus.is_dir():
        pytest.skip(f"peer corpus not found at {corpus}")
    path = corpus / "dxdecompiler" / "SkinnedMesh__skinnedmesh.VShade.vs_3_sw.bin"
    t = translate(path.read_bytes(), "glsl330")
    float_file = [c for c in t.reflection["constants"] if c["file"] == "float" and c["element"] is not None]
    # CTAB: c0..c85, plus the DEF registers fxc placed above them: far from 8192.
    assert 86 <= max(c["first"] + c["count"] for c in float_file) < 256
    assert any("constant table allocates" in d for d in t.diagnostics)
