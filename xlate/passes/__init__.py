"""Lowering and optimisation passes over the IR, run in a fixed order.

Each pass is a module with ``run(program, options) -> None`` that rewrites
the program in place.  docs/ir.md gives the order and the invariants that
hold when the pipeline is done (checked by ``ir.validate``).
"""

from __future__ import annotations

import importlib

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
    "io",
    "relative",
    "constants",
    "cleanup",
)


def run_pass(name: str, program: Program, options: Options) -> None:
    importlib.import_module(f"{__name__}.{name}").run(program, options)


def run_passes(program: Program, options: Options | None = None, *, until: str | None = None) -> Program:
    """Run the pipeline (up to and including ``until``) and validate the result."""
    options = options or Options()
    for name in PIPELINE:
        run_pass(name, program, options)
        if name == until:
            return program
    from ..ir.validate import validate

    validate(program)
    return program
