"""D3DSHADE_FLAT for a SPIR-V pixel shader (the Vulkan runner's draw with a
``spirv`` translation): ``Flat`` on the fragment inputs the reflection gives
usage ``color``, as ``gl._flat_colours`` puts ``flat`` on the Vulkan GLSL's
``v_color#`` declarations.  Vulkan takes the interpolation decoration from
the fragment shader (the vertex outputs need none), and its provoking
vertex is the first, as D3D9's flat shading.

The inputs are found by their OpName (the reflection's ``glsl``); a module
stripped of its names raises NotImplementedError rather than drawing the
colours smooth.  Opcodes and enumerants come from the writer's grammar.
"""

from __future__ import annotations

import struct

from .spirv_xfb import DEC, OP, G, _inst, _string

STORAGE_INPUT = G.enums["StorageClass"]["Input"]
# where the annotation section ends at the latest: the first type, constant or global
_AFTER_ANNOTATIONS = {OP[n] for n in OP if n.startswith(("OpType", "OpConstant", "OpSpecConstant"))} | {
    OP["OpVariable"], OP["OpUndef"], OP["OpFunction"]}
_ANNOTATIONS = {OP[n] for n in ("OpDecorate", "OpMemberDecorate", "OpDecorationGroup", "OpGroupDecorate",
                                "OpGroupMemberDecorate")}


def flat_colours(code: bytes, refl: dict) -> bytes:
    """The module with ``OpDecorate %v Flat`` on every colour input."""
    wanted = {i["glsl"] for i in refl["inputs"] if i["usage"] == "color" and not i["glsl"].startswith("gl_")}
    if not wanted:
        return code
    words = list(struct.unpack(f"<{len(code) // 4}I", code))
    header = words[:5]
    insts: list[list[int]] = []
    i = 5
    while i < len(words):
        count = words[i] >> 16
        if count == 0:
            raise ValueError("malformed SPIR-V: an instruction of zero words")
        insts.append(words[i:i + count])
        i += count
    names, inputs, flat = {}, set(), set()
    for inst in insts:
        o = inst[0] & 0xFFFF
        if o == OP["OpName"]:
            names.setdefault(_string(inst[2:]), inst[1])
        elif o == OP["OpVariable"] and inst[3] == STORAGE_INPUT:
            inputs.add(inst[2])
        elif o == OP["OpDecorate"] and inst[2] == DEC["Flat"]:
            flat.add(inst[1])
    decorations = []
    for name in sorted(wanted):
        var = names.get(name)
        if var is None or var not in inputs:
            raise NotImplementedError(f"flat shading: input {name} has no OpName in the module (names stripped?)")
        if var not in flat:
            decorations.append(_inst("OpDecorate", var, DEC["Flat"]))
    at = next(k for k, inst in enumerate(insts) if inst[0] & 0xFFFF in _ANNOTATIONS | _AFTER_ANNOTATIONS)
    insts[at:at] = decorations
    out = header + [w for inst in insts for w in inst]
    return struct.pack(f"<{len(out)}I", *out)
