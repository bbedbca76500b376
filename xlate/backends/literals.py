"""GLSL literals that read back as exactly the IR's values.

Floats are float32: the shortest decimal that rounds to the same float32 is
printed (so ``0.1`` stays ``0.1`` and FLT_MAX stays exact).  Infinities and
NaNs have no GLSL literal: from GLSL 1.30 / ES 3.00 they are built from
their bits, before that from a constant division (glslang folds it).
"""

from __future__ import annotations

import math
import struct

from ..ir.types import to_f32  # noqa: F401  (re-exported: the backends' float32 rounding)


def f32_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]




_FLOAT_CACHE: dict[tuple, str] = {}


def float_literal(value, *, bits_builtins: bool) -> str:
    # Memoised on (value, flag) for nonzero non-NaN values (0.0 == -0.0 and
    # NaN != NaN would make those bad keys); equal values print alike.
    # Zeros are answered first: copysign tells 0.0 from -0.0.
    if value == 0:  # the most common value, and no memo key (0.0 == -0.0)
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    if value and value == value:
        key = (value, bits_builtins)
        try:
            return _FLOAT_CACHE[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable value: no memo
            return _float_literal(value, bits_builtins)
        text = _float_literal(value, bits_builtins)
        if len(_FLOAT_CACHE) < 65536:
            _FLOAT_CACHE[key] = text
        return text
    return _float_literal(value, bits_builtins)


def _float_literal(value, bits_builtins: bool) -> str:
    v = to_f32(float(value))
    if math.isnan(v) or math.isinf(v):
        if bits_builtins:
            return f"uintBitsToFloat(0x{f32_bits(v):08X}u)"
        if math.isnan(v):
            return "(0.0 / 0.0)"
        return "(1.0 / 0.0)" if v > 0 else "(-1.0 / 0.0)"
    if v == 0.0:
        return "-0.0" if math.copysign(1.0, v) < 0 else "0.0"
    for digits in range(1, 10):
        text = f"{v:.{digits}g}"
        if to_f32(float(text)) == v:
            break
    if "e" not in text and "." not in text and "inf" not in text:
        text += ".0"
    elif "e" in text and "." not in text.split("e")[0]:
        mantissa, exp = text.split("e")
        text = f"{mantissa}.0e{exp}"
    return text


def int_literal(value: int) -> str:
    value = int(value)
    value = (value + 2**31) % 2**32 - 2**31  # wrap to int32
    if value == -(2**31):
        return "(-2147483647 - 1)"
    return str(value)


def bool_literal(value) -> str:
    return "true" if value else "false"
