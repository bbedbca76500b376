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

from ..bytecode.tables import Opcode
from ..ir.ops import Code, Op
from ..ir.program import Program
from ..ir.validate import validate
from ..options import Options
from . import (
    arithmetic, cleanup, clip_planes, constants, destination, drawstate, io, matrix, points, relative,
    samplers_state, source_modifiers, special, specialize, texture, texture_sm1,
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
    """
    options = options or Options()
    if until is not None:
        for name, run in PASSES.items():
            run(program, options)
            if name == until:
                return program
    else:
        calls = pipeline(program, options)
        if not validation_enabled(options):
            validate(program, full=False, calls=calls)
            return program
    validate(program, full=validation_enabled(options))
    return program


def pipeline(program: Program, options: Options) -> bool | None:
    """Every pass of ``PIPELINE`` on a lifted program, in order: exactly
    what running them one by one gives (a test checks it), with less work.
    Returns what ``cleanup.run`` returns (for ``validate``'s ``calls``).

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


_CONSTANT_FILES = constants.CONST_FILES
_LOAD, _STORE, _D3D_OP, _D3D_STORE, _RETURN = Code.LOAD, Code.STORE, Code.D3D_OP, Code.D3D_STORE, Code.RETURN
_MATRIX_OPCODES = frozenset(matrix.SHAPES)
_DSY, _FDDY = Opcode.DSY, Code.FDDY


class Survey:
    """What one walk over a lifted program finds for ``pipeline``:

    * ``matrix``: a matrix macro occurs (``matrix`` has work);
    * ``dynamic``: a LOAD or STORE has a dynamic index, or a D3D_STORE will
      (``relative`` has work);
    * ``constant_loads``: every LOAD of a constant file, in order (what
      ``constants`` folds);
    * ``returns``: a RETURN occurs (``io`` adds epilogues before them);
    * ``derivatives``: a dsy (or an FDDY) occurs: ``io`` may have an FDDY to
      negate.
    """

    __slots__ = ("matrix", "dynamic", "constant_loads", "returns", "derivatives")

    def __init__(self, program: Program):
        # Locals, module constants, the frequent codes tested first: the
        # walk is most of the cost of this object.
        has_matrix = dynamic = returns = derivatives = False
        loads: list[Op] = []
        for fn in program.functions.values():
            for op in fn.body:
                code = op.code
                if code is _LOAD:
                    if op.args:
                        dynamic = True
                    if op.var.storage in _CONSTANT_FILES:
                        loads.append(op)
                elif code is _D3D_OP:
                    opcode = op.imm[0].opcode
                    if opcode in _MATRIX_OPCODES:
                        has_matrix = True
                    elif opcode is _DSY:
                        derivatives = True
                elif code is _D3D_STORE:
                    if op.imm[0].relative:
                        dynamic = True
                elif code is _STORE:
                    if len(op.args) > 1:
                        dynamic = True
                elif code is _RETURN:
                    returns = True
                elif code is _FDDY:  # (not lifted, but a program may come with one)
                    derivatives = True
        self.matrix, self.dynamic, self.returns, self.derivatives = has_matrix, dynamic, returns, derivatives
        self.constant_loads = loads


# ``lower`` below: the opcode tables of the passes it stands for and their
# handlers of other ops, per kind of shader: texture is SM2+'s, texture_sm1
# ps_1_x's (vs_1_x has neither); source_modifiers also clamps ps_1_x's
# constant loads.
_TABLES_SM2 = {**arithmetic.HANDLERS, **special.HANDLERS, **texture.HANDLERS}
_TABLES_PS1 = {**arithmetic.HANDLERS, **special.HANDLERS, **texture_sm1.HANDLERS}
_TABLES_VS1 = {**arithmetic.HANDLERS, **special.HANDLERS}
_HANDLERS = {**source_modifiers.HANDLERS, **destination.HANDLERS}
_HANDLERS_PS1 = {**source_modifiers.HANDLERS_PS1, **destination.HANDLERS}


def lower(program: Program, options: Options, has_matrix: bool = True) -> None:
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
    unless ``has_matrix`` is False (the caller knows there is no macro)."""
    if has_matrix:
        matrix.run(program, options)
    version = program.version
    if version.major >= 2:
        table, handlers, ctx = _TABLES_SM2, _HANDLERS, Context(program, options)
    elif version.is_pixel:
        table, handlers, ctx = _TABLES_PS1, _HANDLERS_PS1, texture_sm1.context(program, options)
    else:
        table, handlers, ctx = _TABLES_VS1, _HANDLERS, Context(program, options)
    rewrite(program, handlers, table, ctx, D3D_OP_READERS)
    if table is _TABLES_PS1:
        texture_sm1.record(ctx)
