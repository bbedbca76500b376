"""The SSA-ish view of registers: reaching definitions, def-use chains, liveness.

Values are SSA already (an op *is* its value); registers are not: they are
variables written by STORE and read by LOAD.  This module answers, per
function and per component, which STOREs a LOAD may see and whether a STORE
is ever read, by classic bit-set dataflow over the CFG of ``ir.cfg``.

Model
-----
* A *slot* is one component of one variable, or of one element of a small
  array (the local register-file arrays of the relative pass).  A dynamic
  index touches every element.  Big arrays (the constant files, never
  stored) are one slot per component for the whole array.
* A STORE *defines* the slots of its write mask.  It *kills* earlier
  definitions of those slots only when it certainly overwrites them: a plain
  variable, or a static element of a small array.  A STORE with a dynamic index on a
  register variable (vs_3_0 ``o[aL]`` before the relative pass) may write
  any register of that file, so it defines all of them without killing.
* A CALL reads and may write every private variable (TEMP, ADDRESS,
  LOOP_COUNTER, PREDICATE, LOCAL) and every OUTPUT: subroutines share the
  registers of the caller.  It defines without killing (the callee may not
  write), so both the callee's write and the older value reach later loads.
* ``ENTRY_DEF`` stands for the value a slot holds when the function starts
  (0 for temps in main, the caller's value in a subroutine, the stage input
  or constant for the read-only files).
* At the end of main the outputs are live; at the end of a subroutine every
  private variable and output is (the caller may read them).

Bit sets are Python ints: one bit per (definition, slot) for reaching
definitions, one bit per slot for liveness; each block is visited a few
times until nothing changes.

Cost: liveness (all ``cleanup`` needs) is computed when the analysis is
built, with per-op read/kill masks and per-block summaries, on a block list
of its own (no networkx); reaching definitions and the networkx CFG
(``graph``) are computed on first use only.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

import networkx as nx

from ..ir.cfg import ENTRY, EXIT, build_cfg
from ..ir.ops import Code, Op
from ..ir.program import Function, Program, Storage, Variable

ENTRY_DEF = "entry"  # the value a register holds when the function starts

PRECISE_ARRAY = 64  # arrays up to this length get one slot per element

PRIVATE = frozenset({Storage.TEMP, Storage.ADDRESS, Storage.LOOP_COUNTER, Storage.PREDICATE, Storage.LOCAL})
CALL_CLOBBERS = PRIVATE | {Storage.OUTPUT}


def value_uses(fn: Function) -> dict[int, list[Op]]:
    """id(value) -> the ops using it (an op using a value twice appears twice)."""
    uses: dict[int, list[Op]] = defaultdict(list)
    for op in fn.body:
        for arg in op.args:
            uses[id(arg)].append(op)
    return uses


def mask_components(mask: int, width: int) -> list[int]:
    return [c for c in range(width) if mask >> c & 1]


def store_mask(op: Op) -> int:
    """The write mask of a STORE (or a not-yet-lowered D3D_STORE)."""
    if op.code is Code.D3D_STORE:
        return op.imm[0].mask
    return op.imm[0] if op.imm else (1 << op.var.type.width) - 1


def used_components(load: Op, uses: list[Op]) -> set[int]:
    """Components of a LOAD's value that matter: only those picked when every
    use is a SWIZZLE (the common ``load r0; swizzle .x`` shape), else all."""
    width = load.type.width
    picked: set[int] = set()
    for use in uses:
        if use.code is not Code.SWIZZLE:
            return set(range(width))
        picked.update(use.imm)
    return picked


def _bits(x: int) -> Iterable[int]:
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


class RegisterAnalysis:
    """Reaching definitions, def-use chains and liveness of one function."""

    def __init__(self, program: Program, fn: Function):
        self.program = program
        self.fn = fn
        known = list(program.variables)
        seen = {id(v) for v in known}
        for op in fn.body:
            var = op.var
            if var is not None and id(var) not in seen:
                seen.add(id(var))
                known.append(var)
        self._known = known
        self._files: dict[tuple, list[Variable]] = defaultdict(list)
        for var in known:
            if var.register is not None and var.length is None:
                self._files[(var.storage, var.register[0])].append(var)
        self._clobbered = [v for v in known if v.storage in CALL_CLOBBERS]
        self._graph: nx.DiGraph | None = None
        self._uses: dict[int, list[Op]] | None = None
        self._reach_done = False
        self._liveness()

    @property
    def graph(self) -> nx.DiGraph:
        """The function's CFG (``ir.cfg.build_cfg``), built on first use."""
        if self._graph is None:
            self._graph = build_cfg(self.fn)
        return self._graph

    @property
    def uses(self) -> dict[int, list[Op]]:
        if self._uses is None:
            self._uses = value_uses(self.fn)
        return self._uses

    def _reaching_ready(self) -> None:
        """Reaching definitions and def-use chains, computed on first use."""
        if self._reach_done:
            return
        self._reach_done = True
        self._slots: dict[tuple[int, int], int] = {}
        self._slot_key: list[tuple[Variable, int | None, int]] = []  # var, element, component
        graph = self.graph
        # reverse postorder: predecessors first (but for back edges), so the
        # fixpoint settles in a few sweeps; unreachable blocks go last
        self._order = list(reversed(list(nx.dfs_postorder_nodes(graph, ENTRY))))
        reached = set(self._order)
        self._order += [n for n in graph.nodes if n not in reached]
        # effects of each op, computed once: (reads, writes) as slot lists
        self._effects = {id(op): self._op_effects(op) for op in self.fn.body}
        self._reaching()

    # -- slots ----------------------------------------------------------------

    def slot(self, var: Variable, component: int, element: int | None = None) -> int:
        key = (id(var), element, component)
        found = self._slots.get(key)
        if found is None:
            found = self._slots[key] = len(self._slot_key)
            self._slot_key.append((var, element, component))
        return found

    @staticmethod
    def _precise(var: Variable) -> bool:
        return var.length is not None and var.length <= PRECISE_ARRAY

    def _var_slots(self, var: Variable, comps: Iterable[int], op: Op | None = None) -> list[int]:
        """Slots of ``comps`` of ``var`` that ``op`` touches (all elements
        of a small array unless ``op`` names one statically)."""
        comps = list(comps)
        if not self._precise(var):
            return [self.slot(var, c) for c in comps]
        element = self._element(op) if op is not None else None
        elements = range(var.length) if element is None else (element,)
        return [self.slot(var, c, e) for e in elements for c in comps]

    def _element(self, op: Op) -> int | None:
        """The static element an array access names, None when indexed."""
        if self._index(op) is not None:
            return None
        if op.code is Code.LOAD:
            return op.imm[0] if op.imm else None
        if op.code is Code.STORE:
            return op.imm[1] if len(op.imm) > 1 else None
        return None

    def _targets(self, op: Op) -> list[Variable]:
        """Variables an op's LOAD/STORE may touch: a dynamic index on a
        register variable reaches every register of its file."""
        var = op.var
        indexed = var.length is None and self._index(op) is not None
        if indexed and var.register is not None:
            return self._files[(var.storage, var.register[0])] or [var]
        return [var]

    @staticmethod
    def _index(op: Op) -> Op | None:
        if op.code is Code.LOAD:
            return op.args[0] if op.args else None
        if op.code is Code.STORE:
            return op.args[1] if len(op.args) > 1 else None
        if op.code is Code.D3D_STORE:
            return op.args[-1] if op.imm[0].relative else None
        return None

    def _op_effects(self, op: Op):
        """(read slots, [(written slot, kills)]) of one op."""
        code = op.code
        if code is Code.LOAD:
            comps = used_components(op, self.uses.get(id(op), []))
            reads = [s for v in self._targets(op) for s in self._var_slots(v, (c for c in comps if c < v.type.width), op)]
            return reads, []
        if code in (Code.STORE, Code.D3D_STORE):
            targets = self._targets(op)
            kills = len(targets) == 1 and self._index(op) is None and (op.var.length is None or self._precise(op.var))
            if code is Code.D3D_STORE and op.imm[0].predicated:
                kills = False
            mask = store_mask(op)
            writes = [(s, kills) for v in targets for s in self._var_slots(v, mask_components(mask, v.type.width), op)]
            return [], writes
        if code is Code.CALL:
            slots = [s for v in self._clobbered for s in self._var_slots(v, range(v.type.width))]
            return slots, [(s, False) for s in slots]
        return [], []

    def _block_ops(self, node) -> list[Op]:
        block = self.graph.nodes[node].get("block")
        return block.ops if block is not None else []

    # -- reaching definitions ------------------------------------------------

    def _reaching(self) -> None:
        defs: list[tuple[object, int]] = []  # bit -> (STORE/CALL op or ENTRY_DEF, slot)
        bit_of: dict[tuple[int, int], int] = {}
        slot_mask: dict[int, int] = defaultdict(int)

        def def_bit(op, slot: int) -> int:
            key = (id(op), slot)
            b = bit_of.get(key)
            if b is None:
                b = bit_of[key] = len(defs)
                defs.append((op, slot))
                slot_mask[slot] |= 1 << b
            return b

        # number every definition first, so the kill masks are complete
        for op in self.fn.body:
            for slot, _ in self._effects[id(op)][1]:
                def_bit(op, slot)
        for op in self.fn.body:  # every slot loaded or written has an entry value
            reads, writes = self._effects[id(op)]
            if op.code is Code.LOAD:  # all components, used or not
                reads = [s for v in self._targets(op) for s in self._var_slots(v, range(v.type.width), op)]
            for slot in list(reads) + [s for s, _ in writes]:
                def_bit(ENTRY_DEF, slot)

        def transfer(op: Op, cur: int) -> int:
            for slot, kills in self._effects[id(op)][1]:
                if kills:
                    cur &= ~slot_mask[slot]
                cur |= 1 << bit_of[(id(op), slot)]
            return cur

        entry_bits = sum(1 << b for b, (d, _) in enumerate(defs) if d is ENTRY_DEF)
        out = {n: 0 for n in self.graph.nodes}
        out[ENTRY] = entry_bits
        ins: dict = {}
        changed = True
        while changed:
            changed = False
            for node in self._order:
                if node == ENTRY:
                    continue
                cur = 0
                for pred in self.graph.predecessors(node):
                    cur |= out[pred]
                ins[node] = cur
                for op in self._block_ops(node):
                    cur = transfer(op, cur)
                if cur != out[node]:
                    out[node] = cur
                    changed = True
        # per load: the definitions of each slot it reads
        self._reach: dict[int, dict[tuple[int, int], frozenset]] = {}
        self._def_uses: dict[int, list[Op]] = defaultdict(list)
        for node in self._order:
            cur = ins.get(node, 0)
            for op in self._block_ops(node):
                if op.code is Code.LOAD:
                    table = {}
                    for v in self._targets(op):
                        for slot in self._var_slots(v, range(v.type.width), op):
                            found = frozenset(defs[b][0] for b in _bits(cur & slot_mask.get(slot, 0)))
                            key = (id(v), self._slot_key[slot][2])
                            table[key] = table.get(key, frozenset()) | found
                    self._reach[id(op)] = table
                    for d in set().union(*table.values()) if table else ():
                        if d is not ENTRY_DEF:
                            self._def_uses[id(d)].append(op)
                cur = transfer(op, cur)

    def reaching(self, load: Op, component: int | None = None, var: Variable | None = None) -> frozenset:
        """STOREs (and CALLs, and ``ENTRY_DEF``) whose value ``load`` may read,
        for one component or (None) any component of ``var`` (default: the
        load's variable).  Unreachable loads get the empty set."""
        self._reaching_ready()
        var = var or load.var
        table = self._reach.get(id(load), {})
        comps = range(var.type.width) if component is None else (component,)
        found: set = set()
        for c in comps:
            found |= table.get((id(var), c), frozenset())
        return frozenset(found)

    def loads_reached(self, definition: Op) -> list[Op]:
        """Def-use chain: the LOADs a STORE (or CALL) may be read by."""
        self._reaching_ready()
        return list(self._def_uses.get(id(definition), []))

    # -- liveness -------------------------------------------------------------
    #
    # Slots for liveness: every variable an op touches gets a contiguous
    # range of bits, ``width`` per element (small arrays) or ``width`` in all;
    # each op becomes a (kill, read) pair of masks.

    def _live_slots(self, var: Variable) -> tuple[int, int, int]:
        """(first bit, width, elements) of ``var``'s liveness slots."""
        found = self._live_base.get(id(var))
        if found is None:
            width = var.type.width
            elements = var.length if self._precise(var) else 1
            found = (self._live_next, width, elements)
            self._live_base[id(var)] = found
            self._live_order[id(var)] = len(self._live_vars)
            self._live_vars.append(var)
            self._live_next += width * elements
        return found

    def _live_mask(self, var: Variable, comps: int, element: int | None) -> int:
        """Bits of components ``comps`` (a mask) of ``var``: one element, or
        all of them (``element`` None, or a variable with one slot set)."""
        base, width, elements = self._live_slots(var)
        comps &= (1 << width) - 1
        if elements == 1:
            return comps << base
        if element is not None:
            if 0 <= element < elements:
                return comps << (base + element * width)
            # outside the array: a slot of its own, as ``slot`` would make
            key = (id(var), element)
            extra = self._live_extra.get(key)
            if extra is None:
                extra = self._live_extra[key] = self._live_next
                self._live_next += width
            return comps << extra
        rep = self._replicate.get((width, elements))
        if rep is None:
            rep = self._replicate[(width, elements)] = sum(1 << (e * width) for e in range(elements))
        return (comps * rep) << base

    def _live_effects(self, op: Op, load_comps: dict[int, int]) -> tuple[int, int, int]:
        """(kill, read, written) masks of one op (same rules as ``_op_effects``)."""
        code = op.code
        if code is Code.LOAD:
            comps = load_comps.get(id(op), 0)
            if not comps:
                return 0, 0, 0
            element = self._element(op)
            read = 0
            for v in self._targets(op):
                read |= self._live_mask(v, comps, element if self._precise(v) else None)
            return 0, read, 0
        if code is Code.STORE or code is Code.D3D_STORE:
            targets = self._targets(op)
            index = self._index(op)
            kills = len(targets) == 1 and index is None and (op.var.length is None or self._precise(op.var))
            if code is Code.D3D_STORE and op.imm[0].predicated:
                kills = False
            mask = store_mask(op)
            element = self._element(op)
            written = 0
            for v in targets:
                written |= self._live_mask(v, mask, element if self._precise(v) else None)
            return (written if kills else 0), 0, written
        if code is Code.CALL:
            slots = 0
            for v in self._clobbered:
                slots |= self._live_mask(v, (1 << v.type.width) - 1, None)
            return 0, slots, slots
        return 0, 0, 0

    def _liveness(self) -> None:
        self._live_base: dict[int, tuple[int, int, int]] = {}
        self._live_vars: list[Variable] = []
        self._live_order: dict[int, int] = {}
        self._live_next = 0
        self._live_extra: dict[tuple[int, int], int] = {}
        self._replicate: dict[tuple[int, int], int] = {}
        body = self.fn.body
        # components of each LOAD that matter (``used_components``, as masks)
        load_comps: dict[int, int] = {}
        for op in body:
            if op.args:
                swz = op.code is Code.SWIZZLE
                for a in op.args:
                    if a.code is Code.LOAD:
                        if swz:
                            m = load_comps.get(id(a), 0)
                            for c in op.imm:
                                m |= 1 << c
                            load_comps[id(a)] = m
                        else:
                            load_comps[id(a)] = 0xF
        blocks, succs = _blocks(body)
        # per op (kill, read, written); per block the backward summary
        effects: list[list[tuple[Op, int, int, int]]] = []
        gen_kill: list[tuple[int, int]] = []
        live_effects = self._live_effects
        for ops in blocks:
            eff = []
            for op in ops:
                code = op.code
                if code is Code.LOAD or code is Code.STORE or code is Code.CALL or code is Code.D3D_STORE:
                    k, r, w = live_effects(op, load_comps)
                    eff.append((op, k, r, w))
                else:
                    eff.append((op, 0, 0, 0))
            g = k_all = 0
            for _, k, r, _w in reversed(eff):
                g = (g & ~k) | r
                k_all |= k
            effects.append(eff)
            gen_kill.append((g, k_all))
        # live at the exit: main's outputs; in a subroutine everything the
        # caller may read
        storages = {Storage.OUTPUT} if self.fn.name == "main" else CALL_CLOBBERS
        exit_live = 0
        for v in self._live_vars:
            if v.storage in storages:
                exit_live |= self._live_mask(v, (1 << v.type.width) - 1, None)
        for (vid, _), first in self._live_extra.items():
            v = self._live_vars[self._live_order[vid]]
            if v.storage in storages:
                exit_live |= ((1 << v.type.width) - 1) << first
        n = len(blocks)
        live_in = [0] * n
        changed = True
        while changed:
            changed = False
            for b in range(n - 1, -1, -1):
                cur = 0
                for s in succs[b]:
                    cur |= exit_live if s < 0 else live_in[s]
                g, k = gen_kill[b]
                cur = (cur & ~k) | g
                if cur != live_in[b]:
                    live_in[b] = cur
                    changed = True
        self._live_after: dict[int, int] = {}
        self._written: dict[int, int] = {}
        live_after = self._live_after
        written = self._written
        for b in range(n):
            cur = 0
            for s in succs[b]:
                cur |= exit_live if s < 0 else live_in[s]
            for op, k, r, w in reversed(effects[b]):
                live_after[id(op)] = cur
                if w:
                    written[id(op)] = w
                cur = (cur & ~k) | r

    def live_after(self, op: Op, var: Variable | None = None) -> set[int]:
        """Components of ``var`` (default ``op.var``) that may still be read
        after ``op``.  Ops in unreachable code see nothing live."""
        var = var or op.var
        bits = self._live_after.get(id(op), 0)
        found = self._live_base.get(id(var))
        if found is None:
            return set()
        base, width, elements = found
        out = set()
        for e in range(elements):
            for c in range(width):
                if bits >> (base + e * width + c) & 1:
                    out.add(c)
        return out

    def is_dead_store(self, store: Op) -> bool:
        """True when no slot a STORE writes can be read afterwards.

        Only private variables qualify: outputs are observable, and the
        read-only files are never stored."""
        if store.var.storage not in PRIVATE:
            return False
        bits = self._live_after.get(id(store), 0)
        return not bits & self._written.get(id(store), 0)


def _blocks(body: list[Op]) -> tuple[list[list[Op]], list[list[int]]]:
    """The basic blocks of ``ir.cfg.build_cfg`` (same split, same edges) as
    op lists and successor lists; -1 is the exit.  No networkx: this is on
    the cleanup pass's hot path."""
    blocks: list[list[Op]] = [[]]
    succs: list[list[int]] = [[]]
    current = 0
    stack: list[list] = []  # ["if", head, then_end, has_else] / ["loop", header, breaks]

    def new_block() -> int:
        blocks.append([])
        succs.append([])
        return len(blocks) - 1

    for op in body:
        code = op.code
        if code is Code.IF:
            blocks[current].append(op)
            stack.append(["if", current, None, False])
            nb = new_block()
            succs[current].append(nb)
            current = nb
        elif code is Code.ELSE:
            frame = stack[-1]
            frame[2] = current
            frame[3] = True
            nb = new_block()
            succs[frame[1]].append(nb)
            current = nb
        elif code is Code.ENDIF:
            frame = stack.pop()
            join = new_block()
            succs[frame[2] if frame[3] else frame[1]].append(join)
            succs[current].append(join)
            current = join
        elif code is Code.LOOP:
            header = new_block()
            succs[current].append(header)
            stack.append(["loop", header, []])
            current = header
        elif code is Code.ENDLOOP:
            frame = stack.pop()
            succs[current].append(frame[1])  # back edge
            after = new_block()
            for b in frame[2]:
                succs[b].append(after)
            current = after
        elif code is Code.BREAK:
            blocks[current].append(op)
            for frame in reversed(stack):
                if frame[0] == "loop":
                    frame[2].append(current)
                    break
            current = new_block()
        elif code is Code.RETURN:
            blocks[current].append(op)
            succs[current].append(-1)
            current = new_block()
        else:
            blocks[current].append(op)
    succs[current].append(-1)
    return blocks, succs


def analyze(program: Program, fn: Function) -> RegisterAnalysis:
    return RegisterAnalysis(program, fn)
