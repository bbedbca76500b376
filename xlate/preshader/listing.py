"""``Preshader`` -> the ``preshader`` block of fxc's ``/Fc`` listing.

fxc (9.29.952) prints a shader's preshader before the shader itself:

    preshader
    rcp r0.x, c0.x
    mul c1.x, r0.x, (5.5)
    dot c4.yzwx, r0, c4
    add c1.y, c21.y, c0[r0.x].y

Rules, all taken from the 49 fxc-wine listings that have one:

* an operand covering ``n`` components starting at component ``k`` prints
  the letters ``(k + i) % 4`` for ``i < n``; all four from ``x`` print none;
* the output prints the instruction's component count (``dot c4.yzwx``
  though dot writes one component);
* the scalar first input of a scalar instruction prints one component
  (``add r1, r0.x, r2``), or, for a literal, its value once per component
  (``add c0, (5, 5, 5, 5), c0``);
* literals print as MSVC's ``%.9g`` prints the double (``0.159154943``,
  ``-2.52398518e-007``);
* relative addressing prints ``c0[r1.x].xy``: base register, the index
  register's component in brackets, then the base's letters.

A literal read through relative addressing has no example in the corpus;
it prints as ``l12[c0.x]`` (literal 12 as the base), an xlate spelling.
"""

from __future__ import annotations

import math

from ..bytecode.disasm import format_g9
from .model import COMPONENT_LETTERS, Instruction, Operand, Preshader, Register
from .tables import RegisterFile


def format_double(value: float) -> str:
    """A literal as MSVC's ``printf("%.9g")`` prints a double: nine
    significant digits rounded half away from zero, trailing zeros dropped,
    the exponent form below 1e-4 and from 1e9 with three exponent digits;
    MSVC's ``1.#INF`` / ``-1.#INF`` / ``1.#QNAN`` for the non-finite."""
    if math.isnan(value):
        return "-1.#IND" if math.copysign(1.0, value) < 0 else "1.#QNAN"
    if math.isinf(value):
        return "1.#INF" if value > 0 else "-1.#INF"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    return format_g9(value)


def _letters(start: int, count: int) -> str:
    if count == 4 and start == 0:
        return ""
    return "." + "".join(COMPONENT_LETTERS[(start + i) % 4] for i in range(count))


def _register_name(reg: Register) -> str:
    return f"{reg.file.prefix}{reg.index}"


def _operand_text(pre: Preshader, operand: Operand, width: int, replicate: bool) -> str:
    reg = operand.register
    if reg.file == RegisterFile.LITERAL and operand.relative is None:
        if replicate:
            values = [pre.literals[reg.offset]] * width
        else:
            values = pre.literals[reg.offset:reg.offset + width]
        return "(" + ", ".join(format_double(v) for v in values) + ")"
    text = _register_name(reg)
    if operand.relative is not None:
        rel = operand.relative
        text += f"[{_register_name(rel)}.{COMPONENT_LETTERS[rel.component]}]"
    count = 1 if replicate else width
    return text + _letters(reg.component, count)


def format_instruction(pre: Preshader, inst: Instruction) -> str:
    """One instruction, without indentation: ``add c1.x, r0.x, (5.5)``."""
    parts = [_operand_text(pre, inst.output, inst.component_count, False)]
    for k, operand in enumerate(inst.inputs):
        replicate = inst.scalar and k == 0
        width = inst.component_count if replicate else operand.components
        parts.append(_operand_text(pre, operand, width, replicate))
    return inst.mnemonic + " " + ", ".join(parts)


def format_preshader(pre: Preshader) -> list[str]:
    """The ``preshader`` block as fxc prints it: the line ``preshader``,
    then one line per instruction; no indentation, no line terminators
    (fxc indents each line by four spaces)."""
    return ["preshader", *(format_instruction(pre, inst) for inst in pre.instructions)]
