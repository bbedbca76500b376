"""IR operations.

An ``Op`` is one operation; if it has a ``type`` it also *is* the value it
produces (SSA: it is defined once, and other ops refer to it directly in
their ``args``).  Register reads and writes go through ``LOAD``/``STORE`` of
``Variable`` objects.  Control flow is structured: ``IF``/``ELSE``/``ENDIF``
and ``LOOP``/``ENDLOOP`` markers in a function's op list.

Ops whose name starts with ``D3D_`` exist only between lifting and the
lowering passes; the validator refuses them afterwards.  See docs/ir.md.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from .types import Type


class Code(enum.Enum):
    # Members are singletons: hash by identity (C speed; Enum's own hashes
    # the name in Python, and sets/dicts keyed by these are in every hot loop).
    __hash__ = object.__hash__

    # --- values -----------------------------------------------------------
    CONST = "const"  # imm: component values (float/int/bool), one per component
    LOAD = "load"  # var; imm (element,) for arrays; args (dynamic index,) optional
    SWIZZLE = "swizzle"  # args (v,); imm: component indices, len = result width
    CONSTRUCT = "construct"  # args: scalars/vectors concatenated into one vector
    # float arithmetic (component-wise unless noted)
    FNEG = "fneg"
    FABS = "fabs"
    FADD = "fadd"
    FSUB = "fsub"
    FMUL = "fmul"  # plain IEEE multiply
    FMUL_LEGACY = "fmul_legacy"  # D3D9 "anything x 0 = 0" multiply
    FMAD = "fmad"  # a*b + c, unfused
    FDIV = "fdiv"
    FMIN = "fmin"
    FMAX = "fmax"
    FDOT = "fdot"  # args (a, b) of equal width -> scalar
    FDOT_LEGACY = "fdot_legacy"  # dot product using the legacy multiply
    FFLOOR = "ffloor"
    FFRACT = "ffract"  # x - floor(x)
    FEXP2 = "fexp2"
    FLOG2 = "flog2"
    FPOW = "fpow"
    FSQRT = "fsqrt"
    FRSQ = "frsq"  # 1/sqrt(x), IEEE
    FRCP = "frcp"  # 1/x, IEEE
    FSIN = "fsin"
    FCOS = "fcos"
    FSATURATE = "fsaturate"  # clamp to [0, 1]; NaN -> 0
    FCLAMP = "fclamp"  # args (x, lo, hi)
    FSIGN = "fsign"
    FROUND_EVEN = "fround_even"
    FDDX = "fddx"  # screen-space derivative along D3D's +x
    FDDY = "fddy"  # along D3D's +y (down); backends flip for GL where needed
    # comparisons -> bool vector of the same width
    FLT = "flt"
    FLE = "fle"
    FGT = "fgt"
    FGE = "fge"
    FEQ = "feq"
    FNE = "fne"  # unordered: true when either side is NaN
    SELECT = "select"  # args (cond bool vec, a, b) -> a where cond else b
    BNOT = "bnot"
    BAND = "band"
    BOR = "bor"
    BANY = "bany"  # bool vec -> bool scalar
    B2F = "b2f"  # true -> 1.0, false -> 0.0
    F2I_FLOOR = "f2i_floor"
    F2I_ROUND = "f2i_round"  # round half to even
    I2F = "i2f"
    IADD = "iadd"
    IMUL = "imul"
    ILT = "ilt"
    IGT = "igt"
    ILE = "ile"
    IGE = "ige"
    IEQ = "ieq"
    INE = "ine"
    # texture sampling: var = sampler; imm (SampleKind, dimension); args per kind
    SAMPLE = "sample"
    # --- effects ------------------------------------------------------------
    STORE = "store"  # var; args (value, [dynamic index]); imm (mask, element)
    DISCARD = "discard"  # kill the pixel (inside IF when conditional)
    # --- structured control flow -----------------------------------------
    IF = "if"  # args (bool scalar,)
    ELSE = "else"
    ENDIF = "endif"
    LOOP = "loop"  # infinite loop; left through BREAK
    ENDLOOP = "endloop"
    BREAK = "break"
    RETURN = "return"
    CALL = "call"  # imm (function name,)
    # --- D3D-flavoured ops, removed by the lowering passes -----------------
    D3D_SRCMOD = "d3d_srcmod"  # args (v,); imm (SrcMod,)
    D3D_OP = "d3d_op"  # args: sources; imm (Opcode, control, version-key); f4 result
    D3D_STORE = "d3d_store"  # var; args (value f4, [pred bool4], [index]); imm (DstInfo,)


# Ops with a result (values) vs. effects/control markers.
EFFECTS = {Code.STORE, Code.DISCARD, Code.D3D_STORE}
CONTROL = {Code.IF, Code.ELSE, Code.ENDIF, Code.LOOP, Code.ENDLOOP, Code.BREAK, Code.RETURN, Code.CALL}
D3D_CODES = {Code.D3D_SRCMOD, Code.D3D_OP, Code.D3D_STORE}
COMPONENTWISE_FLOAT = {
    Code.FNEG, Code.FABS, Code.FADD, Code.FSUB, Code.FMUL, Code.FMUL_LEGACY, Code.FMAD,
    Code.FDIV, Code.FMIN, Code.FMAX, Code.FFLOOR, Code.FFRACT, Code.FEXP2, Code.FLOG2,
    Code.FPOW, Code.FSQRT, Code.FRSQ, Code.FRCP, Code.FSIN, Code.FCOS, Code.FSATURATE,
    Code.FCLAMP, Code.FSIGN, Code.FROUND_EVEN, Code.FDDX, Code.FDDY,
}
COMPARISONS = {Code.FLT, Code.FLE, Code.FGT, Code.FGE, Code.FEQ, Code.FNE,
               Code.ILT, Code.IGT, Code.ILE, Code.IGE, Code.IEQ, Code.INE}


class SampleKind(enum.Enum):
    """What a SAMPLE op's extra arguments mean.

    args: (coord,) for PLAIN; (coord, bias f1) BIAS; (coord, lod f1) LOD;
    (coord, ddx, ddy) GRAD.  Projection is lowered to a divide before SAMPLE.
    """
    # Members are singletons: hash by identity (C speed; Enum's own hashes
    # the name in Python, and sets/dicts keyed by these are in every hot loop).
    __hash__ = object.__hash__


    PLAIN = "plain"
    BIAS = "bias"
    LOD = "lod"
    GRAD = "grad"


class SampleMode(enum.Enum):
    """A SAMPLE's optional third imm (draw-time sampler state,
    ``passes/samplers_state.py``); absent: the texel's four channels.

    DEPTH_COMPARE: a shadow lookup of a 2D depth texture: the coordinate's
    third component (after texldp's divide) is compared LESS_EQUAL with the
    stored depth; the 0/1 result (filtered by the sampler: PCF) is in every
    component.  The coordinate arg has 3 components then.
    GATHER4: ATI FETCH4 on a 2D texture: the red channels of the 2x2
    footprint whose top-left texel a point sample at the coordinate would
    read, as (top-right, bottom-left, bottom-right, top-left) -- a gather at
    coordinate + half a texel, swizzled (2, 0, 1, 3).  The base level is read
    whatever the kind's LOD or bias.
    """

    __hash__ = object.__hash__

    DEPTH_COMPARE = "depth_compare"
    GATHER4 = "gather4"


@dataclass(eq=False, slots=True)
class Op:
    code: Code
    type: Type | None = None
    args: tuple["Op", ...] = ()
    imm: tuple[Any, ...] = ()
    var: "Variable | None" = None  # noqa: F821 - program.Variable
    origin: int = -1  # index into Program.instructions this op came from

    @property
    def is_value(self) -> bool:
        return self.type is not None

    def __repr__(self) -> str:
        from .printer import format_op

        return f"<Op {format_op(self)}>"
