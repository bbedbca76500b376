"""The lowering steps of ``passes.pipeline`` (docs/ir.md steps 1 to 6) and
what one look at the lifted program finds for the later passes (``Survey``).

``lower`` runs ``matrix`` and then the handlers of ``source_modifiers`` …
``destination`` in one ``rewrite`` walk.
"""

from __future__ import annotations

from ..bytecode.tables import Opcode
from ..ir.ops import Code, Op
from ..ir.program import CONSTANT_FILES, Program
from ..options import Options
from . import arithmetic, destination, matrix, source_modifiers, special, texture, texture_sm1
from .build import Context
from .rewrite import D3D_OP_READERS, rewrite

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
                    if op.var.storage in CONSTANT_FILES:
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
