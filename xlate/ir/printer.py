"""A readable text dump of the IR, for tests, debugging and ``docs/ir.md``.

    %7 = fadd f4 %5, %6
    store r0.xy %9
    if %12
"""

from __future__ import annotations

import enum

from .ops import Code, Op
from .program import Program


def _imm_text(value) -> str:
    if isinstance(value, enum.Enum):
        return value.name.lower()
    if hasattr(value, "opcode") and hasattr(value, "control"):  # D3DOpInfo
        return value.opcode.name.lower() + (f"/{value.control}" if value.control else "")
    if hasattr(value, "mask") and hasattr(value, "saturate"):  # DstInfo
        parts = ["mask=" + "".join(c for i, c in enumerate("xyzw") if value.mask & (1 << i))]
        if value.saturate:
            parts.append("sat")
        if value.shift:
            parts.append(f"shift={value.shift}")
        if value.predicated:
            parts.append("pred")
        return " ".join(parts)
    return repr(value)


def format_op(op: Op, names: dict[int, str] | None = None) -> str:
    names = names if names is not None else {}

    def ref(arg: Op) -> str:
        return names.get(id(arg), f"%?{arg.code.value}")

    text = op.code.value
    if op.type is not None:
        text += f" {op.type}"
    if op.var is not None:
        text += f" {op.var.name}"
    if op.imm:
        text += " [" + ", ".join(_imm_text(v) for v in op.imm) + "]"
    if op.args:
        text += " " + ", ".join(ref(a) for a in op.args)
    if op.is_value:
        return f"{names.get(id(op), '%?')} = {text}"
    return text


def format_program(program: Program) -> str:
    lines = [f"; {program.version}"]
    for var in program.variables:
        extra = f"[{var.length}]" if var.length else ""
        sem = " " + ",".join(str(s) for _, s in var.semantics) if var.semantics else ""
        lines.append(f"var {var.storage.value} {var.type}{extra} {var.name}{sem}")
    for d in program.defs:
        lines.append(f"def {d.storage.value}[{d.index}] = {d.values}")
    for fn in program.functions.values():
        lines.append(f"function {fn.name}:")
        names: dict[int, str] = {}
        depth = 1
        for op in fn.body:
            if op.is_value:
                names[id(op)] = f"%{len(names) + 1}"
            if op.code in (Code.ELSE, Code.ENDIF, Code.ENDLOOP):
                depth -= 1
            lines.append("  " * depth + format_op(op, names))
            if op.code in (Code.IF, Code.ELSE, Code.LOOP):
                depth += 1
    return "\n".join(lines) + "\n"
