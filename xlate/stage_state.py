"""Draw-time sampler, clip-plane and point state baked into a translation.

D3D9 decides part of what a shader computes from device state at draw time
(issue #14): which samplers see a depth texture (shadow compare), sRGB
reads and writes, ATI's FETCH4, unbound samplers, user clip planes, the
point size and point sprites.  ``StageState`` holds those states in baked
form: the translation is specialised for them (``Options.stage_state``),
and a shader that cannot depend on a state gets no code for it (a vertex
shader no sampler path, a shader that never samples no sRGB decode).

The passes that apply it: ``passes/samplers_state.py`` (samplers, sRGB
write), ``passes/clip_planes.py``, ``passes/points.py``.  What a
translation assumed is reported under the reflection's ``stage_state``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

# D3D9 has 16 pixel samplers and 4 vertex samplers (D3DVERTEXTEXTURESAMPLER0-3
# are separate stages the layer maps onto s0-s3 of the vertex shader).
MAX_SAMPLER = 15
MAX_CLIP_PLANES = 6  # D3DMAXUSERCLIPPLANES
FLT_MAX = 3.4028234663852886e38


@dataclass(frozen=True)
class StageState:
    """Sampler, clip-plane and point state baked into the code.

    Sampler sets hold s# numbers of the shader being translated (pixel or
    vertex).  depth: samplers bound to a D16/D24 (shadow) texture -- texld
    compares the coordinate's z (after texldp's divide) with the stored depth,
    LESS_EQUAL, giving 0 or 1 in every component; the layer enables the
    API's compare mode on the sampler (GL_COMPARE_REF_TO_TEXTURE, GL_LEQUAL /
    VkSamplerCreateInfo.compareEnable, VK_COMPARE_OP_LESS_OR_EQUAL) and its
    linear filter gives PCF as D3D9 drivers do.  srgb: D3DSAMP_SRGBTEXTURE,
    rgb decoded with the sRGB curve after the lookup (exact under point
    filtering; a layer that wants filtering in linear space binds an sRGB
    view and leaves the sampler out of this set).  fetch4: ATI's FETCH4
    (the red channels of the 2x2 footprint).  unbound: samplers with no
    texture: every lookup reads (0, 0, 0, 1) as D3D9 does (a Vulkan null
    descriptor would give alpha 0).  srgb_write: D3DRS_SRGBWRITEENABLE,
    every colour output's rgb saturated and encoded.

    clip_planes: the enabled user clip planes (D3DRS_CLIPPLANEENABLE bit i
    -> (i, (a, b, c, d)) in clip space): the vertex shader writes clip
    distance i = dot(plane, D3D position); the layer enables
    GL_CLIP_DISTANCEi (Vulkan: the shaderClipDistance feature).

    point_size: None leaves points alone (oPts, if written, is the size
    unclamped); a size (D3DRS_POINTSIZE) makes the vertex shader write
    the size clamped to [point_size_min, point_size_max] (oPts when the
    shader writes it, else point_size).  point_sprite: D3DRS_POINTSPRITEENABLE
    -- every TEXCOORD input of the pixel shader reads (u, v, 0, 0) of the
    point, u right and v down in the D3D image.
    """

    depth: tuple[int, ...] = ()
    srgb: tuple[int, ...] = ()
    fetch4: tuple[int, ...] = ()
    unbound: tuple[int, ...] = ()
    srgb_write: bool = False
    clip_planes: tuple[tuple[int, tuple[float, float, float, float]], ...] = ()
    point_size: float | None = None
    point_size_min: float = 1.0
    point_size_max: float = 64.0
    point_sprite: bool = False

    def __post_init__(self):
        for name in ("depth", "srgb", "fetch4", "unbound"):
            object.__setattr__(self, name, _samplers(name, getattr(self, name)))
        groups = {"depth": set(self.depth), "fetch4": set(self.fetch4), "unbound": set(self.unbound)}
        for a, b in (("depth", "fetch4"), ("depth", "unbound"), ("fetch4", "unbound")):
            both = groups[a] & groups[b]
            if both:
                raise ValueError(f"stage_state: sampler {min(both)} is both {a} and {b}")
        if set(self.srgb) & set(self.depth):
            raise ValueError(f"stage_state: sampler {min(set(self.srgb) & set(self.depth))} is a depth texture; "
                             "depth formats have no sRGB form")
        object.__setattr__(self, "clip_planes", _planes(self.clip_planes))
        for name in ("point_size", "point_size_min", "point_size_max"):
            v = getattr(self, name)
            if v is None and name == "point_size":
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise ValueError(f"stage_state: {name} must be a finite number >= 0, not {v!r}")
            object.__setattr__(self, name, float(v))
        if self.point_size_min > self.point_size_max:
            raise ValueError("stage_state: point_size_min is above point_size_max")
        for name in ("srgb_write", "point_sprite"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"stage_state: {name} must be true or false")

    @classmethod
    def from_value(cls, value) -> "StageState | None":
        """A StageState from itself, None, or a mapping of its field names
        (``{"depth": [0], "clip_planes": {0: [0, 1, 0, 0]}}``, JSON-friendly:
        plane maps may have string keys, sets may be lists)."""
        if value is None or isinstance(value, StageState):
            return value
        if not isinstance(value, dict):
            raise ValueError(f"stage_state: give a mapping of state names, not {type(value).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(value) - known)
        if unknown:
            raise ValueError(f"stage_state: unknown state(s) {', '.join(map(str, unknown))}; "
                             f"known: {', '.join(sorted(known))}")
        return cls(**value)

    def samples(self) -> bool:
        """Whether any sampler state is set."""
        return bool(self.depth or self.srgb or self.fetch4 or self.unbound)

    def to_json(self) -> dict:
        return {
            "depth": list(self.depth), "srgb": list(self.srgb), "fetch4": list(self.fetch4),
            "unbound": list(self.unbound), "srgb_write": self.srgb_write,
            "clip_planes": [{"index": i, "plane": list(p)} for i, p in self.clip_planes],
            "point_size": self.point_size, "point_size_min": self.point_size_min,
            "point_size_max": self.point_size_max, "point_sprite": self.point_sprite,
        }


def _samplers(name: str, value) -> tuple[int, ...]:
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise ValueError(f"stage_state: {name} must be a list of sampler numbers, not {value!r}")
    out = set()
    for s in value:
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= MAX_SAMPLER:
            raise ValueError(f"stage_state: {name}: {s!r} is not a sampler number (0-{MAX_SAMPLER})")
        out.add(s)
    return tuple(sorted(out))


def _planes(value) -> tuple:
    items = list(value.items()) if isinstance(value, dict) else list(value)
    out: dict[int, tuple] = {}
    for entry in items:
        try:
            index, plane = entry
            index = int(index)
            plane = tuple(float(x) for x in plane)
        except (TypeError, ValueError):
            raise ValueError(f"stage_state: clip plane {entry!r} is not (index, (a, b, c, d))") from None
        if not 0 <= index < MAX_CLIP_PLANES or len(plane) != 4 or not all(math.isfinite(x) for x in plane):
            raise ValueError(f"stage_state: clip plane {entry!r}: index 0-{MAX_CLIP_PLANES - 1} and four finite "
                             "numbers")
        if index in out:
            raise ValueError(f"stage_state: clip plane {index} given twice")
        out[index] = plane
    return tuple(sorted(out.items()))
