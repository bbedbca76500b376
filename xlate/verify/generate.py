"""Random valid, well-defined D3D9 programs for differential testing.

``generate(rng, version)`` builds a ``GeneratedProgram`` (a model ``Shader``
plus metadata) for vs_2_0, vs_2_x, vs_3_0, ps_2_0, ps_2_x or ps_3_0
(``VERSIONS``), vs_1_1 (``SM1_VERSIONS``) or ps_1_1-ps_1_4
(``PS1_VERSIONS``, built by ``generate_sm1``);
``random_inputs(shader, rng)`` builds matching inputs, constants and
textures for ``reference.run_shader`` (``ShaderInputs.run(shader)``).
``programs()`` is the hypothesis strategy; ``feature_counts`` tells what a
program exercises.  ``scripts/genprog`` prints programs as assembly.

How "well-defined" is achieved
------------------------------
Every instruction is proposed at random and then checked by an abstract
interpreter (``_Interp``) that tracks, per register component, an
abstract value ``AV = (lo, hi, d, err, flags)``:

* ``lo..hi`` bounds the value over every invocation and every input that
  ``random_inputs`` can produce; ``|value| <= MAX_MAGNITUDE`` is enforced
  except for the deliberate special values below.
* ``d >= 0`` means *exact*: the value is a multiple of ``2**-d`` small
  enough (< 2**24 units) that every IEEE-conforming evaluation order
  (fused or unfused mad, any summation order of a dot product, GLSL's
  ``mix`` formula for lrp) computes it bit for bit.  ``d < 0``: inexact.
* ``err`` bounds how far a conforming implementation may be from the
  reference (the tolerance model, below); exact values have ``err == 0``.
* flags: ``UNIFORM`` (same in every invocation), ``AFFINE`` (affine in the
  pixel position, so coarse and fine derivatives agree), ``HALF`` (an odd
  multiple of 1/32, never on a texel boundary), ``SPECIAL`` (may be
  ±FLT_MAX, from rcp/rsq/log of an exact 0).

A proposed instruction is rejected (and another one proposed) when it
would read a component that is not definitely written on every path
(temps, a0, p0, outputs, undeclared input components), when a
discontinuous operation would consume an inexact operand (slt, sge,
setp, cmp's selector, sgn, frc, mova, ifc, breakc, texkill, lit's tests,
point-sampled texture coordinates) unless the interval decides it with a
margin, when a value or its error bound grows too large, when rcp/rsq/log
see an interval that touches 0 (except an exact +0 from a ``def``: the
deliberate special value), when a relative index may leave the register
file (except the controlled out-of-range fraction for ``c[a0.c + n]``,
which reads 0), or when a derivative (dsx, dsy, implicit-LOD texld) is
not in uniform control flow or follows a texkill.  Loops are re-checked
for every iteration (trip counts <= 4), so loop-carried values are
covered; if/else and loop exits join the states of all paths.

Inputs and constants (``random_inputs``, documented ranges)
-----------------------------------------------------------
* Every float input and API float constant component is an odd multiple
  of 1/32 in [-2, 2] (colour inputs v0/v1 of ps_2_x: in (0, 1)); never 0,
  never on a texel boundary of a point-sampled texture of size <= 16.
* Pixel shaders: ``n`` lanes form a 4-wide grid of 2×2 quads (lane 4k..4k+3
  = TL, TR, BL, BR of quad k; ``pixel_coords`` gives the integer D3D pixel
  position).  Every input is *affine in the pixel position*
  (``a + b·x + c·y`` per component), so a GL runner can feed it as a
  ``noperspective`` varying, and coarse and fine derivatives agree.
* i#: (count 0..3, start 0..4, step -2..2, 0); b#: random; ``vFace``: one
  random facing for all lanes; ``vPos``: the pixel position.
* Samplers (policy from the shader alone, ``sampler_roles``):
  2D/volume samplers with an even number are POINT (single level,
  nearest, texel values multiples of 1/16, random wrap/mirror/clamp/
  border/mirroronce: results exact); odd 2D/volume samplers are LINEAR
  (smooth periodic content, bilinear); cube samplers are LINEAR with
  content a smooth function of the direction (face edges agree).  A
  LINEAR sampler gets a mip chain with distinct levels (trilinear) only
  when no pixel-shader texld/texldb/texldp/texldd reads it (the LOD then
  comes from texldl or is 0 in a vertex shader); otherwise one level, so
  the implementation's LOD approximation cannot matter.

Tolerance model (``GeneratedProgram.error_bounds``)
---------------------------------------------------
For each written output component the generator exports an absolute error
bound derived from these per-operation allowances (assumptions about a
conforming GPU, llvmpipe in particular): basic arithmetic 1 ulp
(2**-23 relative) per rounding; rcp/rsq 2**-21 relative; exp/log/pow
2**-18 relative plus input-error propagation; sin/cos 2**-18 absolute;
bilinear texture results ``TEX_LINEAR_ERR``, cube ``TEX_CUBE_ERR``,
point-sampled textures exact.  Comparators should allow
``max(bound, 1e-6·(1 + |ref|))``.  Exact outputs have bound 0.

Non-finite values and deliberate special values
-----------------------------------------------
Outputs are always finite.  Deliberate special inputs: ``def`` constants
holding exact 0, 1, -1, 0.5, ... feed rcp(0) = rsq(0) = FLT_MAX,
log(0) = -FLT_MAX, rcp(1) = rsq(1) = 1, pow(x, 0) = 1, pow(0, y > 0) = 0,
nrm(0) = 0, and anything × 0 = 0 (legacy multiply) with a ±FLT_MAX
operand.  ±FLT_MAX values only flow into mov, min, max, cmp's selected
operands, saturate and products with an exact 0, so they never turn into
∞ or NaN.  Negative zero is never produced deliberately (the sign of
rcp(-0) is driver-dependent, §7.1).

Other choices: ``mova`` may round exact .5 ties (the reference rounds half
to even; ``GenOptions.mova_ties=False`` avoids them); ``_pp`` and
``_centroid`` appear as hints; sm2 ``sincos`` never leaves a component it
made undefined readable; oPts is never written (its clamp is render
state) and oFog / oDepth are written saturated.
"""

from __future__ import annotations

import math
import random
import struct
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from ..bytecode.disasm import disassemble
from ..bytecode.model import (
    Declaration,
    DestOperand,
    Instruction,
    RelativeAddress,
    Shader,
    SourceOperand,
)
from ..bytecode.tables import (
    IDENTITY_SWIZZLE,
    OPCODES,
    OUTPUT,
    TEXTURE,
    Comparison,
    DeclUsage,
    DstMod,
    Opcode,
    RegisterType,
    SamplerType,
    ShaderVersion,
    SrcMod,
    TexControl,
    make_swizzle,
    replicate_swizzle,
    swizzle_components,
)
from .reference import ReferenceConstants, Result, run_shader
from .textures import SamplerState, Texture

R = RegisterType
O = Opcode

VERSIONS = ("vs_2_0", "vs_2_x", "vs_3_0", "ps_2_0", "ps_2_x", "ps_3_0")
# Shader model 1 programs (vs_1_1: no flow control, no _sat, mov a0.x, the
# 4-component expp, frc on .y/.xy), kept apart from VERSIONS so that the
# programs a seed gives for those stay what they were.
SM1_VERSIONS = ("vs_1_1",)
# ps_1_1-ps_1_4: generated by ``generate_sm1`` (texture registers and ops,
# ps_1_x modifiers and shifts, co-issue, ps_1_4 phases).
PS1_VERSIONS = ("ps_1_1", "ps_1_2", "ps_1_3", "ps_1_4")
ALL_VERSIONS = VERSIONS + SM1_VERSIONS + PS1_VERSIONS

FLT_MAX = float(np.finfo(np.float32).max)
MAX_MAGNITUDE = 4096.0
EXACT_UNITS = float(2**24)
U_BASIC = 2.0**-23
U_RCP = 2.0**-21
U_TRANS = 2.0**-18
TEX_LINEAR_ERR = 2.0**-8
TEX_CUBE_ERR = 2.0**-5
TEX_SRGB_ERR = 2.0**-16  # an sRGB-decoded point sample: pow's error (2**-18 relative) and the curve's slope
ERR_LIMIT = 2.0**-4  # reject results whose error bound exceeds this · max(1, |v|)

UNIFORM, AFFINE, HALF, SPECIAL = 1, 2, 4, 8

SINCOS_CONST1 = (-1.5500992e-6, -2.1701389e-5, 0.0026041667, 0.00026041668)
SINCOS_CONST2 = (-0.020833334, -0.125, 1.0, 0.5)

QUAD_GRID_WIDTH = 4  # pixels per row of the lane grid (2 quads)


class Reject(Exception):
    """A proposed instruction (or block) is not well-defined here."""


# --------------------------------------------------------------------------
# Abstract values
# --------------------------------------------------------------------------

# AV = (lo, hi, d, err, flags); d >= 0: exact multiple of 2**-d.


def _mk(lo: float, hi: float, d: int, err: float, fl: int, u: float = U_BASIC) -> tuple:
    m = max(abs(lo), abs(hi))
    if fl & SPECIAL:
        if m < FLT_MAX:
            fl &= ~SPECIAL
        return (lo, hi, d, err, fl)
    if not (m <= MAX_MAGNITUDE):
        raise Reject("magnitude")
    if d >= 0 and (m * 2.0**d >= EXACT_UNITS or d > 60):
        d = -1
    if d < 0:
        fl &= ~HALF
        err = err + m * u
        if err > ERR_LIMIT * max(1.0, m):
            raise Reject("error bound")
    return (lo, hi, d, err, fl)


def av_exact(value: float, fl: int = UNIFORM | AFFINE) -> tuple:
    if abs(value) >= FLT_MAX:
        return (value, value, 0, 0.0, fl | SPECIAL)
    fr = Fraction(value)
    d = max(0, fr.denominator.bit_length() - 1)
    return (value, value, d, 0.0, fl)


ZERO = av_exact(0.0)


def _exact(a) -> bool:
    return a[2] >= 0


def _mag(a) -> float:
    return max(abs(a[0]), abs(a[1]))


def _is_zero(a) -> bool:
    return a[0] == 0.0 and a[1] == 0.0 and a[2] >= 0


def _nospecial(*avs):
    for a in avs:
        if a[4] & SPECIAL:
            raise Reject("special operand")


def av_neg(a):
    return (-a[1], -a[0], a[2], a[3], a[4])


def av_abs(a):
    lo, hi = a[0], a[1]
    fl = a[4]
    if lo >= 0:
        return a
    if hi <= 0:
        return av_neg(a)
    fl &= ~AFFINE if not fl & UNIFORM else ~0
    return (0.0, max(-lo, hi), a[2], a[3], fl)


def _fl2(a, b, mul=False):
    fa, fb = a[4], b[4]
    fl = fa & fb & UNIFORM
    if mul:
        if (fa & AFFINE and fb & UNIFORM) or (fb & AFFINE and fa & UNIFORM):
            fl |= AFFINE
    elif fa & fb & AFFINE:
        fl |= AFFINE
    return fl


def av_add(a, b):
    _nospecial(a, b)
    d = max(a[2], b[2]) if _exact(a) and _exact(b) else -1
    return _mk(a[0] + b[0], a[1] + b[1], d, a[3] + b[3], _fl2(a, b))


def av_sub(a, b):
    return av_add(a, av_neg(b))


def av_mul(a, b):
    if _is_zero(a) or _is_zero(b):  # legacy multiply: 0 · anything = 0 (§7.2)
        fl = (a if _is_zero(a) else b)[4] & (UNIFORM | AFFINE) | AFFINE * bool(_fl2(a, b, True) & AFFINE)
        return (0.0, 0.0, 0, 0.0, fl | (UNIFORM if (_is_zero(a) and a[4] & UNIFORM) or (_is_zero(b) and b[4] & UNIFORM) else 0))
    _nospecial(a, b)
    c = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
    d = a[2] + b[2] if _exact(a) and _exact(b) else -1
    err = _mag(a) * b[3] + _mag(b) * a[3] + a[3] * b[3]
    return _mk(min(c), max(c), d, err, _fl2(a, b, True))


def av_join(a, b, divergent=False):
    if a is None or b is None:
        return None
    if a is b:
        return a
    if a == b:
        return a
    d = max(a[2], b[2]) if _exact(a) and _exact(b) else -1
    fl = a[4] & b[4] & ~SPECIAL | ((a[4] | b[4]) & SPECIAL)
    if divergent:
        fl &= ~(UNIFORM | AFFINE)
    lo, hi = min(a[0], b[0]), max(a[1], b[1])
    err = max(a[3], b[3])
    if d >= 0 and not fl & SPECIAL and max(abs(lo), abs(hi)) * 2.0**d >= EXACT_UNITS:
        d = -1
    if d < 0:
        fl &= ~HALF
    return (lo, hi, d, err, fl)


def av_minmax(a, b, is_max):
    if a[4] & SPECIAL or b[4] & SPECIAL:
        # ±FLT_MAX against a bounded value: the choice is decided
        for x, y in ((a, b), (b, a)):
            if x[4] & SPECIAL and x[0] == x[1] and not y[4] & SPECIAL:
                big = x[0] > 0
                return x if big == is_max else y
        raise Reject("special minmax")
    lo = max(a[0], b[0]) if is_max else min(a[0], b[0])
    hi = max(a[1], b[1]) if is_max else min(a[1], b[1])
    d = max(a[2], b[2]) if _exact(a) and _exact(b) else -1
    fl = a[4] & b[4] & (UNIFORM | HALF)
    if d < 0:
        fl &= ~HALF
    return (lo, hi, d, max(a[3], b[3]), fl)


def _decided(a, b, cmp) -> bool | None:
    """The comparison's outcome if the intervals (with error margins)
    decide it for every invocation, else None."""
    alo, ahi = a[0] - a[3], a[1] + a[3]
    blo, bhi = b[0] - b[3], b[1] + b[3]
    margin = 1e-6
    if cmp in (Comparison.GT, Comparison.GE):
        if alo > bhi + margin:
            return True
        if ahi < blo - margin:
            return False
    elif cmp in (Comparison.LT, Comparison.LE):
        if ahi < blo - margin:
            return True
        if alo > bhi + margin:
            return False
    elif cmp in (Comparison.EQ, Comparison.NE):
        if ahi < blo - margin or alo > bhi + margin:
            return cmp == Comparison.NE
    return None


def _compare_const(a, b, cmp) -> bool | None:
    if a[0] == a[1] and b[0] == b[1] and _exact(a) and _exact(b):
        x, y = a[0], b[0]
        return {Comparison.GT: x > y, Comparison.EQ: x == y, Comparison.GE: x >= y,
                Comparison.LT: x < y, Comparison.NE: x != y, Comparison.LE: x <= y}[cmp]
    return None


def av_compare(a, b, cmp):
    """A 0/1 result of a comparison; operands must be exact or decided."""
    fl = _fl2(a, b) & UNIFORM
    known = _compare_const(a, b, cmp)
    if known is None:
        known = _decided(a, b, cmp)
    if known is not None:
        v = float(known)
        return (v, v, 0, 0.0, fl | (AFFINE if fl & UNIFORM else 0))
    if not (_exact(a) and _exact(b)):
        raise Reject("inexact comparison")
    return (0.0, 1.0, 0, 0.0, fl)


def av_select(cond, if_true, if_false):
    """cond is a 0/1 AV."""
    if cond[0] == cond[1]:
        return if_true if cond[0] else if_false
    return av_join(if_true, if_false, divergent=not cond[4] & UNIFORM)


def av_cmp_zero(a):
    """0/1 AV of a >= 0 (cmp's selector)."""
    return av_compare(a, ZERO, Comparison.GE)


def av_frc(a):
    _nospecial(a)
    if _exact(a):
        fl = a[4] & UNIFORM
        if math.floor(a[0]) == math.floor(a[1]):
            k = math.floor(a[0])
            return (a[0] - k, a[1] - k, a[2], 0.0, a[4] & (UNIFORM | AFFINE))
        return (0.0, 1.0 - 2.0**-a[2] if a[2] < 30 else 1.0, a[2], 0.0, fl)
    k = math.floor(a[0] - a[3])
    if math.floor(a[1] + a[3]) != k or a[0] - a[3] - k < 1e-5 or k + 1 - (a[1] + a[3]) < 1e-5:
        raise Reject("inexact frc across an integer")
    return _mk(a[0] - k, a[1] - k, -1, a[3], a[4] & (UNIFORM | AFFINE))


def av_sgn(a):
    neg = av_compare(a, ZERO, Comparison.LT)
    pos = av_compare(a, ZERO, Comparison.GT)
    lo = -1.0 if neg[1] else (0.0 if pos[0] == 0 else 1.0)
    hi = 1.0 if pos[1] else (0.0 if neg[0] == 0 else -1.0)
    return (lo, hi, 0, 0.0, neg[4] & pos[4])


def _away_from_zero(a, limit):
    """min |x| over the interval (with error), or raise when it may be < limit."""
    lo, hi, e = a[0] - a[3], a[1] + a[3], a[3]
    if lo >= limit:
        return lo, hi
    if hi <= -limit:
        return -hi, -lo
    raise Reject("operand near zero")


def av_rcp(a, src_is_def_zero=False):
    if _is_zero(a):
        if not src_is_def_zero:
            raise Reject("computed zero into rcp")
        return (FLT_MAX, FLT_MAX, 0, 0.0, UNIFORM | AFFINE | SPECIAL)
    _nospecial(a)
    if a[0] == a[1] == 1.0 and _exact(a):
        return av_exact(1.0, a[4])
    mn, mx = _away_from_zero(a, 2.0**-5)
    vals = (1 / a[0], 1 / a[1])
    err = a[3] / (mn * mn)
    return _mk(min(vals), max(vals), -1, err, a[4] & UNIFORM, U_RCP)


def av_rsq(a, is_zero_ok=False):
    x = av_abs(a)
    if _is_zero(x):
        if not is_zero_ok:
            raise Reject("computed zero into rsq")
        return (FLT_MAX, FLT_MAX, 0, 0.0, UNIFORM | AFFINE | SPECIAL)
    _nospecial(x)
    if x[0] == x[1] == 1.0 and _exact(x):
        return av_exact(1.0, x[4])
    mn, mx = _away_from_zero(x, 2.0**-5)
    err = 0.5 * x[3] / mn**1.5
    return _mk(1 / math.sqrt(mx), 1 / math.sqrt(mn), -1, err, x[4] & UNIFORM, U_RCP)


def av_log(a, is_zero_ok=False):
    x = av_abs(a)
    if _is_zero(x):
        if not is_zero_ok:
            raise Reject("computed zero into log")
        return (-FLT_MAX, -FLT_MAX, 0, 0.0, UNIFORM | AFFINE | SPECIAL)
    _nospecial(x)
    mn, mx = _away_from_zero(x, 2.0**-5)
    err = x[3] / mn / math.log(2)
    lo, hi = math.log2(mn), math.log2(mx)
    return _mk(lo, hi, -1, err + U_TRANS, x[4] & UNIFORM, U_TRANS)


def av_exp(a):
    _nospecial(a)
    lo, hi = a[0] - a[3], a[1] + a[3]
    if lo < -14 or hi > 11:
        raise Reject("exp range")
    r_hi = 2.0**hi
    err = r_hi * math.log(2) * a[3]
    return _mk(2.0**a[0], 2.0**a[1], -1, err + r_hi * U_TRANS, a[4] & UNIFORM, U_TRANS)


def av_pow(base, e, base_is_def=False):
    if _is_zero(e):
        return av_exact(1.0, e[4] & base[4] | (e[4] & UNIFORM and base[4] & UNIFORM))
    b = av_abs(base)
    if _is_zero(b):
        if _exact(e) and e[0] > 0:
            return av_exact(0.0, b[4] & e[4])
        raise Reject("pow(0, y)")
    _nospecial(b, e)
    mn, mx = _away_from_zero(b, 2.0**-4)
    if mx > 16 or e[0] - e[3] < -4 or e[1] + e[3] > 4:
        raise Reject("pow range")
    corners = [x**y for x in (mn, mx) for y in (e[0], e[1])]
    if e[0] < 0 < e[1]:
        corners.append(1.0)
    hi = max(corners)
    lb = max(abs(math.log(mn)), abs(math.log(mx)))
    err = hi * (lb * e[3] + max(abs(e[0]), abs(e[1])) * b[3] / mn) + hi * U_TRANS
    return _mk(min(corners), hi, -1, err, b[4] & e[4] & UNIFORM, U_TRANS)


def av_trig(a):
    _nospecial(a)
    if a[0] - a[3] < -3.14 or a[1] + a[3] > 3.14:
        raise Reject("sincos range")
    return _mk(-1.0, 1.0, -1, a[3] + U_TRANS, a[4] & UNIFORM, U_TRANS)


def av_dot(xs, ys):
    acc = None
    for x, y in zip(xs, ys):
        p = av_mul(x, y)
        acc = p if acc is None else av_add(acc, p)
    return acc


def av_sat(a):
    lo, hi = min(max(a[0], 0.0), 1.0), min(max(a[1], 0.0), 1.0)
    fl = a[4] & ~(SPECIAL | HALF)
    if lo != hi and not (a[0] >= 0.0 and a[1] <= 1.0):
        # The clamp may bite inside a 2x2 quad: the value is no longer affine
        # in the pixel position, so coarse and fine derivatives of it differ.
        fl &= ~AFFINE
    if lo == hi and (a[4] & SPECIAL or _exact(a)):
        return (lo, hi, 0, 0.0, fl)
    return (lo, hi, a[2], a[3], fl)


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


class State:
    __slots__ = ("regs", "p0", "a0", "uniform", "killed", "aL")

    def __init__(self):
        self.regs: dict[tuple[int, int], tuple] = {}
        self.p0 = (None,) * 4
        self.a0 = (None,) * 4
        self.uniform = True
        self.killed = False
        self.aL: tuple[int, ...] | None = None

    def copy(self) -> "State":
        s = State.__new__(State)
        s.regs = dict(self.regs)
        s.p0, s.a0, s.uniform, s.killed, s.aL = self.p0, self.a0, self.uniform, self.killed, self.aL
        return s


def _join_regs(a: tuple, b: tuple, divergent: bool) -> tuple:
    return tuple(av_join(x, y, divergent) for x, y in zip(a, b))


def join_states(states: list, divergent: bool) -> State | None:
    live = [s for s in states if s is not None]
    if not live:
        return None
    out = live[0].copy()
    for s in live[1:]:
        keys = set(out.regs) | set(s.regs)
        none4 = (None,) * 4
        out.regs = {k: _join_regs(out.regs.get(k, none4), s.regs.get(k, none4), divergent) for k in keys}
        out.p0 = _join_regs(out.p0, s.p0, divergent)
        out.a0 = _join_regs(out.a0, s.a0, divergent)
        out.killed = out.killed or s.killed
    return out


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


# --------------------------------------------------------------------------
# The abstract interpreter (also the generator's checker)
# --------------------------------------------------------------------------


class _Interp:
    def __init__(self, gen: "_Generator"):
        self.g = gen
        self.breaks: list[list] = []

    # -- reading --------------------------------------------------------------

    def reg_values(self, st: State, rtype: int, index: int) -> tuple:
        g = self.g
        if rtype in (R.TEMP,) or g.is_output_type(rtype):
            return st.regs.get((rtype, index), (None,) * 4)
        if rtype == R.CONST:
            return g.const_av(index)
        if rtype in (R.INPUT, R.MISCTYPE) or (rtype == TEXTURE and g.pixel):
            return g.input_avs.get((rtype, index), (None,) * 4)
        raise Reject(f"unreadable register type {rtype}")

    def fetch(self, st: State, src: SourceOperand, delta: int = 0) -> tuple:
        index = src.index + delta
        rel = src.relative
        if rel is None:
            return self.reg_values(st, src.type, index)
        if rel.type == R.LOOP:
            if st.aL is None:
                raise Reject("aL outside a loop")
            offsets = list(st.aL)
            divergent = False
        else:
            a = st.a0[rel.component]
            if a is None:
                raise Reject("a0 not written")
            lo, hi = int(a[0]), int(a[1])
            if hi - lo > 48:
                raise Reject("a0 range too wide")
            offsets = list(range(lo, hi + 1))
            divergent = not a[4] & UNIFORM
        if src.type == R.CONST:
            limit = self.g.const_count
            allow_oob = True
        else:
            limit = 16 if self.g.vertex else 10
            allow_oob = False
        out = None
        for off in offsets:
            k = index + off
            if 0 <= k < limit:
                vals = self.reg_values(st, src.type, k)
            elif allow_oob:
                vals = (ZERO,) * 4
            else:
                raise Reject("relative input index out of range")
            out = vals if out is None else _join_regs(out, vals, divergent)
        return out

    def read(self, st: State, src: SourceOperand, slots, delta: int = 0) -> list:
        vals = self.fetch(st, src, delta)
        comps = swizzle_components(src.swizzle)
        out = []
        for s in slots:
            a = vals[comps[s]]
            if a is None:
                raise Reject("read of an unwritten component")
            m = src.modifier
            if m == SrcMod.NEG:
                a = av_neg(a)
            elif m == SrcMod.ABS:
                a = av_abs(a)
            elif m == SrcMod.ABSNEG:
                a = av_neg(av_abs(a))
            elif m != SrcMod.NONE:
                raise Reject("modifier")
            out.append(a)
        return out

    def def_zero_src(self, src: SourceOperand) -> bool:
        """A direct read of a def'd exact +0 (the deliberate special input)."""
        return src.type == R.CONST and src.relative is None and src.index in self.g.defs and src.modifier in (SrcMod.NONE, SrcMod.ABS)

    def pred_values(self, st: State, ins: Instruction, comps) -> list:
        p = ins.predicate
        sw = swizzle_components(p.swizzle)
        out = []
        for c in comps:
            v = st.p0[sw[c]]
            if v is None:
                raise Reject("p0 not written")
            if p.modifier == SrcMod.NOT:
                v = (1.0 - v[1], 1.0 - v[0], 0, 0.0, v[4])
            out.append(v)
        return out

    def condition(self, st: State, src: SourceOperand):
        """0/1 AV of if/callnz/breakp conditions."""
        if src.type == R.CONSTBOOL:
            v = self.g.bool_av(src.index)
        elif src.type == R.PREDICATE:
            v = st.p0[swizzle_components(src.swizzle)[0]]
            if v is None:
                raise Reject("p0 not written")
        else:
            raise Reject("condition register")
        if src.modifier == SrcMod.NOT:
            v = (1.0 - v[1], 1.0 - v[0], 0, 0.0, v[4])
        return v

    # -- writing ---------------------------------------------------------------

    def write(self, st: State, ins: Instruction, values: dict):
        dst = ins.dst
        if dst.saturate:
            values = {c: av_sat(v) for c, v in values.items()}
        for c, v in values.items():
            if v[4] & SPECIAL and ins.opcode not in (O.MOV, O.MIN, O.MAX, O.CMP):
                if not dst.saturate:
                    raise Reject("special result")
        if ins.predicate is not None:
            preds = self.pred_values(st, ins, list(values))
        else:
            preds = None
        rtype = dst.type
        if rtype == R.PREDICATE:
            old = st.p0
        elif rtype == R.ADDR and self.g.vertex:
            old = st.a0
        else:
            if dst.relative is not None:
                return self.write_relative(st, ins, values)
            old = st.regs.get((rtype, dst.index), (None,) * 4)
        new = list(old)
        for i, (c, v) in enumerate(values.items()):
            if preds is not None:
                p = preds[i]
                if p[0] == p[1]:
                    new[c] = v if p[0] else old[c]
                else:
                    new[c] = av_join(old[c], v, divergent=not p[4] & UNIFORM)
            else:
                new[c] = v
        new = tuple(new)
        if rtype == R.PREDICATE:
            st.p0 = new
        elif rtype == R.ADDR and self.g.vertex:
            st.a0 = new
        else:
            st.regs[(rtype, dst.index)] = new

    def expp_sm1(self, st: State, src, comps) -> dict:
        """vs_1_1 expp of the replicated scalar s: (2^floor(s), s - floor(s),
        2^s, 1) (D3D9_SEMANTICS §2.2).  floor(s) must be decided over the
        interval, or s exact (then 2^floor(s) is an exact power of two)."""
        a = self.read(st, src, [SCALAR_SLOT])[0]
        _nospecial(a)
        lo, hi = math.floor(a[0] - a[3]), math.floor(a[1] + a[3])
        if not _exact(a) and (lo != hi or a[0] - a[3] - lo < 1e-5):
            raise Reject("inexact expp across an integer")
        flo, fhi = math.floor(a[0]), math.floor(a[1])
        if flo < -14 or fhi > 11:
            raise Reject("expp range")
        out = {0: (2.0**flo, 2.0**fhi, max(0, -flo), 0.0, a[4] & UNIFORM), 1: av_frc(a), 2: av_exp(a),
               3: av_exact(1.0)}
        return {c: out[c] for c in comps}

    def write_relative(self, st: State, ins: Instruction, values: dict):
        # o[aL + n] (vs_3_0): every reached output may or may not be written
        if st.aL is None:
            raise Reject("aL outside a loop")
        for off in set(st.aL):
            k = ins.dst.index + off
            if not (0 <= k < 12) or (R.TEXCRDOUT, k) not in self.g.output_masks:
                raise Reject("relative output out of range")
            mask = self.g.output_masks[(R.TEXCRDOUT, k)]
            if any(not mask >> c & 1 for c in values):
                raise Reject("relative output component not declared")
            old = st.regs.get((R.TEXCRDOUT, k), (None,) * 4)
            new = list(old)
            for c, v in values.items():
                new[c] = v if len(st.aL) == 1 and ins.predicate is None else av_join(old[c], v)
            st.regs[(R.TEXCRDOUT, k)] = tuple(new)

    # -- instructions ------------------------------------------------------------

    def op(self, st: State, ins: Instruction) -> State | None:
        op = ins.opcode
        g = self.g
        if op in (O.BREAK, O.BREAKC, O.BREAKP):
            return self.op_break(st, ins)
        if op in (O.CALL, O.CALLNZ):
            return self.op_call(st, ins)
        if op == O.TEXKILL:
            d = ins.dst
            vals = self.reg_values(st, d.type, d.index)
            for v in vals:
                if v is None:
                    raise Reject("texkill of an unwritten component")
                av_compare(v, ZERO, Comparison.LT)
            if ins.predicate is not None:
                self.pred_values(st, ins, [0])
            st.killed = True
            return st
        if ins.dst is None:
            raise Reject("unexpected instruction")
        if ins.dst.type == R.TEMP and ins.dst.index >= g.ntemps:
            raise Reject("temp out of range")
        mask = ins.dst.write_mask
        comps = _mask_comps(mask)
        s = ins.srcs
        res: dict[int, tuple] = {}
        if op == O.MOV and ins.dst.type == R.ADDR and g.sm1 and g.vertex:  # (ps_1_x t# share the number)
            # vs_1_1 mov a0.x: floor (D3D9_SEMANTICS §2.9), decided over the interval
            x = self.read(st, s[0], comps)[0]
            _nospecial(x)
            k, k_hi = math.floor(x[0] - x[3]), math.floor(x[1] + x[3])
            if not _exact(x) and (k != k_hi or x[0] - x[3] - k < 1e-5):
                raise Reject("inexact mov a0 across an integer")
            res[0] = (float(math.floor(x[0])), float(math.floor(x[1])), 0, 0.0, x[4] & UNIFORM)
        elif op == O.EXPP and g.sm1:
            res = self.expp_sm1(st, s[0], comps)
        elif op in PER_COMPONENT:
            if op in (O.DSX, O.DSY):
                self.need_derivatives(st)
            args = [self.read(st, x, comps) for x in (s[:1] if op == O.SGN else s)]
            if op not in SPECIAL_OK:
                for a in args:
                    _nospecial(*a)
            for i, c in enumerate(comps):
                a = [x[i] for x in args]
                res[c] = self.per_component(op, a)
        elif op in (O.DP3, O.DP4):
            k = 3 if op == O.DP3 else 4
            x, y = (self.read(st, v, range(k)) for v in s)
            r = av_dot(x, y)
            res = {c: r for c in comps}
        elif op == O.DP2ADD:
            x, y = (self.read(st, v, range(2)) for v in s[:2])
            z = self.read(st, s[2], [0])[0]
            r = av_add(av_dot(x, y), z)
            res = {c: r for c in comps}
        elif op in SCALAR_OPS:
            a = self.read(st, s[0], [SCALAR_SLOT])[0]
            zero_ok = self.def_zero_src(s[0])
            if op == O.RCP:
                r = av_rcp(a, zero_ok)
            elif op == O.RSQ:
                r = av_rsq(a, zero_ok)
            elif op in (O.LOG, O.LOGP):
                r = av_log(a, zero_ok)
            elif op in (O.EXP, O.EXPP):
                r = av_exp(a)
            else:
                r = av_pow(a, self.read(st, s[1], [SCALAR_SLOT])[0])
            res = {c: r for c in comps}
        elif op == O.NRM:
            need = sorted(set(range(3)) | set(comps))
            vals = dict(zip(need, self.read(st, s[0], need)))
            xyz = [vals[i] for i in range(3)]
            if all(_is_zero(v) for v in xyz):
                for c in comps:
                    if c < 3:
                        res[c] = ZERO
                    elif _is_zero(vals[3]):
                        res[c] = ZERO
                    else:
                        raise Reject("nrm(0).w")
            else:
                _nospecial(*vals.values())
                l2 = av_dot(xyz, xyz)
                mn, mx = _away_from_zero(l2, 2.0**-6)
                inv = _mk(1 / math.sqrt(mx), 1 / math.sqrt(mn), -1, 0.5 * l2[3] / mn**1.5, l2[4] & UNIFORM, U_RCP)
                for c in comps:
                    v = av_mul(vals[c], inv)
                    if c < 3:
                        v = (max(v[0], -1.0), min(v[1], 1.0), v[2], v[3], v[4])
                    res[c] = v
        elif op == O.CRS:
            a = self.read(st, s[0], range(3))
            b = self.read(st, s[1], range(3))
            for c in comps:
                if c < 3:
                    i, j = (c + 1) % 3, (c + 2) % 3
                    res[c] = av_sub(av_mul(a[i], b[j]), av_mul(a[j], b[i]))
        elif op == O.LIT:
            x, y, w = self.read(st, s[0], [0, 1, 3])
            _nospecial(x, y, w)
            xpos = av_compare(x, ZERO, Comparison.GT)
            ypos = av_compare(y, ZERO, Comparison.GT)
            for c in comps:
                if c in (0, 3):
                    res[c] = av_exact(1.0)
                elif c == 1:
                    res[c] = av_select(xpos, x, ZERO) if xpos[0] != xpos[1] else (x if xpos[0] else ZERO)
                else:
                    both = av_mul(xpos, ypos)
                    if both[1] == 0 or y[1] <= 0 or x[1] <= 0:
                        res[c] = ZERO
                        continue
                    p = (max(w[0], -127.9961), min(w[1], 127.9961), w[2], w[3], w[4])
                    ymin = y[0] if y[0] > 0 else 2.0**-y[2]
                    ypart = (max(ymin, 0.0), y[1], y[2], y[3], y[4])
                    pw = av_pow(ypart, p)
                    res[c] = av_select(both, pw, ZERO)
        elif op == O.DST:
            a = self.read(st, s[0], [1, 2])
            b = self.read(st, s[1], [1, 3])
            full = {0: av_exact(1.0), 1: av_mul(a[0], b[0]), 2: a[1], 3: b[1]}
            res = {c: full[c] for c in comps}
        elif op == O.SINCOS:
            a = self.read(st, s[0], [SCALAR_SLOT])[0]
            t = av_trig(a)
            res = {c: t for c in comps if c < 2}
            if g.version.major < 3:  # §2.4: x, y, z outside the mask are undefined afterwards
                old = list(st.regs.get((ins.dst.type, ins.dst.index), (None,) * 4))
                for c in range(3):
                    if c not in res:
                        old[c] = None
                st.regs[(ins.dst.type, ins.dst.index)] = tuple(old)
        elif op in MATRIX_SHAPE:
            rows, width = MATRIX_SHAPE[op]
            v = self.read(st, s[0], range(width))
            for c in comps:
                if c < rows:
                    res[c] = av_dot(v, self.read(st, s[1], range(width), delta=c))
        elif op == O.MOVA:
            a = self.read(st, s[0], comps)
            for i, c in enumerate(comps):
                x = a[i]
                _nospecial(x)
                if not _exact(x):
                    k = round(x[0])
                    if not (k - 0.5 + 1e-5 < x[0] - x[3] and x[1] + x[3] < k + 0.5 - 1e-5):
                        raise Reject("inexact mova")
                    res[c] = (float(k), float(k), 0, 0.0, x[4] & UNIFORM)
                    continue
                if not g.opts.mova_ties and x[2] > 0 and not x[4] & HALF:
                    raise Reject("mova tie")
                res[c] = (float(np.rint(x[0])), float(np.rint(x[1])), 0, 0.0, x[4] & UNIFORM)
        elif op == O.SETP:
            a = self.read(st, s[0], comps)
            b = self.read(st, s[1], comps)
            for i, c in enumerate(comps):
                res[c] = av_compare(a[i], b[i], ins.comparison)
        elif op in (O.TEX, O.TEXLDL, O.TEXLDD):
            r = self.texture(st, ins)
            res = {c: r for c in comps}
        else:
            raise Reject(f"no transfer for {op.name}")
        self.write(st, ins, res)
        if op == O.SGN and len(s) == 3:  # sm2 scratch registers are clobbered
            for x in s[1:]:
                st.regs[(x.type, x.index)] = (None,) * 4
        return st

    def per_component(self, op, a):
        if op == O.MOV:
            return a[0]
        if op == O.ADD:
            return av_add(a[0], a[1])
        if op == O.SUB:
            return av_sub(a[0], a[1])
        if op == O.MUL:
            return av_mul(a[0], a[1])
        if op == O.MAD:
            return av_add(av_mul(a[0], a[1]), a[2])
        if op in (O.MIN, O.MAX):
            return av_minmax(a[0], a[1], op == O.MAX)
        if op == O.SLT:
            return av_compare(a[0], a[1], Comparison.LT)
        if op == O.SGE:
            return av_compare(a[0], a[1], Comparison.GE)
        if op == O.FRC:
            return av_frc(a[0])
        if op == O.ABS:
            return av_abs(a[0])
        if op == O.SGN:
            return av_sgn(a[0])
        if op == O.LRP:
            s0, s1, s2 = a
            r1 = av_add(s2, av_mul(s0, av_sub(s1, s2)))
            r2 = av_add(av_mul(s2, av_sub(av_exact(1.0), s0)), av_mul(s1, s0))
            if _exact(r1) and _exact(r2):
                return av_join(r1, r2)
            j = av_join(r1, r2)
            return _mk(j[0], j[1], -1, r1[3] + r2[3], j[4])
        if op == O.CMP:
            return av_select(av_cmp_zero(a[0]), a[1], a[2])
        if op in (O.DSX, O.DSY):
            x = a[0]
            if not x[4] & AFFINE:
                raise Reject("derivative of a non-affine value")
            if x[4] & UNIFORM:
                return ZERO
            span = x[1] - x[0]
            return _mk(-span, span, x[2], 2 * x[3], AFFINE)
        raise Reject(op.name)

    def need_derivatives(self, st: State):
        if not self.g.pixel:
            return
        if not st.uniform or st.killed:
            raise Reject("derivative in non-uniform flow or after texkill")

    def texture(self, st: State, ins: Instruction):
        g = self.g
        coord_src, sampler = ins.srcs[0], ins.srcs[1]
        stype = g.samplers.get(sampler.index)
        if stype is None:
            raise Reject("undeclared sampler")
        role = g.roles[sampler.index]
        dims = _tex_dims(stype)
        op, ctrl = ins.opcode, ins.tex_control if ins.opcode == O.TEX else 0
        slots = list(range(dims))
        depth = role == "point" and sampler.index in g.opts.depth_samplers and stype == SamplerType.TEX2D
        if depth:
            slots.append(2)  # the depth-compare reference
        if op == O.TEXLDL or ctrl in (TexControl.PROJECT, TexControl.BIAS):
            slots.append(3)
        coord = self.read(st, coord_src, slots)
        _nospecial(*coord)
        implicit = op == O.TEX and g.pixel
        if implicit:
            self.need_derivatives(st)
        if op == O.TEXLDD:
            for x in ins.srcs[2:]:
                _nospecial(*self.read(st, x, range(dims)))
        if role == "point":
            if ctrl == TexControl.PROJECT:
                raise Reject("texldp on a point sampler")
            for v in coord[:dims + depth]:
                if not (v[4] & HALF):
                    raise Reject("point-sampled coordinate off the half grid")
            if sampler.index in g.opts.srgb_samplers and not depth:
                return _mk(0.0, 1.0, -1, TEX_SRGB_ERR, 0)
            return (0.0, 1.0, 4, 0.0, 0)
        err = 0.0
        for v in coord[:dims]:
            if _mag(v) > 16:
                raise Reject("coordinate range")
            err = max(err, v[3])
        if ctrl == TexControl.PROJECT:
            w = coord[dims]
            mn, mx = _away_from_zero(w, 0.25)
            for v in coord[:dims]:
                if _mag(v) / mn > 16:
                    raise Reject("projected coordinate range")
            err = (err + w[3] * 16) / mn
        if len(coord) > dims and ctrl != TexControl.PROJECT:
            lod = coord[dims]
            if _mag(lod) > 8:
                raise Reject("lod range")
            err += 0.25 * lod[3]
        if stype == SamplerType.CUBE:
            big = max(min(abs(v[0]), abs(v[1])) if v[0] * v[1] > 0 else 0.0 for v in coord[:3])
            if big < 0.25:
                raise Reject("cube direction may be short")
            return _mk(0.0, 1.0, -1, TEX_CUBE_ERR + 4 * err, 0)
        return _mk(0.0, 1.0, -1, TEX_LINEAR_ERR + 32 * err, 0)

    # -- flow ------------------------------------------------------------------------

    def op_break(self, st: State, ins: Instruction) -> State | None:
        if not self.breaks:
            raise Reject("break outside a loop")
        if ins.opcode == O.BREAK:
            cond = self.pred_values(st, ins, [0])[0] if ins.predicate is not None else av_exact(1.0)
        elif ins.opcode == O.BREAKP:
            cond = self.condition(st, ins.srcs[0])
        else:
            a = self.read(st, ins.srcs[0], [0])[0]
            b = self.read(st, ins.srcs[1], [0])[0]
            cond = av_compare(a, b, ins.comparison)
        if cond[1] == 0:
            return st
        self.breaks[-1].append(st.copy())
        if cond[0] == 1:
            return None  # every invocation left
        return st

    def op_call(self, st: State, ins: Instruction) -> State | None:
        label = ins.srcs[0].index
        fn = self.g.functions.get(label)
        if fn is None:
            raise Reject("call to an unknown label")
        cond = av_exact(1.0)
        if ins.opcode == O.CALLNZ:
            cond = self.condition(st, ins.srcs[1])
        if ins.predicate is not None:
            p = self.pred_values(st, ins, [0])[0]
            cond = av_mul(cond, p) if not (_is_zero(cond) or _is_zero(p)) else ZERO
        if cond[1] == 0:
            return st
        inner = st.copy()
        divergent = cond[0] != cond[1] and not cond[4] & UNIFORM
        inner.uniform = st.uniform and not divergent
        inner.aL = None
        saved = self.breaks
        self.breaks = []
        try:
            out = self.block(inner, fn.nodes)
        finally:
            self.breaks = saved
        out.uniform = st.uniform
        out.aL = st.aL
        if cond[0] == 1:
            return out
        j = join_states([st, out], divergent)
        j.uniform, j.aL = st.uniform, st.aL
        return j

    def node(self, st: State, node: Node) -> State | None:
        if node.kind == "op" or node.kind == "call":
            return self.op(st, node.ins)
        if node.kind == "if":
            ins = node.ins
            if ins.opcode == O.IF:
                cond = self.condition(st, ins.srcs[0])
            else:
                a = self.read(st, ins.srcs[0], [0])[0]
                b = self.read(st, ins.srcs[1], [0])[0]
                cond = av_compare(a, b, ins.comparison)
            divergent = cond[0] != cond[1] and not cond[4] & UNIFORM
            t = st.copy()
            t.uniform = st.uniform and not divergent
            e = t.copy()
            t = self.block(t, node.body) if cond[1] != 0 else None
            e = self.block(e, node.orelse or []) if cond[0] != 1 else None
            out = join_states([t, e], divergent)
            if out is not None:
                out.uniform = st.uniform
            return out
        if node.kind == "loop":
            out = self.loop(st, node)
            written = getattr(node, "written", None)
            if written and out is not None:
                # every aL value is visited, no break, no predicate: the
                # o[aL + n] writes are definite (the body is one mov of a
                # register the loop does not change).
                src = node.body[0].ins.srcs[0]
                vals = tuple(self.read(st, src, range(4)))
                for key in written:
                    out.regs[key] = vals
            return out
        raise AssertionError(node.kind)

    def loop(self, st: State, node: Node) -> State | None:
        ins = node.ins
        cmin, cmax, aL_values = self.g.loop_info(ins)
        has_break = _has_break(node.body)
        entry = st
        exits = [entry] if cmin == 0 else []
        self.breaks.append([])
        cur = st
        try:
            for k in range(cmax):
                s = cur.copy()
                s.uniform = st.uniform and not has_break
                if aL_values is not None:
                    s.aL = aL_values
                s = self.block(s, node.body)
                if s is None:
                    break
                s.aL = st.aL
                if k + 1 >= cmin:
                    exits.append(s)
                cur = s
        finally:
            brk = self.breaks.pop()
        for b in brk:
            b.aL = st.aL
        out = join_states(exits + brk, divergent=has_break)
        if out is not None:
            out.uniform = st.uniform
            out.aL = st.aL
        return out

    def block(self, st: State | None, nodes: list) -> State | None:
        for n in nodes:
            if st is None:
                return None
            st = self.node(st, n)
        return st


def _has_break(nodes: list) -> bool:
    for n in nodes:
        if n.kind == "op" and n.ins.opcode in (O.BREAK, O.BREAKC, O.BREAKP):
            return True
        if n.kind == "if" and (_has_break(n.body) or _has_break(n.orelse or [])):
            return True
    return False


# --------------------------------------------------------------------------
# The generator
# --------------------------------------------------------------------------


def _halfgrid_av(lo: float, hi: float, fl: int) -> tuple:
    return (lo, hi, 5, 0.0, fl | HALF)


VS_USAGES = [(DeclUsage.NORMAL, 0), (DeclUsage.TEXCOORD, 0), (DeclUsage.TEXCOORD, 1), (DeclUsage.TEXCOORD, 2),
             (DeclUsage.COLOR, 0), (DeclUsage.COLOR, 1), (DeclUsage.TANGENT, 0), (DeclUsage.BLENDWEIGHT, 0),
             (DeclUsage.BINORMAL, 0), (DeclUsage.TEXCOORD, 3)]
PS3_USAGES = [(DeclUsage.TEXCOORD, i) for i in range(8)] + [(DeclUsage.COLOR, 0), (DeclUsage.COLOR, 1),
                                                             (DeclUsage.NORMAL, 0), (DeclUsage.TANGENT, 0)]


class _Generator:
    def __init__(self, rng, version: ShaderVersion, opts: GenOptions):
        self.rng = rng
        self.version = v = version
        self.opts = opts
        self.vertex = v.is_vertex
        self.pixel = v.is_pixel
        self.sm3 = v.major >= 3
        self.sm2x = v.at_least(2, 1)
        self.sm1 = v.major < 2
        # ps_2_0 and vs_1_1 have no flow control; vs_1_1 has no _sat (fxc uses it in vs_3_0 only)
        self.flow = not (self.pixel and not self.sm2x) and not self.sm1
        self.sat_ok = not (self.vertex and self.sm1)
        self.dynamic = self.sm2x  # ifc, break*, setp, predication
        self.ntemps = 16 if self.sm3 else 12
        if self.vertex:
            self.const_count = 256 if v.major >= 2 else 96
        else:
            self.const_count = 224 if self.sm3 else 32
        self.const_window = min(self.const_count, 48)
        self.max_loop_depth = 1 if v.minor == 0 and v.major == 2 else 2
        self.max_call_depth = 1 if v.minor == 0 and v.major == 2 else 2
        self.abs_ok = self.pixel or self.sm3
        self.interp = _Interp(self)
        self.functions: dict[int, Function] = {}
        self.defs: dict[int, tuple[float, ...]] = {}
        self.defis: dict[int, tuple[int, int, int, int]] = {}
        self.defbs: dict[int, bool] = {}
        self.input_avs: dict[tuple[int, int], tuple] = {}
        self.inputs: list[InputInfo] = []
        self.output_masks: dict[tuple[int, int], int] = {}
        self.output_decls: list[Instruction] = []
        self.samplers: dict[int, int] = {}
        self.roles: dict[int, str] = {}
        self.budget = 0
        self.sincos_consts: tuple[int, int] | None = None
        self.last_written: list[tuple[int, int]] = []

    # -- static registers -------------------------------------------------------

    def is_output_type(self, rtype) -> bool:
        if self.vertex:
            return rtype in (R.RASTOUT, R.ATTROUT, R.TEXCRDOUT)
        return rtype in (R.COLOROUT, R.DEPTHOUT)

    def const_av(self, index: int) -> tuple:
        if index in self.defs:
            return tuple(av_exact(x) for x in self.defs[index])
        if 0 <= index < self.const_count:
            return (_halfgrid_av(-2.0, 2.0, UNIFORM | AFFINE),) * 4
        return (ZERO,) * 4

    def bool_av(self, index: int) -> tuple:
        if index in self.defbs:
            return av_exact(float(self.defbs[index]))
        return (0.0, 1.0, 0, 0.0, UNIFORM)

    def loop_info(self, ins: Instruction):
        """(min trips, max trips, aL values or None)."""
        ireg = ins.srcs[1] if ins.opcode == O.LOOP else ins.srcs[0]
        if ireg.index in self.defis:
            count, start, step, _ = self.defis[ireg.index]
            values = tuple(start + k * step for k in range(count)) if ins.opcode == O.LOOP else None
            return count, count, (values or None)
        return 0, 3, None  # API ints: count 0..3, aL unknown

    # -- setup -----------------------------------------------------------------

    def setup(self):
        rng, v = self.rng, self.version
        dcls: list[Instruction] = []
        if self.vertex:
            n = rng.randint(1, 5)
            usages = [(DeclUsage.POSITION, 0)] + rng.sample(VS_USAGES, n - 1)
            for i, (u, ui) in enumerate(usages):
                raw = 0x80000000 | int(u) | (ui << 16)
                dcls.append(Instruction(O.DCL, _dst(R.INPUT, i), declaration=Declaration(raw)))
                self._add_input((R.INPUT, i), 0xF, int(u), ui, -2.0, 2.0)
        elif not self.sm3:
            for i in range(2):
                if rng.random() < 0.5:
                    mask = rng.choice([0xF, 0xF, 0x7])
                    dcls.append(Instruction(O.DCL, _dst(R.INPUT, i, mask, self._centroid()), declaration=Declaration(0x80000000)))
                    self._add_input((R.INPUT, i), mask, int(DeclUsage.COLOR), i, 0.0, 1.0)
            for i in sorted(rng.sample(range(8), rng.randint(1, 3))):
                mask = rng.choice([0xF, 0xF, 0x3, 0x7])
                dcls.append(Instruction(O.DCL, _dst(TEXTURE, i, mask, self._centroid()), declaration=Declaration(0x80000000)))
                self._add_input((TEXTURE, i), mask, int(DeclUsage.TEXCOORD), i, -2.0, 2.0)
        else:
            n = rng.randint(1, 4)
            usages = rng.sample(PS3_USAGES, n)
            for i, (u, ui) in enumerate(usages):
                mask = rng.choice([0xF, 0xF, 0xF, 0x3, 0x7])
                raw = 0x80000000 | int(u) | (ui << 16)
                dcls.append(Instruction(O.DCL, _dst(R.INPUT, i, mask, self._centroid()), declaration=Declaration(raw)))
                self._add_input((R.INPUT, i), mask, int(u), ui, -2.0, 2.0)
            if rng.random() < 0.3:
                dcls.append(Instruction(O.DCL, _dst(R.MISCTYPE, 0, 0x3), declaration=Declaration(0x80000000)))
                self.input_avs[(R.MISCTYPE, 0)] = ((0.0, 7.0, 0, 0.0, AFFINE),) * 2 + (None, None)
            if rng.random() < 0.3:
                dcls.append(Instruction(O.DCL, _dst(R.MISCTYPE, 1), declaration=Declaration(0x80000000)))
                self.input_avs[(R.MISCTYPE, 1)] = ((-1.0, 1.0, 0, 0.0, UNIFORM | AFFINE),) * 4
        # samplers
        if self.pixel or self.sm3:
            nmax = 4 if self.vertex else 16
            for s in sorted(rng.sample(range(nmax), rng.randint(0, 3))):
                stype = rng.choice([SamplerType.TEX2D, SamplerType.TEX2D, SamplerType.CUBE, SamplerType.VOLUME])
                self.samplers[s] = int(stype)
                dcls.append(Instruction(O.DCL, _dst(R.SAMPLER, s), declaration=Declaration(0x80000000 | (int(stype) << 27))))
            self.roles = _roles_from(self.samplers)
        # outputs
        if self.vertex and self.sm3:
            self._vs3_outputs(dcls)
        elif self.vertex:
            self.output_masks[(R.RASTOUT, 0)] = 0xF
            for k in range(2):
                if rng.random() < 0.4:
                    self.output_masks[(R.ATTROUT, k)] = 0xF
            for k in rng.sample(range(8), rng.randint(0, 3)):
                self.output_masks[(R.TEXCRDOUT, k)] = rng.choice([0xF, 0x3, 0x7, 0x1])
            if rng.random() < 0.15 and self.sat_ok:
                self.output_masks[(R.RASTOUT, 1)] = 0x1
        else:
            self.output_masks[(R.COLOROUT, 0)] = 0xF
            for k in range(1, 4):
                if rng.random() < 0.15:
                    self.output_masks[(R.COLOROUT, k)] = 0xF
            if rng.random() < 0.1:
                self.output_masks[(R.DEPTHOUT, 0)] = 0x1
        # constants
        defs: list[Instruction] = []
        for _ in range(rng.randint(0, 3)):
            idx = rng.randrange(self.const_window)
            if idx in self.defs:
                continue
            if rng.random() < self.opts.special_rate * 3:
                vals = tuple(rng.choice([0.0, 1.0, -1.0, 0.5, 2.0, 0.25, -0.5, 0.0]) for _ in range(4))
            else:
                vals = tuple((2 * rng.randint(-32, 31) + 1) / 32 for _ in range(4))
            self.defs[idx] = vals
        if self.flow:
            for i in rng.sample(range(16), rng.randint(0, 3)):
                count = rng.choice([1, 2, 2, 3, 3, 4, 0])
                self.defis[i] = (count, rng.randint(0, 10), rng.choice([1, 1, 2, 0, -1, -2, 3]), 0)
            for i in rng.sample(range(16), rng.randint(0, 2)):
                self.defbs[i] = rng.random() < 0.5
        self.dcls = dcls

    def _centroid(self):
        return DstMod.CENTROID if self.rng.random() < 0.05 else DstMod.NONE

    def _add_input(self, reg, mask, usage, ui, lo, hi):
        fl = AFFINE if self.pixel else 0
        self.inputs.append(InputInfo(reg, mask, usage, ui, lo, hi))
        self.input_avs[reg] = tuple(_halfgrid_av(lo, hi, fl) if mask >> c & 1 else None for c in range(4))

    def _vs3_outputs(self, dcls):
        rng = self.rng
        self.output_masks[(OUTPUT, 0)] = 0xF
        dcls.append(Instruction(O.DCL, _dst(OUTPUT, 0), declaration=Declaration(0x80000000 | int(DeclUsage.POSITION))))
        n = rng.randint(0, 4)
        tc = 0
        for k in range(1, n + 1):
            if rng.random() < 0.3:  # two semantics packed in one register
                for mask in (0x3, 0xC):
                    raw = 0x80000000 | int(DeclUsage.TEXCOORD) | (tc << 16)
                    tc += 1
                    dcls.append(Instruction(O.DCL, _dst(OUTPUT, k, mask), declaration=Declaration(raw)))
                self.output_masks[(OUTPUT, k)] = 0xF
            else:
                mask = rng.choice([0xF, 0xF, 0x3, 0x7])
                usage = rng.choice([DeclUsage.TEXCOORD, DeclUsage.TEXCOORD, DeclUsage.COLOR])
                ui = tc if usage == DeclUsage.TEXCOORD else k
                if usage == DeclUsage.TEXCOORD:
                    tc += 1
                raw = 0x80000000 | int(usage) | ((ui & 15) << 16)
                dcls.append(Instruction(O.DCL, _dst(OUTPUT, k, mask), declaration=Declaration(raw)))
                self.output_masks[(OUTPUT, k)] = mask

    # -- operand choice -----------------------------------------------------------

    def readable(self, st: State, need_exact=False, want=None):
        """Candidate (rtype, index, values) of directly readable registers."""
        out = []
        for (rt, idx), vals in st.regs.items():
            if rt == R.TEMP and any(x is not None for x in vals):
                out.append((rt, idx, vals))
        for (rt, idx), vals in self.input_avs.items():
            out.append((rt, idx, vals))
        k = self.rng.randrange(self.const_window)
        out.append((R.CONST, k, self.const_av(k)))
        for d in list(self.defs)[:2]:
            out.append((R.CONST, d, self.const_av(d)))
        if need_exact:
            out = [c for c in out if any(x is not None and _exact(x) for x in c[2])] or out
        return out

    def source(self, st: State, slots, *, need_exact=False, replicate=False, allow_mods=True, allow_rel=True,
               halfgrid=False, prefer_recent=False) -> SourceOperand:
        rng = self.rng
        # relative addressing
        if allow_rel and rng.random() < 0.12:
            rel = self.relative_source(st, slots)
            if rel is not None:
                return rel
        cands = self.readable(st, need_exact)
        if halfgrid:
            cands = [c for c in cands if any(x is not None and x[4] & HALF for x in c[2])] or cands
        if prefer_recent and self.last_written and rng.random() < 0.7:
            key = self.last_written[-1 - rng.randrange(min(3, len(self.last_written)))]
            vals = st.regs.get(key)
            if vals is not None and any(x is not None for x in vals):
                cands = [(key[0], key[1], vals)]
        rt, idx, vals = rng.choice(cands)
        avail = [c for c in range(4) if vals[c] is not None]
        if need_exact:
            avail = [c for c in avail if _exact(vals[c])] or avail
        if halfgrid:
            avail = [c for c in avail if vals[c][4] & HALF] or avail
        if not avail:
            avail = [0]
        swz = self.swizzle(avail, slots, replicate)
        return _src(rt, idx, swz, self.modifier(allow_mods))

    def swizzle(self, avail, slots, replicate=False) -> int:
        rng = self.rng
        if replicate:
            return replicate_swizzle(rng.choice(avail))
        if set(avail) >= set(range(4)) and rng.random() < 0.5:
            return IDENTITY_SWIZZLE
        comps = [rng.choice(avail) for _ in range(4)]
        return make_swizzle(comps)

    def modifier(self, allow=True) -> SrcMod:
        if not allow:
            return SrcMod.NONE
        r = self.rng.random()
        if r < 0.14:
            return SrcMod.NEG
        if self.abs_ok and r < 0.20:
            return SrcMod.ABS
        if self.abs_ok and r < 0.24:
            return SrcMod.ABSNEG
        return SrcMod.NONE

    def relative_source(self, st: State, slots) -> SourceOperand | None:
        rng = self.rng
        opts = []
        if self.vertex:
            a0 = [c for c in range(4) if st.a0[c] is not None and st.a0[c][1] - st.a0[c][0] <= 16]
            if a0:
                opts.append("a0")
            if st.aL is not None:
                opts.append("aLc")
        if self.sm3 and st.aL is not None:
            opts.append("aLv")
        if not opts:
            return None
        kind = rng.choice(opts)
        if kind == "a0":
            c = rng.choice(a0)
            lo, hi = int(st.a0[c][0]), int(st.a0[c][1])
            if rng.random() < self.opts.oob_rate:
                base = rng.choice([max(0, -lo) + rng.randint(0, 1) - 1 if lo < 0 else 0, self.const_count - 1 - max(hi, 0) + 1])
                base = max(0, base)
            else:
                base = rng.randint(max(0, -lo), max(max(0, -lo), min(self.const_window, self.const_count - 1 - hi)))
            comps = swizzle_components(IDENTITY_SWIZZLE)
            return _src(R.CONST, base, self.swizzle(list(comps), slots), self.modifier(), A0_REL(c))
        lo, hi = min(st.aL), max(st.aL)
        if kind == "aLc":
            if -lo > self.const_count or hi - lo > self.const_count - 1:
                return None
            base = rng.randint(max(0, -lo), max(max(0, -lo), min(self.const_window, self.const_count - 1 - hi)))
            if base + hi >= self.const_count or base + lo < 0:
                return None
            return _src(R.CONST, base, self.swizzle([0, 1, 2, 3], slots), self.modifier(), AL_REL)
        # v[aL + n]: every reached input must be declared
        ninputs = sum(1 for i in self.inputs if i.reg[0] == R.INPUT)
        bases = [b for b in range(0, ninputs) if b + lo >= 0 and b + hi < ninputs]
        if not bases:
            return None
        base = rng.choice(bases)
        common = 0xF
        for k in set(st.aL):
            common &= next(i.mask for i in self.inputs if i.reg == (R.INPUT, base + k))
        avail = _mask_comps(common)
        if not avail:
            return None
        return _src(R.INPUT, base, self.swizzle(avail, slots), self.modifier(), AL_REL)

    def dest(self, st: State, *, allow_output=True, mask=None, writemask_ok=True) -> DestOperand:
        rng = self.rng
        rtype, idx = R.TEMP, rng.randrange(self.ntemps if rng.random() < 0.3 else min(self.ntemps, 6))
        if allow_output and self.output_masks and rng.random() < 0.12 and (self.vertex or self.sm3):
            rtype, idx = rng.choice(list(self.output_masks))
            m = self.output_masks[(rtype, idx)]
            if rtype in (R.DEPTHOUT, R.RASTOUT) and idx != 0:
                return _dst(rtype, idx, 0x1, DstMod.SATURATE)
            if mask is None:
                sub = [x for x in range(1, 16) if x & m == x]
                mask = rng.choice(sub)
            mask &= m
            if not mask:
                rtype, idx = R.TEMP, 0
                mask = 0xF
        if mask is None:
            mask = 0xF if rng.random() < 0.5 or not writemask_ok else rng.randint(1, 15)
        mods = DstMod.NONE
        if rng.random() < 0.12 and self.sat_ok:
            mods |= DstMod.SATURATE
        if self.pixel and self.opts.partial_precision and rng.random() < 0.05:
            mods |= DstMod.PARTIALPRECISION
        return _dst(rtype, idx, mask, mods)

    # -- instruction proposals ------------------------------------------------------

    def arith_ops(self) -> list:
        v = self.version
        ops = [O.MOV, O.ADD, O.SUB, O.MUL, O.MAD, O.DP3, O.DP4, O.MIN, O.MAX, O.SLT, O.SGE, O.FRC, O.RCP,
               O.RSQ, O.EXP, O.LOG, O.ABS, O.NRM, O.POW, O.CRS, O.LRP, O.SINCOS,
               O.M4x4, O.M4x3, O.M3x4, O.M3x3, O.M3x2]
        if self.vertex:
            ops += [O.LIT, O.DST, O.EXPP, O.LOGP, O.SGN, O.MOVA, O.MOVA]
        else:
            ops += [O.CMP, O.CMP, O.DP2ADD]
            if self.sm2x:
                ops += [O.DSX, O.DSY]
        ops = [o for o in ops if OPCODES[o].allowed_in(v)]
        if self.vertex and self.sm1:
            ops += [O.MOVA, O.MOVA]  # proposed as vs_1_1's mov a0.x
        return ops

    def propose(self, st: State, op: Opcode) -> Instruction:
        rng = self.rng
        pr = rng.random() < 0.5
        if op == O.MOVA:
            mask = rng.randint(1, 15) if self.sm2x or self.sm3 else 0x1
            src = self.source(st, _mask_comps(mask), need_exact=True, allow_rel=False)
            if self.sm1:  # vs_1_1: mov a0.x (floor), a plain mov whose destination is a0
                return Instruction(O.MOV, _dst(R.ADDR, 0, 0x1), (src,))
            return Instruction(O.MOVA, _dst(R.ADDR, 0, mask), (src,))
        if op in PER_COMPONENT:
            nsrc = 1 if op == O.SGN else OPCODES[op].forms[0].nsrc
            exact = op in (O.SLT, O.SGE, O.FRC, O.SGN)
            d = self.dest(st)
            if op == O.FRC:
                mask = d.write_mask
                if self.sm1:  # vs_1_1 frc is a macro writing .y or .xy
                    mask = rng.choice([0x2, 0x3])
                d = DestOperand(d.type, d.index, mask, d.modifiers & ~DstMod.SATURATE, 0, None)
            slots = _mask_comps(d.write_mask)
            srcs = [self.source(st, slots, need_exact=exact or (op == O.CMP and i == 0), prefer_recent=pr and i == 0)
                    for i in range(nsrc)]
            if op == O.SGN and (not self.sm3 or rng.random() < 0.3):
                a, b = rng.sample([i for i in range(self.ntemps) if i != d.index], 2)
                srcs += [_src(R.TEMP, a), _src(R.TEMP, b)]
            return Instruction(op, d, tuple(srcs))
        if op in (O.DP3, O.DP4, O.DP2ADD):
            d = self.dest(st)
            k = {O.DP3: 3, O.DP4: 4, O.DP2ADD: 2}[op]
            srcs = [self.source(st, range(k), prefer_recent=pr), self.source(st, range(k))]
            if op == O.DP2ADD:
                srcs.append(self.source(st, [0], replicate=True))
            return Instruction(op, d, tuple(srcs))
        if op in SCALAR_OPS:
            d = self.dest(st)
            rep = rng.random() >= self.opts.scalar_nonreplicate_rate
            srcs = [self.source(st, [SCALAR_SLOT], replicate=rep, prefer_recent=pr)]
            if op in (O.RCP, O.RSQ, O.LOG, O.LOGP) and self.defs and rng.random() < self.opts.special_rate:
                idx = rng.choice(list(self.defs))
                vals = self.defs[idx]
                zeros = [c for c in range(4) if vals[c] == 0.0]
                comps = zeros if zeros and rng.random() < 0.6 else ([c for c in range(4) if vals[c] in (0.0, 1.0)] or [0])
                srcs = [_src(R.CONST, idx, replicate_swizzle(rng.choice(comps)))]
            if op == O.POW:
                srcs.append(self.source(st, [SCALAR_SLOT], replicate=rep))
            return Instruction(op, d, tuple(srcs))
        if op == O.NRM:
            d = self.dest(st)
            return Instruction(op, d, (self.source(st, range(4), prefer_recent=pr),))
        if op == O.CRS:
            d = self.dest(st, allow_output=False, mask=rng.choice([0x7, 0x7, 0x1, 0x3, 0x6, 0x5]))
            a = self.source(st, range(3), prefer_recent=pr)
            b = self.source(st, range(3))
            a = SourceOperand(a.type, a.index, IDENTITY_SWIZZLE, a.modifier, a.relative)
            b = SourceOperand(b.type, b.index, IDENTITY_SWIZZLE, b.modifier, b.relative)
            if (d.type, d.index) in ((a.type, a.index), (b.type, b.index)):
                raise Reject("crs aliasing")
            return Instruction(op, d, (a, b))
        if op == O.LIT:
            d = self.dest(st)
            return Instruction(op, d, (self.source(st, [0, 1, 3], need_exact=True),))
        if op == O.DST:
            d = self.dest(st)
            return Instruction(op, d, (self.source(st, [1, 2]), self.source(st, [1, 3])))
        if op == O.SINCOS:
            mask = rng.choice([0x1, 0x2, 0x3, 0x3])
            d = self.dest(st, allow_output=False, mask=mask)
            d = DestOperand(R.TEMP, d.index, mask, d.modifiers & ~DstMod.SATURATE, 0, None)
            srcs = [self.source(st, [SCALAR_SLOT], replicate=True, prefer_recent=pr)]
            if srcs[0].type == R.TEMP and srcs[0].index == d.index:
                raise Reject("sincos aliasing")
            if not self.sm3:
                srcs += [_src(R.CONST, i) for i in self.sincos_registers()]
            return Instruction(op, d, tuple(srcs))
        if op in MATRIX_SHAPE:
            rows, width = MATRIX_SHAPE[op]
            mask = (1 << rows) - 1
            if rng.random() < 0.3:
                mask = rng.randint(1, mask)
            d = self.dest(st, allow_output=False, mask=mask)
            v = self.source(st, range(width), prefer_recent=pr, allow_rel=False)
            if rng.random() < 0.7:
                m = self.source(st, range(width), allow_rel=True)
                if m.type != R.CONST:
                    base = rng.randrange(self.const_window - rows)
                    m = _src(R.CONST, base, m.swizzle, m.modifier)
                elif m.relative is None and m.index + rows > self.const_count:
                    raise Reject("matrix rows out of range")
            else:
                base = rng.randrange(self.ntemps - rows + 1)
                m = _src(R.TEMP, base, self.swizzle([0, 1, 2, 3], range(width)), self.modifier())
            if m.type == R.TEMP and m.index <= d.index < m.index + rows or (v.type, v.index) == (d.type, d.index):
                raise Reject("matrix aliasing")
            return Instruction(op, d, (v, m))
        raise Reject(f"cannot propose {op.name}")

    def sincos_registers(self) -> tuple[int, int]:
        if self.sincos_consts is None:
            free = [i for i in range(self.const_window) if i not in self.defs]
            a, b = self.rng.sample(free, 2)
            self.defs[a] = tuple(float(np.float32(x)) for x in SINCOS_CONST1)
            self.defs[b] = tuple(float(np.float32(x)) for x in SINCOS_CONST2)
            self.sincos_consts = (a, b)
        return self.sincos_consts

    def propose_texture(self, st: State) -> Instruction:
        rng = self.rng
        if not self.samplers:
            raise Reject("no samplers")
        s = rng.choice(list(self.samplers))
        stype, role = self.samplers[s], self.roles[s]
        dims = _tex_dims(stype)
        choices = []
        if self.pixel:
            choices += ["texld", "texld", "texldb"]
            if role != "point":
                choices.append("texldp")
            if self.sm2x:
                choices.append("texldd")
        if self.sm3:
            choices += ["texldl", "texldl"]
            if self.vertex:
                choices.append("texld")
        if role == "linear_lod" and self.pixel:
            choices = ["texldl"]
        if not choices:
            raise Reject("no texture form")
        form = rng.choice(choices)
        slots = list(range(dims)) + ([3] if form in ("texldb", "texldp", "texldl") else [])
        coord = self.source(st, slots, halfgrid=role == "point", allow_mods=True)
        if form == "texldp" and rng.random() < 0.8:
            cands = [(rt, i, c) for rt, i, vals in self.readable(st) for c in range(4)
                     if vals[c] is not None and (vals[c][0] - vals[c][3] > 0.25 or vals[c][1] + vals[c][3] < -0.25)]
            if cands:
                rt, i, c = rng.choice(cands)
                vals = self.interp.reg_values(st, rt, i)
                avail = [k for k in range(4) if vals[k] is not None]
                comps = [rng.choice(avail) for _ in range(4)]
                comps[3] = c
                coord = _src(rt, i, make_swizzle(comps), rng.choice([SrcMod.NONE, SrcMod.NEG]))
        if role == "point" and coord.modifier not in (SrcMod.NONE, SrcMod.NEG, SrcMod.ABS, SrcMod.ABSNEG):
            coord = SourceOperand(coord.type, coord.index, coord.swizzle, SrcMod.NONE, coord.relative)
        sw = IDENTITY_SWIZZLE
        if self.sm3 and rng.random() < 0.15:
            sw = make_swizzle([rng.randrange(4) for _ in range(4)])
        sampler = _src(R.SAMPLER, s, sw)
        mask = 0xF
        if self.sm2x and rng.random() < 0.3:
            mask = rng.randint(1, 15)
        mods = DstMod.SATURATE if rng.random() < 0.05 else DstMod.NONE
        d = _dst(R.TEMP, rng.randrange(min(self.ntemps, 8)), mask, mods)
        if form == "texldl":
            return Instruction(O.TEXLDL, d, (coord, sampler))
        if form == "texldd":
            g1 = self.source(st, range(dims))
            g2 = self.source(st, range(dims))
            return Instruction(O.TEXLDD, d, (coord, sampler, g1, g2))
        ctrl = {"texld": TexControl.NONE, "texldb": TexControl.BIAS, "texldp": TexControl.PROJECT}[form]
        return Instruction(O.TEX, d, (coord, sampler), control=int(ctrl))

    def predicate(self, st: State, ins: Instruction) -> Instruction:
        """Maybe predicate an instruction (sm2_x+)."""
        if not self.dynamic or not ins.info.predicable or ins.opcode in (O.SETP,) and self.rng.random() < 0.7:
            return ins
        avail = [c for c in range(4) if st.p0[c] is not None]
        if not avail or self.rng.random() > 0.25:
            return ins
        rng = self.rng
        if rng.random() < 0.5:
            sw = replicate_swizzle(rng.choice(avail))
        else:
            sw = make_swizzle([rng.choice(avail) for _ in range(4)])
        p = _src(R.PREDICATE, 0, sw, SrcMod.NOT if rng.random() < 0.4 else SrcMod.NONE)
        return Instruction(ins.opcode, ins.dst, ins.srcs, ins.control, p)

    # -- blocks -------------------------------------------------------------------------

    def try_node(self, st: State, make: Callable[[], Node | None]) -> tuple[State, Node] | None:
        for _ in range(8):
            try:
                node = make()
                if node is None:
                    return None
                new = self.interp.node(st.copy(), node)
                if new is None:
                    raise Reject("dead")
                return new, node
            except Reject:
                continue
        return None

    def block(self, st: State, budget: int, depth: dict) -> tuple[State, list]:
        nodes: list[Node] = []
        rng = self.rng
        used = 0
        stall = 0
        while used < budget and stall < 6:
            kind = self.pick_kind(st, depth)
            made = self.try_node(st, lambda: self.make(kind, st, max(1, budget - used), depth))
            if made is None:
                stall += 1
                continue
            st, node = made
            nodes.append(node)
            used += _count(node)
            if node.kind == "op" and node.ins.dst is not None and node.ins.dst.type == R.TEMP:
                key = (R.TEMP, node.ins.dst.index)
                if key in self.last_written:
                    self.last_written.remove(key)
                self.last_written.append(key)
        return st, nodes

    def pick_kind(self, st: State, depth: dict) -> str:
        rng = self.rng
        kinds = ["arith"] * 12
        if self.samplers:
            kinds += ["tex"] * 3
        if self.pixel:
            kinds.append("texkill")
        if self.dynamic:
            kinds += ["setp"] * 2
        if self.flow and depth["if"] < 2:
            kinds += ["if"] * 2
        if self.flow and depth["loop"] < self.max_loop_depth:
            kinds += ["loop"] * 2
        if self.flow and depth["call"] < self.max_call_depth:
            kinds.append("call")
        if depth.get("in_loop") and depth.get("breaks") and self.dynamic:
            kinds += ["break"] * 2
        return rng.choice(kinds)

    def make(self, kind: str, st: State, budget: int, depth: dict) -> Node | None:
        rng = self.rng
        if kind == "arith":
            op = rng.choice(self.arith_ops())
            return Node("op", self.predicate(st, self.propose(st, op)))
        if kind == "tex":
            return Node("op", self.predicate(st, self.propose_texture(st)))
        if kind == "texkill":
            cands = [(rt, i) for (rt, i), v in list(st.regs.items()) + list(self.input_avs.items())
                     if rt in (R.TEMP, TEXTURE) and all(x is not None for x in v)]
            if not cands:
                raise Reject("nothing to texkill")
            rt, i = rng.choice(cands)
            return Node("op", self.predicate(st, Instruction(O.TEXKILL, _dst(rt, i))))
        if kind == "setp":
            mask = rng.randint(1, 15)
            cmp = rng.randint(1, 6)
            a = self.source(st, _mask_comps(mask), need_exact=True)
            b = self.source(st, _mask_comps(mask), need_exact=True)
            return Node("op", self.predicate(st, Instruction(O.SETP, _dst(R.PREDICATE, 0, mask), (a, b), control=cmp)))
        if kind == "break":
            return self.make_break(st)
        if kind == "if":
            return self.make_if(st, budget, depth)
        if kind == "loop":
            return self.make_loop(st, budget, depth)
        if kind == "call":
            return self.make_call(st, budget, depth)
        raise AssertionError(kind)

    def condition_source(self, st: State) -> SourceOperand:
        rng = self.rng
        avail = [c for c in range(4) if st.p0[c] is not None]
        mod = SrcMod.NOT if rng.random() < 0.3 else SrcMod.NONE
        if self.dynamic and avail and rng.random() < 0.5:
            return _src(R.PREDICATE, 0, replicate_swizzle(rng.choice(avail)), mod)
        return _src(R.CONSTBOOL, rng.randrange(16), IDENTITY_SWIZZLE, mod)

    def make_break(self, st: State) -> Node:
        rng = self.rng
        r = rng.random()
        if r < 0.4:
            a = self.source(st, [0], need_exact=True, replicate=True)
            b = self.source(st, [0], need_exact=True, replicate=True)
            return Node("op", Instruction(O.BREAKC, None, (a, b), control=rng.randint(1, 6)))
        avail = [c for c in range(4) if st.p0[c] is not None]
        if not avail:
            raise Reject("no p0 for breakp")
        if r < 0.7:
            p = _src(R.PREDICATE, 0, replicate_swizzle(rng.choice(avail)), SrcMod.NOT if rng.random() < 0.4 else SrcMod.NONE)
            return Node("op", Instruction(O.BREAKP, None, (p,)))
        return Node("op", self.predicate_forced(st, Instruction(O.BREAK)))

    def predicate_forced(self, st: State, ins: Instruction) -> Instruction:
        avail = [c for c in range(4) if st.p0[c] is not None]
        rng = self.rng
        p = _src(R.PREDICATE, 0, replicate_swizzle(rng.choice(avail)), SrcMod.NOT if rng.random() < 0.4 else SrcMod.NONE)
        return Instruction(ins.opcode, ins.dst, ins.srcs, ins.control, p)

    def make_if(self, st: State, budget: int, depth: dict) -> Node:
        rng = self.rng
        if self.dynamic and rng.random() < 0.45:
            a = self.source(st, [0], need_exact=True, replicate=True)
            b = self.source(st, [0], need_exact=True, replicate=True)
            ins = Instruction(O.IFC, None, (a, b), control=rng.randint(1, 6))
            cond = None
        else:
            ins = Instruction(O.IF, None, (self.condition_source(st),))
            cond = ins.srcs[0]
        # condition's uniformity decides derivative legality inside
        probe = st.copy()
        if cond is not None:
            c = self.interp.condition(probe, cond)
            uniform = bool(c[4] & UNIFORM) or c[0] == c[1]
        else:
            a = self.interp.read(probe, ins.srcs[0], [0])[0]
            b = self.interp.read(probe, ins.srcs[1], [0])[0]
            uniform = bool(a[4] & b[4] & UNIFORM)
        inner = st.copy()
        inner.uniform = st.uniform and uniform
        d = dict(depth, **{"if": depth["if"] + 1})
        n_then = rng.randint(1, max(1, min(6, budget // 2)))
        _, then = self.block(inner.copy(), n_then, d)
        if depth.get("in_loop") and self.dynamic and rng.random() < 0.2:
            then.append(Node("op", Instruction(O.BREAK)))
        orelse = None
        if rng.random() < 0.4:
            _, orelse = self.block(inner.copy(), rng.randint(1, max(1, min(4, budget // 3))), d)
        return Node("if", ins, then, orelse)

    def make_loop(self, st: State, budget: int, depth: dict) -> Node:
        rng = self.rng
        use_loop = OPCODES[O.LOOP].allowed_in(self.version) and (not OPCODES[O.REP].allowed_in(self.version) or rng.random() < 0.6)
        if rng.random() < 0.75 and self.defis:
            ireg = rng.choice(list(self.defis))
        else:
            ireg = rng.randrange(16)
        if use_loop:
            ins = Instruction(O.LOOP, None, (_src(R.LOOP, 0), _src(R.CONSTINT, ireg)))
        else:
            ins = Instruction(O.REP, None, (_src(R.CONSTINT, ireg),))
        cmin, cmax, aL = self.loop_info(ins)
        breaks = self.dynamic and rng.random() < 0.4
        inner = st.copy()
        inner.uniform = st.uniform and not breaks
        if use_loop:
            inner.aL = aL
            if aL is None:
                inner.aL = None
        d = dict(depth, loop=depth["loop"] + 1, in_loop=True, breaks=breaks)
        self.interp.breaks.append([])  # a break context for proposals in the body
        try:
            _, body = self.block(inner, rng.randint(1, max(1, min(8, budget))), d)
        finally:
            self.interp.breaks.pop()
        if not body:
            raise Reject("empty loop")
        closer = Instruction(O.ENDLOOP if use_loop else O.ENDREP)
        return Node("loop", ins, body, closer=closer)

    def make_call(self, st: State, budget: int, depth: dict) -> Node:
        rng = self.rng
        reuse = [f for f in self.functions.values()
                 if depth["loop"] + f.loop_depth <= self.max_loop_depth and depth["call"] + 1 + f.call_depth <= self.max_call_depth
                 and f.label not in depth.get("open", ())]
        if reuse and rng.random() < 0.4:
            fn = rng.choice(reuse)
        else:
            label = len(self.functions) + 1 + len(depth.get("open", ()))
            while label in self.functions or label in depth.get("open", ()):
                label += 1
            inner = st.copy()
            inner.aL = None
            d = dict(depth, call=depth["call"] + 1, in_loop=False, breaks=False,
                     open=tuple(depth.get("open", ())) + (label,), **{"if": depth["if"]})
            d["loop_in_fn"] = 0
            saved_lw, saved_breaks = list(self.last_written), self.interp.breaks
            self.interp.breaks = []
            try:
                _, body = self.block(inner, rng.randint(1, max(1, min(6, budget))), d)
            finally:
                self.last_written, self.interp.breaks = saved_lw, saved_breaks
            fn = Function(label, body, _loop_depth(body), _call_depth(body, self.functions), st.uniform)
            self.functions[label] = fn
        r = rng.random()
        if r < 0.4 or not self.flow:
            ins = Instruction(O.CALL, None, (_src(R.LABEL, fn.label),))
            if self.dynamic and rng.random() < 0.2 and any(st.p0[c] is not None for c in range(4)):
                ins = self.predicate_forced(st, ins)
        else:
            ins = Instruction(O.CALLNZ, None, (_src(R.LABEL, fn.label), self.condition_source(st)))
        return Node("call", ins)

    # -- epilogue ---------------------------------------------------------------------------

    def epilogue(self, st: State) -> tuple[State, list]:
        nodes: list[Node] = []
        rng = self.rng
        if self.vertex and self.sm3 and rng.random() < 0.35:
            made = self.try_node(st, lambda: self.output_loop(st))
            if made is not None:
                st, node = made
                nodes.append(node)
        for key in sorted(self.output_masks):
            mask = self.output_masks[key]
            have = st.regs.get(key, (None,) * 4)
            missing = sum(1 << c for c in range(4) if mask >> c & 1 and have[c] is None)
            if not missing:
                continue
            rtype, idx = key
            if rtype in (R.DEPTHOUT,) or key == (R.RASTOUT, 1):
                missing = 0x1
            full_mov = self.pixel and not self.sm3
            wmask = 0xF if full_mov and rtype == R.COLOROUT else missing
            for attempt in range(12):
                try:
                    recent = attempt < 8
                    src = self.source(st, _mask_comps(wmask), allow_rel=False, prefer_recent=recent)
                    mods = DstMod.SATURATE if rtype in (R.DEPTHOUT,) or key == (R.RASTOUT, 1) else DstMod.NONE
                    if full_mov:
                        src = SourceOperand(src.type, src.index, src.swizzle, SrcMod.NONE, None)
                    op = O.MOV
                    srcs: tuple = (src,)
                    if not full_mov and rng.random() < 0.4:
                        op = O.ADD
                        srcs = (src, self.source(st, _mask_comps(wmask), allow_rel=False, prefer_recent=True))
                    ins = Instruction(op, _dst(rtype, idx, wmask, mods), srcs)
                    st2 = self.interp.op(st.copy(), ins)
                    st = st2
                    nodes.append(Node("op", ins))
                    break
                except Reject:
                    continue
            else:
                ins = Instruction(O.MOV, _dst(rtype, idx, wmask, DstMod.SATURATE if rtype == R.DEPTHOUT or key == (R.RASTOUT, 1) else DstMod.NONE),
                                  (_src(R.CONST, self._safe_const()),))
                st = self.interp.op(st, ins)
                nodes.append(Node("op", ins))
        return st, nodes

    def _safe_const(self) -> int:
        for i in range(self.const_window):
            if i not in self.defs:
                return i
        return self.const_window

    def output_loop(self, st: State) -> Node:
        """loop aL, i# with o[aL + n] writes that definitely cover outputs."""
        rng = self.rng
        outs = sorted(k for (rt, k) in self.output_masks if rt == OUTPUT and self.output_masks[(rt, k)] == 0xF and k > 0)
        if len(outs) < 1:
            raise Reject("no outputs for a relative loop")
        i = next((j for j in range(16) if j not in self.defis), None)
        if i is None:
            raise Reject("no free i#")
        start = outs[0]
        count = 1
        while start + count in outs:
            count += 1
        count = rng.randint(1, count)
        self.defis[i] = (count, start, 1, 0)
        src = self.source(st, range(4), allow_rel=False, prefer_recent=True)
        body = [Node("op", Instruction(O.MOV, _dst(OUTPUT, 0, 0xF, rel=AL_REL), (src,)))]
        node = Node("loop", Instruction(O.LOOP, None, (_src(R.LOOP, 0), _src(R.CONSTINT, i))), body, closer=Instruction(O.ENDLOOP))
        node.written = [(OUTPUT, start + k) for k in range(count)]  # type: ignore[attr-defined]
        return node

    # -- driver ---------------------------------------------------------------------------------

    def run(self) -> GeneratedProgram:
        self.setup()
        st = State()
        budget = self.rng.randint(self.opts.min_instructions, self.opts.max_instructions)
        depth = {"if": 0, "loop": 0, "call": 0}
        st, main = self.block(st, budget, depth)
        st2, epi = self.epilogue(st)
        main += epi
        # final validation of the whole program from scratch
        final = self.interp.block(State(), main)
        if final is None:
            raise Reject("main never reaches its end")
        shader = self.assemble(main)
        bounds, written, ranges = {}, {}, {}
        for key, mask in self.output_masks.items():
            vals = final.regs.get(key, (None,) * 4)
            if self.vertex and key[0] == R.ATTROUT and not self.sm3:  # §5.2: saturated on output
                vals = tuple(None if x is None else av_sat(x) for x in vals)
            name = shader.register_name(*key)
            written[name] = sum(1 << c for c in range(4) if vals[c] is not None)
            bounds[name] = tuple(0.0 if vals[c] is None else float(vals[c][3]) for c in range(4))
            ranges[name] = tuple(None if vals[c] is None else (float(vals[c][0]), float(vals[c][1])) for c in range(4))
        return GeneratedProgram(shader, self.version, bounds, written, dict(self.roles), ranges)

    def assemble(self, main: list) -> Shader:
        items: list[Instruction] = list(self.dcls)
        for idx in sorted(self.defs):
            lits = struct.unpack("<4I", struct.pack("<4f", *self.defs[idx]))
            items.append(Instruction(O.DEF, _dst(R.CONST, idx), literals=lits))
        for idx in sorted(self.defis):
            lits = tuple(x & 0xFFFFFFFF for x in self.defis[idx])
            items.append(Instruction(O.DEFI, _dst(R.CONSTINT, idx), literals=lits))
        for idx in sorted(self.defbs):
            items.append(Instruction(O.DEFB, _dst(R.CONSTBOOL, idx), literals=(int(self.defbs[idx]),)))
        _flatten(main, items)
        if self.functions:
            items.append(Instruction(O.RET))
            for label in sorted(self.functions):
                items.append(Instruction(O.LABEL, None, (_src(R.LABEL, label),)))
                _flatten(self.functions[label].nodes, items)
                items.append(Instruction(O.RET))
        return Shader(self.version, tuple(items))


def _count(node: Node) -> int:
    if node.kind == "op" or node.kind == "call":
        return 1
    return 2 + sum(_count(n) for n in node.body) + sum(_count(n) for n in (node.orelse or []))


def _loop_depth(nodes: list) -> int:
    best = 0
    for n in nodes:
        if n.kind == "loop":
            best = max(best, 1 + _loop_depth(n.body))
        elif n.kind == "if":
            best = max(best, _loop_depth(n.body), _loop_depth(n.orelse or []))
    return best


def _call_depth(nodes: list, functions: dict) -> int:
    best = 0
    for n in nodes:
        if n.kind == "call":
            f = functions.get(n.ins.srcs[0].index)
            best = max(best, 1 + (f.call_depth if f else 0))
        elif n.kind in ("if", "loop"):
            best = max(best, _call_depth(n.body, functions), _call_depth(n.orelse or [], functions))
    return best


def _flatten(nodes: list, out: list):
    for n in nodes:
        if n.kind in ("op", "call"):
            out.append(n.ins)
        elif n.kind == "if":
            out.append(n.ins)
            _flatten(n.body, out)
            if n.orelse is not None:
                out.append(Instruction(O.ELSE))
                _flatten(n.orelse, out)
            out.append(Instruction(O.ENDIF))
        else:
            out.append(n.ins)
            _flatten(n.body, out)
            out.append(n.closer)


# --------------------------------------------------------------------------
# Sampler policy (derived from the shader alone)
# --------------------------------------------------------------------------

POINT, LINEAR, LINEAR_LOD, CUBE = "point", "linear", "linear_lod", "cube"


def _roles_from(samplers: dict[int, int]) -> dict[int, str]:
    """Generation-time roles: even 2D/volume samplers are POINT, odd ones
    LINEAR; cubes CUBE (see the module docstring)."""
    out = {}
    for s, t in samplers.items():
        if t == SamplerType.CUBE:
            out[s] = CUBE
        else:
            out[s] = POINT if s % 2 == 0 else LINEAR
    return out


def sampler_roles(shader: Shader) -> dict[int, tuple[int, str, bool]]:
    """{sampler: (SamplerType, role, mipmapped)} as ``random_inputs`` binds
    textures: mipmapped (distinct levels, trilinear) only for LINEAR/CUBE
    samplers that no pixel-shader texld/texldb/texldp/texldd reads."""
    types = {i.dst.index: int(i.declaration.sampler_type) for i in shader.instructions
             if i.opcode == O.DCL and i.dst.type == R.SAMPLER}
    implicit = set()
    if shader.version.is_pixel:
        for i in shader.instructions:
            if i.opcode in (O.TEX, O.TEXLDD) and len(i.srcs) >= 2:
                implicit.add(i.srcs[1].index)
    roles = _roles_from(types)
    return {s: (t, roles[s], roles[s] != POINT and s not in implicit) for s, t in types.items()}


# --------------------------------------------------------------------------
# Inputs for run_shader
# --------------------------------------------------------------------------


@dataclass
class ShaderInputs:
    """Everything ``run_shader`` needs besides the shader (see its doc)."""

    inputs: dict
    constants: ReferenceConstants
    textures: dict[int, Texture]
    n: int
    pixel_coords: np.ndarray | None = None
    front_facing: np.ndarray | None = None
    texture_stages: dict = field(default_factory=dict)  # ps_1_x: {stage: reference_sm1.TextureStage}

    def kwargs(self) -> dict[str, Any]:
        kw: dict[str, Any] = dict(inputs=self.inputs, constants=self.constants, textures=self.textures, n=self.n)
        if self.texture_stages:
            kw["texture_stages"] = self.texture_stages
        if self.pixel_coords is not None:
            kw["pixel_coords"] = self.pixel_coords
        if self.front_facing is not None:
            kw["front_facing"] = self.front_facing
        return kw

    def run(self, shader: Shader, **options) -> Result:
        return run_shader(shader, **self.kwargs(), **options)


def pixel_grid(n: int) -> np.ndarray:
    """(n, 2) integer D3D pixel positions: lanes in 2×2 quads (TL, TR, BL,
    BR), quads laid out ``QUAD_GRID_WIDTH`` pixels per row."""
    if n % 4:
        raise ValueError("pixel shaders run in quads: n must be a multiple of 4")
    qw = QUAD_GRID_WIDTH // 2
    out = np.zeros((n, 2), np.float32)
    for lane in range(n):
        q, j = divmod(lane, 4)
        out[lane] = (2 * (q % qw) + (j & 1), 2 * (q // qw) + (j >> 1))
    return out


def _halfgrid(rng, lo, hi, size=None):
    """Odd multiples of 1/32 in (lo, hi)."""
    klo = math.ceil((lo * 32 - 1) / 2 + 1e-9)
    khi = math.floor((hi * 32 - 1) / 2 - 1e-9)
    ks = rng.integers(klo, khi + 1, size=size)
    return (2 * ks + 1) / 32.0


def _input_range(shader: Shader, rtype: int, index: int) -> tuple[float, float]:
    v = shader.version
    if v.is_pixel and v.major < 3 and rtype == R.INPUT:
        return 0.0, 1.0
    return -2.0, 2.0


def random_inputs(shader, rng, n: int = 16) -> ShaderInputs:
    """Inputs, constants and textures for a generated shader (or any sm2/3
    shader), following the ranges in the module docstring.  ``rng`` is a
    ``random.Random``, a numpy ``Generator`` or an int seed."""
    if isinstance(shader, GeneratedProgram):
        shader = shader.shader
    if isinstance(rng, random.Random):
        rng = np.random.default_rng(rng.getrandbits(64))
    elif not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    v = shader.version
    pixel = v.is_pixel
    if pixel and v.major == 1:
        from .generate_sm1 import ps1_inputs

        return ps1_inputs(shader, rng, n)
    inputs: dict = {}
    coords = pixel_grid(n) if pixel else None
    for ins in shader.instructions:
        if ins.opcode != O.DCL or ins.dst.type not in (R.INPUT, TEXTURE) or (ins.dst.type == TEXTURE and not pixel):
            continue
        lo, hi = _input_range(shader, ins.dst.type, ins.dst.index)
        key = ("v" if ins.dst.type == R.INPUT else "t", ins.dst.index)
        if not pixel:
            inputs[key] = _halfgrid(rng, lo, hi, (n, 4)).astype(np.float32)
            continue
        # affine in the pixel position: a + b·x + c·y, b and c multiples of 1/16
        xmax, ymax = float(coords[:, 0].max()), float(coords[:, 1].max())
        span = (hi - lo) / 4
        kmax = int(span * 16 // max(1.0, xmax + ymax))
        vals = np.zeros((n, 4), np.float32)
        for c in range(4):
            b = rng.integers(-kmax, kmax + 1) / 16
            cc = rng.integers(-kmax, kmax + 1) / 16
            ext = abs(b) * xmax + abs(cc) * ymax
            a = float(_halfgrid(rng, lo + ext, hi - ext))
            col = a + b * coords[:, 0] + cc * coords[:, 1]
            if col.min() <= lo or col.max() >= hi:
                col = np.full(n, _halfgrid(rng, lo, hi))
            vals[:, c] = col
        inputs[key] = vals
    nconst = 256 if v.is_vertex else (224 if v.major >= 3 else 32)
    floats = _halfgrid(rng, -2.0, 2.0, (nconst, 4)).astype(np.float32)
    ints = np.zeros((16, 4), np.int32)
    ints[:, 0] = rng.integers(0, 4, 16)
    ints[:, 1] = rng.integers(0, 5, 16)
    ints[:, 2] = rng.integers(-2, 3, 16)
    bools = [bool(x) for x in rng.integers(0, 2, 16)]
    constants = ReferenceConstants(floats=floats, ints=ints, bools=bools)
    textures = {s: _texture(rng, t, role, mips) for s, (t, role, mips) in sampler_roles(shader).items()}
    front = np.full(n, bool(rng.integers(0, 2))) if pixel else None
    return ShaderInputs(inputs, constants, textures, n, coords, front)


_ADDRESS = ("wrap", "mirror", "clamp", "border", "mirroronce")


def _texture(rng, stype: int, role: str, mips: bool) -> Texture:
    volume = stype == SamplerType.VOLUME
    if role == POINT:
        dims = [int(2 ** rng.integers(1, 4 if volume else 5)) for _ in range(3 if volume else 2)]
        shape = tuple(reversed(dims)) + (4,)
        level = rng.integers(0, 17, size=shape) / 16.0
        state = SamplerState(
            *(str(rng.choice(_ADDRESS)) for _ in range(3)), mag_filter="point", min_filter="point", mip_filter="none",
            border_color=tuple(float(x) for x in rng.integers(0, 17, 4) / 16.0))
        return Texture("volume" if volume else "2d", [level], state)
    if role == CUBE:
        size = 16
        a = rng.uniform(-1, 1, (4, 3))
        a /= np.maximum(1.0, np.linalg.norm(a, axis=1, keepdims=True))
        levels = []
        nlev = int(math.log2(size)) + 1 if mips else 1
        for lev in range(nlev):
            s = max(1, size >> lev)
            levels.append((_cube_level(s, a) + 0.04 * lev).astype(np.float32))
        state = SamplerState(mag_filter="linear", min_filter="linear", mip_filter="linear" if mips else "none")
        return Texture("cube", levels, state)
    size = 16 if volume else 32
    p = rng.integers(-1, 3, (4, 3))
    phase = rng.uniform(0, 2 * math.pi, 4)
    nlev = int(math.log2(size)) + 1 if mips else 1
    levels = []
    for lev in range(nlev):
        s = max(1, size >> lev)
        g = (np.arange(s) + 0.5) / s
        if volume:
            w, h, d = np.meshgrid(g, g, g, indexing="ij")
            uvw = np.stack([d, h, w], -1)  # (slice, row, col) -> (u, v, w)
            uvw = uvw[..., ::-1]
        else:
            vv, uu = np.meshgrid(g, g, indexing="ij")
            uvw = np.stack([uu, vv, np.zeros_like(uu)], -1)
        lv = 0.5 + 0.25 * np.sin(2 * math.pi * np.tensordot(uvw, p.T, axes=1) + phase) + 0.04 * lev
        levels.append(lv.astype(np.float32))
    state = SamplerState(*(str(rng.choice(_ADDRESS)) for _ in range(3)), mag_filter="linear", min_filter="linear",
                         mip_filter="linear" if mips else "none",
                         border_color=tuple(float(x) for x in rng.uniform(0.25, 0.75, 4)))
    return Texture("volume" if volume else "2d", levels, state)


# D3D cube faces: +X (sc=-z, tc=-y), -X (z, -y), +Y (x, z), -Y (x, -z), +Z (x, -y), -Z (-x, -y)
_FACE_AXES = [((0, 1), (2, -1), (1, -1)), ((0, -1), (2, 1), (1, -1)), ((1, 1), (0, 1), (2, 1)),
              ((1, -1), (0, 1), (2, -1)), ((2, 1), (0, 1), (1, -1)), ((2, -1), (0, -1), (1, -1))]


def cube_direction(face: int, s: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Directions of face coordinates (s, t) in [0, 1] (D3D layout)."""
    (ma, mas), (sa, ss), (ta, ts) = _FACE_AXES[face]
    d = np.zeros(s.shape + (3,))
    d[..., ma] = mas
    d[..., sa] = ss * (2 * s - 1)
    d[..., ta] = ts * (2 * t - 1)
    return d


def cube_value(directions: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The smooth function of direction that cube textures hold."""
    u = directions / np.linalg.norm(directions, axis=-1, keepdims=True)
    return 0.5 + 0.25 * np.tensordot(u, a.T, axes=1)


def _cube_level(size: int, a: np.ndarray) -> np.ndarray:
    g = (np.arange(size) + 0.5) / size
    tt, ss = np.meshgrid(g, g, indexing="ij")
    return np.stack([cube_value(cube_direction(f, ss, tt), a) for f in range(6)])


# --------------------------------------------------------------------------
# Coverage
# --------------------------------------------------------------------------


def feature_counts(shader: Shader) -> Counter:
    """Which opcodes and forms a shader exercises (one count per occurrence)."""
    from ..bytecode.disasm import mnemonic

    c: Counter = Counter()
    v = shader.version
    defs = {i.dst.index: i.float_values for i in shader.instructions if i.opcode == O.DEF}
    defis = {i.dst.index: i.int_values for i in shader.instructions if i.opcode == O.DEFI}
    depth = 0
    for ins in shader.instructions:
        op = ins.opcode
        if op in (O.DCL, O.DEF, O.DEFI, O.DEFB):
            c[op.name.lower()] += 1
            if op == O.DCL and ins.dst.modifiers & DstMod.CENTROID:
                c["dcl_centroid"] += 1
            continue
        name = mnemonic(ins, v)
        if ins.info.comparison:
            c[name.split("_")[0] + "_cmp"] += 1
            c["cmp:" + ins.comparison.name.lower()] += 1
        else:
            c[name.split("_")[0]] += 1
        if op == O.SINCOS:
            c["sincos:sm2" if len(ins.srcs) == 3 else "sincos:sm3"] += 1
        if op == O.SGN:
            c[f"sgn:{len(ins.srcs)}src"] += 1
        if op in (O.LOOP, O.REP, O.IF, O.IFC):
            depth += 1
            c[f"nest:{depth}"] += 1
        if op in (O.ENDLOOP, O.ENDREP, O.ENDIF):
            depth -= 1
        if op == O.LOOP and ins.srcs[1].index in defis:
            count, start, step, _ = defis[ins.srcs[1].index]
            c["loop:step0" if step == 0 else ("loop:step<0" if step < 0 else "loop:step>0")] += 1
            if count == 0:
                c["loop:count0"] += 1
        if op in (O.LOOP, O.REP) and ins.srcs[-1].index not in defis:
            c["loop:api_count"] += 1
        if op in (O.IF, O.CALLNZ):
            cond = ins.srcs[-1]
            c[f"{name.split('_')[0]}:{'b' if cond.type == R.CONSTBOOL else 'p0'}{'!' if cond.modifier == SrcMod.NOT else ''}"] += 1
        if ins.predicate is not None:
            c["pred"] += 1
            if ins.predicate.modifier == SrcMod.NOT:
                c["pred:not"] += 1
            if op in (O.TEX, O.TEXLDL, O.TEXLDD):
                c["pred:tex"] += 1
            if ins.predicate.swizzle != replicate_swizzle(ins.predicate.swizzle & 3):
                c["pred:swizzle"] += 1
        d = ins.dst
        if d is not None and op not in (O.TEXKILL,):
            if d.saturate:
                c["dst:sat"] += 1
            if d.partial_precision:
                c["dst:pp"] += 1
            if d.write_mask != 0xF and d.type not in (R.PREDICATE,):
                c["dst:partial_mask"] += 1
            if d.relative is not None:
                c["rel:o[aL]"] += 1
            if d.type not in (R.TEMP, R.ADDR, R.PREDICATE):
                c["dst:output"] += 1
        for i, s in enumerate(ins.srcs):
            if s.type in (R.LABEL, R.LOOP, R.CONSTINT):
                continue
            if s.modifier != SrcMod.NONE:
                c["mod:" + s.modifier.name.lower()] += 1
            if s.type != R.SAMPLER and s.swizzle != IDENTITY_SWIZZLE:
                c["swizzle"] += 1
            if s.type == R.SAMPLER and s.swizzle != IDENTITY_SWIZZLE:
                c["sampler_swizzle"] += 1
            if s.relative is not None:
                reg = "c" if s.type == R.CONST else "v"
                c[f"rel:{reg}[{'aL' if s.relative.type == R.LOOP else 'a0'}]"] += 1
            if s.type == R.MISCTYPE:
                c["vPos" if s.index == 0 else "vFace"] += 1
            if op in (O.RCP, O.RSQ, O.LOG, O.LOGP) and s.type == R.CONST and s.index in defs and s.relative is None:
                val = defs[s.index][(s.swizzle >> (2 * SCALAR_SLOT)) & 3]
                if val == 0.0:
                    c[f"special:{op.name.lower()}(0)"] += 1
                elif val == 1.0:
                    c[f"special:{op.name.lower()}(1)"] += 1
    return c


# --------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------


def generate(rng: random.Random, version: str | ShaderVersion | None = None,
             options: GenOptions | None = None) -> GeneratedProgram:
    """One program for ``version`` (a random one of ``VERSIONS`` if None)."""
    opts = options or GenOptions()
    if version is None:
        version = rng.choice(VERSIONS)
    if isinstance(version, str):
        version = ShaderVersion.parse(version)
    make = _Generator
    if version.is_pixel and version.major == 1:
        from .generate_sm1 import _PS1Generator as make
    for _ in range(20):
        try:
            return make(rng, version, opts).run()
        except Reject:
            continue
    raise RuntimeError("could not generate a program")  # pragma: no cover


def generate_seed(seed: int, version=None, options: GenOptions | None = None) -> GeneratedProgram:
    """``generate(random.Random(seed), version)``: reproducible from the seed."""
    return generate(random.Random(seed), version, options)


def programs(versions=VERSIONS, options: GenOptions | None = None, *, shrinkable: bool = False):
    """A hypothesis strategy of ``GeneratedProgram``.

    By default each example draws a 64-bit seed (fast, reproducible, the
    seed shrinks but the program does not simplify); ``shrinkable=True``
    drives every choice through hypothesis (slower: ~50 µs per choice)."""
    from hypothesis import strategies as st

    vs = st.sampled_from(list(versions))
    if shrinkable:
        return st.tuples(vs, st.randoms(use_true_random=False)).map(lambda t: generate(t[1], t[0], options))
    return st.tuples(vs, st.integers(0, 2**64 - 1)).map(lambda t: generate_seed(t[1], t[0], options))
