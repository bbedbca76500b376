"""The reference interpreter against hand-computed results.

Each test names the section of shared/semantics/D3D9_SEMANTICS.md that
gives the expected value.  Shaders are written in assembly (xlate's
assembler) so that the tests read like the spec.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xlate.bytecode.asm import assemble
from xlate.errors import StructureError
from xlate.verify import FLT_MAX, ReferenceConstants, SamplerState, Texture, run_shader, sample

F32 = np.float32
NAN = float("nan")
INF = float("inf")


def ps(body: str, inputs=None, n=1, consts=None, textures=None, version="ps_3_0", **kw):
    """Run a pixel shader; input k (an (n, 4) array or one vector) is v#k
    (TEXCOORDk in ps_3_0; COLORk in ps_2_x, where t#k gets it too)."""
    head = f"{version}\n"
    if version.startswith("ps_3"):
        head += "dcl_texcoord0 v0\ndcl_texcoord1 v1\n"
    elif version.startswith("ps_1"):
        pass
    else:
        head += "dcl v0\ndcl v1\ndcl t0\ndcl t1\n"
    shader = assemble(head + body)
    ins = {}
    for k, v in (inputs or {}).items():
        ins[("texcoord", k)] = v
        if not version.startswith("ps_3"):
            ins[("v", k)] = v
    return run_shader(shader, ins, consts or ReferenceConstants(), textures or {}, n=n, **kw)


def oc0(body, *a, **kw) -> np.ndarray:
    return ps(body, *a, **kw).outputs["oC0"]


def one(body, v0=(0, 0, 0, 0), **kw) -> np.ndarray:
    """oC0 of a single invocation with v0 = TEXCOORD0."""
    return oc0(body, {0: np.asarray(v0, F32)}, **kw)[0]


def vs(body: str, inputs=None, n=1, consts=None, version="vs_3_0", **kw):
    head = f"{version}\ndcl_position v0\n"
    if version.startswith("vs_3"):
        head += "dcl_position o0\ndcl_texcoord0 o1\n"
    shader = assemble(head + body)
    ins = {("position", 0): v for v in ([] if inputs is None else [inputs])}
    return run_shader(shader, ins, consts or ReferenceConstants(), {}, n=n, **kw)


def flushed(x):
    x = np.asarray(x, F32)
    return np.where(np.abs(x) < np.finfo(F32).tiny, x * 0, x)


def same(a, b):
    np.testing.assert_array_equal(np.asarray(a, F32), np.asarray(b, F32))


# --------------------------------------------------------------------------
# §2.2 per-component arithmetic, §3.1 source modifiers, §3.4 masks
# --------------------------------------------------------------------------


def test_basic_arithmetic_section_2_2():
    v = (1, 2, 3, 4)
    same(one("def c0, 10, 20, 30, 40\nadd oC0, v0, c0", v), (11, 22, 33, 44))
    same(one("def c0, 10, 20, 30, 40\nsub oC0, v0, c0", v), (-9, -18, -27, -36))
    same(one("def c0, 10, 20, 30, 40\nmul oC0, v0, c0", v), (10, 40, 90, 160))
    same(one("def c0, 10, 20, 30, 40\ndef c1, 1, 1, 1, 1\nmad oC0, v0, c0, c1", v), (11, 41, 91, 161))
    same(one("def c0, 2, 2, 5, 1\nmin oC0, v0, c0", v), (1, 2, 3, 1))
    same(one("def c0, 2, 2, 5, 1\nmax oC0, v0, c0", v), (2, 2, 5, 4))
    same(one("def c0, 2, 2, 5, 1\nslt oC0, v0, c0", v), (1, 0, 1, 0))
    same(one("def c0, 2, 2, 5, 1\nsge oC0, v0, c0", v), (0, 1, 0, 1))
    same(one("frc oC0, v0", (1.25, -1.25, 3, -0.5)), (0.25, 0.75, 0, 0.5))
    same(one("abs oC0, v0", (-1, 2, -0.0, -3)), (1, 2, 0, 3))
    # lrp = s2 + s0 * (s1 - s2)
    same(one("def c0, 0.25, 0.5, 0, 1\ndef c1, 4, 4, 4, 4\ndef c2, 0, 8, 2, 2\nlrp oC0, c0, c1, c2"), (1, 6, 2, 4))


def test_dot_products_section_2_2():
    v = (1, 2, 3, 4)
    same(one("def c0, 1, 1, 1, 100\ndp3 oC0, v0, c0", v), (6, 6, 6, 6))
    same(one("def c0, 1, 1, 1, 100\ndp4 oC0, v0, c0", v), (406,) * 4)
    # dp2add: xy products plus src2's replicated component
    same(one("def c0, 10, 100, 7, 7\ndef c1, 0, 0, 5, 0\ndp2add oC0, v0, c0, c1.z", v), (215,) * 4)


def test_dst_crs_section_2_2():
    r = vs("def c0, 9, 2, 3, 9\ndef c1, 9, 5, 9, 7\ndst o1, c0, c1\nmov o0, c0")
    same(r.outputs["o1"][0], (1, 10, 3, 7))
    same(one("def c0, 1, 0, 0, 0\ndef c1, 0, 1, 0, 0\ndef c2, 5, 5, 5, 5\nmov r0, c2\ncrs r0.xyz, c0, c1\nmov oC0, r0"), (0, 0, 1, 5))


def test_sgn_section_2_7():
    r = vs("def c0, -3, 0, 2, -0.0\nsgn r0, c0\nmov o1, r0\nmov o0, c0")
    same(r.outputs["o1"][0], (-1, 0, 1, 0))
    r = vs("def c0, -3, 0, 2, -0.0\nsgn r0, c0, r1, r2\nmov oT0, r0\nmov oPos, c0", version="vs_2_0")
    same(r.outputs["oT0"][0], (-1, 0, 1, 0))


def test_source_modifiers_and_swizzle_section_3_1():
    v = (1, -2, 3, -4)
    same(one("mov oC0, -v0", v), (-1, 2, -3, 4))
    same(one("mov oC0, v0_abs", v), (1, 2, 3, 4))
    same(one("mov oC0, -v0_abs", v), (-1, -2, -3, -4))
    same(one("mov oC0, v0.wzyx", v), (-4, 3, -2, 1))
    same(one("mov oC0, -v0.y", v), (2, 2, 2, 2))


def test_partial_write_mask_section_3_4():
    same(one("def c0, 5, 6, 7, 8\nmov r0, c0\nmov r0.yw, v0\nmov oC0, r0", (1, 2, 3, 4)), (5, 2, 7, 4))


def test_uninitialised_temp_reads_zero_section_3_4():
    same(one("mov oC0, r7"), (0, 0, 0, 0))


def test_saturate_maps_nan_to_zero_section_3_2():
    same(one("mov_sat oC0, v0", (NAN, -1, 0.5, 7)), (0, 0, 0.5, 1))


def test_shift_then_saturate_section_3_3():
    # ps_1_4 add_x2_sat: saturate(2 · (c0 + c1)), the shift before the clamp
    r = ps("def c0, 0.25, 0.25, -0.5, 0.125\ndef c1, 0.5, -0.125, 0.25, 0.125\nadd_x2_sat r0, c0, c1", version="ps_1_4")
    same(r.outputs["oC0"][0], (1, 0.25, 0, 0.5))
    r = ps("def c0, 0.25, 0.25, -0.5, 0.125\ndef c1, 0.5, -0.125, 0.25, 0.125\nadd_d2 r0, c0, c1", version="ps_1_4")
    same(r.outputs["oC0"][0], (0.375, 0.0625, -0.125, 0.125))


def test_ps1_constants_clamped_section_3_5():
    r = ps("def c0, 2, -3, 0.5, 1\nmov r0, c0", version="ps_1_4").outputs["oC0"]
    same(r[0], (1, -1, 0.5, 1))


# --------------------------------------------------------------------------
# §2.5 / §7.1 special values of scalar ops
# --------------------------------------------------------------------------


def test_rcp_section_2_5():
    same(one("rcp oC0, v0.x", (4, 0, 0, 0)), (0.25,) * 4)
    same(one("rcp oC0, v0.x", (1, 0, 0, 0)), (1,) * 4)
    same(one("rcp oC0, v0.x", (0, 0, 0, 0)), (FLT_MAX,) * 4)  # §7.1: clamped IEEE
    same(one("rcp oC0, v0.x", (-0.0, 0, 0, 0)), (-FLT_MAX,) * 4)


def test_rsq_uses_abs_section_2_5():
    same(one("rsq oC0, v0.x", (-4, 0, 0, 0)), (0.5,) * 4)
    same(one("rsq oC0, v0.x", (0, 0, 0, 0)), (FLT_MAX,) * 4)
    same(one("rsq oC0, v0.x", (1, 0, 0, 0)), (1,) * 4)


def test_log_exp_section_7_1():
    same(one("log oC0, v0.x", (-8, 0, 0, 0)), (3,) * 4)  # |x|
    same(one("log oC0, v0.x", (0, 0, 0, 0)), (-FLT_MAX,) * 4)
    same(one("exp oC0, v0.y", (0, 3, 0, 0)), (8,) * 4)
    # scalar ops read the last swizzle slot, as Windows drivers do (Wine
    # test_scalar_instructions), not the first one §2.1 rule 3 suggests
    same(one("exp oC0, v0.yxzw", (0, 3, 0, 2)), (4,) * 4)


def test_pow_section_2_5():
    same(one("pow oC0, v0.x, v0.y", (-2, 3, 0, 0)), (8,) * 4)  # |x|^y
    same(one("pow oC0, v0.x, v0.y", (0, 0, 0, 0)), (1,) * 4)  # pow(0, 0) = 1
    same(one("pow oC0, v0.x, v0.y", (NAN, 0, 0, 0)), (1,) * 4)  # pow(NaN, 0) = 1
    same(one("pow oC0, v0.x, v0.y", (0, 2, 0, 0)), (0,) * 4)
    same(one("pow oC0, v0.x, v0.y", (0, -1, 0, 0)), (INF,) * 4)


def test_nrm_section_2_5():
    same(one("nrm oC0, v0", (3, 0, 4, 10)), (0.6, 0, 0.8, 2))
    # zero xyz: xyz = 0 (never NaN), w = s.w · FLT_MAX
    same(one("nrm oC0, v0", (0, 0, 0, 0)), (0, 0, 0, 0))
    r = one("nrm oC0, v0", (0, 0, 0, 0.5))
    same(r, (0, 0, 0, F32(0.5) * FLT_MAX))
    # the length always comes from xyz, even with a .xy mask
    same(one("def c0, 7, 7, 7, 7\nmov r0, c0\nnrm r0.xy, v0\nmov oC0, r0", (3, 0, 4, 1)), (0.6, 0, 7, 7))


def lit(x, y, w):
    r = vs(f"def c0, {x}, {y}, 0, {w}\nlit r0, c0\nmov o1, r0\nmov o0, c0")
    return r.outputs["o1"][0]


def test_lit_strict_tests_section_2_3():
    same(lit(2, 3, 2), (1, 2, 9, 1))
    same(lit(0, 3, 2), (1, 0, 0, 1))  # x == 0: no specular (strict >)
    same(lit(2, 0, 0), (1, 2, 0, 1))  # y == 0: z = 0, pow(0, 0) never evaluated
    same(lit(2, 0, -1), (1, 2, 0, 1))  # y == 0, p < 0: 0, not +inf
    same(lit(2, 3, 0), (1, 2, 1, 1))  # no w == 0 shortcut: y^0 = 1
    same(lit(-1, 3, 2), (1, 0, 0, 1))
    # p clamped to ±127.9961
    r = lit(1, 1.0001, 1000)
    same(r[2], np.power(F32(1.0001), F32(127.9961)))


def test_sincos_order_section_2_4():
    x = 0.5
    want = (math.cos(x), math.sin(x))
    r = one("def c0, 9, 9, 9, 9\nmov r0, c0\nsincos r0.xy, v0.x\nmov oC0, r0", (x, 0, 0, 0))
    np.testing.assert_allclose(r, (want[0], want[1], 9, 9), rtol=1e-6)
    # .y only leaves x untouched (SM3)
    r = one("def c0, 9, 9, 9, 9\nmov r0, c0\nsincos r0.y, v0.x\nmov oC0, r0", (x, 0, 0, 0))
    np.testing.assert_allclose(r, (9, want[1], 9, 9), rtol=1e-6)
    # SM2 form: the constant operands are ignored
    r = ps(
        "def c0, -1.5500992e-006, -2.1701389e-005, 0.0026041667, 0.00026041668\n"
        "def c1, -0.020833334, -0.125, 1, 0.5\ndef c2, 9, 9, 9, 9\n"
        "mov r0, c2\nsincos r0.xy, t0.x, c0, c1\nmov oC0, r0",
        {0: (x, 0, 0, 0)}, version="ps_2_0",
    ).outputs["oC0"][0]
    np.testing.assert_allclose(r, (want[0], want[1], 9, 9), rtol=1e-6)


def test_cmp_negative_zero_and_nan_section_2_2():
    r = one("def c0, 1, 1, 1, 1\ndef c1, 2, 2, 2, 2\ncmp oC0, v0, c0, c1", (-0.0, NAN, -1, 0))
    same(r, (1, 2, 2, 1))


def test_min_max_nan_section_7_3():
    same(one("def c0, 1, 1, 1, 1\nmin oC0, v0, c0", (NAN, 0, 2, NAN)), (1, 0, 1, 1))
    same(one("def c0, 1, 1, 1, 1\nmax oC0, v0, c0", (NAN, 0, 2, NAN)), (1, 1, 2, 1))


def test_slt_sge_nan_are_false_section_2_2():
    same(one("def c0, 1, 1, 1, 1\nslt oC0, v0, c0", (NAN,) * 4), (0,) * 4)
    same(one("def c0, 1, 1, 1, 1\nsge oC0, v0, c0", (NAN,) * 4), (0,) * 4)


def test_denormal_results_flush_section_7_4():
    tiny = np.float32(1e-39)
    same(one("mov oC0, v0", (tiny, -tiny, 1, 0)), (0, -0.0, 1, 0))
    r = oc0("mov oC0, v0", {0: (tiny, 0, 0, 0)}, flush_denormals=False)[0]
    same(r[0], tiny)


# --------------------------------------------------------------------------
# §7.2 legacy multiply
# --------------------------------------------------------------------------


def test_legacy_multiply_section_7_2():
    v = (0, INF, NAN, 2)
    same(one("def c0, 1e38, 0, 0, 3\nmul r0, v0, c0\nmul r0.x, v0.x, v0.y\nmov oC0, r0", v), (0, 0, 0, 6))
    r = oc0("def c0, 1e38, 0, 0, 3\nmul r0, v0, c0\nmul r0.x, v0.x, v0.y\nmov oC0, r0", {0: v}, legacy_multiply=False)[0]
    assert np.isnan(r[0]) and np.isnan(r[1]) and np.isnan(r[2]) and r[3] == 6
    # mad: the product is legacy, the add is not
    same(one("def c0, 0, 0, 0, 0\ndef c1, 1, 1, 1, 1\nmad oC0, v0, c0, c1", v), (1, 1, 1, 1))
    # dot products: inf · 0 terms vanish
    same(one("def c0, 0, 0, 1, 0\ndp4 oC0, v0, c0", (INF, NAN, 5, -INF)), (5,) * 4)
    same(one("def c0, 0, 0, 1, 0\ndp3 oC0, v0, c0", (INF, NAN, 5, -INF)), (5,) * 4)
    same(one("def c0, 0, 1, 0, 0\ndef c1, 1, 1, 1, 1\ndp2add oC0, v0, c0, c1.x", (INF, 2, 0, 0)), (3,) * 4)


def test_matrix_ops_section_2_8():
    body = (
        "def c0, 1, 0, 0, 0\ndef c1, 0, 2, 0, 0\ndef c2, 0, 0, 3, 0\ndef c3, 1, 1, 1, 1\n"
        "def c9, 7, 7, 7, 7\nmov r0, c9\n{op} r0{mask}, v0, c0\nmov oC0, r0"
    )
    v = (1, 2, 3, 4)
    same(one(body.format(op="m4x4", mask=""), v), (1, 4, 9, 10))
    same(one(body.format(op="m4x3", mask=".xyz"), v), (1, 4, 9, 7))
    same(one(body.format(op="m3x4", mask=""), v), (1, 4, 9, 6))
    same(one(body.format(op="m3x3", mask=".xyz"), v), (1, 4, 9, 7))
    same(one(body.format(op="m3x2", mask=".xy"), v), (1, 4, 7, 7))
    # legacy multiply applies to every row; rows read before the write (alias)
    same(one("def c0, 0, 0, 0, 1\ndef c1, 1, 0, 0, 0\nmov r0, v0\nm4x4 r0.xy, r0, c0\nmov oC0, r0", (INF, 2, 3, 4))[:2], (4, INF))
    same(one("def c0, 0, 0, 0, 1\ndef c1, 1, 0, 0, 0\ndef c2, 0, 0, 0, 0\ndef c3, 0, 0, 0, 0\n"
             "mov r0, v0\nm4x4 r0, r0, c0\nmov oC0, r0", (5, 2, 3, 4)), (4, 5, 0, 0))


# --------------------------------------------------------------------------
# §2.9 mova, §1.6 / §6.1 relative addressing
# --------------------------------------------------------------------------


def vs_relative(values, offset=0, version="vs_3_0"):
    """c[a0.x + offset] for each value of v0.x, over c0..c9 = (k, k, k, k)."""
    consts = ReferenceConstants(floats={k: (k, k, k, k) for k in range(10)})
    inp = np.zeros((len(values), 4), F32)
    inp[:, 0] = values
    r = vs(f"mova a0.x, v0.x\nmov o1, c[a0.x + {offset}]\nmov o0, v0", inp, n=len(values), consts=consts)
    return r.outputs["o1"][:, 0]


def test_mova_rounds_half_to_even_section_2_9():
    got = vs_relative([0.5, 1.5, 2.5, -0.5, 0.4, 1.6, 2.49], offset=3)
    same(got, [3, 5, 5, 3, 3, 5, 5])


def test_mov_a0_floors_in_vs_1_1_section_2_9():
    consts = ReferenceConstants(floats={k: (k, k, k, k) for k in range(10)})
    shader = assemble("vs_1_1\ndcl_position v0\nmov a0.x, v0.x\nmov oT0, c[a0.x + 2]\nmov oPos, v0")
    inp = np.array([[1.9, 0, 0, 0], [-0.5, 0, 0, 0]], F32)
    r = run_shader(shader, {("position", 0): inp}, consts, {}, n=2)
    same(r.outputs["oT0"][:, 0], [3, 1])


def test_relative_out_of_range_reads_zero_section_6_1():
    # 256 VS constants: c[a0.x + 3] with a0.x = -4 or 253 is outside; DEFs visible
    consts = ReferenceConstants(floats={k: (k + 1,) * 4 for k in range(256)})
    shader = assemble("vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord0 o1\ndef c5, 50, 50, 50, 50\n"
                      "mova a0.x, v0.x\nmov o1, c[a0.x + 3]\nmov o0, v0")
    inp = np.zeros((4, 4), F32)
    inp[:, 0] = [-4, -3, 2, 253]
    r = run_shader(shader, {("position", 0): inp}, consts, {}, n=4)
    same(r.outputs["o1"][:, 0], [0, 1, 50, 0])


def test_relative_any_a0_component_section_1_6():
    consts = ReferenceConstants(floats={k: (k,) * 4 for k in range(10)})
    r = vs("mova a0, v0\nmov o1, c[a0.z + 1]\nmov o0, v0", (0, 0, 4, 0), consts=consts)
    same(r.outputs["o1"][0], (5,) * 4)


def test_ps3_input_indexed_by_aL_section_1_6():
    shader = assemble("ps_3_0\ndefi i0, 3, 0, 1, 0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_texcoord2 v2\n"
                      "mov r0, c0\nloop aL, i0\nadd r0, r0, v[aL]\nendloop\nmov oC0, r0")
    ins = {("texcoord", k): np.full((1, 4), 10.0**k, F32) for k in range(3)}
    r = run_shader(shader, ins, ReferenceConstants(), {}, n=1)
    same(r.outputs["oC0"][0], (111,) * 4)


def test_vs3_output_indexed_by_aL_section_5_3():
    shader = assemble("vs_3_0\ndefi i0, 3, 1, 1, 0\ndef c0, 1, 2, 3, 4\ndcl_position v0\ndcl_position o0\n"
                      "dcl_texcoord0 o1\ndcl_texcoord1 o2\ndcl_texcoord2 o3\n"
                      "mov r0, c0\nloop aL, i0\nmov o[aL], r0\nadd r0, r0, c0\nendloop\nmov o0, v0")
    r = run_shader(shader, {("position", 0): np.zeros((1, 4), F32)}, ReferenceConstants(), {}, n=1)
    same(r.outputs["o1"][0], (1, 2, 3, 4))
    same(r.outputs["o3"][0], (3, 6, 9, 12))
    assert r.output(("texcoord", 2)) is r.outputs["o3"]


# --------------------------------------------------------------------------
# §4 control flow
# --------------------------------------------------------------------------


def loop_trace(count, start, step):
    """Sum of aL over the iterations of loop aL, i0 and the trip count."""
    r = ps(f"defi i0, {count}, {start}, {step}, 0\ndef c0, 1, 0, 0, 0\nmov r0, c0.y\n"
           "loop aL, i0\nadd r0.x, r0.x, aL\nadd r0.y, r0.y, c0.x\nendloop\nmov oC0, r0")
    out = r.outputs["oC0"][0]
    return out[0], out[1]


def test_loop_trip_count_ignores_step_section_4_1():
    assert loop_trace(3, 10, -2) == (10 + 8 + 6, 3)
    assert loop_trace(4, 5, 0) == (20, 4)
    assert loop_trace(0, 5, 1) == (0, 0)
    assert loop_trace(255, 0, 1) == (sum(range(255)), 255)


def test_loop_count_is_capped():
    # Counts outside 0-255 are clamped (the documented range; the loop guard).
    consts = ReferenceConstants(ints={0: (100000, 0, 0, 0)})
    r = ps("def c0, 1, 0, 0, 0\nmov r0, c0.y\nrep i0\nadd r0, r0, c0.x\nendrep\nmov oC0, r0", consts=consts, version="ps_2_x")
    same(r.outputs["oC0"][0], (255,) * 4)


def test_nested_loops_restore_aL_section_4_1():
    r = ps("defi i0, 2, 10, -10, 0\ndefi i1, 3, 1, 1, 0\ndef c0, 0, 100, 0, 0\nmov r0, c0.x\n"
           "loop aL, i0\nloop aL, i1\nadd r0.x, r0.x, aL\nendloop\nadd r0.y, r0.y, aL\nendloop\nmov oC0, r0")
    # inner: 1 + 2 + 3 twice; outer aL after the inner loop: 10 then 0
    same(r.outputs["oC0"][0], (12, 10, 0, 0))


def test_rep_zero_and_api_int_constants_section_4_1():
    body = "def c0, 1, 0, 0, 0\nmov r0, c0.y\nrep i3\nadd r0, r0, c0.x\nendrep\nmov oC0, r0"
    same(ps(body, version="ps_2_x").outputs["oC0"][0], (0,) * 4)  # unset i3 = 0: body skipped
    consts = ReferenceConstants(ints={3: (5, 0, 0, 0)})
    same(ps(body, consts=consts, version="ps_2_x").outputs["oC0"][0], (5,) * 4)
    # DEFI overrides the API value (§6.2)
    same(ps("defi i3, 2, 0, 0, 0\n" + body, consts=consts, version="ps_2_x").outputs["oC0"][0], (2,) * 4)


def test_divergent_break_in_if_in_loop_section_4_1():
    # Each pixel loops until its counter reaches v0.x.
    body = ("defi i0, 10, 0, 1, 0\ndef c0, 1, 0, 0, 0\nmov r0, c0.y\n"
            "loop aL, i0\nif_ge r0.x, v0.x\nbreak\nendif\nadd r0.x, r0.x, c0.x\nendloop\nmov oC0, r0")
    inp = np.zeros((4, 4), F32)
    inp[:, 0] = [0, 3, 7, 20]
    r = oc0(body, {0: inp}, n=4)
    same(r[:, 0], [0, 3, 7, 10])


def test_if_else_per_pixel_section_4_1():
    body = "def c0, 1, 2, 0, 0\nif_lt v0.x, c0.z\nmov r0, c0.x\nelse\nmov r0, c0.y\nendif\nmov oC0, r0"
    inp = np.zeros((3, 4), F32)
    inp[:, 0] = [-1, 0, NAN]
    same(oc0(body, {0: inp}, n=3)[:, 0], [1, 2, 2])
    # ne is unordered: NaN != 0 is true
    body = "def c0, 1, 2, 0, 0\nif_ne v0.x, c0.z\nmov r0, c0.x\nelse\nmov r0, c0.y\nendif\nmov oC0, r0"
    same(oc0(body, {0: inp}, n=3)[:, 0], [1, 2, 1])


def test_breakc_and_breakp_section_4_1():
    body = ("defi i0, 8, 0, 1, 0\ndef c0, 1, 0, 0, 0\nmov r0, c0.y\n"
            "rep i0\nbreak_ge r0.x, v0.x\nadd r0.x, r0.x, c0.x\nendrep\nmov oC0, r0")
    inp = np.zeros((2, 4), F32)
    inp[:, 0] = [2, 5]
    same(oc0(body, {0: inp}, n=2, version="ps_2_x")[:, 0], [2, 5])
    body = ("defi i0, 8, 0, 1, 0\ndef c0, 1, 0, 0, 0\nmov r0, c0.y\n"
            "rep i0\nsetp_ge p0.x, r0.x, v0.x\nbreakp p0.x\nadd r0.x, r0.x, c0.x\nendrep\nmov oC0, r0")
    same(oc0(body, {0: inp}, n=2, version="ps_2_x")[:, 0], [2, 5])


def test_predicated_break_section_4_2():
    body = ("defi i0, 8, 0, 1, 0\ndef c0, 1, 0, 0, 0\nmov r0, c0.y\n"
            "rep i0\nsetp_ge p0, r0.x, v0.x\n(p0.y) break\nadd r0.x, r0.x, c0.x\nendrep\nmov oC0, r0")
    inp = np.zeros((2, 4), F32)
    inp[:, 0] = [3, 6]
    same(oc0(body, {0: inp}, n=2, version="ps_2_x")[:, 0], [3, 6])


def test_predication_per_component_section_4_2():
    body = ("def c0, 0, 0, 0, 0\ndef c1, 9, 9, 9, 9\nmov r0, v0\nsetp_gt p0, v0, c0\n"
            "(p0) mov r0, c1\nmov r1, v0\n(!p0.wzyx) mov r1.xy, c1\nmov oC0, r0\nmov oC1, r1")
    r = ps(body, {0: (1, -1, 2, -2)})
    same(r.outputs["oC0"][0], (9, -1, 9, -2))
    # predicate component c comes from the swizzle at position c: !p0.w, !p0.z
    same(r.outputs["oC1"][0], (9, -1, 2, -2))


def test_setp_mask_section_4_2():
    body = ("def c0, 0, 0, 0, 0\ndef c1, 1, 1, 1, 1\nsetp_lt p0, c1, c0\nsetp_gt p0.xz, v0, c0\n"
            "mov r0, c0\n(p0) mov r0, c1\nmov oC0, r0")
    same(one(body, (1, 1, -1, 1)), (1, 0, 0, 0))


def test_call_callnz_ret_section_4_1():
    body = ("def c0, 1, 2, 0, 0\nmov r0, c0.z\ncall l1\ncallnz l2, b0\ncallnz l2, !b1\nmov oC0, r0\nret\n"
            "label l1\nadd r0.x, r0.x, c0.x\nret\nlabel l2\nadd r0.y, r0.y, c0.y\nret")
    same(ps(body, version="ps_2_x").outputs["oC0"][0], (1, 2, 0, 0))  # b0 = b1 = false
    consts = ReferenceConstants(bools={0: True, 1: True})
    same(ps(body, consts=consts, version="ps_2_x").outputs["oC0"][0], (1, 2, 0, 0))
    # DEFB overrides the API (§6.2): b1 = true, so neither callnz calls
    same(ps("defb b1, true\n" + body, version="ps_2_x").outputs["oC0"][0], (1, 0, 0, 0))
    consts = ReferenceConstants(bools={0: True})
    same(ps(body, consts=consts, version="ps_2_x").outputs["oC0"][0], (1, 4, 0, 0))


def test_call_inside_divergent_branch_and_loop_section_4_1():
    # The subroutine sees the caller's aL and runs only for the pixels in the branch.
    body = ("defi i0, 3, 1, 1, 0\ndef c0, 0, 0, 0, 0\nmov r0, c0\n"
            "loop aL, i0\nif_gt v0.x, c0.x\ncall l0\nendif\nendloop\nmov oC0, r0\nret\n"
            "label l0\nadd r0.x, r0.x, aL\nret")
    inp = np.zeros((2, 4), F32)
    inp[:, 0] = [1, -1]
    same(oc0(body, {0: inp}, n=2)[:, 0], [6, 0])


def test_callnz_predicate_section_4_1():
    body = ("def c0, 0, 5, 0, 0\nmov r0, c0.x\nsetp_gt p0, v0, c0.x\ncallnz l0, p0.x\nmov oC0, r0\nret\n"
            "label l0\nmov r0, c0.y\nret")
    inp = np.zeros((2, 4), F32)
    inp[:, 0] = [1, -1]
    same(oc0(body, {0: inp}, n=2, version="ps_2_x")[:, 0], [5, 0])


def test_static_if_bool_section_4_1():
    body = "def c0, 1, 2, 0, 0\nif b2\nmov r0, c0.x\nelse\nmov r0, c0.y\nendif\nmov oC0, r0"
    same(ps(body, version="ps_2_x").outputs["oC0"][0], (2,) * 4)
    same(ps(body, consts=ReferenceConstants(bools={2: True}), version="ps_2_x").outputs["oC0"][0], (1,) * 4)


def test_unbalanced_structure_is_an_error():
    with pytest.raises(StructureError):
        ps("call l3\nmov oC0, r0", version="ps_2_x")


# --------------------------------------------------------------------------
# §2.12 texkill, dsx/dsy; §5.5 vPos/vFace; §2.10 texturing
# --------------------------------------------------------------------------


def test_texkill_tests_all_four_components_section_2_12():
    inp = np.array([[1, 1, 1, 1], [1, 1, 1, -1], [-1, 0, 0, 0], [0, 0, 0, -0.0]], F32)
    r = ps("texkill v0\nmov oC0, v0", {0: inp}, n=4)
    same(r.killed, [False, True, True, False])
    # killed pixels keep executing (demote): their outputs are still computed
    same(r.outputs["oC0"][1], inp[1])


def quad_coords():
    return np.array([[10, 20], [11, 20], [10, 21], [11, 21]], F32)


def test_dsx_dsy_in_quads_section_2_12():
    r = ps("dcl vPos.xy\nmul r0, vPos.xyxy, vPos.xyxy\ndsx r1, r0\ndsy r2, r0\nmov oC0, r1\nmov oC1, r2",
           n=4, pixel_coords=quad_coords())
    # coarse: TR - TL (x), BL - TL (y) for the whole quad
    same(r.outputs["oC0"], np.tile([21, 0, 21, 0], (4, 1)))
    same(r.outputs["oC1"], np.tile([0, 41, 0, 41], (4, 1)))
    r = ps("dcl vPos.xy\nmul r0, vPos.xyxy, vPos.yxyx\ndsx oC0, r0", n=4, pixel_coords=quad_coords(), derivatives="fine")
    # d(x·y)/dx = y per row: 20 on the top row, 21 on the bottom row
    same(r.outputs["oC0"][:, 0], [20, 20, 21, 21])


def test_vertex_derivatives_are_zero_section_2_10():
    # texldl at explicit lod 1 in a VS
    tex = Texture("2d", [np.full((2, 2, 4), 1, F32), np.full((1, 1, 4), 2, F32)], SamplerState(mip_filter="point"))
    shader = assemble("vs_3_0\ndcl_position v0\ndcl_2d s0\ndcl_position o0\ndcl_texcoord0 o1\n"
                      "texldl o1, v0, s0\nmov o0, v0")
    r = run_shader(shader, {("position", 0): np.array([[0.5, 0.5, 0, 1]], F32)}, ReferenceConstants(), {0: tex}, n=1)
    same(r.outputs["o1"][0], (2,) * 4)


def test_vpos_vface_section_5_5():
    r = ps("dcl vPos.xy\ndcl vFace\nmov r0, vPos\nmov r0.zw, vFace.x\ncmp oC1, vFace, c0, c1\nmov oC0, r0",
           n=2, pixel_coords=np.array([[3, 4], [5, 6]], F32), front_facing=np.array([True, False]),
           consts=ReferenceConstants(floats={0: (1, 1, 1, 1), 1: (2, 2, 2, 2)}))
    same(r.outputs["oC0"], [[3, 4, 1, 1], [5, 6, -1, -1]])
    same(r.outputs["oC1"], [[1] * 4, [2] * 4])


def checker():
    """2×2 level 0 (red, green / blue, white), 1×1 level 1 grey."""
    l0 = np.array([[[1, 0, 0, 1], [0, 1, 0, 1]], [[0, 0, 1, 1], [1, 1, 1, 1]]], F32)
    l1 = np.full((1, 1, 4), 0.5, F32)
    return [l0, l1]


def test_sample_point_and_address_modes_section_2_10():
    levels = checker()
    pts = np.array([[0.25, 0.25, 0], [0.75, 0.25, 0], [1.25, 0.75, 0], [-0.25, 0.25, 0]], F32)
    wrap = Texture("2d", levels)
    same(sample(wrap, pts)[:, :3], [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 0]])
    clamp = Texture("2d", levels, SamplerState(address_u="clamp", address_v="clamp"))
    same(sample(clamp, pts)[:, :3], [[1, 0, 0], [0, 1, 0], [1, 1, 1], [1, 0, 0]])
    mirror = Texture("2d", levels, SamplerState(address_u="mirror", address_v="mirror"))
    same(sample(mirror, pts)[:, :3], [[1, 0, 0], [0, 1, 0], [1, 1, 1], [1, 0, 0]])
    border = Texture("2d", levels, SamplerState(address_u="border", border_color=(0.25, 0.25, 0.25, 0.25)))
    same(sample(border, pts)[2:], [[0.25] * 4, [0.25] * 4])


def test_sample_bilinear_and_mips_section_2_10():
    lin = Texture("2d", checker(), SamplerState(address_u="clamp", address_v="clamp", mag_filter="linear",
                                                min_filter="linear", mip_filter="linear"))
    centre = np.array([[0.5, 0.5, 0]], F32)
    same(sample(lin, centre, lod=np.zeros(1, F32)), [[0.5, 0.5, 0.5, 1]])
    same(sample(lin, centre, lod=np.ones(1, F32)), [[0.5] * 4])
    # lod 0.5 blends level 0 and level 1 halfway
    same(sample(lin, centre, lod=np.full(1, 0.5, F32)), [[0.5, 0.5, 0.5, 0.75]])
    # derivatives of one texel per pixel on a 2-texel texture: lod 0
    d = np.array([[0.5, 0, 0]], F32)
    same(sample(lin, centre, ddx=d, ddy=d[:, [1, 0, 2]]), [[0.5, 0.5, 0.5, 1]])
    same(sample(lin, centre, ddx=2 * d, ddy=2 * d[:, [1, 0, 2]]), [[0.5] * 4])  # lod 1


def test_unbound_sampler_returns_0001_section_2_10():
    r = ps("dcl_2d s3\ntexld r0, v0, s3\nmov oC0, r0", {0: (0.5, 0.5, 0, 1)}, n=4)
    same(r.outputs["oC0"], np.tile([0, 0, 0, 1], (4, 1)))


def test_texld_variants_section_2_10():
    tex = {0: Texture("2d", checker())}
    coord = np.tile(np.array([0.25, 0.75, 0, 2], F32), (4, 1))  # same in the quad: lod -inf
    r = ps("dcl_2d s0\ntexld r0, v0, s0\nmov oC0, r0", {0: coord}, n=4, textures=tex)
    same(r.outputs["oC0"][0], (0, 0, 1, 1))
    # texldp divides xyz by w: (0.125, 0.375) -> red
    r = ps("dcl_2d s0\ntexldp r0, v0, s0\nmov oC0, r0", {0: coord}, n=4, textures=tex)
    same(r.outputs["oC0"][0], (1, 0, 0, 1))
    # texldb: bias w = 2 on lod -inf stays magnified... use texldl for lod 1
    r = ps("dcl_2d s0\ntexldl r0, v0, s0\nmov oC0, r0", {0: coord}, n=4,
           textures={0: Texture("2d", checker(), SamplerState(mip_filter="point"))})
    same(r.outputs["oC0"][0], (0.5,) * 4)
    # SM3: the sampler swizzle applies to the result
    r = ps("dcl_2d s0\ntexld r0, v0, s0.wzyx\nmov oC0, r0", {0: coord}, n=4, textures=tex)
    same(r.outputs["oC0"][0], (1, 1, 0, 0))
    # texldd with gradients of two texels per pixel: lod 1
    r = ps("def c0, 1, 0, 0, 0\ndef c1, 0, 1, 0, 0\ndcl_2d s0\ntexldd r0, v0, s0, c0, c1\nmov oC0, r0",
           {0: coord}, n=4, textures={0: Texture("2d", checker(), SamplerState(mip_filter="point"))})
    same(r.outputs["oC0"][0], (0.5,) * 4)


def test_texldb_implicit_lod_section_2_10():
    tex = {0: Texture("2d", checker(), SamplerState(min_filter="point", mip_filter="point"))}
    # u steps by 0.5 per pixel on a 2-texel texture: 1 texel per pixel, lod 0
    coord = np.array([[0.25, 0.25, 0, 0], [0.75, 0.25, 0, 0], [0.25, 0.75, 0, 0], [0.75, 0.75, 0, 0]], F32)
    r = ps("dcl_2d s0\ntexld r0, v0, s0\nmov oC0, r0", {0: coord}, n=4, textures=tex)
    same(r.outputs["oC0"][:, :3], [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
    coord[:, 3] = 1  # bias 1: level 1
    r = ps("dcl_2d s0\ntexldb r0, v0, s0\nmov oC0, r0", {0: coord}, n=4, textures=tex)
    same(r.outputs["oC0"], np.full((4, 4), 0.5))


def test_cube_and_volume_section_2_10():
    faces = np.zeros((6, 1, 1, 4), F32)
    for f in range(6):
        faces[f] = f
    cube = Texture("cube", [faces])
    dirs = np.array([[1, 0.1, 0.2], [-1, 0, 0], [0, 2, 0.5], [0, -1, 0], [0.1, 0, 3], [0, 0, -1]], F32)
    same(sample(cube, dirs, lod=np.zeros(6, F32))[:, 0], [0, 1, 2, 3, 4, 5])
    vol = np.zeros((2, 1, 1, 4), F32)
    vol[1] = 1
    t = Texture("volume", [vol], SamplerState(address_w="clamp", mag_filter="linear"))
    same(sample(t, np.array([[0.5, 0.5, 0.25], [0.5, 0.5, 0.5]], F32), lod=np.zeros(2, F32))[:, 0], [0, 0.5])


# --------------------------------------------------------------------------
# §5.2 VS outputs, constants (§6), trace
# --------------------------------------------------------------------------


def test_vs2_colour_outputs_section_5_2():
    r = vs("def c0, 2, -1, 0.5, 7\nmov oD0.xy, c0\nmov oD1, c0\nmov oPos, v0\nmov oFog, c0.w", version="vs_2_0")
    same(r.outputs["oD0"][0], (1, 0, 1, 1))  # saturated; unwritten z, w read 1
    same(r.outputs["oD1"][0], (1, 0, 0.5, 1))
    same(r.outputs["oFog"][0, 0], 7)
    assert r.semantics[(10, 0)] == "oD0" and r.semantics[(0, 0)] == "oPos"


def test_def_overrides_api_constants_section_6_1():
    consts = ReferenceConstants(floats={0: (1, 1, 1, 1), 1: (2, 2, 2, 2)})
    same(one("def c1, 5, 5, 5, 5\nadd oC0, c0, c1", consts=consts), (6,) * 4)


def test_trace_records_last_writer():
    body = "def c0, 1, 2, 3, 4\nsetp_gt p0, v0, c0.x\nmov oC0, c0\n(p0.x) mov oC0.xy, v0"
    inp = np.array([[5, 5, 5, 5], [0, 0, 0, 0]], F32)
    r = ps(body, {0: inp}, n=2)
    instrs = r.instructions
    mov1 = next(i for i, x in enumerate(instrs) if x.predicate is None and x.opcode.name == "MOV")
    last = len(instrs) - 1
    same(r.trace["oC0"], [[last, last, mov1, mov1], [mov1] * 4])
    assert r.last_writer("oC0", 0, 0) is instrs[last]


# --------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------

finite = st.floats(-1e6, 1e6, allow_nan=False, width=32)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(finite, finite, finite, finite), min_size=4, max_size=4))
def test_arithmetic_matches_numpy(rows):
    a = np.array(rows, F32)
    b = a[::-1].copy()
    r = ps("add r0, v0, v1\nmul r1, v0, v1\ncmp r2, v0, v0, v1\nmov oC0, r0\nmov oC1, r1\nmov oC2, r2",
           {0: a, 1: b}, n=4)
    same(r.outputs["oC0"], flushed(a + b))
    same(r.outputs["oC1"], flushed(a * b))
    same(r.outputs["oC2"], flushed(np.where(a >= 0, a, b)))


@settings(max_examples=40, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True, width=32))
def test_legacy_multiply_zero_wins(x):
    r = one("def c0, 0, 0, 0, 0\nmul r0, v0, c0\nmad r1, c0, v0, c0\nmov oC0, r0\nmov oC1, r1", (x, x, x, x))
    assert np.all(r == 0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 40), st.integers(-20, 20), st.integers(-5, 5))
def test_loop_matches_python(count, start, step):
    total, trips = loop_trace(count, start, step)
    assert trips == count
    assert total == sum(start + k * step for k in range(count))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-3, 12), min_size=4, max_size=4))
def test_divergent_loop_per_pixel(limits):
    """A per-pixel break gives each pixel its own trip count."""
    inp = np.zeros((4, 4), F32)
    inp[:, 0] = limits
    body = ("defi i0, 10, 0, 1, 0\ndef c0, 1, 0, 0, 0\nmov r0, c0.y\n"
            "rep i0\nbreak_ge r0.x, v0.x\nadd r0.x, r0.x, c0.x\nendrep\nmov oC0, r0")
    got = oc0(body, {0: inp}, n=4, version="ps_2_x")[:, 0]
    same(got, [min(max(k, 0), 10) for k in limits])
