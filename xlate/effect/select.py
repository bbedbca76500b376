"""What an effect's expressions give with the parameters' default values:
the element an array-selector state picks (``VertexShader = vsArray[i]``).

The runtime (``runtime.evaluate_pass``) evaluates selectors with the
application's values; this module asks it for the defaults.
"""

from __future__ import annotations

from ..errors import XlateError
from .model import Effect, State, StateKind


def selected_element(effect: Effect, state: State) -> int | None:
    """The array element an ``ARRAY_SELECTOR`` state picks when every
    parameter has its default value (the expression's c0.x converted to int
    by truncation, as d3dx9 does); None when the expression cannot be
    decoded or run, or picks no element of the array."""
    if state.kind != StateKind.ARRAY_SELECTOR or state.expression is None:
        return None
    from .runtime import _select, parameter_values

    try:
        return _select(effect, state, parameter_values(effect))[1]
    except (XlateError, ValueError):
        return None
