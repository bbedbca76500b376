"""The generator's per-instruction half (``_InstructionGenerator``, the base
of ``generate_builder._Generator``): the generator's state, the random
declarations, constants and outputs of a program (``setup``), operand
choice (sources, swizzles, modifiers, relative addressing, destinations)
and the proposal of single arithmetic, texture and predicated
instructions.  Every proposal is checked afterwards by ``_Interp``.
"""

from __future__ import annotations

import numpy as np

from ..bytecode.model import Declaration, DestOperand, Instruction, SourceOperand
from ..bytecode.tables import (
    IDENTITY_SWIZZLE,
    OPCODES,
    OUTPUT,
    TEXTURE,
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
from .generate_inputs import _roles_from
from .generate_interp import _Interp
from .generate_program import (
    A0_REL,
    AL_REL,
    MATRIX_SHAPE,
    PER_COMPONENT,
    SCALAR_OPS,
    SCALAR_SLOT,
    Function,
    GenOptions,
    InputInfo,
    _dst,
    _mask_comps,
    _src,
    _tex_dims,
)
from .generate_values import (
    AFFINE,
    HALF,
    SINCOS_CONST1,
    SINCOS_CONST2,
    UNIFORM,
    ZERO,
    Reject,
    State,
    _exact,
    _halfgrid_av,
    av_exact,
)

R = RegisterType
O = Opcode


# --------------------------------------------------------------------------
# The generator: registers, operands and single instructions
# --------------------------------------------------------------------------


VS_USAGES = [(DeclUsage.NORMAL, 0), (DeclUsage.TEXCOORD, 0), (DeclUsage.TEXCOORD, 1), (DeclUsage.TEXCOORD, 2),
             (DeclUsage.COLOR, 0), (DeclUsage.COLOR, 1), (DeclUsage.TANGENT, 0), (DeclUsage.BLENDWEIGHT, 0),
             (DeclUsage.BINORMAL, 0), (DeclUsage.TEXCOORD, 3)]
PS3_USAGES = [(DeclUsage.TEXCOORD, i) for i in range(8)] + [(DeclUsage.COLOR, 0), (DeclUsage.COLOR, 1),
                                                             (DeclUsage.NORMAL, 0), (DeclUsage.TANGENT, 0)]


class _InstructionGenerator:
    """The generator state, declarations, operand choice and instruction
    proposals; ``generate_builder._Generator`` adds the program structure."""

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
