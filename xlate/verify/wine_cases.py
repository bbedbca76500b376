"""Wine's d3d8/d3d9 visual tests (peer-corpus/wine/visual_cases.jsonl) on GL.

Each case is one draw with expected pixel colours that real Windows drivers
produced.  This module parses a case, supplies the small part of Direct3D 9's
fixed-function pipeline the cases need around the translated shaders, draws
it with the project's GL runner (``xlate.verify.gl``: one context, programs
cached by source) and checks the probes as a D3DFMT_A8R8G8B8 target would
store the colour: round(clamp(x, 0, 1) * 255) per channel.

What this layer supplies (the translation is xlate's, untouched):

* Vertex fetch.  ``vertex_format`` is free text: FVF flags, D3D9 vertex
  declarations (three spellings) and d3d8 declarations (bound by v#) are
  parsed into elements; every element is expanded on the CPU to the vec4 a
  vertex shader reads (D3DCOLOR -> (R, G, B, A) / 255, UBYTE4 unscaled,
  FLOAT16 decoded, missing y, z = 0 and w = 1).  An element the declaration
  lacks, or one on a stream with no buffer, reads 0.
* ``vs: null``: the runner's pass-through VS fed with fixed-function vertex
  processing's results.  D3DFVF_XYZ positions with identity transforms are
  already clip space; POSITIONT / D3DFVF_XYZRHW (screen x, y, z, rhw) are
  mapped back to clip space with D3D9's pixel centres (the pass-through's
  half-pixel fix-up then applies, as for a translated VS).  Varyings link by
  the PS reflection's (usage, index): COLOR0 = the diffuse element (opaque
  white without one), other usages the element of that usage and index, or 0.
* ``ps: null``: D3D9's default texture stages without a texture (diffuse, +
  specular when D3DRS_SPECULARENABLE) and the one non-default combiner a
  case uses (test_color_clamping), as a (code, reflection) pair.
* Linking: a PS input no VS output matches reads 0 (GL would not link it).
* Render state: D3DCULL_CCW (default) / NONE, D3DSHADE_FLAT (the runner's
  RenderState), the textures of test_vertex_texture and texbem_test and the
  BUMPENVMAT stage state (parsed from render_state_notes), and texdepth_test's
  depth pre-pass, drawn here because the runner's targets have no depth.

The case model, the records and the vertex data are ``wine_case_data``'s
(re-exported here).

On Vulkan (``build_draw(case, vulkan=True)``, ``run_case(case, vulkan=True)``):
the shaders are native ``"spirv"``, the fixed-function PS Vulkan GLSL, an
unwritten PS input a zero Private variable (``spirv_edit.zero_inputs``),
texdepth_test's pre-pass on targets with a depth image.

* Fog and the alpha test (fog_with_shader_test, alphatest_test): the case's
  render states (``case_draw_state``) go to the translation, baked or as
  state parameters set per draw (``build_draw(..., mode=)``); xlate adds the
  work to the shaders.  Without a pixel shader a ps_2_0 stand-in that passes
  the diffuse colour on is translated with them (``FF_PIXEL_STAND_IN``);
  without a vertex shader the fog coordinate is fixed-function vertex fog
  (``ff_fog``).

Out of scope (``out_of_scope()`` gives each case's reason): fixed-function
lighting feeding a colour the pixel shader reads.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from .wine_case_data import (CORPUS, WINE, Case, Element, Expected, Probe, _hex,  # noqa: F401 (re-exported)
                             case_draw_state, corpus_missing, element_values, ff_fog, ff_positions, ff_varying,
                             find_element, load_cases, parse_vertex_format, shader_blob, shader_records)

TARGET = "glsl330"
OPTIONS: tuple = ()  # translation options (key, value) pairs


# --------------------------------------------------------------------------- scope

_OUT_OF_SCOPE_FUNCTIONS: dict[str, str] = {}

# How the cases give the translation its render state: "baked" (the values
# are constants in the code) or "dynamic" (uniforms on GL, specialization
# constants on Vulkan, set per draw from the case's state).
DRAW_STATE_MODES = ("baked", "dynamic")


def _lighting_on(case: Case) -> bool:
    s = case.states.upper()
    return not re.search(r"LIGHTING\s*(=\s*)?FALSE", s)


def out_of_scope(case: Case) -> str | None:
    """Why the case cannot be checked here, or None."""
    why = _OUT_OF_SCOPE_FUNCTIONS.get(case.function)
    if why:
        return why
    if case.vs is None and not case.pretransformed and _lighting_on(case) and case.ps is not None:
        reads_colour = any(i["usage"] == "color" for i in _translate(case.ps["id"]).reflection["inputs"])
        if reads_colour:
            return "fixed-function vertex lighting (D3DRS_LIGHTING TRUE) computes the colour the pixel shader reads"
    return None


VULKAN_TARGET = "spirv"  # xlate's own SPIR-V writer


# --------------------------------------------------------------------------- translation


# The pixel shader that stands in for fixed-function pixel processing when a
# case draws with fog or the alpha test and no pixel shader: D3D9's default
# texture stages without a texture give the diffuse colour, which this
# shader passes on; the translation then adds the render state's work.
FF_PIXEL_STAND_IN = "ff-pixel-stand-in"
_STAND_INS = {FF_PIXEL_STAND_IN: "ps_2_0\ndcl v0\nmov oC0, v0\n"}


@functools.lru_cache(maxsize=None)
def _translate(rec_id: str, options: tuple = (), target: str | None = None):
    from .. import translate

    if rec_id in _STAND_INS:
        from ..bytecode.asm import assemble_bytes

        blob = assemble_bytes(_STAND_INS[rec_id])
    else:
        blob = shader_blob(shader_records()[rec_id])
    return translate(blob, target or TARGET, **dict(options or OPTIONS))


def draw_state_options(case: Case, mode: str = "baked") -> tuple:
    """The translation options (pairs, for ``_translate``) that give a
    case's shaders its render state in ``mode`` ("baked" / "dynamic")."""
    ds = case_draw_state(case)
    if ds is None:
        return tuple(OPTIONS)
    if mode == "dynamic":
        return tuple(OPTIONS) + (("draw_state_mode", "dynamic"),)
    return tuple(OPTIONS) + (("draw_state", ds),)


def _varyings(refl: dict, key: str) -> list[dict]:
    return [v for v in refl[key] if not v["glsl"].startswith("gl_")]


def ff_pixel_shader(vs_outputs: list[dict], specular: bool, combiner: tuple | None,
                    vulkan: bool = False) -> tuple[str, dict]:
    """D3D9's default texture stages with no texture bound: the diffuse colour,
    + the specular one when D3DRS_SPECULARENABLE.  ``combiner``: the one
    non-default setup a case uses (stage 0 ADD(DIFFUSE, SPECULAR), stage 1
    MODULATE(TFACTOR, CURRENT)), given as the TEXTUREFACTOR RGB.
    Returns (code, reflection) as the GL runner takes them, or with ``vulkan``
    as the Vulkan runner does (GLSL 450, inputs at the VS outputs' locations)."""
    names = {(o["usage"], o["usage_index"]): o["glsl"] for o in vs_outputs}
    locations = {(o["usage"], o["usage_index"]): o.get("location", 0) for o in vs_outputs}
    lines = ["#version 450" if vulkan else "#version 330", "layout(location = 0) out vec4 xl_ff_out;"]
    inputs = []
    diffuse, spec = "vec4(1.0)", "vec4(0.0)"
    for key, use in ((("color", 0), True), (("color", 1), specular or combiner is not None)):
        if use and key in names:
            loc = locations[key] if vulkan else 16 + key[1]
            lines.append((f"layout(location = {loc}) " if vulkan else "") + f"in vec4 {names[key]};")
            inputs.append({"usage": key[0], "usage_index": key[1], "register": key[1], "mask": "xyzw",
                           "glsl": names[key], "location": loc, "centroid": False})
            if key == ("color", 0):
                diffuse = names[key]
            else:
                spec = names[key]
    if combiner is not None:
        tf = ", ".join(repr(float(c)) for c in combiner)
        expr = f"vec4(clamp({diffuse}.rgb + {spec}.rgb, 0.0, 1.0) * vec3({tf}), {diffuse}.a)"
    elif specular:
        expr = f"vec4(clamp({diffuse}.rgb + {spec}.rgb, 0.0, 1.0), {diffuse}.a)"
    else:
        expr = diffuse
    code = "\n".join(lines + ["void main()", "{", f"    xl_ff_out = {expr};", "}"]) + "\n"
    refl = {"stage": "fragment", "target": "vulkan" if vulkan else TARGET, "constants": [], "samplers": [], "inputs": inputs,
            "outputs": [{"usage": "color", "usage_index": 0, "glsl": "xl_ff_out", "location": 0}],
            "viewport": None, "front_face": None, "draw_state": None, "options": {}}
    return code, refl


def _link_unwritten(ps_code: str, ps_refl: dict, vs_outputs: list[dict]) -> tuple[str, dict]:
    """A PS input that no VS output matches by (usage, index) reads 0 in D3D9
    (uninitialised varyings read 0 or (0, 0, 0, 1) depending on the vendor); GL
    refuses to link it, so it becomes a global initialised to 0."""
    written = {(o["usage"], o["usage_index"]) for o in vs_outputs}
    keep = []
    for inp in ps_refl["inputs"]:
        if inp["glsl"].startswith("gl_") or (inp["usage"], inp["usage_index"]) in written:
            keep.append(inp)
            continue
        ps_code = re.sub(rf"^[^\n;]*\bin\s+vec4\s+{inp['glsl']}\s*;", f"vec4 {inp['glsl']} = vec4(0.0);",
                         ps_code, count=1, flags=re.M)
    return ps_code, dict(ps_refl, inputs=keep)


def _link_unwritten_spirv(ps_code: bytes, ps_refl: dict, vs_outputs: list[dict]) -> tuple[bytes, dict]:
    """``_link_unwritten`` for a SPIR-V PS: the unmatched inputs become
    Private variables initialised to 0 (``spirv_edit.zero_inputs``)."""
    from .spirv_edit import zero_inputs

    written = {(o["usage"], o["usage_index"]) for o in vs_outputs}
    unread = {i["glsl"] for i in ps_refl["inputs"]
              if not i["glsl"].startswith("gl_") and (i["usage"], i["usage_index"]) not in written}
    keep = [i for i in ps_refl["inputs"] if i["glsl"] not in unread]
    return zero_inputs(ps_code, unread), dict(ps_refl, inputs=keep)


# --------------------------------------------------------------------------- draws


def _rgba(argb: int) -> tuple[float, float, float, float]:
    return (((argb >> 16) & 0xFF) / 255, ((argb >> 8) & 0xFF) / 255, (argb & 0xFF) / 255, ((argb >> 24) & 0xFF) / 255)


def _state(case: Case, pattern: str) -> bool:
    return re.search(pattern, case.states, re.I) is not None


def _combiner(case: Case):
    if case.ps is None and _state(case, r"COLOROP ADD\(DIFFUSE, SPECULAR\)"):
        m = re.search(r"TEXTUREFACTOR (0x[0-9a-fA-F]{8})", case.states)
        tf = _rgba(_hex(m.group(1)))[:3]
        if _state(case, r"stage 1 COLOROP MODULATE\(TFACTOR, CURRENT\)"):
            return tf
        return (1.0, 1.0, 1.0)
    return None


def build_draw(case: Case, vulkan: bool = False, mode: str = "baked"):
    """(vs, ps, Draw) for ``xlate.verify.gl.GLRunner.draw``, or with ``vulkan``
    for ``xlate.verify.vk.VKRunner.draw`` (the shaders translated to native
    ``"spirv"``):
    vs/ps are Translations or (code, reflection) pairs; vs None = the runner's
    pass-through VS fed with fixed-function vertex processing's outputs.
    ``mode``: how the translation gets the case's fog / alpha-test state
    (``DRAW_STATE_MODES``)."""
    from .gl import Draw, RenderState
    from .reference import ReferenceConstants
    from .reference_sm1 import TextureStage

    n = len(case.vertices)
    target = VULKAN_TARGET if vulkan else None
    ds = case_draw_state(case)
    opts = draw_state_options(case, mode)
    vs_t = _translate(case.vs["id"], opts, target=target) if case.vs else None
    vertices: dict = {}
    vs = vs_t
    if vs_t is not None:
        refl = vs_t.reflection
        if any(i["usage"] is None for i in refl["inputs"]):
            # vs_1_1 without dcl (d3d8): v# binds by register; give those inputs
            # the register as their key for the runner's (usage, index) binding.
            inputs = [dict(i, usage="v", usage_index=i["register"]) if i["usage"] is None else i
                      for i in refl["inputs"]]
            vs = (vs_t.code, dict(refl, inputs=inputs))
        for inp in vs[1]["inputs"] if isinstance(vs, tuple) else refl["inputs"]:
            if inp["usage"] == "v":
                el = next((e for e in case.elements if e.register == inp["usage_index"]), None)
            else:
                el = find_element(case, inp["usage"], inp["usage_index"])
            # an element the declaration lacks (or on a stream without a buffer) reads 0
            vertices[(inp["usage"], inp["usage_index"])] = (element_values(case, el) if el
                                                            else np.zeros((n, 4), np.float32))
        vs_outputs = _varyings(refl, "outputs")
    if case.ps is not None or ds is not None:
        ps_t = _translate(case.ps["id"] if case.ps is not None else FF_PIXEL_STAND_IN, opts, target=target)
        ps = ps_t
        if vs_t is not None:
            link = _link_unwritten_spirv if vulkan else _link_unwritten
            code, prefl = link(ps_t.code, ps_t.reflection, vs_outputs)
            if code != ps_t.code:
                ps = (code, prefl)
    else:
        outs = vs_outputs if vs_t is not None else [{"usage": "color", "usage_index": 0, "glsl": "v_color0",
                                                     "location": 0}]
        ps = ff_pixel_shader(outs, _state(case, r"SPECULARENABLE TRUE"), _combiner(case), vulkan)
    if vs_t is None:
        ps_refl = ps[1] if isinstance(ps, tuple) else ps.reflection
        vertices[("position", 0)] = ff_positions(case)
        for inp in _varyings(ps_refl, "inputs"):
            vertices[(inp["usage"], inp["usage_index"])] = ff_varying(case, inp["usage"], inp["usage_index"])

    stages = {}
    num = r"(-?\d+(?:\.\d+)?)"
    for stage, *m in re.findall(rf"on stage (\d): 00={num}, 01={num}, 10={num}, 11={num}", case.states):
        stages[int(stage)] = TextureStage(bump_env_mat=tuple(float(x) for x in m))
    textures = _case_textures(case)
    ps_refl = ps[1] if isinstance(ps, tuple) else ps.reflection
    state = RenderState(
        cull="none" if _state(case, r"CULL(MODE)?\s*(=\s*)?(D3DCULL_)?NONE") else _cull_ccw(ps_refl, vulkan),
        shade_mode="flat" if _state(case, r"SHADEMODE D3DSHADE_FLAT") else "gouraud")
    draw = Draw(
        vertices=vertices, primitive="triangle_strip" if case.strip else "triangle_list",
        constants=ReferenceConstants(floats=case.ps_constants, ints=case.int_constants.get("ps", {})),
        vs_constants=ReferenceConstants(floats=case.vs_constants, ints=case.int_constants.get("vs", {})),
        textures={s: t for (st, s), t in textures.items() if st == "ps"},
        vs_textures={s: t for (st, s), t in textures.items() if st == "vs"},
        texture_stages=stages, size=case.size,
        clear=_rgba(case.clear_color) if case.clear_color is not None else (0.0, 0.0, 0.0, 0.0),
        state=state, state_values=ds if mode == "dynamic" else None)
    return vs, ps, draw


def _cull_ccw(ps_refl: dict, vulkan: bool = False) -> str:
    """The RenderState.cull value that makes the GL runner cull what D3DCULL_CCW
    (the default) culls: triangles counter-clockwise on screen.

    The runner sets glFrontFace from the PS reflection's ``front_face``, or
    else GL_CW when flip_y / GL_CCW when not, and maps cull "ccw" to
    GL_BACK, "cw" to GL_FRONT.  With flip_y off the GL image is upright, so
    on-screen winding is GL window winding and D3D's back faces are GL's CCW
    triangles; with flip_y on they are GL's CW ones.  Whichever front face the
    runner picks, the side holding those triangles is asked for here, so
    culling stays right even where that front face is not.

    The Vulkan runner takes the reflection's ``front_face["vulkan"]``, or
    else CLOCKWISE when flip_y (its default) / COUNTER_CLOCKWISE when not,
    and the same cull values ("ccw" -> BACK, "cw" -> FRONT); with flip_y on
    its framebuffer is the D3D image, so D3D's back faces are its CCW ones."""
    if vulkan:
        flip_y = bool(ps_refl.get("options", {}).get("flip_y", True))
        front = (ps_refl.get("front_face") or {}).get("vulkan") or (
            "VK_FRONT_FACE_CLOCKWISE" if flip_y else "VK_FRONT_FACE_COUNTER_CLOCKWISE")
        d3d_back = "VK_FRONT_FACE_COUNTER_CLOCKWISE" if flip_y else "VK_FRONT_FACE_CLOCKWISE"
        return "cw" if front == d3d_back else "ccw"
    flip_y = bool(ps_refl.get("options", {}).get("flip_y"))
    front = (ps_refl.get("front_face") or {}).get("gl") or ("GL_CW" if flip_y else "GL_CCW")
    d3d_back = "GL_CW" if flip_y else "GL_CCW"
    return "cw" if front == d3d_back else "ccw"  # "cw" -> cull GL_FRONT, "ccw" -> GL_BACK


def _texture(rgba: np.ndarray, address: str = "wrap"):
    from .textures import SamplerState, Texture

    return Texture("2d", [rgba], SamplerState(address_u=address, address_v=address))


def _argb_texels(words: list[int]) -> np.ndarray:
    return np.array([_rgba(w) for w in words], np.float32)


def _case_textures(case: Case) -> dict:
    """{("vs"|"ps", s#): Texture} for the cases that bind textures (parsed from
    render_state_notes); samplers not listed stay unbound, which GL and D3D9
    both read as (0, 0, 0, 1)."""
    if case.function == "test_vertex_texture":
        m = re.search(r"texels (0x[0-9a-fA-F]{8})", case.states)
        return {("vs", 0): _texture(np.tile(np.array(_rgba(_hex(m.group(1))), np.float32), (2, 2, 1)))}
    if case.function == "texbem_test":
        texels = [_hex(x) for x in re.findall(r"0x[0-9a-fA-F]{8}", case.states.split("texture2 texels:")[1])]
        tex2 = _argb_texels(texels).reshape(8, 8, 4)  # row-major, row 0 = v 0
        # D3DFMT_V8U8 (du, dv) signed bytes -> /127 (SNORM); the missing blue/alpha read 1
        bumps = re.findall(r"= \((-?\d+), (-?\d+)\)", case.states)
        v8u8 = [np.array([[[int(du) / 127.0, int(dv) / 127.0, 1.0, 1.0]]], np.float32) for du, dv in bumps]
        return {("ps", 0): _texture(v8u8[0], "clamp"), ("ps", 1): _texture(tex2, "clamp"),
                ("ps", 2): _texture(v8u8[1], "clamp"), ("ps", 3): _texture(tex2, "clamp")}
    return {}


# --------------------------------------------------------------------------- texdepth


def _draw_texdepth(case: Case, vs, ps, draw) -> np.ndarray:
    """texdepth_test needs a depth buffer, which the GL runner's targets lack:
    clear z to 0, fill it with the quad's own z gradient (no pixel shader,
    ZFUNC ALWAYS), clear the colour, then draw the shader with ZFUNC GREATER
    and no depth writes.  Uses the runner's program (pipeline) and context."""
    import moderngl

    from .gl import runner

    r = runner()
    ctx = r.ctx
    prog, vs_refl, ps_refl = r.pipeline(vs, ps, draw.state, draw.primitive)
    w_px, h_px = case.size
    color = ctx.texture((w_px, h_px), 4, dtype="f4")
    depth = ctx.depth_renderbuffer((w_px, h_px))
    fbo = ctx.framebuffer(color_attachments=[color], depth_attachment=depth)
    made = []
    pre_prog, pre_vs_refl, _ = r.pipeline(None, ff_pixel_shader([], False, None), draw.state, draw.primitive)
    try:
        fbo.use()
        ctx.viewport = (0, 0, w_px, h_px)
        if "xl_viewport" in prog:
            prog["xl_viewport"].value = (1.0 / w_px, 1.0 / h_px, float(h_px), 0.0)
        r._upload_constants(prog, ps_refl, draw.constants)
        ctx.disable(moderngl.CULL_FACE | moderngl.BLEND)
        vao, bufs, n = r._vertex_array(prog, vs_refl, draw.vertices)
        made += [vao, *bufs]
        mode = moderngl.TRIANGLE_STRIP if case.strip else moderngl.TRIANGLES
        # setup: Clear(TARGET | ZBUFFER, 0xffffff00, z = 0), then the quad without a
        # pixel shader (white: default diffuse), ZFUNC ALWAYS, writes its z gradient
        if "xl_viewport" in pre_prog:
            pre_prog["xl_viewport"].value = (1.0 / w_px, 1.0 / h_px, float(h_px), 0.0)
        pre_vao, pre_bufs, _ = r._vertex_array(pre_prog, pre_vs_refl, {("position", 0): draw.vertices[("position", 0)]})
        made += [pre_vao, *pre_bufs]
        fbo.clear(1.0, 1.0, 0.0, 1.0, depth=0.0)
        ctx.enable(moderngl.DEPTH_TEST)
        ctx.depth_func = "1"
        fbo.depth_mask = True
        pre_vao.render(mode, vertices=n)
        if not case.notes.startswith("Draw 1 of"):  # the first shader draw follows the setup directly
            color.write(np.tile(np.array(draw.clear, np.float32), (h_px, w_px, 1)).tobytes())
        ctx.depth_func = ">"
        fbo.depth_mask = False
        vao.render(mode, vertices=n)
        img = np.frombuffer(fbo.read(components=4, dtype="f4"), np.float32).reshape(h_px, w_px, 4)[::-1]
    finally:
        ctx.disable(moderngl.DEPTH_TEST)
        fbo.depth_mask = True
        for m in made:
            m.release()
        fbo.release()
        depth.release()
        color.release()
    return img


def _draw_texdepth_vk(case: Case, vs, ps, draw) -> np.ndarray:
    """``_draw_texdepth`` on the Vulkan runner: targets with a depth image,
    the pre-pass (white, ZFUNC ALWAYS, z writes) then the shader (ZFUNC
    GREATER, no z writes)."""
    import dataclasses

    from . import vk

    r = vk.runner()
    targets = vk.RenderTargets(*case.size, depth=True)
    try:
        targets.clear((1.0, 1.0, 0.0, 1.0))
        targets.clear_depth(0.0)
        pre = dataclasses.replace(draw, vertices={("position", 0): draw.vertices[("position", 0)]}, clear=None)
        r.draw(None, ff_pixel_shader([], False, None, vulkan=True), pre, targets=targets, read=False,
               depth=("always", True))
        if not case.notes.startswith("Draw 1 of"):  # the first shader draw follows the setup directly
            targets.clear(draw.clear)
        res = r.draw(vs, ps, dataclasses.replace(draw, clear=None), targets=targets, depth=("greater", False))
        return res.colors[0]
    finally:
        targets.release()


# --------------------------------------------------------------------------- probes


@dataclass
class ProbeResult:
    probe: Probe
    got: int  # 0xAARRGGBB as read back (alpha masked off unless the probe compares it)
    ok: bool
    broken_only: bool  # failed, but a broken_accepted colour matches
    bad: int = 0  # pixels that failed (whole-target probes)
    first_bad: tuple[int, int] | None = None  # (x, y) of one, D3D coordinates

    def describe(self) -> str:
        where = self.probe.where()
        if self.probe.x is None and self.first_bad is not None:
            where += f" ({self.bad} pixels of that colour, e.g. ({self.first_bad[0]},{self.first_bad[1]}))"
        text = f"{where}: got 0x{self.got:08x}, want 0x{self.probe.color:08x}±{self.probe.tolerance}"
        if self.probe.also:
            text += " or " + ", ".join(f"0x{e.color:08x}" for e in self.probe.also if e.color is not None)
        return text + (" (only a broken_accepted colour matches)" if self.broken_only else "")


@dataclass
class CaseResult:
    case: Case
    probes: list[ProbeResult]
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and all(p.ok for p in self.probes)

    def describe(self) -> str:
        if self.error:
            return self.error
        return "; ".join(p.describe() for p in self.probes if not p.ok)

    @property
    def broken_only(self) -> bool:
        """Failed, and every failing probe matches a broken_accepted colour."""
        bad = [p for p in self.probes if not p.ok]
        return self.error is None and bool(bad) and all(p.broken_only for p in bad)


def quantise(img: np.ndarray) -> np.ndarray:
    """(h, w, 4) float RGBA -> (h, w) uint32 0xAARRGGBB as a UNORM8 target stores it."""
    q = np.rint(np.clip(np.nan_to_num(img, nan=0.0), 0.0, 1.0) * 255.0).astype(np.uint32)
    return (q[..., 3] << 24) | (q[..., 0] << 16) | (q[..., 1] << 8) | q[..., 2]


def _match(got: int, want: int, tol: int, alpha: bool, mask: int | None = None) -> bool:
    for s in ((16, 8, 0, 24) if alpha else (16, 8, 0)):
        if mask is not None and not (mask >> s) & 0xFF:
            continue
        if abs(((got >> s) & 0xFF) - ((want >> s) & 0xFF)) > tol:
            return False
    return True


def check_probe(probe: Probe, pixels: np.ndarray) -> ProbeResult:
    """pixels: (h, w) uint32 0xAARRGGBB, row 0 = top.  A whole-target probe
    needs every pixel to match."""
    region = pixels.reshape(-1) if probe.x is None else pixels[probe.y, probe.x].reshape(1)
    wanted = [Expected(probe.color, probe.tolerance)] + list(probe.also)
    ok_all, broken_all, shown = True, True, int(region[0])
    for got in (int(g) for g in np.unique(region)):
        ok = any(_match(got, e.color, e.tolerance, probe.alpha) for e in wanted if e.color is not None)
        if not ok:
            br = any(_match(got, e.color, e.tolerance, probe.alpha, e.channel_mask)
                     for e in probe.broken if e.color is not None)
            ok_all, shown, broken_all = False, got, broken_all and br
    if not probe.alpha:
        shown &= 0x00FFFFFF
    result = ProbeResult(probe, shown, ok_all, (not ok_all) and broken_all)
    if probe.x is None and not ok_all:
        keep = 0xFFFFFFFF if probe.alpha else 0x00FFFFFF
        ys, xs = np.nonzero((pixels & keep) == shown)
        result.bad, result.first_bad = len(ys), (int(xs[0]), int(ys[0]))
    return result


# --------------------------------------------------------------------------- running


def render(case: Case, vulkan: bool = False, mode: str = "baked") -> np.ndarray:
    """Draw the case (on lavapipe with native SPIR-V when ``vulkan``);
    (h, w) uint32 0xAARRGGBB, row 0 = top."""
    from .gl import runner

    vs, ps, draw = build_draw(case, vulkan, mode)
    if vulkan:
        from . import vk

        if case.function == "texdepth_test":
            return quantise(_draw_texdepth_vk(case, vs, ps, draw))
        res = vk.runner().draw(vs, ps, draw)
        res.targets.release()
        return quantise(res.colors[0])
    if case.function == "texdepth_test":
        return quantise(_draw_texdepth(case, vs, ps, draw))
    res = runner().draw(vs, ps, draw, targets=_targets(case.size))
    return quantise(res.colors[0])


_TARGETS: dict = {}


def _targets(size):
    """One RenderTargets per size, reused (every draw clears it).  Releasing
    a runner's RenderTargets while its framebuffer is bound makes the next
    framebuffer creation fail with GL_INVALID_OPERATION, so they are kept."""
    from .gl import RenderTargets

    if size not in _TARGETS:
        _TARGETS[size] = RenderTargets(*size)
    return _TARGETS[size]


def run_case(case: Case, vulkan: bool = False, mode: str = "baked") -> CaseResult:
    try:
        pixels = render(case, vulkan, mode)
    except Exception as exc:  # noqa: BLE001 - a failure is a result
        return CaseResult(case, [], f"{type(exc).__name__}: {exc}")
    return CaseResult(case, [check_probe(p, pixels) for p in case.probes])


def run_all(cases=None) -> tuple[dict[str, CaseResult], dict[str, str]]:
    """(results of the in-scope cases, {case id: out-of-scope reason})."""
    results, skipped = {}, {}
    for case in cases if cases is not None else load_cases():
        reason = out_of_scope(case)
        if reason:
            skipped[case.id] = reason
        else:
            results[case.id] = run_case(case)
    return results, skipped
