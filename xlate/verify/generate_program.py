"""What the generator builds and hands out: the program tree (``Node``),
the options (``GenOptions``), functions and inputs it records
(``Function``, ``InputInfo``), the result (``GeneratedProgram``), and the
operand helpers and opcode groups shared by the interpreter and the
generator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..bytecode.disasm import disassemble
from ..bytecode.model import DestOperand, Instruction, RelativeAddress, Shader, SourceOperand
from ..bytecode.tables import (
    IDENTITY_SWIZZLE,
    DstMod,
    Opcode,
    RegisterType,
    SamplerType,
    ShaderVersion,
    SrcMod,
    replicate_swizzle,
)

R = RegisterType
O = Opcode


# --------------------------------------------------------------------------
# Program representation
# --------------------------------------------------------------------------


@dataclass
class Node:
    kind: str  # "op", "if", "loop", "call"
    ins: Instruction
    body: list = field(default_factory=list)  # then / loop body
    orelse: list | None = None
    closer: Instruction | None = None


@dataclass
class GenOptions:
    min_instructions: int = 4  # body instructions (the epilogue adds more)
    max_instructions: int = 28
    oob_rate: float = 0.05  # fraction of c[a0 + n] reads allowed out of range
    special_rate: float = 0.15  # chance of a deliberate special-value constant
    mova_ties: bool = True
    partial_precision: bool = True
    scalar_nonreplicate_rate: float = 0.1
    # Point samplers a draw state may make sRGB reads (D3DSAMP_SRGBTEXTURE:
    # the sample's rgb is decoded, so the result is no longer exact) or depth
    # compares (a D16/D24 texture bound: texld compares the coordinate's z
    # with the stored depth, so z must be exact, on the half grid, where no
    # stored depth lies).  The differential's random draw states choose them
    # before generating (reference_drawstate.random_sampler_plan).
    srgb_samplers: tuple[int, ...] = ()
    depth_samplers: tuple[int, ...] = ()


@dataclass
class Function:
    label: int
    nodes: list
    loop_depth: int
    call_depth: int
    uniform: bool  # generated for uniform control flow (may hold derivatives)


@dataclass
class InputInfo:
    reg: tuple[int, int]
    mask: int
    usage: int | None
    usage_index: int
    lo: float
    hi: float


@dataclass
class GeneratedProgram:
    """A generated shader and what the generator knows about it."""

    shader: Shader
    version: ShaderVersion
    error_bounds: dict[str, tuple[float, float, float, float]]
    written_masks: dict[str, int]
    sampler_roles: dict[int, str]
    # per written output component: (lo, hi) bounds of the reference value
    output_ranges: dict[str, tuple] = field(default_factory=dict)
    # options the translation needs (ps_1_x: the sampler_types of cube and volume stages)
    translate_options: dict[str, Any] = field(default_factory=dict)

    @property
    def asm(self) -> str:
        return disassemble(self.shader, header=False)


# --------------------------------------------------------------------------
# Operand helpers
# --------------------------------------------------------------------------


def _src(rtype, index, swizzle=IDENTITY_SWIZZLE, mod=SrcMod.NONE, rel=None) -> SourceOperand:
    return SourceOperand(rtype, index, swizzle, mod, rel)


def _dst(rtype, index, mask=0xF, mods=DstMod.NONE, rel=None) -> DestOperand:
    return DestOperand(rtype, index, mask, mods, 0, rel)


def _mask_comps(mask: int) -> list[int]:
    return [c for c in range(4) if mask >> c & 1]


A0_REL = lambda comp: RelativeAddress(R.ADDR, 0, replicate_swizzle(comp))  # noqa: E731
AL_REL = RelativeAddress(R.LOOP, 0, IDENTITY_SWIZZLE)

PER_COMPONENT = {O.MOV, O.ADD, O.SUB, O.MUL, O.MAD, O.MIN, O.MAX, O.SLT, O.SGE, O.FRC,
                 O.ABS, O.SGN, O.LRP, O.CMP, O.DSX, O.DSY}
SCALAR_OPS = {O.RCP, O.RSQ, O.EXP, O.LOG, O.LOGP, O.EXPP, O.POW}
# The swizzle slot scalar ops (and sincos) read: the last one, as Windows
# drivers do (see xlate/verify/reference_ops.scalar).
SCALAR_SLOT = 3
MATRIX_SHAPE = {O.M4x4: (4, 4), O.M4x3: (3, 4), O.M3x4: (4, 3), O.M3x3: (3, 3), O.M3x2: (2, 3)}
SPECIAL_OK = {O.MOV, O.MIN, O.MAX, O.CMP, O.MUL, O.MAD, O.DP3, O.DP4}


def _tex_dims(stype: int) -> int:
    return 2 if stype == SamplerType.TEX2D else 3
