"""One way to rewrite a function body: walk it once, replace ops, remap uses.

Ops refer to their arguments directly, so replacing a value means every
later use must point at the replacement.  ``rewrite`` walks each body once
(linear cost), lets a handler emit new ops in place of an old one, and
remaps the arguments of everything after it.
"""

from __future__ import annotations

from typing import Callable

from ..ir.ops import Code, Op
from ..ir.program import Function, Program
from ..ir.types import Type


class Rewriter:
    """Builds the new body of one function."""

    def __init__(self, program: Program, fn: Function):
        self.program = program
        self.fn = fn
        self.out: list[Op] = []
        self.map: dict[int, Op] = {}
        self.origin = -1

    def emit(self, code: Code, type: Type | None = None, args=(), imm=(), var=None) -> Op:
        op = Op(code, type, tuple(args), tuple(imm), var, self.origin)
        self.out.append(op)
        return op

    def keep(self, op: Op) -> Op:
        self.out.append(op)
        return op

    def replace(self, old: Op, new: Op) -> None:
        self.map[id(old)] = new

    def resolve(self, op: Op) -> Op:
        return self.map.get(id(op), op)


Handler = Callable[[Rewriter, Op], "Op | None"]


def rewrite(program: Program, handlers: dict[Code, Handler]) -> None:
    """Apply ``handlers[op.code](rw, op)`` to matching ops of every function.

    A handler emits replacement ops with ``rw.emit`` and returns the op that
    now stands for ``op``'s value (or None for effects / removal).  Ops
    without a handler are kept.  Arguments are remapped before the handler
    sees the op, so it always reads current values.
    """
    get = handlers.get
    for fn in program.functions.values():
        rw = Rewriter(program, fn)
        out = rw.out
        remap = rw.map
        for op in fn.body:
            args = op.args
            if args and remap:
                op.args = tuple([remap.get(id(a), a) for a in args])
            handler = get(op.code)
            if handler is None:
                out.append(op)
                continue
            rw.origin = op.origin
            result = handler(rw, op)
            if result is not None and result is not op and op.type is not None:
                remap[id(op)] = result
        fn.body = out
