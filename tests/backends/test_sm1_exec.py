"""Shader model 1 executed on Mesa llvmpipe (moderngl, EGL), one small
shader per op (issue 5), against hand-computed values.

Each pixel shader is assembled, translated (``xlate.translate``) and drawn
as one point per pixel of an N x 1 float framebuffer; a hand-written vertex
shader feeds every varying the PS reads from per-point attributes, so each
pixel gets exact, uninterpolated inputs.  Everything is bound through the
reflection alone: samplers, constants and the draw-state uniforms
(``reflection["draw_state"]``).

Textures encode their own coordinates: texel (column c, row r) of stage s
is (c, r, s, 10 + s), and a cube face texel is (face, c, r, 10 + s), so a
result says which texel of which stage was hit.  Point sampling, wrap.

Where convenient the same shader also runs in the reference interpreter
(``xlate.verify.run_shader``) with the same inputs, textures and
texture-stage state, and must agree: the hand values check the
interpreter and the translation at once.

Vertex shaders (vs_1_1) run through transform feedback.
"""

from __future__ import annotations

import numpy as np
import pytest
from glharness import gl_context

from xlate import translate
from xlate.bytecode import decode
from xlate.bytecode.asm import assemble_bytes

GL_TARGETS = ("glsl120", "glsl330", "glsl450", "essl100", "essl300")
CLEAR = (-7.0, -7.0, -7.0, -7.0)  # what a discarded pixel keeps


@pytest.fixture(scope="module")
def ctx():
    c, why = gl_context()
    if c is None:
        pytest.skip(why)
    return c


# -- textures -------------------------------------------------------------------


def coord_texels(stage: int, width: int = 8, height: int = 8) -> np.ndarray:
    """(height, width, 4): texel (c, r) = (c, r, stage, 10 + stage); row 0 is v = 0."""
    r, c = np.mgrid[0:height, 0:width]
    return np.stack([c, r, np.full_like(c, stage), np.full_like(c, 10 + stage)], axis=-1).astype("f4")


def cube_texels(stage: int, size: int = 4) -> np.ndarray:
    """(6, size, size, 4): face f texel (c, r) = (f, c, r, 10 + stage), faces +X -X +Y -Y +Z -Z."""
    f, r, c = np.mgrid[0:6, 0:size, 0:size]
    return np.stack([f, c, r, np.full_like(c, 10 + stage)], axis=-1).astype("f4")


def gl_texture(ctx, texels: np.ndarray):
    import moderngl

    if texels.ndim == 4:  # cube: D3D and GL share face order and face orientation
        tex = ctx.texture_cube((texels.shape[2], texels.shape[1]), 4, texels.tobytes(), dtype="f4")
    else:
        tex = ctx.texture((texels.shape[1], texels.shape[0]), 4, texels.tobytes(), dtype="f4")
    tex.filter = (moderngl.NEAREST, moderngl.NEAREST)
    return tex


def reference_texture(texels: np.ndarray):
    from xlate.verify import SamplerState, Texture

    return Texture("cube" if texels.ndim == 4 else "2d", [texels], SamplerState())  # point, wrap


# -- one draw -------------------------------------------------------------------

VERSION = {"glsl120": "#version 120", "glsl330": "#version 330", "glsl450": "#version 450",
           "essl100": "#version 100", "essl300": "#version 300 es"}


def points_vertex(target: str, reflection: dict) -> tuple[str, list[tuple[str, tuple]]]:
    """A vertex shader drawing one point per pixel, copying attribute ``a_k``
    to the PS's k-th varying; returns (code, [(attribute, (usage, index))])."""
    old = target in ("glsl120", "essl100")
    lines = [VERSION[target]]
    if target.startswith("essl"):
        lines.append("precision highp float;")
    attrs = [("a_pos", None)]
    body = []
    for k, inp in enumerate(reflection["inputs"]):
        name, attr = inp["glsl"], f"a_{k}"
        attrs.append((attr, (inp["usage"], inp["usage_index"])))
        if old:
            lines += [f"attribute vec4 {attr};", f"varying vec4 {name};"]
        else:
            loc = f"layout(location = {inp['location']}) " if target == "glsl450" else ""
            lines += [f"in vec4 {attr};", f"{loc}out vec4 {name};"]
        body.append(f"    {name} = {attr};")
    lines.append("attribute vec4 a_pos;" if old else "in vec4 a_pos;")
    lines += ["void main()", "{", *body, "    gl_Position = a_pos;", "    gl_PointSize = 1.0;", "}"]
    return "\n".join(lines) + "\n", attrs


def bind_constants(prog, reflection: dict, registers: dict[int, tuple]) -> None:
    for entry in reflection["constants"]:
        if entry["file"] != "float" or entry["glsl"] not in prog:
            continue
        regs = [registers.get(entry["first"] + k, (0.0,) * 4) for k in range(entry["count"])]
        if entry["element"] is None:
            prog[entry["glsl"]].value = tuple(regs[0])
        else:
            n = prog[entry["glsl"]].array_length
            prog[entry["glsl"]].write(np.array(regs[:n], "f4").tobytes())


def bind_draw_state(prog, reflection: dict, stages: dict[int, dict]) -> None:
    """``stages``: {stage: {"mat": (M00, M01, M10, M11), "lscale": x, "loffset": y}},
    set as ``reflection["draw_state"]["uniforms"]`` says (state names)."""
    state = reflection["draw_state"]
    for u in state["uniforms"] if state else ():
        st = stages.get(u["stage"], {})
        kind = u["state"][0]
        if kind == "D3DTSS_BUMPENVMAT00":
            value = tuple(st.get("mat", (0.0,) * 4))
        elif kind == "D3DTSS_BUMPENVLSCALE":
            value = float(st.get("lscale", 0.0))
        else:
            assert kind == "D3DTSS_BUMPENVLOFFSET", u
            value = float(st.get("loffset", 0.0))
        if u["glsl"] in prog:
            prog[u["glsl"]].value = value


def run_ps(ctx, asm: str, inputs: dict, *, textures=None, constants=None, stages=None, target="glsl330",
           depth=False, **options):
    """Draw ``asm`` once per pixel.  ``inputs``: {(usage, index): (n, 4)} with
    usage "texcoord"/"color"; returns (colour (n, 4), depth (n,) or None, reflection)."""
    import moderngl

    blob = assemble_bytes(asm)
    t = translate(blob, target, **options)
    refl = t.reflection
    n = len(next(iter(inputs.values())))
    vs, attrs = points_vertex(target, refl)
    prog = ctx.program(vertex_shader=vs, fragment_shader=t.code)
    bind_constants(prog, refl, constants or {})
    bind_draw_state(prog, refl, stages or {})
    gl_textures = []
    for s in refl["samplers"]:
        tex = gl_texture(ctx, (textures or {})[s["register"]])
        tex.use(location=s["unit"])
        gl_textures.append(tex)
        if s["glsl"] in prog:
            prog[s["glsl"]].value = s["unit"]
    x = (2 * np.arange(n) + 1) / n - 1
    columns = {"a_pos": np.stack([x, np.zeros(n), np.zeros(n), np.ones(n)], axis=1)}
    for attr, key in attrs[1:]:
        columns[attr] = np.asarray(inputs.get(key, np.zeros((n, 4))), "f4").reshape(n, 4)
    buffers = [(ctx.buffer(np.asarray(columns[a], "f4").tobytes()), "4f", a) for a, _ in attrs if a in prog]
    colour = ctx.texture((n, 1), 4, dtype="f4")
    depth_tex = ctx.depth_texture((n, 1)) if depth else None
    fbo = ctx.framebuffer(color_attachments=[colour], depth_attachment=depth_tex)
    fbo.use()
    ctx.viewport = (0, 0, n, 1)
    fbo.clear(*CLEAR, depth=1.0)
    if depth:
        ctx.enable(moderngl.DEPTH_TEST)
        ctx.depth_func = "1"  # always pass, always write
    try:
        vao = ctx.vertex_array(prog, buffers)
        vao.render(mode=moderngl.POINTS, vertices=n)
        out = np.frombuffer(fbo.read(components=4, dtype="f4"), "f4").reshape(n, 4).copy()
        z = np.frombuffer(depth_tex.read(), "f4").reshape(n).copy() if depth else None
    finally:
        ctx.disable(moderngl.DEPTH_TEST)
    for o in [vao, fbo, colour, prog, *gl_textures, *(b for b, _, _ in buffers)] + ([depth_tex] if depth else []):
        o.release()
    return out, z, refl


def reference_ps(asm: str, inputs: dict, *, textures=None, constants=None, stages=None):
    """The reference interpreter on the same draw: (oC0 (n, 4), oDepth x or None, killed)."""
    from xlate.verify import ReferenceConstants, TextureStage, run_shader

    # Each pixel is a whole 2x2 quad of itself, as a point is on the GPU:
    # implicit-LOD lookups then see zero derivatives (the base level).
    n = 4 * len(next(iter(inputs.values())))
    ref_inputs = {}
    for (usage, index), values in inputs.items():
        ref_inputs[("t" if usage == "texcoord" else "v", index)] = np.repeat(np.asarray(values, "f4"), 4, axis=0)
    ts = {s: TextureStage(bump_env_mat=tuple(v.get("mat", (0.0,) * 4)), bump_env_lscale=v.get("lscale", 0.0),
                          bump_env_loffset=v.get("loffset", 0.0)) for s, v in (stages or {}).items()}
    res = run_shader(decode(assemble_bytes(asm)), ref_inputs, ReferenceConstants(floats=constants or {}),
                     {s: reference_texture(t) for s, t in (textures or {}).items()}, n=n, texture_stages=ts)
    depth = res.outputs["oDepth"][::4, 0] if "oDepth" in res.outputs else None
    return res.outputs["oC0"][::4], depth, res.killed[::4]


def texel_centre(c: float, r: float, size: int = 8) -> tuple[float, float]:
    return (c + 0.5) / size, (r + 0.5) / size


# -- ps_1_1 - 1_3 -------------------------------------------------------------------

TEXBEM = """ps_1_1
tex t0
texbem t1, t0
mov r0, t1
"""
# du, dv = (0.5, 0.25) from stage 0; stage 1 matrix (M00, M01, M10, M11):
# u' = u + M00 du + M10 dv = u + 0.25 + 0.25 = u + 4 texels,
# v' = v + M01 du + M11 dv = v - 0.25 + 0.125 = v - 1 texel.
# A transposed matrix would move by (+1, +5) texels instead.
BUMP_MAT = (0.5, -0.5, 1.0, 0.5)
BUMP_TEXELS = np.array([[[0.5, 0.25, 0.0, 0.0]]], "f4")


def _texbem_case():
    tc1 = [(*texel_centre(0, 5), 0, 1), (*texel_centre(3, 1), 0, 1), (*texel_centre(6, 7), 0, 1)]
    inputs = {("texcoord", 0): [(0.5, 0.5, 0, 1)] * 3, ("texcoord", 1): tc1}
    textures = {0: BUMP_TEXELS, 1: coord_texels(1)}
    # (0,5) -> (4,4); (3,1) -> (7,0); (6,7) -> (10,6), wrapped to (2,6)
    expect = [(4, 4, 1, 11), (7, 0, 1, 11), (2, 6, 1, 11)]
    return inputs, textures, expect


@pytest.mark.parametrize("target", GL_TARGETS)
def test_texbem_bump_matrix(ctx, target):
    inputs, textures, expect = _texbem_case()
    stages = {1: {"mat": BUMP_MAT}}
    out, _, refl = run_ps(ctx, TEXBEM, inputs, textures=textures, stages=stages, target=target)
    assert [u["glsl"] for u in refl["draw_state"]["uniforms"]] == ["xl_bumpenv_mat1"]
    assert refl["draw_state"]["bumpenv"] == [1]
    np.testing.assert_allclose(out, expect)
    ref, _, _ = reference_ps(TEXBEM, inputs, textures=textures, stages=stages)
    np.testing.assert_allclose(ref, expect)


def test_texbem_projected(ctx):
    # D3DTTFF_PROJECTED on stage 1: tc1 / tc1.w, then the displacement.
    inputs, textures, expect = _texbem_case()
    inputs[("texcoord", 1)] = [tuple(2 * np.array(tc)) for tc in inputs[("texcoord", 1)]]  # w = 2
    out, _, refl = run_ps(ctx, TEXBEM, inputs, textures=textures, stages={1: {"mat": BUMP_MAT}},
                          texture_projection=((1, 4),))
    assert refl["draw_state"]["projected"] == [{"stage": 1, "divide_by": "w"}]
    np.testing.assert_allclose(out, expect)


def test_texbeml_luminance_clamped(ctx):
    asm = TEXBEM.replace("texbem t1", "texbeml t1")
    # bump texels with luminance b = 0.5 and 0.9 (stage 0 texels 0 and 1);
    # factor = saturate(b * 2 - 0.25): 0.75 and 1.55 -> 1
    textures = {0: np.array([[[0.5, 0.25, 0.5, 0], [0.5, 0.25, 0.9, 0]]], "f4"), 1: coord_texels(1)}
    inputs = {("texcoord", 0): [(0.25, 0.5, 0, 1), (0.75, 0.5, 0, 1)],
              ("texcoord", 1): [(*texel_centre(0, 5), 0, 1)] * 2}
    stages = {1: {"mat": BUMP_MAT, "lscale": 2.0, "loffset": -0.25}}
    out, _, refl = run_ps(ctx, asm, inputs, textures=textures, stages=stages)
    assert sorted(u["glsl"] for u in refl["draw_state"]["uniforms"]) == [
        "xl_bumpenv_loffset1", "xl_bumpenv_lscale1", "xl_bumpenv_mat1"]
    expect = [np.array([4, 4, 1, 11]) * 0.75, [4, 4, 1, 11]]
    np.testing.assert_allclose(out, expect, rtol=1e-6)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures, stages=stages)[0], expect, rtol=1e-6)


def test_texm3x2tex(ctx):
    asm = """ps_1_1
tex t0
texm3x2pad t1, t0
texm3x2tex t2, t0
mov r0, t2
"""
    # N = (0.5, 0.25, 0.25); u = tc1.xyz . N, v = tc2.xyz . N
    textures = {0: np.array([[[0.5, 0.25, 0.25, 0]]], "f4"), 2: coord_texels(2)}
    a, b = (1.0, 0.5, 0.25, 0), (0.25, 0.5, 0.25, 0)  # . N = 0.6875 (texel 5), 0.3125 (texel 2)
    inputs = {("texcoord", 0): [(0.5, 0.5, 0, 1)] * 2, ("texcoord", 1): [a, b], ("texcoord", 2): [b, a]}
    expect = [(5, 2, 2, 12), (2, 5, 2, 12)]  # swapped rows swap the result
    out, _, _ = run_ps(ctx, asm, inputs, textures=textures)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures)[0], expect)


def test_texm3x3spec_cube(ctx):
    asm = """ps_1_1
tex t0
texm3x3pad t1, t0
texm3x3pad t2, t0
texm3x3spec t3, t0, c0
mov r0, t3
"""
    # t0 = T = (0.5, 0.25, 1); the rows make N = (tc1.T, tc2.T, tc3.T).
    # E = c0 = (0.375, 0.25, 1); R = 2 (N.E) / (N.N) N - E:
    # N = (0, 0, 1) or (0, 0, 2): R = (-0.375, -0.25, 1), face +Z (4):
    #   s = (x/|z| + 1)/2 = 0.3125 -> column 1, t = (-y/|z| + 1)/2 = 0.625 -> row 2;
    # N = (0, 1, 1): N.E = 1.25, N.N = 2, R = (-0.375, 1, 0.25), face +Y (2):
    #   s = (x/|y| + 1)/2 = 0.3125 -> column 1, t = (z/|y| + 1)/2 = 0.625 -> row 2.
    textures = {0: np.array([[[0.5, 0.25, 1.0, 0]]], "f4"), 3: cube_texels(3)}
    zero, z1, z2, y1 = (0, 0, 0, 0), (0, 0, 1, 0), (2, 4, 0, 0), (0, 4, 0, 0)
    inputs = {("texcoord", 0): [(0.5, 0.5, 0, 1)] * 3,
              ("texcoord", 1): [zero, zero, zero], ("texcoord", 2): [zero, zero, y1],
              ("texcoord", 3): [z1, z2, z1]}
    constants = {0: (0.375, 0.25, 1.0, 0.0)}
    expect = [(4, 1, 2, 13), (4, 1, 2, 13), (2, 1, 2, 13)]
    from xlate.bytecode.tables import SamplerType

    out, _, refl = run_ps(ctx, asm, inputs, textures=textures, constants=constants,
                          sampler_types=((3, SamplerType.CUBE),))
    assert {"stage": 3, "type": "cube"} in refl["draw_state"]["samplers"]
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures, constants=constants)[0], expect)


def test_texkill_tests_xyz_of_the_coordinate_set(ctx):
    asm = """ps_1_1
texkill t0
mov r0, v0
"""
    tc0 = [(0.5, 0.5, 0.5, -1.0),   # w < 0 is not tested: kept
           (0.5, -0.01, 0.5, 1.0),  # y < 0: killed
           (0.0, 0.0, 0.0, 0.0),    # 0 is not < 0: kept
           (0.5, 0.5, -2.0, 1.0)]   # z < 0: killed
    colour = [(0.1, 0.2, 0.3, 0.4)] * 4
    inputs = {("texcoord", 0): tc0, ("color", 0): colour}
    out, _, _ = run_ps(ctx, asm, inputs)
    expect = [colour[0], CLEAR, colour[2], CLEAR]
    np.testing.assert_allclose(out, expect, rtol=1e-6)
    _, _, killed = reference_ps(asm, inputs)
    assert list(killed) == [False, True, False, True]


def test_texm3x2depth(ctx):
    asm = """ps_1_3
tex t0
texm3x2pad t1, t0
texm3x2depth t2, t0
mov r0, v0
"""
    # T = (1, 0.5, 0.25); z = tc1.T, w = tc2.T; depth = saturate(w == 0 ? 1 : z / w)
    textures = {0: np.array([[[1.0, 0.5, 0.25, 0]]], "f4")}
    tc1 = [(0.25, 0, 0, 0), (0.5, 0, 0, 0), (0.25, 0.5, 1, 0), (-1, 0, 0, 0)]  # z = 0.25, 0.5, 0.75, -1
    tc2 = [(1, 0, 0, 0), (0, 0, 0, 0), (0, 2, 0, 0), (1, 0, 0, 0)]            # w = 1, 0, 1, 1
    inputs = {("texcoord", 0): [(0.5, 0.5, 0, 1)] * 4, ("texcoord", 1): tc1, ("texcoord", 2): tc2,
              ("color", 0): [(0.5, 0.5, 0.5, 1)] * 4}
    out, z, refl = run_ps(ctx, asm, inputs, textures=textures, depth=True)
    assert refl["draw_state"]["depth"] is True
    assert any(o["glsl"] == "gl_FragDepth" for o in refl["outputs"])
    expect = [0.25, 1.0, 0.75, 0.0]
    np.testing.assert_allclose(z, expect, atol=1e-6)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures)[1], expect, atol=1e-6)


def test_cnd_coissue_reads_before_the_pair_writes(ctx):
    # Wine's cnd_test shape: `mov r0.a, ...` then `+cnd r0.rgb, r0.a, ...`.
    # The cnd sees r0.a as it was before the pair (v0.a): pixel 0 has
    # v0.a = 0.25 -> c1 (sequential execution would see 0.75 -> c0),
    # pixel 1 has v0.a = 0.75 -> c0.
    asm = """ps_1_1
def c0, 1, 0, 0, 0
def c1, 0, 1, 0, 0
mov r0, v0
mov r0.a, v1.a
+cnd r0.rgb, r0.a, c0, c1
"""
    inputs = {("color", 0): [(0, 0, 0, 0.25), (0, 0, 0, 0.75)], ("color", 1): [(0, 0, 0, 0.75), (0, 0, 0, 0.25)]}
    expect = [(0, 1, 0, 0.75), (1, 0, 0, 0.25)]
    out, _, _ = run_ps(ctx, asm, inputs)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs)[0], expect)


def test_constants_clamped_results_not(ctx):
    # ps_1_x c# read as clamp(c, -1, 1), DEF and API values alike (§3.5);
    # the sum (2 and 1.25) is not clamped.
    asm = """ps_1_1
def c0, 2, -3, 0.5, 1.5
add r0, c0, c1
"""
    constants = {1: (4.0, -0.5, -2.0, 0.25)}
    inputs = {("color", 0): [(0, 0, 0, 0)]}
    expect = [(2.0, -1.5, -0.5, 1.25)]
    out, _, _ = run_ps(ctx, asm, inputs, constants=constants)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs, constants=constants)[0], expect)


def test_shifts_ps11(ctx):
    asm = """ps_1_1
def c0, 0.5, 0.25, 0.75, 0.6
mul_x2 r0.rgb, v0, c0
+add_d2 r0.a, v0.a, c0.a
mul_x4 r1, v0, c0
mad_sat r0.rgb, r1, c0.a, r0
"""
    # r0.rgb = 2 v0 c0 = (0.5, 0.25, 1.5) for v0 = 0.5; r0.a = (0.5 + 0.6) / 2 = 0.55;
    # r1 = 4 v0 c0 = (1, 0.5, 1.5); r0.rgb = saturate(r1 * 0.6 + r0) = (1, 0.55, 1)
    inputs = {("color", 0): [(0.5, 0.5, 1.0, 0.5)]}
    expect = [(1.0, 0.55, 1.0, 0.55)]
    out, _, _ = run_ps(ctx, asm, inputs)
    np.testing.assert_allclose(out, expect, rtol=1e-6)
    np.testing.assert_allclose(reference_ps(asm, inputs)[0], expect, rtol=1e-6)


# -- ps_1_4 --------------------------------------------------------------------------


def test_shifts_ps14(ctx):
    asm = """ps_1_4
def c0, 0.5, 0.25, 1, 0.75
mov_x8 r0.r, c0.r
mov_d8 r0.g, c0.g
mov_x4 r0.b, c0.b
mov_d4 r0.a, c0.a
"""
    inputs = {("color", 0): [(0, 0, 0, 0)]}
    expect = [(4.0, 0.03125, 4.0, 0.1875)]
    out, _, _ = run_ps(ctx, asm, inputs)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs)[0], expect)


def test_bem(ctx):
    # bem r2.rg reads the matrix of stage 2 (the destination number):
    # r2.r = s0.r + M00 s1.r + M10 s1.g, r2.g = s0.g + M01 s1.r + M11 s1.g
    asm = """ps_1_4
texcrd r0.rgb, t0
texcrd r1.rgb, t1
bem r2.rg, r0, r1
phase
texld r3, r2
mov r0.rg, r2
+mov r0.a, r3.r
mov r0.b, r3.g
"""
    s0 = [(*texel_centre(0, 5), 0, 1), (*texel_centre(3, 1), 0, 1)]
    s1 = [(0.5, 0.25, 0, 0)] * 2
    inputs = {("texcoord", 0): s0, ("texcoord", 1): s1}
    stages = {2: {"mat": BUMP_MAT}}
    textures = {3: coord_texels(3)}
    out, _, refl = run_ps(ctx, asm, inputs, textures=textures, stages=stages)
    assert [u["glsl"] for u in refl["draw_state"]["uniforms"]] == ["xl_bumpenv_mat2"]
    # the same displacement as the texbem test: +4 texels in u, -1 in v
    expect = [(*texel_centre(4, 4), 4, 4), (*texel_centre(7, 0), 0, 7)]
    np.testing.assert_allclose(out[:, :2], np.array(expect)[:, :2], rtol=1e-6)
    np.testing.assert_allclose(out[:, 2:], [(4, 4), (0, 7)])  # texel (c, r) of stage 3 as (b = r, a = c)
    ref = reference_ps(asm, inputs, textures=textures, stages=stages)[0]
    np.testing.assert_allclose(ref, out, rtol=1e-6)


def test_texld_dz_dw_and_texcrd(ctx):
    asm = """ps_1_4
texld r2, t0_dw.xyw
texcrd r1.rgb, t1_dz.xyz
mov r0.rg, r2
mov r0.b, r1.r
mov r0.a, r1.g
"""
    # t0 / t0.w hits texel (3, 6) of stage 2; t1.xy / t1.z = (0.75, -1.5), not clamped
    t0 = [(2 * 3.5 / 8, 2 * 6.5 / 8, 5.0, 2.0)]
    t1 = [(1.5, -3.0, 2.0, 7.0)]
    inputs = {("texcoord", 0): t0, ("texcoord", 1): t1}
    textures = {2: coord_texels(2)}
    expect = [(3, 6, 0.75, -1.5)]
    out, _, _ = run_ps(ctx, asm, inputs, textures=textures)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures)[0], expect)


def test_phase_keeps_every_register(ctx):
    # r3 (phase 1 texcrd) drives a dependent read in phase 2; r1.a from a
    # phase-1 texld survives the phase (every peer keeps it, §2.12).
    asm = """ps_1_4
texcrd r3.rgb, t0
texld r1, t1
phase
texld r2, r3
mov r0.rgb, r2
+mov r0.a, r1.a
"""
    inputs = {("texcoord", 0): [(*texel_centre(6, 2), 0, 1)], ("texcoord", 1): [(*texel_centre(1, 1), 0, 1)]}
    textures = {1: coord_texels(1), 2: coord_texels(2)}
    expect = [(6, 2, 2, 11)]
    out, _, _ = run_ps(ctx, asm, inputs, textures=textures)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(reference_ps(asm, inputs, textures=textures)[0], expect)


def test_texdepth(ctx):
    asm = """ps_1_4
texcrd r5.rgb, t0
phase
texdepth r5
mov r0, r5
"""
    # depth = saturate(r5.g == 0 ? 1 : r5.r / r5.g); r5 keeps its value
    t0 = [(0.25, 0.5, 0, 1), (0.3, 0.0, 0, 1), (1.0, 0.5, 0, 1), (-0.5, 1.0, 0, 1)]
    inputs = {("texcoord", 0): t0}
    out, z, refl = run_ps(ctx, asm, inputs, depth=True)
    assert refl["draw_state"]["depth"] is True
    expect = [0.5, 1.0, 1.0, 0.0]
    np.testing.assert_allclose(z, expect, atol=1e-6)
    np.testing.assert_allclose(out[:, :3], np.array(t0)[:, :3])
    np.testing.assert_allclose(reference_ps(asm, inputs)[1], expect, atol=1e-6)


# -- vs_1_1 ------------------------------------------------------------------------------


def run_vs(ctx, asm: str, inputs: dict[str, np.ndarray], varyings: list[str], constants=None):
    """Transform feedback of ``varyings`` for one point per row of the inputs
    ({glsl input name: (n, 4)})."""
    t = translate(assemble_bytes(asm), "glsl330", half_pixel=False, clip_z=False)
    prog = ctx.program(vertex_shader=t.code, varyings=varyings)
    bind_constants(prog, t.reflection, constants or {})
    n = len(next(iter(inputs.values())))
    fbo = ctx.simple_framebuffer((1, 1))  # transform feedback writes zeros without one (TESTING.md)
    fbo.use()
    buffers = [(ctx.buffer(np.asarray(v, "f4").tobytes()), "4f", name) for name, v in inputs.items() if name in prog]
    out = ctx.buffer(reserve=n * 16 * len(varyings))
    vao = ctx.vertex_array(prog, buffers)
    import moderngl

    vao.transform(out, mode=moderngl.POINTS, vertices=n)
    got = np.frombuffer(out.read(), "f4").reshape(n, len(varyings), 4).copy()
    for o in [vao, out, fbo, prog, *(b for b, _, _ in buffers)]:
        o.release()
    return got, t.reflection


def test_vs11_mov_a0_floors_and_relative_constants(ctx):
    asm = """vs_1_1
dcl_position v0
dcl_texcoord0 v1
mov oPos, v0
mov a0.x, v1.x
mov oT0, c[a0.x + 2]
"""
    x = np.array([1.7, 1.5, -0.5, 0.5, 2.5, -2.5, 3.2])
    # a0 = floor(x) = 1, 1, -1, 0, 2, -3, 3 -> c3, c3, c1, c2, c4, c[-1] = 0, c5
    constants = {k: (k, 10 * k, -k, 0.5) for k in range(6)}
    pos = np.tile([0, 0, 0, 1], (len(x), 1))
    tc = np.stack([x, np.zeros_like(x), np.zeros_like(x), np.ones_like(x)], axis=1)
    got, _ = run_vs(ctx, asm, {"in_position0": pos, "in_texcoord0": tc}, ["v_texcoord0"], constants)
    regs = [3, 3, 1, 2, 4, None, 5]
    expect = [constants[r] if r is not None else (0, 0, 0, 0) for r in regs]
    np.testing.assert_allclose(got[:, 0], expect)


def test_vs11_expp_and_colour_saturate(ctx):
    asm = """vs_1_1
dcl_position v0
dcl_texcoord0 v1
mov oPos, v0
expp oT0, v1.x
mov oD0, v1
"""
    x = np.array([2.5, -1.25, 0.0])
    pos = np.tile([0, 0, 0, 1], (len(x), 1))
    tc = np.stack([x, np.full_like(x, 0.5), np.full_like(x, 3.0), np.full_like(x, -1.0)], axis=1)
    got, _ = run_vs(ctx, asm, {"in_position0": pos, "in_texcoord0": tc}, ["v_texcoord0", "v_color0"])
    # expp (vs_1_1): (2^floor(x), x - floor(x), 2^x, 1)
    expect = [(4.0, 0.5, 2 ** 2.5, 1.0), (0.25, 0.75, 2 ** -1.25, 1.0), (1.0, 0.0, 1.0, 1.0)]
    np.testing.assert_allclose(got[:, 0], expect, rtol=1e-5)
    # oD0 saturated: (x, 0.5, 3, -1) -> (sat(x), 0.5, 1, 0)
    np.testing.assert_allclose(got[:, 1], [(1, 0.5, 1, 0), (0, 0.5, 1, 0), (0, 0.5, 1, 0)])


# -- reflection of the draw-time state (no GL needed) --------------------------------


def test_draw_state_reflection_vulkan_block():
    import json

    t = translate(assemble_bytes(TEXBEM.replace("texbem t1", "texbeml t1")), "vulkan")
    state = t.reflection["draw_state"]
    # stage 1: the matrix at byte 32, LSCALE at 48, LOFFSET at 52 of set 1, binding 20
    assert [(u["glsl"], u["set"], u["binding"], u["offset"]) for u in state["uniforms"]] == [
        ("xl_bumpenv_mat1", 1, 20, 32), ("xl_bumpenv_lscale1", 1, 20, 48), ("xl_bumpenv_loffset1", 1, 20, 52)]
    assert "layout(set = 1, binding = 20, std140) uniform ps_draw_state" in t.code
    assert state["bumpenv"] == [1] and state["luminance"] == [1] and state["depth"] is False
    assert json.loads(json.dumps(t.reflection)) == t.reflection
    spv = translate(assemble_bytes(TEXBEM), "spirv")  # written natively (spirv-val: test_spirv_native)
    assert spv.code[:4] == b"\x03\x02\x23\x07"


def test_draw_state_only_for_sm1_pixel_shaders():
    vs2 = translate(assemble_bytes("vs_2_0\ndcl_position v0\nmov oPos, v0\n"), "glsl330")
    assert vs2.reflection["draw_state"] is None
    ps = translate(assemble_bytes("ps_1_1\ntex t0\nmov r0, t0\n"), "glsl330")
    assert ps.reflection["draw_state"] == {"uniforms": [], "samplers": [{"stage": 0, "type": "2d"}],
                                           "projected": [], "bumpenv": [], "luminance": [], "depth": False}
    # the coordinate set of stage 0 is reported as t0's
    assert [(i["usage"], i["usage_index"], i["register"]) for i in ps.reflection["inputs"]] == [("texcoord", 0, 0)]
