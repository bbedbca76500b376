"""The fx_2_0 state table: what each state operation of an effect sets.

The table itself is data, written once in ``states.json`` beside this module
(entry *i* is operation *i*, in d3dx9's order); the parser, the listing, the
reflection and the CLI all read it through ``state_info`` and
``decode_state_value``.
"""

from __future__ import annotations

import enum
import functools
import json
import struct
from dataclasses import dataclass
from pathlib import Path


class StateClass(enum.Enum):
    """What a state operation sets (d3dx9's STATE_CLASS)."""

    RENDER = "render"
    TEXTURE_STAGE = "texture_stage"
    NPATCH_MODE = "npatch_mode"
    FVF = "fvf"
    TRANSFORM = "transform"
    MATERIAL = "material"
    LIGHT = "light"
    LIGHT_ENABLE = "light_enable"
    VERTEX_SHADER = "vertex_shader"
    PIXEL_SHADER = "pixel_shader"
    SHADER_CONSTANT = "shader_constant"
    TEXTURE = "texture"
    SAMPLER_STATE = "sampler_state"
    SAMPLER = "sampler"


@dataclass(frozen=True)
class StateInfo:
    """One row of the table.

    ``d3d_value`` is the D3D enum value (D3DRS_*, D3DTSS_*, D3DSAMP_*,
    D3DTS_*) or the sub-kind within the class (material/light member,
    shader-constant file); ``value_kind`` says how to read the value.
    """

    operation: int
    state_class: StateClass
    name: str
    d3d_value: int | str
    value_kind: str


@functools.lru_cache(maxsize=1)
def _table() -> dict:
    with open(Path(__file__).with_name("states.json"), encoding="utf-8") as f:
        return json.load(f)


@functools.lru_cache(maxsize=1)
def state_table() -> tuple[StateInfo, ...]:
    """Every known state operation, indexed by operation number."""
    return tuple(
        StateInfo(op, StateClass(cls), name, value, kind)
        for op, (cls, name, value, kind) in enumerate(_table()["states"])
    )


def state_info(operation: int) -> StateInfo | None:
    """The table row of ``operation``, or None when d3dx9 knows no such state."""
    table = state_table()
    return table[operation] if 0 <= operation < len(table) else None


def _float_of(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def decode_state_value(info: StateInfo, bits: int, is_float: bool) -> int | float | bool | str:
    """One DWORD of a constant state value, as D3D names it.

    ``is_float`` says the effect stored it as a float (the HLSL literal was
    a float): enum-valued states then take the float's integer value, as
    d3dx9 converts it before calling SetRenderState.
    """
    kind = info.value_kind
    number = _float_of(bits) if is_float else bits
    if kind == "float":
        return _float_of(bits) if is_float else float(_signed(bits))
    integer = _float_to_dword(number) if is_float else bits
    tables = _table()
    if kind == "bool":
        return bool(integer)
    if kind in tables["enums"]:
        for name, value in tables["enums"][kind].items():
            if value == integer:
                return name
        return integer
    if kind in tables["flags"]:
        return _flag_text(tables["flags"][kind], integer)
    if kind in tables["selectors"]:
        sel = tables["selectors"][kind]
        base = integer & sel["mask"]
        names = [n for n, v in sel["values"].items() if v == base] or [str(base)]
        names += [n for n, v in sel["flags"].items() if integer & v]
        rest = integer & ~sel["mask"] & ~sum(sel["flags"].values())
        if rest:
            names.append(str(rest))
        return " | ".join(names)
    if kind in ("D3DCOLOR", "hex"):
        return f"0x{integer & 0xFFFFFFFF:08x}"
    if kind == "int":
        return _signed(integer)
    return number


def _float_to_dword(value: float) -> int:
    """A float state value as the DWORD d3dx9 passes on: truncated toward
    zero; NaN, infinities and values outside int32 give 0x80000000, as x86's
    conversion does."""
    if value != value or abs(value) >= 2.0**31:
        return 0x80000000
    return int(value) & 0xFFFFFFFF


def _flag_text(flags: dict[str, int], value: int) -> str:
    names = [n for n, v in flags.items() if value & v]
    rest = value & ~sum(flags.values())
    if rest:
        names.append(f"0x{rest:x}")
    return " | ".join(names) if names else "0"


def _signed(bits: int) -> int:
    bits &= 0xFFFFFFFF
    return bits - (1 << 32) if bits & 0x80000000 else bits
