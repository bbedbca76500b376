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
    for name, run in PASSES.items():
        run(program, options)
        if name == until:
            return program
    validate(program, full=validation_enabled(options))
    return program
