"""Run translated shaders on OpenGL (moderngl, EGL; Mesa llvmpipe headless).

One standalone EGL context per process, created on first use and reused
(``context()``; it raises ``GLUnavailable`` with the reason when EGL or a GL
4.5 driver is missing, so tests can skip).  Everything is bound ONLY through
the translation's reflection (docs/reflection.md): attributes by (usage,
index), float/int/bool constants by register range, samplers by s#, the
draw-state uniforms of ps_1_x, the viewport uniform and the front face.
The draw's dataclasses are ``draws.py``'s and the GLSL written around a
translation ``gl_source.py``'s (their public names importable from here).

API
---
``runner()`` -> the process's ``GLRunner``.

``GLRunner.draw(vs, ps, draw, targets=None) -> DrawResult``
    ``vs``/``ps`` are ``xlate.Translation`` objects (anything with ``.code``
    and ``.reflection``) for any GL target (glsl120/330/450, essl100/300);
    ``vs=None`` links the PS with a pass-through vertex shader written from
    the PS reflection's inputs: it passes ``draw.vertices[(usage, index)]``
    to each varying the PS reads and takes the D3D clip-space position from
    ``draw.vertices[("position", 0)]`` (applying the same io fix-ups as a
    translated VS: half pixel, clip z, flip y).  ``draw`` is a ``Draw``;
    ``targets`` an existing ``RenderTargets`` to draw into without clearing
    (``Draw.clear`` still clears when given), or None for fresh ones.
    ``DrawResult.colors[i]`` is render target i as (height, width, 4)
    float32 in D3D order (row 0 = top).
``GLRunner.run_vertex(vs, vertices, constants, textures) -> VertexResult``
    a vertex shader alone, through transform feedback (one invocation per
    vertex; a 1×1 framebuffer is bound first, without one Mesa writes zeros).
``RenderTargets(width, height, count)``: float RGBA targets that persist
    across draws; ``clear(colours)``, ``read(i, rect)``, ``release()``.

Textures are ``xlate.verify.textures.Texture`` (the reference interpreter's:
float RGBA levels, 2D / cube / volume, with their ``SamplerState``), so one
set of inputs drives both.  Sampler state maps to GL sampler objects:
point/linear MAG and MIN, MIP none/point/linear, address wrap / mirror /
clamp / border (with its colour) / mirroronce, MIPMAPLODBIAS, MAXMIPLEVEL
(GL_TEXTURE_BASE_LEVEL).

D3D9 render state that core GL lacks is added to the program source
(``RenderState``): the alpha test (a ``discard`` after the PS's main, alpha
rounded to 8 bits as D3D9 hardware compares it), user clip planes (D3D clip
space planes; gl_ClipDistance computed from the position with the io
fix-ups undone), flat shading (``flat`` on COLOR varyings, first-vertex
provoking convention), the point size and its clamp, and point sprites
(TEXCOORD inputs replaced by gl_PointCoord).  A translation made with those
states in ``Options.draw_state`` (clip planes, point size, sprites) needs no
wrapper: the runner enables GL_CLIP_DISTANCEi for the planes its reflection's
``render_state`` lists.  Depth textures (``Texture.format`` d16/d24) are
uploaded as depth formats and sampled with GL_COMPARE_REF_TO_TEXTURE /
GL_LEQUAL when the reflection's sampler has ``compare``.  These wrappers need GLSL 1.30+
(``flat``, gl_ClipDistance) and raise ``NotImplementedError`` otherwise.

Compiled programs are cached by their source text.

Rasterisation: the io pass shifts positions by 63/128 pixel rather than
exactly 1/2 (as wined3d and DXVK do), so an edge through D3D pixel centres
(a quad from -1 to 1) is never a tie for the driver's fill rule and D3D9's
top-left rule decides coverage, upright target or not.  (With an exact 1/2
llvmpipe dropped D3D's top row of such a quad on an upright target.)
"""

from __future__ import annotations

import ctypes
import os
import tempfile
from typing import Any, Mapping, Sequence

import numpy as np

from .draws import Draw, DrawResult, RenderState, VertexResult, usage_key
from .drivers import note_started
from .gl_source import _alpha_test, _flat_colours, _point_sprite, _vs_wrapper, passthrough_vs
from .reference import ReferenceConstants
from .reference_sm1 import TextureStage
from .textures import SamplerState, Texture

__all__ = [
    "GLUnavailable", "RenderState", "Draw", "DrawResult", "VertexResult", "RenderTargets", "GLRunner",
    "context", "runner", "usage_key", "passthrough_vs",
]

F32 = np.float32


class GLUnavailable(RuntimeError):
    """No OpenGL here (no EGL, no driver): tests skip with this message."""


# --------------------------------------------------------------------------
# Context and the few raw GL entry points moderngl does not wrap
# --------------------------------------------------------------------------

_CTX: Any = None
_CTX_ERROR: str | None = None


def context():
    """The process's moderngl context (EGL standalone, GL 4.5 core)."""
    global _CTX, _CTX_ERROR
    if _CTX is not None:
        # Current again on this thread, each time: another EGL user in the
        # process (wgpu's GLES backend did, while enumerating adapters) can
        # make its own context current, and every GL call after that fails
        # ("cannot create program") until ours is current again.
        _CTX.__enter__()
        return _CTX
    if _CTX_ERROR is not None:
        raise GLUnavailable(_CTX_ERROR)
    os.environ.setdefault("MESA_SHADER_CACHE_DIR", os.path.join(tempfile.gettempdir(), "xlate-mesa-cache"))
    note_started("llvmpipe")
    try:
        import moderngl

        ctx = moderngl.create_standalone_context(backend="egl")
        if ctx.version_code < 330:
            raise RuntimeError(f"GL {ctx.version_code} < 3.3")
    except Exception as exc:  # noqa: BLE001 - any failure means "no GL here"
        _CTX_ERROR = f"no OpenGL (moderngl EGL standalone context): {type(exc).__name__}: {exc}"
        raise GLUnavailable(_CTX_ERROR) from exc
    _CTX = ctx
    return ctx


class _GL:
    """Raw GL functions through eglGetProcAddress (Mesa returns core ones too)."""

    _SIGS = {
        "glGenTextures": (None, ctypes.c_int, ctypes.POINTER(ctypes.c_uint)),
        "glDeleteTextures": (None, ctypes.c_int, ctypes.POINTER(ctypes.c_uint)),
        "glBindTexture": (None, ctypes.c_uint, ctypes.c_uint),
        "glActiveTexture": (None, ctypes.c_uint),
        "glTexImage2D": (None, ctypes.c_uint, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                         ctypes.c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p),
        "glTexImage3D": (None, ctypes.c_uint, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                         ctypes.c_int, ctypes.c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p),
        "glTexParameteri": (None, ctypes.c_uint, ctypes.c_uint, ctypes.c_int),
        "glPixelStorei": (None, ctypes.c_uint, ctypes.c_int),
        "glGenSamplers": (None, ctypes.c_int, ctypes.POINTER(ctypes.c_uint)),
        "glDeleteSamplers": (None, ctypes.c_int, ctypes.POINTER(ctypes.c_uint)),
        "glBindSampler": (None, ctypes.c_uint, ctypes.c_uint),
        "glSamplerParameteri": (None, ctypes.c_uint, ctypes.c_uint, ctypes.c_int),
        "glSamplerParameterf": (None, ctypes.c_uint, ctypes.c_uint, ctypes.c_float),
        "glSamplerParameterfv": (None, ctypes.c_uint, ctypes.c_uint, ctypes.POINTER(ctypes.c_float)),
        "glClearBufferfv": (None, ctypes.c_uint, ctypes.c_int, ctypes.POINTER(ctypes.c_float)),
        "glDrawBuffers": (None, ctypes.c_int, ctypes.POINTER(ctypes.c_uint)),
        "glGetError": (ctypes.c_uint,),
    }

    def __init__(self):
        egl = ctypes.CDLL("libEGL.so.1")
        gpa = egl.eglGetProcAddress
        gpa.restype = ctypes.c_void_p
        gpa.argtypes = [ctypes.c_char_p]
        for name, (res, *args) in self._SIGS.items():
            addr = gpa(name.encode())
            if not addr:
                raise GLUnavailable(f"eglGetProcAddress({name}) failed")
            setattr(self, name[2:], ctypes.CFUNCTYPE(res, *args)(addr))


_RAW: _GL | None = None


def _gl() -> _GL:
    global _RAW
    if _RAW is None:
        context()
        _RAW = _GL()
    return _RAW


# GL enums
TEXTURE_2D, TEXTURE_3D, TEXTURE_CUBE_MAP, CUBE_POSITIVE_X = 0x0DE1, 0x806F, 0x8513, 0x8515
TEXTURE0, RGBA32F, RGBA, FLOAT = 0x84C0, 0x8814, 0x1908, 0x1406
MAG_FILTER, MIN_FILTER, WRAP_S, WRAP_T, WRAP_R = 0x2800, 0x2801, 0x2802, 0x2803, 0x8072
BASE_LEVEL, MAX_LEVEL, LOD_BIAS, BORDER_COLOR = 0x813C, 0x813D, 0x8501, 0x1004
UNPACK_ALIGNMENT, COLOR, COLOR_ATTACHMENT0, NONE = 0x0CF5, 0x1800, 0x8CE0, 0
CLIP_DISTANCE0 = 0x3000
DEPTH_COMPONENT = 0x1902
DEPTH_FORMATS = {"d16": 0x81A5, "d24": 0x81A6}  # GL_DEPTH_COMPONENT16 / 24
COMPARE_MODE, COMPARE_FUNC, COMPARE_REF_TO_TEXTURE, LEQUAL = 0x884C, 0x884D, 0x884E, 0x0203
_WRAP = {"wrap": 0x2901, "mirror": 0x8370, "clamp": 0x812F, "border": 0x812D, "mirroronce": 0x8743}
_NEAREST, _LINEAR = 0x2600, 0x2601
# (min, mip) -> GL min filter
_MIN = {("point", "none"): 0x2600, ("linear", "none"): 0x2601,
        ("point", "point"): 0x2700, ("linear", "point"): 0x2701,
        ("point", "linear"): 0x2702, ("linear", "linear"): 0x2703}


def state_parameters(refl: dict) -> list[dict]:
    """Every state parameter a translation reads (the reflection's
    ``render_state.parameters``; none when ``render_state`` is absent)."""
    return list((refl.get("render_state") or {}).get("parameters") or ())


def _drain_errors():
    gl = _gl()
    for _ in range(16):
        if not gl.GetError():
            break


# --------------------------------------------------------------------------
# Render targets
# --------------------------------------------------------------------------


class RenderTargets:
    """``count`` float RGBA targets of one size in one framebuffer.  The image
    lies upright in GL (row 0 = bottom) unless the shaders were translated
    with flip_y; ``read`` returns D3D order either way (``flip_y`` is set by
    the last draw)."""

    def __init__(self, width: int, height: int, count: int = 1):
        ctx = context()
        self.width, self.height, self.count = width, height, count
        self.textures = [ctx.texture((width, height), 4, dtype="f4") for _ in range(count)]
        self.fbo = ctx.framebuffer(color_attachments=self.textures)
        self.flip_y = False
        _drain_errors()  # moderngl rebinds a released framebuffer here (INVALID_OPERATION, harmless)

    def use(self, buffers: Sequence[int] | None = None):
        self.fbo.use()
        bufs = [COLOR_ATTACHMENT0 + i if buffers is None or i in buffers else NONE for i in range(self.count)]
        _gl().DrawBuffers(len(bufs), (ctypes.c_uint * len(bufs))(*bufs))

    def clear(self, colours=None):
        """One RGBA for all targets, or a list with one per target."""
        if colours is None:
            colours = (0.0, 0.0, 0.0, 0.0)
        if np.ndim(colours) == 1:
            colours = [colours] * self.count
        self.use()
        ctx = context()
        ctx.scissor = None
        for i, c in enumerate(colours):
            _gl().ClearBufferfv(COLOR, i, (ctypes.c_float * 4)(*[float(v) for v in c]))

    def read(self, index: int = 0, rect: tuple[int, int, int, int] | None = None) -> np.ndarray:
        """Target ``index`` in D3D order; ``rect`` = (left, top, right, bottom)
        in D3D pixels (exclusive) reads only that part."""
        left, top, right, bottom = rect or (0, 0, self.width, self.height)
        w, h = right - left, bottom - top
        gy = top if self.flip_y else self.height - bottom
        data = self.fbo.read(viewport=(left, gy, w, h), components=4, attachment=index, dtype="f4")
        img = np.frombuffer(data, F32).reshape(h, w, 4)
        return img.copy() if self.flip_y else img[::-1].copy()

    def release(self):
        self.fbo.release()
        for t in self.textures:
            t.release()


# --------------------------------------------------------------------------
# The runner
# --------------------------------------------------------------------------

_PRIMITIVES = {"triangle_list": "TRIANGLES", "triangles": "TRIANGLES", "triangle_strip": "TRIANGLE_STRIP",
               "triangle_fan": "TRIANGLE_FAN", "point_list": "POINTS", "points": "POINTS",
               "line_list": "LINES", "lines": "LINES", "line_strip": "LINE_STRIP"}


def _primitive(name: str) -> str:
    key = name.strip().lower().replace(" ", "_")
    if key not in _PRIMITIVES:
        raise ValueError(f"unknown primitive {name!r}")
    return _PRIMITIVES[key]


class _Shader:
    """A translation, or (code, reflection)."""

    def __init__(self, t):
        if isinstance(t, tuple):
            self.code, self.reflection = t
        else:
            self.code, self.reflection = t.code, t.reflection
        if not isinstance(self.code, str):
            raise TypeError("the GL runner needs a GL target (GLSL text), not SPIR-V")


class GLRunner:
    """Builds programs from translations and draws with them (see the module
    docstring).  ``programs`` caches compiled programs by source text."""

    def __init__(self):
        self.ctx = context()
        self.gl = _gl()
        self.programs: dict[tuple, Any] = {}
        self._tf_fbo = None

    # -- programs -----------------------------------------------------------

    def program(self, vs_code: str, fs_code: str | None, varyings: tuple[str, ...] = ()):
        key = (vs_code, fs_code, varyings)
        prog = self.programs.get(key)
        if prog is None:
            context()  # ours current (see context())
            if fs_code is None:
                prog = self.ctx.program(vertex_shader=vs_code, varyings=list(varyings))
            else:
                prog = self.ctx.program(vertex_shader=vs_code, fragment_shader=fs_code)
            self.programs[key] = prog
        return prog

    def pipeline(self, vs, ps, state: RenderState | None = None, primitive: str = "triangle_list"):
        """(program, vs reflection, ps reflection) with the render state's
        source wrappers applied."""
        state = state or RenderState()
        ps = _Shader(ps)
        if vs is None:
            vs_code, vs_refl = passthrough_vs(ps.reflection)
        else:
            vs = _Shader(vs)
            vs_code, vs_refl = vs.code, vs.reflection
        ps_code, ps_refl = ps.code, ps.reflection
        points = _primitive(primitive) == "POINTS"
        vs_code = _vs_wrapper(vs_code, vs_refl, state, points)
        if state.shade_mode == "flat":
            vs_code, ps_code = _flat_colours(vs_code), _flat_colours(ps_code)
        if state.point_sprite and points:
            ps_code = _point_sprite(ps_code, ps_refl, bool(ps_refl.get("options", {}).get("flip_y")))
        if state.alpha_func is not None and state.alpha_func.replace(" ", "_") != "always":
            ps_code = _alpha_test(ps_code, ps_refl, state.alpha_func, state.alpha_ref)
        return self.program(vs_code, ps_code), vs_refl, ps_refl

    # -- binding ------------------------------------------------------------

    @staticmethod
    def _upload_constants(prog, refl: dict, consts: ReferenceConstants):
        for c in refl.get("constants", ()):
            name = c["glsl"]
            if name not in prog:
                continue
            u = prog[name]
            end = c["first"] + c["count"]
            if c["file"] == "float":
                regs = consts.floats_table(end)[c["first"]:end]
            elif c["file"] == "int":
                regs = consts.ints_table(end)[c["first"]:end]
            else:
                regs = consts.bools_table(end)[c["first"]:end]
            if c["element"] is None:
                v = regs[0]
                u.value = bool(v) if c["file"] == "bool" else tuple(v.tolist())
                continue
            n = min(u.array_length, len(regs))
            if c["file"] == "bool":
                u.value = [bool(b) for b in regs[:n]]
            else:
                u.write(np.ascontiguousarray(regs[:n]).tobytes())

    @staticmethod
    def _upload_draw_state(prog, refl: dict, stages: Mapping[int, TextureStage]):
        ds = refl.get("draw_state") or {}
        for u in ds.get("uniforms", ()):
            name = u["glsl"]
            if name not in prog:
                continue
            st = stages.get(u["stage"], TextureStage())
            first = u["state"][0]
            if first == "D3DTSS_BUMPENVMAT00":
                prog[name].value = tuple(float(x) for x in st.bump_env_mat)
            elif first == "D3DTSS_BUMPENVLSCALE":
                prog[name].value = float(st.bump_env_lscale)
            elif first == "D3DTSS_BUMPENVLOFFSET":
                prog[name].value = float(st.bump_env_loffset)
            else:
                raise NotImplementedError(f"draw-state uniform {u}")

    @staticmethod
    def _upload_state_parameters(prog, refl: dict, values) -> None:
        """The uniforms of a dynamic draw-state translation (reflection
        ``render_state.parameters``, form "uniform") from ``values`` (a
        DrawState; None: D3D's defaults)."""
        params = state_parameters(refl)
        if not params:
            return
        values = state_values(values)
        for p in params:
            if p.get("form") == "uniform" and p["glsl"] in prog:
                prog[p["glsl"]].value = values.param_value(p["key"])

    def _make_texture(self, tex: Texture, kind: str) -> tuple[int, int]:
        """Upload a texture; returns (GL target, name)."""
        gl = self.gl
        if tex.kind != kind and not (kind == "2d" and tex.kind == "1d"):
            raise ValueError(f"sampler is {kind}, texture is {tex.kind}")
        target = {"2d": TEXTURE_2D, "1d": TEXTURE_2D, "cube": TEXTURE_CUBE_MAP, "volume": TEXTURE_3D}[tex.kind]
        name = ctypes.c_uint(0)
        gl.GenTextures(1, ctypes.byref(name))
        gl.ActiveTexture(TEXTURE0 + self.ctx.default_texture_unit)
        gl.BindTexture(target, name.value)
        gl.PixelStorei(UNPACK_ALIGNMENT, 4)
        for lvl, data in enumerate(tex.levels):
            a = np.ascontiguousarray(data, dtype=F32)
            ptr = a.ctypes.data_as(ctypes.c_void_p)
            if tex.kind == "volume":
                d, h, w = a.shape[:3]
                gl.TexImage3D(target, lvl, RGBA32F, w, h, d, 0, RGBA, FLOAT, ptr)
            elif tex.kind == "cube":
                h, w = a.shape[1:3]
                stride = h * w * 4 * 4
                for f in range(6):
                    gl.TexImage2D(CUBE_POSITIVE_X + f, lvl, RGBA32F, w, h, 0, RGBA, FLOAT,
                                  ctypes.c_void_p(a.ctypes.data + f * stride))
            elif tex.format != "rgba":  # a depth texture: red is the depth
                h, w = a.shape[:2]
                depth = np.ascontiguousarray(a[..., 0], dtype=F32)
                gl.TexImage2D(target, lvl, DEPTH_FORMATS[tex.format], w, h, 0, DEPTH_COMPONENT, FLOAT,
                              depth.ctypes.data_as(ctypes.c_void_p))
            else:
                h, w = a.shape[:2]
                gl.TexImage2D(target, lvl, RGBA32F, w, h, 0, RGBA, FLOAT, ptr)
        s = tex.sampler
        gl.TexParameteri(target, MAX_LEVEL, len(tex.levels) - 1)
        gl.TexParameteri(target, BASE_LEVEL, min(int(s.max_mip_level), len(tex.levels) - 1))
        gl.BindTexture(target, 0)
        return target, name.value

    def _make_sampler(self, s: SamplerState, compare: bool = False) -> int:
        """A sampler object; ``compare``: a depth texture's, compared
        LESS_EQUAL as D3D9 drivers do (the shader declares it a shadow sampler)."""
        gl = self.gl
        name = ctypes.c_uint(0)
        gl.GenSamplers(1, ctypes.byref(name))
        n = name.value
        if compare:
            gl.SamplerParameteri(n, COMPARE_MODE, COMPARE_REF_TO_TEXTURE)
            gl.SamplerParameteri(n, COMPARE_FUNC, LEQUAL)
        gl.SamplerParameteri(n, WRAP_S, _WRAP[s.address_u])
        gl.SamplerParameteri(n, WRAP_T, _WRAP[s.address_v])
        gl.SamplerParameteri(n, WRAP_R, _WRAP[s.address_w])
        lin = lambda f: "linear" if f in ("linear", "anisotropic") else "point"  # noqa: E731
        gl.SamplerParameteri(n, MAG_FILTER, _LINEAR if lin(s.mag_filter) == "linear" else _NEAREST)
        mip = "none" if s.mip_filter == "none" else lin(s.mip_filter)
        gl.SamplerParameteri(n, MIN_FILTER, _MIN[(lin(s.min_filter), mip)])
        gl.SamplerParameterf(n, LOD_BIAS, float(s.mip_lod_bias))
        gl.SamplerParameterfv(n, BORDER_COLOR, (ctypes.c_float * 4)(*[float(c) for c in s.border_color]))
        return n

    def _bind_textures(self, prog, refl: dict, textures: Mapping[int, Texture], made: list):
        gl = self.gl
        for s in refl.get("samplers", ()):
            if s["glsl"] not in prog:
                continue
            unit = s["unit"]
            prog[s["glsl"]].value = unit
            tex = textures.get(s["register"])
            if tex is None:
                continue  # unbound: GL reads an incomplete texture as (0, 0, 0, 1), as D3D9
            target, tname = self._make_texture(tex, s["type"])
            sname = self._make_sampler(tex.sampler, "compare" in s)
            made.append((unit, target, tname, sname))
        for unit, target, tname, sname in made:
            gl.ActiveTexture(TEXTURE0 + unit)
            gl.BindTexture(target, tname)
            gl.BindSampler(unit, sname)

    def _release_textures(self, made: list):
        gl = self.gl
        for unit, target, tname, sname in made:
            gl.ActiveTexture(TEXTURE0 + unit)
            gl.BindTexture(target, 0)
            gl.BindSampler(unit, 0)
            gl.DeleteTextures(1, ctypes.byref(ctypes.c_uint(tname)))
            gl.DeleteSamplers(1, ctypes.byref(ctypes.c_uint(sname)))

    def _vertex_array(self, prog, vs_refl: dict, vertices: Mapping[Any, Any]):
        data = {usage_key(k): np.asarray(v, F32) for k, v in vertices.items()}
        counts = {len(v) for v in data.values()}
        if len(counts) > 1:
            raise ValueError(f"vertex attributes of different lengths: {sorted(counts)}")
        content, buffers = [], []
        for inp in vs_refl["inputs"]:
            key = (inp["usage"], inp["usage_index"])
            name = inp["glsl"]
            if key not in data or name not in prog:
                continue
            v = data[key]
            if v.ndim == 1:
                v = v[:, None]
            if v.shape[1] > 4:
                raise ValueError(f"{key}: more than 4 components")
            buf = self.ctx.buffer(np.ascontiguousarray(v).tobytes())
            buffers.append(buf)
            content.append((buf, f"{v.shape[1]}f", name))
        n = counts.pop() if counts else 0
        vao = self.ctx.vertex_array(prog, content) if content else self.ctx.vertex_array(prog, [])
        return vao, buffers, n

    @staticmethod
    def _set_viewport_uniform(prog, refls, value):
        for refl in refls:
            vp = refl.get("viewport")
            if vp and vp.get("glsl") in prog:
                prog[vp["glsl"]].value = value

    # -- draws --------------------------------------------------------------

    def draw(self, vs, ps, draw: Draw, targets: RenderTargets | None = None, read: bool = True) -> DrawResult:
        ctx, gl = context(), self.gl
        state = draw.state
        _drain_errors()
        prog, vs_refl, ps_refl = self.pipeline(vs, ps, state, draw.primitive)
        width, height = draw.size
        fresh = targets is None
        if fresh:
            targets = RenderTargets(width, height, draw.targets)
        width, height = targets.width, targets.height
        flip_y = bool(ps_refl.get("options", {}).get("flip_y"))
        targets.flip_y = flip_y
        if draw.clear is not None or fresh:
            targets.clear(draw.clear)
        written = sorted({o["usage_index"] for o in ps_refl["outputs"] if o["usage"] == "color"}) or [0]
        targets.use([i for i in written if i < targets.count])

        vx, vy, vw, vh = draw.viewport or (0, 0, width, height)
        ctx.viewport = (vx, vy if flip_y else height - vy - vh, vw, vh)
        self._set_viewport_uniform(prog, (vs_refl, ps_refl), (1.0 / vw, 1.0 / vh, float(height), 0.0))
        self._upload_constants(prog, vs_refl, draw.vs_constants if draw.vs_constants is not None else draw.constants)
        self._upload_constants(prog, ps_refl, draw.constants)
        self._upload_draw_state(prog, ps_refl, draw.texture_stages)
        self._upload_state_parameters(prog, vs_refl, draw.state_values)
        self._upload_state_parameters(prog, ps_refl, draw.state_values)

        # fixed-function state
        ctx.disable(ctx.BLEND | ctx.DEPTH_TEST)
        ff = (ps_refl.get("front_face") or {}).get("gl") or ("GL_CW" if flip_y else "GL_CCW")
        ctx.front_face = "cw" if ff == "GL_CW" else "ccw"
        if state.cull == "none":
            ctx.disable(ctx.CULL_FACE)
        else:
            ctx.enable(ctx.CULL_FACE)
            ctx.cull_face = "front" if state.cull == "cw" else "back"
        ctx.provoking_vertex = ctx.FIRST_VERTEX_CONVENTION
        mode = _primitive(draw.primitive)
        if mode == "POINTS":
            ctx.enable(ctx.PROGRAM_POINT_SIZE)
            if "xl_point_size" in prog:
                prog["xl_point_size"].value = (float(state.point_size), float(state.point_size_min),
                                               float(min(state.point_size_max, 8192.0)))
        else:
            ctx.disable(ctx.PROGRAM_POINT_SIZE)
        if state.clip_planes and "xl_clip_planes" in prog:
            planes = np.asarray(state.clip_planes, F32).reshape(-1, 4)
            prog["xl_clip_planes"].write(planes[: prog["xl_clip_planes"].array_length].tobytes())
        # user clip planes: the runner's own (RenderState) or the translation's (Options.draw_state)
        clip = list(range(len(state.clip_planes))) + [
            p["index"] for p in (vs_refl.get("render_state") or {}).get("clipplanes", ())]
        for k in clip:
            ctx.enable_direct(CLIP_DISTANCE0 + k)

        made: list = []
        vao = None
        buffers: list = []
        try:
            self._bind_textures(prog, vs_refl, draw.vs_textures, made)
            self._bind_textures(prog, ps_refl, draw.textures, made)
            vao, buffers, n = self._vertex_array(prog, vs_refl, draw.vertices)
            if draw.count is not None:
                n = draw.count
            vao.render(mode=getattr(ctx, mode), vertices=n)
        finally:
            for k in clip:
                ctx.disable_direct(CLIP_DISTANCE0 + k)
            self._release_textures(made)
            if vao is not None:
                vao.release()
            for b in buffers:
                b.release()
        err = gl.GetError()
        if err:
            raise RuntimeError(f"GL error 0x{err:x} after the draw")
        colors = [targets.read(i) for i in range(targets.count)] if read else []
        return DrawResult(colors, targets)

    def run_vertex(self, vs, vertices: Mapping[Any, Any], constants: ReferenceConstants | None = None,
                   textures: Mapping[int, Texture] | None = None, count: int | None = None,
                   state_values=None) -> VertexResult:
        """Run a translated VS alone (transform feedback).  The viewport
        uniform is left at 0, which disables the half-pixel offset.  The
        clip distances the reflection's ``render_state.clipplanes`` lists are
        captured too, as ``outputs["gl_ClipDistance[i]"]`` (in x);
        ``state_values``: the draw state of a dynamic translation (a
        DrawState or dict; None: D3D's defaults)."""
        ctx = context()  # ours current (see context())
        vs = _Shader(vs)
        refl = vs.reflection
        clips = tuple(f"gl_ClipDistance[{p['index']}]"
                      for p in (refl.get("render_state") or {}).get("clipplanes", ()))
        names = tuple(o["glsl"] for o in refl["outputs"]) + clips
        prog = self.program(vs.code, None, names)
        self._set_viewport_uniform(prog, (refl,), (0.0, 0.0, 0.0, 0.0))
        self._upload_constants(prog, refl, constants or ReferenceConstants())
        self._upload_state_parameters(prog, refl, state_values)
        if self._tf_fbo is None:
            self._tf_fbo = ctx.framebuffer(color_attachments=[ctx.texture((1, 1), 4, dtype="f4")])
        self._tf_fbo.use()
        sizes = [1 if n == "gl_PointSize" or n.startswith("gl_ClipDistance") else 4 for n in names]
        made: list = []
        vao, buffers = None, []
        try:
            self._bind_textures(prog, refl, textures or {}, made)
            vao, buffers, n = self._vertex_array(prog, refl, vertices)
            if count is not None:
                n = count
            out = ctx.buffer(reserve=max(n, 1) * sum(sizes) * 4)
            buffers.append(out)
            vao.transform(out, mode=ctx.POINTS, vertices=n)
            raw = np.frombuffer(out.read(), F32).reshape(max(n, 1), sum(sizes))[:n]
        finally:
            self._release_textures(made)
            if vao is not None:
                vao.release()
            for b in buffers:
                b.release()
        return captured_vertices(raw, tuple(zip(names, sizes)), refl)


def captured_vertices(raw: np.ndarray, fields, refl: dict) -> VertexResult:
    """A ``VertexResult`` from captured rows (one per vertex; ``fields``:
    (GLSL name, component count) in capture order), with the D3D position
    (flip_y and clip_z undone; the viewport uniform was 0 during the capture,
    so there is no half-pixel offset to undo).  Shared by the GL and Vulkan
    runners."""
    n = raw.shape[0]
    outputs, col = {}, 0
    for name, k in fields:
        v = np.zeros((n, 4), F32)
        v[:, :k] = raw[:, col:col + k]
        outputs[name] = v
        col += k
    semantics = {(o["usage"], o["usage_index"]): o["glsl"] for o in refl["outputs"]}
    pos = None
    if "gl_Position" in outputs:
        p = outputs["gl_Position"].astype(np.float64).copy()
        opts = refl.get("options", {})
        if opts.get("flip_y"):
            p[:, 1] = -p[:, 1]
        if opts.get("clip_z"):
            p[:, 2] = (p[:, 2] + p[:, 3]) / 2
        pos = p.astype(F32)
    return VertexResult(outputs, semantics, pos)


_RUNNER: GLRunner | None = None


def state_values(values):
    """A Draw's ``state_values`` as a DrawState (a dict is read as
    ``DrawState.from_dict`` reads it; None: D3D's defaults)."""
    from ..drawstate import DrawState

    return DrawState.from_dict(values)


def runner() -> GLRunner:
    """The process's runner (creates the context on first use; raises
    ``GLUnavailable`` when there is no GL)."""
    global _RUNNER
    if _RUNNER is None:
        _RUNNER = GLRunner()
    return _RUNNER
