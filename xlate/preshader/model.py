"""The decoded preshader (or effect expression): typed and immutable."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..bytecode.ctab import ConstantTable
from .tables import FxlvmOpcode, Reduction, RegisterFile

if TYPE_CHECKING:  # vm.py imports this module
    from .vm import Evaluation

COMPONENT_LETTERS = "xyzw"


@dataclass(frozen=True, slots=True)
class Register:
    """A location in one register file.  ``offset`` counts components as
    the token stream does (c3.y is 13); ``index``/``component`` split it."""

    file: RegisterFile
    offset: int

    @property
    def index(self) -> int:
        return self.offset >> 2

    @property
    def component(self) -> int:
        return self.offset & 3


@dataclass(frozen=True, slots=True)
class Operand:
    """One input or the output of an instruction.

    ``components`` is how many consecutive components it covers (1 for the
    scalar first input of a scalar instruction, whose value is replicated).
    ``relative`` is the register whose value (rounded to an integer) is added
    to ``register``'s index: ``c0[r1.x]``.
    """

    register: Register
    components: int
    relative: Register | None = None

    @property
    def file(self) -> RegisterFile:
        return self.register.file


@dataclass(frozen=True, slots=True)
class Instruction:
    opcode: FxlvmOpcode
    component_count: int
    scalar: bool  # the first input is one component, replicated
    inputs: tuple[Operand, ...]
    output: Operand
    raw: int = 0  # the opcode token as written
    offset: int = field(default=-1, compare=False)  # byte offset of the opcode token

    @property
    def mnemonic(self) -> str:
        return self.opcode.mnemonic


@dataclass(frozen=True, slots=True)
class RegisterRange:
    """Shader registers ``[start, start + count)`` the preshader fills."""

    start: int
    count: int


@dataclass(frozen=True, slots=True)
class PrsiInfo:
    """The ``PRSI`` block: the shader constant registers the preshader fills.

    fxc writes seven header DWORDs, the float4 ranges, then two DWORDs that
    were zero in every corpus file.  Header words 0 and 3 are the first
    output float register and the span of them; word 6 is the number of
    ranges; words 1, 2, 4, 5 were always zero and are kept in ``raw``.
    """

    first_register: int
    register_span: int
    ranges: tuple[RegisterRange, ...]
    raw: tuple[int, ...]  # the whole block after the FourCC, as written


@dataclass(frozen=True, slots=True)
class Preshader:
    """A decoded FX token stream: a shader's preshader or an effect expression.

    ``literals`` are the CLIT doubles; ``instructions`` the FXLC program;
    ``ctab`` the inputs (``None`` when the stream has no CTAB); ``prsi`` the
    PRSI block when present; ``blocks`` the FourCCs of every comment block
    in stream order (unknown ones included, so nothing is hidden);
    ``terminated`` whether END closed the stream and ``trailing_bytes`` how
    many bytes after the last block were not read (d3dx9 stops at the first
    token that is not a comment block and ignores the rest, so do we).
    """

    version_token: int
    ctab: ConstantTable | None
    literals: tuple[float, ...]
    instructions: tuple[Instruction, ...]
    prsi: PrsiInfo | None = None
    blocks: tuple[str, ...] = ()
    terminated: bool = True  # the stream ended with END (d3dx9 does not need it)
    trailing_bytes: int = 0  # after the last block (and END), not read
    offset: int = field(default=0, compare=False)  # byte offset of the version token

    @property
    def version(self) -> tuple[int, int]:
        return (self.version_token >> 8) & 0xFF, self.version_token & 0xFF

    @property
    def outputs(self) -> tuple[Register, ...]:
        """Every output component written, in program order, once each."""
        seen: dict[Register, None] = {}
        for inst in self.instructions:
            out = inst.output.register
            if out.file.is_output:
                n = 1 if inst.opcode.reduction is Reduction.DOT else inst.component_count
                for k in range(n):
                    # b# has one component per register: its components are registers
                    step = 4 if out.file == RegisterFile.OUTPUT_BOOL else 1
                    base = 4 * out.index if step == 4 else out.offset
                    seen.setdefault(Register(out.file, base + step * k), None)
        return tuple(seen)

    @property
    def output_registers(self) -> dict[RegisterFile, tuple[int, ...]]:
        """Output register indices per file (c#, b#, i#), sorted."""
        out: dict[RegisterFile, set[int]] = {}
        for reg in self.outputs:
            out.setdefault(reg.file, set()).add(reg.index)
        return {f: tuple(sorted(v)) for f, v in out.items()}

    def input_names(self) -> tuple[str, ...]:
        """The CTAB names of the inputs the program actually reads."""
        if self.ctab is None:
            return ()
        used: list[str] = []
        for inst in self.instructions:
            for op in inst.inputs:
                for reg in (op.register, op.relative):
                    if reg is None or reg.file != RegisterFile.INPUT:
                        continue
                    const = self.ctab.find(2, reg.index)  # RegisterSet.FLOAT4
                    if const is not None and const.name not in used:
                        used.append(const.name)
        return tuple(used)

    def evaluate(self, inputs=None) -> "Evaluation":
        """Run the program (see ``xlate.preshader.vm.evaluate``)."""
        from .vm import evaluate

        return evaluate(self, inputs)
