"""The driver side of the differential check: GL access, the probe target
for texkill and oDepth, and drawing a translated VS or PS (the GL runner
by default, or any runner with the same ``draw``)."""

from __future__ import annotations

from typing import Iterable

import numpy as np

from ..bytecode.model import Shader
from ..bytecode.tables import DeclUsage
from .differential_base import F32, SENTINEL
from .differential_inputs import Inputs, _gl_key
from .reference import Result



# --------------------------------------------------------------------------
# GL access (xlate.verify.gl) and the adapter for what it lacks
# --------------------------------------------------------------------------


def gl_available() -> str | None:
    """None when GL works here, else the reason."""
    from . import gl

    try:
        gl.runner()
    except gl.GLUnavailable as exc:
        return str(exc)
    return None


PROBE_LOCATION = 4  # D3D9 has 4 colour outputs (0-3): the probe target comes after them


def _probe_shader(code: str, refl: dict) -> tuple[str, dict, bool]:
    """The adapter for what ``gl.GLRunner.draw`` cannot read: whether a pixel
    was discarded, and gl_FragDepth (the runner has no depth attachment and
    draws with the depth test off).  For GLSL 1.30+/ESSL 3.00 the PS's main
    is renamed and a new main calls it, then writes ``vec4(1, depth, 0, 0)``
    to an extra colour output at ``PROBE_LOCATION`` (a discard skips that
    write, so the probe keeps its clear value).  Returns (code, reflection,
    probed); older dialects are returned unchanged (texkill is then judged
    from the colour targets keeping the clear colour, and depth is not
    compared)."""
    import re

    if isinstance(code, (bytes, bytearray)):  # SPIR-V: the same probe, written into the words
        from .spirv_edit import probe

        depth = any(o["glsl"] == "gl_FragDepth" for o in refl["outputs"])
        new_refl = dict(refl)
        new_refl["outputs"] = list(refl["outputs"]) + [
            {"usage": "color", "usage_index": PROBE_LOCATION, "register": PROBE_LOCATION, "mask": "xyzw",
             "glsl": "xl_probe", "location": PROBE_LOCATION}]
        return probe(bytes(code), PROBE_LOCATION, depth), new_refl, True
    m = re.search(r"#version\s+(\d+)(\s+es)?", code)
    ver, es = (int(m.group(1)), bool(m.group(2))) if m else (110, False)
    if (es and ver < 300) or (not es and ver < 130):
        return code, refl, False
    main = re.compile(r"\bvoid\s+main\s*\(\s*(void)?\s*\)")
    if not main.search(code):
        return code, refl, False
    depth = any(o["glsl"] == "gl_FragDepth" for o in refl["outputs"])
    body = code
    body = main.sub("void xl_probe_main()", body, count=1)
    prec = "highp " if es else ""
    decl = f"layout(location = {PROBE_LOCATION}) out {prec}vec4 xl_probe;\n"
    tail = (f"\nvoid main()\n{{\n    xl_probe_main();\n"
            f"    xl_probe = vec4(1.0, {'gl_FragDepth' if depth else '0.0'}, 0.0, 0.0);\n}}\n")
    # declarations go after #version / precision / extension lines
    lines = body.split("\n")
    at = 0
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("#version") or s.startswith("#extension") or s.startswith("precision"):
            at = i + 1
    lines.insert(at, decl)
    new_refl = dict(refl)
    new_refl["outputs"] = list(refl["outputs"]) + [
        {"usage": "color", "usage_index": PROBE_LOCATION, "register": PROBE_LOCATION, "mask": "xyzw",
         "glsl": "xl_probe", "location": PROBE_LOCATION}]
    return "\n".join(lines) + tail, new_refl, True


def _release_programs(codes: Iterable[str]):
    """Drop the runner's cached programs built from these sources (the cache
    would otherwise keep thousands of programs alive in a corpus run)."""
    from . import gl

    r = gl.runner()
    codes = set(codes)
    for key in [k for k in r.programs if any(c in codes for c in k if isinstance(c, str))]:
        prog = r.programs.pop(key)
        try:
            prog.release()
        except Exception:  # noqa: BLE001
            pass



# --------------------------------------------------------------------------
# Driver side
# --------------------------------------------------------------------------


def _semantic_outputs(result: Result) -> dict[tuple[str, int], str]:
    return {(DeclUsage(int(u)).name.lower(), int(i)): name for (u, i), name in result.semantics.items()}


def _vs_adapted(translation) -> tuple[str, dict]:
    """The adapter for vertex inputs without a DCL (vs_1_x as Direct3D 8
    wrote them: the reflection gives ``usage`` None): ``GLRunner`` binds
    attributes by (usage, index) only, so such inputs get the made-up usage
    ``xl_v<register>`` (index 0) in a copy of the reflection."""
    refl = translation.reflection
    if all(i.get("usage") is not None for i in refl["inputs"]):
        return translation.code, refl
    new = dict(refl)
    new["inputs"] = [dict(i, usage=f"xl_v{i['register']}", usage_index=0) if i.get("usage") is None else i
                     for i in refl["inputs"]]
    return translation.code, new


def _vertex_inputs_for_gl(inputs: Inputs, refl: dict) -> dict:
    """{(usage, index): values} for ``GLRunner`` from reference inputs keyed
    by register (("v", n)) or semantic, through the (adapted) reflection."""
    out = {}
    for i in refl["inputs"]:
        key = (i["usage"], int(i["usage_index"]))
        vals = inputs.reference.get(("v", i["register"]))
        if vals is None:
            vals = inputs.reference.get(key)
        if vals is not None:
            out[key] = np.asarray(vals, F32)
    return out


def _run_vs_driver(translation, shader: Shader, inputs: Inputs, runner=None):
    """The translated VS through transform feedback (``VertexResult``) on
    ``runner``: the GL runner by default, or any runner with the same
    ``run_vertex`` (the Vulkan one, for "vulkan" translations)."""
    from . import gl

    code, refl = _vs_adapted(translation)
    runner = runner if runner is not None else gl.runner()
    extra = {"state_values": inputs.draw_state} if inputs.draw_state is not None else {}
    return runner.run_vertex((code, refl), _vertex_inputs_for_gl(inputs, refl), inputs.constants,
                             inputs.textures, count=inputs.n, **extra)


def _map_vs_outputs(vr, result: Result, refl: dict) -> dict[str, tuple[np.ndarray, str]]:
    """{reference name: (driver values (n, 4), mask letters)}."""
    sem = _semantic_outputs(result)
    out = {}
    for o in refl["outputs"]:
        key = (o["usage"], int(o["usage_index"]))
        name = sem.get(key)
        if name is None or name not in result.outputs:
            continue
        if o["glsl"] == "gl_Position" or o.get("builtin") == "position":  # (WGSL's reflection names it so)
            vals = vr.position
        else:
            vals = vr.outputs[o["glsl"]]
        if name in out:  # two semantics in one vs_3_0 register (masks split it)
            prev, mask = out[name]
            merged = prev.copy()
            for c, letter in enumerate("xyzw"):
                if letter in o.get("mask", "xyzw"):
                    merged[:, c] = vals[:, c]
            out[name] = (merged, mask + o.get("mask", "xyzw"))
        else:
            out[name] = (np.asarray(vals, F32), o.get("mask", "xyzw"))
    return out


def _quads(width: int, height: int, front: bool, corners: np.ndarray,
           shift: tuple[float, float] = (0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """Geometry for pixel shaders: one square per 2×2 pixel quad, whose
    top-left pixels are ``corners`` (q, 2), each square two triangles in D3D
    clip space with its edges on pixel boundaries, so no edge passes through
    a pixel centre and nothing is clipped (clipping re-interpolates the
    attributes at new vertices, inexactly).  ``shift`` (``_pixel_offset``)
    moves the vertices so that after the pass-through VS's fix-up they lie on
    integer GL window coordinates: only then is llvmpipe's interpolation
    bit-exact for small squares (measured).  Wound D3D-front (clockwise on
    screen, y down) or back.  Returns (positions (6q, 4), each vertex's
    offset from its quad's top-left pixel centre in pixels (6q, 2))."""
    d = [(-0.5, -0.5), (1.5, -0.5), (-0.5, 1.5), (1.5, -0.5), (1.5, 1.5), (-0.5, 1.5)]  # tl tr bl, tr br bl
    if not front:
        d = [d[0], d[2], d[1], d[3], d[5], d[4]]
    d = np.array(d)
    corners = np.asarray(corners, np.float64)
    scr = (corners[:, None, :] + d[None, :, :]).reshape(-1, 2) + np.asarray(shift, np.float64)
    pos = np.zeros((len(scr), 4))
    pos[:, 0] = 2.0 * scr[:, 0] / width - 1.0
    pos[:, 1] = 1.0 - 2.0 * scr[:, 1] / height
    pos[:, 2] = 0.5
    pos[:, 3] = 1.0
    return pos.astype(F32), np.tile(d, (len(corners), 1))


_OFFSETS: dict = {}


def _pixel_offset(target: str, width: int, height: int, runner=None) -> tuple[float, float]:
    """How far a runner's pass-through VS moves pixel centres from D3D's,
    in pixels: (0, 0) for an exact half-pixel fix-up (the runner may move by
    slightly less than half a pixel to keep edges off pixel centres).
    Measured once per (target, size): a PS outputs an input holding the
    screen position; the offset is rounded to 2**-12 pixel, then a second
    draw with ``_quads(shift=offset)`` must read every pixel's own
    coordinates exactly.  ``runner``: the GL runner by default, or any
    runner with the same ``draw`` (the Vulkan one)."""
    from . import gl

    runner = runner if runner is not None else gl.runner()
    key = (type(runner).__name__, target, width, height)
    if key in _OFFSETS:
        return _OFFSETS[key]
    from ..api import translate
    from ..bytecode.asm import assemble_bytes

    t = translate(assemble_bytes("ps_3_0\ndcl_texcoord0 v0\nmov oC0, v0\n"), target)
    corners = np.array([(x, y) for y in range(0, height, 2) for x in range(0, width, 2)], np.float64)
    xs, ys = np.meshgrid(np.arange(width), np.arange(height))
    shift = (0.0, 0.0)
    for attempt in range(2):
        quad, offs = _quads(width, height, True, corners, shift)
        vals = np.zeros((len(quad), 4), F32)
        vals[:, :2] = np.repeat(corners, 6, axis=0) + offs
        res = runner.draw(None, t, gl.Draw(vertices={("position", 0): quad, ("texcoord", 0): vals},
                                           size=(width, height)))
        res.targets.release()
        img = res.colors[0].astype(np.float64)
        ex, ey = img[..., 0] - xs, img[..., 1] - ys
        if attempt == 0:
            shift = (round(float(np.median(ex)) * 4096) / 4096, round(float(np.median(ey)) * 4096) / 4096)
        elif np.any(ex != 0) or np.any(ey != 0):
            raise RuntimeError(f"pass-through interpolation is not exact at {width}x{height}: pixel centres read "
                               f"offsets {ex.min()}..{ex.max()}, {ey.min()}..{ey.max()} after a shift of {shift}")
    _OFFSETS[key] = shift
    return shift


def _screen(pos: np.ndarray, width: int, height: int) -> np.ndarray:
    """D3D screen coordinates (pixel centres at integers) of clip positions."""
    x = (pos[:, 0] / pos[:, 3] + 1.0) / 2.0 * width
    y = (1.0 - pos[:, 1] / pos[:, 3]) / 2.0 * height
    return np.stack([x, y], 1)


def _native_passthrough(keys: tuple[tuple[str, int], ...]):
    """A vs_3_0 passing POSITION and each (usage, index) through, translated
    by xlate's SPIR-V writer; None when it cannot be written."""
    from ..api import translate
    from ..bytecode.asm import assemble_bytes
    from ..errors import XlateError

    if len(keys) > 11:
        return None
    lines = ["vs_3_0", "dcl_position v0", "dcl_position o0", "mov o0, v0"]
    for i, (usage, index) in enumerate(keys, 1):
        lines += [f"dcl_{usage}{index} v{i}", f"dcl_{usage}{index} o{i}", f"mov o{i}, v{i}"]
    try:
        return translate(assemble_bytes("\n".join(lines) + "\n"), "spirv")
    except XlateError:
        return None


_NATIVE_PASSTHROUGH: dict = {}


def native_passthrough_for(translation):
    """A native-SPIR-V pass-through VS for a "spirv" PS translation, or None
    (the runner's own) unless every varying lands at the PS input's location."""
    ins = [i for i in translation.reflection["inputs"] if not i["glsl"].startswith("gl_")]
    keys = tuple(sorted((i["usage"], i["usage_index"]) for i in ins))
    if keys not in _NATIVE_PASSTHROUGH:
        _NATIVE_PASSTHROUGH[keys] = _native_passthrough(keys)
    vs = _NATIVE_PASSTHROUGH[keys]
    if vs is None:
        return None
    outs = {(o["usage"], o["usage_index"]): o.get("location") for o in vs.reflection["outputs"]}
    return vs if all(outs.get((i["usage"], i["usage_index"])) == i["location"] for i in ins) else None


def _run_ps_driver(translation, shader: Shader, inputs: Inputs, width: int, height: int, runner=None,
                   native_vs: bool = False):
    """Returns (colours list of (H, W, 4) in D3D order, probe (H, W, 4) or None, probed).
    ``runner``: the GL runner by default, or one with the same ``draw``
    (the Vulkan one: SPIR-V is probed by editing its words, a dynamic
    translation's state values become its specialization constants; the
    WebGPU one, with its own ``probe_shader``).  ``native_vs``: draw a
    "spirv" PS on ``runner`` after ``native_passthrough_for``'s VS."""
    from . import gl

    refl = translation.reflection
    code, prefl, probed = getattr(runner, "probe_shader", _probe_shader)(translation.code, refl)
    corners = inputs.pixel_coords[0::4].astype(np.float64)
    pos, offs = _quads(width, height, inputs.front_facing, corners,
                       _pixel_offset(translation.target, width, height, runner))
    verts = {("position", 0): pos}
    for key, (A, B, C) in inputs.affine.items():
        gk = _gl_key(key, shader, refl)
        if gk is None:
            continue
        rep = lambda a: np.repeat(np.asarray(a, np.float64), 6, axis=0)  # noqa: E731
        verts[gk] = (rep(A) + rep(B) * offs[:, :1] + rep(C) * offs[:, 1:2]).astype(F32)
    if inputs.fog_affine is not None and any(i["usage"] == "fog" for i in refl["inputs"]):
        rep = lambda a: np.repeat(np.asarray(a, np.float64), 6, axis=0)  # noqa: E731
        A, B, C = inputs.fog_affine
        verts[("fog", 0)] = (rep(A) + rep(B) * offs[:, :1] + rep(C) * offs[:, 1:2]).astype(F32)
    ntargets = PROBE_LOCATION + 1 if probed else 1 + max(
        [o["usage_index"] for o in refl["outputs"] if o["usage"] == "color"] + [0])
    clear = [(SENTINEL,) * 4] * ntargets
    if probed:
        clear[PROBE_LOCATION] = (0.0, 0.0, 0.0, 0.0)
    draw = gl.Draw(vertices=verts, primitive="triangle_list", constants=inputs.constants, textures=inputs.textures,
                   texture_stages=inputs.texture_stages, size=(width, height), targets=ntargets, clear=clear,
                   state_values=inputs.draw_state)
    vs = None
    if native_vs and runner is not None and translation.target == "spirv" and inputs.draw_state is None:
        vs = native_passthrough_for(translation)
    res = (runner if runner is not None else gl.runner()).draw(vs, (code, prefl), draw)
    probe = res.colors[PROBE_LOCATION] if probed else None
    colours = res.colors
    res.targets.release()
    return colours, probe, probed, code


