"""Which values a text backend prints inside their one user (GLSL and WGSL).

A value is inlined when it has exactly one use, its expression is less than
``MAX_INLINE_DEPTH`` deep, no control op lies between it and its user and
no STORE in between writes a variable it reads (``analyse``).  The walk
also notes the constant registers a function reads, which the layout needs,
so that the backend walks the ops once before printing.  Split from
``glsl.py``, whose ``Emitter`` and the WGSL emitter both print by it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import chain

from ..ir.ops import Code, Op
from ..ir.program import Storage

CONTROL = frozenset({Code.IF, Code.ELSE, Code.ENDIF, Code.LOOP, Code.ENDLOOP, Code.BREAK, Code.RETURN, Code.CALL})
WRITABLE = frozenset({Storage.TEMP, Storage.ADDRESS, Storage.LOOP_COUNTER, Storage.PREDICATE, Storage.LOCAL,
                      Storage.OUTPUT})
MAX_INLINE_DEPTH = 10  # keeps expressions readable and parser stacks shallow
# Enum members the walk tests are module globals: in Python 3.11 reading
# ``Code.X`` goes through EnumType.__getattr__, ten times a global's cost.
LOAD, CONST, STORE, CALL_OP = Code.LOAD, Code.CONST, Code.STORE, Code.CALL


@dataclass(slots=True)
class Analysis:
    uses: Counter  # value -> how many args name it (absent: unused, not printed)
    inline: set[Op]  # the values printed inside their one user
    calls: bool  # the function has a CALL


def analyse(body: list[Op]) -> Analysis:
    """Which values are inlined into their user.

    A value is inlined when it has exactly one use, its expression is less
    than ``MAX_INLINE_DEPTH`` deep, no control op lies between it and its
    user (which is not a CALL) and no STORE in between writes a variable it
    reads.  Decided at the user, walking forward: by then the value's own
    reads and depth are known and "in between" is what has been walked
    since; a CALL is a control op, so it is covered too.  Ops are their
    own keys (they hash by identity).
    """
    writable = WRITABLE
    control = CONTROL
    max_depth = MAX_INLINE_DEPTH
    uses = Counter(chain.from_iterable([op.args for op in body]))
    inline: set[Op] = set()
    # The values that may still be inlined into a later user -> (position,
    # the writable variables read by them and their inlined args, depth of
    # their inlined args).  Only the single-use values less deep than
    # MAX_INLINE_DEPTH go in, and a control op empties it: then the user
    # need not test those rules per arg.  The reads are a tuple (repeats
    # allowed), cheaper to build than a set, and only searched when a STORE
    # lies between a value and its user.
    pending: dict[Op, tuple[int, tuple, int]] = {}
    pending_get = pending.get
    last_store: dict = {}  # Variable -> position of the latest STORE to it
    latest_store = -1  # position of the latest STORE to any variable
    calls = False
    for i, op in enumerate(body):
        code = op.code
        args = op.args
        reads = ()
        if code is LOAD:
            var = op.var
            if var.storage in writable:
                reads = (var,)
            if not args:  # the common case, with nothing more to decide
                if uses[op] == 1:
                    pending[op] = (i, reads, 0)
                continue
        elif code is CONST:
            inline.add(op)
            continue
        depth = 0
        for a in args:
            found = pending_get(a)
            if found is None:  # a constant (always inlined), or a value that stays where it is
                if not depth and a in inline:
                    depth = 1
                continue
            at, r, d = found
            if r:
                # a STORE since `at`, to a variable the value reads?
                if at < latest_store and any(last_store.get(v, -1) > at for v in r):
                    continue
                reads = reads + r if reads else r
            inline.add(a)
            if d >= depth:
                depth = d + 1
        if op.type is not None:
            if depth < max_depth and uses[op] == 1:
                pending[op] = (i, reads, depth)
        elif code is STORE:
            last_store[op.var] = latest_store = i
        elif code in control:
            if args and code is CALL_OP:  # (a CALL has no args) nor does anything move into one
                inline.difference_update([a for a in args if a.code is not CONST])
            pending.clear()  # nothing defined before a control op moves past it
            calls = calls or code is CALL_OP
    return Analysis(uses, inline, calls)
