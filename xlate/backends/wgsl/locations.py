"""WGSL's varying locations: the common D3D9 varyings within the 16
inter-stage variables every WebGPU device has.

WebGPU guarantees ``maxInterStageShaderVariables`` = 16 (locations 0-15);
the Vulkan scheme (``layout.VARYING_LOCATIONS``) puts COLOR0/1 at 16/17, so
the ``wgsl`` target has its own table, a fixed one-to-one map from the
semantic alone, so that a VS and a PS translated apart agree and no two
semantics ever share a location (a shared one would link the wrong
varying without a word):

* 0-7 TEXCOORD0-7, 8 COLOR0, 9 COLOR1, 10 FOG0: everything a vs_1_x/2_x
  writes (PSIZE is no varying), so every pair of those versions fits;
* 11-13 POSITION1-3, 14 NORMAL0, 15 TANGENT0: the other semantics vs_3_0
  shaders pass most (POSITION1-3 are fxc's usual extra outputs);
* 16-31: TEXCOORD8-15, COLOR2-3, BINORMAL0, POSITION0, BLENDWEIGHT0,
  BLENDINDICES0, NORMAL1, DEPTH0 (devices with 32, e.g. lavapipe's 31 + 1
  position, link them with a raised limit);
* anything else 32 + 16*usage + index, a varying without a semantic
  32 + 256 + its register (as the Vulkan scheme did): the layer remaps them.

A shader with a varying at 16 or past gets a diagnostic, and the
reflection's ``limits.maxInterStageShaderVariables`` says what its device
must allow.  ``Options.varying_locations`` still wins for the semantics it
lists (a clash with a default location is refused).
"""

from __future__ import annotations

from ...bytecode.tables import DeclUsage as U
from ...errors import UnsupportedError

GUARANTEED = 16  # WebGPU's default maxInterStageShaderVariables

_ORDER = (
    *[(U.TEXCOORD, i) for i in range(8)], (U.COLOR, 0), (U.COLOR, 1), (U.FOG, 0),
    (U.POSITION, 1), (U.POSITION, 2), (U.POSITION, 3), (U.NORMAL, 0), (U.TANGENT, 0),
    *[(U.TEXCOORD, i) for i in range(8, 16)], (U.COLOR, 2), (U.COLOR, 3), (U.BINORMAL, 0), (U.POSITION, 0),
    (U.BLENDWEIGHT, 0), (U.BLENDINDICES, 0), (U.NORMAL, 1), (U.DEPTH, 0),
)
WGSL_LOCATIONS: dict[tuple[U, int], int] = {key: k for k, key in enumerate(_ORDER)}
assert len(WGSL_LOCATIONS) == 32
NO_SEMANTIC_BASE = 32 + 16 * 16
_USAGES = {u.name.lower(): u for u in U}


def location(usage: str | None, index: int | None, register: int | None) -> int:
    """The WGSL location of a varying of (reflection) ``usage`` and
    ``index``, or of one without a semantic at ``register``."""
    if usage is None:
        return NO_SEMANTIC_BASE + (register or 0)
    u = _USAGES[usage]
    found = WGSL_LOCATIONS.get((u, index))
    return found if found is not None else 32 + 16 * int(u) + index


def relocate(lay) -> list[str]:
    """Give the layout's varyings (VS outputs, PS inputs) their WGSL
    locations, in the declarations and the reflection; returns the
    diagnostics (varyings past the guaranteed 16)."""
    key = "outputs" if lay.stage == "vertex" else "inputs"
    kind = "vs_output" if lay.stage == "vertex" else "fs_input"
    mapped = lay.varying_map or {}
    where: dict[str, int] = {}
    for entry in lay.reflection[key]:
        if entry.get("location") is None or entry.get("builtin"):
            continue
        usage, index = entry["usage"], entry["usage_index"]
        if usage is not None and (_USAGES[usage], index) in mapped:
            continue  # Options.varying_locations' own location
        entry["location"] = where[entry["glsl"]] = location(usage, index, entry["register"])
    for d in lay.decls:
        if d.kind == kind and d.name in where:
            d.location = where[d.name]
    seen: dict[int, str] = {}
    for entry in lay.reflection[key]:
        loc = entry.get("location")
        if loc is None or entry.get("builtin"):
            continue
        other = seen.setdefault(loc, entry["glsl"])
        if other != entry["glsl"]:
            raise UnsupportedError(-1, f"varying_locations puts {other} and {entry['glsl']} both at location {loc}")
    high = sorted((loc, name) for loc, name in seen.items() if loc >= GUARANTEED)
    if not high:
        return []
    names = ", ".join(f"{name} at {loc}" for loc, name in high)
    return [f"wgsl: varying {names}: past the {GUARANTEED} inter-stage variables every WebGPU device has; the "
            f"device needs maxInterStageShaderVariables >= {high[-1][0] + 1} (reflection 'limits'), or give "
            "varying_locations a map for the pair"]
