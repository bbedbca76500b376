"""IR value types: a scalar kind and a width of 1 to 4 components."""

from __future__ import annotations

import enum
import math
import struct
from dataclasses import dataclass


class Scalar(enum.Enum):
    # Members are singletons: hash by identity (C speed; Enum's own hashes
    # the name in Python, and sets/dicts keyed by these are in every hot loop).
    __hash__ = object.__hash__

    FLOAT = "f"
    INT = "i"
    BOOL = "b"


@dataclass(frozen=True)
class Type:
    scalar: Scalar
    width: int = 1

    def __post_init__(self):
        if not 1 <= self.width <= 4:
            raise ValueError(f"vector width must be 1-4, not {self.width}")

    def with_width(self, width: int) -> "Type":
        return Type(self.scalar, width)

    @property
    def is_float(self) -> bool:
        return self.scalar is Scalar.FLOAT

    @property
    def is_int(self) -> bool:
        return self.scalar is Scalar.INT

    @property
    def is_bool(self) -> bool:
        return self.scalar is Scalar.BOOL

    def __str__(self) -> str:
        return f"{self.scalar.value}{self.width}"


F1, F2, F3, F4 = (Type(Scalar.FLOAT, n) for n in (1, 2, 3, 4))
I1, I2, I3, I4 = (Type(Scalar.INT, n) for n in (1, 2, 3, 4))
B1, B2, B3, B4 = (Type(Scalar.BOOL, n) for n in (1, 2, 3, 4))


def vec(scalar: Scalar, width: int) -> Type:
    return Type(scalar, width)


def to_f32(value: float) -> float:
    """``value`` rounded to the nearest float32 (as a Python float): the IR's
    float values are float32, as D3D9's are.  Beyond float32's range this is
    +-inf, as float32 arithmetic gives; NaN stays NaN."""
    try:
        return _F32_UNPACK(_F32_PACK(value))[0]
    except OverflowError:  # (float)value became inf: round-to-nearest overflowed
        return math.copysign(math.inf, value)


_F32 = struct.Struct("<f")
_F32_PACK, _F32_UNPACK = _F32.pack, _F32.unpack
