"""What a backend asks of every op, found once: ``Summary``.

A backend needs a few facts about the whole program before it writes a
line: which constant registers are read (the layout declares those and no
others) and whether they are indexed dynamically, how many legacy
multiplies and dots there are (SPIR-V calls a helper function past a
count), whether a CALL is left.  ``summarize`` walks every op for them.
The passes' last walk (``passes.cleanup``) already looks at every op it
keeps, so ``passes.run_passes`` records what it saw as
``program.notes["summary"]``, and ``summary_of`` hands that out instead of
walking again while it still describes the program.

A summary describes the function bodies it was taken from: the very lists,
as long as they were.  Code that edits a program after the passes must
replace or resize a body (every pass does one or the other) or drop the
note; ``summary_of`` then walks.
"""

from __future__ import annotations

from dataclasses import dataclass

from .ops import Code, Op
from .program import CONSTANT_FILES, Program

LEGACY = (Code.FMUL_LEGACY, Code.FDOT_LEGACY)


@dataclass(slots=True)
class Summary:
    calls: bool  # a CALL is left
    constant_loads: list[Op]  # every LOAD of a constant file, in no particular order
    legacy_uses: dict[Code, int]  # FMUL_LEGACY / FDOT_LEGACY -> how many (absent: none)
    # each function's body (the list itself) and its length when summarised
    bodies: tuple[tuple[list[Op], int], ...]

    def holds(self, program: Program) -> bool:
        """Whether this still describes ``program``: its functions' bodies
        are the lists summarised, as long as they were."""
        functions = program.functions
        if len(functions) != len(self.bodies):
            return False
        for fn, (body, length) in zip(functions.values(), self.bodies):
            if fn.body is not body or len(body) != length:
                return False
        return True

    def used_constants(self) -> dict[int, list]:
        """id(constant file) -> [the registers read statically (a dynamic
        load counts its base), whether a load indexes it dynamically]:
        what ``backends.layout.plan`` declares."""
        used: dict[int, list] = {}
        for op in self.constant_loads:
            key = id(op.var)
            entry = used.get(key)
            if entry is None:
                entry = used[key] = [set(), False]
            if op.args:
                entry[1] = True
            entry[0].add(op.imm[0] if op.imm else 0)
        return used


def bodies_of(program: Program) -> tuple[tuple[list[Op], int], ...]:
    return tuple([(fn.body, len(fn.body)) for fn in program.functions.values()])


def summarize(program: Program) -> Summary:
    """The summary of ``program``, from one walk over every op."""
    loads: list[Op] = []
    legacy: dict[Code, int] = {}
    calls = False
    LOAD, CALL = Code.LOAD, Code.CALL
    for fn in program.functions.values():
        for op in fn.body:
            code = op.code
            if code is LOAD:
                if op.var.storage in CONSTANT_FILES:
                    loads.append(op)
            elif code in LEGACY:
                legacy[code] = legacy.get(code, 0) + 1
            elif code is CALL:
                calls = True
    return Summary(calls, loads, legacy, bodies_of(program))


def summary_of(program: Program) -> Summary:
    """The passes' summary of ``program`` while it still holds, else a new one."""
    found = program.notes.get("summary")
    if found is not None and found.holds(program):
        return found
    return summarize(program)
