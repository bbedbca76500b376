"""One way to rewrite a function body: walk it once, replace ops, remap uses.

Ops refer to their arguments directly, so replacing a value means every
later use must point at the replacement.  ``rewrite`` walks each body once
(linear cost), lets a handler emit new ops in place of an old one, and
remaps the arguments of everything after it.

Most passes have nothing to do in most shaders (no matrix macro, no source
modifier, no dynamic index), and a shader goes through about ten of them,
so ``rewrite`` first looks for the first op it has a handler for: a body
without one is left as it is, and the ops before it are copied unvisited.
The lowering passes go further: ``d3d_census`` tells them, without a walk,
whether any of their instructions is left, and a lowered D3D op is reused
as the op that replaces it (``Rewriter.become``, or moved in by ``rewrite``)
so that its D3D_STORE needs no remapping.
"""

from __future__ import annotations

from itertools import islice
from typing import Callable

from ..ir.ops import D3D_CODES, Code, Op
from ..ir.program import Function, Program
from ..ir.types import Type


class Rewriter:
    """Builds the new body of one function."""

    def __init__(self, program: Program, fn: Function):
        self.program = program
        self.fn = fn
        self.out: list[Op] = []
        # old op -> the op that now stands for its value.  Keyed by the op
        # itself: ops hash by identity (``Op`` has eq=False), and that saves
        # an id() call per argument on the hot path.
        self.map: dict[Op, Op] = {}
        self.origin = -1

    def emit(self, code: Code, type: Type | None = None, args=(), imm=(), var=None) -> Op:
        op = Op(code, type, tuple(args), tuple(imm), var, self.origin)
        self.out.append(op)
        return op

    def keep(self, op: Op) -> Op:
        self.out.append(op)
        return op

    def become(self, op: Op, code: Code, type: Type | None, args: tuple, imm: tuple = (), var=None) -> Op:
        """Emit the op being handled turned into ``code``/``type``/... in place.

        The same as ``emit`` followed by returning the new op, for a handler
        whose result is this one op (a D3D_STORE that becomes a STORE): the
        old op is reused instead of a new one built, and nothing that uses
        it needs remapping.  Its origin stays.  ``args`` and ``imm`` are
        tuples."""
        op.code, op.type, op.args, op.imm, op.var = code, type, args, imm, var
        self.out.append(op)
        return op

    def become_value(self, op: Op, value: Op, mark: int) -> Op:
        """``op`` (being handled) becomes ``value`` when that is the last op
        its handler emitted (``mark``: ``len(out)`` before the handler ran):
        what ``rewrite`` does for a D3D_OP, so that nothing reading ``op``
        needs remapping.  Otherwise ``value`` (remapped as usual)."""
        out = self.out
        if len(out) > mark and out[-1] is value:
            out.pop()
            return self.become(op, value.code, value.type, value.args, value.imm, value.var)
        return value

    def replace(self, old: Op, new: Op) -> None:
        self.map[old] = new

    def resolve(self, op: Op) -> Op:
        return self.map.get(op, op)


Handler = Callable[[Rewriter, Op], "Op | None"]
# A D3D_OP handler chosen by the op's D3D opcode: (rw, op, context).
OpcodeHandler = Callable[[Rewriter, Op, object], "Op | None"]

# The ops that read a D3D_OP's value: only the D3D_STORE of its instruction
# (docs/ir.md, "D3D-flavoured operations").
D3D_OP_READERS = frozenset({Code.D3D_STORE})

# Markers in ``handlers`` (never called): "look the D3D_OP's opcode up in
# ``opcodes``", and "keep the op, remapping its args" (``readers``).


def _BY_OPCODE(rw: Rewriter, op: Op) -> None:
    raise AssertionError("a marker")


def _KEEP(rw: Rewriter, op: Op) -> None:
    raise AssertionError("a marker")


def rewrite(
    program: Program,
    handlers: dict[Code, Handler],
    opcodes: dict[object, OpcodeHandler] | None = None,
    context: object = None,
    readers: frozenset[Code] | None = None,
) -> None:
    """Apply ``handlers[op.code](rw, op)`` to matching ops of every function.

    A handler emits replacement ops with ``rw.emit`` and returns the op that
    now stands for ``op``'s value (or None for effects / removal).  Ops
    without a handler are kept.  Arguments are remapped before the handler
    sees the op, so it always reads current values.

    ``opcodes`` handles D3D_OPs by their D3D opcode instead (the lowering
    passes' tables): ``opcodes[op.imm[0].opcode](rw, op, context)``, and a
    D3D_OP whose opcode is not there is kept for a later pass.

    ``readers``: when only ops with these codes can read a value that a
    ``opcodes`` handler replaces, only their args are looked up
    (``D3D_OP_READERS`` for the tables): looking in every op after the first
    replacement costs about as much as the rest of the walk.  A value that
    a ``handlers`` handler replaces may have any reader: from then on every
    op is looked at.
    """
    census = None
    if opcodes:
        if handlers:
            # A walk anyway: the census is only kept current, not taken.
            census = _recorded_census(program)
        else:
            census = d3d_census(program)
            if census.isdisjoint(opcodes):
                return  # none of these instructions occurs
        handlers = {**handlers, _D3D_OP: _BY_OPCODE}
    every_from_start = readers is None
    if readers is not None:
        # Readers get an entry if they have no handler (kept as they are),
        # so that the walk looks at the args of only the ops with an entry.
        handlers = {**dict.fromkeys(readers, _KEEP), **handlers}
    get = handlers.get
    for fn in program.functions.values():
        body = fn.body
        start = _first_handled(body, get, opcodes)
        if start < 0:
            continue
        rw = Rewriter(program, fn)
        every = every_from_start
        out = rw.out
        out += islice(body, start)
        remap = rw.map
        new = remap.get
        append = out.append
        # The tests are ordered for the most frequent ops: first those
        # without a handler (kept), then the D3D_OPs of a table.
        for op in islice(body, start, None):
            handler = get(op.code)
            if handler is None:
                if every and remap:
                    args = op.args
                    for a in args:
                        if a in remap:
                            op.args = tuple(map(new, args, args))  # new(a, a) for each: C speed
                            break
                append(op)
                continue
            if remap:
                args = op.args
                for a in args:
                    if a in remap:
                        op.args = tuple(map(new, args, args))
                        break
            if handler is _BY_OPCODE:
                handler = opcodes.get(op.imm[0].opcode)
                if handler is None:
                    append(op)
                    continue
                rw.origin = op.origin
                mark = len(out)
                result = handler(rw, op, context)
                if result is op or result is None:
                    continue
                if len(out) > mark and out[-1] is result:
                    # The value is the last op the handler emitted (most
                    # instructions): the D3D_OP becomes that op in place, so
                    # the ops reading it need no remapping.
                    op.code, op.type, op.args, op.imm, op.var = (
                        result.code, result.type, result.args, result.imm, result.var)
                    out[-1] = op
                    continue
            elif handler is _KEEP:
                append(op)
                continue
            else:
                rw.origin = op.origin
                result = handler(rw, op)
                if result is op or result is None:
                    continue
                every = True  # (see ``readers``)
            if op.type is not None:
                remap[op] = result
        fn.body = out
    if census is not None:
        # Every D3D_OP with one of these opcodes is lowered now.
        census.difference_update(opcodes)
        program.notes[_CENSUS] = (census, _bodies(program))


_D3D_OP = Code.D3D_OP  # (a module constant: ``Code.X`` costs some 70 ns a lookup)


def _first_handled(body: list[Op], get, opcodes: dict | None) -> int:
    """Index of the first op ``rewrite`` has a handler for, -1 when none."""
    i = 0  # counted by hand: enumerate's tuples cost more than the test
    for op in body:
        handler = get(op.code)
        if handler is not None and handler is not _KEEP and (
            handler is not _BY_OPCODE or op.imm[0].opcode in opcodes
        ):
            return i
        i += 1
    return -1


_CENSUS = "d3d_census"


def d3d_census(program: Program) -> set:
    """The D3D ops ``program`` may still hold: the opcode of each D3D_OP, and
    ``Code.D3D_SRCMOD`` / ``Code.D3D_STORE`` when there are such ops.

    A lowering pass looks here to skip itself when none of its instructions
    occurs (each pass in most shaders), rather than walk every body.  It is
    taken once by walking the program (``notes["d3d_census"]``: the set and
    the bodies it describes) and then kept: only lifting makes D3D ops, and a
    ``rewrite`` with an ``opcodes`` table lowers every D3D_OP of those
    opcodes, so it removes them from the census and records its new bodies.
    Any other change to a body (a new list, or one of another length) makes
    the next call take it again.  Edits that change an op's code in place
    must only lower D3D ops (the census may hold more than there is, never
    less).
    """
    recorded = _recorded_census(program)
    if recorded is not None:
        return recorded
    D3D_OP = Code.D3D_OP
    census = {op.imm[0].opcode if op.code is D3D_OP else op.code
              for fn in program.functions.values() for op in fn.body if op.code in D3D_CODES}
    program.notes[_CENSUS] = (census, _bodies(program))
    return census


def _recorded_census(program: Program) -> set | None:
    """The census recorded in ``program.notes`` if it still describes the bodies."""
    recorded = program.notes.get(_CENSUS)
    if recorded is not None and _describes(recorded[1], program):
        return recorded[0]
    return None


def _bodies(program: Program) -> tuple:
    return tuple([(fn.body, len(fn.body)) for fn in program.functions.values()])


def _describes(bodies: tuple, program: Program) -> bool:
    """Are ``bodies`` (``_bodies`` of some time) the program's bodies now?"""
    functions = program.functions
    if len(functions) != len(bodies):
        return False
    i = 0
    for fn in functions.values():
        body, n = bodies[i]
        if fn.body is not body or len(body) != n:
            return False
        i += 1
    return True
