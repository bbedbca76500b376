"""Translated shaders running on Mesa llvmpipe (moderngl, EGL): numbers, not
just compilation.  Shaders are written in D3D assembly, assembled by xlate,
and go through the whole pipeline (``xlate.translate``)."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from glharness import gl_context

from xlate import translate
from xlate.bytecode.asm import assemble_bytes

VS_POS = """vs_3_0
dcl_position v0
dcl_position o0
mov o0, v0
"""


@pytest.fixture(scope="module")
def ctx():
    c, why = gl_context()
    if c is None:
        pytest.skip(why)
    return c


def build(ctx, vs_asm, ps_asm, target="glsl330", **options):
    vs = translate(assemble_bytes(vs_asm), target, **options)
    ps = translate(assemble_bytes(ps_asm), target, **options)
    prog = ctx.program(vertex_shader=vs.code, fragment_shader=ps.code)
    return prog, vs.reflection, ps.reflection


def set_constants(prog, refl, registers: dict[int, tuple]):
    for entry in refl["constants"]:
        name = entry["glsl"]
        if name not in prog:
            continue
        values = [registers.get(entry["first"] + k, (0.0,) * 4) for k in range(entry["count"])]
        if entry["element"] is None:
            prog[name].value = tuple(values[0])
        else:
            n = prog[name].array_length
            prog[name].write(np.array(values[:n], "f4").tobytes())


def draw_quad(ctx, prog, width, height):
    fbo = ctx.framebuffer(color_attachments=[ctx.texture((width, height), 4, dtype="f4")])
    fbo.use()
    ctx.viewport = (0, 0, width, height)
    fbo.clear(0.0, 0.0, 0.0, 0.0)
    quad = np.array([-1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, 1, 1, 1, 0, 1], "f4")
    vbo = ctx.buffer(quad.tobytes())
    attr = next(iter(n for n in ("in_position0",) if n in prog))
    vao = ctx.vertex_array(prog, [(vbo, "4f", attr)])
    vao.render(mode=__import__("moderngl").TRIANGLE_STRIP)
    data = np.frombuffer(fbo.read(components=4, dtype="f4"), "f4").reshape(height, width, 4)
    for o in (vao, vbo, fbo):
        o.release()
    return data


@pytest.mark.parametrize("target", ["glsl120", "glsl330", "glsl450", "essl100", "essl300"])
def test_ps_constant_colour(ctx, target):
    prog, _, _ = build(ctx, VS_POS.replace("vs_3_0", "vs_3_0"), """ps_3_0
def c0, 0.25, 0.5, 0.75, 1.0
mov oC0, c0
""", target)
    img = draw_quad(ctx, prog, 2, 2)
    assert np.allclose(img, [0.25, 0.5, 0.75, 1.0], atol=1e-6)


def test_ps_uniform_constant_and_arithmetic(ctx):
    prog, _, psr = build(ctx, VS_POS, """ps_3_0
def c1, 2.0, 0.5, -1.0, 0.0
mad oC0, c0, c1, c1.w
""")
    set_constants(prog, psr, {0: (1.0, 3.0, 0.5, 8.0)})
    img = draw_quad(ctx, prog, 1, 1)
    assert np.allclose(img[0, 0], [2.0, 1.5, -0.5, 0.0])


def test_vpos_integer_pixel_centres_top_down(ctx):
    prog, vsr, psr = build(ctx, VS_POS, """ps_3_0
dcl vPos.xy
mov oC0, vPos.xyxy
""", half_pixel=False)
    assert psr["viewport"] is not None
    prog["xl_viewport"].value = (0.0, 0.0, 2.0, 0.0)  # render-target height 2
    img = draw_quad(ctx, prog, 4, 2)
    # readback row 0 is the bottom of the image, D3D row 1
    assert np.allclose(img[0, :, 0], [0, 1, 2, 3]) and np.allclose(img[0, :, 1], 1.0)
    assert np.allclose(img[1, :, 1], 0.0)


def test_vs_transform_feedback_clip_z_and_half_pixel(ctx):
    vs = translate(assemble_bytes("""vs_3_0
dcl_position v0
dcl_position o0
dcl_texcoord0 o1
m4x4 o0, v0, c0
mov o1, v0
"""), "glsl330")
    prog = ctx.program(vertex_shader=vs.code, varyings=["gl_Position", "v_texcoord0"])
    m = np.array([[1, 0, 0, 0.5], [0, 2, 0, 0], [0, 0, 0.5, 0.25], [0, 0, 0, 1]], "f4")
    set_constants(prog, vs.reflection, {r: tuple(m[r]) for r in range(4)})
    prog["xl_viewport"].value = (1 / 64, 1 / 32, 32.0, 0.0)
    verts = np.array([[1, 2, 3, 1], [-1, 0.5, 0.25, 2]], "f4")
    fbo = ctx.simple_framebuffer((1, 1))  # transform feedback writes zeros without one (TESTING.md)
    fbo.use()
    vbo = ctx.buffer(verts.tobytes())
    out = ctx.buffer(reserve=2 * 8 * 4)
    vao = ctx.vertex_array(prog, [(vbo, "4f", "in_position0")])
    vao.transform(out, vertices=2)
    got = np.frombuffer(out.read(), "f4").reshape(2, 8)
    for v, g in zip(verts, got):
        x, y, z, w = m @ v
        k = 63 / 64  # the default 63/128-pixel shift (Options.half_pixel_exact off)
        expect = [x + k * w / 64, y - k * w / 32, 2 * z - w, w]
        assert np.allclose(g[:4], expect, atol=1e-5), (g[:4], expect)
        assert np.allclose(g[4:], v)
    for o in (vao, vbo, out, fbo):
        o.release()


def test_vs2_colour_saturated(ctx):
    prog, vsr, _ = build(ctx, """vs_2_0
dcl_position v0
def c0, 2.0, -1.0, 0.5, 3.0
mov oPos, v0
mov oD0, c0
""", """ps_2_0
dcl v0
mov oC0, v0
""", half_pixel=False)
    img = draw_quad(ctx, prog, 1, 1)
    assert np.allclose(img[0, 0], [1.0, 0.0, 0.5, 1.0])


def test_legacy_multiply_zero_times_inf(ctx):
    prog, _, psr = build(ctx, VS_POS, """ps_3_0
def c1, 0.0, 0.0, 1.0, 1.0
mul oC0, c0, c1
""")
    inf = struct.unpack("<f", struct.pack("<I", 0x7F800000))[0]
    set_constants(prog, psr, {0: (inf, 1.0, 2.0, 3.0)})
    img = draw_quad(ctx, prog, 1, 1)
    assert np.allclose(img[0, 0], [0.0, 0.0, 2.0, 3.0])
