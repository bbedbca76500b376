"""The abstract interpreter (``_Interp``), also the generator's checker: it
runs an instruction, a block or a whole program over ``State``s of
abstract values and raises ``Reject`` where the result would not be
well-defined (``generate``'s module docstring lists the rules).  Loops are
re-run per iteration; if/else and loop exits join the states of all paths.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..bytecode.model import Instruction, SourceOperand
from ..bytecode.tables import (
    TEXTURE,
    Comparison,
    Opcode,
    RegisterType,
    SamplerType,
    SrcMod,
    TexControl,
    swizzle_components,
)
from .generate_program import (
    MATRIX_SHAPE,
    PER_COMPONENT,
    SCALAR_OPS,
    SCALAR_SLOT,
    SPECIAL_OK,
    Node,
    _mask_comps,
    _tex_dims,
)
from .generate_values import (
    AFFINE,
    HALF,
    SPECIAL,
    TEX_CUBE_ERR,
    TEX_LINEAR_ERR,
    TEX_SRGB_ERR,
    U_RCP,
    UNIFORM,
    ZERO,
    Reject,
    State,
    _away_from_zero,
    _exact,
    _is_zero,
    _join_regs,
    _mag,
    _mk,
    _nospecial,
    av_abs,
    av_add,
    av_cmp_zero,
    av_compare,
    av_dot,
    av_exact,
    av_exp,
    av_frc,
    av_join,
    av_log,
    av_minmax,
    av_mul,
    av_neg,
    av_pow,
    av_rcp,
    av_rsq,
    av_sat,
    av_select,
    av_sgn,
    av_sub,
    av_trig,
    join_states,
)

if TYPE_CHECKING:
    from .generate_builder import _Generator

R = RegisterType
O = Opcode


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
