"""``Options.infinities``: what rcp, rsq, log and logp give where IEEE
arithmetic gives an infinity, computed on llvmpipe through the whole
pipeline and by the reference interpreter (semantics §7.1).

"clamp" (default): rcp(±0) = ±FLT_MAX, rsq(0) = FLT_MAX, log(0) = −FLT_MAX,
log(+inf) = FLT_MAX.  "ieee": ±inf, as NVIDIA drivers (and vkd3d's tests,
rcp__d8) give them.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_llvmpipe import VS_POS, build, ctx, draw_quad, set_constants  # noqa: F401 - ctx is a fixture

from xlate import translate
from xlate.bytecode import decode
from xlate.bytecode.asm import assemble_bytes
from xlate.options import Options
from xlate.verify.reference import ReferenceConstants, run_shader

FLT_MAX = float(np.finfo(np.float32).max)
INF = float("inf")

# c0 = (0, -0, +inf, -inf) arrives as a uniform, so nothing is folded.
PS = """ps_3_0
rcp r0.x, c0.x
rcp r0.y, c0.y
rsq r0.z, c0.x
log r0.w, c0.x
mov oC0, r0
"""
PS_INF = """ps_3_0
rcp r0.x, c0.z
rcp r0.y, c0.w
log r0.z, c0.z
log r0.w, c0.w
mov oC0, r0
"""
C0 = (0.0, -0.0, INF, -INF)

EXPECTED = {
    ("clamp", PS): [FLT_MAX, -FLT_MAX, FLT_MAX, -FLT_MAX],
    ("ieee", PS): [INF, -INF, INF, -INF],
    # rcp(±inf) = ±0 either way; log(|±inf|) = +inf, clamped or not
    ("clamp", PS_INF): [0.0, -0.0, FLT_MAX, FLT_MAX],
    ("ieee", PS_INF): [0.0, -0.0, INF, INF],
}


@pytest.mark.parametrize("mode", ["clamp", "ieee"])
@pytest.mark.parametrize("ps", [PS, PS_INF], ids=["zero", "infinity"])
def test_llvmpipe_and_reference_agree(ctx, mode, ps):  # noqa: F811 - ctx is the fixture
    expected = np.array(EXPECTED[mode, ps], np.float32)
    prog, _, psr = build(ctx, VS_POS, ps, infinities=mode)
    set_constants(prog, psr, {0: C0})
    got = draw_quad(ctx, prog, 1, 1)[0, 0]
    np.testing.assert_array_equal(got, expected)
    assert list(np.signbit(got)) == list(np.signbit(expected))
    ref = run_shader(decode(assemble_bytes(ps)), {}, ReferenceConstants(floats={0: C0}), {}, n=1, infinities=mode)
    np.testing.assert_array_equal(ref.outputs["oC0"][0], expected)


@pytest.mark.parametrize("target", ["glsl120", "glsl330", "glsl450", "essl100", "essl300", "vulkan", "spirv"])
def test_ieee_translates_for_every_target(target):
    out = translate(assemble_bytes(PS), target, infinities="ieee")
    assert out.code
    if target != "spirv":
        assert "3.4028" not in out.code  # no FLT_MAX clamp left


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="infinities must be one of clamp, ieee"):
        Options(infinities="nvidia")
