"""One moderngl (EGL, llvmpipe) context per test session, and the partner
shaders that let a translated VS or PS link on its own.

A translated VS is linked with a fragment shader writing a constant; a
translated PS with a vertex shader that writes every varying the PS reads
(names, locations and centroid from the reflection).  Both partners are in
the translated shader's own dialect, since ES versions cannot be mixed.
"""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=1)
def gl_context():
    """The process's context (shared with xlate.verify.gl's runners), or None
    with the reason when EGL/llvmpipe is missing.

    One context per process: a second standalone context would become the
    current one, and the runners' GL calls (which assume theirs is current)
    would then go to the wrong context and read back zeros."""
    from xlate.verify.gl import GLUnavailable, context

    try:
        return context(), None
    except GLUnavailable as exc:
        return None, f"no EGL/llvmpipe context: {exc}"


def _version_line(target: str) -> str:
    return {"glsl120": "#version 120", "glsl330": "#version 330", "glsl450": "#version 450",
            "essl100": "#version 100", "essl300": "#version 300 es"}[target]


def partner_fragment(target: str) -> str:
    head = _version_line(target) + "\n"
    if target in ("glsl120",):
        return head + "void main() { gl_FragColor = vec4(1.0); }\n"
    if target == "essl100":
        return head + "precision mediump float;\nvoid main() { gl_FragColor = vec4(1.0); }\n"
    prec = "precision highp float;\n" if target == "essl300" else ""
    return head + prec + "layout(location = 0) out vec4 xl_o;\nvoid main() { xl_o = vec4(1.0); }\n"


def partner_vertex(target: str, reflection: dict) -> str:
    old = target in ("glsl120", "essl100")
    lines = [_version_line(target)]
    if target.startswith("essl"):
        lines.append("precision highp float;")
    lines.append("attribute vec4 xl_p;" if old else "layout(location = 0) in vec4 xl_p;")
    body = []
    for inp in reflection["inputs"]:
        name = inp["glsl"]
        if name.startswith("gl_"):
            continue
        cen = "centroid " if inp.get("centroid") and target != "essl100" else ""
        if old:
            lines.append(f"{cen}varying vec4 {name};")
        else:
            loc = f"layout(location = {inp['location']}) " if target == "glsl450" else ""
            lines.append(f"{loc}{cen}out vec4 {name};")
        body.append(f"    {name} = xl_p;")
    lines.append("void main()\n{")
    lines.extend(body)
    lines.append("    gl_Position = xl_p;\n}")
    return "\n".join(lines) + "\n"


def link(target: str, stage: str, code: str, reflection: dict):
    """Compile and link on llvmpipe; returns the moderngl Program (raises on failure)."""
    ctx, why = gl_context()
    if ctx is None:
        raise RuntimeError(why)
    if stage == "vertex":
        return ctx.program(vertex_shader=code, fragment_shader=partner_fragment(target))
    return ctx.program(vertex_shader=partner_vertex(target, reflection), fragment_shader=code)
