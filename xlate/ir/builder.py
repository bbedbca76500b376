"""Lifting: decoded ``Shader`` -> ``Program`` with D3D-flavoured ops.

Each D3D instruction becomes loads of its sources (``LOAD``, ``SWIZZLE``,
``D3D_SRCMOD``), one ``D3D_OP`` computing a four-component result, and one
``D3D_STORE`` carrying the destination's mask, modifiers and predicate.  The
lowering passes replace those three D3D ops with core ops.  The D3D_STORE
of an instruction is emitted when the next instruction that is not
co-issued with it begins, so a ps_1_x co-issued pair reads all its sources
before either writes (semantics §3.6).

Control flow is lifted straight to structured core ops (flow.py), because its
D3D rules are about structure, not arithmetic: ``loop aL, i#`` runs i#.x
times whatever the step, aL starts at i#.y and grows by i#.z, and the outer
aL is restored after a nested loop.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from operator import attrgetter

from ..bytecode.model import DestOperand, Instruction, RelativeAddress, Shader, SourceOperand
from ..bytecode.tables import (
    CONST_FILE_BASE,
    OPCODES,
    IDENTITY_SWIZZLE,
    KNOWN_VERSIONS,
    DeclUsage,
    DstMod,
    Layout,
    Opcode,
    RegisterType,
    SamplerType,
    ShaderVersion,
    SrcMod,
    register_name,
    swizzle_components,
)
from ..errors import StructureError
from .ops import Code, Op
from .program import ConstantDef, Function, Program, Semantic, Storage, Variable
from .flow import ControlFlow, _Open
from .registers import classify, register_table
from .types import B1, B4, F1, F4, I1, I4, Type

R = RegisterType


# D3DOpInfo and DstInfo are values: never change one, make a new one with
# dataclasses.replace.  D3DOpInfo is not ``frozen``: one is made per
# instruction, and a frozen dataclass is built through object.__setattr__,
# three times slower than a plain slotted class; eq and hash are the same as
# a frozen dataclass's.  DstInfo is frozen: nearly every store's is one of a
# table shared by all programs (``_PLAIN_STORES``), so none may change.  (Its
# fields' slots are in a base class, so that the table, some 3,600 of them,
# can be built as the decoder builds its objects: see "Fast construction" in
# bytecode/model.py.)


@dataclass(slots=True, unsafe_hash=True)
class D3DOpInfo:
    """Immediate of a ``D3D_OP``: what the instruction was."""

    opcode: Opcode
    control: int = 0
    dst: tuple[RegisterType, int] | None = None  # destination register (sm1 texture ops)
    dst_mask: int = 0xF
    sampler: Variable | None = None  # texld family
    sampler_swizzle: int = IDENTITY_SWIZZLE  # sm3 applies it to the fetched texel
    nsrc: int = 0  # sources as written (sincos/sgn have scratch forms)


class _DstInfoSlots:
    __slots__ = ("mask", "saturate", "partial_precision", "shift", "opcode", "predicated", "relative", "element", "coissue")


@dataclass(frozen=True, slots=True)
class DstInfo(_DstInfoSlots):
    """Immediate of a ``D3D_STORE``: the destination's modifiers.

    args of the op: (value, [predicate bool4 if predicated], [index i1 if relative]).
    """

    mask: int
    saturate: bool = False
    partial_precision: bool = False
    shift: int = 0
    opcode: Opcode = Opcode.MOV
    predicated: bool = False
    relative: bool = False
    element: int = 0  # register within an array variable
    coissue: bool = False


# Opcodes whose D3D_OP produces no value and writes no register: texkill,
# and the ps_1_x ops that do not write their destination (the pads keep
# their dot product for the next op; the depth ops write the fragment depth;
# semantics 2.11, 2.12).  No D3D_STORE is lifted for them.
_NO_RESULT = {Opcode.TEXKILL, Opcode.TEXM3x2PAD, Opcode.TEXM3x3PAD, Opcode.TEXM3x2DEPTH, Opcode.TEXDEPTH}
# ps_1_x texture ops that sample the stage named by their destination
# register (§2.10, §2.11): their D3DOpInfo.sampler is s<dst number>.
_SM1_SAMPLING = {
    Opcode.TEX, Opcode.TEXBEM, Opcode.TEXBEML, Opcode.TEXREG2AR, Opcode.TEXREG2GB, Opcode.TEXREG2RGB,
    Opcode.TEXM3x2TEX, Opcode.TEXM3x3TEX, Opcode.TEXM3x3SPEC, Opcode.TEXM3x3VSPEC, Opcode.TEXDP3TEX,
}
# ps_1_0-1_3 texture-address ops that read tc[dst], the interpolated
# coordinate set of their destination's stage (§2.11): it is lifted as a LOAD
# of texcoord_input(dst) appended after the written sources.
_SM1_READS_COORD = {
    Opcode.TEX, Opcode.TEXCOORD, Opcode.TEXBEM, Opcode.TEXBEML, Opcode.TEXM3x2PAD, Opcode.TEXM3x2TEX,
    Opcode.TEXM3x2DEPTH, Opcode.TEXM3x3PAD, Opcode.TEXM3x3TEX, Opcode.TEXM3x3SPEC, Opcode.TEXM3x3VSPEC,
    Opcode.TEXM3x3, Opcode.TEXDP3, Opcode.TEXDP3TEX,
}
# Opcodes producing a bool4 (predicate writes).
_BOOL_RESULT = {Opcode.SETP}
_STRUCTURE = {
    Opcode.IF, Opcode.IFC, Opcode.ELSE, Opcode.ENDIF, Opcode.LOOP, Opcode.ENDLOOP, Opcode.REP,
    Opcode.ENDREP, Opcode.BREAK, Opcode.BREAKC, Opcode.BREAKP, Opcode.CALL, Opcode.CALLNZ,
    Opcode.LABEL, Opcode.RET,
}
# The D3D_OP result type of each opcode; F4 when not listed.
_RESULT_TYPE: dict[Opcode, Type | None] = {**{op: None for op in _NO_RESULT}, **{op: B4 for op in _BOOL_RESULT}}
# sm2+ sampling ops whose second source names the sampler (s#).
_SAMPLER_SOURCE = {Opcode.TEX, Opcode.TEXLDL, Opcode.TEXLDD}

# The tables below replace per-operand computations of the lifting loop,
# the hot path of lifting (a dozen operands per shader, every shader).
#
# The four components of each swizzle byte.
_SWIZZLE_COMPONENTS = tuple(swizzle_components(s) for s in range(256))
# (saturate, partial precision, centroid) of each result-modifier value,
# indexed by the value: DstMod is an IntFlag, and its ``&`` (behind
# DestOperand.saturate etc.) runs in Python, slower than the rest of a store.
_DST_FLAGS = tuple(
    (bool(m & DstMod.SATURATE), bool(m & DstMod.PARTIALPRECISION), bool(m & DstMod.CENTROID)) for m in range(16)
)
# Opcodes that read their destination register (``_texture_args``), and
# with those, in ps_1_0-1_3, the ones that read a texture coordinate.
_DST_ARGS = {Opcode.TEXKILL, Opcode.TEXDEPTH}
_TEXTURE_ARGS = _DST_ARGS | _SM1_READS_COORD
_INPUT_OUTPUT = {Storage.INPUT, Storage.OUTPUT}
# def/defi/defb: the constant file they fill, and their values.
_DEFINITIONS = {
    Opcode.DEF: (Storage.FLOAT_CONST, attrgetter("float_values")),
    Opcode.DEFI: (Storage.INT_CONST, attrgetter("int_values")),
    Opcode.DEFB: (Storage.BOOL_CONST, lambda inst: (inst.bool_value,)),
}
# The register files modelled as one array variable each: name, storage, type.
_CONSTANT_FILES = {
    **{rtype: ("c", Storage.FLOAT_CONST, F4) for rtype in CONST_FILE_BASE},
    R.CONSTINT: ("i", Storage.INT_CONST, I4),
    R.CONSTBOOL: ("b", Storage.BOOL_CONST, B1),
}
# Reading an enum member (``Code.LOAD``) costs a descriptor call on Python
# 3.11, about as much as building a small tuple; the per-instruction paths
# read these names instead.
_NO_SRCMOD = SrcMod.NONE
_LOAD = Code.LOAD
_SWIZZLE = Code.SWIZZLE
_SRCMOD = Code.D3D_SRCMOD
_D3D_OP = Code.D3D_OP
_D3D_STORE = Code.D3D_STORE
_SAMPLER = Storage.SAMPLER


# Building objects without calling their class.  A class call goes through
# type.__call__ and then the dataclass's generated __init__: on Python 3.11
# about twice the cost of creating the bare slotted instance and storing its
# fields, and lifting builds five or six of these objects per instruction.
# Every field is given, so what comes out is the object the class call makes.
_new = object.__new__


def _new_op(code: Code, type: Type | None, args: tuple, imm: tuple, var: Variable | None, origin: int) -> Op:
    op = _new(Op)
    op.code = code
    op.type = type
    op.args = args
    op.imm = imm
    op.var = var
    op.origin = origin
    return op


def _new_op_info(opcode, control, dst, dst_mask, sampler, sampler_swizzle, nsrc) -> D3DOpInfo:
    info = _new(D3DOpInfo)
    info.opcode = opcode
    info.control = control
    info.dst = dst
    info.dst_mask = dst_mask
    info.sampler = sampler
    info.sampler_swizzle = sampler_swizzle
    info.nsrc = nsrc
    return info


# The fields ``_Builder._new_var`` stores, in order: a field added to
# Variable must be added there too.
assert [f.name for f in fields(Variable)] == [
    "name", "storage", "type", "length", "register", "semantics", "builtin", "mask", "centroid",
    "partial_precision", "sampler_type",
], "Variable's fields changed: update _Builder._new_var"


def _version_facts(v: ShaderVersion) -> tuple:
    """What ``_Builder`` needs to know about a version, worked out once."""
    sm1 = v.major == 1
    ps1 = v.is_pixel and sm1
    # ps_1_0-1_3: t# is a register; coordinates are separate inputs.
    ps_tex_registers = ps1 and v.minor < 4
    # vs_*, ps_3_*: a DCL of an input or output carries its usage.
    declares_usage = not v.is_pixel or v.major >= 3
    # Opcodes whose D3D_OP arguments are not just their sources (``_texture_args``).
    texture_args = _TEXTURE_ARGS if ps_tex_registers else _DST_ARGS
    return sm1, ps1, ps_tex_registers, declares_usage, register_table(v), texture_args


_VERSIONS = {(v.kind, v.major, v.minor): _version_facts(v) for v in KNOWN_VERSIONS}
# Every declaration semantic, made once (a frozen dataclass is slow to
# build), by the bits of the usage token that name it: usage (bits 0-3) and
# usage index (16-19).
_USAGE_BITS = 0x000F000F
_SEMANTICS = {usage | index << 16: Semantic(usage, index) for usage in DeclUsage for index in range(16)}


def lift(shader: Shader) -> Program:
    """Build the IR of a decoded shader.  Raises StructureError on bad nesting."""
    return _Builder(shader).run()


class _Builder(ControlFlow):
    """One shader's lifting: ``run`` walks its instructions (control flow
    in ``ControlFlow``, flow.py)."""

    def __init__(self, shader: Shader):
        self.version = shader.version
        self.instructions = shader.instructions
        self.program = Program(self.version, {}, [], [], self.instructions, shader.ctab)
        # Variables by (register type, index); the register files (c#, i#, b#)
        # also by their storage, and ps_1_x coordinate inputs by ("texcoord", n).
        self.vars: dict[tuple, Variable] = {}
        self.fn: Function | None = None
        # Where emitted ops go: the body of ``fn``, or a list nobody reads
        # when ``fn`` is None (dead code, see ``emit``).
        self.body: list[Op] = []
        self.stack: list[_Open] = []
        self.origin = -1
        self.loop_id = 0
        version = self.version
        # (a tuple of ints hashes in C; a ShaderVersion hashes in Python)
        (self.sm1, self.ps1, self.ps_tex_registers, self.declares_usage, self.registers,
         self.texture_args) = _VERSIONS[version.kind, version.major, version.minor]
        # Co-issue exists only in ps_1_x (the decoder refuses the bit
        # elsewhere): only there may a store have to wait (``arithmetic``).
        self.pairs = self.ps1
        # D3D_STOREs waiting for a co-issued partner's sources (§3.6).
        self.pending: list[tuple[int, Instruction, DestOperand, Op]] = []

    # -- emission helpers ---------------------------------------------------

    def emit(self, code: Code, type: Type | None = None, args=(), imm=(), var=None) -> Op:
        op = _new_op(code, type, tuple(args), tuple(imm), var, self.origin)
        # Code after a top-level RET and before the next LABEL can never run;
        # it goes to a discarded list rather than to any function.
        self.body.append(op)
        return op

    def _enter(self, fn: Function | None) -> None:
        """Emit into ``fn`` from now on (None: dead code, dropped)."""
        self.fn = fn
        self.body = fn.body if fn is not None else []

    def const(self, values, type: Type) -> Op:
        return self.emit(Code.CONST, type, imm=tuple(values))

    def swizzle(self, value: Op, comps) -> Op:
        comps = tuple(comps)
        if len(comps) == value.type.width and comps == tuple(range(len(comps))):
            return value
        return self.emit(Code.SWIZZLE, value.type.with_width(len(comps)), (value,), comps)

    # -- variables ----------------------------------------------------------

    def var(self, rtype: RegisterType, index: int) -> Variable:
        """The variable modelling a register; created on first use."""
        found = self.vars.get((rtype, index))
        if found is None:
            found = self._new_var(rtype, index)
        return found

    def _new_var(self, rtype: RegisterType, index: int) -> Variable:
        key = (rtype, index)
        array = _CONSTANT_FILES.get(rtype)
        if array is not None:
            name, storage, type = array
            var = self.vars.get(storage)
            if var is None:
                var = self.vars[storage] = Variable(name, storage, type, length=0)
                self.program.variables.append(var)
        else:
            model = self.registers.get(key)
            if model is None:  # a register outside the version's files
                v = self.version
                model = classify(v, rtype, index)
                if model is None:
                    name = register_name(v, rtype, index)
                    raise StructureError(self._offset(), f"register {name} cannot be used here in {v}")
                model = (register_name(v, rtype, index),) + model
            # (``Variable(name, storage, type, None, key, semantics,
            # builtin)``, built as ``_new_op`` builds an Op: some twelve a shader)
            var = _new(Variable)
            var.name, var.storage, var.type, semantics, builtin = model
            var.length = None
            var.register = key
            var.semantics = semantics
            var.builtin = builtin
            var.mask = 0xF
            var.centroid = False
            var.partial_precision = False
            var.sampler_type = None
            self.program.variables.append(var)
        self.vars[key] = var  # registers of a file: the file's array, found at once next time
        return var

    def texcoord_input(self, index: int) -> Variable:
        """ps_1_x: the interpolated texture coordinate set ``index``."""
        key = ("texcoord", index)
        found = self.vars.get(key)
        if found is None:
            found = Variable(f"texcoord{index}", Storage.INPUT, F4, semantics=((0xF, Semantic(DeclUsage.TEXCOORD, index)),))
            self.vars[key] = found
            self.program.variables.append(found)
        return found

    def _offset(self) -> int:
        if 0 <= self.origin < len(self.instructions):
            return self.instructions[self.origin].offset
        return -1

    def _error(self, inst: Instruction, reason: str) -> StructureError:
        return StructureError(inst.offset, f"'{inst.info.mnemonic}' (instruction {self.origin + 1}): {reason}")

    # -- operands -----------------------------------------------------------

    def rel_index(self, rel: RelativeAddress) -> Op:
        if rel.type == R.LOOP:
            return self.emit(Code.LOAD, I1, var=self.var(R.LOOP, 0))
        a0 = self.emit(Code.LOAD, I4, var=self.var(R.ADDR, 0))
        return self.swizzle(a0, (rel.component,))

    def load(self, rtype: RegisterType, index: int, relative: RelativeAddress | None) -> Op:
        var = self.var(rtype, index)
        args = (self.rel_index(relative),) if relative is not None else ()
        if var.length is not None:
            element = CONST_FILE_BASE.get(rtype, 0) + index
            var.length = max(var.length, element + 1)
            return self.emit(Code.LOAD, var.type, args, (element,), var)
        return self.emit(Code.LOAD, var.type, args, (), var)

    def src(self, s: SourceOperand) -> Op:
        """A float4 source: load, swizzle, modifier."""
        return self.sources((s,))[0]

    def sources(self, operands: tuple[SourceOperand, ...]) -> tuple[Op, ...]:
        """``src`` of each operand, in order.

        The hot path of lifting, so ``load``, ``swizzle`` and ``emit`` are
        written out here for the common case (a float4 register), in one
        loop over an instruction's sources rather than a call per source.
        """
        vars = self.vars
        origin = self.origin
        body = self.body
        values = []
        for s in operands:
            rtype, index = s.type, s.index
            var = vars.get((rtype, index))
            if var is None:
                var = self._new_var(rtype, index)
            relative = s.relative
            args = (self.rel_index(relative),) if relative is not None else ()
            imm = ()
            if var.length is not None:
                element = CONST_FILE_BASE.get(rtype, 0) + index
                if element >= var.length:
                    var.length = element + 1
                imm = (element,)
            # (``_new_op``, written out: this is the hottest loop of lifting,
            # and the call would cost as much again as the stores)
            value = _new(Op)
            value.code = _LOAD
            value.type = var.type
            value.args = args
            value.imm = imm
            value.var = var
            value.origin = origin
            body.append(value)
            if var.type is not F4:
                value = self._float4(value)
            swizzle = s.swizzle & 0xFF
            if swizzle != IDENTITY_SWIZZLE:
                # (``_new_op``, written out too: half the sources are swizzled)
                loaded = value
                value = _new(Op)
                value.code = _SWIZZLE
                value.type = F4
                value.args = (loaded,)
                value.imm = _SWIZZLE_COMPONENTS[swizzle]
                value.var = None
                value.origin = origin
                body.append(value)
            modifier = s.modifier
            if modifier is not _NO_SRCMOD:
                value = _new_op(_SRCMOD, F4, (value,), (modifier,), None, origin)
                body.append(value)
            values.append(value)
        return tuple(values)

    def _float4(self, value: Op) -> Op:
        """A register value that is not a float4, read as D3D reads it: a
        scalar replicated, an int or bool converted."""
        if value.type.width == 1:
            value = self.emit(Code.SWIZZLE, value.type.with_width(4), (value,), (0, 0, 0, 0))
        if value.type.is_int:
            value = self.emit(Code.I2F, F4, (value,))
        elif value.type.is_bool:
            value = self.emit(Code.B2F, F4, (value,))
        return value

    def scalar_src(self, s: SourceOperand) -> Op:
        """A float scalar: the first swizzle component of a source (ifc/breakc)."""
        return self.swizzle(self.src(s), (0,))

    def bool_src(self, s: SourceOperand) -> Op:
        """A bool condition from b# or p0.c, with the NOT modifier applied."""
        if s.type == R.CONSTBOOL:
            value = self.load(s.type, s.index, None)
        elif s.type == R.PREDICATE:
            value = self.swizzle(self.load(s.type, s.index, None), (swizzle_components(s.swizzle)[0],))
        else:
            # fxc has been seen writing NOT on a temp (FNA issue 61): treat a
            # float as "non-zero is true".
            f = self.scalar_src(SourceOperand(s.type, s.index, s.swizzle, SrcMod.NONE, s.relative))
            value = self.emit(Code.FNE, B1, (f, self.const((0.0,), F1)))
        if s.modifier is SrcMod.NOT:
            value = self.emit(Code.BNOT, B1, (value,))
        return value

    def predicate(self, p: SourceOperand) -> Op:
        value = self.swizzle(self.load(p.type, p.index, None), swizzle_components(p.swizzle))
        if p.modifier is SrcMod.NOT:
            value = self.emit(Code.BNOT, B4, (value,))
        return value

    # -- main loop ----------------------------------------------------------

    def run(self) -> Program:
        self._enter(Function("main"))
        self.program.functions["main"] = self.fn
        handlers = _HANDLERS
        if self.pairs:
            for n, inst in enumerate(self.instructions):
                self.origin = n
                if self.pending and not inst.coissue:
                    self.flush_stores()  # the previous instruction's pair (if any) is complete
                handler = handlers[inst.opcode]
                if handler is not None:
                    handler(self, inst)
        else:  # (no co-issue, so no store ever waits)
            for n, inst in enumerate(self.instructions):
                self.origin = n
                handler = handlers[inst.opcode]
                if handler is not None:
                    handler(self, inst)
        if self.pending:
            self.flush_stores()
        if self.stack:
            top = self.stack[-1]
            inst = next(i for i in self.instructions if i.offset == top.offset)
            raise StructureError(top.offset, f"'{inst.info.mnemonic}' is never closed before the end of the shader")
        self.origin = -1
        self._finish_ps1()
        return self.program

    def _finish_ps1(self) -> None:
        """ps_1_x: the colour output is whatever r0 holds at the end."""
        if not self.ps1:
            return
        self._enter(self.program.main)
        r0 = self.var(R.TEMP, 0)
        value = self.emit(Code.LOAD, F4, var=r0)
        out = Variable("oC0", Storage.OUTPUT, F4, register=(R.COLOROUT, 0), semantics=((0xF, Semantic(DeclUsage.COLOR, 0)),))
        self.program.variables.append(out)
        self.emit(Code.STORE, None, (value,), (0xF,), out)

    # -- declarations and constants ------------------------------------------

    def declare(self, inst: Instruction) -> None:
        dst = inst.dst
        decl = inst.declaration
        var = self.var(dst.type, dst.index)
        if var.storage is _SAMPLER:
            st = decl.sampler_type
            var.sampler_type = st if isinstance(st, SamplerType) else SamplerType.UNKNOWN
            return
        _, partial_precision, centroid = _DST_FLAGS[dst.modifiers]
        var.centroid = var.centroid or centroid
        var.partial_precision = var.partial_precision or partial_precision
        if var.storage in _INPUT_OUTPUT and var.builtin is None:
            if self.declares_usage:
                sem = _SEMANTICS.get(decl.raw & _USAGE_BITS)
                if sem is None:
                    usage = decl.usage
                    if not isinstance(usage, DeclUsage):
                        raise self._error(inst, f"unknown declaration usage {usage}")
                    sem = Semantic(usage, decl.usage_index)
                pairs = ((dst.write_mask, sem),)
                if var.semantics:  # vs_3_0 may split one output register between semantics.
                    pairs = tuple(p for p in var.semantics if p[1] != sem) + pairs
                var.semantics = pairs
            var.mask = dst.write_mask if len(var.semantics) <= 1 else 0xF

    def define(self, inst: Instruction) -> None:
        dst = inst.dst
        storage, literals = _DEFINITIONS[inst.opcode]
        values = literals(inst)
        index = CONST_FILE_BASE.get(dst.type, 0) + dst.index  # c# of the extra float files
        arr = self.var(dst.type, dst.index)
        arr.length = max(arr.length or 0, index + 1)
        self.program.defs.append(ConstantDef(storage, index, tuple(values), self.origin))

    # -- arithmetic and texture instructions ----------------------------------

    def arithmetic(self, inst: Instruction) -> None:
        """Most instructions: a float4 computed from the sources alone and
        written to the destination -- ``compute`` without the cases that
        ``_handlers`` sends there instead (samplers, extra arguments, no or
        a bool result).  Kept apart because it runs for nine instructions in
        ten."""
        dst = inst.dst
        if dst is None:  # not something the decoder makes; compute copes
            return self.compute(inst)
        srcs = inst.srcs
        args = self.sources(srcs)
        origin = self.origin
        # (``_new_op_info`` and ``_new_op``, written out: this runs for nine
        # instructions in ten, and the calls would cost as much as the stores)
        info = _new(D3DOpInfo)
        info.opcode = inst.opcode
        info.control = inst.control
        info.dst = register = (dst.type, dst.index)
        info.dst_mask = dst.write_mask
        info.sampler = None
        info.sampler_swizzle = IDENTITY_SWIZZLE
        info.nsrc = len(srcs)
        result = _new(Op)
        result.code = _D3D_OP
        result.type = F4
        result.args = args
        result.imm = (info,)
        result.var = None
        result.origin = origin
        self.body.append(result)
        # Co-issue (§3.6): both instructions of a pair read their sources
        # before either writes, so the store waits until the next instruction
        # that is not co-issued with this one begins (``run``).  Without a
        # pair, that is now: nothing comes between.
        if self.pairs:
            following = origin + 1
            if self.pending or (following < len(self.instructions) and self.instructions[following].coissue):
                self.pending.append((origin, inst, dst, result))
                return
        elif inst.predicate is None and dst.relative is None and not dst.shift:
            # ``store``'s plain case, written out (as above: nine
            # instructions in ten; no co-issue outside ps_1_x)
            var = self.vars.get(register)
            if var is None:
                var = self._new_var(dst.type, dst.index)
            if var.length is None:
                opcode = inst.opcode
                op = _new(Op)
                op.code = _D3D_STORE
                op.type = None
                op.args = (result,)
                op.imm = (_PLAIN_STORES.get(opcode) or _plain_stores(opcode))[dst.modifiers][dst.write_mask]
                op.var = var
                op.origin = origin
                self.body.append(op)
                return
        self.store(inst, dst, result)

    def compute(self, inst: Instruction) -> None:
        opcode = inst.opcode
        sampler = None
        sampler_swizzle = IDENTITY_SWIZZLE
        srcs = inst.srcs
        dst = inst.dst
        if self.sm1:
            if opcode in _SM1_SAMPLING:
                sampler = self.var(R.SAMPLER, dst.index)  # stage = destination number
        elif opcode in _SAMPLER_SOURCE:
            s = srcs[1]
            srcs = srcs[:1] + srcs[2:]
            sampler = self.var(s.type, s.index)
            sampler_swizzle = s.swizzle
        args = self.sources(srcs)
        if opcode in self.texture_args:
            args = self._texture_args(opcode, dst, args)
        if dst is not None:
            info = _new_op_info(opcode, inst.control, (dst.type, dst.index), dst.write_mask,
                                sampler, sampler_swizzle, len(inst.srcs))
        else:
            info = _new_op_info(opcode, inst.control, None, 0xF, sampler, sampler_swizzle, len(inst.srcs))
        rtype = _RESULT_TYPE.get(opcode, F4)
        if rtype is None and inst.predicate is not None:
            # A predicated effect (texkill): it happens only where the first
            # predicate component is true, as a predicated break does.
            cond = self._predicate_x(inst.predicate)
            self._conditional(cond, lambda: self.emit(_D3D_OP, rtype, args, (info,)))
            return
        result = _new_op(_D3D_OP, rtype, args, (info,), None, self.origin)
        self.body.append(result)
        if rtype is None or dst is None:
            return
        following = self.origin + 1  # as in ``arithmetic``
        if self.pairs and (self.pending or (following < len(self.instructions) and self.instructions[following].coissue)):
            self.pending.append((self.origin, inst, dst, result))
        else:
            self.store(inst, dst, result)

    def _texture_args(self, opcode: Opcode, dst: DestOperand, args: tuple[Op, ...]) -> tuple[Op, ...]:
        if opcode is Opcode.TEXKILL and self.ps_tex_registers:
            # ps_1_0-1_3 tests the interpolated coordinate set, not the register (§2.12)
            return (self.emit(Code.LOAD, F4, var=self.texcoord_input(dst.index)),)
        if opcode is Opcode.TEXKILL or opcode is Opcode.TEXDEPTH:
            # the destination-format token names the register tested / read
            return (self.src(SourceOperand(dst.type, dst.index)),)
        if self.ps_tex_registers:  # opcode in _SM1_READS_COORD
            args += (self.emit(Code.LOAD, F4, var=self.texcoord_input(dst.index)),)
        return args

    def flush_stores(self) -> None:
        origin = self.origin
        for self.origin, inst, dst, value in self.pending:
            self.store(inst, dst, value)
        self.pending.clear()
        self.origin = origin

    def store(self, inst: Instruction, dst: DestOperand, value: Op) -> None:
        var = self.vars.get((dst.type, dst.index))
        if var is None:
            var = self._new_var(dst.type, dst.index)
        predicate = inst.predicate
        relative = dst.relative
        args: tuple[Op, ...] = (value,)
        if predicate is None and relative is None and var.length is None and not dst.shift and not inst.coissue:
            opcode = inst.opcode
            imm = (_PLAIN_STORES.get(opcode) or _plain_stores(opcode))[dst.modifiers][dst.write_mask]
        else:
            if predicate is not None:
                args += (self.predicate(predicate),)
            if relative is not None:
                args += (self.rel_index(relative),)
            element = CONST_FILE_BASE.get(dst.type, 0) + dst.index if var.length is not None else 0
            saturate, partial_precision, _ = _DST_FLAGS[dst.modifiers]
            imm = (DstInfo(
                dst.write_mask, saturate, partial_precision, dst.shift, inst.opcode,
                predicate is not None, relative is not None, element, inst.coissue,
            ),)
        # (``_new_op``, written out as in ``arithmetic``)
        op = _new(Op)
        op.code = _D3D_STORE
        op.type = None
        op.args = args
        op.imm = imm
        op.var = var
        op.origin = self.origin
        self.body.append(op)


# Opcodes ``arithmetic`` cannot lift (in some version): they go to ``compute``.
_COMPUTE_SPECIAL = _NO_RESULT | _BOOL_RESULT | _SM1_SAMPLING | _SAMPLER_SOURCE | _TEXTURE_ARGS


def _handlers() -> dict:
    """The ``_Builder`` method lifting each opcode (None: nothing to lift)."""
    table = {}
    for opcode, info in OPCODES.items():
        if info.layout is Layout.DCL:
            table[opcode] = _Builder.declare
        elif info.layout in (Layout.DEF, Layout.DEFI, Layout.DEFB):
            table[opcode] = _Builder.define
        elif opcode in _STRUCTURE:
            table[opcode] = _Builder.structure
        elif opcode in (Opcode.NOP, Opcode.PHASE):
            table[opcode] = None  # phase keeps every value, as all peers do (semantics 2.12)
        elif opcode in _COMPUTE_SPECIAL:
            table[opcode] = _Builder.compute
        else:
            table[opcode] = _Builder.arithmetic
    return table


_HANDLERS = _handlers()


def _plain_store(mask: int, saturate: bool, partial_precision: bool, opcode: Opcode) -> DstInfo:
    """``DstInfo(mask, saturate, partial_precision, 0, opcode)``, built from its slots base."""
    info = _new(_DstInfoSlots)
    info.mask = mask
    info.saturate = saturate
    info.partial_precision = partial_precision
    info.shift = 0
    info.opcode = opcode
    info.predicated = False
    info.relative = False
    info.element = 0
    info.coissue = False
    info.__class__ = DstInfo
    return info


def _plain_stores(opcode: Opcode) -> tuple[tuple[tuple[DstInfo], ...], ...]:
    """The immediates of every plain D3D_STORE of ``opcode`` -- to a register
    variable, not predicated, relative, shifted or co-issued: nearly all --
    by result modifiers, then write mask, made on the opcode's first store
    and kept in ``_PLAIN_STORES``.  A DstInfo keeps only _sat and _pp of the
    modifiers: modifier values that differ in nothing else share one."""
    by_flags = {
        (saturate, partial_precision): tuple((_plain_store(mask, saturate, partial_precision, opcode),) for mask in range(16))
        for saturate in (False, True) for partial_precision in (False, True)
    }
    table = tuple(by_flags[saturate, partial_precision] for saturate, partial_precision, _ in _DST_FLAGS)
    # (Two threads may both make one: equal tables, either may stay.)
    _PLAIN_STORES[opcode] = table
    return table


# Shared, so that a store need not build (and later free) its DstInfo and
# the tuple around it: they are a quarter of a store's cost.  Filled per
# opcode on first use: building all of them at import was a twentieth of
# the translator's import time, and a shader uses a handful of opcodes.
_PLAIN_STORES: dict[Opcode, tuple[tuple[tuple[DstInfo], ...], ...]] = {}
