"""The reference interpreter's data (``reference``): the constants a draw
sets (``ReferenceConstants``), what a run gives (``Result``), and the
shader's instruction stream as a tree of blocks (``parse_program``).  Split
from ``reference.py``, which re-exports every name."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from ..bytecode.model import Instruction, Shader
from ..bytecode.tables import DeclUsage, Opcode
from ..errors import StructureError

F32 = np.float32


# --------------------------------------------------------------------------
# Constants, results
# --------------------------------------------------------------------------


@dataclass
class ReferenceConstants:
    """API constant values (Set*ShaderConstantF/I/B).  Registers not given
    read 0 (§6.1 "Defaults").  ``floats`` may be a mapping index -> 4 floats
    or an (N, 4) array starting at c0; likewise ``ints`` (i#, int32) and
    ``bools`` (b#, a mapping or a sequence of truth values)."""

    floats: Any = field(default_factory=dict)
    ints: Any = field(default_factory=dict)
    bools: Any = field(default_factory=dict)

    @staticmethod
    def _table(values, width: int, dtype, size: int) -> np.ndarray:
        out = np.zeros((size, width), dtype=dtype)
        if isinstance(values, Mapping):
            items = values.items()
        else:
            items = enumerate(values)
        for index, value in items:
            if index >= size:
                continue
            if width == 1:
                out[index] = bool(np.asarray(value).reshape(-1)[0])
            else:
                out[index] = np.asarray(value, dtype=np.float64).reshape(-1)[:width].astype(dtype)
        return out

    def floats_table(self, size: int) -> np.ndarray:
        if isinstance(self.floats, np.ndarray):
            out = np.zeros((size, 4), F32)
            k = min(size, len(self.floats))
            out[:k] = self.floats[:k]
            return out
        return self._table(self.floats, 4, F32, size)

    def ints_table(self, size: int) -> np.ndarray:
        if isinstance(self.ints, np.ndarray):
            out = np.zeros((size, 4), np.int32)
            k = min(size, len(self.ints))
            out[:k] = self.ints[:k]
            return out
        return self._table(self.ints, 4, np.int32, size)

    def bools_table(self, size: int) -> np.ndarray:
        return self._table(self.bools, 1, bool, size)[:, 0]


@dataclass
class Result:
    outputs: dict[str, np.ndarray]
    semantics: dict[tuple[int, int], str]
    output_masks: dict[str, int]
    killed: np.ndarray
    trace: dict[str, np.ndarray]
    instructions: tuple[Instruction, ...]

    def output(self, key) -> np.ndarray:
        """An output by register name or by (usage, index) semantic."""
        if isinstance(key, str):
            return self.outputs[key]
        usage, index = key
        return self.outputs[self.semantics[(_usage(usage), index)]]

    def last_writer(self, name: str, lane: int, component: int) -> Instruction | None:
        i = int(self.trace[name][lane, component])
        return None if i < 0 else self.instructions[i]


def _usage(u) -> int:
    if isinstance(u, str):
        return int(DeclUsage[u.upper()])
    return int(u)


# --------------------------------------------------------------------------
# Program structure: the flat stream as a tree of blocks (§4.1)
# --------------------------------------------------------------------------


@dataclass
class Op:
    index: int
    instr: Instruction


@dataclass
class IfNode:
    index: int
    instr: Instruction
    then: list
    orelse: list


@dataclass
class LoopNode:
    index: int
    instr: Instruction  # LOOP or REP
    body: list


@dataclass
class Program:
    main: list
    functions: dict[int, list]  # label number -> body


_NOOPS = {Opcode.NOP, Opcode.DCL, Opcode.DEF, Opcode.DEFI, Opcode.DEFB, Opcode.PHASE}


def parse_program(shader: Shader) -> Program:
    """Split main and the LABEL bodies; nest if/else/endif, loop, rep.

    A RET at nesting depth 0 ends the current function (§1.9, §4.1); the
    instructions between main's RET and the first LABEL are unreachable."""
    instrs = shader.instructions
    functions: dict[int, list] = {}
    main: list | None = None
    # stack entries: (node or None for a function, the list being filled)
    stack: list[tuple[Any, list]] = []
    current: list = []
    label: int | None = None  # None: main
    ended = False  # the current function saw its RET

    def finish():
        nonlocal main
        if stack:
            node = stack[-1][0]
            raise StructureError(node.instr.offset, f"{node.instr.info.mnemonic} is not closed")
        if label is None:
            if main is None:
                main = current
        else:
            functions[label] = current

    for idx, ins in enumerate(instrs):
        op = ins.opcode
        if op == Opcode.LABEL:
            finish()
            label, current, ended = ins.srcs[0].index, [], False
            if label in functions:
                raise StructureError(ins.offset, f"label l{label} is defined twice")
            continue
        if ended:
            continue
        if op == Opcode.END:
            break
        if op in (Opcode.IF, Opcode.IFC):
            node = IfNode(idx, ins, [], [])
            current.append(node)
            stack.append((node, current))
            current = node.then
        elif op == Opcode.ELSE:
            if not stack or not isinstance(stack[-1][0], IfNode) or current is not stack[-1][0].then:
                raise StructureError(ins.offset, "else without if")
            current = stack[-1][0].orelse
        elif op == Opcode.ENDIF:
            if not stack or not isinstance(stack[-1][0], IfNode):
                raise StructureError(ins.offset, "endif without if")
            current = stack.pop()[1]
        elif op in (Opcode.LOOP, Opcode.REP):
            node = LoopNode(idx, ins, [])
            current.append(node)
            stack.append((node, current))
            current = node.body
        elif op in (Opcode.ENDLOOP, Opcode.ENDREP):
            want = Opcode.LOOP if op == Opcode.ENDLOOP else Opcode.REP
            if not stack or not isinstance(stack[-1][0], LoopNode) or stack[-1][0].instr.opcode != want:
                raise StructureError(ins.offset, f"{ins.info.mnemonic} without {want.name.lower()}")
            current = stack.pop()[1]
        elif op == Opcode.RET and not stack:
            ended = True
        elif op in _NOOPS:
            continue
        else:
            current.append(Op(idx, ins))
    finish()
    return Program(main if main is not None else [], functions)
