"""Helpers for the pass tests: assemble, lift, lower, evaluate.

Import them as ``from .conftest import ...`` (tests/passes is a package).
"""

from __future__ import annotations

import numpy as np

from xlate.bytecode import decode
from xlate.bytecode.asm import assemble_bytes
from xlate.ir.builder import lift
from xlate.ir.ops import D3D_CODES, Code
from xlate.ir.program import Program
from xlate.options import Options
from xlate.passes import PIPELINE, run_pass

from .ireval import evaluate

FLT_MAX = np.float32(3.402823466e38)


def lift_asm(text: str) -> Program:
    return lift(decode(assemble_bytes(text)))


def lower(text: str, until: str = "destination", options: Options | None = None, only: str | None = None) -> Program:
    """Lift ``text`` and run the pipeline up to ``until`` (or just the pass ``only``)."""
    program = lift_asm(text)
    options = options or Options()
    if only is not None:
        run_pass(only, program, options)
        return program
    for name in PIPELINE:
        run_pass(name, program, options)
        if name == until:
            break
    return program


def run_asm(text: str, inputs=None, options: Options | None = None, **kw) -> dict:
    """Lower ``text`` through the destination pass and evaluate it."""
    program = lower(text, options=options)
    assert not d3d_ops(program), d3d_ops(program)
    return evaluate(program, inputs, **kw)


def codes(program: Program) -> list[Code]:
    return [op.code for _, op in program.all_ops()]


def ops_of(program: Program, code: Code) -> list:
    return [op for _, op in program.all_ops() if op.code is code]


def d3d_ops(program: Program) -> list:
    return [op for _, op in program.all_ops() if op.code in D3D_CODES]


def d3d_opcodes(program: Program) -> list:
    return [op.imm[0].opcode for op in ops_of(program, Code.D3D_OP)]
