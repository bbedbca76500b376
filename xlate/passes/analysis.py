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
definitions, each block visited a few times until nothing changes; for
liveness one bit per slot of a variable, solved per variable (see
``RegisterAnalysis._liveness``).

Cost: liveness (all ``cleanup`` needs) is computed when the analysis is
built, with per-op read/kill masks and per-block summaries, on a block list
of its own (no networkx); reaching definitions and the networkx CFG
(``graph``) are computed on first use only.  The liveness bits and masks are
``LiveSlots``, which the cleanup pass also uses directly for its one-sweep
removal of dead stores in straight-line functions.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import TYPE_CHECKING, Iterable

from ..ir.cfg import ENTRY, EXIT, build_cfg
from ..ir.ops import Code, Op
from ..ir.program import Function, Program, Storage, Variable

if TYPE_CHECKING:  # (imported where used: see ir/cfg.py)
    import networkx as nx

ENTRY_DEF = "entry"  # the value a register holds when the function starts

PRECISE_ARRAY = 64  # arrays up to this length get one slot per element

SHARED_BLOCKS = 8  # liveness: variables touched in this many blocks share one int (``_liveness``)

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


def precise(var: Variable) -> bool:
    """Whether ``var`` is a small array with one slot per element."""
    return var.length is not None and var.length <= PRECISE_ARRAY


def op_index(op: Op) -> Op | None:
    """The dynamic index of a LOAD/STORE/D3D_STORE, None when static."""
    code = op.code
    if code is _LOAD:
        return op.args[0] if op.args else None
    if code is _STORE:
        return op.args[1] if len(op.args) > 1 else None
    if code is _D3D_STORE:
        return op.args[-1] if op.imm[0].relative else None
    return None


def op_element(op: Op) -> int | None:
    """The static element an array access names, None when indexed."""
    if op_index(op) is not None:
        return None
    if op.code is _LOAD:
        return op.imm[0] if op.imm else None
    if op.code is _STORE:
        return op.imm[1] if len(op.imm) > 1 else None
    return None


# (module constants: ``Code.X`` is an enum class attribute lookup, slow in a hot function)
_LOAD, _STORE, _D3D_STORE = Code.LOAD, Code.STORE, Code.D3D_STORE


class LiveSlots:
    """The bits of liveness for one function, and each op's masks.

    Every variable an op touches gets a contiguous range of bits, ``width``
    per element (small arrays) or ``width`` in all; a static element outside
    its array gets a range of its own (as ``RegisterAnalysis.slot`` would
    make).  ``read`` / ``write`` / ``call`` give the masks of a LOAD, STORE
    or CALL under the rules of the module doc (``*_each``: per variable
    touched); ``RegisterAnalysis`` and the cleanup pass's straight-line sweep
    share them, so both see the same slots.

    Numbering: one bit space for the whole function (``live`` sets are one
    int), or, with ``per_variable``, a space of its own per variable (its
    range starts at bit 0, its outside elements follow it), for liveness
    solved variable by variable: a function with thousands of variables then
    handles small ints, not ints as wide as all of its variables.
    """

    def __init__(self, program: Program, fn: Function, per_variable: bool = False):
        self.program = program
        self.fn = fn
        self.per_variable = per_variable
        self.ranges: dict[Variable, tuple[int, int, int]] = {}  # var -> (first bit, width, elements)
        self.extra: dict[tuple[Variable, int], int] = {}  # (var, element outside it) -> first bit
        # variables that are not arrays -> (first bit, width mask), filled as
        # ``ranges`` is: a LOAD or STORE of one without an index reads or
        # writes ``(mask & width mask) << first`` (the hot loops look here first)
        self.plain: dict[Variable, tuple[int, int]] = {}
        self._next = 0  # the next free bit (one space for all)
        self._next_of: dict[Variable, int] = {}  # the next free bit of each variable (per_variable)
        self._replicate: dict[tuple[int, int], int] = {}
        self._files: dict[tuple, list[Variable]] | None = None
        self._clobbered: list[Variable] = []

    # -- the variables a function can touch, found on first need ---------------

    def _scan(self) -> None:
        known = list(self.program.variables)
        seen = set(known)
        for op in self.fn.body:
            var = op.var
            if var is not None and var not in seen:
                seen.add(var)
                known.append(var)
        self._files = defaultdict(list)
        for var in known:
            if var.register is not None and var.length is None:
                self._files[(var.storage, var.register[0])].append(var)
        self._clobbered = [v for v in known if v.storage in CALL_CLOBBERS]

    @property
    def clobbered(self) -> list[Variable]:
        """The variables a CALL may read and write."""
        if self._files is None:
            self._scan()
        return self._clobbered

    def targets(self, op: Op) -> list[Variable]:
        """Variables an op's LOAD/STORE may touch: a dynamic index on a
        register variable reaches every register of its file."""
        var = op.var
        if var.length is None and var.register is not None and op_index(op) is not None:
            if self._files is None:
                self._scan()
            return self._files[(var.storage, var.register[0])] or [var]
        return [var]

    # -- bits -------------------------------------------------------------------

    def range_of(self, var: Variable) -> tuple[int, int, int]:
        """(first bit, width, elements) of ``var``'s slots."""
        found = self.ranges.get(var)
        if found is None:
            width = var.type.width
            elements = var.length if precise(var) else 1
            first = 0 if self.per_variable else self._next
            found = self.ranges[var] = (first, width, elements)
            if var.length is None:
                self.plain[var] = (first, (1 << width) - 1)
            if self.per_variable:
                self._next_of[var] = width * elements
            else:
                self._next += width * elements
        return found

    def mask(self, var: Variable, comps: int, element: int | None) -> int:
        """Bits of components ``comps`` (a mask) of ``var``: one element, or
        all of them (``element`` None, or a variable with one slot set)."""
        base, width, elements = self.range_of(var)
        comps &= (1 << width) - 1
        if elements == 1:
            return comps << base
        if element is not None:
            if 0 <= element < elements:
                return comps << (base + element * width)
            extra = self.extra.get((var, element))
            if extra is None:
                if self.per_variable:
                    extra = self.extra[(var, element)] = self._next_of[var]
                    self._next_of[var] += width
                else:
                    extra = self.extra[(var, element)] = self._next
                    self._next += width
            return comps << extra
        rep = self._replicate.get((width, elements))
        if rep is None:
            rep = self._replicate[(width, elements)] = sum(1 << (e * width) for e in range(elements))
        return (comps * rep) << base

    def read_each(self, load: Op, comps: int) -> list[tuple[Variable, int]]:
        """(variable, bits) a LOAD reads when components ``comps`` of its value are used."""
        element = op_element(load)
        return [(v, self.mask(v, comps, element if precise(v) else None)) for v in self.targets(load)]

    def write_each(self, store: Op) -> tuple[bool, list[tuple[Variable, int]]]:
        """(whether it kills, [(variable, bits written)]) of a STORE or
        D3D_STORE: it kills only what it certainly overwrites."""
        targets = self.targets(store)
        var = store.var
        kills = len(targets) == 1 and op_index(store) is None and (var.length is None or precise(var))
        if store.code is Code.D3D_STORE and store.imm[0].predicated:
            kills = False
        mask = store_mask(store)
        element = op_element(store)
        return kills, [(v, self.mask(v, mask, element if precise(v) else None)) for v in targets]

    def call_each(self) -> list[tuple[Variable, int]]:
        """(variable, bits) a CALL may read and write: every private variable and output."""
        return [(v, self.mask(v, (1 << v.type.width) - 1, None)) for v in self.clobbered]

    def read(self, load: Op, comps: int) -> int:
        bits = 0
        for _, m in self.read_each(load, comps):
            bits |= m
        return bits

    def write(self, store: Op) -> tuple[int, int]:
        """(killed, written) bits of a STORE or D3D_STORE."""
        kills, each = self.write_each(store)
        written = 0
        for _, m in each:
            written |= m
        return (written if kills else 0), written

    def call(self) -> int:
        bits = 0
        for _, m in self.call_each():
            bits |= m
        return bits

    def all_of(self, var: Variable) -> int:
        """Every bit given out so far to ``var`` (``per_variable`` numbering)."""
        return (1 << self._next_of[var]) - 1

    def of_storages(self, storages) -> int:
        """Every bit given out so far to variables of ``storages`` (one space for all)."""
        bits = 0
        for v, (base, width, elements) in self.ranges.items():
            if v.storage in storages:
                bits |= ((1 << (width * elements)) - 1) << base
        for (v, _), first in self.extra.items():
            if v.storage in storages:
                bits |= ((1 << v.type.width) - 1) << first
        return bits


class RegisterAnalysis:
    """Reaching definitions, def-use chains and liveness of one function."""

    def __init__(self, program: Program, fn: Function):
        self.program = program
        self.fn = fn
        self._slots_live = LiveSlots(program, fn, per_variable=True)
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
        import networkx as nx

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

    _precise = staticmethod(precise)
    _index = staticmethod(op_index)
    _element = staticmethod(op_element)

    def _targets(self, op: Op) -> list[Variable]:
        return self._slots_live.targets(op)

    def _var_slots(self, var: Variable, comps: Iterable[int], op: Op | None = None) -> list[int]:
        """Slots of ``comps`` of ``var`` that ``op`` touches (all elements
        of a small array unless ``op`` names one statically)."""
        comps = list(comps)
        if not self._precise(var):
            return [self.slot(var, c) for c in comps]
        element = self._element(op) if op is not None else None
        elements = range(var.length) if element is None else (element,)
        return [self.slot(var, c, e) for e in elements for c in comps]

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
            slots = [s for v in self._slots_live.clobbered for s in self._var_slots(v, range(v.type.width))]
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
    # Solved per variable (the equations of different variables never meet:
    # every op's masks are per variable, CALLs included), on
    # ``LiveSlots(per_variable=True)`` bits.  Variables touched in many blocks
    # (registers used all over: temps, outputs) share one int and are solved
    # together, round-robin over all blocks; every other one (a loop's
    # counter) alone, over the blocks its liveness reaches.  Same equations
    # either way; the split only sets the cost.  One int as wide as all the
    # variables would make a function with thousands of them (a counter per
    # loop) quadratic; solving the few wide ones alone would visit every block
    # once per variable.  Split, the cost per instruction of the loop-heavy
    # shaders of ``scripts/bench`` grows from 1k to 64k instructions no more
    # than that of a bare walk over their ops.

    def _liveness(self) -> None:
        blocks, succs = _blocks(self.fn.body)
        effects, summary = self._register_effects(blocks)
        # live at the exit: main's outputs; in a subroutine everything the
        # caller may read
        storages = {Storage.OUTPUT} if self.fn.name == "main" else CALL_CLOBBERS
        exit_bits = {v: self._slots_live.all_of(v) for v in summary if v.storage in storages}
        shared = {v for v, per in summary.items() if len(per) >= SHARED_BLOCKS or v in exit_bits}
        self._live_blocks, self._live_succs, self._live_effects = blocks, succs, effects
        self._exit_bits = exit_bits
        self._live_where: dict[Op, tuple[int, int]] | None = None
        self._solve_shared(shared, summary)
        preds: list[list[int]] = [[] for _ in blocks]
        exits: list[int] = []
        for b, ss in enumerate(succs):
            for s in ss:
                if s < 0:
                    exits.append(b)
                else:
                    preds[s].append(b)
        self._live_in = {v: self._solve_alone(v, per, preds, exits) for v, per in summary.items() if v not in shared}
        self._mark_live_stores()

    def _register_effects(self, blocks: list[list[Op]]):
        """Per block, last op first: (place in the block, op, [(var, kill, read,
        written)]) of the ops that touch registers; and per variable: block ->
        [gen, kill], the block's backward summary for that variable."""
        slots = self._slots_live
        load_comps = loaded_components(self.fn.body)
        plain = slots.plain  # (first bits are 0 here: one space per variable)
        LOAD, STORE, D3D_STORE, CALL = Code.LOAD, Code.STORE, Code.D3D_STORE, Code.CALL
        effects: list[list[tuple[int, Op, list[tuple[Variable, int, int, int]]]]] = []
        summary: dict[Variable, dict[int, list[int]]] = {}
        for b, ops in enumerate(blocks):
            eff = []
            for i in range(len(ops) - 1, -1, -1):
                op = ops[i]
                code = op.code
                if code is LOAD:
                    comps = load_comps.get(op, 0)
                    if not comps:
                        continue
                    bits = plain.get(op.var)
                    if bits is not None and not op.args:
                        entries = [(op.var, 0, comps & bits[1], 0)]
                    else:
                        entries = [(v, 0, m, 0) for v, m in slots.read_each(op, comps)]
                elif code is STORE or code is D3D_STORE:
                    bits = plain.get(op.var)
                    if bits is not None and code is STORE and len(op.args) == 1 and op.imm:
                        m = op.imm[0] & bits[1]  # a plain variable is certainly overwritten
                        entries = [(op.var, m, 0, m)]
                    else:
                        kills, each = slots.write_each(op)
                        entries = [(v, m if kills else 0, 0, m) for v, m in each]
                elif code is CALL:
                    entries = [(v, 0, m, m) for v, m in slots.call_each()]
                else:
                    continue
                eff.append((i, op, entries))
                for v, k, r, _w in entries:
                    per = summary.get(v)
                    if per is None:
                        per = summary[v] = {}
                    gk = per.get(b)
                    if gk is None:
                        per[b] = [r, k]
                    else:
                        gk[0] = (gk[0] & ~k) | r
                        gk[1] |= k
            effects.append(eff)
        return effects, summary

    def _solve_shared(self, shared: set[Variable], summary: dict[Variable, dict[int, list[int]]]) -> None:
        """Live-in of every block for the ``shared`` variables, side by side in one int."""
        n = len(self._live_blocks)
        succs = self._live_succs
        self._shared: dict[Variable, int] = {}  # var -> its first bit in the shared int
        gen_kill = [[0, 0] for _ in range(n)]
        at_exit = first = 0
        for v in summary:  # (in the order variables were met)
            if v not in shared:
                continue
            self._shared[v] = first
            for b, (g, k) in summary[v].items():
                gk = gen_kill[b]
                gk[0] |= g << first
                gk[1] |= k << first
            at_exit |= self._exit_bits.get(v, 0) << first
            first += self._slots_live.all_of(v).bit_length()
        live_in = [0] * n
        changed = bool(shared)
        while changed:
            changed = False
            for b in range(n - 1, -1, -1):
                cur = 0
                for s in succs[b]:
                    cur |= at_exit if s < 0 else live_in[s]
                g, k = gen_kill[b]
                cur = (cur & ~k) | g
                if cur != live_in[b]:
                    live_in[b] = cur
                    changed = True
        self._shared_in, self._shared_exit = live_in, at_exit

    def _solve_alone(self, var: Variable, per: dict[int, list[int]], preds: list[list[int]], exits: list[int]) -> dict[int, int]:
        """block -> ``var``'s bits live at its start (blocks where none are
        left out): a worklist from the blocks that read it, backward."""
        succs = self._live_succs
        ins: dict[int, int] = {}
        at_exit = self._exit_bits.get(var, 0)
        work = [b for b, (g, _k) in per.items() if g]
        if at_exit:
            work += exits
        while work:
            b = work.pop()
            out = 0
            for s in succs[b]:
                out |= at_exit if s < 0 else ins.get(s, 0)
            gk = per.get(b)
            new = out if gk is None else gk[0] | (out & ~gk[1])
            if new != ins.get(b, 0):
                ins[b] = new
                work += preds[b]
        return ins

    def _mark_live_stores(self) -> None:
        """Per STORE: whether a slot it writes may be read afterwards."""
        self._store_live: dict[Op, bool] = {}
        STORE, D3D_STORE = Code.STORE, Code.D3D_STORE
        for b, eff in enumerate(self._live_effects):
            cur: dict[Variable, int] = {}
            for _, op, entries in eff:
                if op.code is STORE or op.code is D3D_STORE:
                    live = False
                    for v, _k, _r, w in entries:
                        c = cur.get(v)
                        if c is None:
                            c = cur[v] = self._live_out(v, b)
                        if c & w:
                            live = True
                    self._store_live[op] = live
                for v, k, r, _w in entries:
                    c = cur.get(v)
                    if c is None:
                        c = self._live_out(v, b)
                    cur[v] = (c & ~k) | r

    def _live_out(self, var: Variable, block: int) -> int:
        """``var``'s bits live at the end of ``block``."""
        first = self._shared.get(var)
        if first is not None:
            out = 0
            for s in self._live_succs[block]:
                out |= self._shared_exit if s < 0 else self._shared_in[s]
            return (out >> first) & self._slots_live.all_of(var)
        ins = self._live_in.get(var)
        if ins is None:
            return 0
        at_exit = self._exit_bits.get(var, 0)
        out = 0
        for s in self._live_succs[block]:
            out |= at_exit if s < 0 else ins.get(s, 0)
        return out

    def live_after(self, op: Op, var: Variable | None = None) -> set[int]:
        """Components of ``var`` (default ``op.var``) that may still be read
        after ``op`` (an op outside every block, a marker, sees nothing)."""
        var = var or op.var
        if self._live_where is None:
            self._live_where = {o: (b, i) for b, ops in enumerate(self._live_blocks) for i, o in enumerate(ops)}
        place = self._live_where.get(op)
        found = self._slots_live.ranges.get(var)
        if place is None or found is None:
            return set()
        b, i = place
        bits = self._live_out(var, b)
        for j, _, entries in self._live_effects[b]:
            if j <= i:
                break
            for v, k, r, _w in entries:
                if v is var:
                    bits = (bits & ~k) | r
        _, width, elements = found
        return {c for e in range(elements) for c in range(width) if bits >> (e * width + c) & 1}

    def is_dead_store(self, store: Op) -> bool:
        """True when no slot a STORE writes can be read afterwards.

        Only private variables qualify: outputs are observable, and the
        read-only files are never stored."""
        if store.var.storage not in PRIVATE:
            return False
        return not self._store_live.get(store, False)


def loaded_components(body: list[Op]) -> dict[Op, int]:
    """LOAD -> the mask of its components that matter (``used_components``
    for every LOAD of ``body`` at once); LOADs nobody uses are left out."""
    comps: dict[Op, int] = {}
    get = comps.get
    LOAD, SWIZZLE = Code.LOAD, Code.SWIZZLE
    for op in body:
        if op.args:
            if op.code is SWIZZLE:
                a = op.args[0]
                if a.code is LOAD:
                    comps[a] = get(a, 0) | PICKED[op.imm]
            else:
                for a in op.args:
                    if a.code is LOAD:
                        comps[a] = 0xF
    return comps


# SWIZZLE picks -> the mask of the components they read (every pick of up to
# four components: a table lookup instead of a loop per SWIZZLE).
PICKED: dict[tuple[int, ...], int] = {
    picks: sum(1 << c for c in set(picks))
    for n in range(1, 5)
    for picks in itertools.product(range(4), repeat=n)
}


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

    IF, ELSE, ENDIF, LOOP, ENDLOOP, BREAK, RETURN = (
        Code.IF, Code.ELSE, Code.ENDIF, Code.LOOP, Code.ENDLOOP, Code.BREAK, Code.RETURN)
    splits = {IF, ELSE, ENDIF, LOOP, ENDLOOP, BREAK, RETURN}
    ops = blocks[0]
    for op in body:
        code = op.code
        if code not in splits:
            ops.append(op)
            continue
        if code is IF:
            ops.append(op)
            stack.append(["if", current, None, False])
            nb = new_block()
            succs[current].append(nb)
            current = nb
        elif code is ELSE:
            frame = stack[-1]
            frame[2] = current
            frame[3] = True
            nb = new_block()
            succs[frame[1]].append(nb)
            current = nb
        elif code is ENDIF:
            frame = stack.pop()
            join = new_block()
            succs[frame[2] if frame[3] else frame[1]].append(join)
            succs[current].append(join)
            current = join
        elif code is LOOP:
            header = new_block()
            succs[current].append(header)
            stack.append(["loop", header, []])
            current = header
        elif code is ENDLOOP:
            frame = stack.pop()
            succs[current].append(frame[1])  # back edge
            after = new_block()
            for b in frame[2]:
                succs[b].append(after)
            current = after
        elif code is BREAK:
            ops.append(op)
            for frame in reversed(stack):
                if frame[0] == "loop":
                    frame[2].append(current)
                    break
            current = new_block()
        else:  # RETURN
            ops.append(op)
            succs[current].append(-1)
            current = new_block()
        ops = blocks[current]
    succs[current].append(-1)
    return blocks, succs


def analyze(program: Program, fn: Function) -> RegisterAnalysis:
    return RegisterAnalysis(program, fn)
