"""Lowering and optimisation passes over the IR, run in a fixed order.

Each pass is a module with ``run(program, options) -> None`` that rewrites
the program in place.  docs/ir.md gives the order and the invariants that
hold when the pipeline is done (checked by ``ir.validate``).
"""

from __future__ import annotations

import importlib
import os

from ..ir.program import Program
from ..options import Options

PIPELINE = (
    "matrix",
    "source_modifiers",
    "arithmetic",
    "special",
    "texture",
    "texture_sm1",
    "destination",
    "relative",
    "io",
    "constants",
    "cleanup",
)


def run_pass(name: str, program: Program, options: Options) -> None:
    importlib.import_module(f"{__name__}.{name}").run(program, options)


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
    for name in PIPELINE:
        run_pass(name, program, options)
        if name == until:
            return program
    from ..ir.validate import validate

    validate(program, full=validation_enabled(options))
    return program
