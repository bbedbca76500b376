"""Lowering and optimisation passes over the IR, run in a fixed order.

Each pass is a module with ``run(program, options) -> None`` that rewrites
the program in place.  docs/ir.md gives the order and the invariants that
hold when the pipeline is done (checked by ``ir.validate``).
"""

from __future__ import annotations

import os

from ..ir.program import Program
from ..ir.validate import validate
from ..options import Options
from . import (
    arithmetic, cleanup, constants, destination, io, matrix, relative, source_modifiers, special, texture,
    texture_sm1,
)
from .build import Context
from .rewrite import D3D_OP_READERS, rewrite

# The pipeline, in order: name -> the pass's ``run``, resolved once here
# rather than looked up on every call.
PASSES = {
    "matrix": matrix.run,
    "source_modifiers": source_modifiers.run,
    "arithmetic": arithmetic.run,
    "special": special.run,
    "texture": texture.run,
    "texture_sm1": texture_sm1.run,
    "destination": destination.run,
    "relative": relative.run,
    # constants before io: io's prologue and epilogues load no constant
    # file, so the fold has fewer ops to walk (the result is the same).
    "constants": constants.run,
    "io": io.run,
    "cleanup": cleanup.run,
}
PIPELINE = tuple(PASSES)

# ``lower`` below: the opcode tables of the passes it stands for, per kind
# of shader (texture is SM2+'s, texture_sm1 ps_1_x's; vs_1_x has neither).
_TABLES_SM2 = {**arithmetic.HANDLERS, **special.HANDLERS, **texture.HANDLERS}
_TABLES_PS1 = {**arithmetic.HANDLERS, **special.HANDLERS, **texture_sm1.HANDLERS}
_TABLES_VS1 = {**arithmetic.HANDLERS, **special.HANDLERS}


def lower(program: Program, options: Options) -> None:
    """``matrix`` to ``destination`` (steps 1 to 6 of docs/ir.md): all the
    D3D ops lowered in one walk.

    The handlers of ``source_modifiers`` to ``destination`` lower disjoint
    ops, each one alone: a D3D_SRCMOD's or a D3D_OP's handler reads only its
    sources (lowered already: they come before it), a D3D_STORE's only the
    value of its own instruction (whose D3D_OP comes before it), and each
    emits in the op's place.  So one ``rewrite`` with their handlers and
    tables merged gives exactly what running them one after another gives,
    without up to five more walks over every body and the D3D census that
    let them skip (together about a fifth of the passes' time).  ``matrix``
    emits D3D ops for the others to lower, so it runs first, on its own,
    in the few shaders with a matrix macro.

    ``run_passes`` uses this; each pass still runs alone through ``PASSES``,
    and a test checks that both give the same IR."""
    if matrix.occurs(program):
        matrix.run(program, options)
    version = program.version
    if version.major >= 2:
        table, ctx = _TABLES_SM2, Context(program, options)
    elif version.is_pixel:
        table, ctx = _TABLES_PS1, texture_sm1.context(program, options)
    else:
        table, ctx = _TABLES_VS1, Context(program, options)
    handlers = {**source_modifiers.handlers(program), **destination.HANDLERS}
    rewrite(program, handlers, table, ctx, D3D_OP_READERS)
    if table is _TABLES_PS1:
        texture_sm1.record(ctx)


# What ``run_passes`` runs: PIPELINE, with ``lower`` for the passes it stands for.
STEPS = (lower, relative.run, constants.run, io.run, cleanup.run)


def run_pass(name: str, program: Program, options: Options) -> None:
    PASSES[name](program, options)


def validation_enabled(options: Options) -> bool:
    """Full IR validation: ``options.validate``, or XLATE_VALIDATE=1 in the
    environment (the test suite sets it)."""
    return options.validate or os.environ.get("XLATE_VALIDATE", "") not in ("", "0")


def run_passes(program: Program, options: Options | None = None, *, until: str | None = None) -> Program:
    """Run the pipeline (up to and including ``until``) and validate the result.

    Every invariant is checked when ``validation_enabled(options)``;
    otherwise only what the input can break (``ir.validate``, ``full=False``).
    """
    options = options or Options()
    if until is not None:
        for name, run in PASSES.items():
            run(program, options)
            if name == until:
                return program
    else:
        for run in STEPS:
            run(program, options)
    validate(program, full=validation_enabled(options))
    return program
