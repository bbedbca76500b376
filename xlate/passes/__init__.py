"""Lowering and optimisation passes over the IR, run in a fixed order.

Each pass is a module with ``run(program, options) -> None`` that rewrites
the program in place.  docs/ir.md gives the order and the invariants that
hold when the pipeline is done (checked by ``ir.validate``).

``run_passes`` gives what running them one after another gives, with less
work: ``pipeline`` lowers every D3D op in one walk (``lower``) and hands the
later passes what one look at the lifted program found (``Survey``), so
that they need not each walk every body to find it.
"""

from __future__ import annotations

import os

from ..ir.program import Program
from ..ir.summary import Summary
from ..ir.validate import validate
from ..options import Options
from . import (
    arithmetic, cleanup, clip_planes, constants, destination, drawstate, io, matrix, points, relative,
    samplers_state, source_modifiers, special, specialize, texture, texture_sm1,
)
from .lowering import Survey, lower

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
    # b#/i# from the draw state when the layer asks (after constants: DEFB/DEFI stay the shader's)
    "specialize": specialize.run,
    # draw-time state (Options.draw_state; nothing with D3D's defaults):
    # clip distances from the position as D3D wrote it, before io's fix-ups
    "clip_planes": clip_planes.run,
    "io": io.run,
    # after io: split PSIZE outputs and TEXCOORD inputs are variables of their own
    "points": points.run,
    # after io: the fixed-function fog and alpha test go after io's
    # epilogue, on the outputs io settled (docs/ir.md "Draw-time state")
    "drawstate": drawstate.run,
    # after the fog blend: sRGB write encodes the final colour
    "samplers_state": samplers_state.run,
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
    The whole pipeline records what its last walk saw as
    ``program.notes["summary"]`` (``ir.summary``: what a backend needs of
    every op), when it saw every op.
    """
    options = options or Options()
    summary = None
    if until is not None:
        for name, run in PASSES.items():
            run(program, options)
            if name == until:
                return program
    else:
        summary = pipeline(program, options)
    # (what cleanup saw: full validation ignores it)
    validate(program, full=validation_enabled(options), calls=None if summary is None else summary.calls)
    if summary is not None:
        program.notes["summary"] = summary
    else:
        program.notes.pop("summary", None)
    return program


def pipeline(program: Program, options: Options) -> Summary | None:
    """Every pass of ``PIPELINE`` on a lifted program, in order: exactly
    what running them one by one gives (a test checks it), with less work.
    Returns what ``cleanup.run`` returns (its ``calls`` for ``validate``).

    Each walk over every op costs about as much as a small pass, and most
    passes have nothing to do in most shaders, so: ``lower`` does the
    lowering passes' work in one walk, and the later passes get what the
    survey found instead of looking for it themselves.  Lowering makes no
    dynamic index, RETURN or constant-file LOAD of its own (matrix's row
    loads aside), so what the survey found in the lifted program still
    holds when they run."""
    survey = Survey(program)
    lower(program, options, survey.matrix)
    relative.run(program, options, None if survey.dynamic else [])
    # relative and matrix make constant-file LOADs of their own
    fresh = survey.dynamic or survey.matrix
    constants.run(program, options, None if fresh else survey.constant_loads)
    specialize.run(program, options)
    clip_planes.run(program, options)
    islands = io.run(program, options, survey.returns, survey.derivatives)
    # io's islands stay islands while nothing else edits main's body (the
    # passes between only ever replace it or insert into it)
    body = program.main.body
    length = len(body)
    points.run(program, options)
    drawstate.run(program, options)
    samplers_state.run(program, options)
    if program.main.body is not body or len(body) != length:
        islands = None
    return cleanup.run(program, options, islands)
