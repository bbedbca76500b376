"""Edits of a translated SPIR-V pixel shader for draw state and linking
that the Vulkan runner (and the Wine harness) apply around xlate's output,
as ``gl.py`` and ``wine_cases`` edit GLSL text.  Variables are found by
their OpName (the reflection's ``glsl``); a module stripped of its names
raises NotImplementedError rather than drawing something else.  Opcodes and
enumerants come from the writer's grammar.

* ``flat_colours`` (D3DSHADE_FLAT): ``Flat`` on the fragment inputs the
  reflection gives usage ``color``, as ``gl._flat_colours`` puts ``flat``
  on the GLSL's ``v_color#``.  Vulkan takes the interpolation decoration
  from the fragment shader (the vertex outputs need none), and its
  provoking vertex is the first, as D3D9's flat shading.
* ``zero_inputs`` (linking): inputs no vertex output writes become Private
  variables initialised to 0 (D3D9 reads 0 there; Vulkan leaves them
  undefined), as ``wine_cases._link_unwritten`` makes them zero globals.
* ``probe`` (differential testing): an extra colour output at location
  ``probe_location`` that the entry point writes ``vec4(1, depth, 0, 0)``
  to just before each of its returns, as ``differential._probe_shader``
  adds to GLSL: a discarded pixel keeps the target's clear value, and the
  depth the shader wrote (FragDepth) is read back as a colour.
"""

from __future__ import annotations

import struct

from .spirv_xfb import DEC, OP, STORAGE_OUTPUT, G, _inst, _string

STORAGE_INPUT = G.enums["StorageClass"]["Input"]
STORAGE_PRIVATE = G.enums["StorageClass"]["Private"]
# where the annotation section ends at the latest: the first type, constant or global
_AFTER_ANNOTATIONS = {OP[n] for n in OP if n.startswith(("OpType", "OpConstant", "OpSpecConstant"))} | {
    OP["OpVariable"], OP["OpUndef"], OP["OpFunction"]}
_ANNOTATIONS = {OP[n] for n in ("OpDecorate", "OpMemberDecorate", "OpDecorationGroup", "OpGroupDecorate",
                                "OpGroupMemberDecorate")}


class _Module:
    def __init__(self, code: bytes):
        words = list(struct.unpack(f"<{len(code) // 4}I", code))
        self.header = words[:5]
        self.insts: list[list[int]] = []
        i = 5
        while i < len(words):
            count = words[i] >> 16
            if count == 0:
                raise ValueError("malformed SPIR-V: an instruction of zero words")
            self.insts.append(words[i:i + count])
            i += count

    def ops(self, name: str):
        return [inst for inst in self.insts if inst[0] & 0xFFFF == OP[name]]

    def inputs_named(self, wanted: set[str], what: str) -> dict[str, int]:
        """{name: id of its Input OpVariable}."""
        names: dict[str, int] = {}
        for inst in self.ops("OpName"):
            names.setdefault(_string(inst[2:]), inst[1])
        inputs = {inst[2] for inst in self.ops("OpVariable") if inst[3] == STORAGE_INPUT}
        out = {}
        for name in sorted(wanted):
            var = names.get(name)
            if var is None or var not in inputs:
                raise NotImplementedError(f"{what}: input {name} has no OpName in the module (names stripped?)")
            out[name] = var
        return out

    def new_id(self) -> int:
        self.header[3] += 1
        return self.header[3] - 1

    def bytes(self) -> bytes:
        out = self.header + [w for inst in self.insts for w in inst]
        return struct.pack(f"<{len(out)}I", *out)


def flat_colours(code: bytes, refl: dict) -> bytes:
    """The module with ``OpDecorate %v Flat`` on every colour input."""
    wanted = {i["glsl"] for i in refl["inputs"] if i["usage"] == "color" and not i["glsl"].startswith("gl_")}
    if not wanted:
        return code
    m = _Module(code)
    flat = {inst[1] for inst in m.ops("OpDecorate") if inst[2] == DEC["Flat"]}
    decorations = [_inst("OpDecorate", var, DEC["Flat"])
                   for var in m.inputs_named(wanted, "flat shading").values() if var not in flat]
    at = next(k for k, inst in enumerate(m.insts) if inst[0] & 0xFFFF in _ANNOTATIONS | _AFTER_ANNOTATIONS)
    m.insts[at:at] = decorations
    return m.bytes()


def zero_inputs(code: bytes, names: set[str]) -> bytes:
    """The module with the Input variables ``names`` turned into Private ones
    initialised to OpConstantNull (their decorations and, before SPIR-V 1.4,
    their place in the entry point's interface removed)."""
    if not names:
        return code
    m = _Module(code)
    vars_ = set(m.inputs_named(set(names), "reading 0 from an unwritten input").values())
    pointee = {inst[1]: inst[3] for inst in m.ops("OpTypePointer") if inst[2] == STORAGE_INPUT}
    private_ptr = {inst[3]: inst[1] for inst in m.ops("OpTypePointer") if inst[2] == STORAGE_PRIVATE}
    nulls = {inst[1]: inst[2] for inst in m.ops("OpConstantNull")}
    version = (m.header[1] >> 16) & 0xFF, (m.header[1] >> 8) & 0xFF
    out: list[list[int]] = []
    for inst in m.insts:
        o = inst[0] & 0xFFFF
        if o == OP["OpDecorate"] and inst[1] in vars_:
            continue
        if o == OP["OpEntryPoint"] and version < (1, 4):
            # operands: model, id, name (a nul-terminated string), interface ids
            k = 3
            while True:
                w = inst[k]
                k += 1
                if any(((w >> s) & 0xFF) == 0 for s in (0, 8, 16, 24)):
                    break
            iface = [v for v in inst[k:] if v not in vars_]
            inst = [((k + len(iface)) << 16) | o, *inst[1:k], *iface]
        elif o == OP["OpVariable"] and inst[2] in vars_:
            t = pointee[inst[1]]
            if t not in private_ptr:
                private_ptr[t] = m.new_id()
                out.append(_inst("OpTypePointer", private_ptr[t], STORAGE_PRIVATE, t))
            if t not in nulls:
                nulls[t] = m.new_id()
                out.append(_inst("OpConstantNull", t, nulls[t]))
            inst = _inst("OpVariable", private_ptr[t], inst[2], STORAGE_PRIVATE, nulls[t])
        out.append(inst)
    m.insts = out
    return m.bytes()


def _find_or_add(m: _Module, globals_out: list[list[int]], name: str, match, make) -> int:
    """The id of the first global instruction ``name`` that ``match``es,
    else a new one made by ``make(new id)`` (appended to ``globals_out``)."""
    for inst in m.ops(name):
        if match(inst):
            return inst[2] if name in ("OpConstant", "OpConstantComposite") else inst[1]
    new = m.new_id()
    globals_out.append(make(new))
    return new


def probe(code: bytes, probe_location: int, depth: bool) -> bytes:
    """The module with an Output ``vec4`` at ``probe_location`` (in the entry
    point's interface) that the entry point stores ``vec4(1, d, 0, 0)`` to
    before each OpReturn: ``d`` the FragDepth output's value when ``depth``
    (the shader writes depth), else 0.  A fragment shader with one entry
    point, as xlate writes; types and constants are reused when the module
    has them."""
    m = _Module(code)
    added: list[list[int]] = []
    f32 = _find_or_add(m, added, "OpTypeFloat", lambda i: i[2] == 32, lambda n: _inst("OpTypeFloat", n, 32))
    v4 = _find_or_add(m, added, "OpTypeVector", lambda i: i[2] == f32 and i[3] == 4,
                      lambda n: _inst("OpTypeVector", n, f32, 4))
    ptr = _find_or_add(m, added, "OpTypePointer", lambda i: i[2] == STORAGE_OUTPUT and i[3] == v4,
                       lambda n: _inst("OpTypePointer", n, STORAGE_OUTPUT, v4))
    one = _find_or_add(m, added, "OpConstant", lambda i: i[1] == f32 and i[3] == 0x3F800000,
                       lambda n: _inst("OpConstant", f32, n, 0x3F800000))
    zero = _find_or_add(m, added, "OpConstant", lambda i: i[1] == f32 and i[3] == 0,
                        lambda n: _inst("OpConstant", f32, n, 0))
    var = m.new_id()
    added.append(_inst("OpVariable", ptr, var, STORAGE_OUTPUT))
    depth_var = None
    if depth:
        builtin = G.enums["BuiltIn"]["FragDepth"]
        depth_var = next((i[1] for i in m.ops("OpDecorate") if i[2] == DEC["BuiltIn"] and i[3] == builtin), None)
        if depth_var is None:
            raise ValueError("probe: the module writes no FragDepth")
    entries = m.ops("OpEntryPoint")
    if len(entries) != 1:
        raise ValueError(f"probe: {len(entries)} entry points, not one")
    main = entries[0][2]
    out: list[list[int]] = []
    annotated = globals_done = False
    function = None
    for inst in m.insts:
        o = inst[0] & 0xFFFF
        if o == OP["OpEntryPoint"]:
            inst = [((len(inst) + 1) << 16) | o, *inst[1:], var]
        elif not annotated and o in _ANNOTATIONS | _AFTER_ANNOTATIONS:
            out.append(_inst("OpDecorate", var, DEC["Location"], probe_location))
            annotated = True
        if o == OP["OpFunction"]:
            if not globals_done:
                out.extend(added)
                globals_done = True
            function = inst[2]
        elif o == OP["OpReturn"] and function == main:
            d = zero
            if depth_var is not None:
                d = m.new_id()
                out.append(_inst("OpLoad", f32, d, depth_var))
            value = m.new_id()
            out.append(_inst("OpCompositeConstruct", v4, value, one, d, zero, zero))
            out.append(_inst("OpStore", var, value))
        out.append(inst)
    m.insts = out
    return m.bytes()
