"""Remove what the program does not need; never change what it computes.

In order, per function:
1. IFs on a constant condition (folded DEFBs, ``ifc`` codes 0/7) keep only
   the branch that runs.  (The peephole walk finds them, so that no walk of
   its own looks for IFs; a condition only the peepholes make constant does
   not count, as if this step ran first.)
2. Peepholes (one forward walk; an op that folds is rewritten in place):
   identity SWIZZLEs go, SWIZZLE of SWIZZLE composes, SWIZZLE/CONSTRUCT of
   CONSTs and simple CONST-only arithmetic fold to a CONST (float math in
   float32, ints wrap at 32 bits, exactly what the GPU computes;
   min/max/dot/transcendentals are left alone), SELECT on a constant
   condition picks its side, an array LOAD with a constant in-bounds index
   becomes a static LOAD.
3. Until nothing changes: values nobody uses are removed (their ops have no
   effects), and STOREs to private variables none of whose written
   components can be read afterwards are removed, which frees more values.
   (Removing such a STORE never makes anything else live, so the order of
   the removals does not change where they end: a walk may remove a whole
   chain at once.)
   Functions without private arrays and loops in a subroutine (all but a
   handful) get there in a backward walk over the body and walks over its
   private register accesses alone (``sweep``); the others in walks with
   ``analysis.LiveSlots``'s bits (``sweep_slots``).  Both end where
   alternating ``remove_unused_values`` and ``remove_dead_stores`` ends
   (``analysis.RegisterAnalysis``: sees loops' back edges, CALLs read
   everything, subroutines leave everything live for the caller), which
   the tests check.
Finally private variables nothing touches any more are dropped, and the
constant files are re-trimmed (``constants.shrink_arrays``) when the
constants pass has run and a LOAD may have gone or changed here.
"""

from __future__ import annotations

from itertools import compress
from operator import attrgetter
from typing import Iterable

from ..ir.ops import CONTROL, Code, Op
from ..ir.program import CONSTANT_FILES, Function, Program, Storage, Variable
from ..ir.summary import Summary, bodies_of
from ..options import Options
from .analysis import PICKED, PRIVATE, LiveSlots, RegisterAnalysis
from .constants import shrink_arrays
from .peepholes import fold_static_branches, peepholes
from .sweep_slots import sweep_slots


def run(program: Program, options: Options, islands: tuple[int, int] | None = None) -> Summary | None:
    """``islands``: what ``io.run`` returned, when nothing changed main's
    body since (``passes.pipeline``): its first and last ops that this pass
    would leave as they are and that change none of its decisions about the
    others (see ``io.run``), left out of the walks.

    Returns, when its walks looked at every op it keeps (``sweep``'s do, in
    nearly every shader) and found no D3D op, the ``ir.summary.Summary`` of
    the program it leaves: whether a CALL is left (what
    ``validate(full=False)`` would walk every body again to find), the
    constant-file LOADs and the legacy multiplies and dots (what a backend
    would walk every body again to find); else None.  Islands hold none of
    these (``io.run``)."""
    # ``array_ranges`` (the constants pass, just before) stays right unless a
    # LOAD goes or changes here: in a folded branch, through the peepholes
    # (which only touch LOADs with an index, or their index), or as a value
    # nobody uses.  Recomputing it costs as much as the rest of the pass.
    loads_may_change = False
    touched: set[Variable] = set()
    calls: bool | None = False
    loads: list[Op] = []
    mul = dot = 0
    main = program.functions["main"]
    prologue = epilogue = None
    if islands is not None and (islands[0] or islands[1]):
        body = main.body
        first, last = islands[0], len(body) - islands[1]
        prologue, epilogue = body[:first], body[last:]
        main.body = body[first:last]
    for fn in program.functions.values():  # (each function on its own: one loop does all)
        indexed, ifs = peepholes(fn)
        if ifs:
            fn.body = fold_static_branches(fn.body, ifs)
        load_removed, variables, seen = remove_dead_code(program, fn)
        loads_may_change = loads_may_change or indexed or ifs is not None or load_removed
        touched.update(variables)
        if seen is None or calls is None:
            calls = None
        else:
            fn_calls, fn_loads, fn_mul, fn_dot = seen
            calls = calls or fn_calls
            loads += fn_loads
            mul += fn_mul
            dot += fn_dot
    if prologue is not None:
        main.body = prologue + main.body + epilogue
    _drop_unused_variables(program, touched)
    if loads_may_change and "array_ranges" in program.notes:
        shrink_arrays(program)
    if calls is None:
        return None
    legacy = {}
    if mul:
        legacy[_FMUL_LEGACY] = mul
    if dot:
        legacy[_FDOT_LEGACY] = dot
    return Summary(calls, loads, legacy, bodies_of(program))


# -- 3. unused values and dead stores ---------------------------------------------------


def remove_dead_code(program: Program, fn: Function) -> tuple[bool, Iterable[Variable], tuple | None]:
    """Remove values nobody uses and STOREs nobody reads, until neither is
    left.  Returns whether a LOAD was removed, the variables the ops left
    touch (at least every private one), and, when the last walk looked at
    every op left and none is a D3D op, what it saw (else None): whether one
    is a CALL, the constant-file LOADs, how many legacy multiplies and dots."""
    swept = sweep(program, fn)
    if swept is not None:
        fn.body, load_removed, touched, seen = swept
        return load_removed, touched, seen
    fn.body, load_removed = sweep_slots(program, fn)
    return load_removed, {op.var for op in fn.body}, None


# (module constants: ``Code.X`` is an enum class attribute lookup, slow in a hot function)
_LOAD, _STORE, _IF, _ELSE, _ENDIF, _LOOP, _ENDLOOP, _BREAK = (
    Code.LOAD, Code.STORE, Code.IF, Code.ELSE, Code.ENDIF, Code.LOOP, Code.ENDLOOP, Code.BREAK)
_FMUL_LEGACY, _FDOT_LEGACY = Code.FMUL_LEGACY, Code.FDOT_LEGACY
# The control markers ``_live_components`` follows (a CALL reads every
# private register and may write any: no STORE before it is dead).
_MARKERS = frozenset(CONTROL)
_CALL = Code.CALL
# Ops ``sweep`` leaves to ``RegisterAnalysis``: a D3D_STORE is not lowered yet.
_NOT_SWEPT = frozenset({Code.D3D_STORE})
_D3D_VALUES = frozenset({Code.D3D_OP, Code.D3D_SRCMOD})
# the values ``_unused_values`` notes: D3D ones, legacy multiplies and dots
_NOTED_VALUES = _D3D_VALUES | {_FMUL_LEGACY, _FDOT_LEGACY}
# ``_unused_values``'s verdicts on straight-line code
_DEAD, _ARRAY = "dead store", "array"
# Ops that end a straight line (what ``sweep_with_stores`` takes).
_NOT_STRAIGHT = frozenset(CONTROL | {Code.D3D_STORE})


def sweep(program: Program, fn: Function) -> tuple[list[Op], bool, Iterable[Variable], tuple | None] | None:
    """``fn``'s body without unused values and dead stores, whether a LOAD
    was removed, the variables the ops kept touch (every private one at
    least), and ``remove_dead_code``'s last item; None when the body has an op of ``_NOT_SWEPT``, an access to a
    private array or an indexed one, or is a subroutine with a loop (left to
    ``RegisterAnalysis``).  A CALL reads every private variable and may
    write any (what is live before it is "everything": the walks keep a
    default for the variables not in their dicts).

    Real shaders almost never store to a register nobody reads, so this
    first assumes every STORE stays: one backward walk drops the values
    nobody uses and collects the private LOADs and STOREs left and the
    control markers (``_unused_values``), and walks over those alone find
    the live components and the dead STOREs (``_live_components``).  That
    is one round of the ``remove_unused_values`` / ``remove_dead_stores``
    loop at a fraction of the cost (no CFG, no ``RegisterAnalysis``; the
    same equations).  When it finds dead stores, one walk over every op
    (``_sweep_with_heads``) removes them and the whole chain of STOREs they
    free, and the round is repeated on what is left, until it finds none
    (rounds removing one link each would add up to a cost quadratic in the
    size: each ``loop`` saves and restores ``aL``, a chain through every
    loop of the shader).  Straight-line code with a dead store goes to
    ``sweep_with_stores`` instead.
    """
    at_exit = 0 if fn.name == "main" else 0xF
    body = fn.body
    load_removed = False
    while True:
        values = _unused_values(body, at_exit)
        if values is None:
            return None
        keep, used, accesses, gone, markers, calls, d3d, live, verdict, seen = values
        load_removed = load_removed or gone
        if not markers:  # straight-line code: the walk followed the live components itself
            if verdict is None:
                keep.reverse()
                return keep, load_removed, live.keys(), None if d3d else seen
            if verdict is _ARRAY:
                return None
            return (*sweep_with_stores(program, fn), None)
        # (only where something may be live by default: see _earliest)
        drop = _earliest(accesses) if at_exit or calls else None
        found = _live_components(accesses, used, at_exit, markers, drop)
        if found is None:
            return None
        live, dead, heads = found
        if not dead:
            keep.reverse()
            # (what is live is reset at jumps and variables with nothing
            # live leave it: its keys may miss some)
            return keep, load_removed, {op.var for op in accesses}, None if d3d else seen
        body, gone = _sweep_with_heads(keep, at_exit, _loop_heads(accesses, heads), drop)
        load_removed = load_removed or gone


def _unused_values(body: list[Op], at_exit: int = 0):
    """One backward walk, every STORE kept: (the ops kept, last first;
    value -> the components its kept uses read; the private LOADs and STOREs
    kept and the control markers, last first (only where there are markers:
    found in the ops kept, after the walk); whether a LOAD went; whether
    there are markers; whether one is a CALL; whether a D3D op is kept;
    and, without markers, what ``_live_components`` would find: variable ->
    its components live at the start (``at_exit`` live at the end), and
    None, ``_DEAD`` at a STORE that writes nothing live or ``_ARRAY`` at an
    access to an array or an indexed one, whichever comes first; and
    ``remove_dead_code``'s last item for the ops kept: whether one is a
    CALL, the constant-file LOADs, how many legacy multiplies and dots), or
    None at an op of ``_NOT_SWEPT``.  Uses come after definitions, so an op's
    users are all decided when the walk reaches it, a LOAD's components
    too: in straight-line code the walk follows them as it goes (as
    ``_live_components`` would after it, without walking the accesses
    again); a marker ends that (its result is not used then)."""
    used: dict[Op, int] = {}  # value -> the components its kept uses read (LOADs: ``loaded_components``)
    get = used.get
    keep: list[Op] = []
    accesses: list[Op] = []  # (with markers only)
    load_removed = markers = calls = d3d = False
    loads: list[Op] = []  # constant-file LOADs kept
    mul = dot = 0  # legacy multiplies and dots kept
    live: dict[Variable, int] = {}
    verdict = None
    follow = True  # no marker, no verdict yet
    LOAD, STORE, SWIZZLE = Code.LOAD, Code.STORE, Code.SWIZZLE
    for op in reversed(body):
        code = op.code
        if op.type is not None:
            if op not in used:  # nobody uses it
                if code is LOAD:
                    load_removed = True
                continue
            if code is LOAD:
                var = op.var
                if var.storage in PRIVATE:
                    if follow:
                        if op.args or var.length is not None:
                            verdict, follow = _ARRAY, False
                        else:
                            live[var] = live.get(var, at_exit) | used[op]
                elif var.storage in CONSTANT_FILES:
                    loads.append(op)
            elif code in _NOTED_VALUES:  # (one test for the common values: none of these)
                if code is _FMUL_LEGACY:
                    mul += 1
                elif code is _FDOT_LEGACY:
                    dot += 1
                else:  # a D3D value (left for validate to refuse)
                    d3d = True
        elif code is STORE:
            var = op.var
            if var.storage in PRIVATE:  # other stores are observable
                if follow:
                    if len(op.args) != 1 or var.length is not None:
                        verdict, follow = _ARRAY, False
                    else:
                        components = (1 << var.type.width) - 1
                        written = (op.imm[0] if op.imm else 0xF) & components
                        now = live.get(var, at_exit) & components
                        if written & now:
                            live[var] = now & ~written
                        else:
                            verdict, follow = _DEAD, False
        elif code in _MARKERS:
            markers = True
            follow = False
            if code is _CALL:
                calls = True
        elif code in _NOT_SWEPT:
            return None
        keep.append(op)
        args = op.args
        if args:
            if code is SWIZZLE:
                a = args[0]
                used[a] = get(a, 0) | PICKED[op.imm]
            else:
                for a in args:
                    used[a] = 0xF
    if markers:  # (found again in what is kept: straight-line code needs no list)
        accesses = [op for op in keep if op.code in _MARKERS or (
            (op.code is LOAD or op.code is STORE) and op.var.storage in PRIVATE)]
    return keep, used, accesses, load_removed, markers, calls, d3d, live, verdict, (calls, loads, mul, dot)


def _earliest(accesses: list[Op]) -> set[Op]:
    """The first LOAD or STORE of each variable in ``accesses`` (walked last
    first: the last one met).

    After a CALL (or in a subroutine) everything is live by default, so a
    variable a STORE kills stays in the walks' dicts with nothing live: in a
    long function every one would, and each marker would copy them all.
    Past a variable's first access (outside every loop, which is walked
    again), nothing asks about it any more, and the walks drop it."""
    seen: set = set()
    first: set[Op] = set()
    for op in reversed(accesses):
        if (op.code is _LOAD or op.code is _STORE) and op.var not in seen:
            seen.add(op.var)
            first.add(op)
    return first


def _live_components(accesses: list[Op], used: dict[Op, int], at_exit: int, markers: bool,
                     drop: set[Op] | None = None):
    """Walking ``accesses`` (private LOADs and STOREs and control markers,
    last first) like ``RegisterAnalysis`` walks blocks, with a mask of live
    components per variable: (variable -> its components live at the start,
    the STOREs that write none that is live after them, ENDLOOP -> what is
    live at its LOOP), or None at an access to an array, or an indexed one
    (these masks do not follow them), and at a loop in a subroutine.
    ``at_exit``: the components live at the end (none in main, all in a
    subroutine: the caller may read them); a variable not in a dict has
    those.  ``drop``: ``_earliest``'s, or None.

    A loop is walked again until what is live at its start stops growing
    (from nothing, as a dataflow fixpoint is found); only the dead STOREs of
    the walk where nothing changed count.  With ``markers`` (in main), a
    variable with nothing live leaves the dict: the dicts copied at each
    marker hold the few variables live there, not every one seen (a loop
    counter each, in loop-heavy code), which would make the walk quadratic.
    (In a subroutine "nothing live" is no default, so loops are left to
    ``RegisterAnalysis``.)"""
    straight = not markers
    heads: dict[Op, tuple] = {}  # ENDLOOP -> what is live at its LOOP (dict, default), as far as known
    while True:
        live: dict[Variable, int] = {}
        default = at_exit  # what a variable not in ``live`` has live (all after a CALL)
        dead: list[Op] = []
        # per IF being walked (innermost last): [live after its ENDIF, its
        # default, live at the start of its ELSE part and its default (None
        # until the walk gets there)]
        joins: list[list] = []
        loops: list[tuple] = []  # per loop being walked: (its ENDLOOP, live after it and its default: where BREAK goes)
        grew = False
        for op in accesses:
            code = op.code
            if code is _LOAD:
                var = op.var
                if op.args or var.length is not None:
                    return None
                live[var] = live.get(var, default) | used[op]
                if drop is not None and not loops and op in drop:
                    del live[var]
            elif code is _STORE:
                var = op.var
                if len(op.args) != 1 or var.length is not None:
                    return None
                components = (1 << var.type.width) - 1
                written = (op.imm[0] if op.imm else 0xF) & components
                # (a LOAD marks the four components of a scalar read whole: only its own count)
                now = live.get(var, default) & components
                if not written & now:
                    if straight:  # no loop to walk again: one is enough (``sweep`` goes on without this)
                        return live, [op], heads
                    dead.append(op)
                now &= ~written  # a plain variable without an index: certainly overwritten
                if (now or default or straight) and (drop is None or loops or op not in drop):
                    live[var] = now
                else:
                    live.pop(var, None)
            elif code is _ENDIF:
                joins.append([dict(live), default, None, 0])
            elif code is _ELSE:  # the THEN part ends where the IF ends
                join = joins[-1]
                join[2], join[3], live, default = live, default, join[0], join[1]
            elif code is _IF:  # either part may run (with no ELSE, the other way skips to the ENDIF)
                after, after_default, other, other_default = joins.pop()
                if other is None:
                    other, other_default = after, after_default
                for var in live.keys() | other.keys():
                    live[var] = live.get(var, default) | other.get(var, other_default)
                default |= other_default
            elif code is _ENDLOOP:  # the end of the body goes back to the LOOP
                if at_exit:
                    return None
                loops.append((op, live, default))
                head, default = heads.setdefault(op, ({}, 0))
                live = dict(head)
            elif code is _LOOP:
                end = loops.pop()[0]
                head, head_default = heads[end]
                # (with nothing live as the default a dict has one spelling;
                # after a CALL a variable may be in it or not for the same)
                if default != head_default or (live != head and (not default or not _same(live, head, default))):
                    heads[end] = (dict(live), default)
                    grew = True
            elif code is _BREAK:
                _, after, default = loops[-1]
                live = dict(after)
            elif code is _CALL:  # the callee may read every private variable
                live = {}
                default = 0xF
            else:  # RETURN
                live = {}
                default = at_exit
        if not grew:
            return live, dead, heads


def _same(a: dict[Variable, int], b: dict[Variable, int], default: int) -> bool:
    """Whether ``a`` and ``b`` give every variable the same live components."""
    return all(a.get(var, default) == b.get(var, default) for var in a.keys() | b.keys())


def _loop_heads(accesses: list[Op], heads: dict[Op, tuple]) -> dict[Op, tuple]:
    """ENDLOOP -> (what ``_live_components`` found live at its LOOP, its
    default, the private variables its body touches, or None when it has a
    CALL, which may touch every one), from ``accesses`` (last first)."""
    out: dict[Op, tuple] = {}
    stack: list[list] = []  # per loop being walked: [its ENDLOOP, the variables touched so far or None]
    for op in accesses:
        code = op.code
        if code is _LOAD or code is _STORE:
            if stack:
                touched = stack[-1][1]
                if touched is not None:
                    touched.add(op.var)
        elif code is _ENDLOOP:
            stack.append([op, set()])
        elif code is _LOOP:
            end, touched = stack.pop()
            out[end] = (*heads[end], touched)
            if stack and stack[-1][1] is not None:
                if touched is None:
                    stack[-1][1] = None
                else:
                    stack[-1][1] |= touched
        elif code is _CALL:
            for frame in stack:
                frame[1] = None
    return out


def _sweep_with_heads(ops: list[Op], at_exit: int, heads: dict[Op, tuple], drop: set[Op] | None = None) -> tuple[list[Op], bool]:
    """``ops`` (a body with markers, last first, as ``_unused_values`` keeps
    it) without the dead STOREs and the values that only they used, found in
    one backward walk over every op, and whether a LOAD went.

    Like ``sweep_with_stores`` in straight-line code, a STORE is decided
    when the walk reaches it, from what the ops after it left live, and its
    value is used only when it stays: a whole chain of STOREs that each
    only fed the next dead one goes in this walk (rounds of ``sweep`` would
    take one each: a cost quadratic in the number of blocks, e.g. the
    ``aL`` each ``loop`` saves and restores).  What a back edge brings to the
    end of a loop's body is ``heads`` (``_loop_heads``: what
    ``_live_components`` found for the body before this walk, less, for the
    variables the loop does not touch, what is not live after the loop any
    more): removals only shrink what is live, so every STORE removed here
    writes nothing live in what is left, and removing them in any order
    ends where rounds end.  The walk is not repeated to shrink ``heads``:
    ``sweep``'s next round finds what a smaller head frees.  ``drop``: as
    for ``_live_components``."""
    used: dict[Op, int] = {}
    get = used.get
    keep: list[Op] = []
    load_removed = False
    live: dict[Variable, int] = {}
    default = at_exit  # what a variable not in ``live`` has live (all after a CALL)
    joins: list[list] = []
    loops: list[tuple] = []  # per loop being walked: live after it and its default (where BREAK goes)
    LOAD, STORE, SWIZZLE = _LOAD, _STORE, Code.SWIZZLE
    for op in ops:
        code = op.code
        if op.type is not None:
            if op not in used:  # nobody uses it (any more)
                if code is LOAD:
                    load_removed = True
                continue
            if code is LOAD and op.var.storage in PRIVATE:
                var = op.var
                live[var] = live.get(var, default) | used[op]
                if drop is not None and not loops and op in drop:
                    del live[var]
        elif code is STORE:
            var = op.var
            if var.storage in PRIVATE:
                components = (1 << var.type.width) - 1
                written = (op.imm[0] if op.imm else 0xF) & components
                now = live.get(var, default) & components
                if not written & now:
                    continue  # dead
                now &= ~written
                if (now or default) and (drop is None or loops or op not in drop):
                    live[var] = now
                else:
                    live.pop(var, None)
        elif code is _ENDIF:
            joins.append([dict(live), default, None, 0])
        elif code is _ELSE:
            join = joins[-1]
            join[2], join[3], live, default = live, default, join[0], join[1]
        elif code is _IF:
            after, after_default, other, other_default = joins.pop()
            if other is None:
                other, other_default = after, after_default
            for var in live.keys() | other.keys():
                live[var] = live.get(var, default) | other.get(var, other_default)
            default |= other_default
        elif code is _ENDLOOP:
            loops.append((live, default))
            head, head_default, touched = heads[op]
            after, after_default = live, default
            live, default = {}, head_default
            for var, now in head.items():
                if touched is not None and var not in touched:  # live at the LOOP only as far as after it
                    now &= after.get(var, after_default)
                if now or default:
                    live[var] = now
        elif code is _LOOP:
            loops.pop()
        elif code is _BREAK:
            after, default = loops[-1]
            live = dict(after)
        elif code is _CALL:  # the callee may read every private variable
            live, default = {}, 0xF
        elif code in _MARKERS:  # RETURN
            live, default = {}, at_exit
        keep.append(op)
        args = op.args
        if args:
            if code is SWIZZLE:
                a = args[0]
                used[a] = get(a, 0) | PICKED[op.imm]
            else:
                for a in args:
                    used[a] = 0xF
    keep.reverse()
    return keep, load_removed


# How ``sweep_with_stores`` follows a variable's slots (``_follow``): not at
# all (not a private variable), inline as (first bit, width mask) (a private
# variable that is not an array), or through ``LiveSlots.read`` / ``write``.
_PUBLIC, _GENERAL = "public", "general"


def _follow(slots: LiveSlots, var: Variable):
    if var.storage not in PRIVATE:
        return _PUBLIC
    if var.length is None:
        first, width, _ = slots.range_of(var)
        return first, (1 << width) - 1
    return _GENERAL


def sweep_with_stores(program: Program, fn: Function) -> tuple[list[Op], bool, Iterable[Variable]]:
    """``sweep``'s result for a straight-line body, in one
    backward walk that also removes dead stores.

    Walking backward through straight-line code, every later op is already
    final: a value stays when a kept op uses it, a STORE to a private variable
    when a kept LOAD may read a slot it writes before a STORE kills it.  That
    is the fixpoint the ``remove_unused_values`` / ``remove_dead_stores`` loop
    reaches (removing an unused value or a dead store never makes anything
    needed again), found without building a ``RegisterAnalysis`` per round.
    Only private slots are followed: other stores are never dead."""
    slots = LiveSlots(program, fn)
    # private slots live at the exit: none in main, all in a subroutine (the
    # caller may read them; -1 has every bit set)
    live = 0 if fn.name == "main" else -1
    # variable -> ``_follow(slots, variable)``, entered when a kept op
    # touches it: one lookup per LOAD/STORE decides how to follow it, and
    # the keys are the variables left in use.
    where: dict[Variable, object] = {}
    used: dict[Op, int] = {}  # value -> the components its kept uses read (LOADs: ``loaded_components``)
    get = used.get
    keep: list[Op] = []
    load_removed = False
    LOAD, STORE, SWIZZLE = Code.LOAD, Code.STORE, Code.SWIZZLE
    for op in reversed(fn.body):
        code = op.code
        if op.type is not None:
            comps = get(op)
            if comps is None:  # nobody uses it
                if code is LOAD:
                    load_removed = True
                continue
            if code is LOAD:
                var = op.var
                how = where.get(var)
                if how is None:
                    how = where[var] = _follow(slots, var)
                if how is not _PUBLIC:
                    if how is _GENERAL or op.args:
                        live |= slots.read(op, comps)
                    else:
                        live |= (comps & how[1]) << how[0]
        elif code is STORE:
            var = op.var
            how = where.get(var) or _follow(slots, var)
            if how is not _PUBLIC:  # other stores are observable
                if how is _GENERAL or len(op.args) != 1 or not op.imm:
                    kill, written = slots.write(op)
                else:  # a plain variable without an index: certainly overwritten
                    kill = written = (op.imm[0] & how[1]) << how[0]
                if not written & live:
                    continue  # dead
                live &= ~kill
            where[var] = how  # (only now: a dead STORE touches nothing)
        elif code in _NOT_STRAIGHT:
            raise AssertionError("sweep_with_stores needs a straight-line body")
        keep.append(op)
        args = op.args
        if args:
            if code is SWIZZLE:
                a = args[0]
                used[a] = get(a, 0) | PICKED[op.imm]
            else:
                for a in args:
                    used[a] = 0xF
    keep.reverse()
    return keep, load_removed, where.keys()


def remove_unused_values(fn: Function) -> list[Op]:
    """Drop value ops nobody uses (values have no effects); returns them.
    One backward walk suffices: uses come after definitions, so an op's
    users are all decided when the walk reaches it."""
    used: set[Op] = set()
    keep = []
    removed = []
    for op in reversed(fn.body):
        if op.type is not None and op not in used:
            removed.append(op)
            continue
        keep.append(op)
        used.update(op.args)
    if removed:
        keep.reverse()
        fn.body = keep
    return removed


def remove_dead_stores(program: Program, fn: Function) -> list[Op]:
    """Drop STOREs none of whose written slots can be read; returns them."""
    analysis = RegisterAnalysis(program, fn)
    dead = [op for op in fn.body if op.code is Code.STORE and analysis.is_dead_store(op)]
    if dead:
        gone = set(dead)
        fn.body = [op for op in fn.body if op not in gone]
    return dead


_STATE = Storage.STATE
_STORAGE = attrgetter("storage")
_IS_PRIVATE = PRIVATE.__contains__


def _drop_unused_variables(program: Program, touched: set[Variable]) -> None:
    """Drop the private variables and state parameters no op touches
    (``touched``: all the others): a state parameter left is one the shader
    depends on, which the layout declares and the reflection lists."""
    variables = program.variables
    storages = list(map(_STORAGE, variables))  # (``map``s and ``compress``: loops in C, not Python)
    if _STATE in storages:
        # (``touched`` may hold only the private ones: look for the loads)
        touched = touched | {op.var for _fn, op in program.all_ops() if op.var is not None and op.var.storage is _STATE}
    elif touched.issuperset(compress(variables, map(_IS_PRIVATE, storages))):
        return  # (most shaders: every private variable is still touched)
    variables[:] = [v for v in variables if (v.storage not in PRIVATE and v.storage is not _STATE) or v in touched]
