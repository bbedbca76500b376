"""Where every IR variable lives in the GLSL: names, locations, bindings.

Deterministic rules, so that a VS and a PS translated separately link and a
layer can bind them from the reflection alone:

- Vertex inputs: ``in_<usage><index>`` at location = the v# register number.
- Varyings (VS outputs, PS inputs): ``v_<usage><index>``, always a vec4 (an
  IR scalar such as vs_2_0 oFog lives in ``.x``), at the location
  ``VARYING_LOCATIONS`` gives, fixed per (usage, index) like DXSO's seeded
  linker table; on Vulkan a semantic outside it shares a rare entry's
  location (``fallback_location``, under 32).  Targets without varying
  locations link by that name.
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
from dataclasses import dataclass

from ..bytecode.tables import DeclUsage, SamplerType, ShaderKind
from ..drawstate import PARAMS_BY_KEY
from ..errors import UnsupportedError
from ..ir.program import Program, Storage, Variable
from ..ir.types import Scalar, Type
from ..ir.summary import summary_of
from ..memo import remember
from ..options import varying_location_map
from .names import Namer
from .targets import Api, Target
# The varying-location plan (varyings.py), re-exported: callers and tests
# read the table and the semantic rows from here.
from .varyings import (FALLBACK_LOCATIONS, SEMANTIC_ROWS, TABLE_VARYINGS, USAGE_NAMES, VARYING_LOCATIONS,  # noqa: F401
                       VK_LOCATIONS, VS_BUILTIN_OUTPUTS, SemanticRow, check_varying_locations, fallback_location,
                       no_semantic_vk_location, semantic_name, semantic_row, spread_varyings, varying_location)

U = DeclUsage

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
SHADOW_SAMPLER_GLSL = "sampler2DShadow"  # a depth-compared 2D sampler (Options.draw_state.depthtexture)


# scalar -> GLSL type name per width (index 0 unused): a table, as the
# emitter asks for a type name for nearly every value it prints
GLSL_TYPES = {
    Scalar.FLOAT: (None, "float", "vec2", "vec3", "vec4"),
    Scalar.INT: (None, "int", "ivec2", "ivec3", "ivec4"),
    Scalar.BOOL: (None, "bool", "bvec2", "bvec3", "bvec4"),
}


def glsl_type(t: Type) -> str:
    return GLSL_TYPES[t.scalar][t.width]


MASK_NAMES = tuple("".join(c for i, c in enumerate("xyzw") if mask & (1 << i)) for mask in range(16))
PRIVATE = frozenset({Storage.TEMP, Storage.ADDRESS, Storage.LOOP_COUNTER, Storage.PREDICATE, Storage.LOCAL})
CONST_FILES = (Storage.FLOAT_CONST, Storage.INT_CONST, Storage.BOOL_CONST)
# The members the code below tests, read once: in Python 3.11 reading a
# member off its Enum class (``Storage.INPUT``) goes through the metaclass's
# __getattr__ hook and costs ten times a global's read.
INPUT, OUTPUT, SAMPLER, STATE = Storage.INPUT, Storage.OUTPUT, Storage.SAMPLER, Storage.STATE
VERTEX_SHADER = ShaderKind.VERTEX
TEXCOORD, PSIZE, DEPTH, COLOR = U.TEXCOORD, U.PSIZE, U.DEPTH, U.COLOR
UNKNOWN_SAMPLER = SamplerType.UNKNOWN
ZEROS = {Scalar.FLOAT: "0.0", Scalar.INT: "0", Scalar.BOOL: "false"}
# A private register starts at zero: its initialiser per scalar and width (index 0 unused).
ZERO_INITS = {
    scalar: (None, zero) + tuple(f"{GLSL_TYPES[scalar][w]}({zero})" for w in (2, 3, 4))
    for scalar, zero in ZEROS.items()
}


# The records below are slotted: a shader builds dozens of them, and a
# slotted dataclass instance is built about twice as fast.  The code below
# passes their leading fields by position and sets a rare one afterwards
# (``d.precision = ...``): a call with keywords costs a third more.
@dataclass(slots=True)
class Decl:
    """One GLSL declaration, for the templates."""

    kind: str  # vs_input fs_input vs_output fs_output uniform spec_constant sampler global
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
    constant_id: int | None = None  # spec_constant: its constant_id / SpecId (init: its default)


@dataclass(slots=True)
class Block:
    name: str
    set: int
    binding: int
    members: list[Decl]


@dataclass(frozen=True, slots=True)
class Access:
    """How the emitter reaches a variable.  ``name`` is an lvalue/rvalue
    base; ``component`` selects an IR scalar inside a GLSL vector.  Frozen:
    layouts share one per name between shaders (``_whole``, ``_in_x``)."""

    name: str
    component: str = ""
    array: bool = False  # name is a GLSL array indexed by the IR element
    base: int = 0  # GLSL index = IR element - base


# name -> Access(name), and Access(name, ".x") (a varying holding an IR
# scalar): the same names recur from shader to shader, and an Access is
# never changed once made, so every layout shares one per name (a lookup
# costs less than building one).  Bounded (``xlate.memo``).
_WHOLE: dict[str, Access] = {}
_IN_X: dict[str, Access] = {}
_ACCESS_MAX = 8192


def _whole(name: str) -> Access:
    return remember(_WHOLE, name, Access(name), _ACCESS_MAX)


def _in_x(name: str) -> Access:
    return remember(_IN_X, name, Access(name, ".x"), _ACCESS_MAX)


@dataclass(slots=True)
class ConstGroup:
    storage: Storage
    first: int
    count: int
    name: str
    array: bool
    ctab_name: str | None = None


class Layout:
    """Where everything lives: the declarations and blocks for the template,
    how the emitter reaches each variable, and the layout's part of the
    reflection.  A plain slotted class: its dozen containers are built as
    literals, which costs a fraction of a dataclass's default factories."""

    __slots__ = ("stage", "prefix", "decls", "blocks", "access", "const_groups", "groups", "draw_state",
                 "reflection", "extensions", "namer", "sampler_types", "texts", "varying_map", "off_table")

    def __init__(self, stage: str, prefix: str, texts: bool = True):
        self.stage = stage
        self.prefix = prefix
        self.decls: list[Decl] = []
        self.blocks: list[Block] = []
        self.access: dict[int, Access] = {}  # id(Variable) -> Access
        # id(const var) -> (its uniforms in register order, their first registers)
        self.const_groups: dict[int, tuple[list[ConstGroup], list[int]]] = {}
        self.groups: list[ConstGroup] = []
        self.draw_state: list[Decl] = []  # Vulkan: members of the draw-state block
        self.reflection: dict = {"constants": [], "samplers": [], "inputs": [], "outputs": [], "draw_state": [],
                                 "state_parameters": []}
        self.extensions: list[str] = []
        self.namer = Namer()
        self.sampler_types: dict[str, str] = {}  # sampler name -> GLSL type
        # var -> its GLSL text, when not an array; None for a writer that
        # reads no text (SPIR-V: plan's ``target.native``), which then
        # costs no string or store per variable.
        self.texts: dict[Variable, str] | None = {} if texts else None
        self.varying_map: dict | None = None  # Options.varying_locations, {(usage, index): location}
        # Whether a varying is off the location table (or renamed): only
        # then can two share a default Vulkan location (table locations are
        # distinct), so only then does plan() look for such a pair.
        self.off_table = False

    def reach(self, var: Variable, acc: Access) -> None:
        """Record how the emitter reaches ``var`` (and its text, when whole)."""
        self.access[id(var)] = acc
        if not acc.array and self.texts is not None:
            self.texts[var] = acc.name + acc.component

    def group_at(self, var: Variable, element: int) -> ConstGroup | None:
        """The uniform holding register ``element`` of the constant file ``var``."""
        found = self.const_groups.get(id(var))
        if found is not None:
            groups, firsts = found
            k = bisect.bisect_right(firsts, element) - 1
            if k >= 0 and element < firsts[k] + groups[k].count:
                return groups[k]
        return None

    def of(self, var: Variable, element: int | None = None) -> Access:
        """How to reach ``var``, or its element ``element`` when it is a
        constant file (whose registers are grouped into uniforms)."""
        if element is not None:
            g = self.group_at(var, element)
            if g is not None:
                return Access(f"{g.name}[{element - g.first}]" if g.array else g.name)
        return self.access[id(var)]

    def text_of(self, var: Variable, element: int | None = None) -> str:
        """The GLSL spelling of ``var`` (element ``element`` of an array).
        A constant register's text is spelled straight from its uniform,
        without the Access that ``of`` would build for it."""
        if element is not None:
            g = self.group_at(var, element)
            if g is not None:
                return f"{g.name}[{element - g.first}]" if g.array else g.name
        acc = self.access[id(var)]
        if acc.array:
            return f"{acc.name}[{(element or 0) - acc.base}]" + acc.component
        return acc.name + acc.component


def _ctab_entry(ctab, register_set: int, reg: int):
    """``ctab.find(register_set, reg)``, with the range test written out:
    a method call per CTAB entry was most of what finding one cost."""
    for c in ctab.constants:
        if c.register_set == register_set and c.register_index <= reg < c.register_index + c.register_count:
            return c
    return None


def _partition(program: Program, var: Variable, regs: set[int], dynamic: bool, namer: Namer,
               prefix: str) -> list[ConstGroup]:
    """Registers -> GLSL uniforms (module docstring)."""
    storage = var.storage
    kind, letter, ctab_set = FILE_NAMES[storage]
    if dynamic:
        length = max(var.length or 0, max(regs) + 1 if regs else 1)
        return [ConstGroup(storage, 0, length, namer.fresh(f"{prefix}{letter}"), True)]
    groups: list[ConstGroup] = []
    ctab = program.ctab
    end = 0  # groups never overlap, even when hostile CTAB entries do
    for reg in sorted(regs):
        if reg < end:  # inside the group before (groups are built in register order)
            continue
        entry = _ctab_entry(ctab, ctab_set, reg) if ctab is not None else None
        if entry is not None and entry.register_count > 0:
            first = max(entry.register_index, end)
            count = entry.register_index + entry.register_count - first
            array = entry.register_count > 1 or count > 1
            groups.append(ConstGroup(storage, first, count, namer.name(prefix + entry.name), array, entry.name))
            end = first + count
        else:
            # "vs_c12" is a legal identifier: fresh() skips the sanitizing
            groups.append(ConstGroup(storage, reg, 1, namer.fresh(f"{prefix}{letter}{reg}"), False))
            end = reg + 1
    return groups


def plan(program: Program, target: Target, options) -> Layout:
    """The layout of ``program`` for ``target``; the constant registers it
    declares are the ones the program's summary (``ir.summary``) reads."""
    vertex = program.version.kind is VERTEX_SHADER  # program.is_vertex, without two property calls
    texts = not target.native
    lay = Layout("vertex", "vs_", texts) if vertex else Layout("fragment", "ps_", texts)
    if options.varying_locations and target.varying_locations:
        lay.varying_map = varying_location_map(options.varying_locations)

    # One walk sorts the variables: each step below takes its own, in program order.
    interface: list[Variable] = []
    privates: list[Variable] = []
    by_storage: dict[Storage, list[Variable]] = {}
    for var in program.variables:
        storage = var.storage
        if storage is INPUT or storage is OUTPUT:
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
    if interface:
        _interface(lay, interface, program, target, vertex)
        if lay.varying_map is not None:
            check_varying_locations(lay)
        elif lay.off_table and target.api is Api.VULKAN:  # (wgsl has its own table: wgsl/locations.py)
            spread_varyings(lay, program)
    # 2. Constants, in file order.
    if by_storage:
        used = summary_of(program).used_constants()
        for storage in CONST_FILES:
            for var in by_storage.get(storage, ()):
                regs, dyn = used.get(id(var), (None, False))
                if regs:
                    _constants(lay, program, var, regs, dyn, target)
        # 3. Samplers.
        for var in by_storage.get(SAMPLER, ()):
            _sampler(lay, var, program, target, options, vertex)
        # 4. Draw-time state parameters, in spec-id order.
        state = by_storage.get(STATE)
        if state:
            for var in sorted(state, key=lambda v: PARAMS_BY_KEY[v.builtin].spec_id):
                _state_parameter(lay, var, target, options)
    # 5. Private registers and locals.
    if privates:
        _privates(lay, privates)
    return lay


def _interface(lay: Layout, interface: list[Variable], program: Program, target: Target, vertex: bool) -> None:
    """Inputs and outputs, in program order, each by its stage's rules."""
    on_input = _vertex_input if vertex else _fragment_input
    on_output = _vertex_output if vertex else _fragment_output
    for var in interface:
        if var.storage is INPUT:
            if var.builtin is None:
                on_input(lay, var, target)
            elif var.builtin == "point_coord":
                _point_coord(lay, var, target, program)
            else:
                _builtin_input(lay, var, target)
        elif var.builtin is not None and var.builtin.startswith("clip_distance"):
            _clip_distance(lay, var, target)
        else:
            on_output(lay, var, program, target)
    if lay.draw_state:
        # std140 with explicit offsets wants the members in offset order
        members = sorted(lay.draw_state, key=lambda d: d.offset)
        lay.reflection["draw_state"].sort(key=lambda e: e["offset"])
        lay.blocks.append(Block(lay.namer.fresh(f"{lay.prefix}draw_state"), STAGE_SET[lay.stage], DRAW_STATE_BINDING,
                                members))


def _constants(lay: Layout, program: Program, var: Variable, regs: set[int], dynamic: bool, target: Target) -> None:
    """One constant file's uniforms (in Vulkan, the members of its block) and reflection."""
    storage = var.storage
    groups = _partition(program, var, regs, dynamic, lay.namer, lay.prefix)
    kind = FILE_NAMES[storage][0]
    gtype = GLSL_TYPES[var.type.scalar][var.type.width]
    in_block = target.uniform_blocks
    if in_block:
        sset, binding = STAGE_SET[lay.stage], FILE_BINDING[storage]
        members: list[Decl] = []
    decls = members if in_block else lay.decls
    entries = lay.reflection["constants"]
    firsts = []
    for g in groups:
        firsts.append(g.first)
        d = Decl("uniform", g.name, gtype, g.count if g.array else None)
        entry = {"file": kind, "first": g.first, "count": g.count, "glsl": g.name, "element": 0 if g.array else None}
        if g.ctab_name is not None:
            entry["ctab"] = g.ctab_name
        if in_block:  # (item by item: dict.update with keywords costs twice as much)
            d.offset = offset = 16 * g.first
            entry["set"] = sset
            entry["binding"] = binding
            entry["offset"] = offset
            entry["stride"] = 16
        decls.append(d)
        entries.append(entry)
    if in_block:
        lay.blocks.append(Block(lay.namer.fresh(f"{lay.prefix}{kind}_constants"), sset, binding, members))
    lay.groups.extend(groups)
    lay.reach(var, Access(groups[0].name, "", dynamic))
    lay.const_groups[id(var)] = (groups, firsts)  # disjoint, in order


def _sampler(lay: Layout, var: Variable, program: Program, target: Target, options, vertex: bool) -> None:
    reg = var.register[1] if var.register else 0
    st = var.sampler_type
    if st is None or st is UNKNOWN_SAMPLER:
        st = options.sampler_type(reg)
    kind = SAMPLER_KINDS.get(st, "2d")
    entry = _ctab_entry(program.ctab, 3, reg) if program.ctab is not None else None
    if entry is not None:
        name = lay.namer.name(lay.prefix + entry.name)
    else:
        name = lay.namer.fresh(f"{lay.prefix}s{reg}")  # legal as it stands: no sanitizing
    unit = reg + VS_SAMPLER_UNIT_BASE if vertex else reg
    glsl = SAMPLER_GLSL[kind]
    shadow = reg in program.notes.get("stage_state", {}).get("depthtexture", ())
    if shadow:  # Options.draw_state: a depth texture, compared (passes/samplers_state.py)
        if target.es and target.version < 300:
            raise UnsupportedError(-1, f"sampler s{reg}: GLSL ES 1.00 has no shadow samplers (depth compare)")
        glsl = SHADOW_SAMPLER_GLSL
    d = Decl("sampler", name, glsl)
    r = {"register": reg, "type": kind, "glsl": name, "unit": unit}
    if shadow:
        r["compare"] = "less_equal"
    if entry is not None:
        r["ctab"] = entry.name
    if target.vulkan:
        d.set = r["set"] = STAGE_SET[lay.stage]
        d.binding = r["binding"] = SAMPLER_BINDING_BASE + reg
    elif target.sampler_bindings:
        d.binding = unit
        r["binding"] = unit
    if (kind == "volume" or shadow) and target.es:
        d.precision = "highp"  # ES has no default precision for these sampler types
    lay.decls.append(d)
    lay.sampler_types[name] = glsl
    lay.reach(var, _WHOLE.get(name) or _whole(name))
    lay.reflection["samplers"].append(r)


def _state_parameter(lay: Layout, var: Variable, target: Target, options) -> None:
    """A draw-time state parameter (xlate/drawstate.py): a specialization
    constant on Vulkan targets (``layout(constant_id = N) const``, default
    from ``options.draw_state``), a plain uniform on GL targets."""
    param = PARAMS_BY_KEY[var.builtin]
    name = lay.namer.reserve(param.glsl)
    lay.reach(var, Access(name))
    gtype = param.type.value
    entry = {"key": param.key, "id": param.spec_id, "state": param.state, "type": gtype, "encoding": param.encoding,
             "glsl": name}
    if target.vulkan:
        value = options.draw_state.param_value(param.key)
        d = Decl("spec_constant", name, gtype)
        d.constant_id = param.spec_id
        d.init = ("true" if value else "false") if gtype == "bool" else repr(value)
        entry.update(form="specialization_constant", constant_id=param.spec_id, default=value)
    else:
        d = Decl("uniform", name, gtype)
        entry["form"] = "uniform"
    lay.decls.append(d)
    lay.reflection["state_parameters"].append(entry)


def _privates(lay: Layout, privates: list[Variable]) -> None:
    """Temporaries, address registers, locals: globals, scalars and vectors
    starting at zero."""
    namer, decls, access, texts = lay.namer, lay.decls, lay.access, lay.texts
    for var in privates:
        name = namer.name(var.name)
        t = var.type
        length = var.length
        if length:
            decls.append(Decl("global", name, GLSL_TYPES[t.scalar][t.width], length))
            access[id(var)] = Access(name, "", True)
        else:
            d = Decl("global", name, GLSL_TYPES[t.scalar][t.width])
            d.init = ZERO_INITS[t.scalar][t.width]
            decls.append(d)
            access[id(var)] = _WHOLE.get(name) or _whole(name)
            if texts is not None:
                texts[var] = name


def _packed_semantics(var: Variable, what: str) -> UnsupportedError:
    return UnsupportedError(-1, f"{what} {var.name} packs {len(var.semantics)} semantics; the io pass splits them "
                               "unless the register is indexed dynamically")


def _mask_name(mask: int) -> str:
    """A write mask's letters; MASK_NAMES has those of every 4-bit mask."""
    return "".join(c for i, c in enumerate("xyzw") if mask & (1 << i))


def _io_entry(usage: str | None, index: int | None, reg, mask: int, name: str, loc) -> dict:
    """One "inputs"/"outputs" reflection entry (the common varyings write theirs inline)."""
    mask_name = MASK_NAMES[mask] if 0 <= mask < 16 else _mask_name(mask)
    return {"usage": usage, "usage_index": index, "register": reg, "mask": mask_name, "glsl": name, "location": loc}


def _builtin_input(lay: Layout, var: Variable, target: Target) -> None:
    b = var.builtin
    if b == "frag_coord":
        lay.reach(var, Access("gl_FragCoord"))
    elif b == "front_facing":
        lay.reach(var, Access("gl_FrontFacing"))
    elif b == "viewport":
        _viewport(lay, var, target)
    elif _DRAW_STATE_NAME.match(b):
        _draw_state_uniform(lay, var, target, lay.namer, lay.reflection)
    else:
        raise UnsupportedError(-1, f"input {var.name}: built-in '{b}' must be lowered by the io pass first")


def _point_coord(lay: Layout, var: Variable, target: Target, program: Program) -> None:
    """D3D's point-sprite coordinate (passes/points.py): u right, v down in
    the D3D image.  gl_PointCoord's t runs down the API's window (upper-left
    origin); it points down D3D's image when the image lies as D3D's in
    memory (Vulkan with flip_y, GL without), else t is flipped."""
    flip_y = bool((program.notes.get("io") or {}).get("flip_y"))
    flip = flip_y != bool(target.vulkan)
    lay.reach(var, Access("vec2(gl_PointCoord.x, 1.0 - gl_PointCoord.y)" if flip else "gl_PointCoord"))


def _clip_distance(lay: Layout, var: Variable, target: Target) -> None:
    """A user clip plane's distance (passes/clip_planes.py): element i of
    gl_ClipDistance, which GLSL 1.20 and ES (before 3.2) do not have."""
    if target.es or target.version < 130:
        raise UnsupportedError(-1, f"{target.name} has no gl_ClipDistance: user clip planes need GLSL 1.30+ "
                                   "(glsl330, glsl450, vulkan, spirv)")
    index = int(var.builtin[len("clip_distance"):])
    lay.reach(var, Access(f"gl_ClipDistance[{index}]"))


def _viewport(lay: Layout, var: Variable, target: Target) -> None:
    name = lay.namer.reserve("xl_viewport")
    lay.reach(var, Access(name))
    value = "vec4(1/viewport_width, 1/viewport_height, render_target_height, 0)"
    if target.uniform_blocks:
        sset = STAGE_SET[lay.stage]
        lay.blocks.append(Block(lay.namer.fresh(f"{lay.prefix}viewport_block"), sset, VIEWPORT_BINDING,
                                [Decl("uniform", name, "vec4")]))
        lay.reflection["viewport"] = {"glsl": name, "set": sset, "binding": VIEWPORT_BINDING, "offset": 0,
                                      "value": value}
    else:
        lay.decls.append(Decl("uniform", name, "vec4"))
        lay.reflection["viewport"] = {"glsl": name, "value": value}


def _vertex_input(lay: Layout, var: Variable, target: Target) -> None:
    sems = var.semantics
    if len(sems) > 1:
        raise _packed_semantics(var, "input")
    reg = var.register[1] if var.register else None
    if sems:
        sem = sems[0][1]
        usage, index = sem.usage, sem.index
        row = SEMANTIC_ROWS[usage][index] if 0 <= index < 16 else semantic_row(usage, index)
        usage_name, name = row.usage, row.vs_input
    else:
        usage_name = index = None
        name = f"in_v{reg}"
    namer = lay.namer
    if name in namer.used:
        name = namer.name(name)
    else:
        namer.used.add(name)
    t = var.type
    d = Decl("vs_input", name, GLSL_TYPES[t.scalar][t.width], None, reg if target.io_locations or target.vulkan else None)
    if target.es and var.partial_precision:
        d.precision = "mediump"
    lay.decls.append(d)
    lay.access[id(var)] = _WHOLE.get(name) or _whole(name)
    if lay.texts is not None:
        lay.texts[var] = name
    mask = var.mask
    lay.reflection["inputs"].append({
        "usage": usage_name, "usage_index": index, "register": reg,
        "mask": MASK_NAMES[mask] if 0 <= mask < 16 else _mask_name(mask), "glsl": name, "location": reg})


def _fragment_input(lay: Layout, var: Variable, target: Target) -> None:
    sems = var.semantics
    if len(sems) > 1:
        raise _packed_semantics(var, "input")
    reg = var.register[1] if var.register else None
    if sems:
        sem = sems[0][1]
        usage, index = sem.usage, sem.index
        if reg is None and usage is TEXCOORD:
            reg = index  # ps_1_0-1_3 coordinate set m belongs to t(m), as t# does in ps_1_4 / ps_2_x
        _, usage_name, gl_loc, vk_loc, _, name, _ = (SEMANTIC_ROWS[usage][index] if 0 <= index < 16
                                                     else semantic_row(usage, index))
        if gl_loc is None:
            lay.off_table = True
        loc = vk_loc if target.vulkan else gl_loc
        if lay.varying_map is not None:
            loc = lay.varying_map.get((usage, index), loc)
    else:
        usage_name, index, name = None, None, f"v_v{reg}"
        loc = no_semantic_vk_location(reg) if target.vulkan else None
        lay.off_table = True
    namer = lay.namer
    if name in namer.used:
        name = namer.name(name)
        lay.off_table = True
    else:
        namer.used.add(name)
    d = Decl("fs_input", name, "vec4", None, loc if target.varying_locations else None)
    d.centroid = centroid = var.centroid and not target.appendix_a
    if target.es and var.partial_precision:
        d.precision = "mediump"
    lay.decls.append(d)
    _reach_varying(lay, var, name)
    mask = var.mask
    lay.reflection["inputs"].append({
        "usage": usage_name, "usage_index": index, "register": reg,
        "mask": MASK_NAMES[mask] if 0 <= mask < 16 else _mask_name(mask), "glsl": name, "location": loc,
        "centroid": centroid})


def _reach_varying(lay: Layout, var: Variable, name: str) -> None:
    """A varying is a vec4 whatever the IR type: a scalar lives in ``.x``."""
    acc = (_IN_X.get(name) or _in_x(name)) if var.type.width == 1 else (_WHOLE.get(name) or _whole(name))
    lay.access[id(var)] = acc
    if lay.texts is not None:
        lay.texts[var] = acc.name + acc.component


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


def _vertex_output(lay: Layout, var: Variable, program: Program, target: Target) -> None:
    sems = var.semantics
    if len(sems) > 1:
        raise _packed_semantics(var, "output")
    reg = var.register[1] if var.register else None
    width = var.type.width
    # a scalar register (oFog, oPts, oDepth) has only .x, whatever mask it was lifted with
    mask = 0x1 if width == 1 else var.mask
    if sems:
        sem = sems[0][1]
        usage, index = sem.usage, sem.index
        label, usage_name, gl_loc, vk_loc, builtin, name, _ = (SEMANTIC_ROWS[usage][index] if 0 <= index < 16
                                                               else semantic_row(usage, index))
        if builtin is not None:
            if usage is PSIZE and width != 1:
                raise UnsupportedError(-1, f"output {var.name}: a vec4 point size must be split by the io pass")
            lay.access[id(var)] = Access(builtin)
            if lay.texts is not None:
                lay.texts[var] = builtin
            lay.reflection["outputs"].append(_io_entry(usage_name, index, reg, mask, builtin, None))
            return
        if gl_loc is None:
            lay.off_table = True
        loc = vk_loc if target.vulkan else gl_loc
        if lay.varying_map is not None:
            loc = lay.varying_map.get((usage, index), loc)
    else:
        label, usage_name, index = f"o{reg}", None, None
        name = f"v_{label}"
        loc = no_semantic_vk_location(reg) if target.vulkan else None
        lay.off_table = True
    used = lay.namer.used
    if name in used:
        raise UnsupportedError(-1, f"two outputs carry the semantic {label}")
    used.add(name)
    lay.decls.append(Decl("vs_output", name, "vec4", None, loc if target.varying_locations else None))
    _reach_varying(lay, var, name)
    lay.reflection["outputs"].append({
        "usage": usage_name, "usage_index": index, "register": reg,
        "mask": MASK_NAMES[mask] if 0 <= mask < 16 else _mask_name(mask), "glsl": name, "location": loc})


def _fragment_output(lay: Layout, var: Variable, program: Program, target: Target) -> None:
    sems = var.semantics
    if len(sems) > 1:
        raise _packed_semantics(var, "output")
    sem = sems[0][1] if sems else None
    reg = var.register[1] if var.register else None
    mask = 0x1 if var.type.width == 1 else var.mask
    usage_name = USAGE_NAMES[sem.usage] if sem is not None else None
    index = sem.index if sem is not None else None
    if sem is not None and sem.usage is DEPTH:
        if target.appendix_a:
            lay.extensions.append("GL_EXT_frag_depth")
            name = "gl_FragDepthEXT"
        else:
            name = "gl_FragDepth"
        lay.reach(var, Access(name))
        lay.reflection["outputs"].append(_io_entry(usage_name, index, reg, mask, name, None))
        return
    n = index if sem is not None else (reg or 0)
    if not target.in_out:
        colours = [v for v in program.variables_of(OUTPUT) if v.semantic and v.semantic.usage is COLOR]
        multi = any(v.semantic.index > 0 for v in colours)
        if multi and target.es:
            raise UnsupportedError(-1, "GLSL ES 1.00 has one colour output; oC1-oC3 need GL_EXT_draw_buffers, "
                                       "which the validator does not support: use essl300")
        name = f"gl_FragData[{n}]" if multi else "gl_FragColor"
        lay.reach(var, Access(name))
        lay.reflection["outputs"].append(_io_entry(usage_name, index, reg, mask, name, n))
        return
    name = lay.namer.reserve(f"out_color{n}")
    lay.decls.append(Decl("fs_output", name, "vec4", None, n))
    lay.access[id(var)] = _WHOLE.get(name) or _whole(name)
    if lay.texts is not None:
        lay.texts[var] = name
    lay.reflection["outputs"].append(_io_entry(usage_name, index, reg, mask, name, n))
