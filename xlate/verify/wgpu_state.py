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

from .gl import RenderState
from .shader_state import MAX_CLIP_PLANES, alpha_test_on, check_in_shader, shader_draw_state  # noqa: F401 (re-exported)

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
