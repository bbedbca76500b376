"""Random draw states for the random differential programs (issue 14).

Every draw-time state the generator's programs can exercise, drawn from the
seed, so that ``differential.check_generated`` compares a translation made
with the state (baked, or dynamic: uniforms on GL, specialization constants
on Vulkan) with the reference interpreter applying the same state:

* pixel programs: fog and the alpha test (``reference_drawstate.
  random_draw_state``), sRGB write, sRGB read (SRGBTEXTURE) and depth
  compare (a D16/D24 texture bound) on point samplers, unbound samplers;
* vertex programs: user clip planes (the captured clip distances against
  the reference's ``clip_distances``), the point size with its clamp (the
  captured gl_PointSize against ``point_sizes``), unbound samplers.

sRGB read and depth compare change what a texture lookup computes, so the
samplers that may get them are chosen *before* the program is generated
(``random_plan``): the generator then bounds an sRGB sample's error and
keeps a depth-compare reference z exact (``GenOptions.srgb_samplers`` /
``depth_samplers``).  Only point samplers are used: xlate decodes sRGB after
the lookup, which is exact under point filtering only (a layer binds an
sRGB view for filtered ones, docs/ir.md), and a point-sampled depth compare
is a plain compare, where D3D's PCF is the driver's.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass

import numpy as np

from ..bytecode.tables import SamplerType
from ..drawstate import DrawState
from .generate import GenOptions, sampler_roles
from .reference_drawstate import random_draw_state
from .textures import Texture

F32 = np.float32
POINT_ROLE = "point"


@dataclass(frozen=True)
class SamplerPlan:
    """The point samplers (even numbers: the generator's POINT role) a
    random state may decode as sRGB, or bind a depth texture to."""

    srgb: tuple[int, ...] = ()
    depth: tuple[int, ...] = ()

    def gen_options(self, base: GenOptions | None = None) -> GenOptions:
        return dataclasses.replace(base or GenOptions(), srgb_samplers=self.srgb, depth_samplers=self.depth)


def random_plan(rng: random.Random) -> SamplerPlan:
    srgb, depth = [], []
    for s in range(0, 16, 2):
        r = rng.random()
        if r < 0.3:
            srgb.append(s)
        elif r < 0.6:
            depth.append(s)
    return SamplerPlan(tuple(srgb), tuple(depth))


def random_state(rng: random.Random, program, plan: SamplerPlan) -> DrawState:
    """A random draw state for a generated ``program`` (generated with
    ``plan.gen_options()``), every state its stage can depend on."""
    shader = program.shader
    roles = sampler_roles(shader)  # {s: (SamplerType, role, mipmapped)}
    point = {s for s, (_, role, _) in roles.items() if role == POINT_ROLE}
    if shader.version.is_pixel:
        depth = [s for s in plan.depth if s in point and roles[s][0] == SamplerType.TEX2D and rng.random() < 0.8]
        srgb = [s for s in plan.srgb if s in point and rng.random() < 0.8]
        null = [s for s in roles if s not in depth and s not in srgb and rng.random() < 0.2]
        return random_draw_state(rng).with_(srgbwriteenable=rng.random() < 0.3, srgbtexture=srgb,
                                            depthtexture=depth, nulltexture=null)
    mask = rng.randrange(1, 64) if rng.random() < 0.6 else 0
    planes = [[rng.randint(-8, 8) / 8.0 for _ in range(4)] for _ in range(6)]
    low = rng.choice([0.0, 1.0, 2.0])
    srgb = [s for s in plan.srgb if s in point and rng.random() < 0.8]
    null = [s for s in roles if s not in srgb and rng.random() < 0.2]
    return DrawState(clipplaneenable=mask, clipplanes=planes, pointmode=rng.random() < 0.5,
                     pointsize=rng.choice([0.5, 1.0, 3.0, 8.0, 100.0]), pointsize_min=low,
                     pointsize_max=low + rng.choice([1.0, 4.0, 63.0]), srgbtexture=srgb, nulltexture=null)


def generated(seed: int, version, base: GenOptions | None = None):
    """(program, state) for a seed: the plan, the program generated with it,
    and a state drawn for it (all from the seed)."""
    from .generate import generate_seed

    rng = random.Random(seed * 7919 + 14)
    plan = random_plan(rng)
    program = generate_seed(seed, version, plan.gen_options(base))
    return program, random_state(rng, program, plan)


def with_depth_textures(textures: dict, state: DrawState, seed: int) -> dict:
    """``textures`` with a D16/D24 texture (of the same size) on each of
    ``state.depthtexture``: depths k/16 (k = 1..15), so a reference z on the
    generator's half grid (odd multiples of 1/32) is never within 1/32 of
    one; point filtering, no border (a border depth is the driver's)."""
    if not state.depthtexture:
        return textures
    rng = np.random.default_rng([seed, 0xDE97])
    out = dict(textures)
    for s in state.depthtexture:
        tex = textures.get(s)
        if tex is None or tex.kind != "2d":
            continue
        shape = tex.levels[0].shape
        level = np.zeros(shape, F32)
        level[..., 0] = rng.integers(1, 16, size=shape[:-1]) / 16.0
        address = [a if a in ("wrap", "mirror", "clamp") else "clamp"
                   for a in (tex.sampler.address_u, tex.sampler.address_v, tex.sampler.address_w)]
        sampler = dataclasses.replace(tex.sampler, address_u=address[0], address_v=address[1],
                                      address_w=address[2], mag_filter="point", min_filter="point",
                                      mip_filter="none")
        out[s] = Texture("2d", [level], sampler, format=str(rng.choice(["d16", "d24"])))
    return out


def vertex_state_expects(translation, result, vr, state: DrawState, expects: dict) -> list[tuple]:
    """What the draw state adds to a vertex shader's outputs, as (Expect,
    driver values (n, 4)) pairs compared in x: each clip distance the
    translation writes (dot(plane, the D3D position), tolerance from the
    position's) and, when the translation writes the clamped point size,
    the size (``reference.point_sizes``: oPts or POINTSIZE, clamped; the
    tolerance of oPts).  ``expects``: the reference's, by output name; its
    oPts is taken out when the translation clamps it (the clamped size is
    compared here instead)."""
    from .differential import Expect
    from .reference import clip_distances, point_sizes

    rs = translation.reflection.get("render_state") or {}
    n = result.n if hasattr(result, "n") else len(next(iter(result.outputs.values())))
    pos_exp = expects.get("oPos")
    pos_ok = np.ones(n, bool) if pos_exp is None else pos_exp.compare.all(axis=1)
    pos_tol = np.zeros((n, 4)) if pos_exp is None else pos_exp.tol.astype(np.float64)
    out = []

    def expect(name, want, tol, compare):
        value = np.zeros((n, 4), F32)
        value[:, 0] = want
        t = np.zeros((n, 4))
        t[:, 0] = tol
        c = np.zeros((n, 4), bool)
        c[:, 0] = compare & np.isfinite(want)
        return Expect(name, value, t, c, np.full((n, 4), -1))

    if rs.get("clipplanes"):
        indexes = [p["index"] for p in rs["clipplanes"]]
        want = clip_distances(result, {i: state.clipplanes[i] for i in indexes})
        pos = np.abs(result.output(("position", 0)).astype(np.float64))
        for i in indexes:
            plane = np.abs(np.asarray(state.clipplanes[i], np.float64))
            tol = pos_tol @ plane + 2.0**-20 * (1.0 + pos @ plane)
            got = np.zeros((n, 4), F32)
            got[:, 0] = vr.outputs[f"gl_ClipDistance[{i}]"][:, 0]
            out.append((expect(f"clip distance {i}", want[i], tol, pos_ok), got))
    if rs.get("pointsize") and "gl_PointSize" in vr.outputs:
        size = expects.pop("oPts", None)
        want = point_sizes(result, state)
        tol = 1e-6 * (1.0 + np.abs(want)) + (0.0 if size is None else size.tol[:, 0])
        compare = np.ones(n, bool) if size is None else size.compare[:, 0]
        got = np.zeros((n, 4), F32)
        got[:, 0] = vr.outputs["gl_PointSize"][:, 0]
        out.append((expect("point size", want, tol, compare), got))
    return out
