"""The text source-annotation comments give an instruction, shared by the
text backends (GLSL, WGSL)."""

from __future__ import annotations

from ..ir.program import Program


def instruction_text(program: Program, origin: int) -> str:
    """The disassembly of the program's instruction ``origin``; its mnemonic
    alone when it cannot be formatted (an annotation never breaks a translation)."""
    inst = program.instructions[origin]
    try:
        from ..bytecode.disasm import format_instruction

        return format_instruction(inst, program.version)
    except Exception:  # noqa: BLE001 - annotations must never break a translation
        return inst.info.mnemonic
