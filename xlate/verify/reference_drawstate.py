"""The reference interpreter's model of D3D9's render state around a pixel
shader: the alpha test and fog (xlate/drawstate.py's ``DrawState``); and
around a vertex shader: the user clip planes' distances and the point size
(``clip_distances``, ``point_sizes``, re-exported by ``reference``).

This is the independent side of the check: it is written from D3D9's rules
(shared/semantics, the D3D9 fog and alpha-test documentation, Wine's
visual tests), in numpy on the reference's ``Result``, and shares nothing
with ``passes/drawstate.py`` but the ``DrawState`` value.

Rules:
* Alpha test (ALPHATESTENABLE): oC0.a is stored to an 8-bit target first,
  a8 = round(saturate(a) * 255) (NaN as 0, halves up), and the pixel
  survives when ``a8 ALPHAFUNC ALPHAREF`` holds (ALPHAREF's low 8 bits).
* Fog (FOGENABLE; pixel shaders before ps_3_0: a ps_3_0 does its own fog):
  the fog factor f is the interpolated fog coordinate (the vertex shader's
  oFog) when FOGTABLEMODE is NONE, else the table formula of the pixel's
  depth z, the position's z before the perspective divide (the 0..1 depth
  times the clip w; what wined3d and DXVK fog from with vertex shaders):
  LINEAR (end - z) / (end - start), EXP e^(-density z), EXP2
  e^(-(density z)^2).  f is clamped to [0, 1] (NaN counts as 0), then
  rgb = fogcolor.rgb + f (rgb - fogcolor.rgb); alpha is left alone.
"""

from __future__ import annotations

import dataclasses
from typing import Mapping

import numpy as np

from ..drawstate import CmpFunc, DrawState, FogMode
from .reference_program import Result, _usage

F32 = np.float32

_COMPARE = {
    CmpFunc.NEVER: lambda a, r: np.zeros(a.shape, bool),
    CmpFunc.LESS: np.less,
    CmpFunc.EQUAL: np.equal,
    CmpFunc.LESSEQUAL: np.less_equal,
    CmpFunc.GREATER: np.greater,
    CmpFunc.NOTEQUAL: np.not_equal,
    CmpFunc.GREATEREQUAL: np.greater_equal,
    CmpFunc.ALWAYS: lambda a, r: np.ones(a.shape, bool),
}


def alpha_unorm8(alpha: np.ndarray) -> np.ndarray:
    """oC0.a as the integer the alpha test compares with the 8-bit reference
    (float64 array): round(a * 255), not saturated (a float target keeps 1.5,
    which fails EQUAL 255 on D3D9: vkd3d's alpha-test), NaN as 0."""
    a = np.nan_to_num(np.asarray(alpha, np.float64), nan=0.0, posinf=np.inf, neginf=-np.inf)
    return np.floor(a * 255.0 + 0.5)


def alpha_passes(state: DrawState, alpha: np.ndarray) -> np.ndarray:
    """(n,) bool: the pixels the alpha test keeps."""
    a = np.asarray(alpha)
    if not state.alphatestenable:
        return np.ones(a.shape, bool)
    return _COMPARE[state.alphafunc](alpha_unorm8(a), int(state.alpharef) & 0xFF)


def fog_factor(state: DrawState, fog_coordinate, depth) -> np.ndarray:
    """(n,) float64 in [0, 1]: the factor D3D9 blends with (1: no fog)."""
    mode = state.fogtablemode
    with np.errstate(all="ignore"):
        if mode is FogMode.NONE:
            f = np.asarray(fog_coordinate, np.float64)
        else:
            z = np.asarray(depth, np.float64)
            if mode is FogMode.LINEAR:
                f = (state.fogend - z) / (state.fogend - state.fogstart)
            elif mode is FogMode.EXP:
                f = np.exp(-state.fogdensity * z)
            else:
                f = np.exp(-((state.fogdensity * z) ** 2))
    return np.clip(np.nan_to_num(f, nan=0.0), 0.0, 1.0)


def fog_blend(state: DrawState, colour: np.ndarray, f: np.ndarray) -> np.ndarray:
    """(n, 4): rgb moved towards the fog colour by 1 - f; alpha unchanged."""
    c = np.asarray(colour, np.float64).copy()
    fc = np.asarray(state.fogcolor[:3], np.float64)
    with np.errstate(all="ignore"):
        c[:, :3] = fc[None, :] + f[:, None] * (c[:, :3] - fc[None, :])
    return c.astype(F32)


def fog_applies(version) -> bool:
    """Whether D3D9 fogs the output of a pixel shader of ``version``."""
    return version.is_pixel and version.major < 3


def apply_draw_state(result, version, state: DrawState, *, fog_coordinate=None, depth=None):
    """The reference ``Result`` of a pixel shader after the render state:
    ``killed`` also holds the pixels the alpha test rejects, oC0 is fogged.
    ``fog_coordinate``: (n,) interpolated oFog (0 when not given);
    ``depth``: (n,) the pixels' clip-space z (table fog; 0 when not
    given).  A vertex shader's result is returned as it is: D3D9 fogs and
    tests pixels only (a vs_1_x/2_x that writes no oFog passes on 0, which
    is what the pixel side reads when ``fog_coordinate`` is not given)."""
    if state is None or not version.is_pixel or "oC0" not in result.outputs:
        return result
    colour = np.asarray(result.outputs["oC0"])
    n = len(colour)
    killed = np.asarray(result.killed, bool).copy()
    outputs = dict(result.outputs)
    if state.alphatestenable:
        killed |= ~alpha_passes(state, colour[:, 3])
    if state.fogenable and fog_applies(version):
        fog = np.zeros(n) if fog_coordinate is None else np.asarray(fog_coordinate, np.float64).reshape(n)
        z = np.zeros(n) if depth is None else np.broadcast_to(np.asarray(depth, np.float64), (n,))
        outputs["oC0"] = fog_blend(state, colour, fog_factor(state, fog, z))
    return dataclasses.replace(result, outputs=outputs, killed=killed)


def random_draw_state(rng) -> DrawState:
    """A random fog / alpha-test state for the differential tests: each of
    fog and the alpha test on half the time, every mode and compare
    function, fog ranges and densities around the depths drawn (0..1)."""
    import random

    if not isinstance(rng, random.Random):
        rng = random.Random(rng)
    start = rng.choice([0.0, 0.1, 0.25, 0.4])
    return DrawState(
        fogenable=rng.random() < 0.5,
        fogcolor=tuple(rng.randrange(256) / 255.0 for _ in range(4)),
        fogtablemode=rng.choice(list(FogMode)),
        fogstart=start,
        fogend=start + rng.choice([0.25, 0.5, 1.0]),
        fogdensity=rng.choice([0.5, 1.0, 2.0, 3.0]),
        alphatestenable=rng.random() < 0.5,
        alphafunc=rng.choice(list(CmpFunc)),
        alpharef=rng.randrange(256),
    )


# --------------------------------------------------------------------------
# Around a vertex shader: user clip planes and the point size
# --------------------------------------------------------------------------


def clip_distances(result: Result, planes) -> dict[int, np.ndarray]:
    """D3D9 user clip planes with a vertex shader (semantics 5.8): for each
    enabled plane ``{index: (a, b, c, d)}`` (or (index, plane) pairs) the
    per-vertex distance dot(plane, oPos) in clip space, (n,) float32.  The
    rasteriser keeps the part of a primitive where every interpolated
    distance is >= 0."""
    pos = result.output(("position", 0)).astype(np.float64)
    items = planes.items() if isinstance(planes, Mapping) else planes
    return {int(i): (pos @ np.asarray(p, np.float64)).astype(F32) for i, p in items}


def point_sizes(result: Result, draw_state) -> np.ndarray:
    """D3D9's point size per vertex (semantics 5.2), (n,) float32: oPts where
    the vertex shader wrote it, else D3DRS_POINTSIZE, clamped to
    [POINTSIZE_MIN, POINTSIZE_MAX] (``draw_state``: an
    ``xlate.drawstate.DrawState`` or its dict form)."""
    from ..drawstate import DrawState

    state = DrawState.from_dict(draw_state)
    n = len(result.killed)
    size = np.full(n, state.pointsize, np.float64)
    name = result.semantics.get((_usage("psize"), 0))
    if name is not None and name in result.outputs:
        written = result.trace[name][:, 0] >= 0
        size = np.where(written, result.outputs[name][:, 0], size)
    return np.clip(size, state.pointsize_min, state.pointsize_max).astype(F32)
