"""The GLSL emitter and templates, feature by feature and target by target.

Each feature is a small hand-built core-IR program (``irkit``); every GLSL
output is checked by glslangValidator in one batch, the Vulkan one through
glslang -V + spirv-val.  ES 1.00 must refuse, with UnsupportedError, what
Appendix A cannot express.
"""

from __future__ import annotations

import math
import pickle

import pytest
from irkit import Kit, vs_passthrough

from xlate.backends import generate, get_target, resolve_options
from xlate.backends.check import validate_glsl
from xlate.bytecode.tables import RegisterType as R, SamplerType
from xlate.errors import UnsupportedError
from xlate.ir.ops import Code, SampleKind
from xlate.ir.program import Storage
from xlate.ir.types import B1, B4, F1, F2, F4, I1, I4
from xlate.options import Options
from xlate.passes import io

GL_TARGETS = ("glsl120", "glsl330", "glsl450", "essl100", "essl300")


def ps_out(k):
    return k.output("oC0", (R.COLOROUT, 0), "color", 0)


def f_constants():
    k = Kit("ps_3_0")
    c = k.const_file(8)
    i = k.const_file(2, Storage.INT_CONST, I4, "i")
    b = k.const_file(2, Storage.BOOL_CONST, B1, "b")
    r0 = k.temp(0)
    k.marker(Code.IF, k.load(b, 1))
    k.store(r0, k.op(Code.I2F, k.load(i, 1), type=F4))
    k.marker(Code.ELSE)
    k.store(r0, k.load(c, 7))
    k.marker(Code.ENDIF)
    k.store(ps_out(k), k.op(Code.FADD, k.load(r0), k.load(c, 0)))
    return k


def f_dynamic_vs():
    k = vs_passthrough()
    c = k.const_file(16)
    a0 = k.var("a0", Storage.ADDRESS, I4, register=(R.ADDR, 0))
    idx = k.swz(k.load(a0), 0)
    col = k.output("o2", (R.TEXCRDOUT, 2), "color", 0)
    k.store(col, k.load(c, 3, index=idx))
    return k


def f_loop_call():
    k = Kit("ps_3_0")
    r0 = k.temp(0)
    count = k.var("loop0_count", Storage.LOCAL, I1)
    k.store(count, k.const(4))
    k.marker(Code.LOOP)
    left = k.load(count)
    k.marker(Code.IF, k.op(Code.ILE, left, k.const(0), type=B1))
    k.marker(Code.BREAK)
    k.marker(Code.ENDIF)
    k.marker(Code.CALL, imm=("l1",))
    k.store(count, k.op(Code.IADD, k.load(count), k.const(-1)))
    k.marker(Code.ENDLOOP)
    k.store(ps_out(k), k.load(r0))
    from xlate.ir.program import Function

    k.program.functions["l1"] = fn = Function("l1", label=1)
    k.fn = fn
    k.store(r0, k.op(Code.FADD, k.load(r0), k.const(0.25, 0.25, 0.25, 0.25)))
    k.marker(Code.RETURN)
    return k


def f_math():
    k = Kit("ps_3_0")
    c = k.const_file(2)
    a, b = k.load(c, 0), k.load(c, 1)
    x = k.op(Code.FMUL_LEGACY, a, b)
    x = k.op(Code.FSATURATE, k.op(Code.FADD, x, k.op(Code.FNEG, k.op(Code.FNEG, b))))
    d = k.op(Code.FDOT_LEGACY, a, b, type=F1)
    d3 = k.op(Code.FDOT, k.swz(a, 0, 1, 2), k.swz(b, 0, 1, 2), type=F1)
    sel = k.op(Code.SELECT, k.op(Code.FLT, a, b, type=B4), x, a, type=F4)
    bits = k.op(Code.BAND, k.op(Code.FGE, a, b, type=B4), k.op(Code.BNOT, k.op(Code.FNE, a, b, type=B4)))
    bits = k.op(Code.BOR, bits, k.op(Code.FEQ, a, a, type=B4))
    isel = k.op(Code.SELECT, bits, k.op(Code.F2I_ROUND, a, type=I4), k.op(Code.F2I_FLOOR, b, type=I4), type=I4)
    y = k.op(Code.FADD, sel, k.op(Code.I2F, isel, type=F4))
    y = k.op(Code.FADD, y, k.op(Code.FROUND_EVEN, k.op(Code.FRCP, k.op(Code.FRSQ, y))))
    y = k.op(Code.FMAD, y, k.op(Code.FPOW, k.op(Code.FABS, y), b), k.op(Code.FCLAMP, y, a, b))
    s = k.op(Code.FADD, d, d3)
    s = k.op(Code.FADD, s, k.op(Code.B2F, k.op(Code.BANY, bits, type=B1), type=F1))
    z = k.op(Code.CONSTRUCT, s, k.const(math.inf), k.const(-math.inf), k.const(math.nan), type=F4)
    z = k.op(Code.FADD, z, k.op(Code.FMIN, k.op(Code.FFRACT, y), k.op(Code.FMAX, k.op(Code.FSIN, y), k.op(Code.FCOS, y))))
    z = k.op(Code.FADD, z, k.op(Code.FEXP2, k.op(Code.FLOG2, k.op(Code.FSQRT, k.op(Code.FSIGN, k.op(Code.FFLOOR, z))))))
    z = k.op(Code.FDIV, z, k.const(3.4028234663852886e38, 1e-45, 0.1, -0.0))
    k.store(ps_out(k), z)
    return k


def f_textures(kind, stype=SamplerType.TEX2D, stage="ps_3_0"):
    def build():
        k = Kit(stage)
        s = k.sampler(0, stype)
        c = k.const_file(1)
        coord = k.load(c, 0)
        if kind is SampleKind.PLAIN:
            t = k.sample(s, coord)
        elif kind is SampleKind.GRAD:
            w = 2 if stype is SamplerType.TEX2D else 3
            g = k.swz(coord, *range(w))
            t = k.sample(s, coord, g, g, kind=kind)
        else:
            t = k.sample(s, coord, k.swz(coord, 3), kind=kind)
        if stage.startswith("ps"):
            k.store(ps_out(k), t)
        else:
            pos = k.output("oPos", (R.RASTOUT, 0), "position")
            k.store(pos, t)
        return k
    return build


def f_derivatives():
    k = Kit("ps_3_0")
    t0 = k.input("t0", (R.INPUT, 0), "texcoord", 0, centroid=True)
    v = k.load(t0)
    k.marker(Code.IF, k.op(Code.FLT, k.swz(v, 0), k.const(0.0), type=B1))
    k.marker(Code.DISCARD)
    k.marker(Code.ENDIF)
    k.store(ps_out(k), k.op(Code.FADD, k.op(Code.FDDX, v), k.op(Code.FDDY, v)))
    return k


def f_mrt_depth():
    k = Kit("ps_3_0")
    c = k.const_file(1)
    for n in range(3):
        k.store(k.output(f"oC{n}", (R.COLOROUT, n), "color", n), k.load(c, 0))
    depth = k.output("oDepth", (R.DEPTHOUT, 0), "depth", 0, type=F1, mask=1)
    k.store(depth, k.swz(k.load(c, 0), 2), mask=1)
    return k


def f_vpos_vface():
    k = Kit("ps_3_0")
    vpos = k.var("vPos", Storage.INPUT, F4, register=(R.MISCTYPE, 0), builtin="vpos")
    vface = k.var("vFace", Storage.INPUT, F1, register=(R.MISCTYPE, 1), builtin="vface")
    k.store(ps_out(k), k.op(Code.FMUL, k.load(vpos), k.swz(k.load(vface), 0, 0, 0, 0)))
    io.run(k.program, Options())
    return k


def f_split_outputs():
    k = vs_passthrough()
    from xlate.ir.program import Semantic
    from xlate.bytecode.tables import DeclUsage

    o5 = k.var("o5", Storage.OUTPUT, F4, register=(R.TEXCRDOUT, 5),
               semantics=((0x3, Semantic(DeclUsage.TEXCOORD, 2)), (0xC, Semantic(DeclUsage.TEXCOORD, 3))))
    o6 = k.output("o6", (R.TEXCRDOUT, 6), "psize")
    k.store(o5, k.const(1.0, 2.0, 3.0, 4.0))
    k.store(o6, k.const(3.0, 0.0, 0.0, 0.0))
    k.marker(Code.RETURN)
    io.run(k.program, Options())
    return k


def f_sm2_vs():
    k = Kit("vs_2_0")
    v0 = k.input("v0", (R.INPUT, 0), "position")
    pos = k.output("oPos", (R.RASTOUT, 0), "position")
    d0 = k.output("oD0", (R.ATTROUT, 0), "color", 0)
    fog = k.output("oFog", (R.RASTOUT, 1), "fog", 0, type=F1, mask=1)
    k.store(pos, k.load(v0))
    k.store(d0, k.swz(k.load(v0), 0, 1), mask=0x3)
    k.store(fog, k.swz(k.load(v0), 2), mask=1)
    io.run(k.program, Options(clip_z=True, flip_y=True))
    return k


FEATURES = {
    "constants": f_constants,
    "dynamic_vs": f_dynamic_vs,
    "loop_call": f_loop_call,
    "math": f_math,
    "tex2d": f_textures(SampleKind.PLAIN),
    "texcube_bias": f_textures(SampleKind.BIAS, SamplerType.CUBE),
    "tex3d": f_textures(SampleKind.PLAIN, SamplerType.VOLUME),
    "tex2d_lod": f_textures(SampleKind.LOD),
    "tex2d_grad": f_textures(SampleKind.GRAD),
    "texcube_grad": f_textures(SampleKind.GRAD, SamplerType.CUBE),
    "vs_tex_lod": f_textures(SampleKind.LOD, stage="vs_3_0"),
    "derivatives": f_derivatives,
    "mrt_depth": f_mrt_depth,
    "vpos_vface": f_vpos_vface,
    "split_outputs": f_split_outputs,
    "sm2_vs": f_sm2_vs,
}
# What ES 1.00 cannot express (Appendix A, missing extensions in glslang).
ES100_REFUSES = {"loop_call": False, "mrt_depth": True}


def _generate(feature, target):
    k = FEATURES[feature]()
    tgt = get_target(target)
    return generate(k.program, tgt, resolve_options(tgt, Options()))


@pytest.fixture(scope="module")
def outputs():
    out = {}
    for feature in FEATURES:
        for target in GL_TARGETS + ("vulkan",):
            try:
                out[feature, target] = _generate(feature, target)
            except UnsupportedError as exc:
                out[feature, target] = exc
    return out


def test_every_gl_output_passes_glslang(outputs):
    keys = [key for key, v in outputs.items() if not isinstance(v, Exception) and key[1] != "vulkan"]
    verdicts = validate_glsl([(outputs[k][0], outputs[k][1]["stage"]) for k in keys])
    bad = {k: v for k, v in zip(keys, verdicts) if v}
    assert not bad, "\n\n".join(f"{k}:\n{v}\n{outputs[k][0]}" for k, v in bad.items())


def test_vulkan_outputs_compile_to_valid_spirv(outputs):
    from xlate.backends.spirv import compile_glsl

    for (feature, target), v in outputs.items():
        if target == "vulkan":
            assert not isinstance(v, Exception), (feature, v)
            compile_glsl(v[0], v[1]["stage"])


def test_only_es100_refuses(outputs):
    refused = {k for k, v in outputs.items() if isinstance(v, Exception)}
    assert all(t == "essl100" for _, t in refused), refused
    assert ("mrt_depth", "essl100") in refused
    for k in refused:
        assert "ES 1.00" in str(outputs[k])


def test_es100_dynamic_temporary_index_refused():
    k = Kit("ps_3_0")
    arr = k.var("v_arr", Storage.LOCAL, F4, length=4)
    aL = k.var("aL", Storage.LOOP_COUNTER, I1, register=(R.LOOP, 0))
    k.store(ps_out(k), k.load(arr, 0, index=k.load(aL)))
    with pytest.raises(UnsupportedError, match="Appendix A"):
        generate(k.program, get_target("essl100"), Options())
    generate(k.program, get_target("essl300"), Options())


def test_dialect_spellings(outputs):
    code120 = outputs["tex2d", "glsl120"][0]
    assert "varying vec4" not in code120 or "attribute" not in code120
    assert "gl_FragColor" in code120 and "texture2D(" in code120
    assert "gl_FragData[2]" in outputs["mrt_depth", "glsl120"][0]
    assert "layout(location = 2) out vec4 out_color2;" in outputs["mrt_depth", "glsl330"][0]
    es1 = outputs["derivatives", "essl100"][0]
    assert "#extension GL_OES_standard_derivatives : enable" in es1 and "GL_FRAGMENT_PRECISION_HIGH" in es1
    assert "centroid in vec4 v_texcoord0;" in outputs["derivatives", "glsl330"][0]
    assert "centroid" not in es1
    assert "precision highp float;" in outputs["tex2d", "essl300"][0]
    assert outputs["tex2d", "essl300"][0].startswith("#version 300 es\n")
    assert "texture2DLodEXT" in outputs["tex2d_lod", "essl100"][0]
    assert "texture2DGradARB" in outputs["tex2d_grad", "glsl120"][0]
    assert "for (int xl_loop0 = 0; xl_loop0 < 256; ++xl_loop0)" in outputs["loop_call", "essl100"][0]
    assert "for (;;)" in outputs["loop_call", "glsl330"][0]
    vk = outputs["constants", "vulkan"][0]
    assert "layout(set = 1, binding = 0, std140) uniform ps_float_constants" in vk
    assert "layout(offset = 112) vec4 ps_c7;" in vk
    assert "uintBitsToFloat(0x7F800000u)" in outputs["math", "glsl330"][0]
    assert "(1.0 / 0.0)" in outputs["math", "glsl120"][0]
    assert "3.4028235e+38" in outputs["math", "glsl330"][0]
    assert "vs_c[a0.x + 3]" in outputs["dynamic_vs", "glsl330"][0]


def test_io_builtins_and_reflection(outputs):
    code, refl = outputs["vpos_vface", "glsl330"]
    assert "gl_FragCoord" in code and "gl_FrontFacing" in code and "uniform vec4 xl_viewport;" in code
    assert refl["viewport"]["glsl"] == "xl_viewport"
    assert refl["front_face"]["gl"] == "GL_CW"  # upright image: D3D clockwise fronts stay clockwise
    code, refl = outputs["vpos_vface", "vulkan"]  # built before resolve: flip_y from Options() = None -> False
    code, refl = outputs["split_outputs", "glsl330"]
    assert "v_texcoord2 = " in code and "v_texcoord3 = " in code and "gl_PointSize = " in code
    assert code.count("gl_Position = vec4(") == 2  # the RETURN and the end of main both run the epilogue
    code, refl = outputs["sm2_vs", "glsl330"]
    assert "xl_saturate" in code and "v_fog0.x = " in code and "v_texcoord7 = vec4(0.0);" in code
    assert "v_color0 = vec4(1.0);" in code
    assert refl["outputs"][0]["glsl"] in ("gl_Position", "v_color0", "v_fog0")


def test_deterministic_and_picklable():
    a = _generate("math", "glsl330")
    b = _generate("math", "glsl330")
    assert a[0] == b[0] and a[1] == b[1]
    k = FEATURES["math"]()
    pickle.loads(pickle.dumps(k.program))


def test_template_environment_is_shared():
    from xlate.backends import templates

    assert templates.environment() is templates.environment()
    import jinja2

    assert isinstance(templates.environment().undefined, type) and issubclass(
        templates.environment().undefined, jinja2.StrictUndefined)


def test_annotate_is_stable_and_marks_instructions():
    from xlate import translate
    from xlate.bytecode.asm import assemble_bytes

    blob = assemble_bytes("ps_3_0\ndcl_texcoord0 v0\ndef c0, 1.0, 0.5, 0.0, 1.0\nmul r0, v0, c0\nadd oC0, r0, c0.y\n")
    a = translate(blob, "glsl330", annotate=True).code
    b = translate(blob, "glsl330", annotate=True).code
    assert a == b
    assert "// mul r0, v0, c0" in a and "// add oC0, r0, c0.y" in a
    assert "//" not in translate(blob, "glsl330").code.split("\n", 2)[2]
