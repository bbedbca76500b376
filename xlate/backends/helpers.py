"""GLSL helper functions for IR ops with no exact GLSL built-in.

- ``xl_saturate``: clamp to [0, 1] with NaN -> 0 (``clamp`` leaves NaN undefined);
- ``xl_mul_legacy`` / ``xl_dot_legacy``: D3D9's "anything x 0 = 0" products;
- ``xl_round_even``: roundEven before GLSL 1.30 / ES 3.00;
- ``xl_select``, ``xl_and``, ``xl_or``: component-wise choice and logic on
  bool vectors (GLSL has ``&&``/``?:`` only for scalars, and ``mix`` with a
  bool vector only for floats from 1.30).

One name per helper, overloaded per type.  Only the helpers a shader uses
are emitted, scalar versions before the vector ones that call them, in a
fixed order (deterministic output).  Each overload's text depends only on
the helper, the type and whether the target has the GLSL 1.30 built-ins,
so all of them are written once, at import (``SOURCES``).
"""

from __future__ import annotations

from ..ir.types import Scalar, Type
from .layout import glsl_type

ORDER = ("mul_legacy", "dot_legacy", "saturate", "round_even", "select", "and", "or")
RANK = {name: i for i, name in enumerate(ORDER)}
C = "xyzw"


class Helpers:
    def __init__(self, target):
        self.builtins = target.glsl130_builtins
        self.used: set[tuple[str, Scalar, int]] = set()

    def use(self, name: str, t: Type) -> str:
        if (name, t.scalar, t.width) not in self.used:
            self._add(name, t.scalar, t.width)
        return "xl_" + name

    def _add(self, name: str, scalar: Scalar, width: int) -> None:
        key = (name, scalar, width)
        if key in self.used:
            return
        self.used.add(key)
        # dependencies: vector versions built from scalar ones
        if name in ("mul_legacy", "round_even") and width > 1:
            self._add(name, scalar, 1)
        if name == "saturate" and width > 1 and not self.builtins:
            self._add(name, scalar, 1)
        if name == "dot_legacy":
            self._add("mul_legacy", Scalar.FLOAT, 1)

    def sources(self) -> list[str]:
        builtins = self.builtins
        return [SOURCES[name, scalar, width, builtins] for name, scalar, width in sorted(self.used, key=SORT_KEYS.get)]


# -- definitions ---------------------------------------------------------------


def _percomp(t: Type, fn: str, args: str, call) -> str:
    ty = glsl_type(t)
    parts = ", ".join(call(c) for c in C[: t.width])
    return f"{ty} {fn}({args}) {{ return {ty}({parts}); }}"


def _mul_legacy(t: Type, builtins: bool) -> str:
    if t.width == 1:
        return "float xl_mul_legacy(float a, float b) { return (a == 0.0 || b == 0.0) ? 0.0 : a * b; }"
    ty = glsl_type(t)
    return _percomp(t, "xl_mul_legacy", f"{ty} a, {ty} b", lambda c: f"xl_mul_legacy(a.{c}, b.{c})")


def _dot_legacy(t: Type, builtins: bool) -> str:
    ty = glsl_type(t)
    terms = " + ".join(f"xl_mul_legacy(a.{c}, b.{c})" if t.width > 1 else "xl_mul_legacy(a, b)"
                       for c in C[: t.width])
    return f"float xl_dot_legacy({ty} a, {ty} b) {{ return {terms}; }}"


def _saturate(t: Type, builtins: bool) -> str:
    ty = glsl_type(t)
    if t.width == 1:
        return "float xl_saturate(float x) { return x > 0.0 ? min(x, 1.0) : 0.0; }"
    if builtins:
        return (f"{ty} xl_saturate({ty} x) {{ return mix({ty}(0.0), min(x, 1.0), "
                f"greaterThan(x, {ty}(0.0))); }}")
    return _percomp(t, "xl_saturate", f"{ty} x", lambda c: f"xl_saturate(x.{c})")


def _round_even(t: Type, builtins: bool) -> str:
    if t.width == 1:
        return ("float xl_round_even(float x) { float r = floor(x + 0.5); "
                "return (r - x == 0.5 && mod(r, 2.0) != 0.0) ? r - 1.0 : r; }")
    ty = glsl_type(t)
    return _percomp(t, "xl_round_even", f"{ty} x", lambda c: f"xl_round_even(x.{c})")


def _select(t: Type, builtins: bool) -> str:
    ty = glsl_type(t)
    return _percomp(t, "xl_select", f"bvec{t.width} c, {ty} a, {ty} b", lambda c: f"c.{c} ? a.{c} : b.{c}")


def _and(t: Type, builtins: bool) -> str:
    ty = glsl_type(t)
    return _percomp(t, "xl_and", f"{ty} a, {ty} b", lambda c: f"a.{c} && b.{c}")


def _or(t: Type, builtins: bool) -> str:
    ty = glsl_type(t)
    return _percomp(t, "xl_or", f"{ty} a, {ty} b", lambda c: f"a.{c} || b.{c}")


DEFINITIONS = {"mul_legacy": _mul_legacy, "dot_legacy": _dot_legacy, "saturate": _saturate,
               "round_even": _round_even, "select": _select, "and": _and, "or": _or}
# (helper, scalar, width) -> where its overload goes: helpers in ORDER,
# narrower first (a table: an enum's .value is a slow property)
SORT_KEYS = {(name, scalar, width): (RANK[name], width, scalar.value)
             for name in ORDER for scalar in Scalar for width in range(1, 5)}
# (helper, scalar, width, GLSL 1.30 built-ins?) -> the overload's source
SOURCES = {(name, scalar, width, builtins): define(Type(scalar, width), builtins)
           for name, define in DEFINITIONS.items() for scalar in Scalar for width in range(1, 5)
           for builtins in (False, True)}
