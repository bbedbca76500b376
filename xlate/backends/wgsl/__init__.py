"""Core IR -> WGSL (WebGPU), written from the IR like the SPIR-V backend.

``emit(program, target, options)`` returns ``(code, layout reflection)``;
``backends.generate`` adds the program's facts as for every target.

The layout is the ``vulkan`` target's (``layout.py``, read through the
same ``Layout``): constant files are uniform buffers whose register k sits
at byte 16k (``@group`` = the Vulkan set, ``@binding`` the same numbers),
varyings have WGSL's own locations (``locations.py``: TEXCOORD0-7, COLOR0-1,
FOG at 0-10, within the 16 WebGPU guarantees), s# is a texture at binding 4+s and a
separate ``sampler`` at binding ``SAMPLER_BINDING_BASE`` + s.  WGSL's own
rules, and what the module does about each:

- Entry-point interfaces are structs; the module keeps every register
  (inputs and outputs included) in ``var<private>`` variables, copied in at
  the start of ``main`` and out at its end, so subroutines reach them as
  in D3D9 (``module.py``).
- Bools are not host-shareable: b# registers are ``u32`` (``vec4<u32>``
  array elements, the value in ``.x``) at the same 16-byte steps, read as
  ``!= 0u`` (the reflection says ``"wgsl_type": "u32"``).
- No assignment to a multi-component swizzle: a partial write mask is a
  whole-vector assignment mixing the new components with the old ones.
- Const-expressions are evaluated at shader creation and an overflow or an
  infinity there is an error: an op whose operands are all literals gets
  its first literal through a ``let`` (evaluated at run time, as in D3D9),
  and ±inf/NaN literals are ``xl_f32_bits(0x7F800000u)`` calls.
- WebGPU's NDC y points up, Vulkan's down: the position is the Vulkan
  target's with y negated, so every option (``flip_y``, ``clip_z``) means
  what it means for Vulkan: by default the image lies as D3D's (row 0 =
  top) and clip z is 0..w.
- Derivatives and implicit-LOD sampling must be in uniform control flow:
  ``uniformity.py`` says where they may not be; the module then turns
  WGSL's ``derivative_uniformity`` check off (the values there are what
  D3D9 and GLSL give: undefined where the pixels of a quad diverge) and a
  diagnostic names the instructions.
- No point size: WebGPU points are one pixel; a vertex shader writing oPts
  gets a diagnostic (the value is computed and dropped), and the point-sprite
  coordinate is that pixel's centre (another diagnostic).
- Draw-time state (``Options.draw_state``): dynamic state parameters are
  pipeline-overridable constants (``@id`` = the Vulkan constant_id); a depth
  compare is ``texture_depth_2d`` + ``sampler_comparison`` (level 0 only: a
  bias, LOD or gradients read the base level, with a diagnostic); FETCH4 is
  ``textureGather``; clip planes are ``@builtin(clip_distances)``.
"""

from __future__ import annotations

from .emitter import emit

__all__ = ["emit"]
