"""The draw-time render states WebGPU has no pipeline state for, in the
shader: how the WebGPU runner (``wgpu_runner``) draws D3D9's alpha test and
user clip planes, as a D3D9 layer on WebGPU would.

WebGPU has no alpha test and no user clip planes (only the
``clip_distances`` builtin, with the "clip-distances" feature).  xlate puts
both into the translation (``Options.draw_state``: passes/drawstate.py
discards by oC0.a, passes/clip_planes.py writes the clip distances), baked
or as override constants (``draw_state_mode="dynamic"``).  So a caller
translates with ``shader_draw_state(render_state)`` and the runner checks
(``check_in_shader``) that the translations honour the draw's
``gl.RenderState``, raising ``NotImplementedError`` with the reason when
they do not: a draw is never run without a state it asks for.

Points are another matter: WebGPU draws every point one pixel wide, so
point size and point sprites stay a platform limit.
"""

from __future__ import annotations

from ..drawstate import CmpFunc, DrawState
from .gl import RenderState

MAX_CLIP_PLANES = 6  # D3D9's user clip planes (D3DRS_CLIPPLANEENABLE bits 0-5)


def _cmp(func: str) -> CmpFunc:
    return CmpFunc[func.replace(" ", "").replace("_", "").upper()]


def alpha_test_on(state: RenderState) -> bool:
    """Whether the draw's alpha test can discard anything (ALWAYS cannot)."""
    return state.alpha_func is not None and _cmp(state.alpha_func) is not CmpFunc.ALWAYS


def shader_draw_state(state: RenderState, stage: str) -> DrawState | None:
    """The ``Options.draw_state`` (baked) that gives a translation for
    ``stage`` ("vertex" / "pixel") the part of ``state`` WebGPU lacks: clip
    planes for the vertex shader, the alpha test for the pixel shader; None
    when that stage needs none (so translations can be shared)."""
    if stage == "vertex":
        planes = tuple(tuple(float(c) for c in p) for p in state.clip_planes)
        if not planes:
            return None
        if len(planes) > MAX_CLIP_PLANES:
            raise NotImplementedError(f"{len(planes)} user clip planes; D3D9 has {MAX_CLIP_PLANES}")
        padded = planes + ((0.0, 0.0, 0.0, 0.0),) * (MAX_CLIP_PLANES - len(planes))
        return DrawState(clipplaneenable=(1 << len(planes)) - 1, clipplanes=padded)
    if not alpha_test_on(state):
        return None
    return DrawState(alphatestenable=True, alphafunc=_cmp(state.alpha_func), alpharef=int(state.alpha_ref))


def _planes_in(vs_refl: dict, values: DrawState) -> list[tuple[float, ...]]:
    """The clip planes the VS translation writes distances for, in order."""
    rs = vs_refl.get("render_state") or {}
    if rs.get("mode") == "dynamic":
        keys = {p["key"] for p in rs.get("parameters") or ()}
        enabled = sorted({int(k[len("clipplane"):].partition("_")[0]) for k in keys if k.startswith("clipplane")})
        return [tuple(float(c) for c in values.clipplanes[i]) for i in enabled]
    return [tuple(float(c) for c in p["plane"]) for p in rs.get("clipplanes") or ()]


def check_in_shader(state: RenderState, vs_refl: dict, ps_refl: dict, state_values=None) -> None:
    """Raise ``NotImplementedError`` unless the translations do the alpha
    test and the clip planes ``state`` asks for (baked with the same values,
    or dynamic with ``state_values`` holding them)."""
    values = DrawState.from_dict(state_values)
    if alpha_test_on(state):
        rs = ps_refl.get("render_state") or {}
        want = (_cmp(state.alpha_func), int(state.alpha_ref))
        if rs.get("mode") == "dynamic" and rs.get("alpha_test"):
            have = (values.alphafunc, values.alpharef) if values.alphatestenable else None
        else:
            baked = rs.get("baked") or {}
            have = ((_cmp(baked["alphafunc"]), int(baked["alpharef"]))
                    if baked.get("alphatestenable") else None)
        if have != want:
            raise NotImplementedError(
                f"WebGPU has no alpha test: translate the pixel shader with draw_state alphatestenable, alphafunc "
                f"{want[0].name.lower()}, alpharef {want[1]} (shader_draw_state), not {have}")
    if state.clip_planes:
        want_planes = [tuple(float(c) for c in p) for p in state.clip_planes]
        have_planes = _planes_in(vs_refl, values)
        if have_planes != want_planes:
            raise NotImplementedError(
                "WebGPU has no user clip planes: translate the vertex shader with draw_state clipplaneenable and "
                f"clipplanes (shader_draw_state) for {want_planes}, not {have_planes}")
