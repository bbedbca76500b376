"""Where every IR variable lives in the GLSL: names, locations, bindings.

Deterministic rules, so that a VS and a PS translated separately link and a
layer can bind them from the reflection alone:

- Vertex inputs: ``in_<usage><index>`` at location = the v# register number.
- Varyings (VS outputs, PS inputs): ``v_<usage><index>``, always a vec4 (an
  IR scalar such as vs_2_0 oFog lives in ``.x``), at the location
  ``VARYING_LOCATIONS`` gives, fixed per (usage, index) like DXSO's seeded
  linker table.  Targets without varying locations link by that name.
- Fragment outputs: COLORn at location n; DEPTH is gl_FragDepth.
- Constants: registers are grouped by CTAB entry (``vs_<name>``, an array
  when the entry spans several registers) or stand alone (``vs_c12``); a
  file that is indexed dynamically is one array from register 0
  (``vs_c[N]``).  In Vulkan each file is a uniform block whose register k
  sits at byte 16*k, whatever the grouping, so the layer can upload the raw
  register file.  Set = 0 for the vertex stage, 1 for the fragment stage;
  bindings 0/1/2 = float/int/bool blocks, 3 = the viewport block, 4+s = s#,
  20 = the draw-state block (ps_1_x bump-environment state, 32 bytes per
  texture stage).  On GL the draw-state uniforms are plain uniforms named
  ``xl_bumpenv_mat<m>``, ``xl_bumpenv_lscale<m>``, ``xl_bumpenv_loffset<m>``.
- Samplers: ``vs_s0`` or the CTAB name; GL unit = s# (PS) or 16+s# (VS).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from ..bytecode.tables import DeclUsage, SamplerType
from ..errors import UnsupportedError
from ..ir.ops import Code
from ..ir.program import Program, Semantic, Storage, Variable
from ..ir.types import Scalar, Type
from .names import Namer
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

STAGE_SET = {"vertex": 0, "fragment": 1}
FILE_BINDING = {Storage.FLOAT_CONST: 0, Storage.INT_CONST: 1, Storage.BOOL_CONST: 2}
VIEWPORT_BINDING = 3
SAMPLER_BINDING_BASE = 4
# The draw-state block (ps_1_x texture-stage state) comes after the 16
# sampler bindings 4-19, so its binding never moves with the samplers used.
DRAW_STATE_BINDING = SAMPLER_BINDING_BASE + 16
DRAW_STATE_STAGE_STRIDE = 32  # bytes per texture stage in the draw-state block
# Draw-time-state uniforms (docs/ir.md "Draw-time state"): builtin base name ->
# (GLSL type, byte offset within the stage's 32 bytes, the D3D state it holds,
# what to put in it).  Fixed offsets per stage let a layer upload eight
# stages of (M00, M01, M10, M11, LSCALE, LOFFSET, 0, 0) as one raw array.
DRAW_STATE_UNIFORMS = {
    "bumpenv_mat": ("vec4", 0, ["D3DTSS_BUMPENVMAT00", "D3DTSS_BUMPENVMAT01", "D3DTSS_BUMPENVMAT10",
                                "D3DTSS_BUMPENVMAT11"],
                    "vec4(BUMPENVMAT00, BUMPENVMAT01, BUMPENVMAT10, BUMPENVMAT11)"),
    "bumpenv_lscale": ("float", 16, ["D3DTSS_BUMPENVLSCALE"], "BUMPENVLSCALE"),
    "bumpenv_loffset": ("float", 20, ["D3DTSS_BUMPENVLOFFSET"], "BUMPENVLOFFSET"),
}
_DRAW_STATE_NAME = re.compile(r"^(bumpenv_mat|bumpenv_lscale|bumpenv_loffset)(\d)$")
VS_SAMPLER_UNIT_BASE = 16
FILE_NAMES = {Storage.FLOAT_CONST: ("float", "c", 2), Storage.INT_CONST: ("int", "i", 1),
              Storage.BOOL_CONST: ("bool", "b", 0)}  # reflection name, letter, CTAB register set
SAMPLER_KINDS = {SamplerType.TEX2D: "2d", SamplerType.CUBE: "cube", SamplerType.VOLUME: "volume",
                 SamplerType.TEX1D: "2d", SamplerType.UNKNOWN: "2d"}
SAMPLER_GLSL = {"2d": "sampler2D", "cube": "samplerCube", "volume": "sampler3D"}


# scalar -> GLSL type name per width (index 0 unused): a table, as the
# emitter asks for a type name for nearly every value it prints
GLSL_TYPES = {
    Scalar.FLOAT: (None, "float", "vec2", "vec3", "vec4"),
    Scalar.INT: (None, "int", "ivec2", "ivec3", "ivec4"),
    Scalar.BOOL: (None, "bool", "bvec2", "bvec3", "bvec4"),
}


def glsl_type(t: Type) -> str:
    return GLSL_TYPES[t.scalar][t.width]


USAGE_NAMES = {u: u.name.lower() for u in DeclUsage}  # an enum's .name is a slow property
MASK_NAMES = tuple("".join(c for i, c in enumerate("xyzw") if mask & (1 << i)) for mask in range(16))
PRIVATE = frozenset({Storage.TEMP, Storage.ADDRESS, Storage.LOOP_COUNTER, Storage.PREDICATE, Storage.LOCAL})


def semantic_name(sem: Semantic) -> str:
    return f"{USAGE_NAMES[sem.usage]}{sem.index}"


# The records below are slotted: a shader builds dozens of them, and a
# slotted dataclass instance is built about twice as fast.
@dataclass(slots=True)
class Decl:
    """One GLSL declaration, for the templates."""

    kind: str  # vs_input fs_input vs_output fs_output uniform sampler global
    name: str
    type: str
    array: int | None = None
    location: int | None = None
    binding: int | None = None
    set: int | None = None
    centroid: bool = False
    precision: str | None = None
    init: str | None = None
    offset: int | None = None  # block member


@dataclass(slots=True)
class Block:
    name: str
    set: int
    binding: int
    members: list[Decl]


@dataclass(slots=True)
class Access:
    """How the emitter reaches a variable.  ``name`` is an lvalue/rvalue
    base; ``component`` selects an IR scalar inside a GLSL vector."""

    name: str
    component: str = ""
    array: bool = False  # name is a GLSL array indexed by the IR element
    base: int = 0  # GLSL index = IR element - base


@dataclass(slots=True)
class ConstGroup:
    storage: Storage
    first: int
    count: int
    name: str
    array: bool
    ctab_name: str | None = None


@dataclass(slots=True)
class Layout:
    stage: str
    prefix: str
    decls: list[Decl] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    access: dict[int, Access] = field(default_factory=dict)  # id(Variable) -> Access
    # id(const var) -> (its uniforms in register order, their first registers)
    const_groups: dict[int, tuple[list[ConstGroup], list[int]]] = field(default_factory=dict)
    groups: list[ConstGroup] = field(default_factory=list)
    draw_state: list[Decl] = field(default_factory=list)  # Vulkan: members of the draw-state block
    reflection: dict = field(default_factory=dict)
    extensions: list[str] = field(default_factory=list)
    namer: Namer = field(default_factory=Namer)
    sampler_types: dict[str, str] = field(default_factory=dict)  # sampler name -> GLSL type
    texts: dict[Variable, str] = field(default_factory=dict)  # var -> its GLSL text, when not an array

    def reach(self, var: Variable, acc: Access) -> None:
        """Record how the emitter reaches ``var`` (and its text, when whole)."""
        self.access[id(var)] = acc
        if not acc.array:
            self.texts[var] = acc.name + acc.component

    def of(self, var: Variable, element: int | None = None) -> Access:
        """How to reach ``var``, or its element ``element`` when it is a
        constant file (whose registers are grouped into uniforms)."""
        if element is not None:
            found = self.const_groups.get(id(var))
            if found is not None:
                groups, firsts = found
                k = bisect.bisect_right(firsts, element) - 1
                if k >= 0 and element < firsts[k] + groups[k].count:
                    g = groups[k]
                    return Access(f"{g.name}[{element - g.first}]" if g.array else g.name)
        return self.access[id(var)]

    def text_of(self, var: Variable, element: int | None = None) -> str:
        """The GLSL spelling of ``var`` (element ``element`` of an array)."""
        acc = self.of(var, element)
        if acc.array:
            return f"{acc.name}[{(element or 0) - acc.base}]" + acc.component
        return acc.name + acc.component


def _used_constants(program: Program) -> dict[int, tuple[set[int], bool]]:
    """id(const var) -> (statically read registers, dynamically indexed?)."""
    used: dict[int, tuple[set[int], bool]] = {}
    for _fn, op in program.all_ops():
        var = op.var
        if op.code is Code.LOAD and var is not None and var.storage in FILE_BINDING:
            regs, dyn = used.get(id(var), (set(), False))
            if op.args:
                dyn = True
            regs.add(op.imm[0] if op.imm else 0)
            used[id(var)] = (regs, dyn)
    return used


def _partition(program: Program, var: Variable, regs: set[int], dynamic: bool, namer: Namer,
               prefix: str) -> list[ConstGroup]:
    """Registers -> GLSL uniforms (module docstring)."""
    kind, letter, ctab_set = FILE_NAMES[var.storage]
    if dynamic:
        length = max(var.length or 0, max(regs) + 1 if regs else 1)
        return [ConstGroup(var.storage, 0, length, namer.name(f"{prefix}{letter}"), True)]
    groups: list[ConstGroup] = []
    ctab = program.ctab
    end = 0  # groups never overlap, even when hostile CTAB entries do
    for reg in sorted(regs):
        if groups and groups[-1].first <= reg < groups[-1].first + groups[-1].count:
            continue
        entry = ctab.find(ctab_set, reg) if ctab is not None else None
        if entry is not None and entry.register_count > 0:
            first = max(entry.register_index, end)
            count = entry.register_index + entry.register_count - first
            array = entry.register_count > 1 or count > 1
            groups.append(ConstGroup(var.storage, first, count, namer.name(prefix + entry.name), array, entry.name))
        else:
            groups.append(ConstGroup(var.storage, reg, 1, namer.name(f"{prefix}{letter}{reg}"), False))
        end = groups[-1].first + groups[-1].count
    return groups


def plan(program: Program, target: Target, options, used_constants: dict | None = None) -> Layout:
    """The layout of ``program`` for ``target``.  ``used_constants`` is what
    ``_used_constants`` would find, when the caller has already walked the
    ops (the emitter does, deciding what to inline)."""
    vertex = program.is_vertex
    stage = "vertex" if vertex else "fragment"
    prefix = "vs_" if vertex else "ps_"
    lay = Layout(stage, prefix)
    namer = lay.namer
    sset = STAGE_SET[stage]
    refl = lay.reflection
    refl.update(constants=[], samplers=[], inputs=[], outputs=[], draw_state=[])
    es_pp = target.es

    # One walk sorts the variables: each step below takes its own, in program order.
    interface: list[Variable] = []
    privates: list[Variable] = []
    by_storage: dict[Storage, list[Variable]] = {}
    for var in program.variables:
        storage = var.storage
        if storage is Storage.INPUT or storage is Storage.OUTPUT:
            interface.append(var)
        elif storage in PRIVATE:
            privates.append(var)
        else:
            group = by_storage.get(storage)
            if group is None:
                by_storage[storage] = [var]
            else:
                group.append(var)

    # 1. Fixed names first: interface variables and built-ins.
    for var in interface:
        if var.storage is Storage.INPUT:
            _input(lay, var, program, target, namer, refl, es_pp)
        else:
            _output(lay, var, program, target, namer, refl)
    if lay.draw_state:
        # std140 with explicit offsets wants the members in offset order
        members = sorted(lay.draw_state, key=lambda d: d.offset)
        refl["draw_state"].sort(key=lambda e: e["offset"])
        lay.blocks.append(Block(namer.name(f"{prefix}draw_state"), sset, DRAW_STATE_BINDING, members))

    # 2. Constants, in file order.
    used = _used_constants(program) if used_constants is None else used_constants
    for storage in (Storage.FLOAT_CONST, Storage.INT_CONST, Storage.BOOL_CONST):
        for var in by_storage.get(storage, ()):
            regs, dyn = used.get(id(var), (None, False))
            if not regs:
                continue
            groups = _partition(program, var, regs, dyn, namer, prefix)
            members = []
            kind, letter, _ = FILE_NAMES[storage]
            gtype = glsl_type(var.type)
            for g in groups:
                lay.groups.append(g)
                decl = Decl("uniform", g.name, gtype, g.count if g.array else None)
                entry = {"file": kind, "first": g.first, "count": g.count, "glsl": g.name,
                         "element": 0 if g.array else None}
                if g.ctab_name is not None:
                    entry["ctab"] = g.ctab_name
                if target.uniform_blocks:
                    decl.offset = 16 * g.first
                    entry.update(set=sset, binding=FILE_BINDING[storage], offset=16 * g.first, stride=16)
                    members.append(decl)
                else:
                    lay.decls.append(decl)
                refl["constants"].append(entry)
            if dyn:
                g = groups[0]
                lay.reach(var, Access(g.name, array=True))
            else:
                lay.reach(var, Access(groups[0].name))
            lay.const_groups[id(var)] = (groups, [g.first for g in groups])  # disjoint, in order
            if members:
                block = namer.name(f"{prefix}{kind}_constants")
                lay.blocks.append(Block(block, sset, FILE_BINDING[storage], members))

    # 3. Samplers.
    for var in by_storage.get(Storage.SAMPLER, ()):
        reg = var.register[1] if var.register else 0
        st = var.sampler_type
        if st is None or st is SamplerType.UNKNOWN:
            st = options.sampler_type(reg)
        kind = SAMPLER_KINDS.get(st, "2d")
        entry = program.ctab.find(3, reg) if program.ctab is not None else None
        name = namer.name(prefix + (entry.name if entry is not None else f"s{reg}"))
        unit = reg + (VS_SAMPLER_UNIT_BASE if vertex else 0)
        d = Decl("sampler", name, SAMPLER_GLSL[kind])
        r = {"register": reg, "type": kind, "glsl": name, "unit": unit}
        if entry is not None:
            r["ctab"] = entry.name
        if target.vulkan:
            d.set, d.binding = sset, SAMPLER_BINDING_BASE + reg
            r.update(set=sset, binding=d.binding)
        elif target.sampler_bindings:
            d.binding = unit
            r["binding"] = unit
        if kind == "volume" and target.es:
            d.precision = "highp"
        lay.decls.append(d)
        lay.sampler_types[name] = d.type
        lay.reach(var, Access(name))
        refl["samplers"].append(r)

    # 4. Private registers and locals.
    for var in privates:
        name = namer.name(var.name)
        t = glsl_type(var.type)
        init = None
        if not var.length:
            init = _zero(var.type)
        lay.decls.append(Decl("global", name, t, var.length or None, init=init))
        lay.reach(var, Access(name, array=bool(var.length)))
    return lay


ZEROS = {Scalar.FLOAT: "0.0", Scalar.INT: "0", Scalar.BOOL: "false"}


def _zero(t: Type) -> str:
    one = ZEROS[t.scalar]
    return one if t.width == 1 else f"{glsl_type(t)}({one})"


def _input(lay: Layout, var: Variable, program: Program, target: Target, namer: Namer, refl: dict, es_pp: bool):
    b = var.builtin
    if b == "frag_coord":
        lay.reach(var, Access("gl_FragCoord"))
        return
    if b == "front_facing":
        lay.reach(var, Access("gl_FrontFacing"))
        return
    if b == "viewport":
        name = namer.reserve("xl_viewport")
        lay.reach(var, Access(name))
        if target.uniform_blocks:
            sset = STAGE_SET[lay.stage]
            lay.blocks.append(Block(namer.name(f"{lay.prefix}viewport_block"), sset, VIEWPORT_BINDING,
                                    [Decl("uniform", name, "vec4")]))
            refl["viewport"] = {"glsl": name, "set": sset, "binding": VIEWPORT_BINDING, "offset": 0}
        else:
            lay.decls.append(Decl("uniform", name, "vec4"))
            refl["viewport"] = {"glsl": name}
        refl["viewport"]["value"] = "vec4(1/viewport_width, 1/viewport_height, render_target_height, 0)"
        return
    if b is not None and _DRAW_STATE_NAME.match(b):
        _draw_state_uniform(lay, var, target, namer, refl)
        return
    if b is not None:
        raise UnsupportedError(-1, f"input {var.name}: built-in '{b}' must be lowered by the io pass first")
    if len(var.semantics) > 1:
        raise UnsupportedError(-1, f"input {var.name} packs {len(var.semantics)} semantics; the io pass splits them "
                                   "unless the register is indexed dynamically")
    reg = var.register[1] if var.register else None
    sem = var.semantic
    pp = "mediump" if es_pp and var.partial_precision else None
    if lay.stage == "vertex":
        label = semantic_name(sem) if sem else f"v{reg}"
        name = namer.reserve(f"in_{label}") if f"in_{label}" not in namer.used else namer.name(f"in_{label}")
        t = glsl_type(var.type)
        d = Decl("vs_input", name, t, location=reg if (target.io_locations or target.vulkan) else None, precision=pp)
        lay.decls.append(d)
        lay.reach(var, Access(name))
        refl["inputs"].append(_io_entry(sem, reg, var.mask, name, reg))
        return
    if reg is None and sem is not None and sem.usage is U.TEXCOORD:
        reg = sem.index  # ps_1_0-1_3 coordinate set m belongs to t(m), as t# does in ps_1_4 / ps_2_x
    label = semantic_name(sem) if sem else f"v{reg}"
    name = f"v_{label}"
    if name in namer.used:
        name = namer.name(name)
    else:
        namer.reserve(name)
    loc = varying_location(sem, reg, target)
    d = Decl("fs_input", name, "vec4", location=loc if target.varying_locations else None,
             centroid=var.centroid and not target.appendix_a, precision=pp)
    lay.decls.append(d)
    lay.reach(var, Access(name, ".x" if var.type.width == 1 else ""))
    entry = _io_entry(sem, reg, var.mask, name, loc)
    entry["centroid"] = d.centroid
    refl["inputs"].append(entry)


def _draw_state_uniform(lay: Layout, var: Variable, target: Target, namer: Namer, refl: dict) -> None:
    """A texture-stage state uniform (``bumpenv_mat<m>`` ...): ``xl_<builtin>``
    on GL; in Vulkan a member of the stage's draw-state block at byte
    32*m + the state's offset (``DRAW_STATE_UNIFORMS``)."""
    base, stage = _DRAW_STATE_NAME.match(var.builtin).groups()
    gtype, offset, states, value = DRAW_STATE_UNIFORMS[base]
    name = namer.reserve(f"xl_{var.builtin}")
    lay.reach(var, Access(name))
    entry = {"glsl": name, "type": gtype, "stage": int(stage), "state": states, "value": value}
    decl = Decl("uniform", name, gtype)
    if target.uniform_blocks:
        decl.offset = DRAW_STATE_STAGE_STRIDE * int(stage) + offset
        entry.update(set=STAGE_SET[lay.stage], binding=DRAW_STATE_BINDING, offset=decl.offset)
        lay.draw_state.append(decl)
    else:
        lay.decls.append(decl)
    refl["draw_state"].append(entry)


def varying_location(sem: Semantic | None, reg, target: Target) -> int | None:
    """The fixed table's location; outside it, GL 4.50 links by name (no
    location) and Vulkan, which must have one, gets 32 + 16*usage + index:
    unique and deterministic, but past the 32 locations every device has,
    so the layer remaps those (the reflection lists them)."""
    if sem is None:
        return None if not target.vulkan else 32 + 16 * 16 + (reg or 0)
    loc = VARYING_LOCATIONS.get((sem.usage, sem.index))
    if loc is None and target.vulkan:
        loc = 32 + 16 * int(sem.usage) + sem.index
    return loc


def _io_entry(sem: Semantic | None, reg, mask, name, loc) -> dict:
    if 0 <= mask < 16:
        mask_name = MASK_NAMES[mask]
    else:
        mask_name = "".join(c for i, c in enumerate("xyzw") if mask & (1 << i))
    return {"usage": USAGE_NAMES[sem.usage] if sem else None, "usage_index": sem.index if sem else None,
            "register": reg, "mask": mask_name, "glsl": name, "location": loc}


def _output(lay: Layout, var: Variable, program: Program, target: Target, namer: Namer, refl: dict):
    if len(var.semantics) > 1:
        raise UnsupportedError(-1, f"output {var.name} packs {len(var.semantics)} semantics; the io pass splits them "
                                   "unless the register is indexed dynamically")
    sem = var.semantic
    reg = var.register[1] if var.register else None
    # a scalar register (oFog, oPts, oDepth) has only .x, whatever mask it was lifted with
    mask = 0x1 if var.type.width == 1 else var.mask
    if lay.stage == "vertex":
        if sem is not None and sem.usage is U.POSITION and sem.index == 0:
            lay.reach(var, Access("gl_Position"))
            refl["outputs"].append(_io_entry(sem, reg, mask, "gl_Position", None))
            return
        if sem is not None and sem.usage is U.PSIZE and sem.index == 0:
            if var.type.width != 1:
                raise UnsupportedError(-1, f"output {var.name}: a vec4 point size must be split by the io pass")
            lay.reach(var, Access("gl_PointSize"))
            refl["outputs"].append(_io_entry(sem, reg, mask, "gl_PointSize", None))
            return
        label = semantic_name(sem) if sem else f"o{reg}"
        name = f"v_{label}"
        if name in namer.used:
            raise UnsupportedError(-1, f"two outputs carry the semantic {label}")
        namer.reserve(name)
        loc = varying_location(sem, reg, target)
        lay.decls.append(Decl("vs_output", name, "vec4", location=loc if target.varying_locations else None))
        lay.reach(var, Access(name, ".x" if var.type.width == 1 else ""))
        refl["outputs"].append(_io_entry(sem, reg, mask, name, loc))
        return
    # fragment outputs
    if sem is not None and sem.usage is U.DEPTH:
        if target.appendix_a:
            lay.extensions.append("GL_EXT_frag_depth")
            name = "gl_FragDepthEXT"
        else:
            name = "gl_FragDepth"
        lay.reach(var, Access(name))
        refl["outputs"].append(_io_entry(sem, reg, mask, name, None))
        return
    n = sem.index if sem is not None else (reg or 0)
    if not target.in_out:
        colours = [v for v in program.variables_of(Storage.OUTPUT) if v.semantic and v.semantic.usage is U.COLOR]
        multi = any(v.semantic.index > 0 for v in colours)
        if multi and target.es:
            raise UnsupportedError(-1, "GLSL ES 1.00 has one colour output; oC1-oC3 need GL_EXT_draw_buffers, "
                                       "which the validator does not support: use essl300")
        name = f"gl_FragData[{n}]" if multi else "gl_FragColor"
        lay.reach(var, Access(name))
        refl["outputs"].append(_io_entry(sem, reg, mask, name, n))
        return
    name = namer.reserve(f"out_color{n}")
    lay.decls.append(Decl("fs_output", name, "vec4", location=n))
    lay.reach(var, Access(name))
    refl["outputs"].append(_io_entry(sem, reg, mask, name, n))
