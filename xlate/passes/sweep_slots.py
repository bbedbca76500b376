"""Dead stores and unused values in the functions ``cleanup.sweep`` leaves
alone (private arrays, indexed accesses, D3D_STOREs, loops in a
subroutine), with ``analysis.LiveSlots``'s bits and rules.

What alternating ``remove_unused_values`` and ``remove_dead_stores``
(a ``RegisterAnalysis`` each round) ends with, without one round per
STORE of a chain (each ``loop`` saves and restores ``aL``: a chain through
every loop of the shader, and as many rounds, each a walk over the whole
function):

* a round walks backward over the ops once, keeping every STORE, to drop
  the values nobody uses and collect the register accesses and control
  markers; walks over those find what is live (one int of slot bits; a
  loop is walked again until what is live at its start stops growing) and
  the dead STOREs, exactly as ``RegisterAnalysis`` does on its CFG;
* when there are dead STOREs, one walk over every op removes them and the
  whole chain they free: a STORE is decided when the walk reaches it, from
  what the ops after it left live, and its value is used only when it
  stays.  The end of a loop's body gets what the round found live at the
  loop's start, less, for the slots the loop does not touch, what is no
  longer live after it.  Removing a dead STORE never makes anything else
  live, so every STORE this walk removes writes nothing live in what is
  left, and removals in any order end where rounds end; the next round
  finds what a smaller loop start frees, and the last finds nothing.
"""

from __future__ import annotations

from ..ir.ops import Code, Op
from ..ir.program import Function, Program
from .analysis import PICKED, PRIVATE, LiveSlots

_LOAD, _STORE, _D3D_STORE, _SWIZZLE, _CALL, _RETURN = (
    Code.LOAD, Code.STORE, Code.D3D_STORE, Code.SWIZZLE, Code.CALL, Code.RETURN)
_IF, _ELSE, _ENDIF, _LOOP, _ENDLOOP, _BREAK = Code.IF, Code.ELSE, Code.ENDIF, Code.LOOP, Code.ENDLOOP, Code.BREAK
_MARKERS = frozenset({_IF, _ELSE, _ENDIF, _LOOP, _ENDLOOP, _BREAK, _RETURN, _CALL})
_EVERYTHING = -1  # every slot bit (a CALL reads every private variable; a subroutine's caller may)


def sweep_slots(program: Program, fn: Function) -> tuple[list[Op], bool]:
    """``fn``'s body without unused values and dead STOREs (to private
    variables), and whether a LOAD was removed."""
    slots = LiveSlots(program, fn)
    at_exit = 0 if fn.name == "main" else _EVERYTHING
    body = fn.body
    load_removed = False
    while True:
        keep, used, accesses, gone = _unused_values(body)
        load_removed = load_removed or gone
        heads, dead = _liveness(slots, accesses, used, at_exit)
        if not dead:
            keep.reverse()
            return keep, load_removed
        body, gone = _remove_dead(slots, keep, at_exit, _loop_heads(slots, accesses, heads, at_exit))
        load_removed = load_removed or gone


def _unused_values(body: list[Op]):
    """One backward walk, every STORE kept: (the ops kept, last first;
    value -> the components its kept uses read; the accesses to private
    variables, CALLs and control markers kept, last first; whether a LOAD
    went)."""
    used: dict[Op, int] = {}
    get = used.get
    keep: list[Op] = []
    accesses: list[Op] = []
    load_removed = False
    for op in reversed(body):
        code = op.code
        if op.type is not None:
            if op not in used:
                if code is _LOAD:
                    load_removed = True
                continue
            if code is _LOAD and op.var.storage in PRIVATE:
                accesses.append(op)
        elif code is _STORE or code is _D3D_STORE:
            if op.var.storage in PRIVATE:
                accesses.append(op)
        elif code in _MARKERS:
            accesses.append(op)
        keep.append(op)
        args = op.args
        if args:
            if code is _SWIZZLE:
                a = args[0]
                used[a] = get(a, 0) | PICKED[op.imm]
            else:
                for a in args:
                    used[a] = 0xF
    return keep, used, accesses, load_removed


def _read(slots: LiveSlots, op: Op, comps: int) -> int:
    """The bits a kept LOAD of a private variable reads."""
    if not op.args:
        plain = slots.plain.get(op.var)
        if plain is None and op.var.length is None:
            slots.range_of(op.var)
            plain = slots.plain[op.var]
        if plain is not None:
            return (comps & plain[1]) << plain[0]
    return slots.read(op, comps)


def _write(slots: LiveSlots, op: Op) -> tuple[int, int]:
    """(killed, written) bits of a STORE or D3D_STORE to a private variable
    (``RegisterAnalysis``'s rules: a plain variable is certainly overwritten)."""
    if op.code is _STORE and len(op.args) == 1 and op.imm and op.var.length is None:
        plain = slots.plain.get(op.var)
        if plain is None:
            slots.range_of(op.var)
            plain = slots.plain[op.var]
        bits = (op.imm[0] & plain[1]) << plain[0]
        return bits, bits
    return slots.write(op)


def _liveness(slots: LiveSlots, accesses: list[Op], used: dict[Op, int], at_exit: int):
    """(ENDLOOP -> the bits live at its LOOP, the STOREs that write no bit
    live after them), walking ``accesses`` (last first); a loop is walked
    again until what is live at its LOOP stops growing (from nothing, as a
    dataflow fixpoint is found)."""
    heads: dict[Op, int] = {}
    while True:
        live = at_exit
        dead: list[Op] = []
        joins: list[list] = []  # per IF being walked: [live after its ENDIF, live at its ELSE or None]
        loops: list[tuple[Op, int]] = []  # per loop being walked: (its ENDLOOP, live after it)
        grew = False
        for op in accesses:
            code = op.code
            if code is _LOAD:
                live |= _read(slots, op, used[op])
            elif code is _STORE or code is _D3D_STORE:
                kill, written = _write(slots, op)
                if code is _STORE and not written & live:
                    dead.append(op)
                live &= ~kill
            elif code is _ENDIF:
                joins.append([live, None])
            elif code is _ELSE:
                join = joins[-1]
                join[1], live = live, join[0]
            elif code is _IF:
                after, other = joins.pop()
                live |= after if other is None else other
            elif code is _ENDLOOP:
                loops.append((op, live))
                live = heads.get(op, 0)
            elif code is _LOOP:
                end = loops.pop()[0]
                if live != heads.get(end, 0):
                    heads[end] = live
                    grew = True
            elif code is _BREAK:
                live = loops[-1][1]
            elif code is _CALL:
                live = _EVERYTHING
            else:  # RETURN
                live = at_exit
        if not grew:
            return heads, dead


def _loop_heads(slots: LiveSlots, accesses: list[Op], heads: dict[Op, int], at_exit: int) -> dict[Op, tuple[int, int]]:
    """ENDLOOP -> (the bits live at its LOOP, the bits its body may touch:
    every bit when it has a CALL, or a RETURN out of a subroutine)."""
    out: dict[Op, tuple[int, int]] = {}
    stack: list[list] = []  # per loop being walked: [its ENDLOOP, the bits touched so far]
    for op in accesses:
        code = op.code
        if code is _ENDLOOP:
            stack.append([op, 0])
        elif not stack:
            continue
        elif code is _LOAD:
            stack[-1][1] |= _read(slots, op, 0xF)
        elif code is _STORE or code is _D3D_STORE:
            stack[-1][1] |= _write(slots, op)[1]
        elif code is _LOOP:
            end, touched = stack.pop()
            out[end] = (heads.get(end, 0), touched)
            if stack:
                stack[-1][1] |= touched
        elif code is _CALL or (code is _RETURN and at_exit):
            stack[-1][1] = _EVERYTHING
    return out


def _remove_dead(slots: LiveSlots, ops: list[Op], at_exit: int, heads: dict[Op, tuple[int, int]]) -> tuple[list[Op], bool]:
    """``ops`` (last first) without the dead STOREs and the values only they
    used, in one backward walk (see the module doc), and whether a LOAD went."""
    used: dict[Op, int] = {}
    get = used.get
    keep: list[Op] = []
    load_removed = False
    live = at_exit
    joins: list[list] = []
    loops: list[int] = []  # per loop being walked: live after it
    for op in ops:
        code = op.code
        if op.type is not None:
            if op not in used:
                if code is _LOAD:
                    load_removed = True
                continue
            if code is _LOAD and op.var.storage in PRIVATE:
                live |= _read(slots, op, used[op])
        elif code is _STORE or code is _D3D_STORE:
            if op.var.storage in PRIVATE:
                kill, written = _write(slots, op)
                if code is _STORE and not written & live:
                    continue  # dead
                live &= ~kill
        elif code is _ENDIF:
            joins.append([live, None])
        elif code is _ELSE:
            join = joins[-1]
            join[1], live = live, join[0]
        elif code is _IF:
            after, other = joins.pop()
            live |= after if other is None else other
        elif code is _ENDLOOP:
            loops.append(live)
            head, touched = heads[op]
            live = head & (live | touched)  # an untouched slot is live at the LOOP only as far as after it
        elif code is _LOOP:
            loops.pop()
        elif code is _BREAK:
            live = loops[-1]
        elif code is _CALL:
            live = _EVERYTHING
        elif code is _RETURN:
            live = at_exit
        keep.append(op)
        args = op.args
        if args:
            if code is _SWIZZLE:
                a = args[0]
                used[a] = get(a, 0) | PICKED[op.imm]
            else:
                for a in args:
                    used[a] = 0xF
    keep.reverse()
    return keep, load_removed
