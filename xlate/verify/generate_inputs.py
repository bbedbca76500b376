"""Inputs for generated programs: the sampler policy (``sampler_roles``,
derived from the shader alone), ``random_inputs`` (inputs, constants and
textures in the ranges ``generate``'s module docstring documents), the
lane layout of pixel shaders (``pixel_grid``) and the texture contents
(point grids, smooth periodic 2D/volume content, cube content that is a
smooth function of the direction).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..bytecode.model import Shader
from ..bytecode.tables import TEXTURE, Opcode, RegisterType, SamplerType
from .generate_program import GeneratedProgram
from .reference import ReferenceConstants, Result, run_shader
from .textures import SamplerState, Texture

R = RegisterType
O = Opcode

QUAD_GRID_WIDTH = 4  # pixels per row of the lane grid (2 quads)


# --------------------------------------------------------------------------
# Sampler policy (derived from the shader alone)
# --------------------------------------------------------------------------

POINT, LINEAR, LINEAR_LOD, CUBE = "point", "linear", "linear_lod", "cube"


def _roles_from(samplers: dict[int, int]) -> dict[int, str]:
    """Generation-time roles: even 2D/volume samplers are POINT, odd ones
    LINEAR; cubes CUBE (see ``generate``'s module docstring)."""
    out = {}
    for s, t in samplers.items():
        if t == SamplerType.CUBE:
            out[s] = CUBE
        else:
            out[s] = POINT if s % 2 == 0 else LINEAR
    return out


def sampler_roles(shader: Shader) -> dict[int, tuple[int, str, bool]]:
    """{sampler: (SamplerType, role, mipmapped)} as ``random_inputs`` binds
    textures: mipmapped (distinct levels, trilinear) only for LINEAR/CUBE
    samplers that no pixel-shader texld/texldb/texldp/texldd reads."""
    types = {i.dst.index: int(i.declaration.sampler_type) for i in shader.instructions
             if i.opcode == O.DCL and i.dst.type == R.SAMPLER}
    implicit = set()
    if shader.version.is_pixel:
        for i in shader.instructions:
            if i.opcode in (O.TEX, O.TEXLDD) and len(i.srcs) >= 2:
                implicit.add(i.srcs[1].index)
    roles = _roles_from(types)
    return {s: (t, roles[s], roles[s] != POINT and s not in implicit) for s, t in types.items()}


# --------------------------------------------------------------------------
# Inputs for run_shader
# --------------------------------------------------------------------------


@dataclass
class ShaderInputs:
    """Everything ``run_shader`` needs besides the shader (see its doc)."""

    inputs: dict
    constants: ReferenceConstants
    textures: dict[int, Texture]
    n: int
    pixel_coords: np.ndarray | None = None
    front_facing: np.ndarray | None = None
    texture_stages: dict = field(default_factory=dict)  # ps_1_x: {stage: reference_sm1.TextureStage}

    def kwargs(self) -> dict[str, Any]:
        kw: dict[str, Any] = dict(inputs=self.inputs, constants=self.constants, textures=self.textures, n=self.n)
        if self.texture_stages:
            kw["texture_stages"] = self.texture_stages
        if self.pixel_coords is not None:
            kw["pixel_coords"] = self.pixel_coords
        if self.front_facing is not None:
            kw["front_facing"] = self.front_facing
        return kw

    def run(self, shader: Shader, **options) -> Result:
        return run_shader(shader, **self.kwargs(), **options)


def pixel_grid(n: int) -> np.ndarray:
    """(n, 2) integer D3D pixel positions: lanes in 2×2 quads (TL, TR, BL,
    BR), quads laid out ``QUAD_GRID_WIDTH`` pixels per row."""
    if n % 4:
        raise ValueError("pixel shaders run in quads: n must be a multiple of 4")
    qw = QUAD_GRID_WIDTH // 2
    out = np.zeros((n, 2), np.float32)
    for lane in range(n):
        q, j = divmod(lane, 4)
        out[lane] = (2 * (q % qw) + (j & 1), 2 * (q // qw) + (j >> 1))
    return out


def _halfgrid(rng, lo, hi, size=None):
    """Odd multiples of 1/32 in (lo, hi)."""
    klo = math.ceil((lo * 32 - 1) / 2 + 1e-9)
    khi = math.floor((hi * 32 - 1) / 2 - 1e-9)
    ks = rng.integers(klo, khi + 1, size=size)
    return (2 * ks + 1) / 32.0


def _input_range(shader: Shader, rtype: int, index: int) -> tuple[float, float]:
    v = shader.version
    if v.is_pixel and v.major < 3 and rtype == R.INPUT:
        return 0.0, 1.0
    return -2.0, 2.0


def random_inputs(shader, rng, n: int = 16) -> ShaderInputs:
    """Inputs, constants and textures for a generated shader (or any sm2/3
    shader), following the ranges in ``generate``'s module docstring.
    ``rng`` is a ``random.Random``, a numpy ``Generator`` or an int seed."""
    if isinstance(shader, GeneratedProgram):
        shader = shader.shader
    if isinstance(rng, random.Random):
        rng = np.random.default_rng(rng.getrandbits(64))
    elif not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    v = shader.version
    pixel = v.is_pixel
    if pixel and v.major == 1:
        from .generate_sm1 import ps1_inputs

        return ps1_inputs(shader, rng, n)
    inputs: dict = {}
    coords = pixel_grid(n) if pixel else None
    for ins in shader.instructions:
        if ins.opcode != O.DCL or ins.dst.type not in (R.INPUT, TEXTURE) or (ins.dst.type == TEXTURE and not pixel):
            continue
        lo, hi = _input_range(shader, ins.dst.type, ins.dst.index)
        key = ("v" if ins.dst.type == R.INPUT else "t", ins.dst.index)
        if not pixel:
            inputs[key] = _halfgrid(rng, lo, hi, (n, 4)).astype(np.float32)
            continue
        # affine in the pixel position: a + b·x + c·y, b and c multiples of 1/16
        xmax, ymax = float(coords[:, 0].max()), float(coords[:, 1].max())
        span = (hi - lo) / 4
        kmax = int(span * 16 // max(1.0, xmax + ymax))
        vals = np.zeros((n, 4), np.float32)
        for c in range(4):
            b = rng.integers(-kmax, kmax + 1) / 16
            cc = rng.integers(-kmax, kmax + 1) / 16
            ext = abs(b) * xmax + abs(cc) * ymax
            a = float(_halfgrid(rng, lo + ext, hi - ext))
            col = a + b * coords[:, 0] + cc * coords[:, 1]
            if col.min() <= lo or col.max() >= hi:
                col = np.full(n, _halfgrid(rng, lo, hi))
            vals[:, c] = col
        inputs[key] = vals
    nconst = 256 if v.is_vertex else (224 if v.major >= 3 else 32)
    floats = _halfgrid(rng, -2.0, 2.0, (nconst, 4)).astype(np.float32)
    ints = np.zeros((16, 4), np.int32)
    ints[:, 0] = rng.integers(0, 4, 16)
    ints[:, 1] = rng.integers(0, 5, 16)
    ints[:, 2] = rng.integers(-2, 3, 16)
    bools = [bool(x) for x in rng.integers(0, 2, 16)]
    constants = ReferenceConstants(floats=floats, ints=ints, bools=bools)
    textures = {s: _texture(rng, t, role, mips) for s, (t, role, mips) in sampler_roles(shader).items()}
    front = np.full(n, bool(rng.integers(0, 2))) if pixel else None
    return ShaderInputs(inputs, constants, textures, n, coords, front)


_ADDRESS = ("wrap", "mirror", "clamp", "border", "mirroronce")


def _texture(rng, stype: int, role: str, mips: bool) -> Texture:
    volume = stype == SamplerType.VOLUME
    if role == POINT:
        dims = [int(2 ** rng.integers(1, 4 if volume else 5)) for _ in range(3 if volume else 2)]
        shape = tuple(reversed(dims)) + (4,)
        level = rng.integers(0, 17, size=shape) / 16.0
        state = SamplerState(
            *(str(rng.choice(_ADDRESS)) for _ in range(3)), mag_filter="point", min_filter="point", mip_filter="none",
            border_color=tuple(float(x) for x in rng.integers(0, 17, 4) / 16.0))
        return Texture("volume" if volume else "2d", [level], state)
    if role == CUBE:
        size = 16
        a = rng.uniform(-1, 1, (4, 3))
        a /= np.maximum(1.0, np.linalg.norm(a, axis=1, keepdims=True))
        levels = []
        nlev = int(math.log2(size)) + 1 if mips else 1
        for lev in range(nlev):
            s = max(1, size >> lev)
            levels.append((_cube_level(s, a) + 0.04 * lev).astype(np.float32))
        state = SamplerState(mag_filter="linear", min_filter="linear", mip_filter="linear" if mips else "none")
        return Texture("cube", levels, state)
    size = 16 if volume else 32
    p = rng.integers(-1, 3, (4, 3))
    phase = rng.uniform(0, 2 * math.pi, 4)
    nlev = int(math.log2(size)) + 1 if mips else 1
    levels = []
    for lev in range(nlev):
        s = max(1, size >> lev)
        g = (np.arange(s) + 0.5) / s
        if volume:
            w, h, d = np.meshgrid(g, g, g, indexing="ij")
            uvw = np.stack([d, h, w], -1)  # (slice, row, col) -> (u, v, w)
            uvw = uvw[..., ::-1]
        else:
            vv, uu = np.meshgrid(g, g, indexing="ij")
            uvw = np.stack([uu, vv, np.zeros_like(uu)], -1)
        lv = 0.5 + 0.25 * np.sin(2 * math.pi * np.tensordot(uvw, p.T, axes=1) + phase) + 0.04 * lev
        levels.append(lv.astype(np.float32))
    state = SamplerState(*(str(rng.choice(_ADDRESS)) for _ in range(3)), mag_filter="linear", min_filter="linear",
                         mip_filter="linear" if mips else "none",
                         border_color=tuple(float(x) for x in rng.uniform(0.25, 0.75, 4)))
    return Texture("volume" if volume else "2d", levels, state)


# D3D cube faces: +X (sc=-z, tc=-y), -X (z, -y), +Y (x, z), -Y (x, -z), +Z (x, -y), -Z (-x, -y)
_FACE_AXES = [((0, 1), (2, -1), (1, -1)), ((0, -1), (2, 1), (1, -1)), ((1, 1), (0, 1), (2, 1)),
              ((1, -1), (0, 1), (2, -1)), ((2, 1), (0, 1), (1, -1)), ((2, -1), (0, -1), (1, -1))]


def cube_direction(face: int, s: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Directions of face coordinates (s, t) in [0, 1] (D3D layout)."""
    (ma, mas), (sa, ss), (ta, ts) = _FACE_AXES[face]
    d = np.zeros(s.shape + (3,))
    d[..., ma] = mas
    d[..., sa] = ss * (2 * s - 1)
    d[..., ta] = ts * (2 * t - 1)
    return d


def cube_value(directions: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The smooth function of direction that cube textures hold."""
    u = directions / np.linalg.norm(directions, axis=-1, keepdims=True)
    return 0.5 + 0.25 * np.tensordot(u, a.T, axes=1)


def _cube_level(size: int, a: np.ndarray) -> np.ndarray:
    g = (np.arange(size) + 0.5) / size
    tt, ss = np.meshgrid(g, g, indexing="ij")
    return np.stack([cube_value(cube_direction(f, ss, tt), a) for f in range(6)])
