"""The lowering steps of ``passes.pipeline`` (docs/ir.md steps 1 to 6) and
what one look at the lifted program finds for the later passes (``Survey``).

``lower`` runs ``matrix`` and then the handlers of ``source_modifiers`` …
``destination`` in one ``rewrite`` walk; ``lower_surveying`` does that walk
and the survey's in one, for a program without a matrix macro (nearly all).
"""

from __future__ import annotations

from operator import attrgetter

from ..bytecode.tables import Opcode
from ..ir.ops import Code, Op
from ..ir.program import Program
from ..options import Options
from . import arithmetic, constants, destination, matrix, source_modifiers, special, texture, texture_sm1
from .build import Context
from .rewrite import _BY_OPCODE, _CENSUS, _KEEP, D3D_OP_READERS, Rewriter, rewrite

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


_OPCODE = attrgetter("opcode")


def without_matrix(program: Program) -> bool:
    """Whether ``program`` certainly holds no matrix macro, found from its
    instructions (a D3D_OP has the opcode of the instruction it came from,
    ``instructions[origin]``), not its ops: False for a program without
    instructions (built by hand) or whose D3D census was taken (a pass has
    run on it alone)."""
    instructions = program.instructions
    return bool(instructions) and _CENSUS not in program.notes and _MATRIX_OPCODES.isdisjoint(
        set(map(_OPCODE, instructions)))


def _unannounced(rw: Rewriter, op: Op, ctx: object) -> None:
    raise AssertionError("a matrix macro whose instruction is not in program.instructions")


def _SURVEY(rw: Rewriter, op: Op) -> None:
    raise AssertionError("a marker")  # (an op only ``lower_surveying`` looks at)


# ``lower_surveying``'s handlers: ``lower``'s, the readers of D3D_OPs kept
# (``rewrite``'s ``readers``) and the ops only the survey looks at marked.
# For ps_1_x the LOAD handler (constants clamped) replaces the marker.
_SURVEYED = {_LOAD: _SURVEY, _STORE: _SURVEY, _RETURN: _SURVEY, _FDDY: _SURVEY}
_SURVEYING_HANDLERS = {
    id(handlers): {**dict.fromkeys(D3D_OP_READERS, _KEEP), **_SURVEYED, **handlers, _D3D_OP: _BY_OPCODE}
    for handlers in (_HANDLERS, _HANDLERS_PS1)
}
# and its tables: ``lower``'s, with the matrix macros that ``without_matrix``
# said are not there
_MATRIX_GUARD = dict.fromkeys(_MATRIX_OPCODES, _unannounced)
_SURVEYING_TABLES = {id(table): {**table, **_MATRIX_GUARD} for table in (_TABLES_SM2, _TABLES_PS1, _TABLES_VS1)}


class _SurveyingContext(Context):
    """SM2+'s handler context, where the dsy handler notes that it ran."""

    derivatives = False


def _dsy(rw: Rewriter, op: Op, ctx: _SurveyingContext) -> Op | None:
    ctx.derivatives = True
    return _TABLES_SM2[_DSY](rw, op, ctx)


_SURVEYING_TABLES[id(_TABLES_SM2)][_DSY] = _dsy


def lower_surveying(program: Program, options: Options) -> Survey:
    """``lower`` and ``Survey`` in one walk, for a program that
    ``without_matrix`` says has no matrix macro: what ``Survey(program)``
    gives, and the program as ``lower(program, options, False)`` leaves it.

    The walk is ``rewrite``'s with ``lower``'s handlers and tables (see
    ``rewrite`` for how it goes), and it looks at what the survey looks at
    as it meets each op, before handling it: lowering makes none of what
    the survey finds (module ``passes``), so it finds what a walk before
    would.  The ops only the survey looks at have a marker in the handlers,
    so that the others cost nothing more."""
    version = program.version
    if version.major >= 2:
        table, handlers, ctx = _TABLES_SM2, _HANDLERS, _SurveyingContext(program, options)
    elif version.is_pixel:
        table, handlers, ctx = _TABLES_PS1, _HANDLERS_PS1, texture_sm1.context(program, options)
    else:
        table, handlers, ctx = _TABLES_VS1, _HANDLERS, Context(program, options)
    opcodes = _SURVEYING_TABLES[id(table)]
    get = _SURVEYING_HANDLERS[id(handlers)].get
    dynamic = returns = derivatives = False
    loads: list[Op] = []
    constant_files = _CONSTANT_FILES
    for fn in program.functions.values():
        rw = Rewriter(program, fn)
        out = rw.out
        remap = rw.map
        new = remap.get
        append = out.append
        every = False
        for op in fn.body:
            handler = get(op.code)
            if handler is None:
                if every and remap:
                    args = op.args
                    for a in args:
                        if a in remap:
                            op.args = tuple(map(new, args, args))
                            break
                append(op)
                continue
            if handler is _SURVEY:  # kept, as an op without a handler is
                code = op.code
                if code is _LOAD:
                    if op.args:
                        dynamic = True
                    if op.var.storage in constant_files:
                        loads.append(op)
                elif code is _STORE:
                    if len(op.args) > 1:
                        dynamic = True
                elif code is _RETURN:
                    returns = True
                else:
                    derivatives = True
                if every and remap:
                    args = op.args
                    for a in args:
                        if a in remap:
                            op.args = tuple(map(new, args, args))
                            break
                append(op)
                continue
            if remap:
                args = op.args
                for a in args:
                    if a in remap:
                        op.args = tuple(map(new, args, args))
                        break
            if handler is _BY_OPCODE:
                handler = opcodes.get(op.imm[0].opcode)
                if handler is None:
                    if op.imm[0].opcode is _DSY:  # (in SM2+'s table only)
                        derivatives = True
                    append(op)
                    continue
                rw.origin = op.origin
                mark = len(out)
                result = handler(rw, op, ctx)
                if result is op or result is None:
                    continue
                if len(out) > mark and out[-1] is result:
                    op.code, op.type, op.args, op.imm, op.var = (
                        result.code, result.type, result.args, result.imm, result.var)
                    out[-1] = op
                    continue
            elif handler is _KEEP:
                append(op)
                continue
            else:
                code = op.code
                if code is _D3D_STORE:
                    if op.imm[0].relative:
                        dynamic = True
                elif code is _LOAD:  # (ps_1_x: constants are clamped)
                    if op.args:
                        dynamic = True
                    if op.var.storage in constant_files:
                        loads.append(op)
                rw.origin = op.origin
                result = handler(rw, op)
                if result is op or result is None:
                    continue
                every = True
            if op.type is not None:
                remap[op] = result
        fn.body = out
    if table is _TABLES_PS1:
        texture_sm1.record(ctx)
    survey = Survey.__new__(Survey)
    survey.matrix, survey.dynamic, survey.returns = False, dynamic, returns
    survey.derivatives = (derivatives or ctx.derivatives) if table is _TABLES_SM2 else derivatives
    survey.constant_loads = loads
    return survey
