"""fx_2_0 effects (``fxc /T fx_2_0``): parse, list, translate.

    from xlate.effect import is_effect, parse_effect, format_effect
    effect = parse_effect(blob)          # typed model (model.py)
    print(format_effect(effect))         # fxc /Fc-style listing
    from xlate import translate_effect   # every pass's shaders for a target

An effect is a container beside ``xlate.bytecode``: the IR never sees it.
"""

import struct

from .model import Effect, EffectObject, Expression, Parameter, Pass, State, StateKind, Technique
from .parse import FX_2_0_MAGIC, parse_effect


def is_effect(data: bytes) -> bool:
    """True when ``data`` starts with the fx_2_0 magic (0xFEFF0901); nothing else is checked."""
    return len(data) >= 4 and struct.unpack_from("<I", data)[0] == FX_2_0_MAGIC


def format_effect(effect: Effect) -> str:
    """The fxc-style listing of a parsed effect (see listing.py)."""
    from .listing import format_effect as _format

    return _format(effect)


__all__ = [
    "Effect", "EffectObject", "Expression", "FX_2_0_MAGIC", "Parameter", "Pass", "State", "StateKind",
    "Technique", "format_effect", "is_effect", "parse_effect",
]
