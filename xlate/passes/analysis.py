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
times in reverse postorder until nothing changes.
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
        self.graph: nx.DiGraph = build_cfg(fn)
        self.uses = value_uses(fn)
        self._slots: dict[tuple[int, int], int] = {}
        self._slot_key: list[tuple[Variable, int | None, int]] = []  # var, element, component
        self._files: dict[tuple, list[Variable]] = defaultdict(list)
        known = list(program.variables)
        seen = {id(v) for v in known}
        for op in fn.body:
            if op.var is not None and id(op.var) not in seen:
                seen.add(id(op.var))
                known.append(op.var)
        for var in known:
            if var.register is not None and var.length is None:
                self._files[(var.storage, var.register[0])].append(var)
        self._clobbered = [v for v in known if v.storage in CALL_CLOBBERS]
        # reverse postorder: predecessors first (but for back edges), so the
        # fixpoint settles in a few sweeps; unreachable blocks go last
        self._order = list(reversed(list(nx.dfs_postorder_nodes(self.graph, ENTRY))))
        reached = set(self._order)
        self._order += [n for n in self.graph.nodes if n not in reached]
        # effects of each op, computed once: (reads, writes) as slot lists
        self._effects = {id(op): self._op_effects(op) for op in fn.body}
        self._reaching()
        self._liveness()

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
        var = var or load.var
        table = self._reach.get(id(load), {})
        comps = range(var.type.width) if component is None else (component,)
        found: set = set()
        for c in comps:
            found |= table.get((id(var), c), frozenset())
        return frozenset(found)

    def loads_reached(self, definition: Op) -> list[Op]:
        """Def-use chain: the LOADs a STORE (or CALL) may be read by."""
        return list(self._def_uses.get(id(definition), []))

    # -- liveness -------------------------------------------------------------

    def _exit_live(self) -> int:
        live = 0
        storages = {Storage.OUTPUT} if self.fn.name == "main" else CALL_CLOBBERS
        for n, (var, _, _) in enumerate(self._slot_key):
            if var.storage in storages:
                live |= 1 << n
        return live

    def _transfer_back(self, op: Op, live: int) -> int:
        reads, writes = self._effects[id(op)]
        for slot, kills in writes:
            if kills:
                live &= ~(1 << slot)
        for slot in reads:
            live |= 1 << slot
        return live

    def _liveness(self) -> None:
        exit_live = self._exit_live()
        live_in = {n: 0 for n in self.graph.nodes}
        live_in[EXIT] = exit_live
        live_out: dict = {}
        order = list(reversed(self._order))
        changed = True
        while changed:
            changed = False
            for node in order:
                if node == EXIT:
                    continue
                cur = 0
                for succ in self.graph.successors(node):
                    cur |= live_in[succ]
                live_out[node] = cur
                for op in reversed(self._block_ops(node)):
                    cur = self._transfer_back(op, cur)
                if cur != live_in[node]:
                    live_in[node] = cur
                    changed = True
        self._live_after: dict[int, int] = {}
        for node in order:
            cur = live_out.get(node, 0)
            for op in reversed(self._block_ops(node)):
                self._live_after[id(op)] = cur
                cur = self._transfer_back(op, cur)

    def live_after(self, op: Op, var: Variable | None = None) -> set[int]:
        """Components of ``var`` (default ``op.var``) that may still be read
        after ``op``.  Ops in unreachable code see nothing live."""
        var = var or op.var
        bits = self._live_after.get(id(op), 0)
        return {c for n, (v, _, c) in enumerate(self._slot_key) if v is var and bits >> n & 1}

    def is_dead_store(self, store: Op) -> bool:
        """True when no slot a STORE writes can be read afterwards.

        Only private variables qualify: outputs are observable, and the
        read-only files are never stored."""
        if store.var.storage not in PRIVATE:
            return False
        bits = self._live_after.get(id(store), 0)
        return not any(bits >> slot & 1 for slot, _ in self._effects[id(store)][1])


def analyze(program: Program, fn: Function) -> RegisterAnalysis:
    return RegisterAnalysis(program, fn)
