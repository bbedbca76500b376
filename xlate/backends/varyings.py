"""Where the varyings go: the fixed (usage, index) -> location table, each
D3D semantic's names and locations (``SEMANTIC_ROWS``), and the Vulkan
rules for a shader whose own varyings would share a location.

Split from ``layout.py`` (which re-exports these names): the layout asks
this module where an interface variable goes; nothing here depends on the
rest of the layout.  ``layout.Layout`` is the ``lay`` the two checks take.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ..bytecode.tables import DeclUsage
from ..errors import UnsupportedError
from ..ir.program import Program, Semantic

if TYPE_CHECKING:
    from .layout import Decl, Layout
    from .targets import Target

U = DeclUsage

# (usage, index) -> varying location.  TEXCOORD first (the most common),
# then COLOR and the usual lighting vectors.  Anything else has no location
# and can only be used by targets that link varyings by name.
VARYING_LOCATIONS: dict[tuple[DeclUsage, int], int] = {
    **{(U.TEXCOORD, i): i for i in range(16)},
    (U.COLOR, 0): 16, (U.COLOR, 1): 17, (U.FOG, 0): 18, (U.NORMAL, 0): 19, (U.TANGENT, 0): 20,
    (U.BINORMAL, 0): 21, (U.COLOR, 2): 22, (U.COLOR, 3): 23, (U.POSITION, 0): 24, (U.POSITION, 1): 25,
    (U.POSITION, 2): 26, (U.POSITION, 3): 27, (U.BLENDWEIGHT, 0): 28, (U.BLENDINDICES, 0): 29,
    (U.NORMAL, 1): 30, (U.DEPTH, 0): 31,
}

# Vulkan needs a location for every varying and devices guarantee 32, so a
# semantic outside the table shares one of these: the locations of
# TEXCOORD15 down to TEXCOORD8, the table's rarest entries (ps_3_0 has ten
# input registers; no corpus shader reads a texture coordinate past 7).
# Which one comes from the semantic alone (``fallback_location``), so a VS
# and a PS translated apart agree; consecutive indices of one usage, and
# index 0 of different usages, land on different ones.  When a shader's own
# semantics would share a location, ``spread_varyings`` moves one to a
# free location and says so in a diagnostic (its partner agrees only if it
# declares the same semantics: such a pair should pass varying_locations).
VK_LOCATIONS = 32  # the varying locations every Vulkan device has (maxVertexOutputComponents >= 128)
FALLBACK_LOCATIONS = tuple(range(15, 7, -1))


def fallback_location(usage: int, index: int) -> int:
    """The Vulkan location of a semantic outside ``VARYING_LOCATIONS`` (or
    of a varying without a semantic: usage -1, index = its register)."""
    return FALLBACK_LOCATIONS[(index + 3 * (usage + 1)) % len(FALLBACK_LOCATIONS)]



USAGE_NAMES = {u: u.name.lower() for u in DeclUsage}  # an enum's .name is a slow property

def semantic_name(sem: Semantic) -> str:
    return f"{USAGE_NAMES[sem.usage]}{sem.index}"


# Vertex outputs that are GLSL built-ins, not varyings.
VS_BUILTIN_OUTPUTS = {(U.POSITION, 0): "gl_Position", (U.PSIZE, 0): "gl_PointSize"}


class SemanticRow(NamedTuple):
    """What the layout makes of one D3D semantic, whatever the shader."""

    label: str  # "texcoord3"
    usage: str  # "texcoord", the reflection's "usage"
    gl_location: int | None  # VARYING_LOCATIONS' location, or None
    vk_location: int  # Vulkan's: outside the table, fallback_location(usage, index)
    vs_builtin: str | None  # the GLSL built-in a vertex output of it is ("gl_Position"), or None
    varying: str  # "v_texcoord3"
    vs_input: str  # "in_texcoord3"


def semantic_row(usage: DeclUsage, index: int) -> SemanticRow:
    label = f"{USAGE_NAMES[usage]}{index}"
    gl = VARYING_LOCATIONS.get((usage, index))
    vk = fallback_location(int(usage), index) if gl is None else gl
    return SemanticRow(label, USAGE_NAMES[usage], gl, vk, VS_BUILTIN_OUTPUTS.get((usage, index)), f"v_{label}",
                       f"in_{label}")


# [usage][index] -> semantic_row(usage, index) for every semantic D3D can
# declare (the index has 4 bits): each interface variable costs a look-up,
# not names and a location built anew in every shader.  Nested tuples: two
# indexings cost half a dict look-up by (usage, index) (and Semantic's own
# dataclass hash runs in Python).
assert [int(u) for u in DeclUsage] == list(range(len(DeclUsage)))
SEMANTIC_ROWS = tuple(tuple(semantic_row(u, i) for i in range(16)) for u in DeclUsage)
TABLE_VARYINGS = frozenset(SEMANTIC_ROWS[u][i].varying for u, i in VARYING_LOCATIONS)


def no_semantic_vk_location(reg) -> int:
    """Vulkan needs a location even for a varying without a semantic: the
    fallback location of its register."""
    return fallback_location(-1, reg or 0)


def varying_location(sem: Semantic | None, reg, target: Target) -> int | None:
    """The fixed table's location; outside it, GL 4.50 links by name (no
    location) and Vulkan, which must have one, gets ``fallback_location``:
    under 32, from the semantic alone, shared with a rare table entry
    (TEXCOORD8-15).  A shader whose own varyings would share one moves one
    elsewhere (``spread_varyings``, with a diagnostic): the reflection has
    the final locations.  (``SEMANTIC_ROWS`` holds both answers for every
    semantic.)"""
    if sem is None:
        return None if not target.vulkan else no_semantic_vk_location(reg)
    row = semantic_row(sem.usage, sem.index)
    return row.vk_location if target.vulkan else row.gl_location


def check_varying_locations(lay: Layout) -> None:
    """With a caller's varying map, two varyings of a shader may land on one
    location (a mapped semantic on a table one's): refuse rather than alias."""
    seen: dict[int, str] = {}
    for d in lay.decls:
        if d.kind in ("vs_output", "fs_input") and d.location is not None:
            other = seen.setdefault(d.location, d.name)
            if other != d.name:
                raise UnsupportedError(-1, f"varying_locations puts {other} and {d.name} both at location "
                                           f"{d.location}")


def spread_varyings(lay: Layout, program: Program) -> None:
    """Vulkan, default locations: two varyings of this shader on one
    location (a semantic outside the table on its fallback location, which
    the table or another such semantic holds) cannot both stay.  The one
    outside the table (the later one when both are) moves to the first
    free location of FALLBACK_LOCATIONS, then of 0-31, then past 31; a
    diagnostic names the semantics, as the partner stage computes the same
    only if it declares the same semantics.  plan() calls it only when
    ``lay.off_table`` (table locations never collide)."""
    varyings = [d for d in lay.decls if (d.kind == "vs_output" or d.kind == "fs_input") and d.location is not None]
    if len(varyings) < 2:
        return
    seen: dict[int, Decl] = {}
    moved: list[Decl] = []
    for d in varyings:
        other = seen.get(d.location)
        if other is None:
            seen[d.location] = d
        elif _in_table(other.name) and not _in_table(d.name):
            moved.append(d)
        elif not _in_table(other.name) and _in_table(d.name):
            seen[d.location] = d
            moved.append(other)
        else:
            moved.append(d)
    if not moved:
        return
    entries = lay.reflection["outputs" if lay.stage == "vertex" else "inputs"]
    for d in moved:
        old = d.location
        free = next((loc for loc in (*FALLBACK_LOCATIONS, *range(VK_LOCATIONS)) if loc not in seen), None)
        if free is None:
            free = max(seen) + 1
        d.location = free
        seen[free] = d
        for e in entries:
            if e.get("glsl") == d.name:
                e["location"] = free
        beyond = f", past the {VK_LOCATIONS} locations every device has" if free >= VK_LOCATIONS else ""
        program.notes.setdefault("diagnostics", []).append(
            f"varying {d.name} would share Vulkan location {old} with {_holder(lay, old, d)}; it is at location "
            f"{free}{beyond}, which the other stage gives it only if it declares the same semantics: pass "
            "varying_locations (the same map to both stages) to link such a pair")


def _in_table(varying: str) -> bool:
    """Whether a varying's semantic (``v_<usage><index>``) has a fixed location."""
    return varying in TABLE_VARYINGS


def _holder(lay: Layout, location: int, moved: Decl) -> str:
    for d in lay.decls:
        if d is not moved and d.location == location and d.kind in ("vs_output", "fs_input"):
            return d.name
    return "another varying"

