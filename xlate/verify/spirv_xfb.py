"""Transform feedback capture for a SPIR-V vertex shader (the Vulkan
runner's ``run_vertex`` with a ``spirv`` translation): the module's words
are edited as ``vk._xfb_capture`` edits the Vulkan GLSL, so both capture
the same outputs in the same order and packing.

Edits (names come from the module's OpName / OpMemberName, which the
reflection's ``glsl`` names; a module stripped of its names cannot be
captured):

- ``OpCapability TransformFeedback`` and ``OpExecutionMode main Xfb``;
- ``XfbBuffer 0``, ``XfbStride`` and ``Offset`` on every output the
  reflection lists (gl_Position / gl_PointSize: Offset on the member of the
  gl_PerVertex block, buffer and stride on the block's variable);
- outputs at locations past the device's limit move to free ones (as the
  GLSL capture does);
- a shader that does not write gl_PointSize gets ``gl_PointSize = 1.0``
  before each ``OpReturn`` of its entry point (a point list needs a written
  point size, VUID-VkGraphicsPipelineCreateInfo-Vertex-07722).

Opcodes and enumerants come from the grammar the writer reads
(``xlate.backends.spirv.grammar``).
"""

from __future__ import annotations

import struct

from ..backends.spirv.grammar import grammar

G = grammar()
OP = {name: inst.opcode for name, inst in G.instructions.items()}
DEC = G.enums["Decoration"]
STORAGE_OUTPUT = G.enums["StorageClass"]["Output"]


def _string(words: list[int]) -> str:
    data = struct.pack(f"<{len(words)}I", *words)
    return data.split(b"\0", 1)[0].decode("utf-8", errors="replace")


def _inst(name: str, *operands: int) -> list[int]:
    return [((len(operands) + 1) << 16) | OP[name], *operands]


def capture(code: bytes, refl: dict, locations: int = 32) -> tuple[bytes, list[tuple[str, int]], int]:
    """(the edited module, [(name, components)] in capture order, stride in
    floats), as ``vk._xfb_capture`` returns for GLSL."""
    words = list(struct.unpack(f"<{len(code) // 4}I", code))
    header, bound = words[:5], words[3]
    insts: list[list[int]] = []
    i = 5
    while i < len(words):
        count = words[i] >> 16
        if count == 0:
            raise ValueError("malformed SPIR-V: an instruction of zero words")
        insts.append(words[i:i + count])
        i += count

    def opc(inst):
        return inst[0] & 0xFFFF

    names, member_names, pointers, outputs = {}, {}, {}, {}
    locations_of: dict[int, list[int]] = {}  # variable -> its Location decoration
    floats = ints = None
    entry = None
    for inst in insts:
        o = opc(inst)
        if o == OP["OpName"]:
            names[inst[1]] = _string(inst[2:])
        elif o == OP["OpMemberName"]:
            member_names[(inst[1], _string(inst[3:]))] = inst[2]
        elif o == OP["OpEntryPoint"] and entry is None:
            entry = inst[2]
        elif o == OP["OpTypePointer"]:
            pointers[inst[1]] = (inst[2], inst[3])
        elif o == OP["OpTypeFloat"] and inst[2] == 32:
            floats = inst[1]
        elif o == OP["OpTypeInt"] and inst[2] == 32 and inst[3] == 1:
            ints = inst[1]
        elif o == OP["OpVariable"] and inst[3] == STORAGE_OUTPUT:
            outputs[inst[2]] = pointers[inst[1]][1]
        elif o == OP["OpDecorate"] and inst[2] == DEC["Location"]:
            locations_of[inst[1]] = inst
    if entry is None:
        raise ValueError("SPIR-V module without an entry point")
    by_name = {names[v]: v for v in outputs if v in names}
    per_vertex = next((v for v, t in outputs.items() if (t, "gl_Position") in member_names), None)
    component_count = {}
    for inst in insts:
        if opc(inst) == OP["OpTypeVector"]:
            component_count[inst[1]] = inst[3]
    component_count[floats] = 1

    wanted = list(dict.fromkeys(o["glsl"] for o in refl["outputs"]))
    used = {o["location"] for o in refl["outputs"] if o.get("location") is not None}
    free = iter(sorted(set(range(locations)) - used))
    fields, offset = [], 0
    decorations: list[list[int]] = []
    for name in wanted:
        if name in ("gl_Position", "gl_PointSize"):
            if per_vertex is None:
                raise NotImplementedError(f"output {name}: no gl_PerVertex member of that name in the module "
                                          "(names stripped?): it cannot be captured")
            k = 4 if name == "gl_Position" else 1
            decorations.append(_inst("OpMemberDecorate", outputs[per_vertex],
                                     member_names[(outputs[per_vertex], name)], DEC["Offset"], 4 * offset))
        elif name.startswith("gl_"):
            raise NotImplementedError(f"capturing the built-in output {name}")
        else:
            var = by_name.get(name)
            if var is None:
                raise NotImplementedError(f"output {name} has no OpName in the module (names stripped?): "
                                          "it cannot be captured")
            k = component_count.get(outputs[var])
            if k is None:
                raise NotImplementedError(f"capturing output {name} of a type that is not float or vector")
            loc = locations_of.get(var)
            if loc is not None and loc[3] >= locations:
                new = next(free, None)
                if new is None:
                    raise NotImplementedError(f"output {name}: no free location below {locations}")
                loc[3] = new
            decorations.append(_inst("OpDecorate", var, DEC["Offset"], 4 * offset))
            decorations.append(_inst("OpDecorate", var, DEC["XfbBuffer"], 0))
        fields.append((name, k))
        offset += k
    stride = 4 * max(offset, 1)
    for name in wanted:
        if not name.startswith("gl_"):
            decorations.append(_inst("OpDecorate", by_name[name], DEC["XfbStride"], stride))
    if per_vertex is not None:
        decorations.append(_inst("OpDecorate", per_vertex, DEC["XfbBuffer"], 0))
        decorations.append(_inst("OpDecorate", per_vertex, DEC["XfbStride"], stride))

    extra_globals: list[list[int]] = []
    point_size: list[int] = []
    if "gl_PointSize" not in wanted and per_vertex is not None:
        if floats is None or ints is None:
            raise NotImplementedError("writing gl_PointSize needs float and int types in the module")
        ptr = next((p for p, (sc, t) in pointers.items() if sc == STORAGE_OUTPUT and t == floats), None)
        if ptr is None:
            ptr, bound = bound, bound + 1
            extra_globals.append(_inst("OpTypePointer", ptr, STORAGE_OUTPUT, floats))
        one_i, one_f, bound = bound, bound + 1, bound + 2
        extra_globals.append(_inst("OpConstant", ints, one_i, 1))
        extra_globals.append(_inst("OpConstant", floats, one_f, struct.unpack("<I", struct.pack("<f", 1.0))[0]))
        member = member_names[(outputs[per_vertex], "gl_PointSize")]
        assert member == 1, "gl_PerVertex member order"
        point_size = [ptr, one_i, one_f]

    out: list[int] = []
    state = "start"  # -> caps -> ... ; where each insertion goes
    in_entry = False
    decorations_done = globals_done = False
    for inst in insts:
        o = opc(inst)
        if state == "start" and o != OP["OpCapability"]:
            out += _inst("OpCapability", G.enums["Capability"]["TransformFeedback"])
            state = "caps"
        if state == "caps" and o not in (OP["OpExtension"], OP["OpExtInstImport"], OP["OpMemoryModel"],
                                         OP["OpEntryPoint"]):
            out += _inst("OpExecutionMode", entry, G.enums["ExecutionMode"]["Xfb"])
            state = "modes"
        if not decorations_done and o in (OP["OpDecorate"], OP["OpMemberDecorate"]):
            for d in decorations:
                out += d
            decorations_done = True
        if not globals_done and o == OP["OpFunction"]:
            for d in extra_globals:
                out += d
            globals_done = True
        if o == OP["OpFunction"]:
            in_entry = inst[2] == entry
        if in_entry and point_size and o == OP["OpReturn"]:
            ptr, one_i, one_f = point_size
            chain, bound = bound, bound + 1
            out += _inst("OpAccessChain", ptr, chain, per_vertex, one_i)
            out += _inst("OpStore", chain, one_f)
        out += inst
    if not decorations_done:
        raise ValueError("SPIR-V module without decorations: not one of xlate's")
    header[3] = bound
    data = header + out
    return struct.pack(f"<{len(data)}I", *data), fields, offset
