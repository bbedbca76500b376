"""DEF/DEFI/DEFB: make the shader self-contained, then trim the constant files.

A DEF'd register holds its DEF value for as long as the shader is bound,
whatever the application sets (D3D9_SEMANTICS 6.1), so:

* a static LOAD of a DEF'd register becomes a CONST;
* a dynamic LOAD whose index range (``ir.validate.index_range``) can reach
  DEF'd registers becomes a SELECT chain ``eff == k ? def_k : array[eff]``
  over those registers, so an indexed read sees DEF values without the
  runtime copying them into the uniform buffer (DXVK's approach);
* ps_1_x constants live in [-1, 1] (D3D9_SEMANTICS 3.5), DEF values included:
  they are clamped here (a clamp on load by a lowering pass is then a no-op).

When several DEFs name one register the last one wins (the runtime applies
them in order).

Notes set:
* ``defs``: every DEF as ``(array name, register, values)`` in program order
  (values as the shader sees them), for reflection.
* ``array_ranges``: ``{array name: (first, count)}``, the registers of each
  constant file still loaded.  Element numbers in the IR stay D3D register
  numbers; ``length`` is cut to ``first + count`` and a backend may declare
  only ``count`` registers starting at ``first``.  Files nothing loads any
  more are dropped from ``program.variables``.  ``shrink_arrays`` recomputes
  this; cleanup calls it again after removing loads.
"""

from __future__ import annotations

from ..ir.ops import Code, Op
from ..ir.program import CONSTANT_FILES, Program, Storage, Variable
from ..ir.types import B1, I1, Type
from ..ir.validate import index_range
from ..options import Options
from .rewrite import Rewriter, rewrite

_DEFAULT_NAMES = {Storage.FLOAT_CONST: "c", Storage.INT_CONST: "i", Storage.BOOL_CONST: "b"}
# (module constants: ``Storage.X`` is an enum class attribute lookup, slow
# where every DEF and every shader passes)
_FLOAT_CONST, _INT_CONST = Storage.FLOAT_CONST, Storage.INT_CONST
_CONST, _IEQ, _SELECT = Code.CONST, Code.IEQ, Code.SELECT  # (per dynamic load and DEF it may read)


def def_values(program: Program) -> dict[tuple[Storage, int], tuple]:
    """(storage, register) -> values as the shader sees them; last DEF wins."""
    ps1 = program.is_pixel and program.version.major == 1
    table: dict[tuple[Storage, int], tuple] = {}
    for d in program.defs:
        storage = d.storage
        if storage is _FLOAT_CONST:
            values = tuple(map(float, d.values))
            if ps1:
                values = tuple([min(1.0, max(-1.0, v)) if v == v else v for v in values])
        elif storage is _INT_CONST:
            values = tuple(map(int, d.values))
        else:
            values = (bool(tuple(d.values)[0]),)
        table[(d.storage, d.index)] = values
    return table


def _const(rw: Rewriter, type: Type, values: tuple) -> Op:
    return rw.emit(_CONST, type, imm=tuple(values[: type.width]))


def run(program: Program, options: Options, loads: list[Op] | None = None) -> None:
    """``loads``: every LOAD of a constant file in the program, in order,
    when the caller knows them already (``passes.Survey``); else found by a
    walk over every op."""
    table = def_values(program)
    program.notes["defs"] = _defs_note(program, table) if program.defs else []
    if loads is None:
        loads = constant_loads(program)
    spans, dynamic = _fold_static_loads(loads, table)
    if dynamic and table:
        _select_dynamic_loads(program, table)
        shrink_arrays(program)
    else:
        _trim(program, spans)


def _defs_note(program: Program, table: dict) -> list:
    names = {v.storage: v.name for v in program.variables if v.storage in CONSTANT_FILES}
    return [
        (names.get(d.storage, _DEFAULT_NAMES[d.storage]), d.index, table[(d.storage, d.index)])
        for d in program.defs
    ]


def _select_dynamic_loads(program: Program, table: dict) -> None:
    """A dynamic LOAD that may read DEF'd registers: a SELECT per register."""
    defined: dict[Storage, list[int]] = {}
    for storage, index in table:
        defined.setdefault(storage, []).append(index)
    for indices in defined.values():
        indices.sort()

    def dynamic_load(rw: Rewriter, op: Op):
        var = op.var
        if var.storage not in CONSTANT_FILES or not op.args:
            return rw.keep(op)
        base, index = op.imm[0], op.args[0]
        lo, hi = index_range(index)
        reach = [k for k in defined.get(var.storage, ())
                 if (lo is None or k >= base + lo) and (hi is None or k <= base + hi)]
        value = rw.keep(op)
        for k in reach:
            hit = rw.emit(_IEQ, B1, (index, rw.emit(_CONST, I1, imm=(k - base,))))
            value = rw.emit(_SELECT, var.type, (hit, _const(rw, var.type, table[(var.storage, k)]), value))
        return value

    rewrite(program, {Code.LOAD: dynamic_load})


def constant_loads(program: Program) -> list[Op]:
    """Every LOAD of a constant file, in program order."""
    LOAD = Code.LOAD
    loads = []
    for fn in program.functions.values():
        for op in fn.body:
            var = op.var
            # (most ops have no variable: that test first)
            if var is not None and var.storage in CONSTANT_FILES and op.code is LOAD:
                loads.append(op)
    return loads


def _fold_static_loads(loads: list[Op], table: dict) -> tuple[dict, bool]:
    """Make every static LOAD of a DEF'd register (of ``loads``, the
    constant files' LOADs) its CONST, and find the registers of each file
    the other LOADs read; return those spans (``shrink_arrays``'s) and
    whether a constant file is loaded dynamically.

    The LOAD becomes the CONST in place (same position, type and origin), so
    nothing that uses it needs remapping and no body is rebuilt: most
    shaders load only DEF'd registers statically, and this is then the
    whole pass."""
    CONST = Code.CONST
    spans: dict[Variable, list[int]] = {}
    dynamic = False
    for op in loads:
        var = op.var
        if op.args:
            dynamic = True
            _widen(spans, op, var)
            continue
        element = op.imm[0]
        if table:
            values = table.get((var.storage, element))
            if values is not None:
                op.code, op.imm, op.var = CONST, values[: var.type.width], None
                continue
        # _widen's static case, inlined: most loads come here
        if 0 <= element < var.length:
            known = spans.get(var)
            if known is None:
                spans[var] = [element, element]
            elif element < known[0]:
                known[0] = element
            elif element > known[1]:
                known[1] = element
    return spans, dynamic


def loaded_elements(op: Op) -> tuple[int, int] | None:
    """(first, last) registers a LOAD of an array may read, clipped to the array."""
    var = op.var
    base = op.imm[0]
    if not op.args:
        first = last = base
    else:
        lo, hi = index_range(op.args[0])
        first = 0 if lo is None else base + lo
        last = var.length - 1 if hi is None else base + hi
    first, last = max(first, 0), min(last, var.length - 1)
    return (first, last) if first <= last else None


def shrink_arrays(program: Program) -> None:
    """Cut each constant file to the registers still loaded (see module doc)."""
    spans: dict[Variable, list[int]] = {}
    LOAD = Code.LOAD
    for fn in program.functions.values():
        for op in fn.body:
            var = op.var
            if op.code is LOAD and var is not None and var.storage in CONSTANT_FILES:
                _widen(spans, op, var)
    _trim(program, spans)


def _widen(spans: dict[Variable, list[int]], op: Op, var: Variable) -> None:
    """Widen ``spans[var]`` ([first, last]) to the registers the LOAD ``op`` reads."""
    if op.args:
        span = loaded_elements(op)
        if span is None:
            return
        first, last = span
    else:  # a static load (most): inlined
        first = last = op.imm[0]
        if not 0 <= first < var.length:
            return
    known = spans.get(var)
    if known is None:
        spans[var] = [first, last]
    else:
        if first < known[0]:
            known[0] = first
        if last > known[1]:
            known[1] = last


def _trim(program: Program, spans: dict[Variable, list[int]]) -> None:
    """Cut each file to its span; drop the files no LOAD reads."""
    ranges: dict[str, tuple[int, int]] = {}
    kept: list[Variable] = []
    for var in program.variables:
        if var.storage in CONSTANT_FILES:
            span = spans.get(var)
            if span is None:
                continue  # nothing reads this file any more
            var.length = span[1] + 1
            ranges[var.name] = (span[0], span[1] - span[0] + 1)
        kept.append(var)
    program.variables[:] = kept
    program.notes["array_ranges"] = ranges
