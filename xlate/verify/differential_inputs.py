"""Inputs of the differential check: one seed's values for both sides
(``Inputs``), corpus inputs (``make_inputs``), generated programs' inputs
(``_generated_inputs``) and the affine-per-quad helpers (``differential``'s
module docstring, "Inputs")."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..bytecode.model import Shader
from ..bytecode.tables import DeclUsage, SamplerType
from ..drawstate import DrawState
from .differential_base import F32, PS_LANES, VS_LANES, O, R
from .reference import ReferenceConstants, Result, run_shader
from .reference_sm1 import TextureStage
from .textures import SamplerState, Texture


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------


@dataclass
class Inputs:
    """Everything one seed feeds to both sides."""

    reference: dict  # key -> (n, 4): register ("v", 0) or semantic ("texcoord", 0) keys
    constants: ReferenceConstants
    textures: dict[int, Texture]
    n: int
    pixel_coords: np.ndarray | None = None
    front_facing: bool = True
    texture_stages: dict[int, TextureStage] = field(default_factory=dict)
    # pixel shaders: per reference key, (A, B, C), each (quads, 4): in quad q the
    # pixel (dx, dy) from its top-left pixel (dx, dy in {0, 1}) reads
    # A[q] + B[q]*dx + C[q]*dy (``_quad_values``)
    affine: dict = field(default_factory=dict)
    # the translation options that change what the reference computes
    # (``reference_options``): legacy_multiply, infinities
    options: dict = field(default_factory=dict)
    # pixel shaders drawn with fog / the alpha test (xlate.drawstate.DrawState):
    # the state, the fog coordinate's (A, B, C) per quad as for ``affine``
    # (what a vertex shader's oFog would give), and the pixels' depth z (the
    # quads of ``_quads`` lie at z = DEPTH)
    draw_state: Any = None
    fog_affine: tuple | None = None
    depth: float = 0.5

    def run(self, shader: Shader, **options) -> Result:
        kw = dict(inputs=self.reference, constants=self.constants, textures=self.textures, n=self.n,
                  texture_stages=self.texture_stages, **self.options)
        if self.draw_state is not None:
            kw["draw_state"] = self.draw_state
            kw["depth"] = self.depth
            if self.fog_affine is not None:
                kw["fog_coordinate"] = _quad_values(*self.fog_affine)[:, 0]
        if self.pixel_coords is not None:
            kw["pixel_coords"] = self.pixel_coords
            kw["front_facing"] = np.full(self.n, bool(self.front_facing))
        kw.update(options)
        return run_shader(shader, **kw)


GRID = 2.0**-18


def _fine(rng: np.random.Generator, lo: float, hi: float, size=None):
    """Random multiples of 2**-18 strictly inside (lo, hi), never 0: fine
    enough that sums and products of a few of them almost never land on a
    texel boundary or a compare threshold (the coarse grids a generator
    needs for exact arithmetic would: the sum of two odd multiples of 1/32
    is a multiple of 1/16), coarse enough that per-quad affine inputs stay
    exact through interpolation."""
    klo = math.floor(lo / GRID) + 1
    khi = math.ceil(hi / GRID) - 1
    ks = rng.integers(klo, khi + 1, size=size)
    ks = np.where(ks == 0, 1, ks)
    return ks * GRID


def _const_sizes(shader: Shader) -> tuple[int, int, int]:
    v = shader.version
    if v.is_vertex:
        return (8192 if v.is_sw else 256), (2048 if v.is_sw else 16), (2048 if v.is_sw else 16)
    if v.major >= 3 or v.is_sw:
        return 224, 16, 16
    if v.major == 2:
        return 32, 16, 16
    return 8, 0, 0


def _random_constants(shader: Shader, rng: np.random.Generator) -> ReferenceConstants:
    nf, ni, nb = _const_sizes(shader)
    floats = _fine(rng, -2.0, 2.0, (nf, 4)).astype(F32)
    ints = np.zeros((max(ni, 1), 4), np.int32)
    ints[:, 0] = rng.integers(0, 4, len(ints))
    ints[:, 1] = rng.integers(0, 5, len(ints))
    ints[:, 2] = rng.integers(-2, 3, len(ints))
    bools = [bool(x) for x in rng.integers(0, 2, max(nb, 1))]
    return ReferenceConstants(floats=floats, ints=ints, bools=bools)


_ADDRESS = ("wrap", "mirror", "clamp", "border", "mirroronce")


def point_texture(rng: np.random.Generator, kind: str) -> Texture:
    """A one-level POINT-sampled texture of random texels (multiples of 1/16)."""
    state = SamplerState(*(str(rng.choice(_ADDRESS)) for _ in range(3)), mag_filter="point", min_filter="point",
                         mip_filter="none", border_color=tuple(float(x) for x in rng.integers(0, 17, 4) / 16.0))
    if kind == "cube":
        level = rng.integers(0, 17, size=(6, 4, 4, 4)) / 16.0
        return Texture("cube", [level.astype(F32)], state)
    if kind == "volume":
        dims = [int(2 ** rng.integers(1, 4)) for _ in range(3)]
        level = rng.integers(0, 17, size=tuple(reversed(dims)) + (4,)) / 16.0
        return Texture("volume", [level.astype(F32)], state)
    dims = [int(2 ** rng.integers(1, 5)) for _ in range(2)]
    level = rng.integers(0, 17, size=tuple(reversed(dims)) + (4,)) / 16.0
    return Texture("2d", [level.astype(F32)], state)


def _sampler_kinds(shader: Shader, refl: dict) -> dict[int, str]:
    kinds = {s["register"]: s["type"] for s in refl.get("samplers", ())}
    for ins in shader.instructions:
        if ins.opcode == O.DCL and ins.dst.type == R.SAMPLER and ins.dst.index not in kinds:
            t = ins.declaration.sampler_type
            kinds[ins.dst.index] = {SamplerType.CUBE: "cube", SamplerType.VOLUME: "volume"}.get(t, "2d")
    return kinds


def _pixel_input_keys(refl: dict) -> list[tuple[str, int]]:
    return [(i["usage"], int(i["usage_index"])) for i in refl["inputs"] if not i["glsl"].startswith("gl_")]


def make_inputs(shader: Shader, refl: dict, seed: int, n: int | None = None) -> Inputs:
    """Seeded inputs for a corpus shader (ranges in the module docstring)."""
    from .generate import pixel_grid

    rng = np.random.default_rng([seed, 0x5EED])
    v = shader.version
    consts = _random_constants(shader, rng)
    textures = {s: point_texture(rng, kind) for s, kind in sorted(_sampler_kinds(shader, refl).items())}
    stages = {}
    if v.is_pixel and v.major < 2:
        for s in range(8):
            mat = tuple(float(x) for x in rng.integers(-16, 17, 4) / 16.0)
            stages[s] = TextureStage(False, mat, float(rng.integers(-16, 17) / 16.0), float(rng.integers(-16, 17) / 16.0))
    if v.is_vertex:
        n = n or VS_LANES
        inputs = {}
        for i in refl["inputs"]:
            inputs[("v", int(i["register"]))] = _fine(rng, -2.0, 2.0, (n, 4)).astype(F32)
        return Inputs(inputs, consts, textures, n, texture_stages=stages)
    n = n or PS_LANES
    coords = pixel_grid(n)
    nq = n // 4
    inputs, affine = {}, {}
    for key in _pixel_input_keys(refl):
        lo, hi = (0.0, 1.0) if key[0] == "color" and v.major < 3 else (-2.0, 2.0)
        kmax = int((hi - lo) * 2)  # slopes up to (hi - lo) / 8 per pixel, multiples of 1/16
        B = rng.integers(-kmax, kmax + 1, (nq, 4)) / 16.0
        C = rng.integers(-kmax, kmax + 1, (nq, 4)) / 16.0
        A = np.zeros((nq, 4))
        for q in range(nq):
            for comp in range(4):
                lo_a = lo - min(0.0, B[q, comp]) - min(0.0, C[q, comp])
                hi_a = hi - max(0.0, B[q, comp]) - max(0.0, C[q, comp])
                A[q, comp] = float(_fine(rng, lo_a, hi_a))
        affine[key] = (A, B, C)
        inputs[key] = _quad_values(A, B, C)
    front = bool(rng.integers(0, 2))
    return Inputs(inputs, consts, textures, n, coords, front, stages, affine)


def _quad_values(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Lane values (n, 4) of per-quad affine inputs (lanes TL, TR, BL, BR)."""
    dx = np.tile([0.0, 1.0, 0.0, 1.0], len(A))[:, None]
    dy = np.tile([0.0, 0.0, 1.0, 1.0], len(A))[:, None]
    rep = lambda a: np.repeat(a, 4, axis=0)  # noqa: E731
    return (rep(A) + rep(B) * dx + rep(C) * dy).astype(F32)


def _global_affine(a, b, c, coords: np.ndarray):
    """(A, B, C) per quad of one affine function a + b*x + c*y."""
    tl = coords[0::4].astype(np.float64)
    A = a[None, :] + b[None, :] * tl[:, :1] + c[None, :] * tl[:, 1:2]
    return A, np.repeat(b[None, :], len(tl), 0), np.repeat(c[None, :], len(tl), 0)


def _affine_from_lanes(values: np.ndarray, coords: np.ndarray):
    """Recover (a, b, c) of lane values that are affine in the pixel position
    (``generate.random_inputs`` makes them so)."""
    values = np.asarray(values, np.float64)
    if values.ndim == 1:
        values = np.broadcast_to(values, (len(coords), len(values)))
    full = np.zeros((len(coords), 4))
    full[:, : values.shape[1]] = values
    if values.shape[1] < 4:
        full[:, 3] = 1.0
    i0 = int(np.flatnonzero((coords[:, 0] == 0) & (coords[:, 1] == 0))[0])
    i1 = int(np.flatnonzero((coords[:, 0] == 1) & (coords[:, 1] == 0))[0])
    i2 = int(np.flatnonzero((coords[:, 0] == 0) & (coords[:, 1] == 1))[0])
    a = full[i0]
    b = full[i1] - a
    c = full[i2] - a
    again = a + b * coords[:, :1] + c * coords[:, 1:2]
    if not np.array_equal(again.astype(F32), full.astype(F32)):
        raise ValueError("pixel-shader inputs are not affine in the pixel position")
    return a, b, c


def _generated_inputs(program, shader: Shader, refl: dict, seed: int) -> Inputs:
    """``generate.random_inputs`` for a generated program, as ``Inputs``."""
    from .generate import random_inputs

    si = random_inputs(shader, random.Random(seed), n=32 if shader.version.is_pixel else 32)
    inputs = Inputs(dict(si.inputs), si.constants, dict(si.textures), si.n, si.pixel_coords,
                    bool(si.front_facing[0]) if si.front_facing is not None else True,
                    dict(si.texture_stages))
    if shader.version.is_pixel:
        for key, vals in si.inputs.items():
            inputs.affine[key] = _global_affine(*_affine_from_lanes(vals, si.pixel_coords), si.pixel_coords)
    return inputs


def _gl_key(key, shader: Shader, refl: dict) -> tuple[str, int] | None:
    """Reference input key -> the (usage, index) the GL runner binds."""
    kind, idx = key
    if isinstance(kind, str) and kind not in ("v", "t"):
        return kind.lower(), int(idx)
    if not isinstance(kind, str):
        return DeclUsage(int(kind)).name.lower(), int(idx)
    v = shader.version
    if v.is_pixel and v.major < 3:
        return ("color" if kind == "v" else "texcoord"), int(idx)
    for i in refl["inputs"]:
        if i.get("register") == idx:
            return i["usage"], int(i["usage_index"])
    return None


