"""The draw-time render states WebGPU has no pipeline state for, in the
shader: how the WebGPU runner (``wgpu_runner``) draws D3D9's alpha test and
user clip planes, as a D3D9 layer on WebGPU would.

WebGPU has no alpha test and no user clip planes (only the
``clip_distances`` builtin, with the "clip-distances" feature).  xlate puts
both into the translation (``Options.draw_state``: passes/drawstate.py
discards by oC0.a, passes/clip_planes.py writes the clip distances), baked
or as override constants (``draw_state_mode="dynamic"``).  So a caller
translates with ``shader_draw_state(render_state)`` and the runner checks
(``check_in_shader``) that the translations honour the draw's
``gl.RenderState``, raising ``NotImplementedError`` with the reason when
they do not: a draw is never run without a state it asks for.

Points: WebGPU draws every point one pixel wide, so a point draw with a
size or sprites is drawn as quads (``needs_quads``, ``point_quads``), as a
layer on WebGPU would: an instanced entry point added to the translated VS
moves the position to the quad's corners.
"""

from __future__ import annotations

import re

from ..drawstate import CmpFunc, DrawState
from .gl import RenderState

MAX_CLIP_PLANES = 6  # D3D9's user clip planes (D3DRS_CLIPPLANEENABLE bits 0-5)


def _cmp(func: str) -> CmpFunc:
    return CmpFunc[func.replace(" ", "").replace("_", "").upper()]


def alpha_test_on(state: RenderState) -> bool:
    """Whether the draw's alpha test can discard anything (ALWAYS cannot)."""
    return state.alpha_func is not None and _cmp(state.alpha_func) is not CmpFunc.ALWAYS


def shader_draw_state(state: RenderState, stage: str) -> DrawState | None:
    """The ``Options.draw_state`` (baked) that gives a translation for
    ``stage`` ("vertex" / "pixel") the part of ``state`` WebGPU lacks: clip
    planes for the vertex shader, the alpha test for the pixel shader; None
    when that stage needs none (so translations can be shared)."""
    if stage == "vertex":
        planes = tuple(tuple(float(c) for c in p) for p in state.clip_planes)
        if not planes:
            return None
        if len(planes) > MAX_CLIP_PLANES:
            raise NotImplementedError(f"{len(planes)} user clip planes; D3D9 has {MAX_CLIP_PLANES}")
        padded = planes + ((0.0, 0.0, 0.0, 0.0),) * (MAX_CLIP_PLANES - len(planes))
        return DrawState(clipplaneenable=(1 << len(planes)) - 1, clipplanes=padded)
    if not alpha_test_on(state):
        return None
    return DrawState(alphatestenable=True, alphafunc=_cmp(state.alpha_func), alpharef=int(state.alpha_ref))


def _planes_in(vs_refl: dict, values: DrawState) -> list[tuple[float, ...]]:
    """The clip planes the VS translation writes distances for, in order."""
    rs = vs_refl.get("render_state") or {}
    if rs.get("mode") == "dynamic":
        keys = {p["key"] for p in rs.get("parameters") or ()}
        enabled = sorted({int(k[len("clipplane"):].partition("_")[0]) for k in keys if k.startswith("clipplane")})
        return [tuple(float(c) for c in values.clipplanes[i]) for i in enabled]
    return [tuple(float(c) for c in p["plane"]) for p in rs.get("clipplanes") or ()]


def check_in_shader(state: RenderState, vs_refl: dict, ps_refl: dict, state_values=None) -> None:
    """Raise ``NotImplementedError`` unless the translations do the alpha
    test and the clip planes ``state`` asks for (baked with the same values,
    or dynamic with ``state_values`` holding them)."""
    values = DrawState.from_dict(state_values)
    if alpha_test_on(state):
        rs = ps_refl.get("render_state") or {}
        want = (_cmp(state.alpha_func), int(state.alpha_ref))
        if rs.get("mode") == "dynamic" and rs.get("alpha_test"):
            have = (values.alphafunc, values.alpharef) if values.alphatestenable else None
        else:
            baked = rs.get("baked") or {}
            have = ((_cmp(baked["alphafunc"]), int(baked["alpharef"]))
                    if baked.get("alphatestenable") else None)
        if have != want:
            raise NotImplementedError(
                f"WebGPU has no alpha test: translate the pixel shader with draw_state alphatestenable, alphafunc "
                f"{want[0].name.lower()}, alpharef {want[1]} (shader_draw_state), not {have}")
    if state.clip_planes:
        want_planes = [tuple(float(c) for c in p) for p in state.clip_planes]
        have_planes = _planes_in(vs_refl, values)
        if have_planes != want_planes:
            raise NotImplementedError(
                "WebGPU has no user clip planes: translate the vertex shader with draw_state clipplaneenable and "
                f"clipplanes (shader_draw_state) for {want_planes}, not {have_planes}")


# -- points: quads ---------------------------------------------------------

# The six corners of a point's quad (two triangles), x right and y up in NDC.
_CORNERS = "array<vec2<f32>, 6>(vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(-1.0, 1.0), " \
           "vec2<f32>(-1.0, 1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0))"
QUAD_ENTRY = "xl_point_quad"
QUAD_VERTICES = 6
_MAIN = re.compile(r"@vertex\nfn main\((.*?)\) -> XlOut \{\n(.*?)    return xl_out;\n\}", re.S)


def needs_quads(mode: str, state: RenderState, vs_refl: dict) -> bool:
    """Whether a draw of ``mode`` ("POINTS", ...) needs its points drawn as
    quads: WebGPU's points are one pixel, D3D9's are POINTSIZE (or the
    shader's oPts) wide, and point sprites read a coordinate across them."""
    if mode != "POINTS":
        return False
    writes = any(o.get("glsl") == "xl_point_size" and not o.get("builtin") for o in vs_refl.get("outputs", ()))
    return state.point_sprite or state.point_size != 1.0 or writes


def point_quads(vs_code: str, vs_refl: dict, state: RenderState, flip_y: bool,
                viewport: tuple[float, float]) -> tuple[str, dict]:
    """The VS module with an entry point ``QUAD_ENTRY`` drawing each point
    as a quad, as a D3D9 layer on WebGPU expands points (instanced, six
    vertices an instance, the point's attributes per instance): the
    translation's position moved to the corner by half the size, the size
    being the shader's oPts (the translation computes it and WebGPU drops
    it) or POINTSIZE, clamped to [POINTSIZE_MIN, POINTSIZE_MAX] (as the GL
    runner's point size); with point sprites every TEXCOORD output is the
    corner's (u, v, 0, 0), u right and v down in the D3D image, which the
    interpolation makes D3D's point coordinate.  Returns (code, override
    constants)."""
    m = _MAIN.search(vs_code)
    if m is None:
        raise NotImplementedError("the vertex shader's entry point is not the translation's: cannot expand points")
    params = (m.group(1) + ", " if m.group(1) else "") + "@builtin(vertex_index) xl_vi: u32"
    writes = any(o.get("glsl") == "xl_point_size" and not o.get("builtin") for o in vs_refl["outputs"])
    size = "xl_point_size" if writes else "xl_pt_size"
    lines = [f"    var xl_corners = {_CORNERS};", "    let xl_k = xl_corners[xl_vi];",
             f"    let xl_half = clamp({size}, xl_pt_min, xl_pt_max) * vec2<f32>(xl_pt_sx, xl_pt_sy);",
             "    xl_out.xl_position = vec4<f32>(xl_out.xl_position.xy + xl_k * xl_half * xl_out.xl_position.w, "
             "xl_out.xl_position.zw);"]
    if state.point_sprite:
        for o in vs_refl["outputs"]:
            if o.get("usage") == "texcoord" and not o.get("builtin") and o.get("location") is not None:
                lines.append(f"    xl_out.{o['glsl']} = vec4<f32>(0.5 + 0.5 * xl_k.x, 0.5 - 0.5 * xl_k.y * xl_pt_v, "
                             "0.0, 0.0);")
    entry = (f"\noverride xl_pt_size: f32;\noverride xl_pt_min: f32;\noverride xl_pt_max: f32;\n"
             f"override xl_pt_sx: f32;\noverride xl_pt_sy: f32;\noverride xl_pt_v: f32;\n\n"
             f"@vertex\nfn {QUAD_ENTRY}({params}) -> XlOut {{\n{m.group(2)}" + "\n".join(lines)
             + "\n    return xl_out;\n}\n")
    constants = {"xl_pt_size": float(state.point_size), "xl_pt_min": float(state.point_size_min),
                 "xl_pt_max": float(min(state.point_size_max, 8192.0)),
                 "xl_pt_sx": 1.0 / float(viewport[0]), "xl_pt_sy": 1.0 / float(viewport[1]),
                 # v = 0 at the D3D image's top: WebGPU's NDC +y there when the image lies as D3D's
                 "xl_pt_v": 1.0 if flip_y else -1.0}
    return vs_code + entry, constants
