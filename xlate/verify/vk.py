"""Run translated shaders on Vulkan (the pip ``vulkan`` cffi bindings; Mesa
lavapipe headless).  The SPIR-V counterpart of ``xlate.verify.gl``.

Needs the Debian packages ``mesa-vulkan-drivers libvulkan1`` (lavapipe and
the loader) and the pip package ``vulkan``.  One instance and device per
process, created on first use (``device()``); ``VulkanUnavailable`` (with
the reason) when the bindings, ``libvulkan.so.1`` or a device are missing,
so tests can skip.  ``XLATE_VK_VALIDATION=1`` enables
VK_LAYER_KHRONOS_validation (Debian ``vulkan-validationlayers``) when it is
installed; its errors (pipeline creation included) are collected and make
``draw`` and ``run_vertex`` raise.

Everything is bound ONLY through the translations' reflection
(docs/reflection.md, "Vulkan"): set 0 = vertex stage, set 1 = fragment
stage; binding 0 float block, 1 int block, 2 bool block (raw register files,
16 bytes a register), 3 viewport block, 4 + s# combined image samplers,
20 the ps_1_x draw-state block; vertex attributes by the reflection's
locations; varyings link by location.

API (mirrors ``gl.py``)
-----------------------
``runner()`` -> the process's ``VKRunner``.

``VKRunner.draw(vs, ps, draw, targets=None, read=True) -> DrawResult``
    ``vs``/``ps``: translations for target ``"spirv"`` (``.code`` bytes),
    or for ``"vulkan"`` (GLSL text, compiled here with glslang; the render
    state that needs shader code, below, requires this form), or
    ``(code, reflection)`` pairs.  ``vs=None`` draws the PS with a
    pass-through VS written from the PS reflection (as ``gl.passthrough_vs``).
    ``draw`` is ``gl.Draw`` (the same dataclass drives both runners);
    ``DrawResult.colors[i]`` is render target i, (height, width, 4) float32,
    row 0 = top (D3D order), whatever ``flip_y`` was.
``VKRunner.run_vertex(vs, vertices, constants=None, textures=None, count=None) -> VertexResult``
    a vertex shader alone, as ``GLRunner.run_vertex`` (the same arguments
    and ``gl.VertexResult``: ``outputs`` by GLSL name, gl_Position as
    Vulkan sees it, gl_PointSize in x; ``semantics``; ``position`` in D3D
    clip space, flip_y and clip_z undone), through VK_EXT_transform_feedback:
    a vertex-only pipeline, point list, one invocation per vertex,
    rasterizerDiscardEnable, the viewport block left at 0 (no half-pixel
    offset).  ``vertices`` {(usage, index): (n, k)} (missing inputs read
    (0, 0, 0, 1)), ``constants`` a ``ReferenceConstants``, ``textures``
    {s#: Texture}, ``count`` the vertices to run (None: the attributes'
    length).  ``vs``: a ``"vulkan"`` or ``"spirv"`` translation (SPIR-V
    with its names: ``spirv_xfb`` edits the words the same way), or (code,
    reflection).  For GLSL the runner adds ``xfb_buffer``/
    ``xfb_stride``/``xfb_offset`` qualifiers to the output declarations and
    a ``gl_PerVertex`` redeclaration, plus ``gl_PointSize = 1.0`` after main
    when the shader does not write it (a point list needs it), and moves
    outputs at locations past the device's limit (where a layer's
    ``varying_locations`` map may put them) to free ones; the shader's own code is
    unchanged.  The extension and its ``transformFeedback``
    feature are enabled at device creation when the device has them
    (lavapipe does); otherwise ``run_vertex`` raises ``VulkanUnavailable``
    with the reason (``device().transform_feedback``).
``RenderTargets(width, height, count, depth=False)``: R32G32B32A32_SFLOAT
    images that persist across draws: ``clear(colours)``, ``read(i, rect)``,
    ``release()``; ``depth=True`` adds a D32_SFLOAT image (``clear_depth(z)``)
    that ``draw(..., depth=(compare op, writes))`` tests against, e.g.
    ("greater", False).

Render state: cull mode and front face, viewport, topology (lists, strips,
fans, points, lines), MRT with write masks for the outputs a PS writes.
Alpha test, user clip planes, point size state and point sprites need
code in the shader.  Translations that carry them (translated with
``draw_state=shader_state.shader_draw_state(state, stage, points=...)``,
baked or dynamic with the draw's ``state_values``: xlate's own passes) draw
as they are, SPIR-V or GLSL; around ``"vulkan"`` GLSL that does not carry
them the runner writes that code itself (as ``gl.py``); a SPIR-V module
that does not carry a state its draw asks for raises ``NotImplementedError``.  Flat shading works for both: ``flat`` on the GLSL's colour
varyings, or a ``Flat`` decoration on the SPIR-V PS's colour inputs
(``spirv_edit.flat_colours``; found by OpName, so a module without names is refused).

Textures are ``xlate.verify.textures.Texture`` (2D, 1D as 2D, cube, volume;
float RGBA levels) with their ``SamplerState``: point/linear MAG and MIN,
MIP none (maxLod 0.25)/point/linear, wrap/mirror/clamp/border/mirroronce
(VK_KHR_sampler_mirror_clamp_to_edge), any border colour
(VK_EXT_custom_border_color), MIPMAPLODBIAS, MAXMIPLEVEL (the view's base
level).  An unbound sampler reads a 1x1 (0, 0, 0, 1) texture, as D3D9.

Modules: ``vk_device`` (instance, device, buffers, images, ``RenderTargets``),
``vk_shaders`` (SPIR-V or GLSL shaders, the pass-through VS, the code written
around GLSL, the transform-feedback capture) and this one (pipelines, draws,
``run_vertex``); the public names are all importable from here.
"""

from __future__ import annotations

import struct
from dataclasses import replace
from typing import Any, Mapping

import numpy as np

from .draws import Draw, DrawResult, RenderState, VertexResult, usage_key
from .gl import _primitive, captured_vertices
from .gl_source import _alpha_test, _flat_colours, _point_sprite
from .reference import ReferenceConstants
from .reference_sm1 import TextureStage
from .shader_state import ALPHA_TEST, CLIP_PLANES, POINT_SIZE, POINT_SPRITES, states_in_shader
from .textures import UNBOUND, SamplerState, Texture, unbound_texture
from .uniforms import uniform_blocks
from .vk_device import F32, RenderTargets, VulkanUnavailable, _Buffer, _DepthTexture, _Device, _Image, device
from .vk_shaders import (BINDING_DRAW_STATE, BINDING_RENDER_STATE, BINDING_SAMPLER0, BINDING_VIEWPORT, SET_FRAGMENT,
                         SET_VERTEX, _needs_wrappers, _render_state_block, _Shader, _vs_render_state, _xfb_capture,
                         passthrough_vs)

__all__ = ["VulkanUnavailable", "VKRunner", "RenderTargets", "Draw", "DrawResult", "RenderState", "VertexResult",
           "device", "runner", "passthrough_vs"]


# --------------------------------------------------------------------------
# The runner
# --------------------------------------------------------------------------

_TOPOLOGY = {"TRIANGLES": "VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST",
             "TRIANGLE_STRIP": "VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP",
             "TRIANGLE_FAN": "VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN", "POINTS": "VK_PRIMITIVE_TOPOLOGY_POINT_LIST",
             "LINES": "VK_PRIMITIVE_TOPOLOGY_LINE_LIST", "LINE_STRIP": "VK_PRIMITIVE_TOPOLOGY_LINE_STRIP"}
_VERTEX_FORMATS = {1: "VK_FORMAT_R32_SFLOAT", 2: "VK_FORMAT_R32G32_SFLOAT", 3: "VK_FORMAT_R32G32B32_SFLOAT",
                   4: "VK_FORMAT_R32G32B32A32_SFLOAT"}
_ADDRESS = {"wrap": "VK_SAMPLER_ADDRESS_MODE_REPEAT", "mirror": "VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT",
            "clamp": "VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE", "border": "VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER",
            "mirroronce": "VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE"}
_STANDARD_BORDERS = {(0.0, 0.0, 0.0, 0.0): "VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK",
                     (0.0, 0.0, 0.0, 1.0): "VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK",
                     (1.0, 1.0, 1.0, 1.0): "VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE"}

def _vertex_input_state(vk, attributes: tuple):
    """One binding per attribute ((location, component count), ...), tightly packed floats."""
    vbind = [vk.VkVertexInputBindingDescription(binding=i, stride=4 * k, inputRate=vk.VK_VERTEX_INPUT_RATE_VERTEX)
             for i, (_, k) in enumerate(attributes)]
    vattr = [vk.VkVertexInputAttributeDescription(location=loc, binding=i,
                                                  format=getattr(vk, _VERTEX_FORMATS[k or 4]), offset=0)
             for i, (loc, k) in enumerate(attributes)]
    return vk.VkPipelineVertexInputStateCreateInfo(
        vertexBindingDescriptionCount=len(vbind), pVertexBindingDescriptions=vbind or None,
        vertexAttributeDescriptionCount=len(vattr), pVertexAttributeDescriptions=vattr or None)


class _DrawResources:
    """Objects made for one draw, destroyed after it."""

    def __init__(self, dev: _Device):
        self.dev = dev
        self.buffers: list[_Buffer] = []
        self.images: list[_Image] = []
        self.views: list = []
        self.samplers: list = []
        self.pool = None

    def release(self):
        vk, d = self.dev.vk, self.dev.device
        if self.pool is not None:
            vk.vkDestroyDescriptorPool(d, self.pool, None)
        for s in self.samplers:
            vk.vkDestroySampler(d, s, None)
        for v in self.views:
            vk.vkDestroyImageView(d, v, None)
        for i in self.images:
            i.release()
        for b in self.buffers:
            b.release()


class VKRunner:
    """Builds pipelines from translations and draws with them (see the module
    docstring).  Shader modules, set layouts, render passes and pipelines
    are cached."""

    def __init__(self):
        self.dev = device()
        self.vk = self.dev.vk
        self.modules: dict[bytes, Any] = {}
        self.spirv: dict[tuple[str, str], bytes] = {}
        self.set_layouts: dict[tuple, Any] = {}
        self.pipeline_layouts: dict[tuple, Any] = {}
        self.render_passes: dict[tuple[int, bool], Any] = {}
        self.pipelines: dict[tuple, Any] = {}
        self.capture_pass: tuple | None = None  # (render pass, framebuffer) of run_vertex

    def drop_pipelines(self) -> int:
        """Destroy the cached pipelines and shader modules (draws wait for
        their work, so none is in use); returns how many pipelines went.  A
        long run of one-off shaders (generated programs) calls it: lavapipe
        slows down as thousands of pipelines stay alive."""
        vk, device = self.vk, self.dev.device
        count = len(self.pipelines)
        for pipe in self.pipelines.values():
            vk.vkDestroyPipeline(device, pipe, None)
        for mod in self.modules.values():
            vk.vkDestroyShaderModule(device, mod, None)
        self.pipelines.clear()
        self.modules.clear()
        return count

    # -- objects ------------------------------------------------------------

    def compile(self, code: str, stage: str, validate: bool = True) -> bytes:
        """Vulkan GLSL -> SPIR-V (glslang, cached); ``validate``: spirv-val it too."""
        from ..backends.spirv import compile_glsl

        key = (code, stage)
        if key not in self.spirv:
            self.spirv[key] = compile_glsl(code, stage, validate=validate)
        return self.spirv[key]

    def module(self, spirv: bytes):
        vk = self.vk
        mod = self.modules.get(spirv)
        if mod is None:
            mod = vk.vkCreateShaderModule(self.dev.device, vk.VkShaderModuleCreateInfo(
                codeSize=len(spirv), pCode=spirv), None)
            self.modules[spirv] = mod
        return mod

    def render_pass(self, count: int, depth: bool = False):
        vk = self.vk
        rp = self.render_passes.get((count, depth))
        if rp is None:
            general = vk.VK_IMAGE_LAYOUT_GENERAL
            attachments = [vk.VkAttachmentDescription(
                format=self.dev.format, samples=vk.VK_SAMPLE_COUNT_1_BIT, loadOp=vk.VK_ATTACHMENT_LOAD_OP_LOAD,
                storeOp=vk.VK_ATTACHMENT_STORE_OP_STORE, stencilLoadOp=vk.VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                stencilStoreOp=vk.VK_ATTACHMENT_STORE_OP_DONT_CARE, initialLayout=general, finalLayout=general)
                for _ in range(count)]
            refs = [vk.VkAttachmentReference(attachment=i, layout=general) for i in range(count)]
            depth_ref = None
            if depth:
                attachments.append(vk.VkAttachmentDescription(
                    format=vk.VK_FORMAT_D32_SFLOAT, samples=vk.VK_SAMPLE_COUNT_1_BIT,
                    loadOp=vk.VK_ATTACHMENT_LOAD_OP_LOAD, storeOp=vk.VK_ATTACHMENT_STORE_OP_STORE,
                    stencilLoadOp=vk.VK_ATTACHMENT_LOAD_OP_DONT_CARE, stencilStoreOp=vk.VK_ATTACHMENT_STORE_OP_DONT_CARE,
                    initialLayout=general, finalLayout=general))
                depth_ref = vk.VkAttachmentReference(attachment=count, layout=general)
            subpass = vk.VkSubpassDescription(pipelineBindPoint=vk.VK_PIPELINE_BIND_POINT_GRAPHICS,
                                              colorAttachmentCount=count, pColorAttachments=refs,
                                              pDepthStencilAttachment=depth_ref)
            rp = vk.vkCreateRenderPass(self.dev.device, vk.VkRenderPassCreateInfo(
                attachmentCount=len(attachments), pAttachments=attachments, subpassCount=1, pSubpasses=[subpass]),
                None)
            self.render_passes[(count, depth)] = rp
        return rp

    @staticmethod
    def _bindings(refl: dict, set_index: int) -> tuple[tuple[int, str], ...]:
        """(binding, "uniform" | "sampler") of one stage, from the reflection."""
        out = {}
        for c in refl.get("constants", ()):
            out[c["binding"]] = "uniform"
        vp = refl.get("viewport")
        if vp:
            out[vp.get("binding", BINDING_VIEWPORT)] = "uniform"
        for u in (refl.get("draw_state") or {}).get("uniforms", ()):
            out[u.get("binding", BINDING_DRAW_STATE)] = "uniform"
        for s in refl.get("samplers", ()):
            out[s.get("binding", BINDING_SAMPLER0 + s["register"])] = "sampler"
        for c in list(refl.get("constants", ())) + list(refl.get("samplers", ())) + ([vp] if vp else []):
            if c.get("set", set_index) != set_index:
                raise ValueError(f"{refl.get('stage')} binding {c} not in set {set_index}")
        if refl.get("xl_render_state"):
            out[BINDING_RENDER_STATE] = "uniform"
        return tuple(sorted(out.items()))

    def set_layout(self, bindings: tuple, stage_bit: int):
        vk = self.vk
        key = (bindings, stage_bit)
        layout = self.set_layouts.get(key)
        if layout is None:
            descs = [vk.VkDescriptorSetLayoutBinding(
                binding=b, descriptorType=(vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER if kind == "uniform"
                                           else vk.VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER),
                descriptorCount=1, stageFlags=stage_bit) for b, kind in bindings]
            layout = vk.vkCreateDescriptorSetLayout(self.dev.device, vk.VkDescriptorSetLayoutCreateInfo(
                bindingCount=len(descs), pBindings=descs or None), None)
            self.set_layouts[key] = layout
        return layout

    def pipeline_layout(self, vs_bindings: tuple, ps_bindings: tuple):
        vk = self.vk
        key = (vs_bindings, ps_bindings)
        pl = self.pipeline_layouts.get(key)
        if pl is None:
            layouts = [self.set_layout(vs_bindings, vk.VK_SHADER_STAGE_VERTEX_BIT),
                       self.set_layout(ps_bindings, vk.VK_SHADER_STAGE_FRAGMENT_BIT)]
            pl = vk.vkCreatePipelineLayout(self.dev.device, vk.VkPipelineLayoutCreateInfo(
                setLayoutCount=2, pSetLayouts=layouts), None)
            self.pipeline_layouts[key] = pl
        return pl

    def pipeline(self, vs_spirv: bytes, ps_spirv: bytes, layout, render_pass, attributes: tuple, topology: str,
                 cull: str, front_face: str, write_masks: tuple[int, ...], depth: tuple[str, bool] | None = None,
                 specialization: tuple = ((), ())):
        """``attributes``: (location, components or 0 for a constant (0, 0, 0, 1)) per VS input;
        ``depth``: (compare op as VK_COMPARE_OP_<name>, depth writes) for a render pass with depth;
        ``specialization``: per stage (vertex, fragment), ((constant_id, type, value), ...) for
        the specialization constants of a dynamic draw-state translation (``_specialization``)."""
        vk = self.vk
        key = (vs_spirv, ps_spirv, layout, render_pass, attributes, topology, cull, front_face, write_masks, depth,
               specialization)
        pipe = self.pipelines.get(key)
        if pipe is not None:
            return pipe
        keep: list = []  # the specialization data, alive until the pipeline is made
        stages = [vk.VkPipelineShaderStageCreateInfo(stage=vk.VK_SHADER_STAGE_VERTEX_BIT,
                                                     module=self.module(vs_spirv), pName="main",
                                                     pSpecializationInfo=_specialization_info(
                                                         vk, specialization[0], keep)),
                  vk.VkPipelineShaderStageCreateInfo(stage=vk.VK_SHADER_STAGE_FRAGMENT_BIT,
                                                     module=self.module(ps_spirv), pName="main",
                                                     pSpecializationInfo=_specialization_info(
                                                         vk, specialization[1], keep))]
        vertex_input = _vertex_input_state(vk, attributes)
        assembly = vk.VkPipelineInputAssemblyStateCreateInfo(topology=getattr(vk, topology),
                                                             primitiveRestartEnable=vk.VK_FALSE)
        viewport = vk.VkPipelineViewportStateCreateInfo(viewportCount=1, scissorCount=1)
        cull_mode = {"none": vk.VK_CULL_MODE_NONE, "front": vk.VK_CULL_MODE_FRONT_BIT,
                     "back": vk.VK_CULL_MODE_BACK_BIT}[cull]
        raster = vk.VkPipelineRasterizationStateCreateInfo(
            depthClampEnable=vk.VK_FALSE, rasterizerDiscardEnable=vk.VK_FALSE, polygonMode=vk.VK_POLYGON_MODE_FILL,
            cullMode=cull_mode, frontFace=getattr(vk, front_face), depthBiasEnable=vk.VK_FALSE, lineWidth=1.0)
        multisample = vk.VkPipelineMultisampleStateCreateInfo(rasterizationSamples=vk.VK_SAMPLE_COUNT_1_BIT)
        blend = vk.VkPipelineColorBlendStateCreateInfo(
            logicOpEnable=vk.VK_FALSE, attachmentCount=len(write_masks),
            pAttachments=[vk.VkPipelineColorBlendAttachmentState(blendEnable=vk.VK_FALSE, colorWriteMask=m)
                          for m in write_masks],
            blendConstants=[0.0, 0.0, 0.0, 0.0])
        dynamic = vk.VkPipelineDynamicStateCreateInfo(
            dynamicStateCount=2, pDynamicStates=[vk.VK_DYNAMIC_STATE_VIEWPORT, vk.VK_DYNAMIC_STATE_SCISSOR])
        info = vk.VkGraphicsPipelineCreateInfo(
            stageCount=2, pStages=stages, pVertexInputState=vertex_input, pInputAssemblyState=assembly,
            pViewportState=viewport, pRasterizationState=raster, pMultisampleState=multisample,
            pColorBlendState=blend, pDynamicState=dynamic, layout=layout, renderPass=render_pass, subpass=0,
            pDepthStencilState=None if depth is None else vk.VkPipelineDepthStencilStateCreateInfo(
                depthTestEnable=vk.VK_TRUE, depthWriteEnable=vk.VK_TRUE if depth[1] else vk.VK_FALSE,
                depthCompareOp=getattr(vk, f"VK_COMPARE_OP_{depth[0].upper()}"), depthBoundsTestEnable=vk.VK_FALSE,
                stencilTestEnable=vk.VK_FALSE, minDepthBounds=0.0, maxDepthBounds=1.0))
        pipe = vk.vkCreateGraphicsPipelines(self.dev.device, None, 1, [info], None)[0]
        self.pipelines[key] = pipe
        return pipe

    # -- per-draw data ------------------------------------------------------

    @staticmethod
    def _uniform_blocks(refl: dict, consts: ReferenceConstants, stages: Mapping[int, TextureStage],
                        viewport_value, render_state: bytes | None) -> dict[int, bytes]:
        """binding -> the block's bytes (raw register files, 16 bytes a register)."""
        out = uniform_blocks(refl, consts, stages, viewport_value, BINDING_VIEWPORT, BINDING_DRAW_STATE)
        if render_state is not None:
            out[BINDING_RENDER_STATE] = render_state
        return out

    def _make_sampler(self, s: SamplerState, levels: int, compare: bool = False):
        """``compare``: a depth texture's sampler, compared LESS_OR_EQUAL as
        D3D9 drivers do (the shader declares a shadow sampler)."""
        vk = self.vk
        lin = lambda f: f in ("linear", "anisotropic")  # noqa: E731
        border = tuple(float(c) for c in s.border_color)
        chain, border_enum = None, vk.VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK
        if "border" in (s.address_u, s.address_v, s.address_w):
            if border in _STANDARD_BORDERS:
                border_enum = getattr(vk, _STANDARD_BORDERS[border])
            elif self.dev.custom_border:
                border_enum = vk.VK_BORDER_COLOR_FLOAT_CUSTOM_EXT
                chain = vk.VkSamplerCustomBorderColorCreateInfoEXT(
                    customBorderColor=vk.VkClearColorValue(float32=list(border)), format=self.dev.format)
            else:
                raise NotImplementedError(f"border colour {border} needs VK_EXT_custom_border_color")
        no_mip = s.mip_filter == "none"
        return vk.vkCreateSampler(self.dev.device, vk.VkSamplerCreateInfo(
            pNext=chain,
            magFilter=vk.VK_FILTER_LINEAR if lin(s.mag_filter) else vk.VK_FILTER_NEAREST,
            minFilter=vk.VK_FILTER_LINEAR if lin(s.min_filter) else vk.VK_FILTER_NEAREST,
            mipmapMode=vk.VK_SAMPLER_MIPMAP_MODE_LINEAR if lin(s.mip_filter) else vk.VK_SAMPLER_MIPMAP_MODE_NEAREST,
            addressModeU=getattr(vk, _ADDRESS[s.address_u]), addressModeV=getattr(vk, _ADDRESS[s.address_v]),
            addressModeW=getattr(vk, _ADDRESS[s.address_w]), mipLodBias=float(s.mip_lod_bias),
            anisotropyEnable=vk.VK_FALSE, maxAnisotropy=1.0, compareEnable=vk.VK_TRUE if compare else vk.VK_FALSE,
            compareOp=vk.VK_COMPARE_OP_LESS_OR_EQUAL if compare else vk.VK_COMPARE_OP_ALWAYS, minLod=0.0,
            # MIP none: the base level only (maxLod 0.25 keeps the min/mag decision, as the spec advises)
            maxLod=0.25 if no_mip else float(levels), borderColor=border_enum,
            unnormalizedCoordinates=vk.VK_FALSE), None)

    def _texture(self, tex: Texture, kind: str, res: _DrawResources, compare: bool = False):
        """(view, sampler) of a texture for a sampler of ``kind``."""
        vk = self.vk
        if tex.kind != kind and not (kind == "2d" and tex.kind == "1d"):
            raise ValueError(f"sampler is {kind}, texture is {tex.kind}")
        if tex.format != "rgba":  # a depth texture, sampled with a compare
            img = _DepthTexture(self.dev, tex.format, np.asarray(tex.levels[0], F32)[..., 0])
            res.images.append(img)
            view = img.view()
            res.views.append(view)
            sampler = self._make_sampler(tex.sampler, 1, compare)
            res.samplers.append(sampler)
            return view, sampler
        kind = "2d" if tex.kind == "1d" else tex.kind
        first = np.asarray(tex.levels[0])
        if kind == "volume":
            d, h, w = first.shape[:3]
        else:
            h, w = first.shape[-3:-1]
            d = 1
        levels = [np.asarray(a, F32) for a in tex.levels]
        if tex.kind == "1d":
            levels = [a.reshape(1, -1, 4) if a.ndim == 2 else a for a in levels]
        img = _Image(self.dev, kind, w, h, d, len(levels),
                     usage=vk.VK_IMAGE_USAGE_SAMPLED_BIT | vk.VK_IMAGE_USAGE_TRANSFER_DST_BIT)
        res.images.append(img)
        img.upload(levels)
        base = min(int(tex.sampler.max_mip_level), len(levels) - 1)
        view = img.view(base)
        res.views.append(view)
        sampler = self._make_sampler(tex.sampler, len(levels) - base)
        res.samplers.append(sampler)
        return view, sampler

    def _descriptor_writes(self, dset, refl: dict, blocks: dict[int, bytes], textures: Mapping[int, Texture],
                           res: _DrawResources) -> list:
        vk = self.vk
        writes = []
        for binding, data in sorted(blocks.items()):
            buf = _Buffer(self.dev, len(data), vk.VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT)
            buf.write(data)
            res.buffers.append(buf)
            writes.append(vk.VkWriteDescriptorSet(
                dstSet=dset, dstBinding=binding, dstArrayElement=0, descriptorCount=1,
                descriptorType=vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                pBufferInfo=[vk.VkDescriptorBufferInfo(buffer=buf.handle, offset=0, range=buf.size)]))
        for s in refl.get("samplers", ()):
            tex = textures.get(s["register"])
            if tex is None:
                tex = unbound_texture(s["type"])
            view, sampler = self._texture(tex, s["type"], res, "compare" in s)
            writes.append(vk.VkWriteDescriptorSet(
                dstSet=dset, dstBinding=s.get("binding", BINDING_SAMPLER0 + s["register"]), dstArrayElement=0,
                descriptorCount=1, descriptorType=vk.VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                pImageInfo=[vk.VkDescriptorImageInfo(sampler=sampler, imageView=view,
                                                     imageLayout=vk.VK_IMAGE_LAYOUT_GENERAL)]))
        return writes

    def _descriptor_sets(self, res: _DrawResources, vertex: tuple, fragment: tuple) -> list:
        """Set 0 (vertex stage) and set 1 (fragment stage) for one draw, from a
        pool kept in ``res``, written.  ``vertex``/``fragment``: (bindings,
        reflection or None for an empty stage, uniform blocks, textures)."""
        vk, dev = self.vk, self.dev
        stages = ((vertex, vk.VK_SHADER_STAGE_VERTEX_BIT), (fragment, vk.VK_SHADER_STAGE_FRAGMENT_BIT))
        n_uniform = sum(len(blocks) for (_, _, blocks, _), _ in stages)
        n_sampler = sum(len(refl.get("samplers", ())) for (_, refl, _, _), _ in stages if refl is not None)
        sizes = [vk.VkDescriptorPoolSize(type=vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                                         descriptorCount=max(n_uniform, 1)),
                 vk.VkDescriptorPoolSize(type=vk.VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                         descriptorCount=max(n_sampler, 1))]
        res.pool = vk.vkCreateDescriptorPool(dev.device, vk.VkDescriptorPoolCreateInfo(
            maxSets=2, poolSizeCount=2, pPoolSizes=sizes), None)
        sets = vk.vkAllocateDescriptorSets(dev.device, vk.VkDescriptorSetAllocateInfo(
            descriptorPool=res.pool, descriptorSetCount=2,
            pSetLayouts=[self.set_layout(bindings, bit) for (bindings, _, _, _), bit in stages]))
        writes = []
        for dset, ((_, refl, blocks, textures), _) in zip(sets, stages):
            if refl is not None:
                writes += self._descriptor_writes(dset, refl, blocks, textures, res)
        if writes:
            vk.vkUpdateDescriptorSets(dev.device, len(writes), writes, 0, None)
        return sets

    def _vertex_buffers(self, vs_refl: dict, vertices: Mapping[Any, Any], res: _DrawResources):
        """(attributes key, buffers, vertex count) for the VS inputs; inputs
        without data read (0, 0, 0, 1) from a stride-0 buffer, as GL's default
        attribute value."""
        vk = self.vk
        data = {usage_key(k): np.asarray(v, F32) for k, v in vertices.items()}
        counts = {len(v) for v in data.values()}
        if len(counts) > 1:
            raise ValueError(f"vertex attributes of different lengths: {sorted(counts)}")
        attributes, buffers = [], []
        for inp in vs_refl["inputs"]:
            if inp.get("location") is None or inp["glsl"].startswith("gl_"):
                continue
            v = data.get((inp["usage"], inp["usage_index"]))
            if v is None:
                v, k = np.asarray(UNBOUND, F32), 0
            else:
                if v.ndim == 1:
                    v = v[:, None]
                if v.shape[1] > 4:
                    raise ValueError(f"{inp['usage']}{inp['usage_index']}: more than 4 components")
                k = v.shape[1]
            buf = _Buffer(self.dev, v.nbytes, vk.VK_BUFFER_USAGE_VERTEX_BUFFER_BIT)
            buf.write(np.ascontiguousarray(v).tobytes())
            res.buffers.append(buf)
            buffers.append(buf.handle)
            attributes.append((inp["location"], k))
        return tuple(attributes), buffers, (counts.pop() if counts else 0)

    # -- draws --------------------------------------------------------------

    def _prepare_shaders(self, vs, ps, state: RenderState, points: bool, state_values=None):
        """(vs SPIR-V, vs reflection, ps SPIR-V, ps reflection, render-state block or None).
        The render states the translations carry themselves (translated with
        ``shader_state.shader_draw_state``: xlate's own passes) need no code
        around them; SPIR-V modules must carry every such state."""
        ps = _Shader(ps)
        own_vs = vs is None  # the runner's pass-through: glslang's output needs no spirv-val run
        if own_vs:
            vs = _Shader(passthrough_vs(ps.reflection))
        else:
            vs = _Shader(vs)
        vs_refl, ps_refl = vs.reflection, ps.reflection
        vs_code, ps_code = vs.code, ps.code
        carried = states_in_shader(state, vs_refl, ps_refl, points, state_values)
        why = [w for w in _needs_wrappers(state, vs_refl, points) if w not in carried]
        block = None
        if "flat shading" in why and not ps.is_glsl:  # a decoration edit, no code around the shader
            from .spirv_edit import flat_colours

            why.remove("flat shading")
            ps_code = flat_colours(ps_code, ps_refl)
        if why:
            if not (vs.is_glsl and ps.is_glsl):
                raise NotImplementedError(
                    f"{', '.join(why)} needs code in the shaders: translate them with this render state "
                    "(draw_state=shader_state.shader_draw_state(state, stage, points=...)), or give the Vulkan "
                    "runner 'vulkan' GLSL translations, around which it writes that code")
            if state.shade_mode == "flat":
                vs_code, ps_code = _flat_colours(vs_code), _flat_colours(ps_code)
            if points and state.point_sprite and POINT_SPRITES not in carried:
                ps_code = _point_sprite(ps_code, ps_refl, not bool(ps_refl.get("options", {}).get("flip_y", True)))
            if state.alpha_func is not None and state.alpha_func.replace(" ", "_") != "always" \
                    and ALPHA_TEST not in carried:
                ps_code = _alpha_test(ps_code, ps_refl, state.alpha_func, state.alpha_ref)
            # What the VS carries itself is not wrapped again.
            wrapped = replace(state, clip_planes=()) if CLIP_PLANES in carried else state
            new = _vs_render_state(vs_code, vs_refl, wrapped, points and POINT_SIZE not in carried)
            if new != vs_code:
                vs_code = new
                vs_refl = dict(vs_refl, xl_render_state=True)
                block = _render_state_block(wrapped)
        if isinstance(vs_code, str):
            vs_code = self.compile(vs_code, "vertex", validate=not (own_vs and vs_code == vs.code))
        if isinstance(ps_code, str):
            ps_code = self.compile(ps_code, "fragment")
        return vs_code, vs_refl, ps_code, ps_refl, block

    def draw(self, vs, ps, draw: Draw, targets: RenderTargets | None = None, read: bool = True,
             depth: tuple[str, bool] | None = None) -> DrawResult:
        """``depth``: (compare op, e.g. "always" / "greater", depth writes)
        against ``targets`` made with ``depth=True`` (None: no depth test)."""
        vk, dev = self.vk, self.dev
        if depth is not None and (targets is None or targets.depth is None):
            raise ValueError("a depth test needs RenderTargets(..., depth=True)")
        state = draw.state
        mode = _primitive(draw.primitive)
        errors_before = len(dev.validation_errors)  # pipeline creation reports too
        vs_spirv, vs_refl, ps_spirv, ps_refl, rs_block = self._prepare_shaders(vs, ps, state, mode == "POINTS",
                                                                                draw.state_values)
        fresh = targets is None
        if fresh:
            targets = RenderTargets(draw.size[0], draw.size[1], draw.targets)
        width, height = targets.width, targets.height
        flip_y = bool(ps_refl.get("options", {}).get("flip_y", True))
        targets.flip_y = flip_y
        if draw.clear is not None or fresh:
            targets.clear(draw.clear)
        written = {o["usage_index"] for o in ps_refl["outputs"] if o["usage"] == "color"} or {0}
        write_masks = tuple(0xF if i in written else 0 for i in range(targets.count))

        # D3D-front triangles are clockwise in the D3D image; with flip_y the
        # framebuffer (y down) is the D3D image, so they are clockwise there too.
        ff = (ps_refl.get("front_face") or {}).get("vulkan") or (
            "VK_FRONT_FACE_CLOCKWISE" if flip_y else "VK_FRONT_FACE_COUNTER_CLOCKWISE")
        cull = "none" if state.cull == "none" else ("front" if state.cull == "cw" else "back")

        vs_bind = self._bindings(vs_refl, SET_VERTEX)
        ps_bind = self._bindings(ps_refl, SET_FRAGMENT)
        layout = self.pipeline_layout(vs_bind, ps_bind)
        render_pass = self.render_pass(targets.count, targets.depth is not None)
        res = _DrawResources(dev)
        try:
            attributes, vbuffers, n = self._vertex_buffers(vs_refl, draw.vertices, res)
            if draw.count is not None:
                n = draw.count
            pipe = self.pipeline(vs_spirv, ps_spirv, layout, render_pass, attributes, _TOPOLOGY[mode], cull, ff,
                                 write_masks, depth if targets.depth is None or depth else ("always", False),
                                 (_specialization(vs_refl, draw.state_values),
                                  _specialization(ps_refl, draw.state_values)))
            vx, vy, vw, vh = draw.viewport or (0, 0, width, height)
            vp_value = (1.0 / vw, 1.0 / vh, float(height), 0.0)
            vs_consts = draw.vs_constants if draw.vs_constants is not None else draw.constants
            blocks = [self._uniform_blocks(vs_refl, vs_consts, {}, vp_value, rs_block),
                      self._uniform_blocks(ps_refl, draw.constants, draw.texture_stages, vp_value, None)]
            sets = self._descriptor_sets(res, (vs_bind, vs_refl, blocks[0], draw.vs_textures),
                                         (ps_bind, ps_refl, blocks[1], draw.textures))
            # flip_y on: the framebuffer is the D3D image (y down), D3D's
            # viewport as is; off: upside down, as GL
            y = vy if flip_y else height - vy - vh
            framebuffer = targets.framebuffer(render_pass)

            def record(cmd):
                dev.barrier(cmd)
                vk.vkCmdBeginRenderPass(cmd, vk.VkRenderPassBeginInfo(
                    renderPass=render_pass, framebuffer=framebuffer,
                    renderArea=vk.VkRect2D(vk.VkOffset2D(0, 0), vk.VkExtent2D(width, height)),
                    clearValueCount=0, pClearValues=None), vk.VK_SUBPASS_CONTENTS_INLINE)
                vk.vkCmdBindPipeline(cmd, vk.VK_PIPELINE_BIND_POINT_GRAPHICS, pipe)
                vk.vkCmdSetViewport(cmd, 0, 1, [vk.VkViewport(float(vx), float(y), float(vw), float(vh), 0.0, 1.0)])
                vk.vkCmdSetScissor(cmd, 0, 1, [vk.VkRect2D(vk.VkOffset2D(0, 0), vk.VkExtent2D(width, height))])
                vk.vkCmdBindDescriptorSets(cmd, vk.VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 2, sets, 0, None)
                if vbuffers:
                    vk.vkCmdBindVertexBuffers(cmd, 0, len(vbuffers), vbuffers, [0] * len(vbuffers))
                if n:
                    vk.vkCmdDraw(cmd, n, 1, 0, 0)
                vk.vkCmdEndRenderPass(cmd)
                dev.barrier(cmd)

            dev.submit(record)
            dev.raise_validation_errors(errors_before)
        finally:
            res.release()
        colors = [targets.read(i) for i in range(targets.count)] if read else []
        return DrawResult(colors, targets)

    # -- vertex shaders alone (transform feedback) ----------------------------

    def _capture_pass(self):
        """A render pass without attachments and its 1x1 framebuffer: a draw
        needs both, the capture pipeline discards every primitive."""
        vk, d = self.vk, self.dev.device
        if self.capture_pass is None:
            subpass = vk.VkSubpassDescription(pipelineBindPoint=vk.VK_PIPELINE_BIND_POINT_GRAPHICS,
                                              colorAttachmentCount=0)
            rp = vk.vkCreateRenderPass(d, vk.VkRenderPassCreateInfo(
                attachmentCount=0, pAttachments=None, subpassCount=1, pSubpasses=[subpass]), None)
            fb = vk.vkCreateFramebuffer(d, vk.VkFramebufferCreateInfo(
                renderPass=rp, attachmentCount=0, pAttachments=None, width=1, height=1, layers=1), None)
            self.capture_pass = (rp, fb)
        return self.capture_pass

    def capture_pipeline(self, vs_spirv: bytes, layout, render_pass, attributes: tuple):
        """A vertex-only pipeline for transform feedback: point list,
        rasterizerDiscardEnable (no fragment stage, viewport or blending)."""
        vk = self.vk
        key = (vs_spirv, layout, render_pass, attributes, "capture")
        pipe = self.pipelines.get(key)
        if pipe is not None:
            return pipe
        stages = [vk.VkPipelineShaderStageCreateInfo(stage=vk.VK_SHADER_STAGE_VERTEX_BIT,
                                                     module=self.module(vs_spirv), pName="main")]
        vertex_input = _vertex_input_state(vk, attributes)
        assembly = vk.VkPipelineInputAssemblyStateCreateInfo(topology=vk.VK_PRIMITIVE_TOPOLOGY_POINT_LIST,
                                                             primitiveRestartEnable=vk.VK_FALSE)
        raster = vk.VkPipelineRasterizationStateCreateInfo(
            depthClampEnable=vk.VK_FALSE, rasterizerDiscardEnable=vk.VK_TRUE, polygonMode=vk.VK_POLYGON_MODE_FILL,
            cullMode=vk.VK_CULL_MODE_NONE, frontFace=vk.VK_FRONT_FACE_COUNTER_CLOCKWISE,
            depthBiasEnable=vk.VK_FALSE, lineWidth=1.0)
        info = vk.VkGraphicsPipelineCreateInfo(
            stageCount=1, pStages=stages, pVertexInputState=vertex_input, pInputAssemblyState=assembly,
            pRasterizationState=raster, layout=layout, renderPass=render_pass, subpass=0)
        pipe = vk.vkCreateGraphicsPipelines(self.dev.device, None, 1, [info], None)[0]
        self.pipelines[key] = pipe
        return pipe

    def run_vertex(self, vs, vertices: Mapping[Any, Any], constants: ReferenceConstants | None = None,
                   textures: Mapping[int, Texture] | None = None, count: int | None = None) -> VertexResult:
        """Run a translated VS alone through VK_EXT_transform_feedback (point
        list, one invocation per vertex, rasterizer discard), as
        ``GLRunner.run_vertex``: the same arguments and ``VertexResult``.
        ``vs``: a "vulkan" translation or (GLSL, reflection); the runner adds
        the xfb layout qualifiers (``_xfb_capture``) and compiles it.  The
        viewport block is left at 0, which disables the half-pixel offset."""
        vk, dev = self.vk, self.dev
        if dev.transform_feedback is not None:
            raise VulkanUnavailable(f"run_vertex needs transform feedback: {dev.transform_feedback}")
        vs = _Shader(vs)
        refl = vs.reflection
        if refl.get("stage", "vertex") != "vertex":
            raise ValueError(f"run_vertex needs a vertex shader, not a {refl.get('stage')} shader")
        errors_before = len(dev.validation_errors)
        if vs.is_glsl:
            code, fields, stride = _xfb_capture(vs.code, refl, dev.output_locations)
        else:  # SPIR-V (the native writer's, with its names): the same capture, edited into the words
            from .spirv_xfb import capture

            spirv, fields, stride = capture(vs.code, refl, dev.output_locations)
        if 4 * stride > dev.xfb_max_stride:
            raise NotImplementedError(f"{4 * stride} bytes of vertex outputs; {dev.name} captures at most "
                                      f"{dev.xfb_max_stride} per vertex")
        if vs.is_glsl:
            # spirv-val only under XLATE_VK_VALIDATION (it is half the cost): the
            # same GLSL is validated SPIR-V as target "spirv-glslang", only declarations changed
            spirv = self.compile(code, "vertex", validate=self.dev.validating)
        elif self.dev.validating:
            from ..backends.spirv import check

            check(spirv)
        vs_bind = self._bindings(refl, SET_VERTEX)
        layout = self.pipeline_layout(vs_bind, ())
        render_pass, framebuffer = self._capture_pass()
        res = _DrawResources(dev)
        try:
            attributes, vbuffers, n = self._vertex_buffers(refl, vertices, res)
            if count is not None:
                n = count
            pipe = self.capture_pipeline(spirv, layout, render_pass, attributes)
            blocks = self._uniform_blocks(refl, constants or ReferenceConstants(), {}, (0.0, 0.0, 0.0, 0.0), None)
            sets = self._descriptor_sets(res, (vs_bind, refl, blocks, textures or {}), ((), None, {}, {}))
            record_bytes = 4 * stride
            out = _Buffer(dev, max(n, 1) * record_bytes, vk.VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT)
            out.write(bytes(out.size))
            res.buffers.append(out)
            xfb = dev.xfb

            def record(cmd):
                dev.barrier(cmd)
                vk.vkCmdBeginRenderPass(cmd, vk.VkRenderPassBeginInfo(
                    renderPass=render_pass, framebuffer=framebuffer,
                    renderArea=vk.VkRect2D(vk.VkOffset2D(0, 0), vk.VkExtent2D(1, 1)),
                    clearValueCount=0, pClearValues=None), vk.VK_SUBPASS_CONTENTS_INLINE)
                vk.vkCmdBindPipeline(cmd, vk.VK_PIPELINE_BIND_POINT_GRAPHICS, pipe)
                vk.vkCmdBindDescriptorSets(cmd, vk.VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 2, sets, 0, None)
                if vbuffers:
                    vk.vkCmdBindVertexBuffers(cmd, 0, len(vbuffers), vbuffers, [0] * len(vbuffers))
                xfb["vkCmdBindTransformFeedbackBuffersEXT"](cmd, 0, 1, [out.handle], [0], [out.size])
                xfb["vkCmdBeginTransformFeedbackEXT"](cmd, 0, 0, None, None)
                if n:
                    vk.vkCmdDraw(cmd, n, 1, 0, 0)
                xfb["vkCmdEndTransformFeedbackEXT"](cmd, 0, 0, None, None)
                vk.vkCmdEndRenderPass(cmd)
                vk.vkCmdPipelineBarrier(
                    cmd, vk.VK_PIPELINE_STAGE_TRANSFORM_FEEDBACK_BIT_EXT, vk.VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                    [vk.VkMemoryBarrier(srcAccessMask=vk.VK_ACCESS_TRANSFORM_FEEDBACK_WRITE_BIT_EXT,
                                        dstAccessMask=vk.VK_ACCESS_HOST_READ_BIT)], 0, None, 0, None)

            dev.submit(record)
            dev.raise_validation_errors(errors_before)
            raw = np.frombuffer(out.read(), F32, max(n, 1) * stride).reshape(max(n, 1), stride)[:n].copy()
        finally:
            res.release()
        return captured_vertices(raw, fields, refl)


_RUNNER: VKRunner | None = None


def _specialization(refl: dict, values) -> tuple:
    """((constant_id, type, value), ...) for the specialization constants a
    dynamic draw-state translation declares (reflection
    ``render_state.parameters``), from ``values`` (a DrawState or dict;
    None: D3D's defaults)."""
    from .gl import state_parameters, state_values

    params = state_parameters(refl)
    if not params:
        return ()

    values = state_values(values)
    return tuple((p["constant_id"], p["type"], values.param_value(p["key"]))
                 for p in params if p.get("form") == "specialization_constant")


def _specialization_info(vk, entries: tuple, keep: list):
    """A VkSpecializationInfo for ``entries`` (None without any): 4 bytes a
    constant (a bool as a VkBool32, an int as int32, a float as float32)."""
    if not entries:
        return None
    data = b"".join(struct.pack("<f", v) if t == "float" else struct.pack("<i", int(v)) for _, t, v in entries)
    buf = vk.ffi.new("char[]", data)
    keep.append(buf)
    info = vk.VkSpecializationInfo(
        mapEntryCount=len(entries),
        pMapEntries=[vk.VkSpecializationMapEntry(constantID=cid, offset=4 * k, size=4)
                     for k, (cid, _, _) in enumerate(entries)],
        dataSize=len(data), pData=buf)
    keep.append(info)
    return info


def runner() -> VKRunner:
    """The process's runner (creates the device on first use; raises
    ``VulkanUnavailable`` when there is no Vulkan)."""
    global _RUNNER
    if _RUNNER is None:
        _RUNNER = VKRunner()
    return _RUNNER
