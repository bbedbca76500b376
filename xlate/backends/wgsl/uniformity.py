"""Where a fragment shader takes implicit derivatives in control flow that
may differ between neighbouring pixels.

WGSL requires ``dpdx``/``dpdy``/``textureSample``/``textureSampleBias``
to be in uniform control flow (naga, wgpu 0.32, does not check it; Tint
does).  D3D9 and GLSL compile them anywhere and leave the result undefined
where the pixels of a quad diverge.  The WGSL module keeps that meaning by
turning the check off (``diagnostic(off, derivative_uniformity)``) wherever
a shader has both derivatives and control flow (``survey``: WGSL's own
analysis counts every ``var<private>`` read as non-uniform), and the
translation names the instructions this conservative analysis cannot prove
uniform (``divergent_derivatives``), as those are where results may differ
from a GPU's D3D9 driver.

The analysis: a value is uniform when it derives only from literals,
constant registers and draw-state uniforms; a private variable is uniform
when every store to it is of a uniform value in uniform control flow (a
fixed point over the whole program, as registers are globals); control
flow is uniform inside an IF on a uniform condition, inside a LOOP whose
every BREAK is under uniform conditions, and not after a RETURN under a
non-uniform one.  Subroutines count as non-uniform when called from
non-uniform flow.
"""

from __future__ import annotations

from ...ir.ops import Code, Op, SampleKind
from ...ir.program import Program, Storage

UNIFORM_STORAGE = frozenset({Storage.FLOAT_CONST, Storage.INT_CONST, Storage.BOOL_CONST, Storage.SAMPLER})
PRIVATE = frozenset({Storage.TEMP, Storage.ADDRESS, Storage.LOOP_COUNTER, Storage.PREDICATE, Storage.LOCAL,
                     Storage.OUTPUT})
FLOW = frozenset({Code.IF, Code.LOOP, Code.RETURN, Code.CALL})


DERIVATIVES = frozenset({Code.FDDX, Code.FDDY})
IMPLICIT_LOD = frozenset({SampleKind.PLAIN, SampleKind.BIAS})
SAMPLE = Code.SAMPLE


def implicit_derivative(op: Op) -> bool:
    code = op.code
    return code in DERIVATIVES or (code is SAMPLE and op.imm[0] in IMPLICIT_LOD)


def survey(p: Program) -> tuple[bool, bool]:
    """(an implicit derivative anywhere, control flow anywhere), in one
    walk: without both, nothing can be non-uniform where it matters and
    the module needs no directive (WGSL's analysis may refuse it with both)."""
    derivative = flow = False
    for fn in p.functions.values():
        for op in fn.body:
            code = op.code
            if code in FLOW:
                flow = True
            elif not derivative and (code in DERIVATIVES or (code is SAMPLE and op.imm[0] in IMPLICIT_LOD)):
                derivative = True
            if derivative and flow:
                return True, True
    return derivative, flow


def divergent_derivatives(p: Program) -> list[Op]:
    """The implicit-derivative ops not provably in uniform control flow
    (call it when ``survey`` finds both derivatives and control flow)."""
    varying: set = set()  # private variables found non-uniform
    while True:
        state = _State(p, varying)
        state.walk("main", True)
        if state.varying == varying:
            return state.found
        varying = state.varying


class _State:
    def __init__(self, p: Program, varying: set):
        self.p = p
        self.varying = set(varying)
        self.found: list[Op] = []
        self.seen: set = set()
        self.walked: set = set()

    def uniform_value(self, op: Op, values: dict) -> bool:
        known = values.get(op)
        if known is not None:
            return known
        code = op.code
        if code is Code.LOAD:
            var = op.var
            if var.storage in UNIFORM_STORAGE:
                ok = True
            elif var.storage is Storage.INPUT:
                ok = var.builtin is not None and var.builtin not in ("frag_coord", "front_facing")
            else:
                ok = var not in self.varying
        else:
            ok = True
        if ok:
            ok = all(self.uniform_value(a, values) for a in op.args)
        values[op] = ok
        return ok

    def walk(self, name: str, uniform: bool) -> None:
        key = (name, uniform)
        if key in self.walked:
            return
        self.walked.add(key)
        body = self.p.functions[name].body
        values: dict = {}
        stack: list[bool] = []  # the flow's uniformity outside each open IF/LOOP
        loops: list[int] = []  # index in `stack` of each open LOOP
        diverged = False
        here = uniform
        for i, op in enumerate(body):
            code = op.code
            if code is Code.IF:
                stack.append(here)
                here = here and self.uniform_value(op.args[0], values)
            elif code is Code.ELSE:
                pass  # the same condition decides both branches
            elif code is Code.ENDIF:
                here = stack.pop() and not diverged
            elif code is Code.LOOP:
                stack.append(here)
                loops.append(len(stack) - 1)
                here = here and self._uniform_loop(body, i, values)
            elif code is Code.ENDLOOP:
                loops.pop()
                here = stack.pop() and not diverged
            elif code is Code.RETURN:
                if not here:
                    diverged = True
            elif code is Code.CALL:
                self.walk(op.imm[0], here)
            elif code is Code.STORE:
                var = op.var
                if var.storage in PRIVATE and var not in self.varying:
                    if not here or not all(self.uniform_value(a, values) for a in op.args):
                        self.varying.add(var)
            elif implicit_derivative(op) and not here and op not in self.seen:
                self.seen.add(op)
                self.found.append(op)

    def _uniform_loop(self, body: list[Op], start: int, values: dict) -> bool:
        """Whether every BREAK of the loop at ``start`` is under uniform IFs
        (stores inside the loop are judged by the fixed point)."""
        depth = 0
        conditions: list[bool] = []
        for op in body[start + 1:]:
            code = op.code
            if code is Code.LOOP:
                depth += 1
            elif code is Code.ENDLOOP:
                if depth == 0:
                    return True
                depth -= 1
            elif code is Code.IF:
                conditions.append(self.uniform_value(op.args[0], values))
            elif code is Code.ENDIF:
                conditions.pop()
            elif code is Code.BREAK and depth == 0 and not all(conditions):
                return False
            elif code is Code.RETURN and not all(conditions):
                return False
        return True
