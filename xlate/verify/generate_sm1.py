"""Random valid, well-defined ps_1_1–ps_1_4 programs for differential testing.

The shader-model-1 pixel part of ``generate`` (which dispatches here for
``PS1_VERSIONS``): the same abstract interpretation (``generate._Interp``,
abstract values ``AV = (lo, hi, d, err, flags)``) extended with what
ps_1_x adds (D3D9_SEMANTICS §2.6, §2.10–2.12, §3.1–3.6; the reference
interpreter, ``reference_sm1``, is the truth):

* **ps_1_1–1_3** — a texture block, then arithmetic.  Texture ops write
  t0–t3 once each: ``tex``, ``texcoord`` (saturated, w = 1), ``texbem`` /
  ``texbeml`` (stage m's bump matrix and luminance), ``texreg2ar/gb/rgb``,
  ``texm3x2pad``+``texm3x2tex``, ``texm3x3pad``×2 + ``texm3x3tex`` /
  ``texm3x3``, ``texdp3`` / ``texdp3tex``, then ``texkill`` (the raw
  coordinate set's xyz).  The source register n of a texture-address op is
  below its destination m and was written by an earlier texture op.
* **ps_1_4** — one or two phases (``phase``): ``texld r#, t#|r#`` with
  ``_dz`` / ``_dw``, ``texcrd``, ``bem`` (phase 1), ``texkill r#|t#``;
  v# only in phase 2 (or without ``phase``), dependent reads from r# only
  in phase 2.
* Arithmetic: mov, add, sub, mul, mad, lrp, dp3, dp4, cnd (ps_1_1–1_3:
  ``r0.a`` > 0.5 for every component; ps_1_4 per component), cmp; source
  modifiers ``-``, ``_bias``, ``_bx2``, ``1-``, ``_x2`` (ps_1_4); result
  shifts ``_x2 _x4 _d2`` (and ``_x8 _d4 _d8`` in ps_1_4) before ``_sat``;
  co-issued pairs (``+``: one writes .rgb, the other .a, both read before
  either writes).
* Constants c0–c7 are clamped to [−1, 1] (DEF values too: some ``def``
  values lie outside on purpose); the colour r0 is the output ``oC0``.

Stage policy (derived from the shader alone, ``stage_plan``): the texture
kind of stage k is ``STAGE_KINDS[k]`` (translated with the
``sampler_types`` option, ``translate_options``); a 2D or volume stage in
``POINT_STAGES`` sampled only *directly* (``tex t#``, ``texld r#, t#``
without ``_dz``/``_dw``) is POINT-sampled (coordinates on the half grid,
exact results), every other stage LINEAR (one level) or CUBE.

Stages in ``PROJECTED_STAGES`` (ps_1_1-1_3) have D3DTTFF_PROJECTED
(``texture_projection`` COUNT4): ``tex`` and ``texbem``/``texbeml`` divide
tc[m] by .w.

Inputs (``ps1_inputs``): v0/v1 in (0, 1); texture coordinate sets with
x, y in (−2, 2) and z, w in (0.5, 2) (``TEXCOORD_RANGES``: the divisor of
``_dz``/``_dw`` and a cube direction's z stay away from 0; set 3 all in
(0.5, 2)); all affine in
the pixel position, odd multiples of 1/32; API constants in (−2, 2) (so the
clamp bites); bump matrices, luminance scales and offsets multiples of
1/16 in [−1, 1].

Depth: ``texm3x2depth`` (ps_1_3) and ``texdepth r5`` (ps_1_4 phase 2) write
``oDepth`` = z / w clamped to [0, 1], with w kept away from 0.

``texm3x3spec``/``texm3x3vspec`` sample a volume at the reflection vector,
whose length is E's (``_PS1Interp.reflect``); N must stay away from 0.
"""

from __future__ import annotations

import struct

from ..bytecode.model import DestOperand, Instruction, Shader, SourceOperand
from ..bytecode.tables import (
    IDENTITY_SWIZZLE,
    OPCODES,
    TEXTURE,
    DstMod,
    ShaderVersion,
    SrcMod,
    make_swizzle,
    replicate_swizzle,
)
from .generate import (
    PS1_VERSIONS,
    CUBE,
    LINEAR,
    POINT,
    UNIFORM,
    AFFINE,
    ZERO,
    GeneratedProgram,
    GenOptions,
    InputInfo,
    Node,
    O,
    R,
    Reject,
    State,
    _dst,
    _exact,
    _Generator,
    _halfgrid_av,
    _Interp,
    _mask_comps,
    _src,
    av_exact,
)
from .generate_sm1_policy import (
    COLOR_RANGE,
    PROJECTED_STAGES,
    STAGE_KINDS,
    XYZ,
    XYW,
    _direct,
    is_ps1,
    ps1_inputs,
    stage_plan,
    texcoord_ranges,
    translate_options,
)
from .generate_sm1_interp import NONE4, ONE, _divide, _PS1Interp

# --------------------------------------------------------------------------
# The generator
# --------------------------------------------------------------------------

_ALPHA_OPS = (O.MOV, O.ADD, O.SUB, O.MUL, O.MAD, O.LRP, O.CND, O.CMP)


class _PS1Generator(_Generator):
    def __init__(self, rng, version: ShaderVersion, opts: GenOptions):
        super().__init__(rng, version, opts)
        self.ps14 = version.minor >= 4
        self.ntemps = 6 if self.ps14 else 2
        self.ntex = 6 if self.ps14 else 4
        self.const_count = self.const_window = 8
        self.abs_ok = False
        self.interp = _PS1Interp(self)
        self.two_phase = False
        self.stage_direct: dict[int, bool] = {}
        self.depth_ready = False  # ps_1_4: r5.g was written away from 0 for texdepth

    # -- static registers -------------------------------------------------------

    def const_av(self, index: int) -> tuple:
        if index in self.defs:  # §3.5: DEF values are clamped too
            return tuple(av_exact(min(max(x, -1.0), 1.0)) for x in self.defs[index])
        if 0 <= index < self.const_count:  # API values in (-2, 2) clamped: multiples of 1/32 in [-1, 1]
            return ((-1.0, 1.0, 5, 0.0, UNIFORM | AFFINE),) * 4
        return (ZERO,) * 4

    def setup(self):
        rng = self.rng
        for k in range(2):
            self._add_input((R.INPUT, k), 0xF, None, k, *COLOR_RANGE)
        for k in range(self.ntex):
            self.inputs.append(InputInfo((TEXTURE, k), 0xF, None, k, -2.0, 2.0))
            self.input_avs[(TEXTURE, k)] = tuple(_halfgrid_av(lo, hi, AFFINE) for lo, hi in texcoord_ranges(k))
        for _ in range(rng.randint(0, 3)):
            idx = rng.randrange(self.const_count)
            if idx in self.defs:
                continue
            if rng.random() < 0.4:  # exact special values, some outside [-1, 1] (clamped)
                vals = tuple(rng.choice([0.0, 1.0, -1.0, 0.5, 2.0, -1.5, 0.25, -0.5, 0.75]) for _ in range(4))
            else:
                vals = tuple((2 * rng.randint(-32, 31) + 1) / 32 for _ in range(4))
            self.defs[idx] = vals
        self.output_masks = {(R.TEMP, 0): 0xF}
        self.dcls = []

    # -- operand choice -----------------------------------------------------------

    def readable(self, st: State, need_exact=False, want=None):
        out = []
        for (rt, idx), vals in st.regs.items():
            if rt in (R.TEMP, TEXTURE) and any(x is not None for x in vals):
                out.append((rt, idx, vals))
        if not (self.ps14 and self.interp.phase == 1):
            for k in range(2):
                out.append((R.INPUT, k, self.input_avs[(R.INPUT, k)]))
        k = self.rng.randrange(self.const_count)
        out.append((R.CONST, k, self.const_av(k)))
        for d in list(self.defs)[:2]:
            out.append((R.CONST, d, self.const_av(d)))
        if need_exact:
            out = [c for c in out if any(x is not None and _exact(x) for x in c[2])] or out
        return out

    def swizzle(self, avail, slots, replicate=False) -> int:
        rng = self.rng
        reps = avail if self.ps14 else ([c for c in avail if c >= 2] or avail)  # ps_1_1-1_3: .b / .a replicates
        if replicate or rng.random() < 0.25:
            return replicate_swizzle(rng.choice(reps))
        if set(avail) >= {0, 1, 2, 3}:
            return IDENTITY_SWIZZLE
        return make_swizzle([c if c in avail else rng.choice(avail) for c in range(4)])

    def modifier(self, allow=True) -> SrcMod:
        if not allow:
            return SrcMod.NONE
        r = self.rng.random()
        table = [(0.10, SrcMod.NEG), (0.17, SrcMod.BIAS), (0.20, SrcMod.BIASNEG), (0.30, SrcMod.SIGN),
                 (0.34, SrcMod.SIGNNEG), (0.42, SrcMod.COMP)]
        if self.ps14:
            table += [(0.47, SrcMod.X2), (0.50, SrcMod.X2NEG)]
        for p, mod in table:
            if r < p:
                return mod
        return SrcMod.NONE

    def dest(self, st: State, *, allow_output=True, mask=None, writemask_ok=True) -> DestOperand:
        rng = self.rng
        rtype, idx = R.TEMP, rng.randrange(self.ntemps)
        if not self.ps14 and rng.random() < 0.15:
            written = [i for (rt, i) in st.regs if rt == TEXTURE]
            if written:
                rtype, idx = TEXTURE, rng.choice(written)
        if mask is None:
            if self.ps14:
                mask = 0xF if rng.random() < 0.5 else rng.randint(1, 15)
            else:
                mask = rng.choice([0xF, 0xF, 0x7, 0x8])
        mods = DstMod.SATURATE if rng.random() < 0.15 else DstMod.NONE
        shift = 0
        if rng.random() < 0.2:
            shift = rng.choice([1, 2, -1] + ([3, -2, -3] if self.ps14 else []))
        return DestOperand(rtype, idx, mask, mods, shift, None)

    # -- proposals ------------------------------------------------------------------

    def arith_ops(self) -> list:
        ops = [O.MOV, O.ADD, O.ADD, O.SUB, O.MUL, O.MUL, O.MAD, O.MAD, O.LRP, O.DP3, O.CND, O.DP4, O.CMP]
        if self.ps14 and self.interp.phase == 1 and self.two_phase:
            ops += [O.BEM, O.BEM, O.BEM]
        return [o for o in ops if OPCODES[o].allowed_in(self.version)]

    def propose_arith(self, st: State, op, mask=None) -> Instruction:
        rng = self.rng
        d = self.dest(st, mask=mask)
        comps = _mask_comps(d.write_mask)
        if op in (O.DP3, O.DP4):
            if not self.ps14 and d.write_mask == 0x8 and op == O.DP3:
                raise Reject("dp3 in the alpha pipe")
            k = 3 if op == O.DP3 else 4
            return Instruction(op, d, (self.source(st, range(k), prefer_recent=True), self.source(st, range(k))))
        if op == O.BEM:
            d = DestOperand(R.TEMP, d.index, 0x3, d.modifiers, d.shift, None)
            return Instruction(op, d, (self.source(st, [0, 1], prefer_recent=True), self.source(st, [0, 1])))
        if op == O.CND and not self.ps14:
            sel = _src(R.TEMP, 0, replicate_swizzle(3))
            return Instruction(op, d, (sel, self.source(st, comps), self.source(st, comps)))
        nsrc = OPCODES[op].forms[0].nsrc
        srcs = [self.source(st, comps, need_exact=op in (O.CND, O.CMP) and i == 0, prefer_recent=i == 0)
                for i in range(nsrc)]
        return Instruction(op, d, tuple(srcs))

    def make_pair(self, st: State) -> Node:
        """A co-issued pair: one op writes .rgb, the other .a (§3.6)."""
        rng = self.rng
        ops = self.arith_ops()
        vec = self.propose_arith(st, rng.choice([o for o in ops if o != O.BEM]), mask=0x7)
        alpha = self.propose_arith(st, rng.choice([o for o in _ALPHA_OPS if o in ops]), mask=0x8)
        first, second = (vec, alpha) if rng.random() < 0.5 else (alpha, vec)
        second = Instruction(second.opcode, second.dst, second.srcs, second.control, None, True)
        node = Node("op", first)
        node.partner = second  # type: ignore[attr-defined]
        return node

    def arith_block(self, st: State, budget: int) -> tuple[State, list]:
        nodes: list[Node] = []
        used = stall = 0
        rng = self.rng
        while used < budget and stall < 8:
            if rng.random() < 0.2:
                make = lambda: self.make_pair(st)  # noqa: E731
            else:
                op = rng.choice(self.arith_ops())
                make = lambda: Node("op", self.propose_arith(st, op))  # noqa: E731
            made = self.try_node(st, make)
            if made is None:
                stall += 1
                continue
            st, node = made
            nodes.append(node)
            used += 1
            for ins in (node.ins, getattr(node, "partner", None)):
                if ins is not None and ins.dst.type == R.TEMP:
                    key = (R.TEMP, ins.dst.index)
                    if key in self.last_written:
                        self.last_written.remove(key)
                    self.last_written.append(key)
        return st, nodes

    def _try_ops(self, st: State, inss: list) -> State | None:
        s = st.copy()
        try:
            for ins in inss:
                s = self.interp.op(s, ins)
        except Reject:
            return None
        return s

    def _tsrc(self, n: int, sign_ok: bool) -> SourceOperand:
        mod = SrcMod.SIGN if sign_ok and self.rng.random() < 0.35 else SrcMod.NONE
        return _src(TEXTURE, n, IDENTITY_SWIZZLE, mod)

    def tex_block_13(self, st: State) -> tuple[State, list]:
        """ps_1_1-1_3 texture instructions: each t# written once, sources below destinations."""
        rng, v = self.rng, self.version
        nodes: list[Node] = []
        free = list(range(self.ntex))
        forms = ["tex", "tex", "tex", "texcoord", "texbem", "texbeml", "texreg2ar", "texreg2gb", "texreg2rgb",
                 "texm3x2", "texm3x3tex", "texm3x3", "texdp3", "texdp3tex", "texm3x3spec", "texm3x3vspec",
                 "texm3x3spec", "texm3x3vspec", "texcoord"]
        if v.minor >= 3:
            forms += ["texm3x2depth"] * 4 + ["texcoord"] * 2
        later = v.minor >= 2
        target, done = rng.choice([0, 1, 2, 2, 3, 3, 4]), 0
        for _ in range(24):
            if not free or done >= target:
                break
            form = rng.choice(forms)
            written = sorted(i for (rt, i) in st.regs if rt == TEXTURE)
            if form in ("tex", "texcoord"):
                m = min(free) if rng.random() < 0.5 else rng.choice(free)
                inss = [Instruction(O.TEX if form == "tex" else O.TEXCOORD, _dst(TEXTURE, m))]
                taken = [m]
            else:
                if not written:
                    continue
                n = rng.choice(written)
                span = {"texm3x2": 2, "texm3x2depth": 2, "texm3x3tex": 3, "texm3x3": 3, "texm3x3spec": 3,
                        "texm3x3vspec": 3}.get(form, 1)
                starts = [m for m in free if m > n and all(m + j in free for j in range(span))]
                if not starts:
                    continue
                m = rng.choice(starts)
                taken = list(range(m, m + span))
                simple = {"texbem": O.TEXBEM, "texbeml": O.TEXBEML, "texreg2ar": O.TEXREG2AR,
                          "texreg2gb": O.TEXREG2GB, "texreg2rgb": O.TEXREG2RGB, "texdp3": O.TEXDP3,
                          "texdp3tex": O.TEXDP3TEX}
                if form in simple:
                    op = simple[form]
                    sign_ok = (later or op not in (O.TEXBEM, O.TEXBEML)) and op not in (
                        O.TEXREG2AR, O.TEXREG2GB, O.TEXREG2RGB)
                    inss = [Instruction(op, _dst(TEXTURE, m), (self._tsrc(n, sign_ok),))]
                else:
                    src = self._tsrc(n, form != "texm3x2depth")  # w = tc·t(n) must stay positive
                    if form in ("texm3x2", "texm3x2depth"):
                        if form == "texm3x2depth" and (R.DEPTHOUT, 0) in st.regs:
                            continue
                        last = O.TEXM3x2TEX if form == "texm3x2" else O.TEXM3x2DEPTH
                        inss = [Instruction(O.TEXM3x2PAD, _dst(TEXTURE, m), (src,)),
                                Instruction(last, _dst(TEXTURE, m + 1), (src,))]
                    else:
                        last = {"texm3x3tex": O.TEXM3x3TEX, "texm3x3": O.TEXM3x3, "texm3x3spec": O.TEXM3x3SPEC,
                                "texm3x3vspec": O.TEXM3x3VSPEC}[form]
                        srcs = (src, _src(R.CONST, rng.randrange(self.const_count))) if form == "texm3x3spec" else (src,)
                        inss = [Instruction(O.TEXM3x3PAD, _dst(TEXTURE, m), (src,)),
                                Instruction(O.TEXM3x3PAD, _dst(TEXTURE, m + 1), (src,)),
                                Instruction(last, _dst(TEXTURE, m + 2), srcs)]
            if not all(OPCODES[i.opcode].allowed_in(v) for i in inss):
                continue
            s2 = self._try_ops(st, inss)
            if s2 is None:
                continue
            st = s2
            done += 1
            nodes += [Node("op", i) for i in inss]
            for t in taken:
                free.remove(t)
        return self.kills(st, nodes, [(TEXTURE, k) for k in range(self.ntex)])

    def kills(self, st: State, nodes: list, regs: list) -> tuple[State, list]:
        for _ in range(self.rng.choice([0, 0, 0, 0, 0, 1, 1, 2])):
            rt, k = self.rng.choice(regs)
            s2 = self._try_ops(st, [Instruction(O.TEXKILL, _dst(rt, k))])
            if s2 is not None:
                st = s2
                nodes.append(Node("op", Instruction(O.TEXKILL, _dst(rt, k))))
        return st, nodes

    def tex_block_14(self, st: State, phase: int) -> tuple[State, list]:
        """ps_1_4 texld/texcrd of one phase (each r# once), then texkill."""
        rng = self.rng
        nodes: list[Node] = []
        free = list(range(self.ntemps))
        dependent = phase == 2 and self.two_phase
        earlier = [i for (rt, i) in st.regs if rt == R.TEMP] if dependent else []
        for _ in range(rng.randint(0, 5)):
            if not free:
                break
            k = rng.choice(free)
            crd = rng.random() < 0.3
            if earlier and rng.random() < 0.4:
                src = _src(R.TEMP, rng.choice(earlier), IDENTITY_SWIZZLE, rng.choice([SrcMod.NONE, SrcMod.NONE, SrcMod.DZ]))
            else:
                swizzle = rng.choice([IDENTITY_SWIZZLE] * 3 + [XYZ, XYW])  # t#.xyz / t#.xyw forms
                src = _src(TEXTURE, rng.randrange(self.ntex), swizzle,
                           rng.choice([SrcMod.NONE, SrcMod.NONE, SrcMod.DZ, SrcMod.DW]))
            divided = src.modifier in (SrcMod.DZ, SrcMod.DW)
            if crd:
                if src.type != TEXTURE:
                    continue
                mask = 0x3 if divided else (rng.choice([0xF, 0x7]) if src.swizzle == IDENTITY_SWIZZLE else 0x7)
                ins = Instruction(O.TEXCOORD, _dst(R.TEMP, k, mask), (src,))
            else:
                if divided and STAGE_KINDS[k] != "2d":
                    continue  # z/w of a divided coordinate are not defined (§2.10)
                direct = src.type == TEXTURE and not divided
                if self.stage_direct.get(k, direct) != direct:
                    continue
                ins = Instruction(O.TEX, _dst(R.TEMP, k), (src,))
            s2 = self._try_ops(st, [ins])
            if s2 is None:
                continue
            st = s2
            nodes.append(Node("op", ins))
            free.remove(k)
            if ins.opcode == O.TEX:
                self.stage_direct[k] = _direct(ins)
        if phase == 2 and rng.random() < (0.9 if self.depth_ready else 0.1):
            ins = Instruction(O.TEXDEPTH, _dst(R.TEMP, 5))
            s2 = self._try_ops(st, [ins])
            if s2 is not None:
                st = s2
                nodes.append(Node("op", ins))
        if phase == 2:
            regs = [(TEXTURE, j) for j in range(self.ntex)] + [(R.TEMP, i) for (rt, i) in st.regs if rt == R.TEMP]
            st, nodes = self.kills(st, nodes, regs)
        return st, nodes

    def depth_source(self, st: State) -> tuple[State, list]:
        """ps_1_4 phase 1: write r5.rg with a g away from 0, for texdepth."""
        for _ in range(12):
            op = self.rng.choice([O.MOV, O.ADD, O.MAD, O.MUL])
            try:
                ins = self.propose_arith(st, op, mask=self.rng.choice([0x3, 0xF]))
                ins = Instruction(op, DestOperand(R.TEMP, 5, ins.dst.write_mask, ins.dst.modifiers, ins.dst.shift, None),
                                  ins.srcs)
                s2 = self.interp.op(st.copy(), ins)
                _divide(ONE, s2.regs[(R.TEMP, 5)][1])
            except Reject:
                continue
            return s2, [Node("op", ins)]
        return st, []

    def epilogue(self, st: State) -> tuple[State, list]:
        """Write every component of r0 (the colour) that is not written yet."""
        have = st.regs.get((R.TEMP, 0), NONE4)
        missing = sum(1 << c for c in range(4) if have[c] is None)
        if not missing:
            return st, []
        if not self.ps14:
            missing = 0x7 if missing & 0x7 == missing else (0x8 if missing == 0x8 else 0xF)
        for attempt in range(16):
            op = O.MOV if attempt >= 12 or self.rng.random() < 0.5 else self.rng.choice([O.ADD, O.MUL, O.MAD])
            try:
                d = DestOperand(R.TEMP, 0, missing, DstMod.NONE, 0, None)
                nsrc = OPCODES[op].forms[0].nsrc
                srcs = tuple(self.source(st, _mask_comps(missing), prefer_recent=attempt < 8) for _ in range(nsrc))
                ins = Instruction(op, d, srcs)
                st = self.interp.op(st.copy(), ins)
                return st, [Node("op", ins)]
            except Reject:
                continue
        ins = Instruction(O.MOV, _dst(R.TEMP, 0, missing), (_src(R.CONST, 0),))
        return self.interp.op(st, ins), [Node("op", ins)]

    # -- driver ---------------------------------------------------------------------------

    def run(self) -> GeneratedProgram:
        self.setup()
        rng = self.rng
        st = State()
        main: list[Node] = []
        budget = rng.randint(self.opts.min_instructions, max(self.opts.min_instructions, min(self.opts.max_instructions, 12)))
        if self.ps14:
            self.two_phase = rng.random() < 0.6
            self.interp.phase = 1 if self.two_phase else 2
            st, nodes = self.tex_block_14(st, self.interp.phase)
            main += nodes
            if self.two_phase:
                st, nodes = self.arith_block(st, rng.randint(0, budget // 2))
                main += nodes
                if rng.random() < 0.4:
                    st, nodes = self.depth_source(st)
                    main += nodes
                    self.depth_ready = bool(nodes)
                main.append(Node("op", Instruction(O.PHASE)))
                self.interp.phase = 2
                st, nodes = self.tex_block_14(st, 2)
                main += nodes
        else:
            st, nodes = self.tex_block_13(st)
            main += nodes
        st, nodes = self.arith_block(st, budget)
        main += nodes
        st, nodes = self.epilogue(st)
        main += nodes
        # final validation of the whole program from scratch
        self.interp.phase = 1 if self.two_phase else 2
        final = self.interp.block(State(), main)
        if final is None:
            raise Reject("main never reaches its end")
        shader = self.assemble(main)
        bounds, written, ranges = {}, {}, {}
        for name, key in (("oC0", (R.TEMP, 0)), ("oDepth", (R.DEPTHOUT, 0))):
            if key not in final.regs:
                continue
            vals = final.regs[key]
            bounds[name] = tuple(0.0 if x is None else float(x[3]) for x in vals)
            written[name] = sum(1 << c for c in range(4) if vals[c] is not None)
            ranges[name] = tuple(None if x is None else (float(x[0]), float(x[1])) for x in vals)
        roles = {k: role for k, (_, role) in stage_plan(shader).items()}
        return GeneratedProgram(shader, self.version, bounds, written, roles, ranges,
                                translate_options=translate_options(shader))

    def assemble(self, main: list) -> Shader:
        items: list[Instruction] = []
        for idx in sorted(self.defs):
            lits = struct.unpack("<4I", struct.pack("<4f", *self.defs[idx]))
            items.append(Instruction(O.DEF, _dst(R.CONST, idx), literals=lits))
        for n in main:
            items.append(n.ins)
            partner = getattr(n, "partner", None)
            if partner is not None:
                items.append(partner)
        return Shader(self.version, tuple(items))


def generate_ps1(rng, version: ShaderVersion, opts: GenOptions) -> GeneratedProgram:
    """One ps_1_x program (raises ``Reject`` when this draw fails)."""
    return _PS1Generator(rng, version, opts).run()


__all__ = ["PS1_VERSIONS", "STAGE_KINDS", "generate_ps1", "is_ps1", "ps1_inputs", "stage_plan", "translate_options"]
