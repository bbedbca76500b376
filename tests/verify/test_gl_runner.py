"""The GL runner (xlate.verify.gl) on llvmpipe: shaders written in D3D
assembly, translated by xlate, drawn through the runner and checked against
hand-computed pixels."""

from __future__ import annotations

import numpy as np
import pytest

from xlate import translate
from xlate.bytecode.asm import assemble_bytes
from xlate.verify import ReferenceConstants, SamplerState, Texture

F32 = np.float32
BIG_TRIANGLE = np.array([[-2, -2], [-2, 4], [4, -2]], F32)  # vkd3d's "draw quad"


def tr(asm: str, target: str = "glsl330", **options):
    return translate(assemble_bytes(asm), target, **options)


def draw(gl, vs, ps, **kw):
    from xlate.verify.gl import Draw

    kw.setdefault("vertices", {("position", 0): BIG_TRIANGLE})
    return gl.draw(vs, ps, Draw(**kw))


VS3 = """vs_3_0
dcl_position v0
dcl_texcoord0 v1
dcl_position o0
dcl_texcoord0 o1
mov o0, v0
mov o1, v1
"""


@pytest.mark.parametrize("target", ["glsl120", "glsl330", "glsl450", "essl100", "essl300"])
def test_constant_colour_every_target(gl, target):
    vs = tr("vs_2_0\ndcl_position v0\nmov oPos, v0\n", target)
    ps = tr("ps_2_0\ndef c1, 2, 0.5, -1, 0\nmad r0, c0, c1, c1.w\nmov oC0, r0\n", target)
    res = draw(gl, vs, ps, size=(3, 2), constants=ReferenceConstants(floats={0: (1, 2, 3, 4)}))
    assert res.colors[0].shape == (2, 3, 4)
    assert np.array_equal(res.colors[0], np.broadcast_to(F32([2, 1, -3, 0]), (2, 3, 4)))


@pytest.mark.parametrize("flip_y", [False, True])
def test_vpos_integer_centres_and_row_order(gl, flip_y):
    """vPos is the D3D pixel (integer centres), row 0 of the result is the top."""
    vs = tr("vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n", flip_y=flip_y)
    ps = tr("ps_3_0\ndcl vPos.xy\nmov oC0, vPos.xyxy\n", flip_y=flip_y)
    img = draw(gl, vs, ps, size=(5, 3)).colors[0]
    ys, xs = np.mgrid[0:3, 0:5]
    assert np.array_equal(img[..., 0], xs) and np.array_equal(img[..., 1], ys)


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("flip_y", [False, True])
def test_interpolation_at_d3d_pixel_centres(gl, flip_y, exact):
    """A texcoord spanning the target 0..1 reads px/width at pixel px (D3D9
    samples at integer window coordinates: the half-pixel offset works).  The
    default shift is 63/128 pixel, so values may be 1/128 pixel off."""
    vs = tr(VS3, flip_y=flip_y, half_pixel_exact=exact)
    ps = tr("ps_3_0\ndcl_texcoord0 v0\nmov oC0, v0\n", flip_y=flip_y, half_pixel_exact=exact)
    # (u, v) = ((x + 1) / 2, (1 - y) / 2): 0..1 across the target, v down.  The
    # triangle overhangs the target: a quad's edges through row 0's pixel
    # centres would meet llvmpipe's fill rule (test_vkd3d_llvmpipe.py).
    tri = {("position", 0): BIG_TRIANGLE, ("texcoord", 0): F32([[-0.5, 1.5], [-0.5, -1.5], [2.5, 1.5]])}
    img = draw(gl, vs, ps, vertices=tri, size=(4, 8)).colors[0]
    ys, xs = np.mgrid[0:8, 0:4]
    slack = 0.0 if exact else 1 / 128  # pixels
    assert np.allclose(img[..., 0], xs / 4, atol=1e-6 + slack / 4)
    assert np.allclose(img[..., 1], ys / 8, atol=1e-6 + slack / 8)
    if exact:
        return
    # The bias is really there: u is 1/128 pixel off D3D's centre.
    assert np.allclose(np.abs(img[..., 0] - xs / 4), 1 / 128 / 4, atol=1e-6)


def test_ps_alone_with_passthrough_vs(gl):
    """vs=None: the runner writes a VS feeding exactly the PS's varyings
    from per-vertex values."""
    ps = tr("ps_3_0\ndcl_texcoord3 v0\ndcl_color1 v1\nadd oC0, v0, v1\n")
    tri = {("position", 0): BIG_TRIANGLE,
           ("texcoord", 3): F32([[0, 1, 5, 1]] * 3), ("color", 1): F32([[1, 2, 3, 4]] * 3)}
    img = draw(gl, None, ps, vertices=tri, size=(2, 2)).colors[0]
    assert np.array_equal(img, np.broadcast_to(F32([1, 3, 8, 5]), (2, 2, 4)))


def test_vertex_shader_transform_feedback(gl):
    vs = tr("""vs_3_0
dcl_position v0
dcl_texcoord0 v1
dcl_position o0
dcl_texcoord0 o1
dcl_color0 o2
dcl_psize o3.x
mad o0, v0, c0, c1
mul o1, v1, c2
mov o2, c3
mov o3.x, c2.y
""")
    consts = ReferenceConstants(floats={0: (2, 2, 0.5, 1), 1: (0, 1, 0.25, 0), 2: (3, 4, 5, 6), 3: (-1, 2, 0.5, 1)})
    v = {("position", 0): F32([[1, 2, 0.5, 1], [0, 0, 1, 2]]), ("texcoord", 0): F32([[1, 1, 1, 1], [2, 0, -1, 0.5]])}
    res = gl.run_vertex(vs, v, consts)
    assert np.array_equal(res.position, F32([[2, 5, 0.5, 1], [0, 1, 0.75, 2]]))
    assert np.array_equal(res.output(("texcoord", 0)), F32([[3, 4, 5, 6], [6, 0, -5, 3]]))
    assert np.array_equal(res.output(("color", 0)), F32([[-1, 2, 0.5, 1]] * 2))  # vs_3_0: not saturated
    assert np.array_equal(res.output(("psize", 0))[:, 0], F32([4, 4]))


def test_vs_2_0_colour_saturated_through_transform_feedback(gl):
    vs = tr("vs_2_0\ndcl_position v0\nmov oPos, v0\nmov oD0, c0\n")
    res = gl.run_vertex(vs, {("position", 0): F32([[0, 0, 0, 1]])}, ReferenceConstants(floats={0: (2, -1, 0.5, 1)}))
    assert np.array_equal(res.output(("color", 0)), F32([[1, 0, 0.5, 1]]))
    assert np.array_equal(res.output(("texcoord", 7)), F32([[0, 0, 0, 0]]))  # fixed outputs


def test_int_and_bool_constants_drive_loops_and_ifs(gl):
    ps = tr("""ps_3_0
def c1, 1, 0, 0, 0
def c2, 0, 0, 0, 0
mov r0, c2
rep i0
add r0.x, r0.x, c1.x
endrep
if b0
add r0.y, r0.y, c1.x
endif
loop aL, i1
add r0.z, r0.z, c1.x
endloop
mov oC0, r0
""")
    # vs_3_0: the loop counter indexes constants
    vs = tr("""vs_3_0
dcl_position v0
dcl_position o0
dcl_texcoord0 o1
def c2, 0, 0, 0, 0
mov o0, v0
mov r0, c2
loop aL, i1
add r0.z, r0.z, c3[aL].x
endloop
if b3
mov r0.w, c3.x
endif
mov o1, r0
""")
    floats = {3: (1, 0, 0, 0), 7: (10, 0, 0, 0), 8: (100, 0, 0, 0), 9: (1000, 0, 0, 0)}
    for i0, b0, i1, want in [(3, True, (2, 4, 1, 0), (3, 1, 2, 0)), (5, False, (3, 4, 1, 0), (5, 0, 3, 0)),
                             (0, True, (0, 4, 1, 0), (0, 1, 0, 0))]:
        c = ReferenceConstants(floats=floats, ints={0: (i0, 0, 0, 0), 1: i1}, bools={0: b0, 3: not b0})
        img = draw(gl, None, ps, size=(2, 2), constants=c).colors[0]
        assert np.array_equal(img, np.broadcast_to(F32(want), (2, 2, 4))), (i0, b0, i1)
        out = gl.run_vertex(vs, {("position", 0): F32([[0, 0, 0, 1]])}, c).output(("texcoord", 0))
        sums = {2: 110, 3: 1110, 0: 0}[i1[0]]
        assert np.array_equal(out[0], F32([0, 0, sums, 0 if b0 else 1])), (i1, b0)


def _levels_2d():
    l0 = np.zeros((4, 4, 4), F32)
    for y in range(4):
        for x in range(4):
            l0[y, x] = (x, y, 0, 1)
    l1 = np.zeros((2, 2, 4), F32)
    for y in range(2):
        for x in range(2):
            l1[y, x] = (10 + x, 10 + y, 1, 1)
    return [l0, l1, np.array([[[20, 20, 2, 1]]], F32)]


PS_TEXLDL = """ps_3_0
dcl_{kind} s0
texldl r0, c0, s0
mov oC0, r0
"""


@pytest.mark.parametrize("coord, state, want", [
    ((0.375, 0.625, 0, 0), SamplerState(), (1, 2, 0, 1)),                      # point, base level
    ((0.375, 0.625, 0, 1), SamplerState(mip_filter="point"), (10, 11, 1, 1)),  # level 1
    ((0.375, 0.625, 0, 2), SamplerState(mip_filter="point"), (20, 20, 2, 1)),  # level 2
    ((0.375, 0.625, 0, 1), SamplerState(), (1, 2, 0, 1)),                      # MIP none: base level
    ((0.375, 0.625, 0, 0.5), SamplerState(mip_filter="linear"), (5.5, 6.5, 0.5, 1)),
    ((0.25, 0.125, 0, 0), SamplerState(mag_filter="linear"), (0.5, 0, 0, 1)),  # halfway between texels
    ((1.2, 0.125, 0, 0), SamplerState(address_u="clamp"), (3, 0, 0, 1)),
    ((1.125, 0.125, 0, 0), SamplerState(address_u="wrap"), (0, 0, 0, 1)),
    ((1.125, 0.125, 0, 0), SamplerState(address_u="mirror"), (3, 0, 0, 1)),
    ((-0.125, 0.125, 0, 0), SamplerState(address_u="mirroronce"), (0, 0, 0, 1)),
    ((1.2, 0.125, 0, 0), SamplerState(address_u="border", border_color=(0.25, 0.5, 0.75, 1)), (0.25, 0.5, 0.75, 1)),
    ((0.375, 0.625, 0, 0), SamplerState(mip_filter="point", max_mip_level=1), (10, 11, 1, 1)),
])
def test_2d_texture_levels_filters_address_modes(gl, coord, state, want):
    ps = tr(PS_TEXLDL.format(kind="2d"))
    tex = Texture("2d", _levels_2d(), state)
    img = draw(gl, None, ps, size=(2, 2), constants=ReferenceConstants(floats={0: coord}),
               textures={0: tex}).colors[0]
    assert np.allclose(img, np.broadcast_to(F32(want), (2, 2, 4)), atol=1e-6), img[0, 0]


@pytest.mark.parametrize("direction, face", [((1, 0.1, 0.2), 0), ((-1, 0.1, 0.2), 1), ((0.1, 1, 0.2), 2),
                                             ((0.1, -1, 0.2), 3), ((0.1, 0.2, 1), 4), ((0.1, 0.2, -1), 5)])
def test_cube_texture_faces(gl, direction, face):
    faces = np.zeros((6, 2, 2, 4), F32)
    for f in range(6):
        faces[f] = (f, 10 * f, 0, 1)
    ps = tr(PS_TEXLDL.format(kind="cube"))
    img = draw(gl, None, ps, size=(2, 2), constants=ReferenceConstants(floats={0: (*direction, 0)}),
               textures={0: Texture("cube", [faces])}).colors[0]
    assert np.array_equal(img[0, 0], F32([face, 10 * face, 0, 1]))


def test_cube_texture_face_orientation(gl):
    """Texel (row 0, column 1) of +Z is at sc > 0, tc < 0: direction (+x, +y, +z)."""
    faces = np.zeros((6, 2, 2, 4), F32)
    faces[4, 0, 1] = (7, 7, 7, 7)
    ps = tr(PS_TEXLDL.format(kind="cube"))
    img = draw(gl, None, ps, size=(2, 2), constants=ReferenceConstants(floats={0: (0.5, 0.5, 1, 0)}),
               textures={0: Texture("cube", [faces])}).colors[0]
    assert np.array_equal(img[0, 0], F32([7, 7, 7, 7]))


def test_volume_texture(gl):
    vol = np.zeros((2, 2, 2, 4), F32)
    for z in range(2):
        for y in range(2):
            for x in range(2):
                vol[z, y, x] = (x, y, z, 1)
    ps = tr(PS_TEXLDL.format(kind="volume"))
    for coord, want in [((0.25, 0.75, 0.75, 0), (0, 1, 1, 1)), ((0.75, 0.25, 0.25, 0), (1, 0, 0, 1))]:
        img = draw(gl, None, ps, size=(2, 2), constants=ReferenceConstants(floats={0: coord}),
                   textures={0: Texture("volume", [vol])}).colors[0]
        assert np.array_equal(img[1, 1], F32(want))


def test_unbound_sampler_reads_0001(gl):
    ps = tr(PS_TEXLDL.format(kind="2d"))
    img = draw(gl, None, ps, size=(2, 2)).colors[0]
    assert np.array_equal(img[0, 0], F32([0, 0, 0, 1]))


def test_mrt_and_clear_colours(gl):
    from xlate.verify.gl import RenderState

    ps = tr("ps_3_0\nmov oC0, c0\nmov oC1, c1\n")
    c = ReferenceConstants(floats={0: (1, 2, 3, 0.5), 1: (5, 6, 7, 8)})
    res = draw(gl, None, ps, size=(2, 2), targets=2, constants=c)
    assert np.array_equal(res.colors[0][0, 0], F32([1, 2, 3, 0.5]))
    assert np.array_equal(res.colors[1][1, 1], F32([5, 6, 7, 8]))
    # alpha test: round(0.5 * 255) = 128 is not greater than 128: both targets keep the clear colours
    res = draw(gl, None, ps, size=(2, 2), targets=2, constants=c, clear=[(9, 9, 9, 9), (4, 4, 4, 4)],
               state=RenderState(alpha_func="greater", alpha_ref=128))
    assert np.array_equal(res.colors[0][0, 0], F32([9, 9, 9, 9]))
    assert np.array_equal(res.colors[1][0, 0], F32([4, 4, 4, 4]))
    res = draw(gl, None, ps, size=(2, 2), targets=2, constants=c, state=RenderState(alpha_func="less equal",
                                                                                    alpha_ref=128))
    assert np.array_equal(res.colors[0][0, 0], F32([1, 2, 3, 0.5]))


def test_persistent_targets_keep_pixels_a_draw_discards(gl):
    from xlate.verify.gl import Draw, RenderTargets

    targets = RenderTargets(2, 2)
    gl.draw(None, tr("ps_2_0\nmov oC0, c0\n"), Draw({("position", 0): BIG_TRIANGLE}, size=(2, 2), clear=(0, 0, 0, 0),
                                                    constants=ReferenceConstants(floats={0: (1, 1, 1, 1)})), targets)
    # texkill on x < 1 (the D3D pixel column 0)
    ps = tr("ps_3_0\ndef c1, -1, 0, 0, 0\ndcl vPos.xy\nadd r0, vPos.x, c1.x\ntexkill r0\nmov oC0, c0\n")
    res = gl.draw(None, ps, Draw({("position", 0): BIG_TRIANGLE}, size=(2, 2),
                                 constants=ReferenceConstants(floats={0: (2, 2, 2, 2)})), targets)
    assert np.array_equal(res.colors[0][:, 0], F32([[1, 1, 1, 1]] * 2))
    assert np.array_equal(res.colors[0][:, 1], F32([[2, 2, 2, 2]] * 2))
    targets.release()


def test_flat_shading_and_clip_plane(gl):
    from xlate.verify.gl import RenderState

    vs = tr("vs_3_0\ndcl_position v0\ndcl_color0 v1\ndcl_position o0\ndcl_color0 o1\nmov o0, v0\nmov o1, v1\n")
    ps = tr("ps_3_0\ndcl_color0 v0\nmov oC0, v0\n")
    v = {("position", 0): BIG_TRIANGLE, ("color", 0): F32([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1]])}
    img = draw(gl, vs, ps, vertices=v, size=(4, 2), state=RenderState(shade_mode="flat")).colors[0]
    assert np.array_equal(img, np.broadcast_to(F32([1, 0, 0, 1]), (2, 4, 4)))
    img = draw(gl, vs, ps, vertices=v, size=(4, 2)).colors[0]
    assert not np.array_equal(img[0, 0], img[1, 3])  # gouraud interpolates
    # clip plane x - 0.25 >= 0 (D3D clip space): D3D pixel columns 0..3 sit at x = -1, -0.5, 0, 0.5
    img = draw(gl, vs, ps, vertices=v, size=(4, 2), clear=(5, 5, 5, 5),
               state=RenderState(shade_mode="flat", clip_planes=((1, 0, 0, -0.25),))).colors[0]
    assert np.array_equal(img[:, :3], np.full((2, 3, 4), 5, F32))
    assert np.array_equal(img[:, 3], F32([[1, 0, 0, 1]] * 2))


def test_point_size_from_state_and_shader(gl):
    """flip_y: with an upright target llvmpipe's fill rule drops the square's
    D3D top row and takes the row below it instead (see the vkd3d test)."""
    from xlate.verify.gl import RenderState

    ps = tr("ps_2_0\nmov oC0, c0\n", flip_y=True)
    one = {("position", 0): F32([[0, 0, 0, 1]])}
    c = ReferenceConstants(floats={0: (1, 1, 1, 1)})
    img = draw(gl, None, ps, vertices=one, primitive="point list", size=(8, 8), constants=c,
               state=RenderState(point_size=4)).colors[0]
    assert img[..., 0].sum() == 16 and img[2:6, 2:6, 0].all()  # centred on D3D (4, 4): pixels 2..5
    vs = tr("vs_2_0\ndcl_position v0\nmov oPos, v0\nmov oPts, c1.x\n", flip_y=True)
    c = ReferenceConstants(floats={0: (1, 1, 1, 1), 1: (6, 0, 0, 0)})
    img = draw(gl, vs, ps, vertices=one, primitive="point list", size=(8, 8), constants=c,
               state=RenderState(point_size_max=2)).colors[0]
    assert img[..., 0].sum() == 4 and img[3:5, 3:5, 0].all()


def test_programs_cached_by_source(gl):
    ps = tr("ps_2_0\nmov oC0, c0\n")
    draw(gl, None, ps, size=(2, 2))
    n = len(gl.programs)
    draw(gl, None, tr("ps_2_0\nmov oC0, c0\n"), size=(2, 2))
    assert len(gl.programs) == n
