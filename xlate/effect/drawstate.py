"""A pass's own render and sampler states as the draw state of its shaders.

When d3dx9's BeginPass runs, the pass's states go to the device before the
draw: ``FogEnable = TRUE; AlphaFunc = GREATER; SRGBWriteEnable = TRUE`` in a
pass change what its shaders draw exactly as the application's own
SetRenderState calls would.  ``pass_draw_state`` reads them (constants as
written, expressions and parameter references evaluated with the parameter
values given, through ``runtime.evaluate_pass``) into an
``xlate.drawstate.DrawState`` over a base state (the device state the pass
does not touch: ``Options.draw_state``), which ``translate_effect`` gives to
the pass's shaders (docs/reflection.md "Effects").

Every state a pass sets is one of three kinds (the table below, data):

* applied: a DrawState field (fog, alpha test, sRGB write, clip-plane
  enable, point size and sprites; the sampler state SRGBTexture);
* pipeline: state a layer sets through the graphics API itself (blending,
  depth, stencil, culling, sampler filters and addressing): listed in the
  effect reflection's pass states, nothing for the shader to do;
* anything else (fixed-function lighting, texture-stage operations, WRAPn,
  point scale, ...): not applied by xlate, so it is named in ``notes`` (a
  diagnostic), never dropped in silence.

A D3D state is a DWORD: each value is taken as the DWORD D3D9 receives (a
float state's bits read as a float, a D3DCOLOR as 0xAARRGGBB), as d3dx9
passes the state's value to SetRenderState unconverted.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Mapping

from ..bytecode.ctab import ParameterType
from ..drawstate import DrawState, DrawStateError
from .model import Effect, Pass, StateKind, Technique, safe_text
from .runtime import evaluate_pass
from .states import StateClass

# D3DRS_<NAME> -> DrawState field (the render states a shader's draw state holds)
APPLIED_RENDER = {
    name: name.lower() for name in (
        "FOGENABLE", "FOGCOLOR", "FOGTABLEMODE", "FOGVERTEXMODE", "FOGSTART", "FOGEND", "FOGDENSITY",
        "RANGEFOGENABLE", "ALPHATESTENABLE", "ALPHAFUNC", "ALPHAREF", "SRGBWRITEENABLE", "CLIPPLANEENABLE",
        "POINTSIZE", "POINTSIZE_MIN", "POINTSIZE_MAX", "POINTSPRITEENABLE")
}
# DrawState fields whose D3D value is a float in the DWORD, and the BOOLs (any non-zero DWORD is TRUE)
_FLOAT_FIELDS = {"fogstart", "fogend", "fogdensity", "pointsize", "pointsize_min", "pointsize_max"}
_BOOL_FIELDS = {"fogenable", "rangefogenable", "alphatestenable", "srgbwriteenable", "pointspriteenable"}
# Render states a layer applies through the API (output merger, rasteriser):
# nothing for the shader to do.
PIPELINE_RENDER = frozenset(
    "D3DRS_" + n for n in (
        "ZENABLE", "FILLMODE", "ZWRITEENABLE", "LASTPIXEL", "SRCBLEND", "DESTBLEND", "CULLMODE", "ZFUNC",
        "DITHERENABLE", "ALPHABLENDENABLE", "STENCILENABLE", "STENCILFAIL", "STENCILZFAIL", "STENCILPASS",
        "STENCILFUNC", "STENCILREF", "STENCILMASK", "STENCILWRITEMASK", "CLIPPING", "MULTISAMPLEANTIALIAS",
        "MULTISAMPLEMASK", "DEBUGMONITORTOKEN", "COLORWRITEENABLE", "COLORWRITEENABLE1", "COLORWRITEENABLE2",
        "COLORWRITEENABLE3", "BLENDOP", "SCISSORTESTENABLE", "SLOPESCALEDEPTHBIAS", "ANTIALIASEDLINEENABLE",
        "TWOSIDEDSTENCILMODE", "CCW_STENCILFAIL", "CCW_STENCILZFAIL", "CCW_STENCILPASS", "CCW_STENCILFUNC",
        "BLENDFACTOR", "DEPTHBIAS", "SEPARATEALPHABLENDENABLE", "SRCBLENDALPHA", "DESTBLENDALPHA", "BLENDOPALPHA"))
# Sampler states the layer puts on its sampler objects (SRGBTexture is applied)
PIPELINE_SAMPLER = frozenset(("AddressU", "AddressV", "AddressW", "BorderColor", "MagFilter", "MinFilter",
                              "MipFilter", "MipMapLodBias", "MaxMipLevel", "MaxAnisotropy", "ElementIndex",
                              "DMAPOffset"))
# Texture-stage states ps_1_x reads through its reflection's draw_state uniforms (the layer sets them)
STAGE_UNIFORM_STATES = frozenset(("D3DTSS_BUMPENVMAT00", "D3DTSS_BUMPENVMAT01", "D3DTSS_BUMPENVMAT10",
                                  "D3DTSS_BUMPENVMAT11", "D3DTSS_BUMPENVLSCALE", "D3DTSS_BUMPENVLOFFSET"))
# Classes that are no state at all for the draw (the shaders, their constants, texture objects)
_NOT_STATE = (StateClass.VERTEX_SHADER, StateClass.PIXEL_SHADER, StateClass.SHADER_CONSTANT, StateClass.TEXTURE,
              StateClass.SAMPLER)
_INDEXED = (StateClass.TEXTURE_STAGE, StateClass.LIGHT, StateClass.LIGHT_ENABLE)


@dataclass(frozen=True)
class PassDrawState:
    """What one pass sets of the draw state.

    ``values``: the DrawState fields the pass sets, JSON-ready (a valid
    ``draw_state`` dict); ``sources``: field -> the parameters its value is
    computed from (baked, such a value is right for those parameter values
    only); ``notes``: one sentence per state the pass sets that xlate does
    not apply; ``vertex`` / ``pixel``: the base state with the pass's
    values (the sRGB-read samplers per stage: ``values["srgbtexture"]`` is
    the pixel stage's, ``extra["srgbtexture_vertex"]`` the vertex stage's
    when the pass changes it)."""

    values: dict
    sources: dict
    notes: tuple[str, ...]
    vertex: DrawState
    pixel: DrawState
    extra: dict = field(default_factory=dict)

    def for_stage(self, stage: str) -> DrawState:
        """``"vertex"`` or ``"fragment"``/``"pixel"``."""
        return self.vertex if stage == "vertex" else self.pixel


def _dword(values, ptype) -> int | None:
    """The first value as the DWORD D3D9 receives."""
    if not values:
        return None
    v = values[0]
    try:
        if ptype == ParameterType.FLOAT:
            return struct.unpack("<I", struct.pack("<f", float(v)))[0]
        return int(v) & 0xFFFFFFFF
    except (TypeError, ValueError, OverflowError, struct.error):
        return None  # not a number (a hostile effect's string or object): reported as not evaluated


def _from_dword(name: str, word: int):
    """A DWORD as DrawState.from_dict takes the field's value."""
    if name in _FLOAT_FIELDS:
        return struct.unpack("<f", struct.pack("<I", word))[0]
    if name in _BOOL_FIELDS:
        return word != 0
    return word


def _state_values(effect: Effect, pss: Pass, consts) -> list[tuple]:
    """(state, typed values, parameter type, sources) for every state of the
    pass (the last assignment of a state wins, as on the device)."""
    computed = {id(s.state): s for s in consts.states}
    out = []
    for st in pss.states:
        if st.kind == StateKind.CONSTANT:
            values = [] if st.parameter.is_object else st.parameter.values()
            out.append((st, values, st.parameter.parameter_type, ()))
            continue
        got = computed.get(id(st))
        out.append((st, list(got.value) if got else None, st.parameter.parameter_type, got.sources if got else ()))
    return out


def pass_draw_state(effect: Effect | bytes, technique: int | str | Technique = 0, pass_: int | str | Pass = 0,
                    parameters: Mapping[str, object] | None = None, base: DrawState | None = None) -> PassDrawState:
    """The draw state of a pass's shaders: ``base`` (the device state the pass
    does not set; D3D's defaults when None) with the pass's render states and
    its samplers' SRGBTexture applied (module docstring).  Raises what
    ``evaluate_pass`` raises for a malformed effect or bad parameters, and
    ``DrawStateError`` for a state value the draw state cannot hold."""
    if isinstance(effect, (bytes, bytearray)):
        from .parse import parse_effect

        effect = parse_effect(bytes(effect))
    base = base or DrawState()
    consts = evaluate_pass(effect, technique, pass_, parameters)
    values: dict = {}
    sources: dict = {}
    unapplied: list[str] = []
    unevaluated: list[str] = []
    for st, vals, ptype, srcs in _state_values(effect, consts.pass_, consts):
        cls = st.state_class
        if cls is None or cls in _NOT_STATE:
            continue
        label = st.name + (f"[{st.index}]" if cls in _INDEXED else "")
        if cls is StateClass.RENDER:
            key = APPLIED_RENDER.get(st.name.removeprefix("D3DRS_"))
            if key is None:
                if st.name not in PIPELINE_RENDER:
                    unapplied.append(label)
                continue
            word = _dword(vals, ptype) if vals is not None else None
            if word is None:
                unevaluated.append(st.name)
                continue
            values[key] = _from_dword(key, word)
            if srcs:
                sources[key] = [safe_text(s) for s in srcs]
            else:
                sources.pop(key, None)
            continue
        if cls is StateClass.TEXTURE_STAGE and st.name in STAGE_UNIFORM_STATES:
            continue
        unapplied.append(label)
    srgb: dict[str, set[int]] = {"vertex": set(base.srgbtexture), "pixel": set(base.srgbtexture)}
    srgb_sources: dict[str, list[str]] = {}
    for (stage, register), states in sorted(consts.sampler_states.items()):
        for sv in states:
            if sv.name == "SRGBTexture":
                word = _dword(list(sv.value), sv.state.parameter.parameter_type)
                if word is None:
                    unevaluated.append(f"SRGBTexture (s{register})")
                    continue
                (srgb[stage].add if word else srgb[stage].discard)(register)
                if sv.sources:
                    srgb_sources[f"{stage} s{register}"] = [safe_text(s) for s in sv.sources]
            elif sv.name not in PIPELINE_SAMPLER:
                unapplied.append(f"sampler state {sv.name} (s{register})")
    notes = []
    if unapplied:
        notes.append("xlate does not apply these states the pass sets (fixed-function or texture-stage state "
                     "D3D9 ignores while shaders are set, or state no shader can honour): "
                     + ", ".join(dict.fromkeys(unapplied)))
    if unevaluated:
        notes.append("these states take a value xlate cannot evaluate (a struct member or object), so the "
                     "draw state keeps its own: " + ", ".join(dict.fromkeys(unevaluated)))
    if values.get("clipplaneenable") and not any(any(p) for p in base.clipplanes):
        notes.append("the pass enables clip planes, but their equations come from SetClipPlane: give them as "
                     "draw_state clipplanes (all zero now)")
    if sources:
        notes.append("states computed from parameters (baked with these parameter values; draw_state_mode="
                     "'dynamic' reads them at draw time): "
                     + ", ".join(f"{k} <- {', '.join(v)}" for k, v in sources.items()))
    try:
        merged = base.to_dict()
        merged.update(values)
        vertex = DrawState.from_dict({**merged, "srgbtexture": sorted(srgb["vertex"])})
        pixel = DrawState.from_dict({**merged, "srgbtexture": sorted(srgb["pixel"])})
    except DrawStateError as exc:
        raise DrawStateError(f"pass {safe_text(consts.pass_.name or '')!r}: {exc}") from None
    shown = {k: (v if k not in ("fogcolor",) else f"0x{v:08x}") for k, v in values.items()}
    if srgb["pixel"] != set(base.srgbtexture):
        shown["srgbtexture"] = sorted(srgb["pixel"])
    extra = {"srgbtexture_vertex": sorted(srgb["vertex"])} if srgb["vertex"] != set(base.srgbtexture) else {}
    if srgb_sources:
        sources["srgbtexture"] = [s for v in srgb_sources.values() for s in v]
    return PassDrawState(shown, sources, tuple(notes), vertex, pixel, extra)
