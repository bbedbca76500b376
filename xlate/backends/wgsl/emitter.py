"""The WGSL function bodies: values, statements and helpers.

Values are printed as ``glsl.py`` prints them, with the same inlining
decisions (``inlining.analyse``): a value used once in the same straight-line
stretch is inlined into its user, every other one is a ``let tN: T = ...;``.
WGSL has fewer precedence rules than GLSL allows to be left implicit (``a &&
b || c`` is an error), so every operand that is not primary is put in
parentheses.  Declarations and the entry point are ``module.py``'s.
"""

from __future__ import annotations

import math
from itertools import filterfalse

from ...errors import UnsupportedError
from ...ir import cfg
from ...ir.ops import Code, Op, SampleKind, SampleMode
from ...ir.program import Program, Storage
from ...ir.types import Scalar, Type
from .. import layout as layout_mod
from ..annotations import instruction_text
from ..inlining import analyse
from ..literals import f32_bits, float_literal, int_literal, to_f32
from ..targets import Target, unsupported
from . import module, uniformity

FLOAT, INT, BOOL = Scalar.FLOAT, Scalar.INT, Scalar.BOOL
PRIMARY, UNARY, BINARY = 2, 1, 0
COMPONENTS = "xyzw"
# IR scalar -> WGSL type per width (index 0 unused)
WGSL_TYPES = {
    FLOAT: (None, "f32", "vec2<f32>", "vec3<f32>", "vec4<f32>"),
    INT: (None, "i32", "vec2<i32>", "vec3<i32>", "vec4<i32>"),
    BOOL: (None, "bool", "vec2<bool>", "vec3<bool>", "vec4<bool>"),
}
FUNCS = {
    Code.FABS: "abs", Code.FFLOOR: "floor", Code.FFRACT: "fract", Code.FEXP2: "exp2", Code.FLOG2: "log2",
    Code.FSQRT: "sqrt", Code.FRSQ: "inverseSqrt", Code.FSIN: "sin", Code.FCOS: "cos", Code.FSIGN: "sign",
    Code.FMIN: "min", Code.FMAX: "max", Code.FPOW: "pow", Code.FCLAMP: "clamp", Code.FROUND_EVEN: "round",
    Code.BANY: "any",
}
INFIX = {Code.FADD: "+", Code.FSUB: "-", Code.FMUL: "*", Code.FDIV: "/", Code.IADD: "+", Code.IMUL: "*",
         Code.FLT: "<", Code.FLE: "<=", Code.FGT: ">", Code.FGE: ">=", Code.FEQ: "==",
         Code.ILT: "<", Code.ILE: "<=", Code.IGT: ">", Code.IGE: ">=", Code.IEQ: "==", Code.INE: "!="}
HELPERS = {Code.FSATURATE: "saturate", Code.FMUL_LEGACY: "mul_legacy", Code.FDOT_LEGACY: "dot_legacy"}
DERIVATIVES = {Code.FDDX: "dpdx", Code.FDDY: "dpdy"}
# The ops whose value WGSL would fold at shader creation when every operand
# is a literal (and refuse on an overflow): all but these.
FOLD_SAFE = frozenset({Code.CONST, Code.SWIZZLE, Code.CONSTRUCT, Code.LOAD, Code.SAMPLE})
TEXTURE_DIMS = {"sampler2D": 2, "samplerCube": 3, "sampler3D": 3, "sampler2DShadow": 3}
FILES = layout_mod.FILE_BINDING
CONST, LOAD, SWIZZLE, CONSTRUCT = Code.CONST, Code.LOAD, Code.SWIZZLE, Code.CONSTRUCT
# width -> write mask -> the components it writes; swizzle suffixes by components
STORE_COMPONENTS = tuple(tuple(tuple(i for i in range(w) if m >> i & 1) for m in range(16)) for w in range(5))
IDENTITY = tuple(tuple(range(w)) for w in range(5))
SUFFIXES: dict[tuple[int, ...], str] = {}


def wgsl_type(t: Type) -> str:
    return WGSL_TYPES[t.scalar][t.width]


def _wrap(e: tuple[str, int]) -> str:
    return e[0] if e[1] >= PRIMARY else f"({e[0]})"


def _call(name: str, args) -> tuple[str, int]:
    return f"{name}({', '.join(a[0] for a in args)})", PRIMARY


class Emitter:
    def __init__(self, program: Program, target: Target, options):
        self.p = program
        self.t = target
        self.o = options
        self.fragment = program.is_pixel
        self.helpers: set[tuple[str, int]] = set()
        self.floats: dict = {}
        self.texts: dict = {}  # var or (var, element) -> its WGSL text (var_text)
        self.loads: dict = {}  # the same -> its value's text (a b# register read as a bool)
        self.annotate = bool(getattr(options, "annotate", False))

    def unsupported(self, op: Op | None, reason: str) -> UnsupportedError:
        return unsupported(self.p, self.t, op, reason)

    # -- whole program ------------------------------------------------------

    def run(self) -> tuple[str, dict]:
        p = self.p
        analyses = {}
        calls = False
        for name, fn in p.functions.items():
            analyses[name] = found = analyse(fn.body)
            _break_folding(fn.body, found)
            calls = calls or found.calls
        lay = self.lay = layout_mod.plan(p, self.t, self.o)
        self.mod = module.Module(p, lay, self.o)
        order = cfg.call_order(p) if calls else ["main"]
        self.fn_names = {name: self.mod.function_name(name) for name in order}
        functions = []
        for name in order:
            functions.append((self.fn_names[name], self.function(p.functions[name], analyses[name])))
        derivative, flow = uniformity.survey(p) if self.fragment else (False, False)
        directive = derivative and flow
        derivative_ops = uniformity.divergent_derivatives(p) if directive else []
        code = self.mod.render(functions, self.helper_sources(), directive=directive)
        if derivative_ops:
            names = ", ".join(self.where(op) for op in derivative_ops[:8])
            more = f" and {len(derivative_ops) - 8} more" if len(derivative_ops) > 8 else ""
            self.mod.diagnostics.append(
                f"wgsl: {names}{more} {'takes' if len(derivative_ops) == 1 else 'take'} implicit derivatives "
                "(dsx/dsy or a texture level of detail) where "
                "neighbouring pixels may take different paths; WGSL requires uniform control flow there, so the "
                "module turns its derivative_uniformity check off: as in D3D9 and GLSL, those derivatives are "
                "undefined where the pixels of a 2x2 quad diverge")
        if self.mod.diagnostics:
            p.notes.setdefault("diagnostics", []).extend(self.mod.diagnostics)
        front = (p.notes.get("io") or {}).get("front_face")
        if front is not None:
            # WebGPU's frontFace winding is as seen with row 0 at the top:
            # D3D's clockwise front faces stay clockwise when the image lies as D3D's
            front["webgpu"] = "cw" if self.o.flip_y else "ccw"
        return code, self.mod.reflection()

    def where(self, op: Op) -> str:
        if 0 <= op.origin < len(self.p.instructions):
            return f"'{self.p.instructions[op.origin].info.mnemonic}' (instruction {op.origin + 1})"
        return f"'{op.code.value}'"

    # -- one function -------------------------------------------------------

    def function(self, fn, analysis) -> list[str]:
        uses = analysis.uses
        self.inline = analysis.inline
        self.names: dict[Op, str] = {}
        self.annotated: set[int] = set()
        lines: list[str] = []
        depth = 1
        for op in filterfalse(self.inline.__contains__, fn.body):  # every op but the inlined values
            code = op.code
            if op.type is not None:
                if op not in uses:
                    continue
                name = self.mod.namer.fresh(f"t{len(self.names)}")
                stmt = f"let {name}: {wgsl_type(op.type)} = {self.expr(op)[0]};"
                self.names[op] = name
            elif code is Code.STORE:
                stmt = self.store(op)
            elif code is Code.IF:
                stmt = f"if ({self.operand(op.args[0])[0]}) {{"
            elif code is Code.ELSE:
                depth -= 1
                stmt = "} else {"
            elif code is Code.ENDIF or code is Code.ENDLOOP:
                depth -= 1
                stmt = "}"
            elif code is Code.LOOP:
                stmt = "loop {"
            elif code is Code.BREAK:
                stmt = "break;"
            elif code is Code.RETURN:
                stmt = "return;"
            elif code is Code.CALL:
                stmt = f"{self.fn_names[op.imm[0]]}();"
            elif code is Code.DISCARD:
                if not self.fragment:
                    raise self.unsupported(op, "discard in a vertex shader")
                stmt = "discard;"
            else:
                raise self.unsupported(op, f"the backend cannot print '{code.value}' (a D3D op left by the passes?)")
            if self.annotate:
                for origin in self.origins(op):
                    lines.append(("    " * depth + "// " + self.instruction_text(origin)).rstrip())
            lines.append("    " * depth + stmt)
            if code is Code.IF or code is Code.ELSE or code is Code.LOOP:
                depth += 1
        return lines

    def origins(self, op: Op) -> list[int]:
        """The D3D instructions ``op`` and its inlined operands came from, not yet annotated."""
        found: set[int] = set()
        stack = [op]
        while stack:
            o = stack.pop()
            if o.origin >= 0 and o.origin not in self.annotated:
                found.add(o.origin)
            stack.extend(a for a in o.args if a in self.inline)
        self.annotated |= found
        return sorted(found)

    def instruction_text(self, origin: int) -> str:
        return instruction_text(self.p, origin)

    # -- statements ---------------------------------------------------------

    def store(self, op: Op) -> str:
        var = op.var
        imm = op.imm
        value = op.args[0]
        # the inlined value first: the common case, without operand()'s name lookup
        value = (self.expr(value) if value in self.inline else self.operand(value))[0]
        element = imm[1] if len(imm) > 1 else None
        if len(op.args) > 1:
            target = self.indexed(op, var, element, self.operand(op.args[1]))
        else:
            target = self.var_text(var, element)
        width = var.type.width
        mask = (imm[0] if imm else 0xF) & ((1 << width) - 1)
        comps = STORE_COMPONENTS[width][mask]
        if width == 1 or len(comps) == width:
            return f"{target} = {value};"
        if len(comps) == 1:
            return f"{target}.{COMPONENTS[comps[0]]} = {value};"
        # WGSL cannot assign to a swizzle: rebuild the vector from the new
        # components and the old ones
        parts, k = [], 0
        for i in range(width):
            if mask >> i & 1:
                parts.append(f"xl_s.{COMPONENTS[k]}")
                k += 1
            else:
                parts.append(f"{target}.{COMPONENTS[i]}")
        return f"{{ let xl_s = {value}; {target} = {wgsl_type(var.type)}({', '.join(parts)}); }}"

    def indexed(self, op: Op, var, element, index: tuple[str, int]) -> str:
        acc = self.lay.access[id(var)]
        if not acc.array:
            raise self.unsupported(op, f"dynamic index on {var.name}, which is not an array (relative pass missing?)")
        offset = (element or 0) - acc.base
        i = index[0] if offset == 0 else f"{_wrap(index)} {'+' if offset > 0 else '-'} {abs(offset)}"
        return self.mod.qualify(f"{acc.name}[{i}]" + acc.component)

    def var_text(self, var, element) -> str:
        """A variable (or one element of it) without a dynamic index, as WGSL
        reaches it: looked up once per shader."""
        key = var if element is None else (var, element)
        text = self.texts.get(key)
        if text is None:
            text = self.texts[key] = self.mod.text_of(var, element)
        return text

    # -- expressions --------------------------------------------------------

    def operand(self, v: Op) -> tuple[str, int]:
        name = self.names.get(v)
        if name is not None:
            return name, PRIMARY
        if v not in self.inline:
            raise self.unsupported(v, f"value '{v.code.value}' used before it is defined (IR invariant 2)")
        return self.expr(v)

    def expr(self, op: Op) -> tuple[str, int]:
        code = op.code
        if code is Code.CONST:
            return self.literal(op.type, op.imm)
        if code is Code.SWIZZLE:
            return self.swizzle(op)
        if code is Code.LOAD:
            if op.args:
                return self.load(op, op.imm[0] if op.imm else None, self.operand(op.args[0])), PRIMARY
            # the common read, a register without a dynamic index: printed once per shader
            key = (op.var, op.imm[0]) if op.imm else op.var
            text = self.loads.get(key)
            if text is None:
                text = self.loads[key] = self.load(op, op.imm[0] if op.imm else None, None)
            return text, PRIMARY
        inline = self.inline  # inlined args first: nearly all are, and operand() looks up names
        a = [self.expr(x) if x in inline else self.operand(x) for x in op.args]
        sym = INFIX.get(code)
        if sym is not None:
            return f"{_wrap(a[0])} {sym} {_wrap(a[1])}", BINARY
        fn = FUNCS.get(code)
        if fn is not None:
            if code is Code.BANY and op.args[0].type.width == 1:
                return a[0]
            return _call(fn, a)
        helper = HELPERS.get(code)
        if helper is not None:
            width = op.args[0].type.width
            self.helpers.add((helper, width))
            if helper == "dot_legacy":
                self.helpers.add(("mul_legacy", width))
            return _call(f"xl_{helper}{width}", a)
        t = op.type
        if code is Code.FNEG:
            return f"-{_wrap(a[0])}", UNARY
        if code is Code.FMAD:
            return f"({_wrap(a[0])} * {_wrap(a[1])}) + {_wrap(a[2])}", BINARY
        if code is Code.FRCP:
            one = "1.0" if t.width == 1 else f"{wgsl_type(t)}(1.0)"
            return f"{one} / {_wrap(a[0])}", BINARY
        if code is Code.FDOT:
            if op.args[0].type.width == 1:
                return f"{_wrap(a[0])} * {_wrap(a[1])}", BINARY
            return _call("dot", a)
        if code is Code.FNE:  # unordered: true where either side is NaN
            return f"!({_wrap(a[0])} == {_wrap(a[1])})", UNARY
        if code is Code.SELECT:
            return _call("select", [a[2], a[1], a[0]])
        if code is Code.BNOT:
            return f"!{_wrap(a[0])}", UNARY
        if code is Code.BAND or code is Code.BOR:
            sym = ("&&" if code is Code.BAND else "||") if t.width == 1 else ("&" if code is Code.BAND else "|")
            return f"{_wrap(a[0])} {sym} {_wrap(a[1])}", BINARY
        if code is Code.CONSTRUCT:
            if len(a) == 1 and op.args[0].type.width == t.width:
                return a[0]
            return _call(wgsl_type(t), a)
        if code is Code.B2F or code is Code.I2F:
            return _call(wgsl_type(t), a)
        if code is Code.F2I_FLOOR:
            return _call(wgsl_type(t), [_call("floor", a)])
        if code is Code.F2I_ROUND:
            return _call(wgsl_type(t), [_call("round", a)])
        if code in DERIVATIVES:
            if not self.fragment:
                raise self.unsupported(op, "screen-space derivatives in a vertex shader")
            return _call(DERIVATIVES[code], a)
        if code is Code.SAMPLE:
            return self.sample(op, a)
        raise self.unsupported(op, f"the backend cannot print '{code.value}' (a D3D op left by the passes?)")

    def load(self, op: Op, element, index) -> str:
        var = op.var
        if index is None:
            text = self.var_text(var, element)
        else:
            text = self.indexed(op, var, element, index)
        if var.storage is Storage.BOOL_CONST:
            return self.mod.bool_constant(text)
        return text

    def swizzle(self, op: Op) -> tuple[str, int]:
        src = op.args[0]
        comps = op.imm
        while src.code is Code.SWIZZLE and src not in self.names:
            comps = tuple(src.imm[c] for c in comps)
            src = src.args[0]
        name = self.names.get(src)
        if name is not None:
            base = name, PRIMARY
        elif src.code is Code.CONST:
            vals = list(src.imm) + [src.imm[-1]] * (src.type.width - len(src.imm))
            return self.literal(op.type, [vals[c] for c in comps])
        elif src in self.inline:
            base = self.expr(src)
        else:
            base = self.operand(src)  # (raises: used before it is defined)
        width = src.type.width
        if width == 1:
            if len(comps) == 1:
                return base
            return _call(wgsl_type(op.type), [base])
        comps = tuple(comps)
        if comps == IDENTITY[width]:
            return base
        suffix = SUFFIXES.get(comps)
        if suffix is None:
            suffix = SUFFIXES[comps] = "".join(COMPONENTS[c] for c in comps)
        return f"{base[0] if base[1] >= PRIMARY else f'({base[0]})'}.{suffix}", PRIMARY

    def literal(self, t: Type, values) -> tuple[str, int]:
        scalar = t.scalar
        if scalar is FLOAT:
            parts = [self.float_text(x) for x in values]
        elif scalar is INT:
            parts = [int_literal(x) for x in values]
        else:
            parts = ["true" if x else "false" for x in values]
        width = t.width
        if not parts:
            parts = ["0.0" if scalar is FLOAT else "0" if scalar is INT else "false"]
        parts = (parts + [parts[-1]] * width)[:width]
        if width == 1:
            p = parts[0]
            return p, (UNARY if p.startswith("-") or p.startswith("(") else PRIMARY)
        if len(set(parts)) == 1:
            return f"{wgsl_type(t)}({parts[0]})", PRIMARY
        return f"{wgsl_type(t)}({', '.join(parts)})", PRIMARY

    def float_text(self, x) -> str:
        if x == 0:
            return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
        text = self.floats.get(x)
        if text is None:
            v = to_f32(float(x))
            if math.isinf(v) or math.isnan(v):
                # no literal, and a const-expression infinity is an error
                self.helpers.add(("f32_bits", 1))
                text = f"xl_f32_bits(0x{f32_bits(v):08X}u)"
            else:
                text = float_literal(v, bits_builtins=True)
            self.floats[x] = text
        return text

    def sample(self, op: Op, a: list) -> tuple[str, int]:
        kind = op.imm[0]
        texture, sampler, decl_type = self.mod.texture_of(op.var)
        dim = TEXTURE_DIMS[decl_type]
        coord = self.fit(op, op.args[0], a[0], dim)
        if len(op.imm) > 2:  # draw-time sampler state (Options.draw_state): a shadow compare or FETCH4
            return self.sample_mode(op, a, texture, sampler, decl_type, coord)
        if decl_type == "sampler2DShadow":
            raise self.unsupported(op, f"a lookup without a depth compare through {texture}, a depth texture")
        head = [(texture, PRIMARY), (sampler, PRIMARY), coord]
        if kind is SampleKind.PLAIN:
            if not self.fragment:  # no implicit derivatives in a vertex shader: level 0, as GLSL's texture()
                return _call("textureSampleLevel", head + [("0.0", PRIMARY)])
            return _call("textureSample", head)
        if kind is SampleKind.BIAS:
            if not self.fragment:
                raise self.unsupported(op, "a LOD bias in a vertex shader")
            return _call("textureSampleBias", head + [a[1]])
        if kind is SampleKind.LOD:
            return _call("textureSampleLevel", head + [a[1]])
        if kind is SampleKind.GRAD:
            return _call("textureSampleGrad", head + [self.fit(op, op.args[1], a[1], dim),
                                                      self.fit(op, op.args[2], a[2], dim)])
        raise self.unsupported(op, f"sample kind {kind}")

    def sample_mode(self, op: Op, a: list, texture: str, sampler: str, decl_type: str, coord) -> tuple[str, int]:
        """A shadow compare (LESS_EQUAL against the coordinate's z; the 0/1
        result, filtered by the sampler, in every component) or ATI FETCH4
        (the red channels of the 2x2 footprint a point sample's texel starts,
        in FETCH4's order: a gather half a texel on, swizzled zxyw; base level)."""
        mode, kind = op.imm[2], op.imm[0]
        if mode is SampleMode.DEPTH_COMPARE:
            if decl_type != "sampler2DShadow":
                raise self.unsupported(op, f"a depth compare through {texture}, declared {decl_type}")
            c = _wrap(coord)
            head = f"{texture}, {sampler}, {c}.xy, {c}.z"
            if kind is SampleKind.PLAIN and self.fragment:
                return f"vec4<f32>(textureSampleCompare({head}))", PRIMARY
            level_zero = kind is SampleKind.LOD and op.args[1].code is Code.CONST and not any(op.args[1].imm)
            if not (kind is SampleKind.PLAIN or level_zero):
                if kind is SampleKind.BIAS and not self.fragment:
                    raise self.unsupported(op, "a LOD bias in a vertex shader")
                # WGSL compares depth at level 0 only (textureSampleCompareLevel):
                # exact for a depth texture of one level, as D3D9 shadow maps are
                self.mod.diagnostics.append(
                    f"wgsl: {self.where(op)} compares depth with a {kind.value} level of detail; WGSL compares "
                    "at level 0 only, so it reads the depth texture's base level (exact for a depth texture "
                    "with one mip level)")
            if kind is not SampleKind.PLAIN or not self.fragment:
                return f"vec4<f32>(textureSampleCompareLevel({head}))", PRIMARY
            return f"vec4<f32>(textureSampleCompare({head}))", PRIMARY
        if mode is SampleMode.GATHER4:
            if decl_type != "sampler2D":
                raise self.unsupported(op, f"FETCH4 through {texture}, declared {decl_type}")
            return (f"textureGather(0, {texture}, {sampler}, {_wrap(coord)} + 0.5 / "
                    f"vec2<f32>(textureDimensions({texture}, 0))).zxyw", PRIMARY)
        raise self.unsupported(op, f"sample mode {mode}")

    def fit(self, op: Op, v: Op, e: tuple[str, int], width: int) -> tuple[str, int]:
        w = v.type.width
        if w == width:
            return e
        if w > width:
            return f"{_wrap(e)}.{COMPONENTS[:width]}", PRIMARY
        raise self.unsupported(op, f"a {w}-component texture coordinate where {width} are needed")

    # -- helpers ------------------------------------------------------------

    def helper_sources(self) -> list[str]:
        order = {"f32_bits": 0, "mul_legacy": 1, "dot_legacy": 2, "saturate": 3}
        return [HELPER_SOURCE[key](key[1]) for key in sorted(self.helpers, key=lambda k: (order[k[0]], k[1]))]


def _saturate(width: int) -> str:
    t = WGSL_TYPES[FLOAT][width]
    zero, one = ("0.0", "1.0") if width == 1 else (f"{t}(0.0)", f"{t}(1.0)")
    # NaN -> 0 (the comparison is false), unlike WGSL's saturate()
    return f"fn xl_saturate{width}(x: {t}) -> {t} {{ return select({zero}, min(x, {one}), x > {zero}); }}"


def _mul_legacy(width: int) -> str:
    t = WGSL_TYPES[FLOAT][width]
    zero = "0.0" if width == 1 else f"{t}(0.0)"
    either = "||" if width == 1 else "|"
    return (f"fn xl_mul_legacy{width}(a: {t}, b: {t}) -> {t} {{ "
            f"return select(a * b, {zero}, (a == {zero}) {either} (b == {zero})); }}")


def _dot_legacy(width: int) -> str:
    t = WGSL_TYPES[FLOAT][width]
    if width == 1:
        return f"fn xl_dot_legacy1(a: f32, b: f32) -> f32 {{ return xl_mul_legacy1(a, b); }}"
    terms = " + ".join(f"p.{c}" for c in COMPONENTS[:width])
    return f"fn xl_dot_legacy{width}(a: {t}, b: {t}) -> f32 {{ let p = xl_mul_legacy{width}(a, b); return {terms}; }}"


def _f32_bits(width: int) -> str:
    # a function call is never a const-expression: the infinity is made at run time
    return "fn xl_f32_bits(b: u32) -> f32 { return bitcast<f32>(b); }"


# (helper, width) -> the function writing its source for that width
HELPER_SOURCE = {
    **{("saturate", w): _saturate for w in range(1, 5)},
    **{("mul_legacy", w): _mul_legacy for w in range(1, 5)},
    **{("dot_legacy", w): _dot_legacy for w in range(1, 5)},
    ("f32_bits", 1): _f32_bits,
}


def _constish(op: Op, inline: set) -> bool:
    """Whether ``op`` prints as a WGSL const- or override-expression
    (literals and draw-state overrides only)."""
    if op.code is Code.CONST:
        return op in inline
    if op.code is Code.LOAD:
        return op in inline and op.var.storage is Storage.STATE and not op.args
    if op.code is Code.SWIZZLE or op.code is Code.CONSTRUCT:
        return op in inline and all(_constish(a, inline) for a in op.args)
    return False


def _break_folding(body: list[Op], analysis) -> None:
    """An op of literals only would be folded by WGSL at shader creation
    (of overrides only, at pipeline creation), where an overflow or infinity
    is an error (``1.0 / 0.0``): its first literal (or override) becomes a
    ``let`` instead, so the op is computed at run time."""
    inline = analysis.inline
    for op in body:
        if op.type is None or op.code in FOLD_SAFE or not op.args:
            continue
        for a in op.args:  # (most operands are no literal: the cheap test first)
            code = a.code
            if (code is not CONST and code is not LOAD and code is not SWIZZLE and code is not CONSTRUCT) \
                    or not _constish(a, inline):
                break
        else:
            base = op.args[0]
            while base.code is not Code.CONST and base.code is not Code.LOAD:
                base = base.args[0]
            inline.discard(base)
            analysis.uses[base] += 1  # printed (an unused value is skipped)


def emit(program: Program, target: Target, options) -> tuple[str, dict]:
    """The WGSL of ``program`` (through the passes) and the layout's reflection with WGSL's facts."""
    return Emitter(program, target, options).run()
