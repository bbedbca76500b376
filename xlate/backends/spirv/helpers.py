"""Helper functions of the SPIR-V emitter: what ``backends/helpers.py``
spells as GLSL functions (``xl_saturate``, ``xl_mul_legacy``,
``xl_dot_legacy``), as SPIR-V.

A legacy multiply or dot becomes a function of the module (defined on
first use, after the shader's functions) once a shader uses it
``HELPER_AFTER`` times for one width; fewer uses are written inline, which
costs less than defining a function.  Saturate is three instructions and
always inline.
"""

from __future__ import annotations

from ...ir.ops import Code, Op
from ...ir.types import Scalar
from .grammar import grammar
from .module import OP

G = grammar()
FLOAT, BOOL = Scalar.FLOAT, Scalar.BOOL
FMUL_LEGACY, FDOT_LEGACY = Code.FMUL_LEGACY, Code.FDOT_LEGACY
# A helper becomes a function once a shader uses it this often (a width).
HELPER_AFTER = {FMUL_LEGACY: 3, FDOT_LEGACY: 2}
(OpFunction, OpFunctionParameter, OpLabel, OpReturnValue, OpFunctionEnd, OpTypeFunction, OpFunctionCall,
 OpFOrdGreaterThan, OpFOrdEqual, OpLogicalOr, OpSelect, OpFMul, OpFAdd, OpCompositeExtract) = (OP[n] for n in (
    "OpFunction", "OpFunctionParameter", "OpLabel", "OpReturnValue", "OpFunctionEnd", "OpTypeFunction",
    "OpFunctionCall", "OpFOrdGreaterThan", "OpFOrdEqual", "OpLogicalOr", "OpSelect", "OpFMul", "OpFAdd",
    "OpCompositeExtract"))
FUNCTION_CONTROL_NONE = G.enums["FunctionControl"]["None"]
EXT_FMIN = G.glsl450["FMin"]


class HelperFunctions:
    """Mixin of ``Emitter``: the helper ops.  Uses the emitter's ``m``,
    ``words``, ``ids``, ``legacy`` ((Code, width) -> uses), ``helper_fns``,
    ``helper_words``, ``debug`` and its type and constant methods."""

    # -- helper functions (glsl.py's helpers.py, as SPIR-V functions) ---------

    def helper(self, name: str, width: int) -> int:
        """The function of helper ``name`` for ``width`` components, defined
        on first use (after the shader's functions, in order of first use)."""
        key = (name, width)
        fn = self.helper_fns.get(key)
        if fn is None:
            fn = self.helper_fns[key] = self.define_helper(name, width)
        return fn

    def define_helper(self, name: str, width: int) -> int:
        m = self.m
        t = self.vec(FLOAT, width)
        result = self.float if name == "dot_legacy" else t
        params = (t,) if name == "saturate" else (t, t)
        fn_type = m._type(("fn", result, params), OpTypeFunction, result, *params)
        saved, self.words = self.words, self.helper_words
        w = self.words
        fn = m.new_id()
        m.put(w, OpFunction, result, fn, FUNCTION_CONTROL_NONE, fn_type)
        args = []
        for p in params:
            a = m.new_id()
            m.put(w, OpFunctionParameter, p, a)
            args.append(a)
        m.put(w, OpLabel, m.new_id())
        r = HELPER_BODIES[name](self, width, *args)
        m.put(w, OpReturnValue, r)
        m.put(w, OpFunctionEnd)
        self.words = saved
        if self.debug:
            m.name(fn, "xl_" + name)
        return fn

    def saturate_body(self, width: int, x: int) -> int:
        """xl_saturate: ``x > 0 ? min(x, 1) : 0`` (NaN -> 0)."""
        t = self.vec(FLOAT, width)
        gt = self.inst(OpFOrdGreaterThan, self.vec(BOOL, width), x, self.splat(0.0, width))
        low = self.ext(EXT_FMIN, t, x, self.splat(1.0, width))
        return self.inst(OpSelect, t, gt, low, self.splat(0.0, width))

    def mul_legacy_body(self, width: int, a: int, b: int) -> int:
        """xl_mul_legacy: ``(a == 0 || b == 0) ? 0 : a * b``, per component."""
        t = self.vec(FLOAT, width)
        bt = self.vec(BOOL, width)
        zero = self.splat(0.0, width)
        either = self.inst(OpLogicalOr, bt, self.inst(OpFOrdEqual, bt, a, zero), self.inst(OpFOrdEqual, bt, b, zero))
        return self.inst(OpSelect, t, either, zero, self.inst(OpFMul, t, a, b))

    def dot_legacy_body(self, width: int, a: int, b: int) -> int:
        """xl_dot_legacy: the legacy products summed left to right."""
        p = self.mul_legacy_body(width, a, b)
        if width == 1:
            return p
        total = self.inst(OpCompositeExtract, self.float, p, 0)
        for i in range(1, width):
            total = self.inst(OpFAdd, self.float, total, self.inst(OpCompositeExtract, self.float, p, i))
        return total

    def call_helper(self, op: Op, name: str, width: int) -> None:
        ids = self.ids
        fn = self.helper_fns.get((name, width)) or self.helper(name, width)
        t = self.types.get(id(op.type)) or self.type_of(op.type)
        a, b = op.args
        m = self.m
        r = m.bound
        m.bound = r + 1
        self.words += ((6 << 16) | OpFunctionCall, t, r, fn, ids[a], ids[b])
        ids[op] = r

    def saturate(self, op: Op) -> None:
        # three instructions: inline (a function costs more to define than that)
        self.ids[op] = self.saturate_body(op.type.width, self.ids[op.args[0]])

    def mul_legacy(self, op: Op) -> None:
        width = op.type.width
        if self.legacy.get((FMUL_LEGACY, width), 0) >= HELPER_AFTER[FMUL_LEGACY]:
            self.call_helper(op, "mul_legacy", width)
        else:
            a, b = op.args
            self.ids[op] = self.mul_legacy_body(width, self.ids[a], self.ids[b])

    def dot_legacy(self, op: Op) -> None:
        width = op.args[0].type.width
        if self.legacy.get((FDOT_LEGACY, width), 0) >= HELPER_AFTER[FDOT_LEGACY]:
            self.call_helper(op, "dot_legacy", width)
        else:
            a, b = op.args
            self.ids[op] = self.dot_legacy_body(width, self.ids[a], self.ids[b])


HELPER_BODIES = {"saturate": HelperFunctions.saturate_body, "mul_legacy": HelperFunctions.mul_legacy_body,
                 "dot_legacy": HelperFunctions.dot_legacy_body}
