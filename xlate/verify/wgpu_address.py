"""D3D9 address modes that WebGPU's core lacks, for the WebGPU runner
(``wgpu_runner``), done as a D3D9-on-WebGPU layer would do them.

* ``D3DTADDRESS_BORDER``: wgpu's native feature
  ``address-mode-clamp-to-border`` (lavapipe has it), whose border colour is
  one of transparent black, opaque black and opaque white.  Another D3D
  border colour B is emulated exactly in the shader: each lookup through the
  sampler is made twice, through a transparent-black and an opaque-white
  border sampler (the same texture and arguments), and B mixed in by the
  share of the filter footprint outside the texture:
  ``black + B * (white - black)`` (inside, white - black is 0, so the texel
  comes back bit for bit; outside, with point filtering, B exactly).
* ``D3DTADDRESS_MIRRORONCE``: ``mirror-repeat`` on the coordinate clamped to
  [-1, 1] along that axis.  On the texel indices of point and linear
  filtering this is D3D's mirror once (mirror about 0, then clamp to the
  edge; ``textures._address``): within [-1, 1] mirror-repeat mirrors once,
  and at +-1 it gives the edge texel.  An implicit-LOD lookup becomes
  ``textureSampleGrad`` with the derivatives of the unclamped coordinate
  (a LOD bias scales them by 2^bias), so the level of detail is D3D's.

Cube maps ignore address modes (D3D9 and WebGPU both clamp to the face), and
a 2D texture its w mode.  A shadow compare or FETCH4 gather through a sampler
that needs the shader emulation raises ``NotImplementedError``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .textures import SamplerState

# WebGPU address modes of D3D9's (mirroronce: mirror-repeat on a clamped coordinate)
WEBGPU_ADDRESS = {"wrap": "repeat", "mirror": "mirror-repeat", "clamp": "clamp-to-edge",
                  "border": "clamp-to-border", "mirroronce": "mirror-repeat"}
BORDER_FEATURE = "address-mode-clamp-to-border"
# wgpu-native's WGPUSamplerBorderColor for the colours it has
NATIVE_BORDER = {(0.0, 0.0, 0.0, 0.0): 1, (0.0, 0.0, 0.0, 1.0): 2, (1.0, 1.0, 1.0, 1.0): 3}
TRANSPARENT_BLACK, OPAQUE_WHITE = 1, 3
_NATIVE_CLAMP_TO_BORDER = 4  # WGPUNativeAddressMode_ClampToBorder
# the second (opaque white) sampler of an emulated border colour: after the 32 + s# samplers
WHITE_SAMPLER_BINDING_BASE = 48
_AXES = {"1d": 2, "2d": 2, "volume": 3, "cube": 0}
_LOOKUPS = ("textureSampleGrad", "textureSampleLevel", "textureSampleBias", "textureSample")
_OTHER_LOOKUPS = ("textureSampleCompare", "textureSampleCompareLevel", "textureGather")


@dataclass(frozen=True)
class AddressPlan:
    """How one D3D9 sampler state is bound on WebGPU."""

    modes: tuple[str, str, str]          # WebGPU address modes u, v, w
    border: int = 0                      # wgpu-native border colour (0: none)
    emulated_border: tuple[float, float, float, float] | None = None  # B mixed in the shader
    mirror_once: tuple[bool, ...] = ()   # per coordinate axis: clamped to [-1, 1]

    @property
    def edits_shader(self) -> bool:
        return self.emulated_border is not None or any(self.mirror_once)


def plan(state: SamplerState, kind: str, border_supported: bool = True) -> AddressPlan:
    """The WebGPU binding of ``state`` for a texture of ``kind``."""
    axes = _AXES.get(kind, 2)
    d3d = (state.address_u, state.address_v, state.address_w)
    modes = tuple(WEBGPU_ADDRESS[d3d[k]] if k < axes else "clamp-to-edge" for k in range(3))
    mirror_once = tuple(d3d[k] == "mirroronce" for k in range(axes))
    if "clamp-to-border" not in modes:
        return AddressPlan(modes, mirror_once=mirror_once)
    if not border_supported:
        raise NotImplementedError(f"this WebGPU adapter lacks {BORDER_FEATURE} (D3DTADDRESS_BORDER)")
    colour = tuple(float(x) for x in state.border_color)
    native = NATIVE_BORDER.get(colour)
    if native:
        return AddressPlan(modes, native, mirror_once=mirror_once)
    return AddressPlan(modes, TRANSPARENT_BLACK, colour, mirror_once)


def create_sampler(device, plan_: AddressPlan, border: int | None = None, **kwargs):
    """``device.create_sampler(**kwargs)`` with the plan's address modes;
    ``border`` overrides its border colour (the emulation's white sampler).
    wgpu-py has no border colour: the descriptor is chained here with
    wgpu-native's ``WGPUSamplerDescriptorExtras``."""
    if "clamp-to-border" not in plan_.modes:
        return device.create_sampler(address_mode_u=plan_.modes[0], address_mode_v=plan_.modes[1],
                                     address_mode_w=plan_.modes[2], **kwargs)
    from wgpu.backends.wgpu_native import _api
    from wgpu.backends.wgpu_native._ffi import ffi, lib

    extras = _api.new_struct_p("WGPUSamplerDescriptorExtras *", samplerBorderColor=border or plan_.border)
    extras.chain.sType = lib.WGPUSType_SamplerDescriptorExtras
    modes = [_NATIVE_CLAMP_TO_BORDER if m == "clamp-to-border" else m for m in plan_.modes]
    compare = kwargs.get("compare")
    desc = _api.new_struct_p(
        "WGPUSamplerDescriptor *", nextInChain=ffi.cast("WGPUChainedStruct *", extras),
        label=_api.to_c_string_view(""), addressModeU=modes[0], addressModeV=modes[1], addressModeW=modes[2],
        magFilter=kwargs["mag_filter"], minFilter=kwargs["min_filter"], mipmapFilter=kwargs["mipmap_filter"],
        lodMinClamp=kwargs["lod_min_clamp"], lodMaxClamp=kwargs["lod_max_clamp"],
        compare=0 if compare is None else compare, maxAnisotropy=1)
    return _api.GPUSampler("", lib.wgpuDeviceCreateSampler(device._internal, desc), device)


def white_binding(register: int) -> int:
    return WHITE_SAMPLER_BINDING_BASE + register


def _split_args(code: str, start: int) -> tuple[list[str], int]:
    """The top-level arguments of the call whose '(' is at ``start``, and the
    index after its ')'."""
    depth, args, k, begin = 0, [], start, start + 1
    while True:
        c = code[k]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth == 0:
                args.append(code[begin:k].strip())
                return args, k + 1
        elif c == "," and depth == 1:
            args.append(code[begin:k].strip())
            begin = k + 1
        k += 1


def _coordinate(coord: str, mask: tuple[bool, ...]) -> str:
    n = len(mask)
    vec = f"vec{n}<f32>"
    flags = ", ".join("true" if m else "false" for m in mask)
    return f"select({coord}, clamp({coord}, {vec}(-1.0), {vec}(1.0)), vec{n}<bool>({flags}))"


def _lookup(name: str, args: list[str], p: AddressPlan) -> str:
    """A lookup with the coordinate clamped for mirror once."""
    if not any(p.mirror_once):
        return f"{name}({', '.join(args)})"
    t, s, c, *rest = args
    cc = _coordinate(c, p.mirror_once)
    if name == "textureSample":
        return f"textureSampleGrad({t}, {s}, {cc}, dpdx({c}), dpdy({c}))"
    if name == "textureSampleBias":
        scale = f"exp2({rest[0]})"
        return f"textureSampleGrad({t}, {s}, {cc}, dpdx({c}) * {scale}, dpdy({c}) * {scale})"
    return f"{name}({', '.join([t, s, cc, *rest])})"


def emulate(code: str, refl: dict, plans: dict[int, AddressPlan]) -> tuple[str, dict]:
    """``code`` with the lookups of the samplers whose plans edit the shader
    rewritten, and a reflection whose sampler entries name the extra white
    border sampler's binding (``white_sampler_binding``)."""
    samplers = []
    decls = []
    for s in refl.get("samplers", ()):
        p = plans.get(s["register"])
        if p is None or not p.edits_shader:
            samplers.append(s)
            continue
        tex = re.escape(s["texture"])
        if re.search(rf"\b(?:{'|'.join(_OTHER_LOOKUPS)})\({tex},", code):
            raise NotImplementedError(f"s{s['register']}: a depth compare or gather with "
                                      "an emulated border colour or mirror once")
        white = f"{s['texture']}_xl_white"
        if p.emulated_border is not None:
            group = s.get("group", s.get("set", 0))
            decls.append(f"@group({group}) @binding({white_binding(s['register'])}) var {white}: sampler;")
            samplers.append(dict(s, white_sampler_binding=white_binding(s["register"])))
        else:
            samplers.append(s)
        pattern = re.compile(rf"\b({'|'.join(_LOOKUPS)})\(({tex}), ")
        out, pos = [], 0
        for m in pattern.finditer(code):
            if m.start() < pos:
                continue
            args, end = _split_args(code, m.end(1))
            one = _lookup(m.group(1), args, p)
            if p.emulated_border is not None:
                other = _lookup(m.group(1), [args[0], white, *args[2:]], p)
                b = ", ".join(repr(float(x)) for x in p.emulated_border)
                one = f"xl_border_mix({one}, {other}, vec4<f32>({b}))"
            out.append(code[pos:m.start()] + one)
            pos = end
        code = "".join(out) + code[pos:]
    if decls:
        code += ("\n" + "\n".join(decls) + "\nfn xl_border_mix(black: vec4<f32>, white: vec4<f32>, "
                 "border: vec4<f32>) -> vec4<f32> {\n    return black + border * (white - black);\n}\n")
    return code, dict(refl, samplers=samplers)
