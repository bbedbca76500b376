"""Lifting D3D control flow (if/else, loop/rep, break, call, label/ret)
straight to structured core ops: ``ControlFlow``, the part of the lifter's
``_Builder`` (builder.py) that keeps the stack of open blocks.  Split from
builder.py; see its docstring for the loop rules (``loop aL, i#`` runs i#.x
times, aL starts at i#.y and grows by i#.z, the outer aL is restored).

The methods use the builder's emission and operand helpers (``emit``,
``swizzle``, ``const``, ``load``, ``bool_src``, ``scalar_src``,
``predicate``, ``var``, ``_enter``, ``_error``) and its state (``program``,
``fn``, ``stack``, ``origin``, ``loop_id``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..bytecode.model import Instruction, SourceOperand
from ..bytecode.tables import Comparison, Opcode, RegisterType
from .ops import Code, Op
from .program import Function, Variable
from .types import B1, I1

R = RegisterType

_COMPARE = {
    Comparison.GT: Code.FGT, Comparison.EQ: Code.FEQ, Comparison.GE: Code.FGE,
    Comparison.LT: Code.FLT, Comparison.NE: Code.FNE, Comparison.LE: Code.FLE,
}


@dataclass
class _Open:
    """An open construct on the nesting stack."""

    kind: Opcode  # IF/IFC (with else_seen), LOOP, REP
    offset: int
    else_seen: bool = False
    # loops: variables to step and restore
    count: Variable | None = None
    saved_al: Variable | None = None
    step: Op | None = None


class ControlFlow:
    """The control-flow handlers of ``_Builder`` (a mixin: no state of its own)."""

    def structure(self, inst: Instruction) -> None:
        op = inst.opcode
        if op is Opcode.LABEL:
            self.label(inst)
        elif op is Opcode.RET:
            self.ret(inst)
        elif self.fn is None:
            return  # unreachable code between a RET and the next LABEL
        elif op in (Opcode.IF, Opcode.IFC):
            cond = self.bool_src(inst.srcs[0]) if op is Opcode.IF else self.compare(inst)
            self.emit(Code.IF, args=(cond,))
            self.stack.append(_Open(Opcode.IF, inst.offset))
        elif op is Opcode.ELSE:
            top = self._top(inst, (Opcode.IF,), "without a matching 'if'")
            if top.else_seen:
                raise self._error(inst, "a second 'else' for the same 'if'")
            top.else_seen = True
            self.emit(Code.ELSE)
        elif op is Opcode.ENDIF:
            self._top(inst, (Opcode.IF,), "without a matching 'if'")
            self.stack.pop()
            self.emit(Code.ENDIF)
        elif op in (Opcode.LOOP, Opcode.REP):
            self.open_loop(inst)
        elif op in (Opcode.ENDLOOP, Opcode.ENDREP):
            self.close_loop(inst)
        elif op in (Opcode.BREAK, Opcode.BREAKC, Opcode.BREAKP):
            if not any(o.kind in (Opcode.LOOP, Opcode.REP) for o in self.stack):
                raise self._error(inst, "'break' outside any loop or rep")
            cond = None
            if op is Opcode.BREAKC:
                cond = self.compare(inst)
            elif op is Opcode.BREAKP:
                cond = self.bool_src(inst.srcs[0])
            elif inst.predicate is not None:
                cond = self._predicate_x(inst.predicate)
            self._conditional(cond, lambda: self.emit(Code.BREAK))
        elif op in (Opcode.CALL, Opcode.CALLNZ):
            name = f"l{inst.srcs[0].index}"
            cond = None
            if op is Opcode.CALLNZ:
                cond = self.bool_src(inst.srcs[1])
            elif inst.predicate is not None:
                cond = self._predicate_x(inst.predicate)
            self._conditional(cond, lambda: self.emit(Code.CALL, imm=(name,)))

    def _predicate_x(self, p: SourceOperand) -> Op:
        return self.swizzle(self.predicate(p), (0,))

    def _conditional(self, cond: Op | None, body) -> None:
        if cond is None:
            body()
            return
        self.emit(Code.IF, args=(cond,))
        body()
        self.emit(Code.ENDIF)

    def compare(self, inst: Instruction) -> Op:
        a = self.scalar_src(inst.srcs[0])
        b = self.scalar_src(inst.srcs[1])
        cmp = inst.comparison
        if cmp in _COMPARE:
            return self.emit(_COMPARE[cmp], B1, (a, b))
        return self.const((cmp is Comparison.ALWAYS,), B1)

    def _top(self, inst: Instruction, kinds, reason: str) -> _Open:
        if not self.stack or self.stack[-1].kind not in kinds:
            raise self._error(inst, reason)
        return self.stack[-1]

    def open_loop(self, inst: Instruction) -> None:
        n = self.loop_id
        self.loop_id += 1
        is_loop = inst.opcode is Opcode.LOOP
        ireg = inst.srcs[1] if is_loop else inst.srcs[0]
        ivalue = self.load(ireg.type, ireg.index, None)  # int4: count, start, step, 0
        count = self.program.new_local(f"loop{n}_count", I1)
        self.emit(Code.STORE, None, (self.swizzle(ivalue, (0,)),), (0x1,), count)
        frame = _Open(inst.opcode, inst.offset, count=count)
        if is_loop:
            al = self.var(R.LOOP, 0)
            saved = self.program.new_local(f"loop{n}_saved_aL", I1)
            self.emit(Code.STORE, None, (self.emit(Code.LOAD, I1, var=al),), (0x1,), saved)
            self.emit(Code.STORE, None, (self.swizzle(ivalue, (1,)),), (0x1,), al)
            frame.saved_al = saved
            frame.step = self.swizzle(ivalue, (2,))
        self.emit(Code.LOOP)
        left = self.emit(Code.LOAD, I1, var=count)
        done = self.emit(Code.ILE, B1, (left, self.const((0,), I1)))
        self._conditional(done, lambda: self.emit(Code.BREAK))
        self.stack.append(frame)

    def close_loop(self, inst: Instruction) -> None:
        want = Opcode.LOOP if inst.opcode is Opcode.ENDLOOP else Opcode.REP
        frame = self._top(inst, (want,), f"without a matching '{want.name.lower()}'")
        self.stack.pop()
        count = frame.count
        left = self.emit(Code.LOAD, I1, var=count)
        self.emit(Code.STORE, None, (self.emit(Code.IADD, I1, (left, self.const((-1,), I1))),), (0x1,), count)
        if frame.saved_al is not None:
            al = self.var(R.LOOP, 0)
            current = self.emit(Code.LOAD, I1, var=al)
            self.emit(Code.STORE, None, (self.emit(Code.IADD, I1, (current, frame.step)),), (0x1,), al)
        self.emit(Code.ENDLOOP)
        if frame.saved_al is not None:
            restored = self.emit(Code.LOAD, I1, var=frame.saved_al)
            self.emit(Code.STORE, None, (restored,), (0x1,), self.var(R.LOOP, 0))

    def label(self, inst: Instruction) -> None:
        if self.stack:
            raise self._error(inst, "a label inside an open block")
        n = inst.srcs[0].index
        name = f"l{n}"
        if name in self.program.functions:
            raise self._error(inst, f"label l{n} is defined twice")
        self._enter(Function(name, label=n, origin=self.origin))
        self.program.functions[name] = self.fn

    def ret(self, inst: Instruction) -> None:
        if self.fn is None:
            return
        if self.stack:
            self.emit(Code.RETURN)  # an early return from inside a block
            return
        self._enter(None)  # the function ends; code until the next LABEL is dead
