"""The ps_1_x generator's policy, derived from the shader alone: texture
stage kinds and roles (``stage_plan``), the translation options they need
(``translate_options``) and the inputs (``ps1_inputs``).  See
``generate_sm1``'s module docstring."""

from __future__ import annotations

import numpy as np

from ..bytecode.model import Instruction, Shader
from ..bytecode.tables import TEXTURE, Opcode, SamplerType, ShaderVersion, SrcMod, make_swizzle
from .generate import CUBE, LINEAR, POINT, O, R, ShaderInputs, _halfgrid, _texture, pixel_grid
from .reference import ReferenceConstants
from .reference_sm1 import TextureStage

STAGE_KINDS = {0: "2d", 1: "2d", 2: "volume", 3: "cube", 4: "2d", 5: "volume", 6: "2d", 7: "2d"}
POINT_STAGES = frozenset({0, 2, 4})
# ps_1_1-1_3 stages with D3DTTFF_PROJECTED (translated as texture_projection COUNT4: a
# vertex shader is bound, so the divisor is .w, §2.10); ps_1_4 ignores the flag.
PROJECTED_STAGES = frozenset({1})
TEXCOORD_RANGES = ((-2.0, 2.0), (-2.0, 2.0), (0.5, 2.0), (0.5, 2.0))
# Set 3 is positive everywhere, so that a texm3x2depth row's w (tc[3] · a
# saturated texcoord) stays away from 0.
POSITIVE_SETS = frozenset({3})


def texcoord_ranges(k: int) -> tuple:
    """Per-component (lo, hi) of texture coordinate set k."""
    return ((0.5, 2.0),) * 4 if k in POSITIVE_SETS else TEXCOORD_RANGES


COLOR_RANGE = (0.0, 1.0)
# The ops that sample the texture of stage dst.index (ps_1_4 texld is O.TEX with a source).
SAMPLING_OPS = frozenset({O.TEX, O.TEXBEM, O.TEXBEML, O.TEXREG2AR, O.TEXREG2GB, O.TEXREG2RGB, O.TEXM3x2TEX,
                          O.TEXM3x3TEX, O.TEXDP3TEX, O.TEXM3x3SPEC, O.TEXM3x3VSPEC})
XYZ, XYW = make_swizzle([0, 1, 2, 2]), make_swizzle([0, 1, 3, 3])


def is_ps1(version) -> bool:
    if isinstance(version, str):
        version = ShaderVersion.parse(version)
    return version.is_pixel and version.major == 1


# --------------------------------------------------------------------------
# Stage policy (from the shader alone)
# --------------------------------------------------------------------------


def _direct(ins: Instruction) -> bool:
    """A sample at a raw texture coordinate set: ``tex t#`` (ps_1_1-1_3) or
    ``texld r#, t#`` without ``_dz``/``_dw`` (ps_1_4)."""
    if ins.opcode != O.TEX:
        return False
    if not ins.srcs:
        return True
    s = ins.srcs[0]
    return s.type == TEXTURE and s.modifier == SrcMod.NONE


def stage_kind(stage: int, op: Opcode | None = None) -> str:
    """The texture kind of ``stage``; the texm3x3 ops that sample take a
    volume: a cube lookup needs a direction that cannot be short, which a
    product with a fetched normal cannot promise, and a volume lookup of the
    reflection vector (whose length is E's) also tells whether E was
    normalised (the docs' formula does not; §2.11)."""
    return "volume" if op in (O.TEXM3x3TEX, O.TEXM3x3SPEC, O.TEXM3x3VSPEC) else STAGE_KINDS[stage]


def stage_role(stage: int, direct: bool, kind: str | None = None) -> str:
    kind = kind or STAGE_KINDS[stage]
    if kind == "cube":
        return CUBE
    return POINT if direct and stage in POINT_STAGES else LINEAR


def stage_plan(shader: Shader) -> dict[int, tuple[str, str]]:
    """{stage: (kind, role)} of every stage a ps_1_x program samples; a
    stage sampled both directly and dependently is LINEAR."""
    direct: dict[int, bool] = {}
    kinds: dict[int, str] = {}
    for ins in shader.instructions:
        if ins.opcode in SAMPLING_OPS and ins.dst is not None:
            k = ins.dst.index
            direct[k] = direct.get(k, True) and _direct(ins)
            kinds[k] = stage_kind(k, ins.opcode)
    return {k: (kinds[k], stage_role(k, d, kinds[k])) for k, d in sorted(direct.items())}


def projected_stages(shader: Shader) -> list[int]:
    """The stages of ``PROJECTED_STAGES`` a ps_1_1-1_3 program projects
    (``tex``, ``texbem``, ``texbeml`` read them)."""
    if shader.version.minor >= 4:
        return []
    return sorted({i.dst.index for i in shader.instructions if i.opcode in (O.TEX, O.TEXBEM, O.TEXBEML)
                   and i.dst.index in PROJECTED_STAGES})


def translate_options(shader: Shader) -> dict:
    """The translation options a generated ps_1_x program needs: the
    ``sampler_types`` of its cube and volume stages (2D is the default) and
    the ``texture_projection`` (COUNT4) of its projected stages."""
    out: dict = {}
    types = {k: kind for k, (kind, _) in stage_plan(shader).items() if kind != "2d"}
    if types:
        out["sampler_types"] = types
    projected = projected_stages(shader)
    if projected:
        out["texture_projection"] = {k: 4 for k in projected}
    return out


_STYPE = {"2d": SamplerType.TEX2D, "volume": SamplerType.VOLUME, "cube": SamplerType.CUBE}


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------


def _reads(shader: Shader) -> tuple[set, set]:
    """(colour inputs, texture coordinate sets) a ps_1_x program reads."""
    colours, sets = set(), set()
    ps14 = shader.version.minor >= 4
    for ins in shader.instructions:
        for s in ins.srcs:
            if s.type == R.INPUT:
                colours.add(s.index)
            elif s.type == TEXTURE and ps14:
                sets.add(s.index)
        d = ins.dst
        if d is not None and d.type == TEXTURE and not ps14:
            sets.add(d.index)  # tex ops read tc[m]; texkill too
        if ins.opcode == O.TEXKILL and d.type == TEXTURE:
            sets.add(d.index)
        if ins.opcode in (O.TEXM3x2TEX, O.TEXM3x3TEX, O.TEXM3x3):
            sets.update(range(d.index - (1 if ins.opcode == O.TEXM3x2TEX else 2), d.index))
    return colours, sets


def _affine(rng: np.random.Generator, coords: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """A column a + b·x + c·y of odd multiples of 1/32 in (lo, hi), b and c
    multiples of 1/16 (as ``generate.random_inputs``)."""
    xmax, ymax = float(coords[:, 0].max()), float(coords[:, 1].max())
    kmax = int((hi - lo) / 4 * 16 // max(1.0, xmax + ymax))
    b = rng.integers(-kmax, kmax + 1) / 16
    c = rng.integers(-kmax, kmax + 1) / 16
    ext = abs(b) * xmax + abs(c) * ymax
    a = float(_halfgrid(rng, lo + ext, hi - ext))
    col = a + b * coords[:, 0] + c * coords[:, 1]
    if col.min() <= lo or col.max() >= hi:
        col = np.full(len(coords), _halfgrid(rng, lo, hi))
    return col


def ps1_inputs(shader: Shader, rng: np.random.Generator, n: int) -> ShaderInputs:
    """Inputs, constants, textures and texture-stage state for a ps_1_x
    program (ranges in the module docstring)."""
    coords = pixel_grid(n)
    colours, sets = _reads(shader)
    inputs: dict = {}
    for k in sorted(colours):
        inputs[("v", k)] = np.stack([_affine(rng, coords, *COLOR_RANGE) for _ in range(4)], 1).astype(np.float32)
    for k in sorted(sets):
        inputs[("t", k)] = np.stack([_affine(rng, coords, lo, hi) for lo, hi in texcoord_ranges(k)], 1).astype(np.float32)
    floats = _halfgrid(rng, -2.0, 2.0, (32, 4)).astype(np.float32)
    constants = ReferenceConstants(floats=floats, ints=np.zeros((16, 4), np.int32), bools=[False] * 16)
    textures = {k: _texture(rng, _STYPE[kind], role, False) for k, (kind, role) in stage_plan(shader).items()}
    stages = {}
    for k in range(8):
        mat = tuple(float(x) for x in rng.integers(-16, 17, 4) / 16.0)
        projected = k in PROJECTED_STAGES and shader.version.minor < 4
        stages[k] = TextureStage(projected, mat, float(rng.integers(-16, 17) / 16.0), float(rng.integers(-16, 17) / 16.0))
    front = np.full(n, bool(rng.integers(0, 2)))
    return ShaderInputs(inputs, constants, textures, n, coords, front, texture_stages=stages)
