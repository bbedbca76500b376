"""Preshaders and effect expressions: FXLVM programs in FX token streams.

    from xlate.preshader import decode_preshader, shader_preshader, format_preshader
    pre = shader_preshader(decode(blob))     # None when the shader has no PRES comment
    format_preshader(pre)                    # ["preshader", "add c0, (5, 5, 5, 5), c0", ...]
    pre.evaluate({"g1": [1, 2, 3, 4]})       # the shader constants it fills

Sits beside ``xlate.bytecode`` (whose CTAB parser it uses); imports nothing
above it.  See docs/preshader.md.
"""

from ..errors import PreshaderError
from .decoder import decode_preshader, shader_preshader
from .listing import format_double, format_instruction, format_preshader
from .model import Instruction, Operand, Preshader, PrsiInfo, Register, RegisterRange
from .tables import FxlvmOpcode, Reduction, RegisterFile

__all__ = [
    "Evaluation", "FxlvmOpcode", "Instruction", "Operand", "Preshader", "PreshaderError", "PrsiInfo", "Reduction",
    "Register", "RegisterFile", "RegisterRange", "decode_preshader", "evaluate", "format_double",
    "format_instruction", "format_preshader", "input_file", "shader_preshader",
]


# The evaluator (vm.py) needs numpy, which costs a translation process a
# fifth of a second to import: it is loaded on first use, not with the
# package (translate only reads preshaders; xlate.preshader.reflect).
_LAZY = frozenset({"Evaluation", "evaluate", "input_file"})


def __getattr__(name: str):
    if name in _LAZY:
        from . import vm

        return getattr(vm, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
