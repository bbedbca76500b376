"""Run translated WGSL through WebGPU (the pip ``wgpu`` package: wgpu-native
with naga, on Mesa lavapipe headless).  The WGSL counterpart of
``xlate.verify.vk`` and ``xlate.verify.gl``.

Needs the Debian package ``mesa-vulkan-drivers`` (lavapipe) and the pip
package ``wgpu``.  One adapter and device per process, made on first use
(``runner()``); ``WGPUUnavailable`` (with the reason) when the package or
an adapter is missing, so tests can skip.  The device asks for the
adapter's limits (lavapipe: 31 inter-stage variables; the WGSL locations
of the common varyings are within the default 16 anyway,
backends/wgsl/locations.py), ``float32-filterable`` (float textures with
linear filtering, as D3D9 filters them), ``clip-distances`` and
``address-mode-clamp-to-border``.
``WGPURunner(default_limits=True)`` builds pipelines on a device with
WebGPU's default limits.

Everything is bound ONLY through the translations' reflection
(docs/reflection.md, "WGSL"): group 0 = vertex stage, group 1 = fragment
stage; binding 0 float, 1 int, 2 bool uniform buffers (raw register
files, 16 bytes a register, bools as u32), 3 viewport, 4 + s# textures,
32 + s# samplers, 20 the ps_1_x draw-state buffer; vertex attributes at the
reflection's locations; varyings link by location.

API (mirrors ``vk.py``)
-----------------------
``runner()`` -> the process's ``WGPURunner``.

``WGPURunner.draw(vs, ps, draw, targets=None, read=True) -> gl.DrawResult``
    ``vs``/``ps``: translations for target ``"wgsl"`` or ``(code,
    reflection)`` pairs; ``draw`` is ``gl.Draw``; ``DrawResult.colors[i]``
    is render target i, (height, width, 4) float32, row 0 = top (D3D
    order) whatever ``flip_y`` was.
``WGPURunner.pipeline(vs, ps, ...)``: the render pipeline alone (the
    corpus test builds one per VS+PS pair).
``WGPURunner.run_vertex(vs, vertices, constants=None, textures=None, count=None) -> gl.VertexResult``
    a vertex shader alone, as ``GLRunner.run_vertex`` (the same arguments
    and result: ``outputs`` by the reflection's names, ``gl_Position`` as
    the Vulkan target gives it, i.e. before the entry point's y negation,
    ``xl_point_size`` in x; ``position`` in D3D clip space).  WebGPU has no transform feedback:
    the runner adds an entry point ``xl_capture`` to the module that runs
    the shader's ``xl_main`` and puts vertex i on pixel i of a one-row
    rgba32float target, its outputs as flat varyings, which a capture
    fragment shader writes out, eight outputs a pass.  The viewport buffer
    is 0 (no half-pixel offset).
``RenderTargets(width, height, count, depth=False)``: rgba32float textures
    that persist across draws: ``clear(colours)``, ``read(i, rect)``,
    ``release()``; ``depth=True`` adds a depth32float texture
    (``clear_depth(z)``) that ``draw(..., depth=(compare op, writes))``
    tests against, e.g. ("greater", False).

A PS writing the depth gets a depth32float attachment (test "always",
writes on), which WebGPU requires.  Varyings past the device's ``max-inter-stage-shader-variables`` (the
WGSL table's rare semantics, semantics outside it at 32 + 16*usage +
index) are moved to free locations in both stages, as a layer would remap
them from the reflection.  Render state: cull mode and front face (the reflection's ``front_face
["webgpu"]``), viewport, topology (lists, strips; fans are drawn as lists
of the same triangles), flat shading (``@interpolate(flat)`` on the colour
varyings of both stages, the first vertex's colour as D3D9's), MRT with
write masks for the outputs the PS writes.  WebGPU has no alpha test or
user clip planes: the translations must do what the draw's RenderState asks
(``Options.draw_state``, baked or as override constants: ``wgpu_state``,
whose ``shader_draw_state`` gives the options), else ``NotImplementedError``.
WebGPU draws 1-pixel points: a point draw with a size (POINTSIZE, or a VS
writing oPts) or point sprites is drawn as instanced quads
(``wgpu_state.point_quads``), as a layer on WebGPU would.

Textures are ``xlate.verify.textures.Texture`` with their ``SamplerState``:
point/linear MAG, MIN and MIP (MIP none: lodMaxClamp 0.25), every
D3D9 address mode: border through wgpu's ``address-mode-clamp-to-border``
(requested where the adapter has it, as lavapipe does) with a border colour
WebGPU has, any other colour and mirror once emulated exactly by rewriting
the translation's lookups through that sampler, as a layer would
(``wgpu_address``; ``address_counts`` tallies them); WebGPU has no LOD bias or base level in a sampler:
MIPMAPLODBIAS must be 0, MAXMIPLEVEL becomes the view's base level.  An
unbound sampler reads a 1x1 (0, 0, 0, 1) texture, as D3D9.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from typing import Any, Mapping

import numpy as np

from .drivers import note_started
from .gl import Draw, DrawResult, RenderState, VertexResult, _primitive, captured_vertices, usage_key
from .reference import ReferenceConstants
from .reference_sm1 import TextureStage
from .textures import UNBOUND, SamplerState, Texture, unbound_texture
from .uniforms import uniform_blocks
from .wgpu_address import BORDER_FEATURE, OPAQUE_WHITE, create_sampler, for_textures, plan
from .wgpu_state import QUAD_ENTRY, QUAD_VERTICES, check_in_shader, needs_quads, point_quads

F32 = np.float32
FORMAT = "rgba32float"
GROUP_VERTEX, GROUP_FRAGMENT = 0, 1
BINDING_VIEWPORT, BINDING_SAMPLER0, BINDING_DRAW_STATE = 3, 4, 20
SAMPLER_BINDING_BASE = 32
_TOPOLOGY = {"TRIANGLES": "triangle-list", "TRIANGLE_STRIP": "triangle-strip", "TRIANGLE_FAN": "triangle-list",
             "POINTS": "point-list", "LINES": "line-list", "LINE_STRIP": "line-strip"}
_VIEW = {"2d": "2d", "1d": "2d", "cube": "cube", "volume": "3d"}
_VERTEX_FORMATS = {1: "float32", 2: "float32x2", 3: "float32x3", 4: "float32x4"}


class WGPUUnavailable(RuntimeError):
    """No WebGPU here: the ``wgpu`` package, or a (lavapipe) adapter, is missing."""


# WebGPU's default limits (the W3C specification's "Limits" table) that a
# render pipeline of the runner meets; wgpu-py fills a limit not asked for
# with the adapter's, so a device with the defaults names them.
DEFAULT_LIMITS = {
    "max-inter-stage-shader-variables": 16, "max-vertex-attributes": 16, "max-vertex-buffers": 8,
    "max-bind-groups": 4, "max-sampled-textures-per-shader-stage": 16, "max-samplers-per-shader-stage": 16,
    "max-uniform-buffers-per-shader-stage": 12, "max-color-attachments": 8,
    "max-color-attachment-bytes-per-sample": 32,
}


def _device(default_limits: bool = False):
    """(wgpu, adapter, device): one device per process and kind of limits."""
    return _make_device(bool(default_limits))


@functools.lru_cache(maxsize=2)
def _make_device(default_limits: bool):
    try:
        import wgpu
    except ImportError as e:
        raise WGPUUnavailable(f"the wgpu package is not installed ({e})") from None
    note_started("wgpu")
    try:
        # Vulkan only (lavapipe): wgpu's GLES backend would make its own EGL
        # context current on this thread while it enumerates adapters, and
        # the GL runner's moderngl context in the same process then fails
        # ("cannot create program") for the rest of the process.
        from wgpu.backends.wgpu_native.extras import set_instance_extras

        set_instance_extras(backends=["Vulkan"])
    except Exception:  # noqa: BLE001 - an instance already exists (someone else asked first) or an older wgpu
        pass
    try:
        adapter = wgpu.gpu.request_adapter_sync(power_preference="low-power")
    except Exception as e:  # noqa: BLE001 - any failure means no adapter
        raise WGPUUnavailable(f"no WebGPU adapter (install mesa-vulkan-drivers for lavapipe): {e}") from None
    if adapter is None:
        raise WGPUUnavailable("no WebGPU adapter (install mesa-vulkan-drivers for lavapipe)")
    features = [f for f in ("float32-filterable", "clip-distances", BORDER_FEATURE) if f in adapter.features]
    limits = {k: adapter.limits[k] for k in ("max-inter-stage-shader-variables", "max-vertex-attributes",
                                             "max-sampled-textures-per-shader-stage",
                                             "max-samplers-per-shader-stage", "max-color-attachment-bytes-per-sample")
              if k in adapter.limits}
    # default_limits: WebGPU's defaults (16 inter-stage variables), what every device has
    device = adapter.request_device_sync(required_features=features,
                                         required_limits=DEFAULT_LIMITS if default_limits else limits)
    return wgpu, adapter, device


def _shader(t) -> tuple[str, dict]:
    if isinstance(t, tuple):
        return t
    if t.target != "wgsl":
        raise ValueError(f"the WebGPU runner takes 'wgsl' translations, not {t.target!r}")
    return t.code, t.reflection


class RenderTargets:
    """``count`` rgba32float textures of ``width`` x ``height``; ``depth``
    adds a depth32float texture that persists too (``clear_depth``)."""

    def __init__(self, width: int, height: int, count: int = 1, depth: bool = False):
        wgpu, _, device = _device()
        self.width, self.height, self.count = width, height, count
        self.textures = [device.create_texture(
            size=(width, height, 1), format=FORMAT,
            usage=wgpu.TextureUsage.RENDER_ATTACHMENT | wgpu.TextureUsage.COPY_SRC | wgpu.TextureUsage.COPY_DST)
            for _ in range(count)]
        self.views = [t.create_view() for t in self.textures]
        self.depth = None
        if depth:
            self.depth = device.create_texture(size=(width, height, 1), format="depth32float",
                                               usage=wgpu.TextureUsage.RENDER_ATTACHMENT).create_view()

    def clear_depth(self, z: float) -> None:
        _, _, device = _device()
        enc = device.create_command_encoder()
        rp = enc.begin_render_pass(color_attachments=[], depth_stencil_attachment={
            "view": self.depth, "depth_clear_value": float(z), "depth_load_op": "clear", "depth_store_op": "store"})
        rp.end()
        device.queue.submit([enc.finish()])

    def clear(self, colours=None) -> None:
        if colours is None:
            colours = [(0.0, 0.0, 0.0, 0.0)] * self.count
        elif len(colours) == 4 and not hasattr(colours[0], "__len__"):
            colours = [colours] * self.count
        _, _, device = _device()
        enc = device.create_command_encoder()
        rp = enc.begin_render_pass(color_attachments=[
            {"view": v, "load_op": "clear", "store_op": "store", "clear_value": tuple(float(x) for x in c)}
            for v, c in zip(self.views, colours)])
        rp.end()
        device.queue.submit([enc.finish()])

    def read(self, index: int = 0, rect: tuple[int, int, int, int] | None = None) -> np.ndarray:
        """Target ``index`` as (height, width, 4) float32, row 0 = top; ``rect``
        (x, y, w, h) reads a part."""
        _, _, device = _device()
        x, y, w, h = rect or (0, 0, self.width, self.height)
        data = device.queue.read_texture({"texture": self.textures[index], "origin": (x, y, 0)},
                                         {"bytes_per_row": w * 16, "rows_per_image": h}, (w, h, 1))
        return np.frombuffer(data, F32).reshape(h, w, 4).copy()

    def release(self) -> None:
        for t in self.textures:
            t.destroy()
        self.textures, self.views, self.depth = [], [], None


def _flat_colours(code: str, refl: dict, stage_key: str) -> str:
    """``@interpolate(flat)`` on the colour varyings (D3DSHADE_FLAT)."""
    for entry in refl[stage_key]:
        if entry.get("usage") == "color" and entry.get("location") is not None and not entry.get("builtin"):
            name = re.escape(entry["glsl"])
            code = re.sub(rf"(@location\({entry['location']}\))( @interpolate\([a-z, ]+\))? ({name}: )",
                          r"\1 @interpolate(flat) \3", code)
    return code


_STRUCT = {name: re.compile(rf"struct {name} \{{\n(.*?)\n\}}", re.S) for name in ("XlOut", "XlIn")}
_LOCATION = re.compile(r"@location\((\d+)\)")


def _remap_varyings(vs_code: str, ps_code: str, limit: int) -> tuple[str, str]:
    """Varyings at locations past the device's limit (the layout gives
    semantics outside its table 32 + 16*usage + index, and DEPTH0 31) moved
    to free locations, the same in both stages (the VS's ``XlOut``, the PS's
    ``XlIn``), as a layer would remap them from the reflection."""
    found = {}
    for code, struct in ((vs_code, "XlOut"), (ps_code, "XlIn")):
        m = _STRUCT[struct].search(code)
        if m:
            found[struct] = {int(x) for x in _LOCATION.findall(m.group(1))}
    used = set().union(*found.values()) if found else set()
    high = sorted(loc for loc in used if loc >= limit)
    if not high:
        return vs_code, ps_code
    free = [loc for loc in range(limit) if loc not in used]
    if len(free) < len(high):
        raise NotImplementedError(f"{len(used)} varyings; the device links at most {limit}")
    moves = dict(zip(high, free))

    def edit(code: str, struct: str) -> str:
        m = _STRUCT[struct].search(code)
        if not m:
            return code
        body = _LOCATION.sub(lambda k: f"@location({moves.get(int(k.group(1)), int(k.group(1)))})", m.group(1))
        return code[:m.start(1)] + body + code[m.end(1):]

    return edit(vs_code, "XlOut"), edit(ps_code, "XlIn")


class WGPURunner:
    # differential.check_shader / check_generated run pixel shaders here too
    # (``draw(None, ...)`` and ``probe_shader``), not only vertex shaders
    runs_pixel_checks = True

    def __init__(self, default_limits: bool = False):
        """``default_limits``: a device of its own with WebGPU's default
        limits (for pipelines only: RenderTargets use the process's device),
        whose varyings link at the translations' own locations (no remap)."""
        self.wgpu, self.adapter, self.device = _device(default_limits)
        self.remap_varyings = not default_limits
        self.modules: dict[str, Any] = {}
        self.filterable = "float32-filterable" in self.device.features
        self.border = BORDER_FEATURE in self.device.features
        # declared samplers bound with a border ("border": a native colour,
        # "border emulated") or mirror once, per draw: tests report them
        self.address_counts: Counter[str] = Counter()

    def module(self, code: str):
        """The shader module (naga validates the WGSL here: ``GPUValidationError``)."""
        m = self.modules.get(code)
        if m is None:
            if len(self.modules) > 512:
                self.modules.clear()
            m = self.modules[code] = self.device.create_shader_module(code=code)
        return m

    # -- layouts ------------------------------------------------------------

    def _entries(self, refl: dict, visibility) -> list[dict]:
        entries = []
        for binding in sorted(self._blocks_of(refl)):
            entries.append({"binding": binding, "visibility": visibility, "buffer": {"type": "uniform"}})
        for s in refl.get("samplers", ()):
            if s.get("compare"):  # a depth texture, compared (Options.draw_state.depthtexture)
                entries.append({"binding": s["binding"], "visibility": visibility,
                                "texture": {"sample_type": "depth", "view_dimension": "2d"}})
                entries.append({"binding": s["sampler_binding"], "visibility": visibility,
                                "sampler": {"type": "comparison"}})
                continue
            entries.append({"binding": s["binding"], "visibility": visibility,
                            "texture": {"sample_type": "float" if self.filterable else "unfilterable-float",
                                        "view_dimension": _VIEW[s["type"]]}})
            entries.append({"binding": s["sampler_binding"], "visibility": visibility,
                            "sampler": {"type": "filtering" if self.filterable else "non-filtering"}})
            if "white_sampler_binding" in s:
                entries.append({"binding": s["white_sampler_binding"], "visibility": visibility,
                                "sampler": {"type": "filtering" if self.filterable else "non-filtering"}})
        return entries

    @staticmethod
    def _blocks_of(refl: dict) -> set[int]:
        out = {c["binding"] for c in refl.get("constants", ())}
        if refl.get("viewport"):
            out.add(refl["viewport"].get("binding", BINDING_VIEWPORT))
        ds = (refl.get("draw_state") or {}).get("uniforms", ())
        if ds:
            out.add(ds[0].get("binding", BINDING_DRAW_STATE))
        return out

    def pipeline(self, vs, ps, primitive: str = "triangle_list", state: RenderState | None = None,
                 targets: int = 1, depth: tuple[str, bool] | None = None, state_values=None,
                 viewport_size: tuple[float, float] = (1.0, 1.0)):
        """(render pipeline, bind group layouts, vs reflection, ps reflection)
        for a VS+PS pair; ``depth``: (compare, writes) against a depth
        attachment (None: none, unless the PS writes the depth: then
        ("always", True))."""
        wgpu = self.wgpu
        state = state or RenderState()
        vs_code, vs_refl = _shader(vs)
        ps_code, ps_refl = _shader(ps)
        # alpha test, clip planes: WebGPU has neither, the translations must do them (wgpu_state)
        check_in_shader(state, vs_refl, ps_refl, state_values)
        mode = _primitive(primitive)
        flip_y = bool(ps_refl.get("options", {}).get("flip_y", True))
        # points with a size or sprites: quads, six vertices an instance (wgpu_state.point_quads)
        quads = needs_quads(mode, state, vs_refl)
        vs_entry, vs_constants = vs_refl.get("entry_point", "main"), overrides(vs_refl, state_values)
        if quads:
            vs_code, extra = point_quads(vs_code, vs_refl, state, flip_y, viewport_size)
            vs_entry, vs_constants = QUAD_ENTRY, {**vs_constants, **extra}
        if self.remap_varyings:
            vs_code, ps_code = _remap_varyings(vs_code, ps_code,
                                               self.device.limits["max-inter-stage-shader-variables"])
        if state.shade_mode == "flat":
            vs_code = _flat_colours(vs_code, vs_refl, "outputs")
            ps_code = _flat_colours(ps_code, ps_refl, "inputs")
        front = (ps_refl.get("front_face") or {}).get("webgpu") or ("cw" if flip_y else "ccw")
        cull = "none" if state.cull == "none" else ("front" if state.cull == "cw" else "back")
        layouts = [self.device.create_bind_group_layout(entries=self._entries(vs_refl, wgpu.ShaderStage.VERTEX)),
                   self.device.create_bind_group_layout(entries=self._entries(ps_refl, wgpu.ShaderStage.FRAGMENT))]
        buffers = []
        for inp in vs_refl["inputs"]:
            if inp.get("location") is None or inp.get("builtin"):
                continue
            buffers.append({"array_stride": 16, "step_mode": "instance" if quads else "vertex",
                            "attributes": [{"format": "float32x4", "offset": 0, "shader_location": inp["location"]}]})
        written = {o["usage_index"] for o in ps_refl["outputs"] if o["usage"] == "color"} or {0}
        colour_targets = [{"format": FORMAT, "write_mask": wgpu.ColorWrite.ALL if i in written else 0}
                          for i in range(targets)]
        # a PS writing frag_depth needs a depth attachment: tested "always", written
        if depth is None and writes_depth(ps_refl):
            depth = ("always", True)
        depth = {"depth_stencil": {"format": "depth32float", "depth_write_enabled": depth[1],
                                   "depth_compare": depth[0].replace("_", "-")}} if depth else {}
        pipe = self.device.create_render_pipeline(**depth,
            layout=self.device.create_pipeline_layout(bind_group_layouts=layouts),
            vertex={"module": self.module(vs_code), "entry_point": vs_entry,
                    "buffers": buffers, "constants": vs_constants},
            primitive={"topology": "triangle-list" if quads else _TOPOLOGY[mode], "front_face": front,
                       "cull_mode": "none" if quads else cull},
            fragment={"module": self.module(ps_code), "entry_point": ps_refl.get("entry_point", "main"),
                      "targets": colour_targets, "constants": overrides(ps_refl, state_values)})
        return pipe, layouts, vs_refl, ps_refl

    # -- per-draw data ------------------------------------------------------

    @staticmethod
    def _uniform_blocks(refl: dict, consts: ReferenceConstants, stages: Mapping[int, TextureStage],
                        viewport_value) -> dict[int, bytes]:
        """binding -> the buffer's bytes (raw register files, 16 bytes a register)."""
        return uniform_blocks(refl, consts, stages, viewport_value, BINDING_VIEWPORT, BINDING_DRAW_STATE)

    def _sampler(self, s: SamplerState, levels: int, compare: bool = False, kind: str = "2d", white: bool = False):
        """The sampler of a D3D9 sampler state (wgpu_address: border colours,
        mirror once); ``white``: the opaque-white border twin of an emulated
        border colour."""
        if s.mip_lod_bias:
            raise NotImplementedError("WebGPU samplers have no LOD bias (D3DSAMP_MIPMAPLODBIAS)")
        lin = lambda f: "linear" if f in ("linear", "anisotropic") else "nearest"  # noqa: E731
        no_mip = s.mip_filter == "none"
        how = plan(s, kind, self.border)
        if compare and how.edits_shader:
            raise NotImplementedError("a depth compare with an emulated border colour or mirror once")
        return create_sampler(
            self.device, how, OPAQUE_WHITE if white else None,
            mag_filter=lin(s.mag_filter), min_filter=lin(s.min_filter), mipmap_filter=lin(s.mip_filter),
            # MIP none: the base level only (0.25 keeps the min/mag decision, as Vulkan's spec advises)
            lod_min_clamp=0.0, lod_max_clamp=0.25 if no_mip else float(levels),
            **({"compare": "less-equal"} if compare else {}))

    def _emulated(self, t, textures: Mapping[int, Texture] | None):
        """(code, reflection), the lookups through samplers WebGPU cannot bind as they are rewritten."""
        return for_textures(*_shader(t), textures or {}, self.border, self.address_counts)

    def _texture(self, tex: Texture, kind: str):
        """(view, sampler) of a texture for a sampler of ``kind``."""
        wgpu = self.wgpu
        if getattr(tex, "format", "rgba") != "rgba":
            return self._depth_texture(tex), self._sampler(tex.sampler, 1, compare=True)
        if tex.kind != kind and not (kind == "2d" and tex.kind == "1d"):
            raise ValueError(f"sampler is {kind}, texture is {tex.kind}")
        levels = [np.ascontiguousarray(a, F32) for a in tex.levels]
        if tex.kind == "1d":
            levels = [a.reshape(1, -1, 4) if a.ndim == 2 else a for a in levels]
        first = levels[0]
        if tex.kind == "volume":
            d, h, w = first.shape[:3]
            dimension = "3d"
        elif tex.kind == "cube":
            d, (h, w) = 6, first.shape[1:3]
            dimension = "2d"
        else:
            d, (h, w) = 1, first.shape[-3:-1]
            dimension = "2d"
        texture = self.device.create_texture(
            size=(w, h, d), format=FORMAT, dimension=dimension, mip_level_count=len(levels),
            usage=wgpu.TextureUsage.TEXTURE_BINDING | wgpu.TextureUsage.COPY_DST)
        for k, a in enumerate(levels):
            lw, lh = a.shape[-2], a.shape[-3]
            ld = a.shape[0] if a.ndim == 4 else 1
            self.device.queue.write_texture({"texture": texture, "mip_level": k}, a.tobytes(),
                                            {"bytes_per_row": lw * 16, "rows_per_image": lh}, (lw, lh, ld))
        base = min(int(tex.sampler.max_mip_level), len(levels) - 1)
        view = texture.create_view(dimension=_VIEW[tex.kind], base_mip_level=base,
                                   mip_level_count=len(levels) - base)
        return view, self._sampler(tex.sampler, len(levels) - base, kind=tex.kind)

    def _depth_texture(self, tex: Texture):
        """A depth32float view holding the texture's red channel quantised to
        its format (as the reference stores it), written by a draw (WebGPU
        copies into no depth32float texture): base level only."""
        from .textures import DEPTH_STEPS

        wgpu = self.wgpu
        steps = F32(DEPTH_STEPS[tex.format])
        red = np.ascontiguousarray(np.round(np.clip(np.asarray(tex.levels[0], F32)[..., 0], 0, 1) * steps) / steps,
                                   F32)
        h, w = red.shape
        src = self.device.create_texture(size=(w, h, 1), format="r32float",
                                         usage=wgpu.TextureUsage.TEXTURE_BINDING | wgpu.TextureUsage.COPY_DST)
        self.device.queue.write_texture({"texture": src}, red.tobytes(), {"bytes_per_row": w * 4, "rows_per_image": h},
                                        (w, h, 1))
        usage = wgpu.TextureUsage.RENDER_ATTACHMENT | wgpu.TextureUsage.TEXTURE_BINDING
        depth = self.device.create_texture(size=(w, h, 1), format="depth32float", usage=usage)
        module = self.module(_DEPTH_WRITER)
        pipe = self.device.create_render_pipeline(
            layout="auto", vertex={"module": module, "entry_point": "vs"},
            fragment={"module": module, "entry_point": "fs", "targets": []},
            primitive={"topology": "triangle-list"},
            depth_stencil={"format": "depth32float", "depth_write_enabled": True, "depth_compare": "always"})
        group = self.device.create_bind_group(layout=pipe.get_bind_group_layout(0),
                                              entries=[{"binding": 0, "resource": src.create_view()}])
        enc = self.device.create_command_encoder()
        rp = enc.begin_render_pass(color_attachments=[], depth_stencil_attachment={
            "view": depth.create_view(), "depth_clear_value": 0.0, "depth_load_op": "clear",
            "depth_store_op": "store"})
        rp.set_pipeline(pipe)
        rp.set_bind_group(0, group)
        rp.draw(3)
        rp.end()
        self.device.queue.submit([enc.finish()])
        return depth.create_view()

    def _bind_group(self, layout, refl: dict, blocks: dict[int, bytes], textures: Mapping[int, Texture]):
        wgpu = self.wgpu
        entries = []
        for binding, data in sorted(blocks.items()):
            data = data + b"\0" * (-len(data) % 16 or (16 if not data else 0))
            buf = self.device.create_buffer_with_data(data=data, usage=wgpu.BufferUsage.UNIFORM)
            entries.append({"binding": binding, "resource": {"buffer": buf, "offset": 0, "size": len(data)}})
        for s in refl.get("samplers", ()):
            tex = textures.get(s["register"])
            if tex is None or (getattr(tex, "format", "rgba") != "rgba" and not s.get("compare")):
                # unbound; or a depth texture on a sampler the shader declares and never
                # samples (WebGPU binds depth only where a depth texture is declared)
                tex = unbound_texture(s["type"])
            view, sampler = self._texture(tex, s["type"])
            entries.append({"binding": s["binding"], "resource": view})
            entries.append({"binding": s["sampler_binding"], "resource": sampler})
            if "white_sampler_binding" in s:  # an emulated border colour's twin (wgpu_address)
                levels = len(tex.levels) - min(int(tex.sampler.max_mip_level), len(tex.levels) - 1)
                entries.append({"binding": s["white_sampler_binding"],
                                "resource": self._sampler(tex.sampler, levels, kind=tex.kind, white=True)})
        return self.device.create_bind_group(layout=layout, entries=entries)

    def _vertex_buffers(self, vs_refl: dict, vertices: Mapping[Any, Any], mode: str, count: int | None):
        """(buffers in the pipeline's order, vertex count); inputs without
        data read (0, 0, 0, 1), as D3D9's and GL's default attribute."""
        wgpu = self.wgpu
        data = {usage_key(k): np.asarray(v, F32) for k, v in vertices.items()}
        counts = {len(v) for v in data.values()}
        if len(counts) > 1:
            raise ValueError(f"vertex attributes of different lengths: {sorted(counts)}")
        n = counts.pop() if counts else 0
        if count is not None and mode != "TRIANGLE_FAN":
            n = count  # (attributes shorter than the draw read the default value)
        order = np.arange(n)
        if mode == "TRIANGLE_FAN":  # WebGPU has no fans: the same triangles as a list
            order = np.array([i for k in range(1, n - 1) for i in (0, k, k + 1)], dtype=int)
        out = []
        for inp in vs_refl["inputs"]:
            if inp.get("location") is None or inp.get("builtin"):
                continue
            v = data.get((inp["usage"], inp["usage_index"]))
            full = np.tile(np.asarray(UNBOUND, F32), (max(n, 1), 1))
            if v is not None:
                if v.ndim == 1:
                    v = v[:, None]
                if v.shape[1] > 4:
                    raise ValueError(f"{inp['usage']}{inp['usage_index']}: more than 4 components")
                k = min(n, len(v))
                full[:k, :v.shape[1]] = v[:k]
            full = np.ascontiguousarray(full[order] if n else full)
            out.append(self.device.create_buffer_with_data(data=full.tobytes(), usage=wgpu.BufferUsage.VERTEX))
        return out, len(order)

    # -- draws --------------------------------------------------------------

    def draw(self, vs, ps, draw: Draw, targets: RenderTargets | None = None, read: bool = True,
             depth: tuple[str, bool] | None = None) -> DrawResult:
        """``depth``: (compare op, e.g. "always" / "greater", depth writes)
        against ``targets`` made with ``depth=True`` (None: no depth test)."""
        if depth is not None and (targets is None or targets.depth is None):
            raise ValueError("a depth test needs RenderTargets(..., depth=True)")
        if vs is None:
            vs = passthrough_vs(_shader(ps)[1])
        vs, ps = self._emulated(vs, draw.vs_textures), self._emulated(ps, draw.textures)
        mode = _primitive(draw.primitive)
        fresh = targets is None
        if fresh:
            targets = RenderTargets(draw.size[0], draw.size[1], draw.targets)
        if depth is None and targets.depth is not None:
            depth = ("always", False)  # the attachment is there: the pipeline must say how it uses it
        width, height = targets.width, targets.height
        vx, vy, vw, vh = draw.viewport or (0, 0, width, height)
        pipe, layouts, vs_refl, ps_refl = self.pipeline(vs, ps, draw.primitive, draw.state, targets.count, depth,
                                                        getattr(draw, "state_values", None), (vw, vh))
        if draw.clear is not None or fresh:
            targets.clear(draw.clear)
        flip_y = bool(ps_refl.get("options", {}).get("flip_y", True))
        vp_value = (1.0 / vw, 1.0 / vh, float(height), 0.0)
        vs_consts = draw.vs_constants if draw.vs_constants is not None else draw.constants
        groups = [self._bind_group(layouts[0], vs_refl, self._uniform_blocks(vs_refl, vs_consts, {}, vp_value),
                                   draw.vs_textures),
                  self._bind_group(layouts[1], ps_refl,
                                   self._uniform_blocks(ps_refl, draw.constants, draw.texture_stages, vp_value),
                                   draw.textures)]
        buffers, n = self._vertex_buffers(vs_refl, draw.vertices, mode, draw.count)
        # flip_y on: the framebuffer (y down) is the D3D image, D3D's viewport as is; off: upside down
        y = vy if flip_y else height - vy - vh
        enc = self.device.create_command_encoder()
        depth = {}
        if targets.depth is not None:
            depth = {"depth_stencil_attachment": {"view": targets.depth, "depth_load_op": "load",
                                                  "depth_store_op": "store"}}
        elif writes_depth(ps_refl):
            view = self.device.create_texture(size=(width, height, 1), format="depth32float",
                                              usage=self.wgpu.TextureUsage.RENDER_ATTACHMENT).create_view()
            depth = {"depth_stencil_attachment": {"view": view, "depth_clear_value": 1.0, "depth_load_op": "clear",
                                                  "depth_store_op": "discard"}}
        rp = enc.begin_render_pass(color_attachments=[
            {"view": v, "load_op": "load", "store_op": "store"} for v in targets.views], **depth)
        rp.set_pipeline(pipe)
        rp.set_viewport(float(vx), float(y), float(vw), float(vh), 0.0, 1.0)
        for k, g in enumerate(groups):
            rp.set_bind_group(k, g)
        for k, b in enumerate(buffers):
            rp.set_vertex_buffer(k, b)
        if n and needs_quads(mode, draw.state or RenderState(), vs_refl):
            rp.draw(QUAD_VERTICES, n)  # a quad an instance
        elif n:
            rp.draw(n)
        rp.end()
        self.device.queue.submit([enc.finish()])
        colors = [targets.read(i) for i in range(targets.count)] if read else []
        return DrawResult(colors, targets)


# Writes an r32float texture's texels into a depth attachment of its size.
_DEPTH_WRITER = """@group(0) @binding(0) var src: texture_2d<f32>;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let p = vec2<f32>(f32(i & 1u) * 4.0 - 1.0, f32(i >> 1u) * 4.0 - 1.0);
    return vec4<f32>(p, 0.0, 1.0);
}
@fragment fn fs(@builtin(position) p: vec4<f32>) -> @builtin(frag_depth) f32 {
    return textureLoad(src, vec2<i32>(p.xy), 0).r;
}
"""


def overrides(refl: dict, values) -> dict:
    """The pipeline-overridable constants of a dynamic draw-state
    translation (the reflection's state parameters of form "override"), from
    ``values`` (a DrawState or dict; None: D3D's defaults): {id: value}."""
    from .gl import state_parameters, state_values

    params = [p for p in state_parameters(refl) if p.get("form") == "override"]
    if not params:
        return {}
    state = state_values(values)
    return {str(p["override_id"]): float(state.param_value(p["key"])) for p in params}


def writes_depth(ps_refl: dict) -> bool:
    return any(o.get("builtin") == "frag_depth" for o in ps_refl["outputs"])


def passthrough_vs(ps_refl: dict) -> tuple[str, dict]:
    """A WGSL VS feeding a PS from vertex attributes (as ``gl.passthrough_vs``
    and ``vk.passthrough_vs``): ("position", 0) at location 0 in D3D clip
    space, moved by the io pass's fix-ups as the PS's options say (the
    half-pixel shift through the viewport buffer at group 0 binding 3,
    clip z, the Vulkan y flip), then y negated for WebGPU as the WGSL
    backend does; each PS input from the attribute of its (usage, index),
    at the PS's location and centroid qualifier."""
    from ..passes.io import HALF_PIXEL_BIAS

    opts = ps_refl.get("options", {})
    attrs = {("position", 0): 0}
    inputs = [{"usage": "position", "usage_index": 0, "register": 0, "glsl": "a0", "location": 0}]
    members, outs, body = ["    @location(0) a0: vec4<f32>,"], ["    @builtin(position) xl_p: vec4<f32>,"], []
    for inp in ps_refl["inputs"]:
        if inp.get("builtin") or inp.get("location") is None:
            continue
        key = (inp["usage"], inp["usage_index"])
        if key not in attrs:
            attrs[key] = k = len(attrs)
            members.append(f"    @location({k}) a{k}: vec4<f32>,")
            inputs.append({"usage": key[0], "usage_index": key[1], "register": k, "glsl": f"a{k}", "location": k})
        interp = " @interpolate(perspective, centroid)" if inp.get("centroid") else ""
        outs.append(f"    @location({inp['location']}){interp} v{inp['location']}: vec4<f32>,")
        body.append(f"    o.v{inp['location']} = i.a{attrs[key]};")
    body.append("    var p = i.a0;")
    viewport = None
    head = []
    if opts.get("half_pixel", True):
        k = repr(float(opts.get("half_pixel_scale", HALF_PIXEL_BIAS)))
        head = ["struct XlViewport { v: vec4<f32> }",
                f"@group({GROUP_VERTEX}) @binding({BINDING_VIEWPORT}) var<uniform> xl_viewport: XlViewport;"]
        body.append(f"    p.x += p.w * {k} * xl_viewport.v.x;\n    p.y -= p.w * {k} * xl_viewport.v.y;")
        viewport = {"glsl": "xl_viewport", "set": GROUP_VERTEX, "group": GROUP_VERTEX, "binding": BINDING_VIEWPORT,
                    "offset": 0}
    if opts.get("clip_z", False):
        body.append("    p.z = p.z * 2.0 - p.w;")
    if opts.get("flip_y", True):
        body.append("    p.y = -p.y;")
    body.append("    o.xl_p = vec4<f32>(p.x, -p.y, p.z, p.w);  // WebGPU's NDC y points up")
    code = "\n".join([*head, "struct XlIn {", *members, "}", "struct XlOut {", *outs, "}", "@vertex",
                      "fn main(i: XlIn) -> XlOut {", "    var o: XlOut;", *body, "    return o;", "}", ""])
    return code, {"stage": "vertex", "target": "wgsl", "inputs": inputs, "outputs": [], "constants": [],
                  "samplers": [], "viewport": viewport, "options": dict(opts), "entry_point": "main"}


PROBE_LOCATION = 4  # differential.PROBE_LOCATION: after D3D9's four colour outputs


def probe_shader(code: str, refl: dict) -> tuple[str, dict, bool]:
    """``differential._probe_shader`` for WGSL: the entry point also writes
    ``vec4(1, frag depth, 0, 0)`` to a colour output at PROBE_LOCATION, which
    a discarded pixel leaves at its clear value."""
    if "struct XlOut {\n" in code and "    return xl_out;\n}" in code:
        depth = "xl_frag_depth" if any(o.get("builtin") == "frag_depth" for o in refl["outputs"]) else "0.0"
        member = f"    @location({PROBE_LOCATION}) xl_probe: vec4<f32>,\n"
        code = code.replace("struct XlOut {\n", "struct XlOut {\n" + member, 1)
        code = code.replace("    return xl_out;\n}",
                            f"    xl_out.xl_probe = vec4<f32>(1.0, {depth}, 0.0, 0.0);\n    return xl_out;\n}}", 1)
    else:  # a PS without outputs: the probe is its only one
        entry = re.search(r"^fn main\((.*)\) \{\n(.*?)    xl_main\(\);\n\}", code, re.M | re.S)
        if entry is None:
            return code, refl, False
        code = (code[:entry.start()] + f"fn main({entry.group(1)}) -> @location({PROBE_LOCATION}) vec4<f32> {{\n"
                + entry.group(2) + "    xl_main();\n    return vec4<f32>(1.0, 0.0, 0.0, 0.0);\n}" + code[entry.end():])
    outputs = list(refl["outputs"]) + [{"usage": "color", "usage_index": PROBE_LOCATION, "register": PROBE_LOCATION,
                                        "mask": "xyzw", "glsl": "xl_probe", "location": PROBE_LOCATION}]
    return code, dict(refl, outputs=outputs), True


WGPURunner.probe_shader = staticmethod(probe_shader)


_COPY_IN = re.compile(r"^    (\w+) = xl_in\.(\w+);$", re.M)
CAPTURE_COLUMNS = 8  # outputs per capture pass (colour attachments)


def _capture_sources(code: str, refl: dict, width: int) -> tuple[str, list[tuple[str, str]]]:
    """The VS module with an ``xl_capture`` entry point, and the captured
    fields: (name in the result, WGSL value as vec4<f32>)."""
    fields = []
    for o in refl["outputs"]:
        if o.get("builtin") == "position":
            fields.append(("gl_Position", "xl_position"))
        elif o.get("builtin") is None and o["glsl"] == "xl_point_size":
            fields.append(("xl_point_size", "vec4<f32>(xl_point_size, 0.0, 0.0, 0.0)"))
        elif o.get("builtin") is None:
            fields.append((o["glsl"], o["glsl"]))
    copies = "".join(f"    {var} = xl_in.{member};\n" for var, member in _COPY_IN.findall(code))
    members = "".join(f"    @location({k}) @interpolate(flat) xl_c{k}: vec4<f32>,\n" for k in range(len(fields)))
    stores = "".join(f"    xl_c.xl_c{k} = {value};\n" for k, (_, value) in enumerate(fields))
    param = "xl_in: XlIn, " if "struct XlIn {" in code else ""
    capture = (f"\nstruct XlCapture {{\n    @builtin(position) xl_cpos: vec4<f32>,\n{members}}}\n\n"
               f"@vertex\nfn xl_capture({param}@builtin(vertex_index) xl_vi: u32) -> XlCapture {{\n{copies}"
               f"    xl_main();\n    var xl_c: XlCapture;\n"
               f"    xl_c.xl_cpos = vec4<f32>((2.0 * f32(xl_vi) + 1.0) / {float(width)!r} - 1.0, 0.0, 0.5, 1.0);\n"
               f"{stores}    return xl_c;\n}}\n")
    return code + capture, fields


def _capture_fragment(columns: range) -> str:
    ins = "".join(f"    @location({k}) @interpolate(flat) xl_c{k}: vec4<f32>,\n" for k in columns)
    outs = "".join(f"    @location({j}) o{j}: vec4<f32>,\n" for j in range(len(columns)))
    stores = "".join(f"    o.o{j} = c.xl_c{k};\n" for j, k in enumerate(columns))
    return (f"struct In {{\n{ins}}}\nstruct Out {{\n{outs}}}\n@fragment\nfn main(c: In) -> Out {{\n"
            f"    var o: Out;\n{stores}    return o;\n}}\n")


def _run_vertex(self: "WGPURunner", vs, vertices: Mapping[Any, Any], constants: ReferenceConstants | None = None,
                textures: Mapping[int, Texture] | None = None, count: int | None = None) -> VertexResult:
    wgpu = self.wgpu
    code, refl = self._emulated(vs, textures)
    if refl.get("stage", "vertex") != "vertex":
        raise ValueError(f"run_vertex needs a vertex shader, not a {refl.get('stage')} shader")
    data = {usage_key(k): np.asarray(v, F32) for k, v in vertices.items()}
    n = count if count is not None else (len(next(iter(data.values()))) if data else 0)
    width = max(n, 1)
    vs_code, fields = _capture_sources(code, refl, width)
    module = self.module(vs_code)
    layouts = [self.device.create_bind_group_layout(entries=self._entries(refl, wgpu.ShaderStage.VERTEX)),
               self.device.create_bind_group_layout(entries=[])]
    pipeline_layout = self.device.create_pipeline_layout(bind_group_layouts=layouts)
    buffers_layout = [{"array_stride": 16, "step_mode": "vertex",
                       "attributes": [{"format": "float32x4", "offset": 0, "shader_location": i["location"]}]}
                      for i in refl["inputs"] if i.get("location") is not None and not i.get("builtin")]
    groups = [self._bind_group(layouts[0], refl, self._uniform_blocks(refl, constants or ReferenceConstants(), {},
                                                                       (0.0, 0.0, 0.0, 0.0)), textures or {}),
              self.device.create_bind_group(layout=layouts[1], entries=[])]
    buffers, n = self._vertex_buffers(refl, vertices, "POINTS", n)
    raw = np.zeros((width, 4 * len(fields)), F32)
    for start in range(0, len(fields), CAPTURE_COLUMNS):
        columns = range(start, min(start + CAPTURE_COLUMNS, len(fields)))
        targets = RenderTargets(width, 1, len(columns))
        pipe = self.device.create_render_pipeline(
            layout=pipeline_layout,
            vertex={"module": module, "entry_point": "xl_capture", "buffers": buffers_layout},
            primitive={"topology": "point-list"},
            fragment={"module": self.module(_capture_fragment(columns)), "entry_point": "main",
                      "targets": [{"format": FORMAT} for _ in columns]})
        targets.clear()
        enc = self.device.create_command_encoder()
        rp = enc.begin_render_pass(color_attachments=[
            {"view": v, "load_op": "load", "store_op": "store"} for v in targets.views])
        rp.set_pipeline(pipe)
        for k, g in enumerate(groups):
            rp.set_bind_group(k, g)
        for k, b in enumerate(buffers):
            rp.set_vertex_buffer(k, b)
        if n:
            rp.draw(n)
        rp.end()
        self.device.queue.submit([enc.finish()])
        for j, k in enumerate(columns):
            raw[:, 4 * k:4 * k + 4] = targets.read(j)[0]
        targets.release()
    # the position by its GLSL name, which captured_vertices turns into D3D clip space
    names = {f[0] for f in fields}
    outputs = []
    for o in refl["outputs"]:
        if o.get("builtin") == "position":
            o = dict(o, glsl="gl_Position")
        if o["glsl"] in names:
            outputs.append(o)
    return captured_vertices(raw[:n], [(name, 4) for name, _ in fields], dict(refl, outputs=outputs))


WGPURunner.run_vertex = _run_vertex


@functools.lru_cache(maxsize=1)
def runner() -> WGPURunner:
    """The process's runner (raises ``WGPUUnavailable`` with the reason when there is no WebGPU)."""
    return WGPURunner()
