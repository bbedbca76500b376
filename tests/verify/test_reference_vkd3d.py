"""vkd3d's D3D9 draws (peer-corpus/vkd3d/cases.jsonl) through the reference
interpreter alone: decode the case's VS and PS, run the VS on the vertex
buffer, rasterise just the probed pixels, run the PS on them in 2×2 quads
and compare each probe (sign-magnitude ULPs, as vkd3d's compare_float).

The harness models the fixed-function steps the draws need (README of the
corpus, D3D9_SEMANTICS.md §5): D3D9 pixel centres at integer window
coordinates, perspective-correct interpolation, D3D's clockwise front face
for vFace, flat shading of COLOR inputs, user clip planes, the alpha test
at 8-bit precision, MRT, and for pixels a draw does not write (texkill,
alpha test, clip, not covered) the clear colour and the prior draws since
the clear.  Point primitives are not rasterised (listed below).

A probe marked todo for d3d9 (or a draw marked todo) is expected to fail:
its outcome is reported, not counted.  ``KNOWN_FAILURES`` lists the cases
expected to fail here with a reason; the test fails when one of them starts
passing or an unlisted case fails.
"""

from __future__ import annotations

import time
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from xlate.bytecode import decode
from xlate.bytecode.tables import DeclUsage, Opcode, RegisterType
from xlate.verify import run_shader
from xlate.verify.cases import ProbeTally, compare_probe, constants_of, probe_pixels, textures_of, vertex_inputs
from xlate.verify.cases import load_cases as _load_cases

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "peer-corpus" / "vkd3d"
CASES = CORPUS / "cases.jsonl"

pytestmark = pytest.mark.skipif(not CASES.exists(), reason=f"peer corpus not found at {CORPUS}")

# case id -> why the reference interpreter (or this harness) does not match.
# Per ``infinities`` mode (Options.infinities, the reference's argument of
# the same name): vkd3d's expectations were taken on drivers that return
# IEEE infinities, so "ieee" must pass every case.
KNOWN_FAILURES: dict[str, dict[str, str]] = {
    "clamp": {
        "rcp__d8": (
            "rcp(±0): the reference returns ±FLT_MAX in the default mode (D3D9_SEMANTICS §7.1 "
            "recommendation, ATI and the docs), the test expects IEEE ±inf (NVIDIA; infinities='ieee' passes)"
        ),
    },
    "ieee": {},
}

F32 = np.float32


# --------------------------------------------------------------------------
# Case inputs
# --------------------------------------------------------------------------


@lru_cache(maxsize=None)
def load_shader(name: str):
    return decode((CORPUS / name).read_bytes())


# --------------------------------------------------------------------------
# Rasterisation of the probed pixels
# --------------------------------------------------------------------------


def triangles_of(case, nverts: int) -> list[tuple[int, int, int]]:
    topo = case["draw"]["topology"]
    if topo == "triangle list":
        return [(i, i + 1, i + 2) for i in range(0, nverts - 2, 3)]
    if topo == "triangle strip":
        # Odd triangles swap their first two vertices to keep the winding;
        # the provoking vertex stays the strip's vertex i.
        return [(i, i + 1, i + 2) if i % 2 == 0 else (i + 1, i, i + 2) for i in range(nverts - 2)]
    raise NotImplementedError(f"topology {topo}")


def quad_lanes(pixels: list[tuple[int, int]]) -> np.ndarray:
    """The 2×2 quads holding ``pixels``, as (4q, 2) window coordinates in the
    interpreter's lane order (TL, TR, BL, BR)."""
    origins = sorted({(x & ~1, y & ~1) for x, y in pixels})
    lanes = [(ox + dx, oy + dy) for ox, oy in origins for dy in (0, 1) for dx in (0, 1)]
    return np.array(lanes, dtype=np.int64)


def render(case, pixels: list[tuple[int, int]], rtv: int, infinities: str = "clamp"):
    """Colour of target ``rtv`` at ``pixels`` after this draw, and whether
    this draw wrote it: (colours (k, 4), written (k,))."""
    lanes = quad_lanes(pixels)
    colours, written = shade(case, lanes, rtv, infinities)
    index = {tuple(p): i for i, p in enumerate(lanes.tolist())}
    sel = np.array([index[tuple(p)] for p in pixels])
    return colours[sel], written[sel]


def shade(case, lanes: np.ndarray, rtv: int, infinities: str = "clamp"):
    """Run the draw on the pixel lanes: (colour (n, 4), written (n,))."""
    consts = constants_of(case)
    vs = load_shader(case["vs_file_used"])
    ps = load_shader(case["ps"])
    vinputs, nverts = vertex_inputs(case)
    vres = run_shader(vs, vinputs, consts, {}, n=nverts, infinities=infinities)
    pos = vres.output((DeclUsage.POSITION, 0)).astype(np.float64)
    vp = case["viewport"]
    w = pos[:, 3]
    sx = (pos[:, 0] / w + 1) * vp["width"] / 2 + vp["x"]
    sy = (1 - pos[:, 1] / w) * vp["height"] / 2 + vp["y"]
    n = len(lanes)
    px, py = lanes[:, 0].astype(np.float64), lanes[:, 1].astype(np.float64)
    sprite = None
    if case["draw"]["topology"] == "point list":
        covered, vidx, pw, front, provoking, sprite = rasterise_points(case, vres, sx, sy, px, py)
    else:
        covered, vidx, pw, front, provoking = rasterise_triangles(case, nverts, sx, sy, w, px, py)
    if vidx is None:
        return np.zeros((n, 4), F32), np.zeros(n, bool)
    flat = case["render_state"]["shade_mode"] == "flat"

    def interpolate(values: np.ndarray, is_colour: bool) -> np.ndarray:
        v = values.astype(np.float64)
        if flat and is_colour:
            return v[provoking].astype(F32)
        return np.einsum("nk,nkc->nc", pw, v[vidx]).astype(F32)

    # VS outputs -> PS inputs by semantic (§5.7).
    by_sem = {}
    for (usage, index), name in vres.semantics.items():
        if usage == DeclUsage.POSITION:
            continue
        by_sem[(usage, index)] = interpolate(vres.outputs[name], usage == DeclUsage.COLOR)
    if sprite is not None:  # §5.4: point sprites replace every TEXCOORD input
        for key in [k for k in by_sem if k[0] == DeclUsage.TEXCOORD] + [(int(DeclUsage.TEXCOORD), i) for i in range(8)]:
            by_sem[key] = sprite
    if vs.version.major < 3 and (int(DeclUsage.COLOR), 0) not in by_sem:
        by_sem[(int(DeclUsage.COLOR), 0)] = np.ones((n, 4), F32)  # unwritten oD0 reads 1 (§5.2)
    pinputs = ps_inputs(ps, by_sem, n)

    res = run_shader(
        ps, pinputs, consts, textures_of(case), n=n,
        pixel_coords=lanes.astype(F32), front_facing=front, infinities=infinities,
    )
    written = covered & ~res.killed
    # User clip planes: clip distances interpolated, negative clips.
    rs = case["render_state"]
    mask = rs["clip_plane_enable_mask"]
    for k in range(8):
        if mask & (1 << k):
            d = pos @ np.asarray(rs["clip_planes"][k], dtype=np.float64)
            written &= np.einsum("nk,nk->n", pw, d[vidx]) >= 0
    colour = res.outputs.get(f"oC{rtv}")
    if colour is None:
        colour = np.zeros((n, 4), F32)
    oc0 = res.outputs.get("oC0", np.zeros((n, 4), F32))
    written &= alpha_test(rs, oc0[:, 3])
    return colour, written


def _barycentrics(sx, sy, a, b, c, px, py):
    area = (sx[b] - sx[a]) * (sy[c] - sy[a]) - (sx[c] - sx[a]) * (sy[b] - sy[a])
    l0 = ((sx[b] - px) * (sy[c] - py) - (sx[c] - px) * (sy[b] - py)) / area
    l1 = ((sx[c] - px) * (sy[a] - py) - (sx[a] - px) * (sy[c] - py)) / area
    return np.stack([l0, l1, 1 - l0 - l1], axis=1), area


def rasterise_triangles(case, nverts, sx, sy, w, px, py):
    """Per lane: covered, vertex numbers (n, 3), perspective-correct weights
    (n, 3), front facing, provoking vertex."""
    tris = triangles_of(case, nverts)
    n = len(px)
    if not tris:
        return np.zeros(n, bool), None, None, None, None
    # The first triangle that covers the lane's sample point (D3D9 samples at
    # integer window coordinates; edges inclusive, no top-left tie rule).
    tri_of = np.full(n, -1)
    bary = np.zeros((n, 3))
    areas = np.zeros(len(tris))
    for t, (a, b, c) in enumerate(tris):
        l, areas[t] = _barycentrics(sx, sy, a, b, c, px, py)
        if areas[t] == 0:
            continue
        inside = np.all(l >= 0, axis=1) & (tri_of < 0)
        tri_of[inside] = t
        bary[inside] = l[inside]
    covered = tri_of >= 0
    # Helper lanes (uncovered members of a quad) extrapolate the plane of a
    # triangle of their quad.
    quad_tri = np.maximum(tri_of.reshape(-1, 4).max(axis=1).repeat(4), 0)
    tri_use = np.where(covered, tri_of, quad_tri)
    for t, (a, b, c) in enumerate(tris):
        sel = ~covered & (tri_use == t)
        if sel.any() and areas[t] != 0:
            bary[sel] = _barycentrics(sx, sy, a, b, c, px, py)[0][sel]
    vidx = np.array(tris)[tri_use]
    pw = bary / w[vidx]
    pw = pw / pw.sum(axis=1, keepdims=True)
    front = areas[tri_use] > 0  # clockwise on a y-down screen is front (§5.5)
    strip = case["draw"]["topology"] == "triangle strip"
    provoking = np.array([t[1] if strip and i % 2 else t[0] for i, t in enumerate(tris)])[tri_use]
    return covered, vidx, pw, front, provoking


def rasterise_points(case, vres, sx, sy, px, py):
    """Point primitives as screen-aligned squares (later points win); size
    from oPts or D3DRS_POINTSIZE, clamped to [POINTSIZE_MIN, MAX]."""
    rs = case["render_state"]
    n, npts = len(px), len(sx)
    psize_name = vres.semantics.get((int(DeclUsage.PSIZE), 0))
    size = vres.outputs[psize_name][:, 0].astype(np.float64) if psize_name else np.full(npts, rs["point_size"])
    size = np.clip(size, rs["point_size_min"], rs["point_size_max"])
    point_of = np.full(n, -1)
    for p in range(npts):
        half = size[p] / 2
        inside = (px >= sx[p] - half) & (px < sx[p] + half) & (py >= sy[p] - half) & (py < sy[p] + half)
        point_of[inside] = p
    covered = point_of >= 0
    use = np.where(covered, point_of, np.maximum(point_of.reshape(-1, 4).max(axis=1).repeat(4), 0))
    vidx = np.repeat(use[:, None], 3, axis=1)
    pw = np.zeros((n, 3))
    pw[:, 0] = 1
    sprite = None
    if rs["point_sprite_enable"]:
        u = (px - (sx[use] - size[use] / 2)) / size[use]
        v = (py - (sy[use] - size[use] / 2)) / size[use]
        sprite = np.stack([u, v, np.zeros(n), np.zeros(n)], axis=1).astype(F32)
    return covered, vidx, pw, np.ones(n, bool), use, sprite


def ps_inputs(ps, by_sem: dict, n: int) -> dict:
    """PS input registers from interpolated semantics.  ps_3_0 inputs take
    the components of their DCL mask (several semantics may share a
    register); ps_2_x uses the fixed COLOR/TEXCOORD map."""
    if ps.version.major < 3:
        return {k: v for k, v in by_sem.items()}
    regs: dict[int, np.ndarray] = {}
    for ins in ps.instructions:
        if ins.opcode != Opcode.DCL or ins.dst.type != RegisterType.INPUT:
            continue
        sem = (int(ins.declaration.usage), ins.declaration.usage_index)
        reg = regs.setdefault(ins.dst.index, np.zeros((n, 4), F32))
        src = by_sem.get(sem)
        if src is None:
            continue
        for c in range(4):
            if ins.dst.write_mask & (1 << c):
                reg[:, c] = src[:, c]
    return {("v", k): v for k, v in regs.items()}


_ALPHA = {
    "never": lambda a, r: np.zeros_like(a, bool), "less": np.less, "equal": np.equal,
    "less equal": np.less_equal, "greater": np.greater, "not equal": np.not_equal,
    "greater equal": np.greater_equal, "always": lambda a, r: np.ones_like(a, bool),
}


def alpha_test(rs, alpha: np.ndarray) -> np.ndarray:
    """D3DRS_ALPHAFUNC against the 8-bit reference, alpha rounded to 8 bits
    (§5.8, as DXVK)."""
    if not rs["alpha_test_enable"]:
        return np.ones(alpha.shape, bool)
    # Not clamped: a float target keeps alpha 1.5, which then fails "equal 255".
    a = np.nan_to_num(alpha.astype(np.float64), posinf=1e12, neginf=-1e12)
    a8 = np.rint(np.clip(a, -1e12, 1e12) * 255).astype(np.int64)
    return _ALPHA[rs["alpha_func"]](a8, rs["d3d9_alpharef"])


def target_colour(case, cases_by_id, pixels, rtv, infinities="clamp"):
    """Final colour at pixels: this draw where it writes, otherwise the
    prior draws since the clear, otherwise the clear colour (or 0)."""
    colour, written = render(case, pixels, rtv, infinities)
    if written.all():
        return colour
    rt = case["render_targets"][rtv] if rtv < len(case["render_targets"]) else case["render_target"]
    clear = rt.get("clear")
    base = np.tile(np.asarray(clear["effective_rgba"] if clear else [0, 0, 0, 0], F32), (len(pixels), 1))
    for prior_id in rt.get("prior_draws_since_clear", []):
        prior = cases_by_id.get(prior_id)
        if prior is None:
            continue
        pc, pw = render(prior, pixels, rtv, infinities)
        base = np.where(pw[:, None], pc, base)
    return np.where(written[:, None], colour, base)


# --------------------------------------------------------------------------
# Probes
# --------------------------------------------------------------------------


def run_case(case, cases_by_id, infinities: str = "clamp") -> list[tuple[dict, bool, str]]:
    """(probe, passed, detail) for each probe of the case."""
    out = []
    for probe in case["probes"]:
        pixels = probe_pixels(probe)
        got = target_colour(case, cases_by_id, pixels, probe.get("rtv", 0), infinities)
        ok, detail = compare_probe(probe, pixels, got)
        out.append((probe, ok, detail))
    return out


def load_cases():
    return _load_cases(CASES)


@pytest.mark.parametrize("infinities", sorted(KNOWN_FAILURES))
def test_vkd3d_cases(record_property, infinities):
    start = time.perf_counter()
    cases = load_cases()
    by_id = {c["id"]: c for c in cases}
    tally = ProbeTally(KNOWN_FAILURES[infinities])
    for case in cases:
        if not case.get("runnable_on_d3d9_runner", True):
            tally.counts["skipped"] += 1
            continue
        tally.run(case, lambda c: run_case(c, by_id, infinities))
    elapsed = time.perf_counter() - start
    summary = (f"vkd3d reference (infinities={infinities}): {tally.text()}; {tally.counts['skipped']} cases skipped; "
               f"{elapsed:.1f}s")
    print(summary)
    print("todo probes (expected to fail on d3d9):", " ".join(tally.todo_outcomes))
    record_property("corpus_summary", summary)
    tally.check()
