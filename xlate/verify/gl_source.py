"""GLSL rewriting around a translation (``gl`` and ``vk`` runners): the
render state core GL lacks (alpha test, flat colours, point sprites, clip
distances and the point size clamp after main) and the pass-through vertex
shader written from a pixel shader's reflection.  Split from ``gl.py``,
which re-exports every name."""

from __future__ import annotations

import re

from ..passes.io import HALF_PIXEL_BIAS
from .draws import RenderState


# --------------------------------------------------------------------------
# Source rewriting (render state core GL lacks; pass-through VS)
# --------------------------------------------------------------------------

_MAIN = re.compile(r"\bvoid\s+main\s*\(\s*(void)?\s*\)")


def _version(code: str) -> tuple[int, bool]:
    m = re.search(r"#version\s+(\d+)(\s+es)?", code)
    if not m:
        return 110, False
    return int(m.group(1)), bool(m.group(2))


def _wrap_main(code: str, decls: str, before: str, after: str) -> str:
    """Rename the shader's main and call it from a new one between ``before``
    and ``after``."""
    if not _MAIN.search(code):
        raise ValueError("no main() in the shader")
    code = _MAIN.sub("void xl_user_main()", code, count=1)
    return f"{code}\n{decls}\nvoid main()\n{{\n{before}    xl_user_main();\n{after}}}\n"


def _need_130(code: str, what: str):
    ver, es = _version(code)
    if (es and ver < 300) or (not es and ver < 130):
        raise NotImplementedError(f"{what} needs GLSL 1.30 / ESSL 3.00 (shader is #version {ver}{' es' if es else ''})")


def _flat_colours(code: str) -> str:
    """``flat`` on every COLOR varying (D3DSHADE_FLAT)."""
    _need_130(code, "flat shading")
    pat = re.compile(r"^(\s*(?:layout\s*\([^)]*\)\s*)?)((?:centroid\s+)?(?:in|out)\s+(?:\w+\s+)?vec4\s+v_color\d+\s*;)",
                     re.M)
    return pat.sub(r"\1flat \2", code)


_ALPHA_OPS = {"never": "false", "less": "a < r", "equal": "a == r", "less_equal": "a <= r", "greater": "a > r",
              "not_equal": "a != r", "greater_equal": "a >= r", "always": "true"}


def _alpha_test(code: str, refl: dict, func: str, ref: int) -> str:
    """D3DRS_ALPHATESTENABLE: discard unless round(alpha * 255) <func> ref.
    NaN alpha compares as 0, as the reference does."""
    out = next((o["glsl"] for o in refl["outputs"] if o["usage"] == "color" and o["usage_index"] == 0), None)
    if out is None:
        return code
    op = _ALPHA_OPS[func.replace(" ", "_")]
    ver, es = _version(code)
    rnd = "floor(x + 0.5)" if (ver < 130 and not es) or (es and ver < 300) else "roundEven(x)"
    body = (f"    float x = {out}.w * 255.0;\n    x = (x != x) ? 0.0 : clamp(x, -1e12, 1e12);\n"
            f"    float a = {rnd};\n    float r = {float(ref)!r};\n    if (!({op})) discard;\n")
    return _wrap_main(code, "", "", body)


def _point_sprite(code: str, refl: dict, flip_y: bool) -> str:
    """D3DRS_POINTSPRITEENABLE: every TEXCOORD input reads (u, v, 0, 0) of the
    point, u right, v down in the D3D image."""
    _need_130(code, "point sprites")
    names = [i["glsl"] for i in refl["inputs"] if i["usage"] == "texcoord"]
    v = "1.0 - gl_PointCoord.y" if flip_y else "gl_PointCoord.y"  # origin: upper left
    before = ""
    for n in names:
        code = re.sub(rf"^([^\n]*?)\bin\s+vec4\s+{n}\s*;", rf"\1in vec4 xl_unused_{n};\nvec4 {n};", code, count=1, flags=re.M)
        before += f"    {n} = vec4(gl_PointCoord.x, {v}, 0.0, 0.0);\n"
    return _wrap_main(code, "", before, "")


def d3d_clip_position(refl: dict, flip_default: bool) -> str:
    """GLSL lines that set ``vec4 p`` to the position in D3D9's clip space
    from ``gl_Position``: the translation's own y flip, half-pixel offset and
    z remap undone (user clip planes are given in D3D's space).  The GL
    targets flip y only when asked, the Vulkan ones by default
    (``flip_default``)."""
    opts = refl.get("options", {})
    lines = "    vec4 p = gl_Position;\n"
    if opts.get("flip_y", flip_default):
        lines += "    p.y = -p.y;\n"
    if refl.get("viewport") and opts.get("half_pixel", True):
        vp = refl["viewport"]["glsl"]
        k = repr(float(opts.get("half_pixel_scale", HALF_PIXEL_BIAS)))
        lines += f"    p.x -= p.w * {k} * {vp}.x;\n    p.y += p.w * {k} * {vp}.y;\n"
    if opts.get("clip_z"):
        lines += "    p.z = (p.z + p.w) * 0.5;\n"
    return lines


def _vs_wrapper(code: str, refl: dict, state: RenderState, points: bool) -> str:
    """Clip distances and point size after the translated VS's main."""
    decls, after = "", ""
    if state.clip_planes:
        _need_130(code, "user clip planes")
        n = len(state.clip_planes)
        decls += f"uniform vec4 xl_clip_planes[{n}];\n"
        after += d3d_clip_position(refl, flip_default=False)
        for k in range(n):
            after += f"    gl_ClipDistance[{k}] = dot(xl_clip_planes[{k}], p);\n"
    if points and not (refl.get("render_state") or {}).get("pointsize"):
        writes = any(o["glsl"] == "gl_PointSize" for o in refl["outputs"])
        decls += "uniform vec3 xl_point_size;\n"
        size = "gl_PointSize" if writes else "xl_point_size.x"
        after += f"    gl_PointSize = clamp({size}, xl_point_size.y, xl_point_size.z);\n"
    if not after:
        return code
    return _wrap_main(code, decls, "", after)


def passthrough_parts(ps_refl: dict, declare_attr, declare_out, *, clip_z: bool, flip_y: bool):
    """What every pass-through VS is made of, whatever its dialect: one
    attribute per varying the PS reads (``xl_position`` first, D3D clip
    space), the copies into the varyings, and the io pass's position
    fix-ups as the PS's resolved options say (``clip_z``/``flip_y`` are the
    target's defaults when the options do not say), so that positions move
    exactly as a translated VS moves them.  ``declare_attr(name, location)``
    and ``declare_out(input)`` spell the declarations.  Returns (declaration
    lines, main-body lines, reflection inputs, whether the viewport uniform
    ``xl_viewport`` is read)."""
    opts = ps_refl.get("options", {})
    decls = [declare_attr("xl_position", 0)]
    inputs = [{"usage": "position", "usage_index": 0, "glsl": "xl_position", "location": 0}]
    body = []
    loc = 1
    for inp in ps_refl["inputs"]:
        name = inp["glsl"]
        if name.startswith("gl_"):
            continue
        a = f"xl_a_{name}"
        decls.append(declare_attr(a, loc))
        inputs.append({"usage": inp["usage"], "usage_index": inp["usage_index"], "glsl": a, "location": loc})
        loc += 1
        decls.append(declare_out(inp))
        body.append(f"    {name} = {a};")
    body.append("    vec4 p = xl_position;")
    viewport = bool(opts.get("half_pixel", True))
    if viewport:
        k = repr(float(opts.get("half_pixel_scale", HALF_PIXEL_BIAS)))  # the io pass's shift
        body.append(f"    p.x += p.w * {k} * xl_viewport.x;\n    p.y -= p.w * {k} * xl_viewport.y;")
    if opts.get("clip_z", clip_z):
        body.append("    p.z = p.z * 2.0 - p.w;")
    if opts.get("flip_y", flip_y):
        body.append("    p.y = -p.y;")
    body.append("    gl_Position = p;")
    return decls, body, inputs, viewport


def passthrough_reflection(target: str, inputs: list, viewport, opts: dict) -> dict:
    return {"stage": "vertex", "target": target, "inputs": inputs,
            "outputs": [{"usage": "position", "usage_index": 0, "glsl": "gl_Position"}],
            "constants": [], "samplers": [], "draw_state": None, "viewport": viewport, "options": dict(opts)}


def passthrough_vs(ps_refl: dict, target: str | None = None) -> tuple[str, dict]:
    """A vertex shader for a PS alone, in the PS's GL dialect (see
    ``passthrough_parts``).  Returns (code, reflection-like dict)."""
    target = target or ps_refl.get("target", "glsl330")
    version = {"glsl120": "#version 120", "glsl330": "#version 330", "glsl450": "#version 450",
               "essl100": "#version 100", "essl300": "#version 300 es"}.get(target)
    if version is None:
        raise NotImplementedError(f"pass-through VS for target {target}")
    old = target in ("glsl120", "essl100")

    def attr(name, loc):
        return f"attribute vec4 {name};" if old else f"layout(location = {loc}) in vec4 {name};"

    def out(inp):
        cen = "centroid " if inp.get("centroid") and target != "essl100" else ""
        if old:
            return f"{cen}varying vec4 {inp['glsl']};"
        lay = f"layout(location = {inp['location']}) " if target == "glsl450" and inp.get("location") is not None else ""
        return f"{lay}{cen}out vec4 {inp['glsl']};"

    decls, body, inputs, viewport = passthrough_parts(ps_refl, attr, out, clip_z=True, flip_y=False)
    lines = [version] + (["precision highp float;"] if target.startswith("essl") else []) + decls
    if viewport:
        lines.append("uniform vec4 xl_viewport;")
    lines += ["void main()\n{", *body, "}"]
    refl = passthrough_reflection(target, inputs, {"glsl": "xl_viewport"} if viewport else None,
                                  ps_refl.get("options", {}))
    return "\n".join(lines) + "\n", refl
