"""The abstract interpretation of what ps_1_x adds to ``generate._Interp``:
source modifiers, result shifts, co-issued pairs, the texture registers and
ops, cnd, bem and the depth ops (``generate_sm1``'s module docstring)."""

from __future__ import annotations

import math

from ..bytecode.model import DestOperand, Instruction, SourceOperand
from ..bytecode.tables import TEXTURE, Comparison, SrcMod, swizzle_components
from .generate import (
    POINT,
    TEX_CUBE_ERR,
    TEX_LINEAR_ERR,
    HALF,
    UNIFORM,
    AFFINE,
    ZERO,
    Node,
    O,
    R,
    Reject,
    State,
    _Interp,
    _mag,
    _mask_comps,
    _mk,
    _nospecial,
    av_add,
    av_compare,
    av_dot,
    av_exact,
    av_mul,
    av_neg,
    av_sat,
    av_select,
    av_sub,
)
from .generate_sm1_policy import PROJECTED_STAGES, STAGE_KINDS, _direct, stage_kind, stage_role

_PAD = -1  # State.regs key type of a texm pad row: (_PAD, m) -> (row AV,)
NONE4 = (None,) * 4
ONE = av_exact(1.0)
TWO = av_exact(2.0)
HALF_AV = av_exact(0.5)
# a bump-environment matrix entry / luminance scale or offset: multiples of 1/16 in [-1, 1]
STAGE_VALUE = (-1.0, 1.0, 4, 0.0, UNIFORM | AFFINE)


# --------------------------------------------------------------------------
# Abstract interpretation of the ps_1_x additions
# --------------------------------------------------------------------------


def apply_modifier(mod: SrcMod, a: tuple) -> tuple:
    """A ps_1_x source modifier on an AV (§3.1; negation last)."""
    if mod == SrcMod.NONE:
        return a
    if mod == SrcMod.NEG:
        return av_neg(a)
    if mod in (SrcMod.BIAS, SrcMod.BIASNEG):
        r = av_sub(a, HALF_AV)
        return av_neg(r) if mod == SrcMod.BIASNEG else r
    if mod in (SrcMod.SIGN, SrcMod.SIGNNEG):
        r = av_sub(av_mul(TWO, a), ONE)
        return av_neg(r) if mod == SrcMod.SIGNNEG else r
    if mod == SrcMod.COMP:
        return av_sub(ONE, a)
    if mod in (SrcMod.X2, SrcMod.X2NEG):
        r = av_mul(TWO, a)
        return av_neg(r) if mod == SrcMod.X2NEG else r
    raise Reject("modifier")


def _divide(a: tuple, div: tuple) -> tuple:
    """a / div for _dz/_dw: div must stay away from 0 (the texcoord ranges
    keep z, w in (0.5, 2)); a division has rcp's error and a rounding."""
    _nospecial(a, div)
    lo, hi = div[0] - div[3], div[1] + div[3]
    if lo < 0.25 and hi > -0.25:
        raise Reject("_dz/_dw divisor near zero")
    mn = min(abs(lo), abs(hi))
    corners = [x / y for x in (a[0], a[1]) for y in (div[0], div[1])]
    err = a[3] / mn + _mag(a) * div[3] / (mn * mn)
    return _mk(min(corners), max(corners), -1, err, a[4] & div[4] & UNIFORM, 2.0**-21)


class _PS1Interp(_Interp):
    def __init__(self, gen):
        super().__init__(gen)
        self.phase = 2  # ps_1_4: 1 before ``phase`` in a two-phase program
        self.deferred: list | None = None  # writes of a co-issued pair, applied at its end

    # -- reading ---------------------------------------------------------------

    def reg_values(self, st: State, rtype: int, index: int) -> tuple:
        g = self.g
        if rtype == R.TEMP:
            return st.regs.get((rtype, index), NONE4)
        if rtype == TEXTURE:
            if g.ps14:  # read-only coordinates (texld / texcrd / texkill sources)
                return g.input_avs.get((TEXTURE, index), NONE4)
            return st.regs.get((TEXTURE, index), NONE4)  # written by a texture op
        if rtype == R.INPUT:
            if g.ps14 and self.phase == 1:
                raise Reject("v# in ps_1_4 phase 1")
            return g.input_avs.get((R.INPUT, index), NONE4)
        if rtype == R.CONST:
            return g.const_av(index)
        raise Reject(f"unreadable register type {rtype}")

    def read(self, st: State, src: SourceOperand, slots, delta: int = 0) -> list:
        mod = src.modifier
        if mod in (SrcMod.DZ, SrcMod.DW):  # divide before the swizzle (§3.1)
            vals = self.fetch(st, src)
            div = vals[2 if mod == SrcMod.DZ else 3]
            comps = swizzle_components(src.swizzle)
            out = []
            for s in slots:
                a = vals[comps[s]]
                if a is None or div is None:
                    raise Reject("read of an unwritten component")
                out.append(_divide(a, div))
            return out
        plain = SourceOperand(src.type, src.index, src.swizzle, SrcMod.NONE, src.relative)
        return [apply_modifier(mod, a) for a in super().read(st, plain, slots, delta)]

    def texcoord(self, m: int) -> tuple:
        """tc[m]: the raw interpolated coordinate set m."""
        return self.g.input_avs[(TEXTURE, m)]

    def projected_texcoord(self, m: int) -> tuple:
        """tc[m], divided by .w on a projected ps_1_1-1_3 stage."""
        tc = self.texcoord(m)
        if self.g.ps14 or m not in PROJECTED_STAGES:
            return tc
        return tuple(_divide(v, tc[3]) for v in tc[:3]) + (ONE,)

    # -- writing ---------------------------------------------------------------

    def write(self, st: State, ins: Instruction, values: dict):
        k = ins.dst.shift
        if k:  # result shift before saturate (§3.3)
            f = av_exact(2.0**k)
            values = {c: av_mul(v, f) for c, v in values.items()}
        if self.deferred is not None:
            self.deferred.append((ins, values))
            return
        self.store(st, ins, values)

    def store(self, st: State, ins: Instruction, values: dict):
        """The base write (mask, saturate) of values already shifted."""
        noshift = Instruction(ins.opcode, DestOperand(ins.dst.type, ins.dst.index, ins.dst.write_mask,
                                                      ins.dst.modifiers, 0, None), ins.srcs, ins.control)
        super().write(st, noshift, values)

    def node(self, st: State, node: Node) -> State | None:
        partner = getattr(node, "partner", None)
        if partner is None:
            return self.op(st, node.ins)
        # co-issue (§3.6): both read their sources before either writes
        self.deferred = []
        try:
            self.op(st, node.ins)
            self.op(st, partner)
            pending = self.deferred
        finally:
            self.deferred = None
        for ins, values in pending:
            self.store(st, ins, values)
        return st

    # -- instructions --------------------------------------------------------------

    def op(self, st: State, ins: Instruction) -> State | None:
        op = ins.opcode
        g = self.g
        if op == O.PHASE:
            self.phase = 2
            return st
        if op == O.TEXKILL:
            d = ins.dst
            vals = self.reg_values(st, d.type, d.index) if g.ps14 else self.texcoord(d.index)
            for v in vals[:3]:  # xyz only (§2.12)
                if v is None:
                    raise Reject("texkill of an unwritten component")
                av_compare(v, ZERO, Comparison.LT)
            st.killed = True
            return st
        if op in (O.TEXM3x2PAD, O.TEXM3x3PAD):
            st.regs[(_PAD, ins.dst.index)] = (self.row(st, ins), None, None, None)
            return st
        if op in (O.TEXM3x2DEPTH, O.TEXDEPTH):
            # depth = z / w clamped to [0, 1] (§2.11, §2.12); w stays away from 0, so the
            # w == 0 -> 1.0 case never arises.  Neither op writes its register.
            if op == O.TEXM3x2DEPTH:
                z, w = self.pad_rows(st, ins, 1)[0], self.row(st, ins)
            else:
                z, w = self.reg_values(st, ins.dst.type, ins.dst.index)[:2]
                if z is None or w is None:
                    raise Reject("texdepth of an unwritten r5.rg")
            st.regs[(R.DEPTHOUT, 0)] = (av_sat(_divide(z, w)), None, None, None)
            return st
        if ins.dst is not None and ins.dst.type == R.TEMP and ins.dst.index >= g.ntemps:
            raise Reject("temp out of range")
        comps = _mask_comps(ins.dst.write_mask) if ins.dst is not None else []
        if op == O.CND:
            if g.ps14:
                conds = [av_compare(a, HALF_AV, Comparison.GT) for a in self.read(st, ins.srcs[0], comps)]
            else:  # ps_1_1-1_3: r0.a for every component
                conds = [av_compare(self.read(st, ins.srcs[0], [3])[0], HALF_AV, Comparison.GT)] * len(comps)
            s1, s2 = (self.read(st, x, comps) for x in ins.srcs[1:3])
            self.write(st, ins, {c: av_select(conds[i], s1[i], s2[i]) for i, c in enumerate(comps)})
            return st
        if op == O.BEM:
            s0, s1 = self.read(st, ins.srcs[0], [0, 1]), self.read(st, ins.srcs[1], [0, 1])
            full = {0: self.bump(s0[0], s1), 1: self.bump(s0[1], s1)}
            self.write(st, ins, {c: full[c] for c in comps if c < 2})
            return st
        if op in (O.TEX, O.TEXCOORD, O.TEXBEM, O.TEXBEML, O.TEXREG2AR, O.TEXREG2GB, O.TEXREG2RGB, O.TEXM3x2TEX,
                  O.TEXM3x3TEX, O.TEXM3x3, O.TEXDP3, O.TEXDP3TEX, O.TEXM3x3SPEC, O.TEXM3x3VSPEC):
            full = self.texture_op(st, ins)
            self.write(st, ins, {c: full[c] for c in comps})
            return st
        return super().op(st, ins)

    def bump(self, base: tuple, s: list) -> tuple:
        """base + M·s for one row of a bump-environment matrix (entries STAGE_VALUE)."""
        return av_add(base, av_add(av_mul(STAGE_VALUE, s[0]), av_mul(STAGE_VALUE, s[1])))

    def row(self, st: State, ins: Instruction) -> tuple:
        """tc[dst].xyz · t(n).xyz, a texm3x* row (§2.11)."""
        return av_dot(self.texcoord(ins.dst.index)[:3], self.read(st, ins.srcs[0], [0, 1, 2]))

    def pad_rows(self, st: State, ins: Instruction, count: int) -> list:
        m = ins.dst.index
        rows = []
        for k in range(count, 0, -1):
            r = st.regs.pop((_PAD, m - k), None)
            if r is None:
                raise Reject("texm op without its pads")
            rows.append(r[0])
        return rows

    def texture_op(self, st: State, ins: Instruction) -> dict:
        """The four result AVs of a ps_1_x texture op writing t(m)/r(m)."""
        op, m = ins.opcode, ins.dst.index
        g = self.g
        if op == O.TEX:
            if not ins.srcs:  # tex t#
                return self.sample(st, m, list(self.projected_texcoord(m)[:3]), True)
            src = ins.srcs[0]  # texld r#, src: the components the stage's dimension uses
            slots = [0, 1] if STAGE_KINDS[m] == "2d" else [0, 1, 2]
            return self.sample(st, m, self.read(st, src, slots), _direct(ins))
        if op == O.TEXCOORD:
            if not ins.srcs:  # texcoord t#: saturate, w = 1
                return {**{c: av_sat(v) for c, v in enumerate(self.texcoord(m)[:3])}, 3: ONE}
            vals = self.read(st, ins.srcs[0], _mask_comps(ins.dst.write_mask))  # texcrd: a copy
            return dict(zip(_mask_comps(ins.dst.write_mask), vals))
        if g.ps14:
            raise Reject(f"{op.name} in ps_1_4")
        if op in (O.TEXBEM, O.TEXBEML):
            tc = self.projected_texcoord(m)  # only tc is projected, before the displacement
            s = self.read(st, ins.srcs[0], [0, 1, 2])
            out = self.sample(st, m, [self.bump(tc[0], s), self.bump(tc[1], s), tc[2]], False)
            if op == O.TEXBEML:
                lum = av_sat(av_add(av_mul(s[2], STAGE_VALUE), STAGE_VALUE))
                out = {c: av_mul(v, lum) for c, v in out.items()}
            return out
        if op in (O.TEXREG2AR, O.TEXREG2GB, O.TEXREG2RGB):
            s = self.read(st, ins.srcs[0], [0, 1, 2, 3])
            coord = {O.TEXREG2AR: [s[3], s[0]], O.TEXREG2GB: [s[1], s[2]], O.TEXREG2RGB: s[:3]}[op]
            return self.sample(st, m, coord, False)
        if op == O.TEXM3x2TEX:
            u = self.pad_rows(st, ins, 1)[0]
            return self.sample(st, m, [u, self.row(st, ins)], False)
        if op in (O.TEXM3x3SPEC, O.TEXM3x3VSPEC):
            n = self.pad_rows(st, ins, 2) + [self.row(st, ins)]
            if op == O.TEXM3x3SPEC:  # E = c#.xyz
                e = self.read(st, ins.srcs[1], [0, 1, 2])
            else:  # E = the rows' texture coordinate .w
                e = [self.texcoord(k)[3] for k in (m - 2, m - 1, m)]
            return self.sample(st, m, self.reflect(n, e), False, stage_kind(m, op))
        if op in (O.TEXM3x3TEX, O.TEXM3x3):
            n = self.pad_rows(st, ins, 2) + [self.row(st, ins)]
            if op == O.TEXM3x3:
                return {0: n[0], 1: n[1], 2: n[2], 3: ONE}
            return self.sample(st, m, n, False, stage_kind(m, op))
        if op == O.TEXDP3:
            r = self.row(st, ins)
            return {c: r for c in range(4)}
        if op == O.TEXDP3TEX:
            return self.sample(st, m, [self.row(st, ins)], False)
        raise Reject(op.name)

    def reflect(self, n: list, e: list) -> list:
        """R = 2·(N·E)/(N·N)·N − E (§2.11, nothing normalised): |R| = |E|
        whatever N, and its rounding error stays a few ulps of |E| as long
        as N·N stays away from 0 (plus what N's and E's errors move)."""
        _nospecial(*n, *e)
        nerr, eerr = max(x[3] for x in n), max(x[3] for x in e)
        # the least N·N: per component the least square over its interval (with its error)
        nn = sum(0.0 if x[0] - x[3] <= 0.0 <= x[1] + x[3] else min(abs(x[0]) - x[3], abs(x[1]) - x[3]) ** 2 for x in n)
        if nn < 2.0**-5:
            raise Reject("N may be short")
        emax = math.sqrt(sum(_mag(x) ** 2 for x in e))
        err = 2.0**-16 * (1.0 + emax) + 4.0 * emax * nerr / math.sqrt(nn) + 3.0 * eerr
        r = _mk(-emax, emax, -1, err, 0)
        return [r, r, r]

    def sample(self, st: State, stage: int, coord: list, direct: bool, kind: str | None = None) -> dict:
        """Four result AVs of sampling ``stage`` (its kind and role from the
        stage policy) at ``coord`` (missing components are 0)."""
        self.need_derivatives(st)
        kind = kind or STAGE_KINDS[stage]
        role = stage_role(stage, direct, kind)
        dims = 2 if kind == "2d" else 3
        coord = (list(coord) + [ZERO] * 3)[:dims]
        for v in coord:
            if v is None:
                raise Reject("coordinate unwritten")
        _nospecial(*coord)
        if role == POINT:
            for v in coord:
                if not v[4] & HALF:  #: an odd multiple of 1/32, never on a texel boundary
                    raise Reject("point-sampled coordinate off the half grid")
            r = (0.0, 1.0, 4, 0.0, 0)
            return {c: r for c in range(4)}
        err = 0.0
        for v in coord:
            if _mag(v) > 16:
                raise Reject("coordinate range")
            err = max(err, v[3])
        if kind == "cube":
            big = max(min(abs(v[0]), abs(v[1])) if v[0] * v[1] > 0 else 0.0 for v in coord)
            if big < 0.25:
                raise Reject("cube direction may be short")
            r = _mk(0.0, 1.0, -1, TEX_CUBE_ERR + 4 * err, 0)
        else:
            r = _mk(0.0, 1.0, -1, TEX_LINEAR_ERR + 32 * err, 0)
        return {c: r for c in range(4)}
