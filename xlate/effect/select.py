"""What an effect's expressions give with the parameters' default values:
the element an array-selector state picks (``VertexShader = vsArray[i]``).

The FXLVM programs run on ``xlate.preshader``'s evaluator; this module only
feeds them the effect's defaults.  (Per-draw evaluation with application
values is ``Preshader.evaluate``'s job.)
"""

from __future__ import annotations

import math

from ..errors import XlateError
from .model import Effect, State, StateKind


def parameter_inputs(effect: Effect, pre) -> dict[str, list[float]]:
    """The default value of each numeric parameter the program reads, by its
    CTAB name (objects and structs are left to the CTAB defaults)."""
    out: dict[str, list[float]] = {}
    for constant in pre.ctab.constants if pre.ctab is not None else ():
        found = effect.resolve(constant.name)
        if found is None:
            continue
        param, index = found
        if param.is_object or param.members or index is not None:
            continue
        out[constant.name] = [float(v) for v in param.values()]
    return out


def selected_element(effect: Effect, state: State) -> int | None:
    """The array element an ``ARRAY_SELECTOR`` state picks when every
    parameter has its default value; None when the expression cannot be
    decoded or run, or gives no finite index.  The value is the expression's
    c0.x rounded to the nearest integer (d3dx9 reads the index as an int)."""
    if state.kind != StateKind.ARRAY_SELECTOR or state.expression is None:
        return None
    from ..preshader import decode_preshader

    try:
        pre = decode_preshader(state.expression.data, state.expression.offset)
        result = pre.evaluate(parameter_inputs(effect, pre))
    except (XlateError, ValueError):
        return None
    if not len(result.float_table):
        return None
    value = float(result.float_table[0])
    return int(round(value)) if math.isfinite(value) else None
