"""Core IR -> GLSL text (every GLSL target, and the input of the SPIR-V one).

The emitter only prints: every D3D rule has been spelled out in core ops by
the passes.  Values become expressions; a value used once, in the same
straight-line stretch of code, with nothing in between that could change
what it reads, is inlined into its user; every other value is a local
``T tN = ...;`` named in order of appearance.  The output is a pure
function of the program and the options (same input, same bytes).

Declarations, precision and the file skeleton come from the Jinja2
templates (``templates/glsl/``); this module produces the function bodies
and the data the templates lay out.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from ..errors import UnsupportedError
from ..ir import cfg
from ..ir.ops import Code, Op, SampleKind
from ..ir.program import Program, Storage
from ..ir.types import Type
from . import helpers, layout as layout_mod, templates
from .layout import Layout, glsl_type
from .literals import bool_literal, float_literal, int_literal
from .targets import Target

# Operator precedence (higher binds tighter), as in the GLSL grammar.
PRIMARY, UNARY, MUL, ADD, REL, EQ, AND, OR, TERNARY = 16, 15, 14, 13, 11, 10, 6, 4, 2

CONTROL = {Code.IF, Code.ELSE, Code.ENDIF, Code.LOOP, Code.ENDLOOP, Code.BREAK, Code.RETURN, Code.CALL}
WRITABLE = {Storage.TEMP, Storage.ADDRESS, Storage.LOOP_COUNTER, Storage.PREDICATE, Storage.LOCAL, Storage.OUTPUT}
FUNCS = {
    Code.FABS: "abs", Code.FFLOOR: "floor", Code.FFRACT: "fract", Code.FEXP2: "exp2", Code.FLOG2: "log2",
    Code.FSQRT: "sqrt", Code.FRSQ: "inversesqrt", Code.FSIN: "sin", Code.FCOS: "cos", Code.FSIGN: "sign",
    Code.FMIN: "min", Code.FMAX: "max", Code.FPOW: "pow", Code.FCLAMP: "clamp",
}
BINARY = {Code.FADD: ("+", ADD), Code.FSUB: ("-", ADD), Code.FMUL: ("*", MUL), Code.FDIV: ("/", MUL),
          Code.IADD: ("+", ADD), Code.IMUL: ("*", MUL)}
COMPARE = {
    Code.FLT: ("<", REL, "lessThan"), Code.FLE: ("<=", REL, "lessThanEqual"),
    Code.FGT: (">", REL, "greaterThan"), Code.FGE: (">=", REL, "greaterThanEqual"),
    Code.FEQ: ("==", EQ, "equal"), Code.FNE: ("!=", EQ, "notEqual"),
    Code.ILT: ("<", REL, "lessThan"), Code.ILE: ("<=", REL, "lessThanEqual"),
    Code.IGT: (">", REL, "greaterThan"), Code.IGE: (">=", REL, "greaterThanEqual"),
    Code.IEQ: ("==", EQ, "equal"), Code.INE: ("!=", EQ, "notEqual"),
}
MAX_INLINE_DEPTH = 10  # keeps expressions readable and parser stacks shallow
ES100_LOOP_BOUND = 256  # D3D9 rep/loop counts are 0-255 (semantics 4.1): 255 bodies + the exit test


@dataclass
class Expr:
    text: str
    prec: int = PRIMARY


def _wrap(e: Expr, need: int) -> str:
    return e.text if e.prec >= need else f"({e.text})"


@dataclass
class Output:
    code: str
    reflection: dict


class Emitter:
    def __init__(self, program: Program, target: Target, options):
        self.p = program
        self.t = target
        self.o = options
        self.lay: Layout = layout_mod.plan(program, target, options)
        self.namer = self.lay.namer
        self.helpers = helpers.Helpers(target)
        self.extensions: list[str] = list(self.lay.extensions)
        self.fragment = program.is_pixel
        self.annotate = bool(getattr(options, "annotate", False))
        self.loop_counter = 0
        self.fn_names: dict[str, str] = {}

    # -- errors -------------------------------------------------------------

    def unsupported(self, op: Op | None, reason: str) -> UnsupportedError:
        offset, where = -1, ""
        if op is not None and 0 <= op.origin < len(self.p.instructions):
            inst = self.p.instructions[op.origin]
            offset = inst.offset
            where = f"'{inst.info.mnemonic}' (instruction {op.origin + 1}): "
        return UnsupportedError(offset, f"{where}{self.t.name}: {reason}")

    def need_extension(self, name: str) -> None:
        if name not in self.extensions:
            self.extensions.append(name)

    # -- whole program ------------------------------------------------------

    def run(self) -> Output:
        order = cfg.call_order(self.p)
        for name in order:
            self.fn_names[name] = "main" if name == "main" else self.namer.name(name)
        functions = []
        for name in order:
            fn = self.p.functions[name]
            functions.append({"name": self.fn_names[name], "lines": self.function(fn)})
        refl = self.lay.reflection
        refl["extensions"] = sorted(self.extensions)
        code = templates.render_shader(
            target=self.t, stage=self.lay.stage, program=self.p, layout=self.lay,
            extensions=self.extensions, helpers=self.helpers.sources(), functions=functions,
        )
        return Output(code, refl)

    # -- one function -------------------------------------------------------

    def function(self, fn) -> list[str]:
        body = fn.body
        n = len(body)
        CALL, STORE, CONST, LOAD = Code.CALL, Code.STORE, Code.CONST, Code.LOAD
        uses: dict[int, list[int]] = {}
        stores: dict[int, list[int]] = {}
        # next_barrier[i] / next_call[i]: the first control op / CALL after
        # position i (n when none): "nothing in between" is a lookup
        next_barrier = [n] * (n + 1)
        next_call = [n] * (n + 1)
        for i, op in enumerate(body):
            for a in op.args:
                k = id(a)
                u = uses.get(k)
                if u is None:
                    uses[k] = [i]
                else:
                    u.append(i)
            if op.code is STORE and op.var is not None:
                stores.setdefault(id(op.var), []).append(i)
        nb = nc = n
        for i in range(n - 1, -1, -1):
            next_barrier[i] = nb
            next_call[i] = nc
            code = body[i].code
            if code in CONTROL:
                nb = i
                if code is CALL:
                    nc = i
        self.uses = uses

        def clear(lo: int, hi: int, positions: list[int]) -> bool:
            k = bisect.bisect_right(positions, lo)
            return k >= len(positions) or positions[k] >= hi

        # Decide, in body order, which values are inlined into their user.
        inline: set[int] = set()
        reads_of: dict[int, frozenset] = {}  # id(value) -> ids of writable vars it (with inlined args) reads
        depth_of: dict[int, int] = {}
        self.inline = inline
        self.reads = reads_of
        self.depth = depth_of
        empty: frozenset = frozenset()
        for i, op in enumerate(body):
            if op.type is None:
                continue
            reads = empty
            depth = 0
            if op.code is LOAD and op.var is not None and op.var.storage in WRITABLE:
                reads = frozenset((id(op.var),))
            for a in op.args:
                k = id(a)
                if k in inline:
                    r = reads_of[k]
                    if r:
                        reads = reads | r if reads else r
                    d = depth_of[k] + 1
                    if d > depth:
                        depth = d
            k = id(op)
            reads_of[k] = reads
            depth_of[k] = depth
            if op.code is CONST:
                inline.add(k)
                continue
            users = uses.get(k)
            if users is None or len(users) != 1 or depth >= MAX_INLINE_DEPTH:
                continue
            u = users[0]
            if body[u].code is CALL or next_barrier[i] < u:
                continue
            if reads and (next_call[i] < u or any(not clear(i, u, stores.get(v, ())) for v in reads)):
                continue
            inline.add(k)

        self.names: dict[int, str] = {}
        self.exprs: dict[int, Expr] = {}
        lines: list[str] = []
        depth = 1
        indent = "    "
        self.annotated: set[int] = set()
        annotate = self.annotate
        statement = self.statement
        append = lines.append
        for op in body:
            code = op.code
            if op.type is not None and (id(op) in inline or id(op) not in uses):
                continue
            if code is Code.ELSE or code is Code.ENDIF or code is Code.ENDLOOP:
                depth -= 1
                indent = "    " * depth
            stmt = statement(op)
            if annotate:
                for origin in self.origins(op):
                    append(indent + "// " + self.instruction_text(origin))
            append(indent + stmt)
            if code is Code.IF or code is Code.ELSE or code is Code.LOOP:
                depth += 1
                indent = "    " * depth
        return lines

    def origins(self, op: Op) -> list[int]:
        found: set[int] = set()
        stack = [op]
        while stack:
            o = stack.pop()
            if o.origin >= 0 and o.origin not in self.annotated:
                found.add(o.origin)
            stack.extend(a for a in o.args if id(a) in self.inline)
        self.annotated |= found
        return sorted(found)

    def instruction_text(self, origin: int) -> str:
        inst = self.p.instructions[origin]
        try:
            from ..bytecode.disasm import format_instruction

            return format_instruction(inst, self.p.version)
        except Exception:  # noqa: BLE001 - annotations must never break a translation
            return inst.info.mnemonic

    # -- statements ---------------------------------------------------------

    def statement(self, op: Op) -> str:
        code = op.code
        if op.is_value:
            name = self.namer.name(f"t{len(self.names)}")
            self.names[id(op)] = name
            text = f"{glsl_type(op.type)} {name} = {self.expr(op, top=True).text};"
            return text
        if code is Code.STORE:
            return self.store(op)
        if code is Code.DISCARD:
            if not self.fragment:
                raise self.unsupported(op, "discard in a vertex shader")
            return "discard;"
        if code is Code.IF:
            return f"if ({self.arg(op, 0).text}) {{"
        if code is Code.ELSE:
            return "} else {"
        if code in (Code.ENDIF, Code.ENDLOOP):
            return "}"
        if code is Code.LOOP:
            if self.t.appendix_a:
                n = self.namer.name(f"xl_loop{self.loop_counter}")
                self.loop_counter += 1
                return f"for (int {n} = 0; {n} < {ES100_LOOP_BOUND}; ++{n}) {{"
            return "for (;;) {"
        if code is Code.BREAK:
            return "break;"
        if code is Code.RETURN:
            return "return;"
        if code is Code.CALL:
            return f"{self.fn_names[op.imm[0]]}();"
        raise self.unsupported(op, f"the backend cannot print '{code.value}' (a D3D op left by the passes?)")

    def store(self, op: Op) -> str:
        var = op.var
        mask = op.imm[0] if op.imm else 0xF
        element = op.imm[1] if len(op.imm) > 1 else None
        value = self.arg(op, 0)
        index = self.arg(op, 1) if len(op.args) > 1 else None
        target = self.lvalue(op, var, element, index)
        if var.type.width == 1:
            return f"{target} = {value.text};"
        comps = "".join(c for i, c in enumerate("xyzw"[: var.type.width]) if mask & (1 << i))
        if len(comps) == var.type.width:
            return f"{target} = {value.text};"
        return f"{target}.{comps} = {value.text};"

    def lvalue(self, op: Op, var, element, index: Expr | None) -> str:
        acc = self.lay.access[id(var)] if index is not None else self.lay.of(var, element)
        if index is not None:
            if not acc.array:
                raise self.unsupported(op, f"dynamic index on {var.name}, which is not an array (relative pass missing?)")
            if self.t.appendix_a:
                raise self.unsupported(op, "GLSL ES 1.00 (Appendix A) cannot index a temporary array dynamically")
            return f"{acc.name}[{self.index_text(index, (element or 0) - acc.base)}]" + acc.component
        if acc.array:
            return f"{acc.name}[{(element or 0) - acc.base}]" + acc.component
        return acc.name + acc.component

    @staticmethod
    def index_text(index: Expr, offset: int) -> str:
        if offset == 0:
            return index.text
        return f"{_wrap(index, ADD)} + {offset}" if offset > 0 else f"{_wrap(index, ADD)} - {-offset}"

    # -- expressions --------------------------------------------------------

    def arg(self, op: Op, n: int) -> Expr:
        return self.value(op.args[n])

    def value(self, v: Op) -> Expr:
        name = self.names.get(id(v))
        if name is not None:
            return Expr(name)
        if id(v) not in self.inline:
            raise self.unsupported(v, f"value '{v.code.value}' used before it is defined (IR invariant 2)")
        return self.expr(v)

    def literal(self, t: Type, values) -> Expr:
        values = list(values)
        if t.is_float:
            parts = [float_literal(x, bits_builtins=self.t.glsl130_builtins) for x in values]
        elif t.is_int:
            parts = [int_literal(x) for x in values]
        else:
            parts = [bool_literal(x) for x in values]
        if len(parts) < t.width:
            parts = parts + [parts[-1]] * (t.width - len(parts)) if parts else ["0"] * t.width
        if t.width == 1:
            p = parts[0]
            return Expr(p, UNARY if p.startswith("-") else PRIMARY)
        if len(set(parts)) == 1:
            return Expr(f"{glsl_type(t)}({parts[0]})")
        return Expr(f"{glsl_type(t)}({', '.join(parts[: t.width])})")

    def call(self, name: str, *args: Expr) -> Expr:
        return Expr(f"{name}({', '.join(a.text for a in args)})")

    def expr(self, op: Op, top: bool = False) -> Expr:
        code = op.code
        t = op.type
        a = [self.value(x) for x in op.args] if code is not Code.SWIZZLE else None
        if code is Code.CONST:
            return self.literal(t, op.imm)
        if code is Code.LOAD:
            index = a[0] if a else None
            element = op.imm[0] if op.imm else None
            return Expr(self.rvalue(op, element, index))
        if code is Code.SWIZZLE:
            return self.swizzle(op)
        if code is Code.CONSTRUCT:
            return self.call(glsl_type(t), *a)
        if code is Code.FNEG:
            return self.negate(a[0])
        if code in BINARY:
            sym, prec = BINARY[code]
            return Expr(f"{_wrap(a[0], prec)} {sym} {_wrap(a[1], prec + 1)}", prec)
        if code is Code.FMAD:
            return Expr(f"{_wrap(a[0], MUL)} * {_wrap(a[1], MUL + 1)} + {_wrap(a[2], ADD + 1)}", ADD)
        if code in FUNCS:
            return self.call(FUNCS[code], *a)
        if code is Code.FRCP:
            return Expr(f"1.0 / {_wrap(a[0], MUL + 1)}", MUL)
        if code is Code.FFRACT:
            return self.call("fract", *a)
        if code is Code.FSATURATE:
            return self.call(self.helpers.use("saturate", t), *a)
        if code is Code.FMUL_LEGACY:
            return self.call(self.helpers.use("mul_legacy", t), *a)
        if code is Code.FDOT:
            if op.args[0].type.width == 1:
                return Expr(f"{_wrap(a[0], MUL)} * {_wrap(a[1], MUL + 1)}", MUL)
            return self.call("dot", *a)
        if code is Code.FDOT_LEGACY:
            return self.call(self.helpers.use("dot_legacy", op.args[0].type), *a)
        if code is Code.FROUND_EVEN:
            if self.t.glsl130_builtins:
                return self.call("roundEven", *a)
            return self.call(self.helpers.use("round_even", t), *a)
        if code in (Code.FDDX, Code.FDDY):
            if not self.fragment:
                raise self.unsupported(op, "screen-space derivatives in a vertex shader")
            if self.t.es and self.t.version < 300:
                self.need_extension("GL_OES_standard_derivatives")
            return self.call("dFdx" if code is Code.FDDX else "dFdy", *a)
        if code in COMPARE:
            sym, prec, fn = COMPARE[code]
            if op.args[0].type.width == 1:
                return Expr(f"{_wrap(a[0], prec)} {sym} {_wrap(a[1], prec + 1)}", prec)
            return self.call(fn, *a)
        if code is Code.SELECT:
            return self.select(op, a)
        if code is Code.BNOT:
            if t.width == 1:
                return Expr(f"!{_wrap(a[0], UNARY)}", UNARY)
            return self.call("not", *a)
        if code in (Code.BAND, Code.BOR):
            if t.width == 1:
                sym, prec = ("&&", AND) if code is Code.BAND else ("||", OR)
                return Expr(f"{_wrap(a[0], prec)} {sym} {_wrap(a[1], prec + 1)}", prec)
            return self.call(self.helpers.use("and" if code is Code.BAND else "or", t), *a)
        if code is Code.BANY:
            return a[0] if op.args[0].type.width == 1 else self.call("any", *a)
        if code in (Code.B2F, Code.I2F):
            return self.call(glsl_type(t), *a)
        if code is Code.F2I_FLOOR:
            return self.call(glsl_type(t), self.call("floor", *a))
        if code is Code.F2I_ROUND:
            rounded = (self.call("roundEven", *a) if self.t.glsl130_builtins
                       else self.call(self.helpers.use("round_even", op.args[0].type), *a))
            return self.call(glsl_type(t), rounded)
        if code is Code.SAMPLE:
            return self.sample(op, a)
        raise self.unsupported(op, f"the backend cannot print '{code.value}' (a D3D op left by the passes?)")

    def negate(self, e: Expr) -> Expr:
        inner = _wrap(e, UNARY)
        if inner.startswith("-"):
            inner = f"({e.text})"
        return Expr(f"-{inner}", UNARY)

    def rvalue(self, op: Op, element, index: Expr | None) -> str:
        var = op.var
        acc = self.lay.access[id(var)] if index is not None else self.lay.of(var, element)
        if index is not None:
            if not acc.array:
                raise self.unsupported(op, f"dynamic index on {var.name}, which is not an array (relative pass missing?)")
            uniform = var.storage in layout_mod.FILE_BINDING
            if self.t.appendix_a and (not uniform or self.fragment):
                what = "a uniform array in a fragment shader" if uniform else "a temporary array"
                raise self.unsupported(op, f"GLSL ES 1.00 (Appendix A) cannot index {what} dynamically")
            return f"{acc.name}[{self.index_text(index, (element or 0) - acc.base)}]" + acc.component
        if acc.array:
            return f"{acc.name}[{(element or 0) - acc.base}]" + acc.component
        return acc.name + acc.component

    def swizzle(self, op: Op) -> Expr:
        src = op.args[0]
        comps = tuple(op.imm)
        # fold swizzles of swizzles and of constants
        while src.code is Code.SWIZZLE and id(src) not in self.names:
            comps = tuple(src.imm[c] for c in comps)
            src = src.args[0]
        if src.code is Code.CONST and id(src) not in self.names:
            vals = list(src.imm) + [src.imm[-1]] * (src.type.width - len(src.imm))
            return self.literal(op.type, [vals[c] for c in comps])
        base = self.value(src)
        width = src.type.width
        if comps == tuple(range(width)) and len(comps) == width:
            return base
        if width == 1:
            if len(comps) == 1:
                return base
            return Expr(f"{glsl_type(op.type)}({base.text})")
        return Expr(f"{_wrap(base, PRIMARY)}.{''.join('xyzw'[c] for c in comps)}")

    def select(self, op: Op, a: list[Expr]) -> Expr:
        cond_w = op.args[0].type.width
        t = op.type
        if cond_w == 1:
            return Expr(f"{_wrap(a[0], OR + 1)} ? {_wrap(a[1], TERNARY + 1)} : {_wrap(a[2], TERNARY)}", TERNARY)
        if t.is_float and self.t.glsl130_builtins:
            return self.call("mix", a[2], a[1], a[0])
        return self.call(self.helpers.use("select", t), *a)

    def sample(self, op: Op, a: list[Expr]) -> Expr:
        kind, _stype = op.imm[0], (op.imm[1] if len(op.imm) > 1 else None)
        var = op.var
        decl_type = next(d.type for d in self.lay.decls if d.kind == "sampler" and d.name == self.lay.access[id(var)].name)
        dim = {"sampler2D": 2, "samplerCube": 3, "sampler3D": 3}[decl_type]
        short = {"sampler2D": "2D", "samplerCube": "Cube", "sampler3D": "3D"}[decl_type]
        coord = self.fit(op, op.args[0], a[0], dim)
        sampler = Expr(self.lay.access[id(var)].name)
        es1 = self.t.es and self.t.version < 300
        if decl_type == "sampler3D" and es1:
            self.need_extension("GL_OES_texture_3D")
        if kind is SampleKind.PLAIN:
            fn = "texture" if self.t.generic_texture else f"texture{short}"
            return self.call(fn, sampler, coord)
        if kind is SampleKind.BIAS:
            if not self.fragment:
                raise self.unsupported(op, "a LOD bias in a vertex shader")
            fn = "texture" if self.t.generic_texture else f"texture{short}"
            return self.call(fn, sampler, coord, a[1])
        if kind is SampleKind.LOD:
            if self.t.generic_texture:
                return self.call("textureLod", sampler, coord, a[1])
            if not self.fragment:
                if not self.t.es:  # core in 1.20 vertex shaders, but glslang wants the extension named
                    self.need_extension("GL_ARB_shader_texture_lod")
                return self.call(f"texture{short}Lod", sampler, coord, a[1])
            if es1:
                if decl_type == "sampler3D":
                    raise self.unsupported(op, "GLSL ES 1.00 has no explicit-LOD volume lookup in fragment shaders")
                self.need_extension("GL_EXT_shader_texture_lod")
                return self.call(f"texture{short}LodEXT", sampler, coord, a[1])
            self.need_extension("GL_ARB_shader_texture_lod")
            return self.call(f"texture{short}Lod", sampler, coord, a[1])
        if kind is SampleKind.GRAD:
            ddx = self.fit(op, op.args[1], a[1], dim)
            ddy = self.fit(op, op.args[2], a[2], dim)
            if self.t.generic_texture:
                return self.call("textureGrad", sampler, coord, ddx, ddy)
            if es1:
                if decl_type == "sampler3D":
                    raise self.unsupported(op, "GLSL ES 1.00 has no gradient volume lookup")
                self.need_extension("GL_EXT_shader_texture_lod")
                return self.call(f"texture{short}GradEXT", sampler, coord, ddx, ddy)
            self.need_extension("GL_ARB_shader_texture_lod")
            return self.call(f"texture{short}GradARB", sampler, coord, ddx, ddy)
        raise self.unsupported(op, f"sample kind {kind}")

    def fit(self, op: Op, v: Op, e: Expr, width: int) -> Expr:
        """A coordinate of exactly ``width`` components."""
        w = v.type.width
        if w == width:
            return e
        if w > width:
            if v.code is Code.CONST or (v.code is Code.SWIZZLE and id(v) not in self.names):
                sw = Op(Code.SWIZZLE, v.type.with_width(width), (v,), tuple(range(width)))
                self.inline.add(id(sw))
                return self.swizzle(sw)
            return Expr(f"{_wrap(e, PRIMARY)}.{'xyzw'[:width]}")
        raise self.unsupported(op, f"a {w}-component texture coordinate where {width} are needed")


def emit(program: Program, target: Target, options) -> Output:
    return Emitter(program, target, options).run()
