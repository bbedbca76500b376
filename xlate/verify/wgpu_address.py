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
from collections import Counter
from dataclasses import dataclass
from enum import IntEnum
from typing import Mapping

from .textures import SamplerState

# WebGPU address modes of D3D9's (mirroronce: mirror-repeat on a clamped coordinate)
WEBGPU_ADDRESS = {"wrap": "repeat", "mirror": "mirror-repeat", "clamp": "clamp-to-edge",
                  "border": "clamp-to-border", "mirroronce": "mirror-repeat"}
BORDER_FEATURE = "address-mode-clamp-to-border"


class BorderColour(IntEnum):
    """wgpu-native's ``WGPUSamplerBorderColor`` (wgpu.h)."""

    NONE = 0
    TRANSPARENT_BLACK = 1
    OPAQUE_BLACK = 2
    OPAQUE_WHITE = 3


NATIVE_BORDER = {(0.0, 0.0, 0.0, 0.0): BorderColour.TRANSPARENT_BLACK,
                 (0.0, 0.0, 0.0, 1.0): BorderColour.OPAQUE_BLACK, (1.0, 1.0, 1.0, 1.0): BorderColour.OPAQUE_WHITE}
TRANSPARENT_BLACK, OPAQUE_WHITE = BorderColour.TRANSPARENT_BLACK, BorderColour.OPAQUE_WHITE
_NATIVE_CLAMP_TO_BORDER = 4  # WGPUNativeAddressMode_ClampToBorder (wgpu.h)
# the second (opaque white) sampler of an emulated border colour: after the 32 + s# samplers
WHITE_SAMPLER_BINDING_BASE = 48
_AXES = {"1d": 2, "2d": 2, "volume": 3, "cube": 0}
_LOOKUPS = ("textureSampleGrad", "textureSampleLevel", "textureSampleBias", "textureSample")
_OTHER_LOOKUPS = ("textureSampleCompare", "textureSampleCompareLevel", "textureGather")


@dataclass(frozen=True)
class AddressPlan:
    """How one D3D9 sampler state is bound on WebGPU."""

    modes: tuple[str, str, str]          # WebGPU address modes u, v, w
    border: BorderColour = BorderColour.NONE
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


def create_sampler(device, plan_: AddressPlan, border: BorderColour | None = None, **kwargs):
    """``device.create_sampler(**kwargs)`` with the plan's address modes;
    ``border`` overrides its border colour (the emulation's white sampler).
    wgpu-py has no border colour: the descriptor is chained here with
    wgpu-native's ``WGPUSamplerDescriptorExtras``."""
    if "clamp-to-border" not in plan_.modes:
        return device.create_sampler(address_mode_u=plan_.modes[0], address_mode_v=plan_.modes[1],
                                     address_mode_w=plan_.modes[2], **kwargs)
    from wgpu.backends.wgpu_native import _api
    from wgpu.backends.wgpu_native._ffi import ffi, lib

    extras = _api.new_struct_p("WGPUSamplerDescriptorExtras *", samplerBorderColor=int(border or plan_.border))
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


_TEXTURE_TYPES = {"1d": "texture_2d<f32>", "2d": "texture_2d<f32>", "volume": "texture_3d<f32>"}


def _helper(name: str, lookup: str, kind: str, p: AddressPlan) -> str:
    """A WGSL function doing ``lookup`` through sampler ``s`` as ``p`` says
    (its arguments evaluated once): ``fn name(t, s, [white,] coordinate, ...)``."""
    n = len(p.mirror_once)
    vec = f"vec{n}<f32>"
    extra = {"textureSampleLevel": ["l: f32"], "textureSampleBias": ["b: f32"],
             "textureSampleGrad": [f"gx: {vec}", f"gy: {vec}"]}.get(lookup, [])
    params = [f"t: {_TEXTURE_TYPES[kind]}", "s: sampler"]
    params += ["w: sampler"] if p.emulated_border is not None else []
    params += [f"c: {vec}", *extra]
    if any(p.mirror_once):
        flags = ", ".join("true" if m else "false" for m in p.mirror_once)
        body = [f"    let cc = select(c, clamp(c, {vec}(-1.0), {vec}(1.0)), vec{n}<bool>({flags}));"]
    else:
        body = ["    let cc = c;"]
    if lookup == "textureSample" and any(p.mirror_once):
        # the level of detail from the unclamped coordinate, as D3D's
        call, tail = "textureSampleGrad", ["dpdx(c)", "dpdy(c)"]
    elif lookup == "textureSampleBias" and any(p.mirror_once):
        call, tail = "textureSampleGrad", ["dpdx(c) * exp2(b)", "dpdy(c) * exp2(b)"]
    else:
        call, tail = lookup, [x.split(":")[0] for x in extra]
    one = f"{call}(t, s, cc{''.join(', ' + x for x in tail)})"
    if p.emulated_border is not None:
        other = f"{call}(t, w, cc{''.join(', ' + x for x in tail)})"
        border = ", ".join(repr(float(x)) for x in p.emulated_border)
        one = f"xl_border_mix({one}, {other}, vec4<f32>({border}))"
    return (f"fn {name}({', '.join(params)}) -> vec4<f32> {{\n" + "\n".join(body)
            + f"\n    return {one};\n}}\n")


def _rewrite(code: str, pattern: re.Pattern, white: str | None, prefix: str, used: set[str]) -> str:
    """Every lookup ``pattern`` finds in ``code`` made a call of its helper
    (``prefix`` + the lookup's name), those nested in another's arguments
    included; ``used`` collects the lookups met."""
    out, pos = [], 0
    for m in pattern.finditer(code):
        if m.start() < pos:
            continue
        args, end = _split_args(code, m.end(1))
        args = [_rewrite(a, pattern, white, prefix, used) for a in args]
        used.add(m.group(1))
        args = args[:2] + ([white] if white else []) + args[2:]
        out.append(code[pos:m.start()] + f"{prefix}{m.group(1)}({', '.join(args)})")
        pos = end
    return "".join(out) + code[pos:]


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
        white = None
        if p.emulated_border is not None:
            white = f"{s['texture']}_xl_white"
            group = s.get("group", s.get("set", 0))
            decls.append(f"@group({group}) @binding({white_binding(s['register'])}) var {white}: sampler;")
            samplers.append(dict(s, white_sampler_binding=white_binding(s["register"])))
        else:
            samplers.append(s)
        prefix, used = f"xl_address{s['register']}_", set()
        code = _rewrite(code, re.compile(rf"\b({'|'.join(_LOOKUPS)})\({tex}, "), white, prefix, used)
        decls += [_helper(prefix + lookup, lookup, s["type"], p) for lookup in sorted(used)]
    if any(p.emulated_border is not None for p in plans.values()):
        decls.append("fn xl_border_mix(black: vec4<f32>, white: vec4<f32>, border: vec4<f32>) -> vec4<f32> {\n"
                     "    return black + border * (white - black);\n}\n")
    if decls:
        code += "\n" + "\n".join(decls)
    return code, dict(refl, samplers=samplers)


def for_textures(code: str, refl: dict, textures: Mapping[int, object], border_supported: bool,
                 counts: Counter | None = None) -> tuple[str, dict]:
    """(code, reflection) of a translation whose samplers get ``textures``
    ({s#: ``textures.Texture``}): unchanged unless some state needs the
    shader emulation.  ``counts`` tallies the declared samplers bound with a
    border ("border": a native colour, "border emulated") or mirror once."""
    plans = {}
    for s in refl.get("samplers", ()):
        tex = textures.get(s["register"])
        if tex is None or getattr(tex, "format", "rgba") != "rgba" or tex.sampler is None:
            continue
        p = plans[s["register"]] = plan(tex.sampler, s["type"], border_supported)
        if counts is not None and "clamp-to-border" in p.modes:
            counts["border emulated" if p.emulated_border else "border"] += 1
        if counts is not None and any(p.mirror_once):
            counts["mirror once"] += 1
    if not any(p.edits_shader for p in plans.values()):
        return code, refl
    return emulate(code, refl, plans)
