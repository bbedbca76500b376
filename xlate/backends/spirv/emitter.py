"""Core IR -> SPIR-V words, written directly (no GLSL, no glslang).

The IR is already structured (``IF``/``ELSE``/``ENDIF``, ``LOOP``/
``ENDLOOP`` markers, ``BREAK``, ``RETURN``), so each marker becomes the
blocks and merge instructions SPIR-V's structured control flow asks for:

- ``IF c``: ``OpSelectionMerge %merge``, ``OpBranchConditional c %then
  %else``; without an ``ELSE`` the false target is patched to ``%merge``
  at ``ENDIF``.
- ``LOOP``: ``OpBranch %header``; the header holds ``OpLoopMerge %merge
  %continue`` and branches to the body; ``ENDLOOP`` branches to
  ``%continue``, which branches back to the header (the IR has no
  ``continue``, so the continue block is only the back edge).
- ``BREAK`` branches to the innermost loop's merge block, ``RETURN`` is
  ``OpReturn``, ``DISCARD`` ``OpKill``; the code after any of them goes
  into a fresh (unreachable) block, as glslang does, so every marker that
  follows may branch unconditionally.

Values are SSA in the IR and in SPIR-V alike: each value op is one result
id (or a few instructions ending in one).  Registers are Private
variables (``layout.py``'s globals), read with ``OpLoad`` and written
with ``OpStore`` (a partial write mask loads, shuffles and stores, as
glslang does for ``r0.xz = ...``).  Each op prints what ``glsl.py`` and
its helpers print, in SPIR-V: ``xl_saturate`` is ``x > 0 ? min(x, 1) :
0``, ``xl_mul_legacy`` ``(a == 0 || b == 0) ? 0 : a * b``, ``1.0 / x`` for
rcp, the GLSL.std.450 functions where GLSL calls its built-ins, and
``texture()`` in a vertex shader samples level 0 explicitly (as glslang
translates it).
"""

from __future__ import annotations

import struct

from ...errors import UnsupportedError
from ...ir import cfg
from ...ir.ops import Code, Op
from ...ir.program import Program, Storage
from ...ir.summary import summary_of
from ...ir.types import B1, B4, F1, F4, I1, Scalar
from .. import layout as layout_mod
from ..targets import Target, unsupported
from .grammar import grammar
from . import interface
from .access import MASK_SELECT, SINGLE, Access
from .control import ControlFlow
from .helpers import HELPER_AFTER, HelperFunctions
from .module import OP, string_words
from .values import PACK_FLOATS, Values

G = grammar()
EXT = G.glsl450
FLOAT, INT, BOOL = Scalar.FLOAT, Scalar.INT, Scalar.BOOL
FILES = layout_mod.FILE_BINDING

# IR code -> the SPIR-V instruction that computes it from its args alone,
# result type = the op's type
NATIVE = {code: OP[name] for code, name in {
    Code.FNEG: "OpFNegate", Code.FADD: "OpFAdd", Code.FSUB: "OpFSub", Code.FMUL: "OpFMul", Code.FDIV: "OpFDiv",
    Code.IADD: "OpIAdd", Code.IMUL: "OpIMul",
    Code.FLT: "OpFOrdLessThan", Code.FLE: "OpFOrdLessThanEqual", Code.FGT: "OpFOrdGreaterThan",
    Code.FGE: "OpFOrdGreaterThanEqual", Code.FEQ: "OpFOrdEqual", Code.FNE: "OpFUnordNotEqual",
    Code.ILT: "OpSLessThan", Code.ILE: "OpSLessThanEqual", Code.IGT: "OpSGreaterThan",
    Code.IGE: "OpSGreaterThanEqual", Code.IEQ: "OpIEqual", Code.INE: "OpINotEqual",
    Code.BNOT: "OpLogicalNot", Code.BAND: "OpLogicalAnd", Code.BOR: "OpLogicalOr", Code.I2F: "OpConvertSToF",
}.items()}
# IR code -> the GLSL.std.450 instruction (what glsl.py's FUNCS call)
EXTENDED = {code: EXT[name] for code, name in {
    Code.FABS: "FAbs", Code.FFLOOR: "Floor", Code.FFRACT: "Fract", Code.FEXP2: "Exp2", Code.FLOG2: "Log2",
    Code.FSQRT: "Sqrt", Code.FRSQ: "InverseSqrt", Code.FSIN: "Sin", Code.FCOS: "Cos", Code.FSIGN: "FSign",
    Code.FMIN: "FMin", Code.FMAX: "FMax", Code.FPOW: "Pow", Code.FCLAMP: "FClamp", Code.FROUND_EVEN: "RoundEven",
}.items()}
DERIVATIVES = {Code.FDDX: OP["OpDPdx"], Code.FDDY: OP["OpDPdy"]}
(OpLoad, OpStore, OpAccessChain, OpExtInst, OpCompositeExtract, OpCompositeConstruct, OpCompositeInsert,
 OpVectorShuffle, OpSelect, OpFOrdEqual, OpFOrdGreaterThan, OpLogicalOr, OpFMul, OpFAdd, OpFDiv, OpDot, OpAny,
 OpConvertFToS, OpINotEqual, OpIAdd, OpLabel, OpBranch, OpBranchConditional, OpSelectionMerge, OpLoopMerge, OpReturn,
 OpKill, OpFunction, OpFunctionEnd, OpImageSampleImplicitLod, OpImageSampleExplicitLod,
 OpFunctionCall) = (OP[n] for n in (
    "OpLoad", "OpStore", "OpAccessChain", "OpExtInst", "OpCompositeExtract", "OpCompositeConstruct",
    "OpCompositeInsert", "OpVectorShuffle", "OpSelect", "OpFOrdEqual", "OpFOrdGreaterThan", "OpLogicalOr", "OpFMul",
    "OpFAdd", "OpFDiv", "OpDot", "OpAny", "OpConvertFToS", "OpINotEqual", "OpIAdd", "OpLabel", "OpBranch",
    "OpBranchConditional", "OpSelectionMerge", "OpLoopMerge", "OpReturn", "OpKill", "OpFunction", "OpFunctionEnd",
    "OpImageSampleImplicitLod", "OpImageSampleExplicitLod", "OpFunctionCall"))
EXT_FLOOR, EXT_ROUND_EVEN = EXT["Floor"], EXT["RoundEven"]
FUNCTION_CONTROL_NONE = G.enums["FunctionControl"]["None"]
FULL = (0, 0x1, 0x3, 0x7, 0xF)  # width -> the write mask of every component
# first words of the instructions ``function`` writes inline
LOAD_HEAD, STORE_HEAD, EXTRACT_HEAD = (4 << 16) | OpLoad, (3 << 16) | OpStore, (5 << 16) | OpCompositeExtract
INSERT_HEAD = (6 << 16) | OpCompositeInsert
CALL2_HEAD = (6 << 16) | OpFunctionCall
# SPIR-V version word -> (void, main's function type, float, int, bool,
# {(Scalar, width): vector type}, {id(IR Type): type id}): Module.start's
# types, the same ids in every module of that version.  The IR's own Type
# objects (ir.types' F1, F4 ...) live as long as the process, so their ids
# are keys that hold: most ops carry them, and their type ids are known
# before the first op (``type_of`` need not look them up)
_COMMON_TYPES: dict = {}
# what run writes last, ready-made: main's name, OpSource, the entry point's
# operands, its execution modes
MAIN_WORDS = string_words("main")
MAIN_ONLY = ("main",)
NAME_MAIN_HEAD = ((2 + len(MAIN_WORDS)) << 16) | OP["OpName"]
SOURCE_WORDS = ((3 << 16) | OP["OpSource"], G.enums["SourceLanguage"]["Unknown"], 0)
OpEntryPoint = OP["OpEntryPoint"]
FRAGMENT, VERTEX = G.enums["ExecutionModel"]["Fragment"], G.enums["ExecutionModel"]["Vertex"]
EXECUTION_MODE_HEAD = (3 << 16) | OP["OpExecutionMode"]
ORIGIN_UPPER_LEFT, DEPTH_REPLACING = (G.enums["ExecutionMode"][n] for n in ("OriginUpperLeft", "DepthReplacing"))
# [width] -> the helper_fns key of the legacy multiply / dot of that width
MUL_HELPER = [None] + [("mul_legacy", n) for n in range(1, 5)]
DOT_HELPER = [None] + [("dot_legacy", n) for n in range(1, 5)]
SHUFFLE_HEAD = [((5 + n) << 16) | OpVectorShuffle for n in range(5)]  # [components] -> OpVectorShuffle's first word
LOAD, STORE, CONST, SWIZZLE = Code.LOAD, Code.STORE, Code.CONST, Code.SWIZZLE
FMUL_LEGACY, FDOT_LEGACY = Code.FMUL_LEGACY, Code.FDOT_LEGACY
# never loaded or stored whole through their own variable (a state
# parameter is a specialization constant: no variable at all)
SKIP_PLAIN = frozenset(FILES) | {Storage.SAMPLER, Storage.STATE}


IDENTITY = [None, (0,), (0, 1), (0, 1, 2), (0, 1, 2, 3)]


class Emitter(ControlFlow, HelperFunctions, Values, Access):
    """One program's module: ``run`` gives (bytes, the layout's reflection).
    Structured control flow is ``control.ControlFlow``'s, variable access
    ``access.Access``'s, the helpers
    (saturate, legacy multiply and dot) ``helpers.HelperFunctions``'.
    Slotted (its mixins too): the handlers read its attributes for every op."""

    __slots__ = ("p", "t", "o", "fragment", "version", "debug", "legacy", "lay", "m", "iface", "glsl", "void",
                 "fn_type", "float", "int", "bool", "pointers", "helper_fns", "chains", "groups", "helper_words",
                 "images", "types", "vecs", "vector_constants", "static", "plain", "plain_store", "fn_ids", "words",
                 "ids", "known", "stack")

    def __init__(self, program: Program, target: Target, options, version: str = "1.0", names: bool = True):
        self.p = program
        self.t = target
        self.o = options
        self.fragment = program.is_pixel
        self.version = version
        self.debug = names

    # -- errors -------------------------------------------------------------

    def unsupported(self, op: Op | None, reason: str) -> UnsupportedError:
        return unsupported(self.p, self.t, op, reason)

    # -- whole program ------------------------------------------------------

    def run(self) -> tuple[bytes, dict]:
        p = self.p
        summary = summary_of(p)  # (the passes' walk saw every op: most programs need no walk here)
        self.legacy = summary.legacy_uses  # Code -> uses (read only)
        lay = self.lay = layout_mod.plan(p, self.t, self.o)
        # the interface variables, built-ins included, exist whether or not
        # the code reaches them (the entry point lists them); a vertex
        # shader has glslang's gl_PerVertex, gl_PointSize included whether
        # or not the shader writes it (D3D9 draws points either way)
        access = lay.access
        builtins = []
        # the variables that may be read or written whole through their own
        # variable (``plain`` below), with their Access, found in this walk
        candidates = []
        INPUT, OUTPUT = Storage.INPUT, Storage.OUTPUT
        skip = SKIP_PLAIN
        for var in p.variables:
            storage = var.storage
            if storage is INPUT or storage is OUTPUT:
                acc = access[id(var)]
                if acc.name.startswith("gl_"):
                    builtins.append(acc.name)
            elif storage in skip:
                continue
            else:
                acc = access.get(id(var))
                if acc is None:
                    continue
            if not acc.array:
                candidates.append((var, acc))
        m, self.iface = interface.build(self.version, lay, self.debug, not self.fragment, tuple(builtins))
        self.m = m
        self.glsl = m.glsl
        # the common types: in every module, with the same ids (Module.start)
        common = _COMMON_TYPES.get(m.version)
        if common is None:
            types = m.types
            f, i, b = types["float"], types["int"], types["bool"]
            f4, b4 = types[("vec", f, 4)], types[("vec", b, 4)]
            common = _COMMON_TYPES[m.version] = (
                types["void"], types[("fn", types["void"])], f, i, b,
                {(FLOAT, 1): f, (INT, 1): i, (BOOL, 1): b, (FLOAT, 4): f4, (BOOL, 4): b4},
                {id(F1): f, id(F4): f4, id(I1): i, id(B1): b, id(B4): b4})
        self.void, self.fn_type, self.float, self.int, self.bool, vecs, known_types = common
        self.pointers: dict = {}  # (storage class, pointee) -> pointer type
        self.helper_fns: dict = {}  # (helper, width) -> its function
        # (Variable, element) -> (OpAccessChain's first word, pointer type,
        # variable, indices, pointee) of a static load through a chain
        self.chains: dict = {}
        self.groups: dict = {}  # id(ConstGroup) -> what register_load keeps of it
        self.helper_words: list[int] = []  # their definitions
        self.images: dict = {}  # dim -> sampled image type
        self.types: dict = known_types.copy()  # id(IR Type) -> type id
        self.vecs: dict = vecs.copy()  # (Scalar, width) -> type id
        # (width, packed float32 values) or (Scalar, width, values) -> constant id
        self.vector_constants: dict = {}
        self.static: dict = {}  # (Variable, element) -> access() of a static access
        # Variable -> (pointer, pointee type, an IR scalar in .x?, writable?,
        # None or the access chain's words but its result id) for the
        # registers read and written whole through their own variable (or
        # a member of a block, gl_Position)
        self.plain = plain = {}
        # Variable -> (pointer, pointee type, IR scalar, width, full write
        # mask, None or the access chain's words but its result id) for the
        # plain ones (no IR scalar in .x) a store may write whole through
        # their own variable, or a block member's chain
        self.plain_store = plain_store = {}
        info_get = self.iface.plain_info.get
        for var, acc in candidates:
            info = info_get(acc.name)
            if info is None:
                continue
            pointer, value_type, writable, member = info
            if member is None:
                if acc.component:  # an IR scalar in .x: read and written through load and store
                    plain[var] = (pointer, value_type, True, writable, None)
                    continue
                plain[var] = (pointer, value_type, False, writable, None)
                if writable:
                    t = var.type
                    width = t.width
                    plain_store[var] = (pointer, value_type, t.scalar, width, FULL[width], None)
            else:  # a block member (gl_Position): reached through a chain of one constant index
                place = self.iface.places[acc.name]
                ptr_type = m.pointer(place.storage, place.value_type)
                chain = ((5 << 16) | OpAccessChain, ptr_type, place.var, m.int_constant(place.member))
                plain[var] = (None, place.value_type, bool(acc.component), writable, chain)
                if writable and not acc.component:  # stored through a chain made per store
                    t = var.type
                    width = t.width
                    plain_store[var] = (None, value_type, t.scalar, width, FULL[width], chain)
        # a CALL needs a subroutine to call (call_order checks the calls)
        if len(p.functions) > 1:
            order = cfg.call_order(p)
            self.fn_ids = {name: m.new_id() for name in order}
        else:
            order = MAIN_ONLY
            self.fn_ids = {"main": m.bound}
            m.bound += 1
        for name in order:
            self.function(name, p.functions[name].body)
        m.functions.extend(self.helper_words)
        main = self.fn_ids["main"]
        if self.debug:
            if len(order) == 1:  # main alone: its OpName, then OpSource, words made once
                m.names += (NAME_MAIN_HEAD, main, *MAIN_WORDS)
            else:
                for name in order:
                    m.name(self.fn_ids[name], "main" if name == "main" else lay.namer.name(name))
            m.debug_strings += SOURCE_WORDS
        io = self.iface.io
        if self.fragment:
            m.entry_points += (((3 + len(MAIN_WORDS) + len(io)) << 16) | OpEntryPoint, FRAGMENT, main, *MAIN_WORDS,
                               *io)
            m.execution_modes += (EXECUTION_MODE_HEAD, main, ORIGIN_UPPER_LEFT)
            if self.iface.depth:
                m.execution_modes += (EXECUTION_MODE_HEAD, main, DEPTH_REPLACING)
        else:
            m.entry_points += (((3 + len(MAIN_WORDS) + len(io)) << 16) | OpEntryPoint, VERTEX, main, *MAIN_WORDS, *io)
        refl = lay.reflection
        refl["extensions"] = []
        return m.to_bytes(debug=self.debug), refl

    # -- one function -------------------------------------------------------

    def function(self, name: str, body: list[Op]) -> None:
        m = self.m
        w = self.words = m.functions
        label = m.bound
        m.bound = label + 1
        w += ((5 << 16) | OpFunction, self.void, self.fn_ids[name], FUNCTION_CONTROL_NONE, self.fn_type,
              (2 << 16) | OpLabel, label)
        self.ids: dict[Op, int] = {}
        # what this block has read or written: Variable (read or written
        # whole) or (constant file, register) -> the id holding its value,
        # emptied where a block ends (a control marker or a call)
        self.known: dict = {}
        # open constructs: ("if", merge, position of the false target word, has else)
        # or ("loop", merge, continue, header)
        self.stack: list = []
        handlers = HANDLERS
        # The commonest ops (a register read or written whole, a swizzle of a
        # value, an instruction of its args alone) are written here rather
        # than through their handler: a method call per op was a third of
        # the cost.  Each falls back on its handler for anything else.
        ids = self.ids
        id_of = ids.__getitem__  # (a comprehension over ids would make it a cell: slower everywhere)
        known = self.known
        known_get = known.get
        plain_get = self.plain.get
        store_get = self.plain_store.get
        types_get = self.types.get
        type_of = self.type_of
        load, store = Emitter.load, Emitter.store
        packed_constant = Emitter.packed_constant
        glsl = self.glsl
        chains_get = self.chains.get
        register_load = Emitter.register_load
        # (width, float32 bytes) or (Scalar, width, imm) -> a CONST op's id
        const_ids: dict = {}
        const_get = const_ids.get
        legacy = self.legacy
        mul_calls = legacy.get(FMUL_LEGACY, 0) >= HELPER_AFTER[FMUL_LEGACY]
        dot_calls = legacy.get(FDOT_LEGACY, 0) >= HELPER_AFTER[FDOT_LEGACY]
        helper_get = self.helper_fns.get
        try:
            for op in body:
                code = op.code
                if code is LOAD:
                    if not op.args and not op.imm:
                        var = op.var
                        v = known_get(var)
                        if v is not None:
                            ids[op] = v
                            continue
                        found = plain_get(var)
                        if found is not None and found[4] is None and not found[2]:
                            r = m.bound
                            m.bound = r + 1
                            w += (LOAD_HEAD, found[1], r, found[0])
                            ids[op] = known[var] = r
                            continue
                    elif not op.args:  # an element (a constant register ...) loaded before: its chain
                        key = (op.var, op.imm[0])
                        v = known_get(key)
                        if v is not None:
                            ids[op] = v
                            continue
                        ready = chains_get(key)
                        if ready is not None:
                            head, ptr_type, var, chain, pointee = ready
                            r = m.bound
                            m.bound = r + 2
                            w += (head, ptr_type, r, var, *chain, LOAD_HEAD, pointee, r + 1, r)
                            ids[op] = r + 1
                            if op.var.storage in FILES:  # a constant register: read-only
                                known[key] = r + 1
                            continue
                        if key[1] is not None and op.var.storage in FILES:
                            # a constant register's first load, written by register_load (load's own path)
                            v = register_load(self, key)
                            if v is not None:
                                ids[op] = v
                                continue
                    load(self, op)
                elif code is STORE:
                    args = op.args
                    imm = op.imm
                    if len(args) == 1 and len(imm) == 1:  # a whole register, all or some of it written
                        var = op.var
                        found = store_get(var)
                        vt = args[0].type
                        if found is not None and vt.scalar is found[2]:
                            ptr, pointee, _, width, full, chain = found
                            mask = imm[0] & full
                            if mask == full and vt.width == width:
                                if chain is not None:  # a block member (gl_Position): its pointer first
                                    ptr = self.member_pointer(chain)
                                v = ids[args[0]]
                                w += (STORE_HEAD, ptr, v)
                                known[var] = v
                                continue
                            if mask and width > 1 and mask != full:
                                if chain is not None:
                                    ptr = self.member_pointer(chain)
                                # the new components into the old value (this block's, else a load)
                                old = known_get(var)
                                r = m.bound
                                if old is None:
                                    old = r
                                    r += 1
                                    w += (LOAD_HEAD, pointee, old, ptr)
                                m.bound = r + 1
                                single = SINGLE[mask]
                                if single is not None and vt.width == 1:
                                    w += (INSERT_HEAD, pointee, r, ids[args[0]], old, single, STORE_HEAD, ptr, r)
                                else:
                                    sel = MASK_SELECT[width][mask]
                                    w += (((5 + len(sel)) << 16) | OpVectorShuffle, pointee, r, old, ids[args[0]],
                                          *sel, STORE_HEAD, ptr, r)
                                known[var] = r
                                continue
                    store(self, op)
                elif code is SWIZZLE:
                    src = op.args[0]
                    comps = op.imm
                    width = src.type.width
                    if src.code is not SWIZZLE and src.code is not CONST and width > 1:
                        n = len(comps)
                        if n == 1:
                            if comps[0] < width:
                                r = m.bound
                                m.bound = r + 1
                                w += (EXTRACT_HEAD, types_get(id(op.type)) or type_of(op.type), r, ids[src], comps[0])
                                ids[op] = r
                                continue
                        elif comps == IDENTITY[width]:
                            ids[op] = ids[src]
                            continue
                        elif max(comps) < width:
                            r = m.bound
                            m.bound = r + 1
                            v = ids[src]
                            w += (SHUFFLE_HEAD[n], types_get(id(op.type)) or type_of(op.type), r, v, v)
                            w += comps
                            ids[op] = r
                            continue
                    handlers[code](self, op)
                elif code is CONST:
                    imm = op.imm
                    t = op.type
                    scalar = t.scalar
                    if scalar is FLOAT:  # float32 bytes as the key: 0.0 and -0.0 stay apart
                        try:
                            key = (t.width, PACK_FLOATS[len(imm)].pack(*imm))
                        except (OverflowError, struct.error, IndexError, AttributeError):
                            key = None
                        if key is not None:
                            c = const_get(key)
                            if c is None:
                                c = const_ids[key] = packed_constant(self, key[0], key[1], len(imm))
                            ids[op] = c
                            continue
                    else:
                        key = (scalar, t.width, imm)
                    c = const_get(key)
                    if c is None:
                        c = self.constant(scalar, t.width, imm)
                        if key is not None:
                            const_ids[key] = c
                    ids[op] = c
                else:
                    native = NATIVE.get(code)
                    if native is not None:
                        args = op.args
                        r = m.bound
                        m.bound = r + 1
                        if len(args) == 2:
                            w += ((5 << 16) | native, types_get(id(op.type)) or type_of(op.type), r, ids[args[0]],
                                  ids[args[1]])
                        else:
                            w += (((len(args) + 3) << 16) | native, types_get(id(op.type)) or type_of(op.type), r,
                                  *map(id_of, args))
                        ids[op] = r
                        continue
                    if code is FMUL_LEGACY and mul_calls or code is FDOT_LEGACY and dot_calls:
                        # a call of the helper function (helpers.HelperFunctions.call_helper)
                        a, b = op.args
                        key = MUL_HELPER[op.type.width] if code is FMUL_LEGACY else DOT_HELPER[a.type.width]
                        fn = helper_get(key) or self.helper(*key)
                        t = types_get(id(op.type)) or type_of(op.type)
                        r = m.bound
                        m.bound = r + 1
                        w += (CALL2_HEAD, t, r, fn, ids[a], ids[b])
                        ids[op] = r
                        continue
                    extended = EXTENDED.get(code)
                    if extended is not None:  # a GLSL.std.450 instruction of its args (Emitter.extended)
                        args = op.args
                        t = types_get(id(op.type)) or type_of(op.type)  # (before the result id, as extended)
                        r = m.bound
                        m.bound = r + 1
                        w += (((len(args) + 5) << 16) | OpExtInst, t, r, glsl, extended, *map(id_of, args))
                        ids[op] = r
                        continue
                    handlers[code](self, op)
        except KeyError as e:  # a handler, or a value, that is not there
            what = e.args[0] if e.args else None
            if isinstance(what, Op):
                raise self.unsupported(what, f"value '{what.code.value}' used before it is defined "
                                             "(IR invariant 2)") from None
            if isinstance(what, Code):
                raise self.unsupported(op, f"the backend cannot write '{what.value}' (a D3D op left by the "
                                           "passes?)") from None
            raise
        if self.stack:
            raise self.unsupported(None, "unclosed IF or LOOP (IR invariant 4)")
        self.words += ((1 << 16) | OpReturn, (1 << 16) | OpFunctionEnd)

    def value(self, op: Op) -> int:
        try:
            return self.ids[op]
        except KeyError:
            raise self.unsupported(op, f"value '{op.code.value}' used before it is defined (IR invariant 2)") from None

    def new_block(self) -> None:
        self.m.put(self.words, OpLabel, self.m.new_id())
        self.known.clear()

    def inst(self, opcode: int, type_id: int, *operands: int) -> int:
        """A value instruction; returns its new result id."""
        m = self.m
        r = m.bound
        m.bound = r + 1
        self.words += (((len(operands) + 3) << 16) | opcode, type_id, r) + operands
        return r

    def ext(self, number: int, type_id: int, *operands: int) -> int:
        return self.inst(OpExtInst, type_id, self.glsl, number, *operands)

    # -- values -----------------------------------------------------------------

    def const(self, op: Op) -> None:
        t = op.type
        self.ids[op] = self.constant(t.scalar, t.width, op.imm)

    def swizzle(self, op: Op) -> None:
        src = op.args[0]
        comps = op.imm
        code = src.code
        if code is not SWIZZLE and code is not CONST:  # the common swizzles, written out
            w = src.type.width
            n = len(comps)
            if w > 1 and max(comps) < w:
                v = self.ids[src]
                if n > 1 and comps == IDENTITY[w]:
                    self.ids[op] = v
                    return
                t = self.types.get(id(op.type)) or self.type_of(op.type)
                m = self.m
                r = m.bound
                m.bound = r + 1
                if n == 1:
                    self.words += ((5 << 16) | OpCompositeExtract, t, r, v, comps[0])
                else:
                    self.words += (((5 + n) << 16) | OpVectorShuffle, t, r, v, v, *comps)
                self.ids[op] = r
                return
        while src.code is SWIZZLE:  # fold swizzles of swizzles
            comps = tuple([src.imm[c] for c in comps])
            src = src.args[0]
        t = op.type
        w = src.type.width
        if src.code is CONST:
            imm = list(src.imm) + [src.imm[-1]] * (w - len(src.imm))
            self.ids[op] = self.constant(t.scalar, t.width, [imm[c] for c in comps])
            return
        v = self.ids[src]
        if max(comps) >= w:
            raise self.unsupported(op, f"swizzle {comps} of a {w}-component value")
        if w == 1:
            self.ids[op] = v if t.width == 1 else self.inst(OpCompositeConstruct, self.type_of(t), *([v] * t.width))
        elif t.width == 1:
            self.ids[op] = self.inst(OpCompositeExtract, self.type_of(t), v, comps[0])
        elif comps == tuple(range(w)):
            self.ids[op] = v
        else:
            self.ids[op] = self.inst(OpVectorShuffle, self.type_of(t), v, v, *comps)

    def construct(self, op: Op) -> None:
        args = op.args
        if len(args) == 1 and args[0].type.width == op.type.width:
            self.ids[op] = self.value(args[0])
            return
        self.ids[op] = self.inst(OpCompositeConstruct, self.type_of(op.type), *[self.value(a) for a in args])

    def native(self, op: Op) -> None:
        ids = self.ids
        t = self.types.get(id(op.type)) or self.type_of(op.type)
        args = [ids[a] for a in op.args]
        m = self.m
        r = m.bound
        m.bound = r + 1
        self.words += (((len(args) + 3) << 16) | NATIVE[op.code], t, r, *args)
        ids[op] = r

    def extended(self, op: Op) -> None:
        ids = self.ids
        t = self.types.get(id(op.type)) or self.type_of(op.type)
        args = [ids[a] for a in op.args]
        m = self.m
        r = m.bound
        m.bound = r + 1
        self.words += (((len(args) + 5) << 16) | OpExtInst, t, r, self.glsl, EXTENDED[op.code], *args)
        ids[op] = r

    def derivative(self, op: Op) -> None:
        if not self.fragment:
            raise self.unsupported(op, "screen-space derivatives in a vertex shader")
        self.ids[op] = self.inst(DERIVATIVES[op.code], self.type_of(op.type), self.value(op.args[0]))

    def rcp(self, op: Op) -> None:
        t = op.type
        self.ids[op] = self.inst(OpFDiv, self.type_of(t), self.splat(1.0, t.width), self.value(op.args[0]))

    def fmad(self, op: Op) -> None:
        a, b, c = [self.value(x) for x in op.args]
        t = self.type_of(op.type)
        self.ids[op] = self.inst(OpFAdd, t, self.inst(OpFMul, t, a, b), c)

    def dot(self, op: Op) -> None:
        a, b = [self.value(x) for x in op.args]
        if op.args[0].type.width == 1:
            self.ids[op] = self.inst(OpFMul, self.float, a, b)
        else:
            self.ids[op] = self.inst(OpDot, self.float, a, b)

    def select(self, op: Op) -> None:
        ids = self.ids
        cond, a, b = op.args
        c = ids[cond]
        width = op.type.width
        if width > 1 and cond.type.width == 1:  # SPIR-V 1.0: one condition per component
            c = self.inst(OpCompositeConstruct, self.vec(BOOL, width), *([c] * width))
        t = self.types.get(id(op.type)) or self.type_of(op.type)
        m = self.m
        r = m.bound
        m.bound = r + 1
        self.words += ((6 << 16) | OpSelect, t, r, c, ids[a], ids[b])
        ids[op] = r

    def bany(self, op: Op) -> None:
        a = self.value(op.args[0])
        self.ids[op] = a if op.args[0].type.width == 1 else self.inst(OpAny, self.bool, a)

    def b2f(self, op: Op) -> None:
        width = op.type.width
        self.ids[op] = self.inst(OpSelect, self.type_of(op.type), self.value(op.args[0]), self.splat(1.0, width),
                                 self.splat(0.0, width))

    def f2i(self, op: Op) -> None:
        src = op.args[0]
        rounded = self.ext(EXT_FLOOR if op.code is Code.F2I_FLOOR else EXT_ROUND_EVEN, self.type_of(src.type),
                           self.value(src))
        self.ids[op] = self.inst(OpConvertFToS, self.type_of(op.type), rounded)


HANDLERS = {
    Code.CONST: Emitter.const, Code.LOAD: Emitter.load, Code.STORE: Emitter.store, Code.SWIZZLE: Emitter.swizzle,
    Code.CONSTRUCT: Emitter.construct,
    **{code: Emitter.native for code in NATIVE},
    **{code: Emitter.extended for code in EXTENDED},
    **{code: Emitter.derivative for code in DERIVATIVES},
    Code.FRCP: Emitter.rcp, Code.FMAD: Emitter.fmad, Code.FDOT: Emitter.dot, Code.FSATURATE: Emitter.saturate,
    Code.FMUL_LEGACY: Emitter.mul_legacy, Code.FDOT_LEGACY: Emitter.dot_legacy, Code.SELECT: Emitter.select,
    Code.BANY: Emitter.bany, Code.B2F: Emitter.b2f, Code.F2I_FLOOR: Emitter.f2i, Code.F2I_ROUND: Emitter.f2i,
    Code.SAMPLE: Emitter.sample,
    Code.IF: Emitter.if_, Code.ELSE: Emitter.else_, Code.ENDIF: Emitter.endif, Code.LOOP: Emitter.loop,
    Code.ENDLOOP: Emitter.endloop, Code.BREAK: Emitter.break_, Code.RETURN: Emitter.return_,
    Code.DISCARD: Emitter.discard, Code.CALL: Emitter.call,
}


def emit(program: Program, target: Target, options, *, version: str = "1.0", names: bool = True) -> tuple[bytes, dict]:
    """``(SPIR-V bytes, the layout's reflection)`` of a program after the passes."""
    return Emitter(program, target, options, version, names).run()
