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

Speed (issue #3 wants a whole translation in well under a millisecond): per
function, uses are counted (``Counter``, in C), one walk decides what is
inlined (``inlining.analyse``, which keeps only the values that may still be inlined
so that most rules are tested once per value, not per use) and one prints
(``Emitter.function``, which visits only the ops that are not inlined);
how each op prints is a lookup in ``SHAPES`` / ``STATEMENTS`` (tables keyed
by ``Code``), and swizzle and store-mask suffixes are looked up whole
(``SUFFIXES``, ``STORE_MASKS``) rather than built.  Expressions are
``(text, precedence)`` tuples, the cheapest record Python builds.  The
choices were measured with instruction counts (valgrind), not assumed:
e.g. a list comprehension per expression costs more than the loop it
replaces (Python 3.11 builds a function object for it).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import filterfalse, product
from math import copysign

from ..errors import UnsupportedError
from ..ir import cfg
from ..ir.ops import Code, Op, SampleKind
from ..ir.program import Program
from ..ir.types import Scalar, Type
from . import helpers, layout as layout_mod, templates
from .annotations import instruction_text
from .inlining import Analysis, analyse
from .layout import GLSL_TYPES, Layout, glsl_type
from .literals import bool_literal, float_literal, int_literal
from .sampler_modes import sample_mode
from .targets import Target, unsupported

# Operator precedence (higher binds tighter), as in the GLSL grammar.
PRIMARY, UNARY, MUL, ADD, REL, EQ, AND, OR, TERNARY = 16, 15, 14, 13, 11, 10, 6, 4, 2

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
ES100_LOOP_BOUND = 256  # D3D9 rep/loop counts are 0-255 (semantics 4.1): 255 bodies + the exit test

COMPONENTS = "xyzw"
# component indices -> their letters ((0, 2) -> "xz"), for every swizzle
SWIZZLES = {comps: "".join(COMPONENTS[c] for c in comps) for n in range(1, 5) for comps in product(range(4), repeat=n)}
# [source width][component indices] -> what a swizzle appends: "" for the
# identity, ".xz" for (0, 2); a scalar's and out-of-range indices are left
# to Emitter.odd_swizzle
SUFFIXES = [None] + [
    {comps: "" if comps == tuple(range(w)) else "." + SWIZZLES[comps]
     for n in range(1, 5) for comps in product(range(w), repeat=n) if w > 1 or n == 1}
    for w in range(1, 5)
]
# [width][mask] -> the components a store writes: "" for the whole variable
STORE_MASKS = [None] + [
    {m: "" if w == 1 or len(comps) == w else "." + comps
     for m, comps in ((m, "".join(c for i, c in enumerate(COMPONENTS[:w]) if m & (1 << i))) for m in range(16))}
    for w in range(1, 5)
]
FLOAT, INT = Scalar.FLOAT, Scalar.INT
FLOAT_TYPES = GLSL_TYPES[FLOAT]
# Enum members the hot paths test are module globals: in Python 3.11 reading
# ``Code.X`` goes through EnumType.__getattr__, ten times a global's cost.
SWIZZLE, LOAD, CONST, STORE = Code.SWIZZLE, Code.LOAD, Code.CONST, Code.STORE
# With ``annotate``: the comment above a run of statements from no D3D
# instruction (ops of origin -1: the io pass's register-file copies and the
# position fix-ups closing a vertex shader), so that nothing reading the
# annotations credits them to the instruction before (xlate.report links
# listing and code by these comments).
SYNTHETIC_ANNOTATION = "(xlate: no D3D instruction)"
# ... and the prefix that names an instruction again above more of its code,
# when that code follows a synthetic run or lies past the end of the block
# its first comment opened (the aL restore after a loop is its endloop's).
CONTINUED_ANNOTATION = "(xlate: continued)"
OPENS = frozenset({Code.IF, Code.ELSE, Code.LOOP})  # the statements that indent what follows
CLOSES = frozenset({Code.ELSE, Code.ENDIF, Code.ENDLOOP})  # and those that end it
SAMPLER_DIMS = {"sampler2D": (2, "2D"), "samplerCube": (3, "Cube"), "sampler3D": (3, "3D")}


@dataclass(slots=True)
class Output:
    code: str
    reflection: dict


def _wrap(e: tuple[str, int], need: int) -> str:
    return e[0] if e[1] >= need else f"({e[0]})"


class Emitter:
    def __init__(self, program: Program, target: Target, options):
        self.p = program
        self.t = target
        self.o = options
        self.fragment = program.is_pixel
        self.annotate = bool(getattr(options, "annotate", False))
        self.bits = target.glsl130_builtins  # literals: inf/nan from their bits (1.30+)
        self.helpers = helpers.Helpers(target)
        self.loop_counter = 0
        self.fn_names: dict[str, str] = {}
        self.names: dict[Op, str] = {}  # value -> its local's name
        self.inline: set[Op] = set()  # the values printed inside their user
        self.plain: dict = {}  # Variable -> its text, for those that are not arrays (the layout's)
        self.texts: dict = {}  # Variable or (Variable, element) -> its text, for the others
        self.floats: dict = {}  # nonzero float -> its literal, for this shader

    # -- errors -------------------------------------------------------------

    def unsupported(self, op: Op | None, reason: str) -> UnsupportedError:
        return unsupported(self.p, self.t, op, reason)

    def need_extension(self, name: str) -> None:
        if name not in self.extensions:
            self.extensions.append(name)

    # -- whole program ------------------------------------------------------

    def run(self) -> Output:
        p = self.p
        analyses = {}
        calls = False
        for name, fn in p.functions.items():  # (a loop: cheaper than a comprehension and any())
            analyses[name] = found = analyse(fn.body)
            calls = calls or found.calls
        self.lay: Layout = layout_mod.plan(p, self.t, self.o)
        self.namer = self.lay.namer
        self.plain = self.lay.texts  # Variable -> its text, for the variables that are not arrays
        self.extensions: list[str] = list(self.lay.extensions)
        order = cfg.call_order(p) if calls else ["main"]  # call_order checks the calls too
        for name in order:
            self.fn_names[name] = "main" if name == "main" else self.namer.name(name)
        functions = []
        for name in order:
            functions.append((self.fn_names[name], self.function(p.functions[name], analyses[name])))
        if self.t.es and self.t.version < 300 and any(
                d.kind == "sampler" and d.type == "sampler3D" for d in self.lay.decls):
            # GLSL ES 1.00 knows sampler3D only through the extension, even
            # for a volume sampler that is declared and never sampled.
            self.need_extension("GL_OES_texture_3D")
        refl = self.lay.reflection
        refl["extensions"] = sorted(self.extensions)
        code = templates.render_shader(
            target=self.t, stage=self.lay.stage, program=p, layout=self.lay,
            extensions=self.extensions, helpers=self.helpers.sources(), functions=functions,
        )
        return Output(code, refl)

    # -- one function -------------------------------------------------------

    def function(self, fn, analysis: Analysis) -> list[str]:
        uses = analysis.uses
        inline = self.inline = analysis.inline
        self.names = {}
        self.annotated: set[int] = set()
        self.synthetic_indent = -1  # the indent of the synthetic run being written, -1 outside one
        self.comment_indent = 0  # the indent of the last annotation: its reach ends at a shallower line
        annotate = self.annotate
        statements = STATEMENTS
        lines: list[str] = []
        append = lines.append
        depth = 1
        indent = "    "
        # every op but the inlined values (most of them), filtered in C
        for op in filterfalse(inline.__contains__, fn.body):
            code = op.code
            if op.type is not None:
                if op not in uses:
                    continue
                stmt = self.definition(op)
            elif code is STORE:
                stmt = self.store(op)
            else:
                if code in CLOSES:
                    depth -= 1
                    indent = "    " * depth
                handler = statements.get(code)
                if handler is None:
                    raise self.unsupported(op, f"the backend cannot print '{code.value}' (a D3D op left by the passes?)")
                stmt = handler(self, op)
            if annotate:
                self.annotation(op, code, indent, append)
            append(indent + stmt)
            if code in OPENS:
                depth += 1
                indent = "    " * depth
        return lines

    def annotation(self, op: Op, code: Code, indent: str, append) -> None:
        """The comments above ``op``'s statement: each instruction it comes from
        that no earlier statement named; for a statement from none,
        SYNTHETIC_ANNOTATION once above the run of such statements; and
        CONTINUED_ANNOTATION with its instructions above a statement whose
        instructions are named already but where their comments no longer
        reach (after a synthetic run, or past the end of their block: a
        comment reaches the statements below it in its block; a block's
        closing ``}`` is left to the reader, which gives it to ``endloop``)."""
        origins, any_origin = self.origins(op)
        depth = len(indent)
        if not any_origin:
            if self.synthetic_indent < 0 or depth < self.synthetic_indent:
                append(indent + "// " + SYNTHETIC_ANNOTATION)
                self.synthetic_indent = self.comment_indent = depth
            return
        if origins:
            for origin in origins:
                append((indent + "// " + self.instruction_text(origin)).rstrip())
        elif code not in CLOSES and (self.synthetic_indent >= 0 or depth < self.comment_indent):
            for origin in self.origins_of(op):
                append((indent + "// " + CONTINUED_ANNOTATION + " " + self.instruction_text(origin)).rstrip())
        else:
            return
        self.synthetic_indent = -1
        self.comment_indent = depth

    def origins_of(self, op: Op) -> list[int]:
        """Every instruction ``op`` (with its inlined arguments) comes from."""
        found: set[int] = set()
        stack = [op]
        while stack:
            o = stack.pop()
            if o.origin >= 0:
                found.add(o.origin)
            stack.extend(a for a in o.args if a in self.inline)
        return sorted(found)

    def origins(self, op: Op) -> tuple[list[int], bool]:
        """The instructions ``op`` comes from that are not annotated yet (now
        marked annotated), and whether it comes from any instruction."""
        every = self.origins_of(op)
        new = [o for o in every if o not in self.annotated]
        self.annotated.update(new)
        return new, bool(every)

    def instruction_text(self, origin: int) -> str:
        return instruction_text(self.p, origin)

    # -- statements ---------------------------------------------------------

    def definition(self, op: Op) -> str:
        """``T tN = expr;`` for a value that is not inlined."""
        name = self.namer.fresh(f"t{len(self.names)}")
        self.names[op] = name
        t = op.type
        return f"{GLSL_TYPES[t.scalar][t.width]} {name} = {self.expr(op)[0]};"

    def store(self, op: Op) -> str:
        var = op.var
        imm = op.imm
        value = op.args[0]
        # the inlined value first: the common case, without operand()'s name lookup
        value = (self.expr(value) if value in self.inline else self.operand(value))[0]
        # the common target, a whole variable, without a call
        target = self.plain.get(var) if len(imm) < 2 and len(op.args) == 1 else None
        if target is None:
            target = self.store_target(op)
        suffix = STORE_MASKS[var.type.width].get(imm[0] if imm else 0xF)
        if suffix is None:  # a mask beyond 4 bits: print what the bits say
            width = var.type.width
            comps = "".join(c for i, c in enumerate(COMPONENTS[:width]) if imm[0] & (1 << i))
            suffix = "" if width == 1 or len(comps) == width else "." + comps
        return f"{target}{suffix} = {value};"

    def store_target(self, op: Op) -> str:
        var = op.var
        element = op.imm[1] if len(op.imm) > 1 else None
        if len(op.args) > 1:
            return self.indexed_lvalue(op, var, element, self.operand(op.args[1]))
        return self.var_text(var, element)

    def indexed_lvalue(self, op: Op, var, element, index: tuple[str, int]) -> str:
        acc = self.lay.access[id(var)]
        if not acc.array:
            raise self.unsupported(op, f"dynamic index on {var.name}, which is not an array (relative pass missing?)")
        if self.t.appendix_a:
            raise self.unsupported(op, "GLSL ES 1.00 (Appendix A) cannot index a temporary array dynamically")
        return f"{acc.name}[{self.index_text(index, (element or 0) - acc.base)}]" + acc.component

    def discard(self, op: Op) -> str:
        if not self.fragment:
            raise self.unsupported(op, "discard in a vertex shader")
        return "discard;"

    def if_(self, op: Op) -> str:
        return f"if ({self.operand(op.args[0])[0]}) {{"

    def loop(self, op: Op) -> str:
        if self.t.appendix_a:
            n = self.namer.name(f"xl_loop{self.loop_counter}")
            self.loop_counter += 1
            return f"for (int {n} = 0; {n} < {ES100_LOOP_BOUND}; ++{n}) {{"
        return "for (;;) {"

    def call_statement(self, op: Op) -> str:
        return f"{self.fn_names[op.imm[0]]}();"

    @staticmethod
    def index_text(index: tuple[str, int], offset: int) -> str:
        if offset == 0:
            return index[0]
        return f"{_wrap(index, ADD)} + {offset}" if offset > 0 else f"{_wrap(index, ADD)} - {-offset}"

    # -- expressions --------------------------------------------------------

    def operand(self, v: Op) -> tuple[str, int]:
        name = self.names.get(v)
        if name is not None:
            return name, PRIMARY
        if v not in self.inline:
            raise self.undefined(v)
        return self.expr(v)

    def undefined(self, v: Op) -> UnsupportedError:
        return self.unsupported(v, f"value '{v.code.value}' used before it is defined (IR invariant 2)")

    def expr(self, op: Op) -> tuple[str, int]:
        """The expression of a value (inlined, or the right side of its ``T tN = ...;``).

        Written for speed, as it runs for nearly every op: the common leaves
        (loads, swizzles, constants) and the common shapes (operators,
        function and helper calls, see ``SHAPES``) are printed here rather
        than through a handler call each."""
        code = op.code
        if code is LOAD and not op.args:
            if not op.imm:  # the common case, without a call
                text = self.plain.get(op.var)
                if text is not None:
                    return text, PRIMARY
            return self.var_text(op.var, op.imm[0] if op.imm else None), PRIMARY
        if code is SWIZZLE:
            return self.swizzle(op)
        if code is CONST:
            return self.literal(op.type, op.imm)
        inline = self.inline
        a = []
        for x in op.args:  # inlined args first: nearly all are, and operand() looks up names
            a.append(self.expr(x) if x in inline else self.operand(x))
        shape = SHAPES.get(code)
        if shape is None:
            raise self.unsupported(op, f"the backend cannot print '{code.value}' (a D3D op left by the passes?)")
        kind = shape[0]
        if kind is INFIX:
            _, sym, prec = shape
            x, y = a
            return f"{x[0] if x[1] >= prec else f'({x[0]})'} {sym} {y[0] if y[1] > prec else f'({y[0]})'}", prec
        if kind is CALL:
            return f"{shape[1]}({', '.join([e[0] for e in a])})", PRIMARY
        if kind is HELPER:
            fn = self.helpers.use(shape[1], op.args[0].type if shape[2] else op.type)
            return f"{fn}({', '.join([e[0] for e in a])})", PRIMARY
        return shape[1](self, op, a)

    def var_text(self, var, element=None) -> str:
        """A variable (or one element of it) read or written without a
        dynamic index: from the layout's texts, or looked up once per shader."""
        if element is None:
            text = self.plain.get(var)
            if text is not None:
                return text
            key = var
        else:
            key = (var, element)
        text = self.texts.get(key)
        if text is None:
            text = self.texts[key] = self.lay.text_of(var, element)
        return text

    def literal(self, t: Type, values) -> tuple[str, int]:
        n = len(values)
        if t.scalar is FLOAT and n and (n == 1 or _alike(values)):
            # the common constants, a scalar or a vector of one value
            # (vec4(0.0)), printed without a list of their components' texts
            text = self.float_text(values[0])
            if t.width == 1:
                return text, (UNARY if text[0] == "-" else PRIMARY)
            return f"{FLOAT_TYPES[t.width]}({text})", PRIMARY
        scalar = t.scalar
        if scalar is FLOAT:
            parts = [self.float_text(x) for x in values]
        elif scalar is INT:
            parts = [int_literal(x) for x in values]
        else:
            parts = [bool_literal(x) for x in values]
        width = t.width
        if len(parts) < width:
            parts = parts + [parts[-1]] * (width - len(parts)) if parts else ["0"] * width
        if width == 1:
            p = parts[0]
            return p, (UNARY if p.startswith("-") else PRIMARY)
        if len(set(parts)) == 1:
            return f"{glsl_type(t)}({parts[0]})", PRIMARY
        return f"{glsl_type(t)}({', '.join(parts[:width])})", PRIMARY

    def float_text(self, x) -> str:
        """A float's literal, memoised per shader but for zeros (0.0 ==
        -0.0: a bad key), the most common value, answered first."""
        if x == 0:
            return "-0.0" if copysign(1.0, x) < 0 else "0.0"
        text = self.floats.get(x)
        if text is None:
            text = self.floats[x] = float_literal(x, bits_builtins=self.bits)
        return text

    def helper_call(self, helper: str, t: Type, a: list) -> tuple[str, int]:
        return _call_text(self.helpers.use(helper, t), a)

    def rvalue(self, op: Op, element, index) -> str:
        var = op.var
        if index is None:
            return self.lay.text_of(var, element)
        acc = self.lay.access[id(var)]
        if not acc.array:
            raise self.unsupported(op, f"dynamic index on {var.name}, which is not an array (relative pass missing?)")
        uniform = var.storage in layout_mod.FILE_BINDING
        if self.t.appendix_a and (not uniform or self.fragment):
            what = "a uniform array in a fragment shader" if uniform else "a temporary array"
            raise self.unsupported(op, f"GLSL ES 1.00 (Appendix A) cannot index {what} dynamically")
        return f"{acc.name}[{self.index_text(index, (element or 0) - acc.base)}]" + acc.component

    def swizzle(self, op: Op) -> tuple[str, int]:
        src = op.args[0]
        comps = op.imm
        names = self.names
        # fold swizzles of swizzles and of constants
        while src.code is SWIZZLE and src not in names:
            imm = src.imm
            comps = tuple([imm[c] for c in comps])
            src = src.args[0]
        code = src.code
        name = names.get(src)
        if name is not None:
            base = name, PRIMARY
        elif code is CONST:
            imm = src.imm
            vals = list(imm) + [imm[-1]] * (src.type.width - len(imm))
            return self.literal(op.type, [vals[c] for c in comps])
        elif src in self.inline:
            text = None
            if code is LOAD and not src.args and not src.imm:  # the common source, without a call
                text = self.plain.get(src.var)
            base = (text, PRIMARY) if text is not None else self.expr(src)
        else:
            raise self.undefined(src)
        suffix = SUFFIXES[src.type.width].get(comps)
        if suffix is None:
            return self.odd_swizzle(op, base, src.type.width, comps)
        if not suffix:
            return base
        return f"{base[0] if base[1] >= PRIMARY else f'({base[0]})'}{suffix}", PRIMARY

    @staticmethod
    def odd_swizzle(op: Op, base: tuple[str, int], width: int, comps: tuple) -> tuple[str, int]:
        """A swizzle that ``SUFFIXES`` leaves out: a scalar widened, or
        components the source does not have."""
        if width == 1:
            if len(comps) == 1:
                return base
            return f"{glsl_type(op.type)}({base[0]})", PRIMARY
        suffix = SWIZZLES.get(comps) or "".join(COMPONENTS[c] for c in comps)
        return f"{_wrap(base, PRIMARY)}.{suffix}", PRIMARY

    def select(self, op: Op, a: list) -> tuple[str, int]:
        if op.args[0].type.width == 1:
            return f"{_wrap(a[0], OR + 1)} ? {_wrap(a[1], TERNARY + 1)} : {_wrap(a[2], TERNARY)}", TERNARY
        t = op.type
        if t.scalar is FLOAT and self.t.glsl130_builtins:
            return _call_text("mix", [a[2], a[1], a[0]])
        return self.helper_call("select", t, a)

    def sample(self, op: Op, a: list) -> tuple[str, int]:
        kind = op.imm[0]
        var = op.var
        name = self.lay.access[id(var)].name
        decl_type = self.lay.sampler_types.get(name)
        if decl_type is None:
            decl_type = next(d.type for d in self.lay.decls if d.kind == "sampler" and d.name == name)
        if len(op.imm) > 2:  # draw-time sampler state (Options.draw_state)
            return sample_mode(self, op, a, name, decl_type)
        dim, short = SAMPLER_DIMS[decl_type]
        coord = self.fit(op, op.args[0], a[0], dim)
        sampler = (name, PRIMARY)
        t = self.t
        es1 = t.es and t.version < 300
        if decl_type == "sampler3D" and es1:
            self.need_extension("GL_OES_texture_3D")
        if kind is SampleKind.PLAIN:
            fn = "texture" if t.generic_texture else f"texture{short}"
            return _call_text(fn, [sampler, coord])
        if kind is SampleKind.BIAS:
            if not self.fragment:
                raise self.unsupported(op, "a LOD bias in a vertex shader")
            fn = "texture" if t.generic_texture else f"texture{short}"
            return _call_text(fn, [sampler, coord, a[1]])
        if kind is SampleKind.LOD:
            if t.generic_texture:
                return _call_text("textureLod", [sampler, coord, a[1]])
            if not self.fragment:
                if not t.es:  # core in 1.20 vertex shaders, but glslang wants the extension named
                    self.need_extension("GL_ARB_shader_texture_lod")
                return _call_text(f"texture{short}Lod", [sampler, coord, a[1]])
            if es1:
                if decl_type == "sampler3D":
                    raise self.unsupported(op, "GLSL ES 1.00 has no explicit-LOD volume lookup in fragment shaders")
                self.need_extension("GL_EXT_shader_texture_lod")
                return _call_text(f"texture{short}LodEXT", [sampler, coord, a[1]])
            self.need_extension("GL_ARB_shader_texture_lod")
            return _call_text(f"texture{short}Lod", [sampler, coord, a[1]])
        if kind is SampleKind.GRAD:
            ddx = self.fit(op, op.args[1], a[1], dim)
            ddy = self.fit(op, op.args[2], a[2], dim)
            if t.generic_texture:
                return _call_text("textureGrad", [sampler, coord, ddx, ddy])
            if es1:
                if decl_type == "sampler3D":
                    raise self.unsupported(op, "GLSL ES 1.00 has no gradient volume lookup")
                self.need_extension("GL_EXT_shader_texture_lod")
                return _call_text(f"texture{short}GradEXT", [sampler, coord, ddx, ddy])
            self.need_extension("GL_ARB_shader_texture_lod")
            return _call_text(f"texture{short}GradARB", [sampler, coord, ddx, ddy])
        raise self.unsupported(op, f"sample kind {kind}")

    def fit(self, op: Op, v: Op, e: tuple[str, int], width: int) -> tuple[str, int]:
        """A coordinate of exactly ``width`` components."""
        w = v.type.width
        if w == width:
            return e
        if w > width:
            if v.code is Code.CONST or (v.code is Code.SWIZZLE and v not in self.names):
                sw = Op(Code.SWIZZLE, v.type.with_width(width), (v,), tuple(range(width)))
                self.inline.add(sw)
                return self.swizzle(sw)
            return f"{_wrap(e, PRIMARY)}.{COMPONENTS[:width]}", PRIMARY
        raise self.unsupported(op, f"a {w}-component texture coordinate where {width} are needed")


# -- printing tables ----------------------------------------------------------


_ONES = (1.0, 1.0, 1.0, 1.0)


def _alike(values: tuple) -> bool:
    """Whether every value prints as the first one does: equal, and for
    zeros, of one sign (0.0 == -0.0), all tested in C."""
    n = len(values)
    first = values[0]
    return values.count(first) == n and (first != 0 or sum(map(copysign, _ONES, values)) == n)


def _call_text(name: str, a: list) -> tuple[str, int]:
    return f"{name}({', '.join([x[0] for x in a])})", PRIMARY


def _infix_text(sym: str, prec: int, a: list) -> tuple[str, int]:
    return f"{_wrap(a[0], prec)} {sym} {_wrap(a[1], prec + 1)}", prec


def _scalar_infix_or_call(sym: str, prec: int, fn: str):
    """Scalars with the operator, vectors with the component-wise built-in."""
    def emit(em: Emitter, op: Op, a: list) -> tuple[str, int]:
        if op.args[0].type.width == 1:
            return _infix_text(sym, prec, a)
        return _call_text(fn, a)
    return emit


def _logic(sym: str, prec: int, helper: str):
    def emit(em: Emitter, op: Op, a: list) -> tuple[str, int]:
        if op.type.width == 1:
            return _infix_text(sym, prec, a)
        return em.helper_call(helper, op.type, a)
    return emit


def _load(em: Emitter, op: Op, a: list) -> tuple[str, int]:
    """A LOAD with a dynamic index (those without are printed by ``expr``)."""
    return em.rvalue(op, op.imm[0] if op.imm else None, a[0] if a else None), PRIMARY


def _construct(em: Emitter, op: Op, a: list) -> tuple[str, int]:
    return _call_text(glsl_type(op.type), a)


def _negate(em: Emitter, op: Op, a: list) -> tuple[str, int]:
    e = a[0]
    inner = _wrap(e, UNARY)
    if inner.startswith("-"):
        inner = f"({e[0]})"
    return f"-{inner}", UNARY


def _fmad(em: Emitter, op: Op, a: list) -> tuple[str, int]:
    return f"{_wrap(a[0], MUL)} * {_wrap(a[1], MUL + 1)} + {_wrap(a[2], ADD + 1)}", ADD


def _rcp(em: Emitter, op: Op, a: list) -> tuple[str, int]:
    return f"1.0 / {_wrap(a[0], MUL + 1)}", MUL


def _dot(em: Emitter, op: Op, a: list) -> tuple[str, int]:
    if op.args[0].type.width == 1:
        return f"{_wrap(a[0], MUL)} * {_wrap(a[1], MUL + 1)}", MUL
    return _call_text("dot", a)


def _round_even(em: Emitter, op: Op, a: list) -> tuple[str, int]:
    if em.t.glsl130_builtins:
        return _call_text("roundEven", a)
    return em.helper_call("round_even", op.type, a)


def _derivative(fn: str):
    def emit(em: Emitter, op: Op, a: list) -> tuple[str, int]:
        if not em.fragment:
            raise em.unsupported(op, "screen-space derivatives in a vertex shader")
        if em.t.es and em.t.version < 300:
            em.need_extension("GL_OES_standard_derivatives")
        return _call_text(fn, a)
    return emit


def _select(em: Emitter, op: Op, a: list) -> tuple[str, int]:
    return em.select(op, a)


def _bnot(em: Emitter, op: Op, a: list) -> tuple[str, int]:
    if op.type.width == 1:
        return f"!{_wrap(a[0], UNARY)}", UNARY
    return _call_text("not", a)


def _bany(em: Emitter, op: Op, a: list) -> tuple[str, int]:
    return a[0] if op.args[0].type.width == 1 else _call_text("any", a)


def _f2i_floor(em: Emitter, op: Op, a: list) -> tuple[str, int]:
    return _call_text(glsl_type(op.type), [_call_text("floor", a)])


def _f2i_round(em: Emitter, op: Op, a: list) -> tuple[str, int]:
    rounded = (_call_text("roundEven", a) if em.t.glsl130_builtins
               else em.helper_call("round_even", op.args[0].type, a))
    return _call_text(glsl_type(op.type), [rounded])


def _sample(em: Emitter, op: Op, a: list) -> tuple[str, int]:
    return em.sample(op, a)


# How each value op but SWIZZLE (which folds its source instead of printing
# it) is printed, given its operands' (text, precedence):
#   (INFIX, symbol, precedence)     a + b, left-associative
#   (CALL, GLSL function)           abs(a), clamp(a, b, c)
#   (HELPER, helper, of_argument)   xl_saturate(a), overloaded on the result's
#                                   type (or on the first argument's)
#   (SPECIAL, printer)              printer(emitter, op, operands)
# CONST and LOAD without a dynamic index are printed by ``Emitter.expr``.
INFIX, CALL, HELPER, SPECIAL = "infix", "call", "helper", "special"
SHAPES = {
    **{code: (INFIX, sym, prec) for code, (sym, prec) in BINARY.items()},
    **{code: (CALL, name) for code, name in FUNCS.items()},
    Code.FSATURATE: (HELPER, "saturate", False),
    Code.FMUL_LEGACY: (HELPER, "mul_legacy", False),
    Code.FDOT_LEGACY: (HELPER, "dot_legacy", True),
    Code.LOAD: (SPECIAL, _load),
    Code.CONSTRUCT: (SPECIAL, _construct),
    Code.FNEG: (SPECIAL, _negate),
    Code.FMAD: (SPECIAL, _fmad),
    Code.FRCP: (SPECIAL, _rcp),
    Code.FDOT: (SPECIAL, _dot),
    Code.FROUND_EVEN: (SPECIAL, _round_even),
    Code.FDDX: (SPECIAL, _derivative("dFdx")),
    Code.FDDY: (SPECIAL, _derivative("dFdy")),
    **{code: (SPECIAL, _scalar_infix_or_call(sym, prec, fn)) for code, (sym, prec, fn) in COMPARE.items()},
    Code.SELECT: (SPECIAL, _select),
    Code.BNOT: (SPECIAL, _bnot),
    Code.BAND: (SPECIAL, _logic("&&", AND, "and")),
    Code.BOR: (SPECIAL, _logic("||", OR, "or")),
    Code.BANY: (SPECIAL, _bany),
    Code.B2F: (SPECIAL, _construct),
    Code.I2F: (SPECIAL, _construct),
    Code.F2I_FLOOR: (SPECIAL, _f2i_floor),
    Code.F2I_ROUND: (SPECIAL, _f2i_round),
    Code.SAMPLE: (SPECIAL, _sample),
}

# Code -> printer(emitter, op) for the ops with no value.
STATEMENTS = {
    Code.STORE: Emitter.store,
    Code.DISCARD: Emitter.discard,
    Code.IF: Emitter.if_,
    Code.ELSE: lambda em, op: "} else {",
    Code.ENDIF: lambda em, op: "}",
    Code.ENDLOOP: lambda em, op: "}",
    Code.LOOP: Emitter.loop,
    Code.BREAK: lambda em, op: "break;",
    Code.RETURN: lambda em, op: "return;",
    Code.CALL: Emitter.call_statement,
}


def emit(program: Program, target: Target, options) -> Output:
    return Emitter(program, target, options).run()
