"""Inlining a shader's preshader into its IR (``Options.inline_preshader``).

d3dx9 runs a preshader on the CPU and uploads what it computes into some
float constant registers.  Inlined, the lifted program computes those
registers itself, at the start of ``main``, from new uniforms holding the
preshader's inputs:

* each input (a constant of the preshader's CTAB, e.g. ``g_LightAmbient``)
  moves to the shader's float constant file, after every register the shader
  uses (``base`` + its preshader register), and gets a CTAB entry of its own
  name there, so the backends declare it as a uniform named after the effect
  parameter (``vs_g_LightAmbient``) and the reflection lists it;
* each register the preshader fills becomes a LOCAL (``preshader_c10``),
  zeroed and then written component by component in program order, exactly
  as the evaluator does (``xlate.preshader.vm``); the shader's static
  loads of that register read the LOCAL instead;
* temporaries are LOCALs too; literals are float constants.

The arithmetic is the GPU's float32, not d3dx9's double: results agree with
the CPU evaluator to float precision (tests/test_preshader_inline.py runs
both).  ``inline_preshader`` refuses, with a reason, what it cannot express
faithfully -- relative addressing in the preshader or of the shader's float
constants, int/bool outputs, asin/acos/atan/atan2, ps_1_x (whose constant
reads are clamped), non-finite literals -- and the translation then keeps
the CPU mode and says why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..bytecode.ctab import ConstantTable, RegisterSet
from ..preshader.model import Operand, Preshader
from ..preshader.tables import FxlvmOpcode, Reduction, RegisterFile
from .ops import Code, Op
from .program import Program, Storage, Variable
from .types import B1, F1, F4

_UNSUPPORTED = {FxlvmOpcode.ASIN, FxlvmOpcode.ACOS, FxlvmOpcode.ATAN, FxlvmOpcode.ATAN2}


@dataclass(frozen=True)
class Inlined:
    """What ``inline_preshader`` did: the preshader's inputs live in the
    shader's float constants from register ``base`` on."""

    preshader: Preshader
    base: int


class _Emitter:
    def __init__(self, program: Program, pre: Preshader, consts: Variable, base: int):
        self.program = program
        self.pre = pre
        self.consts = consts
        self.base = base
        self.body: list[Op] = []
        self.locals: dict[tuple[RegisterFile, int], Variable] = {}

    def emit(self, code: Code, type=None, args=(), imm=(), var=None) -> Op:
        op = Op(code, type, tuple(args), tuple(imm), var)
        self.body.append(op)
        return op

    def const(self, value: float) -> Op:
        return self.emit(Code.CONST, F1, imm=(float(np.float32(value)),))

    def local(self, file: RegisterFile, index: int) -> Variable:
        key = (file, index)
        var = self.locals.get(key)
        if var is None:
            prefix = "preshader_r" if file == RegisterFile.TEMP else "preshader_c"
            var = self.locals[key] = self.program.new_local(f"{prefix}{index}", F4)
            zero = self.emit(Code.CONST, F4, imm=(0.0, 0.0, 0.0, 0.0))
            self.emit(Code.STORE, None, (zero,), (0xF,), var)
        return var

    def read(self, operand: Operand, component: int) -> Op:
        reg = operand.register
        offset = reg.offset + component
        if reg.file == RegisterFile.LITERAL:
            return self.const(self.pre.literals[offset])
        if reg.file == RegisterFile.INPUT:
            vec = self.emit(Code.LOAD, F4, (), (self.base + (offset >> 2),), self.consts)
        else:
            vec = self.emit(Code.LOAD, F4, (), (), self.local(reg.file, offset >> 2))
        return self.emit(Code.SWIZZLE, F1, (vec,), (offset & 3,))

    def write(self, operand: Operand, component: int, value: Op) -> None:
        offset = operand.register.offset + component
        var = self.local(operand.register.file, offset >> 2)
        self.emit(Code.STORE, None, (value,), (1 << (offset & 3),), var)

    def b2f(self, cond: Op) -> Op:
        return self.emit(Code.B2F, F1, (cond,))

    def compute(self, op: FxlvmOpcode, a: list[Op]) -> Op:
        e = self.emit
        if op is FxlvmOpcode.MOV:
            return a[0]
        if op is FxlvmOpcode.NEG:
            return e(Code.FNEG, F1, (a[0],))
        if op is FxlvmOpcode.RCP:
            return e(Code.FRCP, F1, (a[0],))
        if op is FxlvmOpcode.FRC:
            return e(Code.FFRACT, F1, (a[0],))
        if op is FxlvmOpcode.EXP:
            return e(Code.FEXP2, F1, (a[0],))
        if op is FxlvmOpcode.LOG:  # log2|x|, 0 at 0
            log = e(Code.FLOG2, F1, (e(Code.FABS, F1, (a[0],)),))
            return e(Code.SELECT, F1, (e(Code.FEQ, B1, (a[0], self.const(0.0))), self.const(0.0), log))
        if op is FxlvmOpcode.RSQ:  # 1/sqrt|x|, +inf at 0 (IEEE)
            return e(Code.FRSQ, F1, (e(Code.FABS, F1, (a[0],)),))
        if op is FxlvmOpcode.SIN:
            return e(Code.FSIN, F1, (a[0],))
        if op is FxlvmOpcode.COS:
            return e(Code.FCOS, F1, (a[0],))
        if op is FxlvmOpcode.MIN:
            return e(Code.FMIN, F1, (a[0], a[1]))
        if op is FxlvmOpcode.MAX:
            return e(Code.FMAX, F1, (a[0], a[1]))
        if op is FxlvmOpcode.LT:
            return self.b2f(e(Code.FLT, B1, (a[0], a[1])))
        if op is FxlvmOpcode.GE:
            return self.b2f(e(Code.FGE, B1, (a[0], a[1])))
        if op is FxlvmOpcode.ADD:
            return e(Code.FADD, F1, (a[0], a[1]))
        if op is FxlvmOpcode.MUL:
            return e(Code.FMUL, F1, (a[0], a[1]))
        if op is FxlvmOpcode.DIV:  # d3dx9 never implemented it: 0
            return self.const(0.0)
        if op is FxlvmOpcode.CMP:
            return e(Code.SELECT, F1, (e(Code.FGE, B1, (a[0], self.const(0.0))), a[1], a[2]))
        if op is FxlvmOpcode.MOVC:
            return e(Code.SELECT, F1, (e(Code.FNE, B1, (a[0], self.const(0.0))), a[1], a[2]))
        raise AssertionError(f"no lowering for {op}")  # refused before: see why_not

    def dot(self, left: list[Op], right: list[Op]) -> Op:
        total = self.emit(Code.FMUL, F1, (left[0], right[0]))
        for x, y in zip(left[1:], right[1:]):
            total = self.emit(Code.FADD, F1, (total, self.emit(Code.FMUL, F1, (x, y))))
        return total

    def instruction(self, inst) -> None:
        op, count = inst.opcode, inst.component_count
        if op is FxlvmOpcode.NOP:
            return

        def args(j: int) -> list[Op]:
            return [self.read(inp, 0 if inst.scalar and k == 0 else j) for k, inp in enumerate(inst.inputs)]

        if op.reduction is Reduction.DOT:
            left = [self.read(inst.inputs[0], 0 if inst.scalar else j) for j in range(count)]
            right = [self.read(inst.inputs[1], j) for j in range(count)]
            self.write(inst.output, 0, self.dot(left, right))
            return
        for j in range(count):
            values = args(j)
            if op.reduction is Reduction.DOTSWIZ:
                half = len(values) // 2
                result = self.dot(values[:half], values[half:])
            else:
                result = self.compute(op, values)
            self.write(inst.output, j, result)


# Inputs move after the shader's registers; past this many the uniform file
# would exceed Direct3D 9's largest constant file (and a hostile CTAB could
# ask for a uniform array of 65535 registers).
MAX_FLOAT_REGISTERS = 8192


def why_not(program: Program, pre: Preshader) -> str | None:
    """Why ``pre`` cannot be inlined into ``program`` faithfully, or None."""
    if program.version.is_pixel and program.version.major < 2:
        return "ps_1_x clamps constant reads, which an inlined preshader would escape"
    named = [c for c in (pre.ctab.constants if pre.ctab else ()) if c.register_set == RegisterSet.FLOAT4]
    if sum(c.register_count for c in named) + max((c.register_end for c in named), default=0) > MAX_FLOAT_REGISTERS:
        return f"the preshader's inputs would not fit in {MAX_FLOAT_REGISTERS} float registers"
    for inst in pre.instructions:
        if inst.opcode in _UNSUPPORTED:
            return f"the preshader uses {inst.mnemonic}, which the IR has no operation for"
        if inst.output.file in (RegisterFile.OUTPUT_INT, RegisterFile.OUTPUT_BOOL):
            return "the preshader fills integer or boolean constants"
        for operand in inst.inputs:
            if operand.relative is not None:
                return "the preshader uses relative addressing"
            reg = operand.register
            if reg.file == RegisterFile.INPUT and not any(
                    c.register_index <= reg.index and (reg.offset + operand.components - 1) >> 2 < c.register_end
                    for c in named):
                return f"the preshader reads input register c{reg.index}, which its constant table does not name"
            if reg.file == RegisterFile.LITERAL:
                for k in range(operand.components):
                    with np.errstate(over="ignore"):  # a double past FLT_MAX becomes inf: the case refused here
                        narrowed = float(np.float32(pre.literals[reg.offset + k]))
                    if not math.isfinite(narrowed):
                        return "the preshader has a literal that is not a finite float"
    for _fn, op in program.all_ops():
        if op.code is Code.LOAD and op.var is not None and op.var.storage is Storage.FLOAT_CONST and op.args:
            return "the shader indexes its float constants dynamically"
    last = max([*(c.register_end for c in (program.ctab.constants if program.ctab else ())), 0])
    if last + max((c.register_end for c in named), default=0) > MAX_FLOAT_REGISTERS:
        return f"the preshader's inputs would not fit in {MAX_FLOAT_REGISTERS} float registers"
    return None


def inline_preshader(program: Program, pre: Preshader) -> Inlined | str:
    """Inline ``pre`` into the lifted ``program`` (before the passes): an
    ``Inlined`` on success, else the reason it was not (nothing changed)."""
    reason = why_not(program, pre)
    if reason is not None:
        return reason
    consts = next((v for v in program.variables if v.storage is Storage.FLOAT_CONST), None)
    used = [op.imm[0] for _fn, op in program.all_ops()
            if op.code is Code.LOAD and op.var is consts and consts is not None and op.imm]
    ctab = program.ctab
    ends = [c.register_end for c in (ctab.constants if ctab else ()) if c.register_set == RegisterSet.FLOAT4]
    ends += [d.index + 1 for d in program.defs if d.storage is Storage.FLOAT_CONST]
    base = max([(consts.length or 0) if consts is not None else 0, *ends, *(u + 1 for u in used)])
    inputs = [c for c in (pre.ctab.constants if pre.ctab else ()) if c.register_set == RegisterSet.FLOAT4]
    if consts is None:
        consts = Variable("c", Storage.FLOAT_CONST, F4, 1)
        program.variables.append(consts)
    emitter = _Emitter(program, pre, consts, base)
    for inst in pre.instructions:
        emitter.instruction(inst)
    consts.length = max(consts.length or 0, base + max((c.register_end for c in inputs), default=0))
    # The shader's static reads of the filled registers read the LOCALs.
    filled = {index: var for (file, index), var in emitter.locals.items() if file == RegisterFile.OUTPUT}
    for _fn, op in program.all_ops():
        if op.code is Code.LOAD and op.var is consts and op.imm and op.imm[0] in filled:
            op.var = filled[op.imm[0]]
            op.imm = ()
    main = program.main
    main.body[0:0] = emitter.body
    moved = tuple(replace(c, register_index=base + c.register_index) for c in inputs)
    if ctab is None:
        program.ctab = ConstantTable("", 0, 0, "", moved)
    else:
        program.ctab = ConstantTable(ctab.creator, ctab.version_token, ctab.flags, ctab.target, ctab.constants + moved)
    program.notes.pop("d3d_census", None)  # the body changed size
    return Inlined(pre, base)
