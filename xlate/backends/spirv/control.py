"""Structured control flow for the SPIR-V emitter (``emitter.Emitter``).

The IR's markers become SPIR-V's structured blocks (see ``emitter``'s
docstring): ``IF`` opens a selection whose false target is patched at
``ELSE`` or ``ENDIF``, ``LOOP`` a header / body / continue / merge
quartet; ``BREAK``, ``RETURN`` and ``DISCARD`` end their block and open a
fresh, unreachable one, so every later marker may branch unconditionally.
"""

from __future__ import annotations

from ...ir.ops import Op
from .grammar import grammar
from .module import OP

G = grammar()
(OpLabel, OpBranch, OpBranchConditional, OpSelectionMerge, OpLoopMerge, OpReturn, OpKill,
 OpFunctionCall) = (OP[n] for n in ("OpLabel", "OpBranch", "OpBranchConditional", "OpSelectionMerge", "OpLoopMerge",
                                    "OpReturn", "OpKill", "OpFunctionCall"))
SELECTION_NONE = G.enums["SelectionControl"]["None"]
LOOP_NONE = G.enums["LoopControl"]["None"]


class ControlFlow:
    """Mixin of ``Emitter``: the handlers of the control markers.  Uses the
    emitter's ``m`` (module), ``words`` (the function's words), ``stack``
    (open constructs: ["if", merge, position of the false target or None]
    or ["loop", merge, continue, header]), ``ids``, ``fn_ids``,
    ``fragment`` and ``known`` (the values the current block has read or
    written, which every new block forgets: ``new_block`` and each marker
    empty it)."""

    __slots__ = ()

    # -- control flow ---------------------------------------------------------

    def if_(self, op: Op) -> None:
        m, w = self.m, self.words
        merge, then = m.new_id(), m.new_id()
        m.put(w, OpSelectionMerge, merge, SELECTION_NONE)
        m.put(w, OpBranchConditional, self.value(op.args[0]), then, 0)
        self.stack.append(["if", merge, len(w) - 1])
        m.put(w, OpLabel, then)
        self.known.clear()

    def else_(self, op: Op) -> None:
        m, w = self.m, self.words
        top = self.stack[-1] if self.stack else None
        if top is None or top[0] != "if" or top[2] is None:
            raise self.unsupported(op, "ELSE without its IF (IR invariant 4)")
        m.put(w, OpBranch, top[1])
        label = m.new_id()
        w[top[2]] = label
        top[2] = None
        m.put(w, OpLabel, label)
        self.known.clear()

    def endif(self, op: Op) -> None:
        m, w = self.m, self.words
        top = self.stack.pop() if self.stack else None
        if top is None or top[0] != "if":
            raise self.unsupported(op, "ENDIF without its IF (IR invariant 4)")
        if top[2] is not None:
            w[top[2]] = top[1]  # no ELSE: false goes straight to the merge block
        m.put(w, OpBranch, top[1])
        m.put(w, OpLabel, top[1])
        self.known.clear()

    def loop(self, op: Op) -> None:
        m, w = self.m, self.words
        header, merge, cont, body = m.new_id(), m.new_id(), m.new_id(), m.new_id()
        m.put(w, OpBranch, header)
        m.put(w, OpLabel, header)
        m.put(w, OpLoopMerge, merge, cont, LOOP_NONE)
        m.put(w, OpBranch, body)
        m.put(w, OpLabel, body)
        self.stack.append(["loop", merge, cont, header])
        self.known.clear()

    def endloop(self, op: Op) -> None:
        m, w = self.m, self.words
        top = self.stack.pop() if self.stack else None
        if top is None or top[0] != "loop":
            raise self.unsupported(op, "ENDLOOP without its LOOP (IR invariant 4)")
        _, merge, cont, header = top
        m.put(w, OpBranch, cont)
        m.put(w, OpLabel, cont)
        m.put(w, OpBranch, header)
        m.put(w, OpLabel, merge)
        self.known.clear()

    def break_(self, op: Op) -> None:
        for construct in reversed(self.stack):
            if construct[0] == "loop":
                self.m.put(self.words, OpBranch, construct[1])
                self.new_block()
                return
        raise self.unsupported(op, "BREAK outside a loop (IR invariant 4)")

    def return_(self, op: Op) -> None:
        self.m.put(self.words, OpReturn)
        self.new_block()

    def discard(self, op: Op) -> None:
        if not self.fragment:
            raise self.unsupported(op, "discard in a vertex shader")
        self.m.put(self.words, OpKill)
        self.new_block()

    def call(self, op: Op) -> None:
        fn = self.fn_ids.get(op.imm[0])
        if fn is None:
            raise self.unsupported(op, f"call to a missing function {op.imm[0]!r}")
        self.inst(OpFunctionCall, self.void, fn)
        self.known.clear()

