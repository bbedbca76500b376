"""The generator's program builder (``_Generator``): blocks of proposed
nodes, each checked by the abstract interpreter and retried when rejected;
if/else, loops, breaks, subroutine calls; the epilogue that writes every
declared output; the final validation of the whole program from scratch,
its error bounds and output ranges (``GeneratedProgram``), and the
assembly of the node tree into a ``Shader``.
"""

from __future__ import annotations

import struct
from typing import Callable

from ..bytecode.model import Instruction, Shader, SourceOperand
from ..bytecode.tables import (
    IDENTITY_SWIZZLE,
    OPCODES,
    OUTPUT,
    TEXTURE,
    DstMod,
    Opcode,
    RegisterType,
    SrcMod,
    replicate_swizzle,
)
from .generate_instructions import _InstructionGenerator
from .generate_program import AL_REL, Function, GeneratedProgram, Node, _dst, _mask_comps, _src
from .generate_values import UNIFORM, Reject, State, av_sat

R = RegisterType
O = Opcode


# --------------------------------------------------------------------------
# The generator: blocks, flow control, epilogue and assembly
# --------------------------------------------------------------------------


class _Generator(_InstructionGenerator):
    """A random program generator for one version (sm2/sm3, vs_1_1; ps_1_x
    subclasses it in ``generate_sm1``): ``run()`` builds a ``GeneratedProgram``."""

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
