"""The generator's abstract domain: value ranges of register components.

An abstract value ``AV = (lo, hi, d, err, flags)`` bounds one register
component over every invocation and input (``generate``'s module docstring
says what each field means and how it keeps programs well-defined); the
``av_*`` functions are the transfer functions of the operations, and
``State`` holds the AVs of every register at one program point
(``join_states`` merges the states of several paths).  The constants here
are the limits and per-operation error allowances of the tolerance model.
A value that would leave the model raises ``Reject``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..bytecode.tables import Comparison

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


def _halfgrid_av(lo: float, hi: float, fl: int) -> tuple:
    return (lo, hi, 5, 0.0, fl | HALF)


# --------------------------------------------------------------------------
# Abstract state at one program point
# --------------------------------------------------------------------------


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
