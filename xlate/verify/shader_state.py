"""The render states a runner leaves to the translation: which
``Options.draw_state`` gives a shader the part of a draw's ``gl.RenderState``
that needs code in the shader, and which of those states a translation
carries (from its reflection's ``render_state``).

A D3D9 layer has no pipeline state for the alpha test, user clip planes,
the point size clamp or point sprites on WebGPU, nor for a native SPIR-V
module on Vulkan: xlate's own passes (passes/drawstate.py, clip_planes.py,
points.py) put them into the translation, baked or as specialization /
override constants (``draw_state_mode="dynamic"``).  The runners check with
``states_in_shader`` that the translations honour the draw, and refuse a
draw whose state nothing honours: a draw never runs without a state it asks
for.
"""

from __future__ import annotations

from ..drawstate import CmpFunc, DrawState
from .draws import RenderState

MAX_CLIP_PLANES = 6  # D3D9's user clip planes (D3DRS_CLIPPLANEENABLE bits 0-5)

# The wrapper reasons of the runners (``vk._needs_wrappers``) a translation can carry.
ALPHA_TEST, CLIP_PLANES, POINT_SIZE, POINT_SPRITES = "alpha test", "user clip planes", "point size state", "point sprites"


def cmp_func(func: str) -> CmpFunc:
    return CmpFunc[func.replace(" ", "").replace("_", "").upper()]


def alpha_test_on(state: RenderState) -> bool:
    """Whether the draw's alpha test can discard anything (ALWAYS cannot)."""
    return state.alpha_func is not None and cmp_func(state.alpha_func) is not CmpFunc.ALWAYS


def shader_draw_state(state: RenderState, stage: str, *, points: bool = False) -> DrawState | None:
    """The ``Options.draw_state`` (baked) that gives a translation for
    ``stage`` ("vertex" / "pixel") the part of ``state`` that needs shader
    code: clip planes (and, for a draw of ``points``, the point size with
    its clamp) for the vertex shader; the alpha test (and, for ``points``,
    point sprites) for the pixel shader.  None when that stage needs none
    (so translations can be shared).  WebGPU, which cannot size points,
    leaves ``points`` off and draws quads."""
    values: dict = {}
    if stage == "vertex":
        planes = tuple(tuple(float(c) for c in p) for p in state.clip_planes)
        if len(planes) > MAX_CLIP_PLANES:
            raise NotImplementedError(f"{len(planes)} user clip planes; D3D9 has {MAX_CLIP_PLANES}")
        if planes:
            values["clipplaneenable"] = (1 << len(planes)) - 1
            values["clipplanes"] = planes + ((0.0, 0.0, 0.0, 0.0),) * (MAX_CLIP_PLANES - len(planes))
        if points:
            values.update(pointmode=True, pointsize=float(state.point_size), pointsize_min=float(state.point_size_min),
                          pointsize_max=float(state.point_size_max))
    else:
        if alpha_test_on(state):
            values.update(alphatestenable=True, alphafunc=cmp_func(state.alpha_func), alpharef=int(state.alpha_ref))
        if points and state.point_sprite:
            values["pointspriteenable"] = True
    return DrawState(**values) if values else None


def planes_in(vs_refl: dict, values: DrawState) -> list[tuple[float, ...]]:
    """The clip planes the VS translation writes distances for, in order."""
    rs = vs_refl.get("render_state") or {}
    if rs.get("mode") == "dynamic":
        keys = {p["key"] for p in rs.get("parameters") or ()}
        enabled = sorted({int(k[len("clipplane"):].partition("_")[0]) for k in keys if k.startswith("clipplane")})
        return [tuple(float(c) for c in values.clipplanes[i]) for i in enabled]
    return [tuple(float(c) for c in p["plane"]) for p in rs.get("clipplanes") or ()]


def alpha_test_in(ps_refl: dict, values: DrawState) -> tuple[CmpFunc, int] | None:
    """The alpha test the PS translation does (function, reference), or None."""
    rs = ps_refl.get("render_state") or {}
    if rs.get("mode") == "dynamic" and rs.get("alpha_test"):
        return (values.alphafunc, values.alpharef) if values.alphatestenable else None
    baked = rs.get("baked") or {}
    return (cmp_func(baked["alphafunc"]), int(baked["alpharef"])) if baked.get("alphatestenable") else None


def point_size_in(vs_refl: dict, values: DrawState) -> tuple[float, float, float] | None:
    """The point size state the VS translation writes (size, min, max), or None."""
    rs = vs_refl.get("render_state") or {}
    size = rs.get("pointsize")
    if size == "parameters":  # dynamic: the values the draw specializes
        return (values.pointsize, values.pointsize_min, values.pointsize_max)
    if isinstance(size, dict):
        return (size["size"], size["min"], size["max"])
    return None


def sprites_in(ps_refl: dict, values: DrawState) -> bool:
    """Whether the PS translation reads point-sprite coordinates."""
    rs = ps_refl.get("render_state") or {}
    if rs.get("mode") == "dynamic" and any(p["key"] == "pointspriteenable" for p in rs.get("parameters") or ()):
        return values.pointspriteenable
    return bool((rs.get("baked") or {}).get("pointspriteenable"))


def states_in_shader(state: RenderState, vs_refl: dict, ps_refl: dict, points: bool, state_values=None) -> set[str]:
    """The states of ``state`` (by their wrapper reasons) the translations
    honour themselves, with the draw's values (baked, or dynamic with
    ``state_values`` holding them)."""
    values = DrawState.from_dict(state_values)
    done = set()
    if alpha_test_on(state) and alpha_test_in(ps_refl, values) == (cmp_func(state.alpha_func), int(state.alpha_ref)):
        done.add(ALPHA_TEST)
    if state.clip_planes and planes_in(vs_refl, values) == [tuple(float(c) for c in p) for p in state.clip_planes]:
        done.add(CLIP_PLANES)
    if points:
        want = (float(state.point_size), float(state.point_size_min), float(state.point_size_max))
        if point_size_in(vs_refl, values) == want:
            done.add(POINT_SIZE)
        if state.point_sprite and sprites_in(ps_refl, values):
            done.add(POINT_SPRITES)
    return done


def check_in_shader(state: RenderState, vs_refl: dict, ps_refl: dict, state_values=None) -> None:
    """Raise ``NotImplementedError`` unless the translations do the alpha
    test and the clip planes ``state`` asks for (WebGPU: it has neither)."""
    values = DrawState.from_dict(state_values)
    if alpha_test_on(state):
        want = (cmp_func(state.alpha_func), int(state.alpha_ref))
        have = alpha_test_in(ps_refl, values)
        if have != want:
            raise NotImplementedError(
                f"WebGPU has no alpha test: translate the pixel shader with draw_state alphatestenable, alphafunc "
                f"{want[0].name.lower()}, alpharef {want[1]} (shader_draw_state), not {have}")
    if state.clip_planes:
        want_planes = [tuple(float(c) for c in p) for p in state.clip_planes]
        have_planes = planes_in(vs_refl, values)
        if have_planes != want_planes:
            raise NotImplementedError(
                "WebGPU has no user clip planes: translate the vertex shader with draw_state clipplaneenable and "
                f"clipplanes (shader_draw_state) for {want_planes}, not {have_planes}")
