"""Hand-built core-IR programs for backend tests (no decoder, no passes).

    k = Kit("ps_3_0")
    c = k.const_file(4)                      # c0..c3
    o = k.output("oC0", (R.COLOROUT, 0), "color", 0)
    k.store(o, k.load(c, 2))
    program = k.program
"""

from __future__ import annotations

from xlate.bytecode.tables import DeclUsage, RegisterType as R, SamplerType, ShaderKind, ShaderVersion
from xlate.ir.ops import Code, Op, SampleKind
from xlate.ir.program import Function, Program, Semantic, Storage, Variable
from xlate.ir.types import B1, F1, F4, I1, I4, Scalar, Type


def version(name: str) -> ShaderVersion:
    kind, major, minor = name.split("_")
    minor = {"x": 1, "sw": 0xFF}.get(minor, None) if not minor.isdigit() else int(minor)
    return ShaderVersion(ShaderKind.VERTEX if kind == "vs" else ShaderKind.PIXEL, int(major), minor)


class Kit:
    def __init__(self, model: str = "ps_3_0", ctab=None):
        self.program = Program(version(model), {"main": Function("main")}, [], [], (), ctab)
        self.fn = self.program.main

    # -- variables ----------------------------------------------------------

    def var(self, name, storage, type=F4, **kw) -> Variable:
        v = Variable(name, storage, type, **kw)
        self.program.variables.append(v)
        return v

    def const_file(self, length: int, storage=Storage.FLOAT_CONST, type=F4, name="c") -> Variable:
        return self.var(name, storage, type, length=length)

    def temp(self, n: int = 0) -> Variable:
        return self.var(f"r{n}", Storage.TEMP, F4, register=(R.TEMP, n))

    def input(self, name, register, usage=None, index=0, type=F4, **kw) -> Variable:
        sem = ((0xF, Semantic(DeclUsage[usage.upper()], index)),) if usage else ()
        return self.var(name, Storage.INPUT, type, register=register, semantics=sem, **kw)

    def output(self, name, register, usage, index=0, type=F4, mask=0xF) -> Variable:
        sem = ((mask, Semantic(DeclUsage[usage.upper()], index)),)
        return self.var(name, Storage.OUTPUT, type, register=register, semantics=sem, mask=mask)

    def sampler(self, n: int, st=SamplerType.TEX2D) -> Variable:
        return self.var(f"s{n}", Storage.SAMPLER, F4, register=(R.SAMPLER, n), sampler_type=st)

    # -- ops ----------------------------------------------------------------

    def emit(self, code, type=None, args=(), imm=(), var=None, origin=-1) -> Op:
        op = Op(code, type, tuple(args), tuple(imm), var, origin)
        self.fn.body.append(op)
        return op

    def const(self, *values, type=None) -> Op:
        if type is None:
            first = values[0]
            scalar = Scalar.BOOL if isinstance(first, bool) else Scalar.INT if isinstance(first, int) else Scalar.FLOAT
            type = Type(scalar, len(values))
        return self.emit(Code.CONST, type, imm=values)

    def load(self, var, element=None, index=None) -> Op:
        imm = (element,) if element is not None else ()
        args = (index,) if index is not None else ()
        return self.emit(Code.LOAD, var.type, args, imm, var)

    def store(self, var, value, mask=None, element=None, index=None) -> Op:
        if mask is None:
            mask = (1 << value.type.width) - 1 if var.type.width > 1 else 1
        imm = (mask,) if element is None else (mask, element)
        args = (value,) if index is None else (value, index)
        return self.emit(Code.STORE, None, args, imm, var)

    def op(self, code, *args, type=None) -> Op:
        return self.emit(code, type or args[0].type, args)

    def swz(self, v, *comps) -> Op:
        return self.emit(Code.SWIZZLE, v.type.with_width(len(comps)), (v,), comps)

    def sample(self, sampler, coord, *extra, kind=SampleKind.PLAIN) -> Op:
        return self.emit(Code.SAMPLE, F4, (coord, *extra), (kind, sampler.sampler_type), sampler)

    def marker(self, code, *args, imm=()) -> Op:
        return self.emit(code, None, args, imm)


def vs_passthrough(model="vs_3_0") -> Kit:
    """position = v0; texcoord0 = v1."""
    k = Kit(model)
    v0 = k.input("v0", (R.INPUT, 0), "position")
    v1 = k.input("v1", (R.INPUT, 1), "texcoord")
    pos = k.output("o0", (R.TEXCRDOUT, 0), "position")
    tc = k.output("o1", (R.TEXCRDOUT, 1), "texcoord")
    k.store(pos, k.load(v0))
    k.store(tc, k.load(v1))
    return k
