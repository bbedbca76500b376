"""What a draw is, for every runner (``gl``, ``vk``, ``wgpu_runner``): the
D3D9 render state (``RenderState``), the draw call (``Draw``) and what comes
back (``DrawResult``, ``VertexResult``).  Split from ``gl.py``, which
re-exports every name."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from .reference import ReferenceConstants
from .reference_sm1 import TextureStage
from .textures import Texture

FLT_MAX = float(np.finfo(np.float32).max)


def usage_key(key) -> tuple[str, int]:
    """(usage, index) with usage spelled as the reflection does ("texcoord"):
    accepts strings, ``DeclUsage`` members or their numbers."""
    usage, index = key
    if isinstance(usage, str):
        return usage.lower(), int(index)
    from ..bytecode.tables import DeclUsage

    return DeclUsage(int(usage)).name.lower(), int(index)


# --------------------------------------------------------------------------
# Public dataclasses
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RenderState:
    """The D3D9 render state a draw uses (D3D9 defaults, except the cull mode:
    none).  ``alpha_func`` None disables the alpha test; otherwise one of
    never/less/equal/less_equal/greater/not_equal/greater_equal/always
    (spaces accepted) against ``alpha_ref`` (0-255, D3DRS_ALPHAREF).
    ``clip_planes``: the enabled user clip planes, D3D clip space (a, b, c, d),
    a point is kept where dot(plane, position) >= 0.  ``cull``: "none",
    "cw", "ccw" (D3DCULL: "ccw" culls counter-clockwise = D3D back faces).
    ``shade_mode``: "gouraud" or "flat" (COLOR inputs from the first vertex)."""

    cull: str = "none"
    shade_mode: str = "gouraud"
    alpha_func: str | None = None
    alpha_ref: int = 0
    clip_planes: tuple[tuple[float, float, float, float], ...] = ()
    point_size: float = 1.0
    point_size_min: float = 1.0
    point_size_max: float = FLT_MAX
    point_sprite: bool = False


@dataclass
class Draw:
    """One draw call.

    ``vertices``: {(usage, index): (n, k) floats, k <= 4}; missing components
    read (0, 0, 0, 1).  ``primitive``: triangle_list, triangle_strip,
    triangle_fan, point_list, line_list, line_strip (spaces accepted).
    ``constants`` go to both stages unless ``vs_constants`` is given.
    ``textures`` / ``vs_textures``: {s#: Texture}; ``texture_stages``:
    {stage: TextureStage} for the ps_1_x draw-state uniforms.  ``size``:
    render-target (width, height); ``targets``: how many (MRT); ``clear``:
    one colour for all targets, a list with one per target, or None (fresh
    targets are then zero; given targets keep their contents).
    ``viewport``: D3D (x, y, width, height), y from the top; None = whole
    target.  ``count``: vertices to draw (None: the attributes' length; give
    it for a VS that reads no attributes)."""

    vertices: Mapping[Any, Any]
    primitive: str = "triangle_list"
    constants: ReferenceConstants = field(default_factory=ReferenceConstants)
    vs_constants: ReferenceConstants | None = None
    textures: Mapping[int, Texture] = field(default_factory=dict)
    vs_textures: Mapping[int, Texture] = field(default_factory=dict)
    texture_stages: Mapping[int, TextureStage] = field(default_factory=dict)
    size: tuple[int, int] = (640, 480)
    targets: int = 1
    clear: Any = None
    viewport: tuple[int, int, int, int] | None = None
    state: RenderState = field(default_factory=RenderState)
    count: int | None = None
    # The render states (xlate.drawstate.DrawState) whose values a shader
    # translated with draw_state_mode="dynamic" reads: each state parameter
    # its reflection's render_state lists is set from it (GL: uniforms;
    # Vulkan: specialization constants).  None: D3D's defaults.
    state_values: Any = None


@dataclass
class DrawResult:
    colors: list[np.ndarray]  # per render target, (height, width, 4) float32, row 0 = top
    targets: "RenderTargets"


@dataclass
class VertexResult:
    """Per-vertex outputs of a VS run through transform feedback.
    ``outputs``: by GLSL name (gl_Position as GL sees it, after the io
    fix-ups; gl_PointSize in x); ``semantics``: (usage, index) -> GLSL name;
    ``position``: the D3D clip-space position (io fix-ups undone)."""

    outputs: dict[str, np.ndarray]
    semantics: dict[tuple[str, int], str]
    position: np.ndarray | None

    def output(self, key) -> np.ndarray:
        if isinstance(key, str):
            return self.outputs[key]
        return self.outputs[self.semantics[usage_key(key)]]
