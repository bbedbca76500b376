"""The invariants that hold once the passes are done (docs/ir.md).

``validate(program)`` is the last step of the pipeline.  Two kinds of
failure come out of it:

* ``UnsupportedError`` (an ``XlateError``): a D3D_* op is still there
  because no pass lowers that feature yet.  That is a fact about the input,
  reported with the byte offset of the D3D instruction like every other
  input error.
* ``IRValidationError``: any other broken invariant.  That is a bug in a
  pass, not a problem with the input, so it deliberately is *not* an
  ``XlateError`` (callers that catch XlateError to report bad shaders must
  not swallow it).  It subclasses ``AssertionError`` because that is what it
  is: an internal consistency check failing; pytest shows it as such.

Call-graph problems (a CALL to a missing label, recursion) come from the
input, so ``cfg.check_calls``'s ``StructureError`` (``verify_calls``) is passed through as is.

``index_range`` (the interval of values an int index can take) lives here
because invariant 5 needs it; the relative and constants passes use it too.
"""

from __future__ import annotations

from operator import attrgetter

from ..bytecode.tables import Opcode
from ..errors import UnsupportedError
from .cfg import check_structure, verify_calls
from .ops import COMPARISONS, COMPONENTWISE_FLOAT, CONTROL, D3D_CODES, EFFECTS, Code, Op
from .program import Function, Program, Storage
from .types import Scalar


class IRValidationError(AssertionError):
    """A pass broke an IR invariant (a bug in xlate, not in the shader)."""

    def __init__(self, fn: str, op: Op | None, rule: str, detail: str):
        self.function = fn
        self.op = op
        self.rule = rule
        self.detail = detail
        where = f"function {fn}" + (f", op {op!r}" if op is not None else "")
        super().__init__(f"IR invariant '{rule}' broken in {where}: {detail}")

    def __reduce__(self):
        return (type(self), (self.function, self.op, self.rule, self.detail))


# ps_1_x texture-address instructions: lowered by the sm1 texture pass when it exists.
_TEXTURE_ADDRESS = {
    Opcode.TEXBEM, Opcode.TEXBEML, Opcode.TEXREG2AR, Opcode.TEXREG2GB, Opcode.TEXREG2RGB,
    Opcode.TEXM3x2PAD, Opcode.TEXM3x2TEX, Opcode.TEXM3x3PAD, Opcode.TEXM3x3TEX,
    Opcode.TEXM3x3SPEC, Opcode.TEXM3x3VSPEC, Opcode.TEXDP3TEX, Opcode.TEXM3x2DEPTH,
    Opcode.TEXDP3, Opcode.TEXM3x3, Opcode.TEXDEPTH, Opcode.BEM,
}

# Rules, by number in docs/ir.md.
R1, R2, R3, R4, R5 = (
    "1: no D3D op remains",
    "2: args are defined earlier in a dominating block",
    "3: types agree",
    "4: control flow nests",
    "5: dynamic indices are on arrays and in bounds",
)

_INT_COMPONENTWISE = {Code.IADD, Code.IMUL}
_BOOL_COMPONENTWISE = {Code.BNOT, Code.BAND, Code.BOR}
_CONVERSIONS = {
    Code.B2F: (Scalar.BOOL, Scalar.FLOAT), Code.I2F: (Scalar.INT, Scalar.FLOAT),
    Code.F2I_FLOOR: (Scalar.FLOAT, Scalar.INT), Code.F2I_ROUND: (Scalar.FLOAT, Scalar.INT),
}
_ARITY = {Code.FMAD: 3, Code.FCLAMP: 3, Code.SELECT: 3, Code.FDOT: 2, Code.FDOT_LEGACY: 2}
_UNARY_FLOAT = {
    Code.FNEG, Code.FABS, Code.FFLOOR, Code.FFRACT, Code.FEXP2, Code.FLOG2, Code.FSQRT, Code.FRSQ,
    Code.FRCP, Code.FSIN, Code.FCOS, Code.FSATURATE, Code.FSIGN, Code.FROUND_EVEN, Code.FDDX, Code.FDDY,
}


# -- index ranges -------------------------------------------------------------


def index_range(op: Op) -> tuple[int | None, int | None]:
    """Bounds (lo, hi), inclusive, of the values an int scalar may take; None
    is unbounded.  Understands constants, IADD, and SELECT whose condition is
    a conjunction of compares of the selected value with constants: exactly
    the guard ``SELECT(x >= 0 && x < n, x, 0)`` the relative pass emits."""
    return _range(op, 0)


# (module constants: ``Code.X`` is an enum class attribute lookup, some 70 ns,
# and these run for every dynamic index several times per pass)
_CONST, _IADD, _SELECT, _BAND, _INT = Code.CONST, Code.IADD, Code.SELECT, Code.BAND, Scalar.INT
# A compare of value and constant -> the fact it gives when true: (bound
# offset, True for a lower bound); and the compare with its sides swapped.
_BOUND_OF = {Code.ILT: (-1, False), Code.ILE: (0, False), Code.IGT: (1, True), Code.IGE: (0, True)}
_SWAPPED = {Code.ILT: Code.IGT, Code.ILE: Code.IGE, Code.IGT: Code.ILT, Code.IGE: Code.ILE}


def _range(op: Op, depth: int):
    if depth > 32:
        return None, None
    code = op.code
    if code is _CONST:
        if op.type.scalar is _INT:
            values = [int(v) for v in op.imm]
            return min(values), max(values)
        return None, None
    if code is _IADD:
        (alo, ahi), (blo, bhi) = _range(op.args[0], depth + 1), _range(op.args[1], depth + 1)
        lo = None if alo is None or blo is None else alo + blo
        hi = None if ahi is None or bhi is None else ahi + bhi
        return lo, hi
    if code is _SELECT and op.type.scalar is _INT:
        cond, a, b = op.args
        alo, ahi = _range(a, depth + 1)
        facts: list = []
        _facts(cond, facts)
        for value, bound, lower in facts:
            if value is a:
                if lower:
                    alo = bound if alo is None else max(alo, bound)
                else:
                    ahi = bound if ahi is None else min(ahi, bound)
        blo, bhi = _range(b, depth + 1)
        lo = None if alo is None or blo is None else min(alo, blo)
        hi = None if ahi is None or bhi is None else max(ahi, bhi)
        return lo, hi
    return None, None


def _facts(cond: Op, out: list) -> None:
    """Append to ``out`` the (value, bound, is a lower bound) facts implied
    by ``cond`` being true, in order."""
    code = cond.code
    if code is _BAND:
        for arg in cond.args:
            _facts(arg, out)
        return
    if code not in _BOUND_OF or cond.type.width != 1:
        return
    a, b = cond.args
    if a.code is _CONST and b.code is not _CONST:  # k < x  ==  x > k
        a, b = b, a
        code = _SWAPPED[code]
    if b.code is not _CONST:
        return
    offset, lower = _BOUND_OF[code]
    out.append((a, int(b.imm[0]) + offset, lower))


# -- the checks -----------------------------------------------------------------


def validate(program: Program, *, full: bool = True, calls: bool | None = None) -> None:
    """Raise on the first broken invariant (see the module docstring).

    ``full=False`` checks only what the input can break, in the same order:
    D3D ops no pass lowers, then the call graph.  The other rules can only
    be broken by a bug in a pass (``Options.validate`` turns them on).
    ``calls`` (with ``full=False``): the caller has looked at every op and
    found no D3D op, and says whether one is a CALL (what the cleanup pass
    finds on its way); None: it knows nothing.
    """
    if not full:
        # One look at every op: a D3D op left over is refused, and the calls
        # are only checked when there is a CALL (most shaders have none, and
        # then nothing can fail); networkx only reports unsound ones.
        if _check_d3d(program) if calls is None else calls:
            verify_calls(program)
        return
    _check_d3d(program)
    known_vars = {id(v) for v in program.variables}
    seen: set[int] = set()
    for fn in program.functions.values():
        check_structure(fn, program, error=lambda op, reason, fn=fn: IRValidationError(fn.name, op, R4, reason))
        _check_function(program, fn, known_vars, seen)
    verify_calls(program)


_CODE = attrgetter("code")


def _check_d3d(program: Program) -> bool:
    """Raise for the first D3D op left; return whether there is a CALL."""
    codes: set[Code] = set()
    for fn in program.functions.values():  # (``map`` of an attrgetter: the walk runs in C)
        codes.update(map(_CODE, fn.body))
    if not codes & D3D_CODES:
        return Code.CALL in codes
    for fn, op in program.all_ops():
        if op.code not in D3D_CODES:
            continue
        offset, name = -1, op.code.value
        if 0 <= op.origin < len(program.instructions):
            inst = program.instructions[op.origin]
            offset, name = inst.offset, inst.info.mnemonic
        where = f"'{name}' (instruction {op.origin + 1})"
        if op.code is Code.D3D_OP and op.imm and op.imm[0].opcode in _TEXTURE_ADDRESS:
            reason = "ps_1_x texture-address operations are not supported yet"
        elif op.code is Code.D3D_SRCMOD:
            reason = f"the source modifier {op.imm[0].name.lower()} is not supported yet"
        elif op.code is Code.D3D_STORE:
            reason = "this destination (modifiers, predicate or register) is not supported yet"
        else:
            reason = "this instruction is not supported yet"
        raise UnsupportedError(offset, f"{where}: {reason}")


def _check_function(program: Program, fn: Function, known_vars: set[int], seen: set[int]) -> None:
    # Structured scoping: a value is visible from its definition until the
    # block it was defined in closes; ELSE closes the THEN part.
    visible: set[int] = set()
    scopes: list[list[int]] = [[]]
    for op in fn.body:
        if id(op) in seen:
            raise IRValidationError(fn.name, op, R2, "the same op appears twice in the program")
        seen.add(id(op))
        for arg in op.args:
            if not isinstance(arg, Op) or not arg.is_value:
                raise IRValidationError(fn.name, op, R2, f"argument {arg!r} is not a value")
            if id(arg) not in visible:
                raise IRValidationError(fn.name, op, R2, f"argument {arg!r} is not defined before it in a dominating block")
        if op.code in (Code.ELSE, Code.ENDIF, Code.ENDLOOP):
            for key in scopes.pop():
                visible.discard(key)
        if op.code in (Code.IF, Code.ELSE, Code.LOOP):
            scopes.append([])
        if op.var is not None and id(op.var) not in known_vars:
            raise IRValidationError(fn.name, op, R3, f"variable {op.var.name} is not in program.variables")
        _check_types(fn, op)
        _check_index(fn, op)
        if op.is_value:
            visible.add(id(op))
            scopes[-1].append(id(op))


def _fail(fn: Function, op: Op, detail: str):
    raise IRValidationError(fn.name, op, R3, detail)


def _check_types(fn: Function, op: Op) -> None:
    code, t, args = op.code, op.type, op.args
    if code in EFFECTS or code in CONTROL:
        if t is not None:
            _fail(fn, op, "an effect or control op has a type")
    elif t is None:
        _fail(fn, op, "a value op has no type")
    if code in _ARITY and len(args) != _ARITY[code]:
        _fail(fn, op, f"{code.value} takes {_ARITY[code]} args, not {len(args)}")
    if code is Code.CONST:
        if len(op.imm) != t.width:
            _fail(fn, op, f"{len(op.imm)} constant values for a {t}")
    elif code is Code.LOAD:
        if op.var is None or op.var.type != t:
            _fail(fn, op, "a LOAD has the type of its variable")
        if op.var.storage is Storage.SAMPLER:
            _fail(fn, op, "samplers are not loaded")
    elif code is Code.STORE:
        _check_store(fn, op)
    elif code is Code.SWIZZLE:
        if len(args) != 1 or len(op.imm) != t.width or t.scalar is not args[0].type.scalar:
            _fail(fn, op, "SWIZZLE result width is the number of indices, kind unchanged")
        if any(not 0 <= i < args[0].type.width for i in op.imm):
            _fail(fn, op, f"SWIZZLE index out of a {args[0].type}")
    elif code is Code.CONSTRUCT:
        if sum(a.type.width for a in args) != t.width or any(a.type.scalar is not t.scalar for a in args):
            _fail(fn, op, "CONSTRUCT args must add up to the result type")
    elif code in COMPONENTWISE_FLOAT:
        if not t.is_float or any(a.type != t for a in args):
            _fail(fn, op, f"{code.value} needs float args of its own type {t}")
        if len(args) != (1 if code in _UNARY_FLOAT else _ARITY.get(code, 2)):
            _fail(fn, op, f"{code.value} has {len(args)} args")
    elif code in (Code.FDOT, Code.FDOT_LEGACY):
        if t.width != 1 or not t.is_float or args[0].type != args[1].type or not args[0].type.is_float:
            _fail(fn, op, "a dot product takes two floats of equal width and gives f1")
    elif code in COMPARISONS:
        kind = Scalar.INT if code.value.startswith("i") else Scalar.FLOAT
        if len(args) != 2 or not t.is_bool or any(a.type.scalar is not kind or a.type.width != t.width for a in args):
            _fail(fn, op, f"{code.value} compares two {kind.name.lower()} vectors of width {t.width} into bools")
    elif code is Code.SELECT:
        cond, a, b = args
        if not cond.type.is_bool or cond.type.width not in (1, t.width) or a.type != t or b.type != t:
            _fail(fn, op, "SELECT takes a bool condition (width 1 or of the result) and two values of its type")
    elif code in _INT_COMPONENTWISE:
        if not t.is_int or any(a.type != t for a in args) or len(args) != 2:
            _fail(fn, op, f"{code.value} needs two int args of its own type")
    elif code in _BOOL_COMPONENTWISE:
        if not t.is_bool or any(a.type != t for a in args):
            _fail(fn, op, f"{code.value} needs bool args of its own type")
    elif code is Code.BANY:
        if t.width != 1 or not t.is_bool or not args[0].type.is_bool:
            _fail(fn, op, "BANY reduces a bool vector to b1")
    elif code in _CONVERSIONS:
        src, dst = _CONVERSIONS[code]
        if args[0].type.scalar is not src or t.scalar is not dst or args[0].type.width != t.width:
            _fail(fn, op, f"{code.value} converts {src.name.lower()} to {dst.name.lower()} of the same width")
    elif code is Code.SAMPLE:
        if op.var is None or op.var.storage is not Storage.SAMPLER or not args or not args[0].type.is_float:
            _fail(fn, op, "SAMPLE needs a sampler variable and a float coordinate")
    elif code is Code.IF:
        if len(args) != 1 or args[0].type.width != 1 or not args[0].type.is_bool:
            _fail(fn, op, "IF takes one b1 condition")


def _check_store(fn: Function, op: Op) -> None:
    var = op.var
    if var is None or not op.args or not op.imm:
        _fail(fn, op, "a STORE needs a variable, a value and a mask")
    if var.storage in (Storage.INPUT, Storage.FLOAT_CONST, Storage.INT_CONST, Storage.BOOL_CONST, Storage.SAMPLER,
                       Storage.STATE):
        _fail(fn, op, f"{var.name} is read-only ({var.storage.value})")
    mask, value = op.imm[0], op.args[0]
    if var.type.width == 1:
        # a scalar register takes x whatever the mask says (docs/ir.md, rule 3)
        if not mask & 1 or value.type.width != 1 or value.type.scalar is not var.type.scalar:
            _fail(fn, op, f"a scalar {var.name} takes one {var.type.scalar.name.lower()} through a mask with x")
    elif not 0 < mask < (1 << var.type.width):
        _fail(fn, op, f"mask {mask:#x} is empty or wider than {var.name} ({var.type})")
    elif value.type.width != bin(mask).count("1") or value.type.scalar is not var.type.scalar:
        _fail(fn, op, f"a {value.type} value cannot fill mask {mask:#x} of {var.name} ({var.type})")
    if len(op.args) > 1 and (op.args[1].type is None or op.args[1].type.width != 1 or not op.args[1].type.is_int):
        _fail(fn, op, "a dynamic index is an i1")


def _check_index(fn: Function, op: Op) -> None:
    if op.code not in (Code.LOAD, Code.STORE) or op.var is None:
        return
    var = op.var
    index = (op.args[0] if op.args else None) if op.code is Code.LOAD else (op.args[1] if len(op.args) > 1 else None)
    if var.length is None:
        if index is not None:
            raise IRValidationError(fn.name, op, R5, f"{var.name} is not an array but has a dynamic index")
        return
    element = op.imm[0] if op.code is Code.LOAD else (op.imm[1] if len(op.imm) > 1 else None)
    if element is None:
        raise IRValidationError(fn.name, op, R5, f"an access to array {var.name} names no element")
    if index is None:
        if not 0 <= element < var.length:
            raise IRValidationError(fn.name, op, R5, f"element {element} is outside {var.name}[{var.length}]")
        return
    if index.type is None or index.type.width != 1 or not index.type.is_int:
        raise IRValidationError(fn.name, op, R5, "a dynamic index is an i1")
    lo, hi = index_range(index)
    if lo is None or hi is None or element + lo < 0 or element + hi >= var.length:
        raise IRValidationError(
            fn.name, op, R5,
            f"the dynamic index into {var.name}[{var.length}] (base {element}, range {lo}..{hi}) is not bounds-checked",
        )
