"""The Vulkan runner's shaders (``vk``): SPIR-V or Vulkan GLSL, the
pass-through vertex shader, and the code the runner writes around Vulkan
GLSL for the render states a translation does not carry (clip planes, the
point size clamp; ``_needs_wrappers`` says which), plus the transform
feedback capture of ``run_vertex``.  Split from ``vk.py``."""

from __future__ import annotations

import re

import numpy as np

from .draws import RenderState
from .gl_source import _wrap_main, d3d_clip_position, passthrough_parts, passthrough_reflection
from .shader_state import ALPHA_TEST, CLIP_PLANES, POINT_SIZE, POINT_SPRITES

F32 = np.float32
SET_VERTEX, SET_FRAGMENT = 0, 1
BINDING_FLOAT, BINDING_INT, BINDING_BOOL, BINDING_VIEWPORT, BINDING_SAMPLER0, BINDING_DRAW_STATE = 0, 1, 2, 3, 4, 20
# the runner's own block for render state that needs shader code (GLSL input only)
BINDING_RENDER_STATE = 21


# --------------------------------------------------------------------------
# Shaders: SPIR-V, or Vulkan GLSL (compiled here), and the pass-through VS
# --------------------------------------------------------------------------


class _Shader:
    """A translation, or (code, reflection); code is SPIR-V bytes or Vulkan GLSL."""

    def __init__(self, t):
        if isinstance(t, tuple):
            self.code, self.reflection = t
        else:
            self.code, self.reflection = t.code, t.reflection
        if isinstance(self.code, str) and not self.code.lstrip().startswith("#version 450"):
            raise TypeError("the Vulkan runner needs SPIR-V (target 'spirv') or Vulkan GLSL (target 'vulkan')")

    @property
    def is_glsl(self) -> bool:
        return isinstance(self.code, str)


def passthrough_vs(ps_refl: dict) -> tuple[str, dict]:
    """A Vulkan GLSL vertex shader for a PS alone (``gl.passthrough_parts``:
    the same attributes, copies and io fix-ups as on GL), each varying at the
    PS's location, the viewport in its block at set 0 binding 3.  Returns
    (GLSL, reflection-like dict)."""

    def attr(name, loc):
        return f"layout(location = {loc}) in vec4 {name};"

    def out(inp):
        cen = "centroid " if inp.get("centroid") else ""
        return f"layout(location = {inp['location']}) {cen}out vec4 {inp['glsl']};"

    decls, body, inputs, has_viewport = passthrough_parts(ps_refl, attr, out, clip_z=False, flip_y=True)
    lines = ["#version 450", *decls]
    viewport = None
    if has_viewport:
        viewport = {"glsl": "xl_viewport", "set": SET_VERTEX, "binding": BINDING_VIEWPORT, "offset": 0}
        lines.append(f"layout(set = {SET_VERTEX}, binding = {BINDING_VIEWPORT}, std140) uniform xl_vp_block "
                     "{ vec4 xl_viewport; };")
    lines += ["void main()\n{", *body, "}"]
    refl = passthrough_reflection("vulkan", inputs, viewport, ps_refl.get("options", {}))
    return "\n".join(lines) + "\n", refl


def _vs_render_state(code: str, refl: dict, state: RenderState, points: bool) -> str:
    """Clip distances and the point size clamp after the VS's main (Vulkan GLSL;
    the values live in the runner's block at set 0, binding 21)."""
    decls, after = "", ""
    members = ["vec4 xl_point_size;"]
    if state.clip_planes:
        members.append(f"vec4 xl_clip_planes[{len(state.clip_planes)}];")
        after += d3d_clip_position(refl, flip_default=True)
        decls += f"out float gl_ClipDistance[{len(state.clip_planes)}];\n"
        for k in range(len(state.clip_planes)):
            after += f"    gl_ClipDistance[{k}] = dot(xl_clip_planes[{k}], p);\n"
    if points:
        writes = any(o["glsl"] == "gl_PointSize" for o in refl["outputs"])
        size = "xl_vs_point_size" if writes else "xl_point_size.x"
        after += f"    gl_PointSize = clamp({size}, xl_point_size.y, xl_point_size.z);\n"
        if writes:
            # The shader's oPts goes to a private variable and main stores the
            # clamped size once: reading the gl_PointSize output back (as
            # clamp(gl_PointSize, ...) would) makes VK_LAYER_KHRONOS_validation
            # report PointSize unwritten (VUID-...-Vertex-07722) on a point list.
            code = _before_first_declaration(re.sub(r"\bgl_PointSize\b", "xl_vs_point_size", code),
                                             ["float xl_vs_point_size = 1.0;"])
    if not after:
        return code
    decls = (f"layout(set = {SET_VERTEX}, binding = {BINDING_RENDER_STATE}, std140) uniform xl_render_state_block "
             "{\n    " + "\n    ".join(members) + "\n};\n") + decls
    return _wrap_main(code, decls, "", after)


_COMPONENTS = {"float": 1, "vec2": 2, "vec3": 3, "vec4": 4}
_BUILTIN_OUTPUTS = {"gl_Position": ("vec4", 4), "gl_PointSize": ("float", 1)}


def _xfb_capture(code: str, refl: dict, locations: int = 32) -> tuple[str, list[tuple[str, int]], int]:
    """Vulkan GLSL of a VS with every output the reflection lists captured
    into transform feedback buffer 0, in the reflection's order, packed as
    ``GLRunner.run_vertex`` reads them (interleaved, gl_PointSize one float).
    Only declarations change: ``xfb_offset`` joins each output's layout, a
    global ``layout(xfb_buffer = 0, xfb_stride = S) out;`` and a
    ``gl_PerVertex`` redeclaration (gl_Position, gl_PointSize) come before
    the first declaration; a shader that does not write gl_PointSize gets
    ``gl_PointSize = 1.0`` after its main (Vulkan wants it written for a
    point list), which is not captured.  Outputs at locations past the
    device's ``locations`` (where a layer's ``varying_locations`` map may
    put them) move to free ones below
    it: no fragment shader links, and lavapipe crashes compiling a capture
    of location 196.  Returns (GLSL, [(name, components)], stride in
    floats)."""
    names = list(dict.fromkeys(o["glsl"] for o in refl["outputs"]))
    fields, offset, builtins = [], 0, {}
    used = {o["location"] for o in refl["outputs"] if o.get("location") is not None}
    free = iter(sorted(set(range(locations)) - used))
    for name in names:
        if name.startswith("gl_"):
            if name not in _BUILTIN_OUTPUTS:
                raise NotImplementedError(f"capturing the built-in output {name}")
            k = _BUILTIN_OUTPUTS[name][1]
            builtins[name] = f"layout(xfb_offset = {4 * offset}) "
        else:
            decl = re.compile(r"^(?P<head>[ \t]*layout\([^)]*)\)(?P<rest>(?:\s+\w+)*?\s+out\s+"
                              rf"(?P<type>\w+)\s+{re.escape(name)}\s*;)", re.M)
            found = list(decl.finditer(code))
            if len(found) != 1:
                raise ValueError(f"output {name}: expected one 'layout(...) out TYPE {name};' declaration, "
                                 f"found {len(found)}")
            m = found[0]
            k = _COMPONENTS.get(m.group("type"))
            if k is None:
                raise NotImplementedError(f"capturing output {name} of type {m.group('type')}")
            head = m.group("head")
            loc = re.search(r"\blocation\s*=\s*(\d+)", head)
            if loc and int(loc.group(1)) >= locations:
                new_loc = next(free, None)
                if new_loc is None:
                    raise NotImplementedError(f"output {name}: no free location below {locations}")
                head = head[:loc.start(1)] + str(new_loc) + head[loc.end(1):]
            code = code[:m.start()] + f"{head}, xfb_offset = {4 * offset}){m.group('rest')}" + code[m.end():]
        fields.append((name, k))
        offset += k
    if "gl_PointSize" not in names:
        # a point list needs a written PointSize even with rasterizer discard
        # (VUID-VkGraphicsPipelineCreateInfo-Vertex-07722)
        code = _wrap_main(code, "", "", "    gl_PointSize = 1.0;\n")
    block = [f"    {builtins.get(name, '')}{glsl_type} {name};" for name, (glsl_type, _) in _BUILTIN_OUTPUTS.items()]
    decls = [f"layout(xfb_buffer = 0, xfb_stride = {4 * max(offset, 1)}) out;", "out gl_PerVertex", "{", *block, "};"]
    return _before_first_declaration(code, decls), fields, offset


def _before_first_declaration(code: str, decls: list[str]) -> str:
    """``decls`` inserted after the #version / #extension lines and leading
    comments, before the shader's first declaration."""
    lines = code.split("\n")
    at = 0
    while at < len(lines) and (not lines[at].strip() or lines[at].lstrip().startswith(("#", "//"))):
        at += 1
    return "\n".join(lines[:at] + decls + [""] + lines[at:])




def _render_state_block(state: RenderState) -> bytes:
    size = np.zeros(4, F32)
    size[:3] = (state.point_size, state.point_size_min, min(state.point_size_max, 8192.0))
    planes = np.asarray(state.clip_planes, F32).reshape(-1, 4)
    return size.tobytes() + planes.tobytes()


def _needs_wrappers(state: RenderState, vs_refl: dict, points: bool) -> list[str]:
    why = []
    if state.alpha_func is not None and state.alpha_func.replace(" ", "_") != "always":
        why.append(ALPHA_TEST)
    if state.clip_planes:
        why.append(CLIP_PLANES)
    if state.shade_mode == "flat":
        why.append("flat shading")
    if points and state.point_sprite:
        why.append(POINT_SPRITES)
    if points:
        writes = any(o["glsl"] == "gl_PointSize" for o in vs_refl["outputs"])
        if not writes or (state.point_size_min, state.point_size_max) != (1.0, RenderState().point_size_max):
            why.append(POINT_SIZE)
    return why
