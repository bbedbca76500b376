"""Running a preshader on the CPU, as d3dx9 does (numpy).

The model, from Wine's d3dx9 tests (``wine/effects.jsonl``, which record
what native d3dx9 computes on Windows) and its preshader.c:

* every operation computes in double precision; literals are doubles;
  inputs, temporaries and float outputs are stored as float32, so a result
  is rounded to float32 when written;
* ``rcp`` of 0 is +inf, ``rsq`` and ``log`` take the absolute value and
  give +inf / 0 for 0, ``exp`` is 2^x, ``frc`` is x - floor(x), ``min`` /
  ``max`` ignore a NaN operand (C's fmin / fmax), ``lt`` / ``ge`` give
  1.0 or 0.0, ``cmp`` picks its second input when the first is >= 0,
  ``movc`` when it is non-zero, ``asin`` / ``acos`` of an out-of-range
  value give the negative quiet NaN, ``div`` gives 0 (native never
  implemented it: the compiler emits rcp + mul);
* components are computed one after another, each reading its inputs
  just before its result is written (an output that is also an input is
  seen updated by later components);
* relative addressing rounds the index register to the nearest integer
  (ties to even) as an unsigned 32-bit number and adds it to the register
  index; an index past the end of the input file wraps modulo the next
  power of two at or above its size, and reads 0 if it still lands past
  the end; other files wrap modulo their size;
* an int output is the value rounded to nearest (ties to even), a bool
  output is ``value != 0``.

Where a Windows-verified expectation disagrees, the test table in
tests/test_preshader_eval.py says so.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from ..bytecode.ctab import Constant, ParameterClass, RegisterSet
from .model import Instruction, Operand, Preshader, Register
from .tables import FxlvmOpcode, Reduction, RegisterFile

_NEGATIVE_NAN = np.frombuffer(np.array([0xFFF8000000000000], dtype=np.uint64).tobytes(), dtype=np.float64)[0]
_REGISTER_KEY = re.compile(r"^c(\d+)$")

Inputs = Mapping["str | int", object]


@dataclass
class Evaluation:
    """What one run of a preshader produced.

    ``floats`` maps each float constant register c# the program writes to
    its four components (float32; a component it does not write is 0),
    ``ints`` each i# (int32 x 4), ``bools`` each b#.  ``written`` lists the
    output components in program order.  ``float_table`` is the whole float
    output file from c0 (what d3dx9 reads an effect expression's value from).
    """

    floats: dict[int, np.ndarray] = field(default_factory=dict)
    ints: dict[int, np.ndarray] = field(default_factory=dict)
    bools: dict[int, bool] = field(default_factory=dict)
    written: tuple[Register, ...] = ()
    float_table: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))


# --------------------------------------------------------------------------
# Operations (double in, double out)
# --------------------------------------------------------------------------


def _rsq(x):
    x = abs(x)
    return math.inf if x == 0 else float(1.0 / np.sqrt(np.float64(x)))


def _log(x):
    x = abs(x)
    if x == 0:
        return 0.0
    return float(np.log2(x))


def _rcp(x):
    if x == 0:
        return math.copysign(math.inf, x)
    return 1.0 / x


def _arc(fn):
    def op(x):
        value = float(fn(x))
        return _NEGATIVE_NAN if math.isnan(value) else value
    return op


def _fmin(a, b):
    return float(np.fmin(a, b))


def _fmax(a, b):
    return float(np.fmax(a, b))


_UNARY_BINARY = {
    FxlvmOpcode.NOP: None,
    FxlvmOpcode.MOV: lambda a: a,
    FxlvmOpcode.NEG: lambda a: -a,
    FxlvmOpcode.RCP: _rcp,
    FxlvmOpcode.FRC: lambda a: float(a - np.floor(a)),
    FxlvmOpcode.EXP: lambda a: float(np.exp2(a)),
    FxlvmOpcode.LOG: _log,
    FxlvmOpcode.RSQ: _rsq,
    FxlvmOpcode.SIN: lambda a: float(np.sin(a)),
    FxlvmOpcode.COS: lambda a: float(np.cos(a)),
    FxlvmOpcode.ASIN: _arc(np.arcsin),
    FxlvmOpcode.ACOS: _arc(np.arccos),
    FxlvmOpcode.ATAN: lambda a: float(np.arctan(a)),
    FxlvmOpcode.MIN: _fmin,
    FxlvmOpcode.MAX: _fmax,
    FxlvmOpcode.LT: lambda a, b: 1.0 if a < b else 0.0,
    FxlvmOpcode.GE: lambda a, b: 1.0 if a >= b else 0.0,
    FxlvmOpcode.ADD: lambda a, b: a + b,
    FxlvmOpcode.MUL: lambda a, b: float(np.float64(a) * np.float64(b)),
    FxlvmOpcode.ATAN2: lambda a, b: float(np.arctan2(a, b)),
    FxlvmOpcode.DIV: lambda a, b: 0.0,
    FxlvmOpcode.CMP: lambda a, b, c: b if a >= 0 else c,
    FxlvmOpcode.MOVC: lambda a, b, c: b if a != 0 else c,
}
assert set(_UNARY_BINARY) | {op for op in FxlvmOpcode if op.reduction is not Reduction.PER_COMPONENT} == set(FxlvmOpcode)


def _dot(args: list[float], n: int) -> float:
    total = 0.0
    for i in range(n):
        total += float(np.float64(args[i]) * np.float64(args[i + n]))
    return total


# --------------------------------------------------------------------------
# Register files
# --------------------------------------------------------------------------


class _Files:
    def __init__(self, pre: Preshader, inputs: np.ndarray):
        self.literal = np.asarray(pre.literals, dtype=np.float64)
        self.input = inputs
        temps = outs = bools = ints = 0
        for inst in pre.instructions:
            reg = inst.output.register
            last = reg.index + 1 if inst.opcode.reduction is not Reduction.PER_COMPONENT else (reg.offset + inst.component_count - 1) // 4 + 1
            if reg.file == RegisterFile.TEMP:
                temps = max(temps, last)
            elif reg.file == RegisterFile.OUTPUT:
                outs = max(outs, last)
            elif reg.file == RegisterFile.OUTPUT_BOOL:  # one component per b#
                bools = max(bools, reg.index + inst.component_count)
            else:
                ints = max(ints, last)
        self.tables = {
            RegisterFile.LITERAL: self.literal,
            RegisterFile.INPUT: self.input,
            RegisterFile.TEMP: np.zeros(4 * temps, np.float64),  # d3dx9 keeps temporaries in double
            RegisterFile.OUTPUT: np.zeros(4 * outs, np.float32),
            # kept in double: d3dx9 converts the double result itself
            RegisterFile.OUTPUT_BOOL: np.zeros(bools, np.float64),
            RegisterFile.OUTPUT_INT: np.zeros(4 * ints, np.float64),
        }

    def read(self, operand: Operand, component: int) -> float:
        reg = operand.register
        table = self.tables[reg.file]
        size = (len(table) + 3) // 4  # registers
        base = 0
        if operand.relative is not None:
            base = _lrint_u32(self._plain(operand.relative))
        offset = (4 * base + reg.offset + component) & 0xFFFFFFFF
        index = offset >> 2
        if index >= size:
            if reg.file == RegisterFile.INPUT:
                wrap = 1
                while wrap < size:
                    wrap <<= 1
            else:
                wrap = size
            if wrap == 0:
                return 0.0
            index %= wrap
            if index >= size:
                return 0.0
            offset = 4 * index + (offset & 3)
        return float(table[offset]) if offset < len(table) else 0.0

    def _plain(self, reg: Register) -> float:
        table = self.tables[reg.file]
        return float(table[reg.offset]) if reg.offset < len(table) else 0.0

    def write(self, reg: Register, component: int, value: float) -> None:
        table = self.tables[reg.file]
        offset = (reg.index if reg.file == RegisterFile.OUTPUT_BOOL else reg.offset) + component
        if offset < len(table):
            table[offset] = value  # float32 rounding (overflow gives inf) happens here


def _lrint_u32(value: float) -> int:
    if not math.isfinite(value) or abs(value) >= 2.0**63:
        return 0  # the x86-64 "integer indefinite" 0x8000000000000000, cut to 32 bits
    return int(np.rint(value)) & 0xFFFFFFFF


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------


def _plain_rows(info, value) -> list[np.ndarray]:
    arr = np.asarray(value, dtype=np.float64).reshape(-1)
    rows, cols = max(info.rows, 1), max(info.columns, 1)
    if info.cls in (ParameterClass.MATRIX_ROWS, ParameterClass.MATRIX_COLUMNS) and arr.size == rows * cols:
        mat = arr.reshape(rows, cols)
        lines = list(mat.T if info.cls == ParameterClass.MATRIX_COLUMNS else mat)
    elif arr.size <= 4:
        lines = [arr]
    else:  # not the type's shape: four components per register, in order
        lines = [arr[i:i + 4] for i in range(0, arr.size, 4)]
    out = []
    for line in lines:
        row = np.zeros(4)
        row[: min(line.size, 4)] = line[:4]
        out.append(row)
    return out


def _type_size(info, depth: int = 0) -> int:
    """How many values the parameter holds in its own (not register) layout."""
    if info.is_struct and depth < 32:
        one = sum(_type_size(m.type, depth + 1) for m in info.members)
    else:
        one = max(info.rows, 1) * max(info.columns, 1)
    return one * max(info.elements, 1)


def _flat(value) -> np.ndarray:
    try:
        return np.asarray(value, dtype=np.float64).reshape(-1)
    except ValueError:
        raise ValueError("a value must be numbers, or lists of them shaped like the parameter") from None


def _registers_of(info, value, depth: int = 0) -> list[np.ndarray]:
    """``value`` laid out in registers of four components, as d3dx9 uploads
    a parameter of type ``info``: a matrix row per register (``row_major``)
    or a column per register (the default, ``column_major``), arrays element
    by element, each struct member from a new register.  ``value`` is nested
    like the parameter (lists may be ragged: a struct's members) or flat in
    the parameter's own order (``float4x4`` as 16 values, row by row)."""
    elements = max(info.elements, 1)
    if elements == 1:
        items = [value]
    elif isinstance(value, (list, tuple)) and len(value) == elements:
        items = list(value)
    else:
        flat = _flat(value)
        per = _type_size(info) // elements
        if flat.size != per * elements:
            raise ValueError(f"{flat.size} values for an array of {elements} elements of {per}")
        items = [flat[i * per:(i + 1) * per] for i in range(elements)]
    out: list[np.ndarray] = []
    for element in items:
        if not info.is_struct or depth >= 32:
            out += _plain_rows(info, element)
            continue
        members = info.members
        if isinstance(element, (list, tuple)) and len(element) == len(members):
            parts = list(element)
        elif len(members) == 1:
            parts = [element]  # a one-member struct may be given bare
        else:
            flat = _flat(element)
            sizes = [_type_size(m.type, depth + 1) for m in members]
            if flat.size != sum(sizes):
                raise ValueError(f"{flat.size} values for a struct of {sum(sizes)}")
            bounds = np.cumsum([0, *sizes])
            parts = [flat[bounds[i]:bounds[i + 1]] for i in range(len(members))]
        for member, part in zip(members, parts):
            out += _registers_of(member.type, part, depth + 1)
    return out


def input_file(pre: Preshader, inputs: Inputs | None = None) -> np.ndarray:
    """The input register file (float32, four per register) for ``inputs``:
    CTAB names or register numbers (``5`` or ``"c5"``) to values; CTAB
    defaults fill what is not given, zeros the rest."""
    constants = [c for c in (pre.ctab.constants if pre.ctab else ()) if c.register_set == RegisterSet.FLOAT4]
    size = max((c.register_end for c in constants), default=0)
    by_register: dict[int, np.ndarray] = {}
    named: list[tuple[Constant, np.ndarray]] = []
    for key, value in (inputs or {}).items():
        match = _REGISTER_KEY.match(key) if isinstance(key, str) else None
        if isinstance(key, int) or match:
            index = int(match.group(1)) if match else key
            if not 0 <= index < 1 << 16:
                raise ValueError(f"input register c{index} is out of range")
            row = np.zeros(4)
            flat = np.asarray(value, dtype=np.float64).reshape(-1)[:4]
            row[: flat.size] = flat
            by_register[index] = row
            size = max(size, index + 1)
            continue
        constant = next((c for c in constants if c.name == key), None)
        if constant is None:
            raise ValueError(f"the preshader has no float input named {key!r}")
        named.append((constant, _registers_of(constant.type, value)))
    table = np.zeros((size, 4), np.float32)
    for constant in constants:
        defaults = constant.default_registers
        if defaults:
            for i, row in enumerate(defaults[: constant.register_count]):
                table[constant.register_index + i, : len(row)] = row
    for constant, rows in named:
        for i, row in enumerate(rows[: constant.register_count]):
            table[constant.register_index + i] = row
    for index, row in by_register.items():
        table[index] = row
    return table.reshape(-1)


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------


def _execute(files: _Files, inst: Instruction) -> None:
    op = inst.opcode
    count = inst.component_count
    scalar = inst.scalar
    if op.reduction is Reduction.DOT:
        args = [files.read(inp, 0 if scalar and k == 0 else j) for k, inp in enumerate(inst.inputs) for j in range(count)]
        files.write(inst.output.register, 0, _dot(args, count))
        return
    if op.reduction is Reduction.DOTSWIZ:
        half = len(inst.inputs) // 2
        for j in range(count):
            args = [files.read(inp, 0 if scalar and k == 0 else j) for k, inp in enumerate(inst.inputs)]
            files.write(inst.output.register, j, _dot(args, half))
        return
    fn = _UNARY_BINARY[op]
    if fn is None:  # nop
        return
    for j in range(count):
        args = [files.read(inp, 0 if scalar and k == 0 else j) for k, inp in enumerate(inst.inputs)]
        files.write(inst.output.register, j, fn(*args))


def evaluate(pre: Preshader, inputs: Inputs | None = None) -> Evaluation:
    """Run ``pre`` once on ``inputs`` (see ``input_file``) and return the
    constant registers it fills."""
    files = _Files(pre, input_file(pre, inputs))
    with np.errstate(all="ignore"):
        for inst in pre.instructions:
            _execute(files, inst)
    result = Evaluation(written=pre.outputs, float_table=files.tables[RegisterFile.OUTPUT].copy())
    out_f = files.tables[RegisterFile.OUTPUT].reshape(-1, 4) if len(files.tables[RegisterFile.OUTPUT]) else None
    out_i = files.tables[RegisterFile.OUTPUT_INT]
    out_b = files.tables[RegisterFile.OUTPUT_BOOL]
    for reg in result.written:
        if reg.file == RegisterFile.OUTPUT:
            result.floats[reg.index] = out_f[reg.index].copy()
        elif reg.file == RegisterFile.OUTPUT_INT:
            row = out_i[4 * reg.index: 4 * reg.index + 4].astype(np.float64)
            result.ints[reg.index] = np.array([_lrint_i32(v) for v in row], np.int32)
        else:
            result.bools[reg.index] = bool(out_b[reg.index] != 0)
    return result


def _lrint_i32(value: float) -> int:
    if not math.isfinite(value) or abs(value) >= 2.0**31:
        return -(1 << 31)
    return int(np.rint(value))
