"""Build core-IR programs by hand for pass tests (no bytecode involved).

    b = IRBuilder("vs_3_0")
    r0 = b.var("r0", Storage.TEMP)
    b.store(r0, b.const(1.0, 2.0, 3.0, 4.0))
    b.if_(b.load(b0_array, element=0))
    ...
"""

from __future__ import annotations

from xlate.bytecode.tables import RegisterType, ShaderKind, ShaderVersion
from xlate.ir.ops import Code, Op
from xlate.ir.program import ConstantDef, Function, Program, Semantic, Storage, Variable
from xlate.ir.types import B1, F4, I1, Scalar, Type


def version(name: str) -> ShaderVersion:
    kind, major, minor = name.split("_")
    minor = {"x": 1, "sw": 0xFF}.get(minor, None) if not minor.isdigit() else int(minor)
    return ShaderVersion(ShaderKind.VERTEX if kind == "vs" else ShaderKind.PIXEL, int(major), minor)


class IRBuilder:
    def __init__(self, shader_version: str = "vs_3_0"):
        self.program = Program(version(shader_version), {"main": Function("main")}, [], [], ())
        self.fn = self.program.main

    # -- containers ----------------------------------------------------------------

    def function(self, name: str) -> Function:
        fn = self.program.functions.get(name)
        if fn is None:
            fn = self.program.functions[name] = Function(name, label=int(name[1:]) if name[1:].isdigit() else None)
        self.fn = fn
        return fn

    def var(self, name: str, storage: Storage, type: Type = F4, length: int | None = None,
            register: tuple | None = None, semantic: Semantic | None = None) -> Variable:
        v = Variable(name, storage, type, length, register,
                     semantics=((0xF, semantic),) if semantic is not None else ())
        self.program.variables.append(v)
        return v

    def temp(self, n: int) -> Variable:
        return self.var(f"r{n}", Storage.TEMP, F4, register=(RegisterType.TEMP, n))

    def c_array(self, length: int) -> Variable:
        return self.var("c", Storage.FLOAT_CONST, F4, length)

    def define(self, storage: Storage, index: int, *values) -> None:
        self.program.defs.append(ConstantDef(storage, index, tuple(values)))

    # -- ops ------------------------------------------------------------------------

    def emit(self, code: Code, type: Type | None = None, args=(), imm=(), var=None) -> Op:
        op = Op(code, type, tuple(args), tuple(imm), var)
        self.fn.body.append(op)
        return op

    def const(self, *values, type: Type | None = None) -> Op:
        if type is None:
            first = values[0]
            scalar = Scalar.BOOL if isinstance(first, bool) else Scalar.INT if isinstance(first, int) else Scalar.FLOAT
            type = Type(scalar, len(values))
        return self.emit(Code.CONST, type, imm=values)

    def op(self, code: Code, *args: Op, type: Type | None = None, imm=()) -> Op:
        return self.emit(code, type or args[0].type, args, imm)

    def cmp(self, code: Code, a: Op, b: Op) -> Op:
        return self.emit(code, Type(Scalar.BOOL, a.type.width), (a, b))

    def swizzle(self, v: Op, *comps: int) -> Op:
        return self.emit(Code.SWIZZLE, v.type.with_width(len(comps)), (v,), comps)

    def load(self, var: Variable, element: int | None = None, index: Op | None = None) -> Op:
        if var.length is not None and element is None:
            element = 0
        return self.emit(Code.LOAD, var.type, (index,) if index is not None else (),
                         (element,) if element is not None else (), var)

    def store(self, var: Variable, value: Op, mask: int | None = None, element: int | None = None,
              index: Op | None = None) -> Op:
        if mask is None:
            mask = (1 << value.type.width) - 1
        if var.length is not None and element is None:
            element = 0
        imm = (mask,) if element is None else (mask, element)
        return self.emit(Code.STORE, None, (value,) + ((index,) if index is not None else ()), imm, var)

    def if_(self, cond: Op) -> Op:
        return self.emit(Code.IF, args=(cond,))

    def else_(self) -> Op:
        return self.emit(Code.ELSE)

    def endif(self) -> Op:
        return self.emit(Code.ENDIF)

    def loop(self) -> Op:
        return self.emit(Code.LOOP)

    def endloop(self) -> Op:
        return self.emit(Code.ENDLOOP)

    def brk(self) -> Op:
        return self.emit(Code.BREAK)

    def ret(self) -> Op:
        return self.emit(Code.RETURN)

    def call(self, name: str) -> Op:
        return self.emit(Code.CALL, imm=(name,))

    def counted_loop(self, counter: Variable, times: int):
        """``counter = times; LOOP; IF counter <= 0 BREAK``; close with ``end_counted``."""
        self.store(counter, self.const(times))
        self.loop()
        done = self.cmp(Code.ILE, self.load(counter), self.const(0))
        self.if_(done)
        self.brk()
        self.endif()

    def end_counted(self, counter: Variable) -> None:
        self.store(counter, self.op(Code.IADD, self.load(counter), self.const(-1)))
        self.endloop()


__all__ = ["IRBuilder", "version", "B1", "F4", "I1"]
