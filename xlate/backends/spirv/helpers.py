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

import functools
import operator

from ...ir.ops import Code, Op
from ...ir.types import Scalar
from .grammar import grammar
from .module import OP

G = grammar()
FLOAT, BOOL = Scalar.FLOAT, Scalar.BOOL
FMUL_LEGACY, FDOT_LEGACY = Code.FMUL_LEGACY, Code.FDOT_LEGACY
# A helper becomes a function once a shader uses it this often (all widths together).
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
    ``words``, ``ids``, ``legacy`` (Code -> uses), ``helper_fns``,
    ``helper_words``, ``debug`` and its type and constant methods."""

    __slots__ = ()

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
        """The helper's function, written from its template
        (``helper_template``) in one pass: the template names the few module
        ids it needs (the vector types, the zero splat, the function type),
        the rest is fresh ids."""
        m = self.m
        t = self.vec(FLOAT, width)
        result = self.float if name == "dot_legacy" else t
        params = (t,) if name == "saturate" else (t, t)
        fn_type = m._type(("fn", result, params), OpTypeFunction, result, *params)
        bvec = self.vec(BOOL, width)
        zero = self.splat(0.0, width)
        symbols = (result, fn_type, t, bvec, zero, self.float)  # in TEMPLATE_SYMBOLS' order
        fill, literals, count = helper_filler(name, width)
        base = m.bound  # fn, params, label, then one id per value of the plan
        m.bound = base + count
        self.helper_words += fill(literals + symbols + tuple(range(base, base + count)))
        if self.debug:
            m.name(base, "xl_" + name)
        return base

    def saturate_body(self, width: int, x: int) -> int:
        """xl_saturate: ``x > 0 ? min(x, 1) : 0`` (NaN -> 0)."""
        t = self.vec(FLOAT, width)
        gt = self.inst(OpFOrdGreaterThan, self.vec(BOOL, width), x, self.splat(0.0, width))
        low = self.ext(EXT_FMIN, t, x, self.splat(1.0, width))
        return self.inst(OpSelect, t, gt, low, self.splat(0.0, width))

    def mul_legacy_body(self, width: int, a: int, b: int) -> int:
        """xl_mul_legacy: ``(a == 0 || b == 0) ? 0 : a * b``, per component."""
        return self.inline_helper("mul_legacy", width, a, b)

    def dot_legacy_body(self, width: int, a: int, b: int) -> int:
        """xl_dot_legacy: the legacy products summed left to right."""
        return self.inline_helper("dot_legacy", width, a, b)

    def inline_helper(self, name: str, width: int, a: int, b: int) -> int:
        """Helper ``name``'s body written inline on the values ``a`` and ``b``
        (its plan, ``helper_plan``, filled from ``inline_filler``'s template
        in one call); returns the id of its value."""
        t = self.vec(FLOAT, width)
        bt = self.vec(BOOL, width)
        zero = self.splat(0.0, width)
        fill, literals, count = inline_filler(name, width)
        m = self.m
        base = m.bound
        m.bound = base + count
        self.words += fill(literals + (t, bt, zero, self.float, a, b) + tuple(range(base, base + count)))
        return base + count - 1

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
        if self.legacy.get(FMUL_LEGACY, 0) >= HELPER_AFTER[FMUL_LEGACY]:
            self.call_helper(op, "mul_legacy", width)
        else:
            a, b = op.args
            self.ids[op] = self.mul_legacy_body(width, self.ids[a], self.ids[b])

    def dot_legacy(self, op: Op) -> None:
        width = op.args[0].type.width
        if self.legacy.get(FDOT_LEGACY, 0) >= HELPER_AFTER[FDOT_LEGACY]:
            self.call_helper(op, "dot_legacy", width)
        else:
            a, b = op.args
            self.ids[op] = self.dot_legacy_body(width, self.ids[a], self.ids[b])


def _plan_mul_legacy(width: int, first: int) -> list:
    """xl_mul_legacy's instructions: ``(a == 0 || b == 0) ? 0 : a * b``;
    values are numbered from ``first`` (0 = the function, 1, 2 = a, b,
    3 = the label)."""
    a, b, r = (1,), (2,), first
    return [(OpFOrdEqual, "B", r, (a, "Z")), (OpFOrdEqual, "B", r + 1, (b, "Z")),
            (OpLogicalOr, "B", r + 2, ((r,), (r + 1,))), (OpFMul, "T", r + 3, (a, b)),
            (OpSelect, "T", r + 4, ((r + 2,), "Z", (r + 3,)))]


# A helper's words as a template (``helper_template``): a literal word as
# itself, the id of value slot k as SLOT + k, a module id as SYMBOL + its
# place in TEMPLATE_SYMBOLS (R: the result type, FN: the function type).
SLOT, SYMBOL = 1 << 32, 1 << 33
TEMPLATE_SYMBOLS = ("R", "FN", "T", "B", "Z", "F")


@functools.lru_cache(maxsize=None)
def helper_template(name: str, width: int) -> tuple[tuple[int, ...], int]:
    """(the words of helper ``name``'s function, number of ids) with its
    ids and the module ids it uses left as SLOT/SYMBOL references:
    ``define_helper`` fills them in one pass instead of walking the plan
    (operand by operand, a third of a median shader's helper cost)."""
    plan, count = helper_plan(name, width)
    sym = {s: SYMBOL + k for k, s in enumerate(TEMPLATE_SYMBOLS)}
    n_params = 1 if name == "saturate" else 2
    words = [(5 << 16) | OpFunction, sym["R"], SLOT, FUNCTION_CONTROL_NONE, sym["FN"]]
    for k in range(n_params):
        words += ((3 << 16) | OpFunctionParameter, sym["T"], SLOT + 1 + k)
    words += ((2 << 16) | OpLabel, SLOT + 1 + n_params)
    for opcode, type_sym, result_slot, operands in plan:
        ops = [sym[o] if o.__class__ is str else SLOT + o[0] if o.__class__ is tuple else o for o in operands]
        words += (((3 + len(ops)) << 16) | opcode, sym[type_sym], SLOT + result_slot, *ops)
    words += ((2 << 16) | OpReturnValue, SLOT + count - 1, (1 << 16) | OpFunctionEnd)
    return tuple(words), count


@functools.lru_cache(maxsize=None)
def helper_filler(name: str, width: int) -> tuple:
    """(fill, literals, number of ids): ``helper_template``'s words as
    one ``itemgetter`` over ``literals + symbols + ids`` (the literal
    words, TEMPLATE_SYMBOLS' ids in order, then the helper's own ids), so
    that a definition fills its template in one C call, not word by word."""
    template, count = helper_template(name, width)
    literals = tuple(sorted({x for x in template if x < SLOT}))
    at = {x: k for k, x in enumerate(literals)}
    symbols = len(TEMPLATE_SYMBOLS)
    index = [at[x] if x < SLOT else len(literals) + symbols + x - SLOT if x < SYMBOL
             else len(literals) + x - SYMBOL for x in template]
    return operator.itemgetter(*index), literals, count


# the module ids an inline body uses, in the order inline_filler takes them
INLINE_SYMBOLS = ("T", "B", "Z", "F")


@functools.lru_cache(maxsize=None)
def inline_filler(name: str, width: int) -> tuple:
    """(fill, literals, number of new ids) of helper ``name``'s body
    written inline (``HelperFunctions.inline_helper``): the plan's
    instructions without the function around them, its parameters (slots 1
    and 2) the operands' ids and its values (slots 4 on) new ids; ``fill``
    takes ``literals``, INLINE_SYMBOLS' ids, the two operands and the new
    ids, and gives the words in one C call."""
    plan, count = helper_plan(name, width)
    words = []
    for opcode, type_sym, result_slot, operands in plan:
        ops = [SYMBOL + INLINE_SYMBOLS.index(o) if o.__class__ is str else SLOT + o[0] if o.__class__ is tuple
               else o for o in operands]
        words += (((3 + len(ops)) << 16) | opcode, SYMBOL + INLINE_SYMBOLS.index(type_sym), SLOT + result_slot, *ops)
    literals = tuple(sorted({x for x in words if x < SLOT}))
    at = {x: k for k, x in enumerate(literals)}
    operands = len(literals) + len(INLINE_SYMBOLS)  # where a and b are; the new ids follow them
    index = [at[x] if x < SLOT else len(literals) + x - SYMBOL if x >= SYMBOL
             else operands + x - SLOT - 1 if x - SLOT in (1, 2) else operands + 2 + x - SLOT - 4 for x in words]
    return operator.itemgetter(*index), literals, count - 4


@functools.lru_cache(maxsize=None)
def helper_plan(name: str, width: int) -> tuple[tuple, int]:
    """(instructions, number of ids) of a helper function: each instruction
    is (opcode, result type symbol, result slot, operands), an operand a
    symbol ("T" float vector, "B" bool vector, "Z" zero splat, "F" float),
    a (slot,) or a literal; the last slot is the value returned."""
    if name == "mul_legacy":
        plan = _plan_mul_legacy(width, 4)
    elif name == "dot_legacy":
        plan = _plan_mul_legacy(width, 4)
        if width > 1:
            product, slot = (8,), 9
            plan.append((OpCompositeExtract, "F", slot, (product, 0)))
            total = slot
            for i in range(1, width):
                plan.append((OpCompositeExtract, "F", slot + 1, (product, i)))
                plan.append((OpFAdd, "F", slot + 2, ((total,), (slot + 1,))))
                total, slot = slot + 2, slot + 2
    else:
        raise ValueError(f"no helper plan for {name}")
    count = 1 + max(p[2] for p in plan)
    return tuple(plan), count
