"""A tiny numpy evaluator for core IR (a test helper, not a backend).

``evaluate(program, inputs)`` runs ``main`` once on float32 values and
returns every variable's final value by name.  Variables start at 0 (or at
``inputs[name]``; arrays take ``{element: values}``), DEF/DEFI/DEFB are
applied first.  SAMPLE calls ``sampler(op, args)`` (default: the coordinate
padded with zeros); FDDX/FDDY give 0.  A DISCARD stops execution and sets
``result["discarded"]``.
"""

from __future__ import annotations

import numpy as np

from xlate.ir.ops import Code
from xlate.ir.program import Storage

F32 = np.float32

UNARY = {
    Code.FNEG: np.negative, Code.FABS: np.abs, Code.FFLOOR: np.floor,
    Code.FFRACT: lambda a: a - np.floor(a), Code.FEXP2: np.exp2, Code.FLOG2: np.log2,
    Code.FSQRT: np.sqrt, Code.FRSQ: lambda a: F32(1) / np.sqrt(a), Code.FRCP: lambda a: F32(1) / a,
    Code.FSIN: np.sin, Code.FCOS: np.cos, Code.FSIGN: np.sign, Code.FROUND_EVEN: np.rint,
    Code.FSATURATE: lambda a: np.where(np.isnan(a), F32(0), np.clip(a, 0, 1)).astype(F32),
    Code.FDDX: np.zeros_like, Code.FDDY: np.zeros_like,
    Code.BNOT: np.logical_not, Code.B2F: lambda a: a.astype(F32), Code.I2F: lambda a: a.astype(F32),
    Code.F2I_FLOOR: lambda a: np.floor(a).astype(np.int32),
    Code.F2I_ROUND: lambda a: np.rint(a).astype(np.int32),
    Code.BANY: lambda a: np.array([a.any()]),
}


def _legacy_mul(a, b):
    return np.where((a == 0) | (b == 0), F32(0), a * b).astype(F32)


BINARY = {
    Code.FADD: np.add, Code.FSUB: np.subtract, Code.FMUL: np.multiply, Code.FDIV: np.divide,
    Code.FMUL_LEGACY: _legacy_mul, Code.FMIN: np.minimum, Code.FMAX: np.maximum, Code.FPOW: np.power,
    Code.FDOT: lambda a, b: np.array([np.sum(a * b, dtype=F32)], F32),
    Code.FDOT_LEGACY: lambda a, b: np.array([np.sum(_legacy_mul(a, b), dtype=F32)], F32),
    Code.FLT: np.less, Code.FLE: np.less_equal, Code.FGT: np.greater, Code.FGE: np.greater_equal,
    Code.FEQ: np.equal, Code.FNE: np.not_equal,
    Code.ILT: np.less, Code.ILE: np.less_equal, Code.IGT: np.greater, Code.IGE: np.greater_equal,
    Code.IEQ: np.equal, Code.INE: np.not_equal, Code.IADD: np.add, Code.IMUL: np.multiply,
    Code.BAND: np.logical_and, Code.BOR: np.logical_or,
}

DTYPE = {"f": F32, "i": np.int32, "b": np.bool_}


class _Discard(Exception):
    pass


def _default_sampler(op, args):
    return np.resize(np.concatenate([args[0], np.zeros(4, F32)]), 4)[:4].astype(F32)


def evaluate(program, inputs=None, sampler=_default_sampler) -> dict:
    inputs = inputs or {}
    env: dict = {}
    for var in program.variables:
        if var.storage is Storage.SAMPLER:
            continue
        dtype = DTYPE[var.type.scalar.value]
        if var.length is not None:
            given = dict(inputs.get(var.name, {}))
            env[var] = np.zeros((max(var.length, 1, *(e + 1 for e in given)), var.type.width), dtype)
            for d in program.defs:
                if d.storage is var.storage and d.index < len(env[var]):
                    env[var][d.index] = np.array(d.values, dtype)[: var.type.width]
            for element, values in given.items():
                env[var][element] = np.array(values, dtype)
        else:
            env[var] = np.resize(np.array(inputs.get(var.name, 0), dtype), var.type.width)
    result = {"discarded": False}
    try:
        _run(program, program.main.body, env, sampler)
    except _Discard:
        result["discarded"] = True
    result.update((var.name, value) for var, value in env.items())
    return result


def _matching(body):
    """For each IF/ELSE/LOOP index: its ELSE/ENDIF/ENDLOOP index, and back."""
    match, stack = {}, []
    for i, op in enumerate(body):
        if op.code in (Code.IF, Code.LOOP):
            stack.append(i)
        elif op.code is Code.ELSE:
            match[stack[-1]] = i
            stack[-1] = i
        elif op.code in (Code.ENDIF, Code.ENDLOOP):
            match[stack.pop()] = i
    return match


def _run(program, body, env, sampler):
    match = _matching(body)
    values: dict = {}
    loops: list = []  # (loop start, end) of the enclosing loops
    arg = lambda op, n: values[id(op.args[n])]  # noqa: E731
    pc, steps = 0, 0
    with np.errstate(all="ignore"):
        while pc < len(body):
            steps += 1
            assert steps < 1_000_000, "runaway loop"
            op, pc = body[pc], pc + 1
            c = op.code
            if c is Code.IF:
                if not arg(op, 0)[0]:
                    pc = match[pc - 1] + 1
            elif c is Code.ELSE:
                pc = match[pc - 1] + 1
            elif c is Code.LOOP:
                loops.append((pc - 1, match[pc - 1]))
            elif c is Code.ENDLOOP:
                pc = loops[-1][0] + 1
            elif c is Code.BREAK:
                pc = loops.pop()[1] + 1
            elif c is Code.RETURN:
                return
            elif c is Code.CALL:
                _run(program, program.functions[op.imm[0]].body, env, sampler)
            elif c is Code.DISCARD:
                raise _Discard()
            elif c is Code.STORE:
                _store(op, env, values)
            elif c is Code.ENDIF:
                pass
            else:
                values[id(op)] = _value(op, env, values, sampler)


def _value(op, env, values, sampler):
    c = op.code
    args = [values[id(a)] for a in op.args]
    dtype = DTYPE[op.type.scalar.value]
    if c is Code.CONST:
        return np.array(op.imm, dtype)
    if c is Code.LOAD:
        data = env[op.var]
        if op.var.length is None:
            return data.copy()
        element = op.imm[0] + (int(args[0][0]) if args else 0)
        return data[element].copy() if 0 <= element < len(data) else np.zeros(op.var.type.width, dtype)
    if c is Code.SWIZZLE:
        return args[0][list(op.imm)]
    if c is Code.CONSTRUCT:
        return np.concatenate(args).astype(dtype)
    if c is Code.SELECT:
        return np.where(args[0], args[1], args[2]).astype(dtype)
    if c is Code.FMAD:
        return (args[0] * args[1] + args[2]).astype(dtype)
    if c is Code.FCLAMP:
        return np.minimum(np.maximum(args[0], args[1]), args[2]).astype(dtype)
    if c is Code.SAMPLE:
        return np.asarray(sampler(op, args), F32)
    if c in UNARY:
        return np.asarray(UNARY[c](args[0])).astype(dtype)
    if c in BINARY:
        return np.asarray(BINARY[c](args[0], args[1])).astype(dtype)
    raise NotImplementedError(f"ireval: {c}")


def _store(op, env, values):
    value = values[id(op.args[0])]
    data = env[op.var]
    if op.var.length is not None:
        element = op.imm[1] + (int(values[id(op.args[1])][0]) if len(op.args) > 1 else 0)
        if not 0 <= element < len(data):
            return
        data = data[element]
    comps = [i for i in range(4) if op.imm[0] & (1 << i)]
    if op.var.type.width == 1:
        comps = [0]
    data[comps] = value
