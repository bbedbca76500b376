"""vkd3d's D3D9 draws (``shared/peer-corpus/vkd3d/cases.jsonl``, format in
its README): the inputs of a case as the verification tools take them, and
the probe comparison.  Shared by the reference-interpreter and the GL
runs of the corpus (tests/verify/test_reference_vkd3d.py,
tests/verify/test_vkd3d_llvmpipe.py).

* ``load_cases(path)`` -> list of case dicts, in file order.
* ``constants_of(case)`` -> ``ReferenceConstants``: the runner's constant
  array (raw bits, so int uniforms stay int bits) for c0... of both stages.
* ``textures_of(case)`` -> {stage: ``Texture``} with the case's sampler
  state (D3D9 defaults for stages without one); R32F reads (r, 1, 1, 1).
* ``vertex_inputs(case)`` -> ({(DeclUsage, index): (n, k) floats}, n).
* ``probe_pixels(probe)`` -> the (x, y) pixels a probe checks.
* ``ulp_distance(a, b)`` sign-magnitude ULPs (vkd3d's compare_float);
  ``compare_probe(probe, pixels, got)`` -> (passed, detail).
* ``TargetSession``: a device's render targets holding each case's prior
  draws; ``ProbeTally``: probe outcomes against a known-failures table.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..bytecode.tables import DeclUsage
from .reference import ReferenceConstants
from .textures import SamplerState, Texture

F32 = np.float32

__all__ = [
    "load_cases", "constants_of", "textures_of", "vertex_inputs", "ulp_distance", "probe_pixels",
    "compare_probe", "RECT_SAMPLE_LIMIT", "RECT_STRIDE", "wanted_content", "TargetSession", "ProbeTally",
]


def load_cases(path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def constants_of(case) -> ReferenceConstants:
    regs = {}
    for u in case["uniforms"]:
        bits = [int(b, 16) for b in u["bits"]]
        regs[int(u["register"][1:])] = np.array(bits, dtype=np.uint32).view(F32)
    size = max(regs) + 1 if regs else 0
    table = np.zeros((size, 4), F32)
    for k, v in regs.items():
        table[k] = v
    return ReferenceConstants(floats=table)


_FILTER = {"POINT": "point", "LINEAR": "linear", "NONE": "none", "ANISOTROPIC": "anisotropic"}


def textures_of(case) -> dict[int, Texture]:
    samplers = {s["stage"]: s for s in case["samplers"]}
    out = {}
    for t in case["textures"]:
        data = np.asarray(t["data"], dtype=F32)
        ncomp = 1 if t["format"] == "R32_FLOAT" else 4
        levels, pos = [], 0
        w, h = t["width"], t["height"]
        for _ in range(t["levels"]):
            count = w * h * ncomp
            level = data[pos : pos + count].reshape(h, w, ncomp)
            pos += count
            if ncomp == 1:  # D3DFMT_R32F reads as (r, 1, 1, 1)
                level = np.concatenate([level, np.ones((h, w, 3), F32)], axis=2)
            levels.append(level)
            w, h = max(w // 2, 1), max(h // 2, 1)
        s = samplers.get(t["stage"])
        if s is None:
            state = SamplerState()
        else:
            au, av, aw = s["address_uvw"]
            state = SamplerState(
                address_u=au, address_v=av, address_w=aw,
                mag_filter=_FILTER[s["d3d9_magfilter"]], min_filter=_FILTER[s["d3d9_minfilter"]],
                mip_filter=_FILTER[s["d3d9_mipfilter"]],
            )
        out[t["stage"]] = Texture(t.get("type", "2d"), levels, state)
    return out


_DECL_COUNT = {"D3DDECLTYPE_FLOAT1": 1, "D3DDECLTYPE_FLOAT2": 2, "D3DDECLTYPE_FLOAT3": 3, "D3DDECLTYPE_FLOAT4": 4}


def vertex_inputs(case) -> tuple[dict, int]:
    draw = case["draw"]
    n = draw["vertex_count"]
    streams = {vb["stream"]: vb for vb in draw["vertex_buffers"]}
    inputs = {}
    for el in draw["vertex_declaration"]:
        vb = streams[el["slot"]]
        data = np.asarray(vb["data"], dtype=F32)
        stride = vb["stride"] // 4
        k = _DECL_COUNT[el["d3d9_type"]]
        off = el["offset"] // 4
        vals = np.stack([data[i * stride + off : i * stride + off + k] for i in range(n)])
        usage = DeclUsage[el["d3d9_usage"].replace("D3DDECLUSAGE_", "")]
        inputs[(usage, el["index"])] = vals
    return inputs, n


def render_state(case):
    """The case's fixed-function state as the runners' ``gl.RenderState``."""
    from .gl import RenderState  # the GL module loads moderngl only when a context is made

    rs = case["render_state"]
    planes = tuple(tuple(rs["clip_planes"][k]) for k in range(8) if rs["clip_plane_enable_mask"] & (1 << k))
    return RenderState(
        cull=rs["cull_mode"], shade_mode=rs["shade_mode"],
        alpha_func=rs["alpha_func"] if rs["alpha_test_enable"] else None, alpha_ref=rs["d3d9_alpharef"],
        clip_planes=planes, point_size=rs["point_size"], point_size_min=rs["point_size_min"],
        point_size_max=rs["point_size_max"], point_sprite=rs["point_sprite_enable"])


def make_draw(case):
    """The case's draw as ``gl.Draw``, which drives the GL and Vulkan runners alike."""
    from .gl import Draw

    vertices, _ = vertex_inputs(case)
    rt = case["render_target"]
    vp = case["viewport"]
    return Draw(vertices=vertices, primitive=case["draw"]["topology"], constants=constants_of(case),
                textures=textures_of(case), size=(rt["width"], rt["height"]),
                targets=max(len(case["render_targets"]), 1), viewport=(vp["x"], vp["y"], vp["width"], vp["height"]),
                state=render_state(case), count=case["draw"]["vertex_count"])


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sign-magnitude ULP distance of float32 values (vkd3d compare_float)."""
    ia = np.asarray(a, F32).view(np.int32).astype(np.int64)
    ib = np.asarray(b, F32).view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(2**31) - ia, ia)
    ib = np.where(ib < 0, -(2**31) - ib, ib)
    return np.abs(ia - ib)


RECT_SAMPLE_LIMIT = 4096
RECT_STRIDE = 7  # odd, so both columns/rows of a quad get sampled over the grid


def probe_pixels(probe, limit: int | None = RECT_SAMPLE_LIMIT) -> list[tuple[int, int]]:
    """The pixels a probe checks.  A rect of up to ``limit`` pixels (None:
    any) is checked whole; a larger one (only ddxddy's full-target rect) on
    a grid of every RECT_STRIDE-th column and row plus its last column and
    row, so every edge, every corner and both pixel parities are covered."""
    if "point" in probe:
        return [tuple(probe["point"])]
    left, top, right, bottom = probe["rect"]
    if limit is None or (right - left) * (bottom - top) <= limit:
        xs, ys = range(left, right), range(top, bottom)
    else:
        xs = sorted(set(range(left, right, RECT_STRIDE)) | {right - 1})
        ys = sorted(set(range(top, bottom, RECT_STRIDE)) | {bottom - 1})
    return [(x, y) for y in ys for x in xs]


def compare_probe(probe, pixels, got: np.ndarray) -> tuple[bool, str]:
    """Compare (k, 4) colours at ``pixels`` with the probe's rgba within its
    ulps (null = exact)."""
    want = np.asarray(probe["rgba"], F32)
    ulps = probe["ulps"] or 0
    dist = ulp_distance(got, np.broadcast_to(want, got.shape))
    bad = np.nonzero(dist.max(axis=1) > ulps)[0]
    if len(bad):
        i = bad[0]
        return False, (f"pixel {tuple(pixels[i])}: got {got[i].tolist()}, want {want.tolist()} (ulps {ulps}); "
                       f"{len(bad)}/{len(pixels)} pixels differ")
    return True, ""


# --------------------------------------------------------------------------
# Running the draws on a device, and counting what the probes say
# --------------------------------------------------------------------------


def wanted_content(case) -> list[tuple[tuple, tuple]]:
    """Per render target: (clear colour, ids of the draws since the clear)."""
    out = []
    for rt in case["render_targets"] or [case["render_target"]]:
        clear = rt.get("clear")
        colour = tuple(clear["effective_rgba"]) if clear else (0.0, 0.0, 0.0, 0.0)
        out.append((colour, tuple(rt.get("prior_draws_since_clear", []))))
    return out


class TargetSession:
    """Persistent render targets and what they hold, for a runner (GL or
    Vulkan) that draws into them: a case whose pixels it does not write
    (discard, alpha test, clip planes) must find the draws before it since
    the last clear, so those are replayed when the targets hold anything
    else.  ``make_targets(w, h, count)`` builds the runner's RenderTargets;
    ``draw(case, targets)`` draws one case."""

    def __init__(self, by_id: dict, make_targets, draw):
        self.by_id, self.make_targets, self.draw = by_id, make_targets, draw
        self.targets = None
        self.content = None
        self.replays = 0

    def run(self, case) -> None:
        """Draw the case into targets holding its expected prior content."""
        want = wanted_content(case)
        rt = case["render_target"]
        t = self.targets
        if t is None or t.count != len(want) or (t.width, t.height) != (rt["width"], rt["height"]):
            if t is not None:
                t.release()
            self.targets = self.make_targets(rt["width"], rt["height"], len(want))
            self.content = None
        if self.content != want:
            self.replays += 1
            self.content = None
            self.targets.clear([c for c, _ in want])
            # Targets cleared at different times: replay the longest history
            # (a simplification; the corpus's one MRT case has equal ones).
            for prior in max((p for _, p in want), key=len):
                if prior in self.by_id:
                    try:
                        self.draw(self.by_id[prior], self.targets)
                    except Exception:  # noqa: BLE001 - its own case reports it
                        pass
        try:
            self.draw(case, self.targets)
        except Exception:
            self.content = None
            raise
        self.content = [(c, p + (case["id"],)) for c, p in want]

    def probe(self, case) -> list[tuple[dict, bool, str]]:
        out, reads = [], {}
        for probe in case["probes"]:
            pixels = probe_pixels(probe, limit=None)
            rtv = probe.get("rtv", 0)
            if rtv not in reads:
                reads[rtv] = self.targets.read(rtv)
            xy = np.asarray(pixels)
            got = reads[rtv][xy[:, 1], xy[:, 0]]
            ok, detail = compare_probe(probe, pixels, got)
            out.append((probe, ok, detail))
        return out

    def close(self) -> None:
        if self.targets is not None:
            self.targets.release()
            self.targets = None


class ProbeTally:
    """Probe outcomes of a run of cases against a table of known failures.

    todo probes (vkd3d expects its own bytecode to be wrong there) are
    reported, never counted as failures; a known-failure case that passes is
    listed in ``fixed`` so the table stays true."""

    def __init__(self, known: dict[str, str]):
        self.known = known
        self.counts = dict(passed=0, failed=0, todo_failed=0, todo_passed=0, skipped=0, known=0)
        self.unexpected: list[str] = []
        self.fixed: list[str] = []
        self.todo_outcomes: list[str] = []

    def run(self, case, results_of) -> None:
        """Record one case; ``results_of(case)`` gives [(probe, ok, detail)]
        and any exception from it fails every probe of the case."""
        try:
            results = results_of(case)
        except Exception as e:  # noqa: BLE001 - translation, compile or draw failure
            results = [(p, False, f"{type(e).__name__}: {str(e)[:300]}") for p in case["probes"]]
        failed = False
        for probe, ok, detail in results:
            if probe["todo"] or case.get("draw_todo_d3d9"):
                self.counts["todo_passed" if ok else "todo_failed"] += 1
                self.todo_outcomes.append(f"{case['id']}@{probe['line']}:{'pass' if ok else 'fail'}")
                continue
            self.counts["passed" if ok else "failed"] += 1
            if not ok:
                failed = True
                if case["id"] not in self.known:
                    self.unexpected.append(f"{case['id']} (line {probe['line']}): {detail}")
        if case["id"] in self.known:
            self.counts["known"] += 1
            if not failed:
                self.fixed.append(case["id"])

    def text(self) -> str:
        c = self.counts
        return (f"{c['passed']} probes passed, {c['failed']} failed ({len(self.unexpected)} unexpected, "
                f"{c['known']} known-failure cases), todo: {c['todo_failed']} failed as expected, "
                f"{c['todo_passed']} passed")

    def check(self) -> None:
        assert not self.unexpected, f"{len(self.unexpected)} unexpected failures:\n" + "\n".join(self.unexpected)
        assert not self.fixed, f"known failures now pass (remove them from KNOWN_FAILURES): {self.fixed}"
