"""Stage-interface rules, spelled out in core IR (semantics 5.2-5.8).

After this pass a backend only maps interface variables to the target's
names; it needs to know nothing of D3D9's conventions.  What it does:

Vertex shaders
- vs_1_x/vs_2_x colour outputs oD0/oD1 are saturated on every write, and
  start as D3D's defaults (oD0 = 1, oD1 = 0; unwritten components read so).
  With ``options.fixed_outputs`` every COLOR0-1 / TEXCOORD0-7 output exists
  (TEXCOORDs start at 0), so any ps_1_x/2_x links against the VS.
- An output register carrying two semantics (vs_3_0 ``dcl_texcoord0 o5.xy``
  + ``dcl_texcoord1 o5.zw``), or a vec4 register carrying PSIZE, becomes a
  LOCAL copied out at every exit of main into one OUTPUT per semantic (the
  whole vec4, components in place; PSIZE takes .x).  io runs after the
  relative pass, so a file indexed dynamically has already been turned into
  a local array copied into these registers at the same exits; io's copies
  and the position fix-up come after those copies.
- A VS that never writes POSITION0 gets one, set to 0 (D3D requires oPos;
  GLSL 1.20 / ES 1.00 refuse to link without gl_Position).
- At every exit of main (end, and each RETURN in main) the POSITION0 output
  is rewritten: x += k*w/vp_w and y -= k*w/vp_h with k = 63/64, or 1 with
  ``half_pixel_exact`` (``half_pixel``,
  D3D pixel centres: a shift of 63/128 pixel, not exactly 1/2, as wined3d and
  DXVK do, so that an edge through pixel centres is decided by D3D's top-left
  rule rather than by the driver's tie rule), y = -y (``flip_y``), z = 2z - w
  (``clip_z``).

Pixel shaders
- vPos (builtin "vpos") becomes a LOCAL set at the start of main from the
  API's fragment coordinate: (x - 0.5, y - 0.5) when the image is laid out
  as D3D's (flip_y), else (x - 0.5, rt_height - 0.5 - y); z, w pass through.
- vFace (builtin "vface") becomes a LOCAL = front_facing ? 1 : -1.  The layer
  must set the API's front face so that D3D-front triangles are API-front
  (GL: glFrontFace(GL_CCW) unflipped, GL_CW with flip_y; Vulkan:
  VK_FRONT_FACE_COUNTER_CLOCKWISE unflipped, CLOCKWISE with flip_y).
- An input register carrying two semantics is split the same way.
- Without flip_y, D3D's +y (down) is the API's -y: every FDDY becomes
  FNEG(FDDY).  From here on FDDY means the target API's dFdy, and the
  backend prints it as such (``program.notes["fddy"] = "api"``).

New variables (documented for backends; ``Storage.INPUT`` + ``builtin``):
- "frag_coord" f4: the API fragment coordinate (gl_FragCoord);
- "front_facing" b1: gl_FrontFacing;
- "viewport" f4: a uniform the layer sets to (1/viewport width,
  1/viewport height, render-target height, 0); reported by reflection.

``program.notes["io"]`` records the resolved options and what the layer
must bind (``viewport``) or set (``front_face``).
"""

from __future__ import annotations

from itertools import islice

from ..bytecode.tables import DeclUsage, RegisterType
from ..ir.ops import Code, Op
from ..ir.program import Function, Program, Semantic, Storage, Variable
from ..ir.types import B1, F1, F4
from .build import FLOAT, resized
from .rewrite import rewrite

U = DeclUsage


def run(program: Program, options, returns: bool = True, derivatives: bool = True) -> tuple[int, int] | None:
    """``returns`` / ``derivatives`` False: the caller knows that no RETURN /
    no FDDY occurs (``passes.Survey``), so none is looked for.

    Returns the lengths of the prologue and the epilogue io put at the start
    and the end of main when they are *islands* (else None): ops that read
    only each other and touch no private variable (the vs_1_x/2_x output
    defaults, the missing oPos, the position fix-up), and hold no CALL, no
    D3D op, no constant-file LOAD and no legacy multiply or dot (what
    ``cleanup.run`` reports in its summary of the walks that leave them out).  ``cleanup`` changes
    nothing in such ops (all are used, none folds, no STORE of theirs can be
    dead) and they change none of its decisions about the other ops, so
    ``passes.pipeline`` lets it leave them out of its walks."""
    return _IO(program, options, returns, derivatives).run()


# vs_1_x/2_x outputs D3D gives a value before the shader writes them:
# (register, value (the CONST's imm), and the name and semantics to declare
# it with when the shader does not): oD0 = 1, oD1 = 0, then
# (``fixed_outputs``) oT0-oT7 = 0.
_SM2_DEFAULTS = tuple(
    ((rtype, i), (value,) * 4, f"{prefix}{i}", ((0xF, Semantic(usage, i)),))
    for rtype, usage, prefix, values in (
        (RegisterType.ATTROUT, U.COLOR, "oD", (1.0, 0.0)),
        (RegisterType.TEXCRDOUT, U.TEXCOORD, "oT", (0.0,) * 8),
    )
    for i, value in enumerate(values)
)
_SM2_COLOURS = _SM2_DEFAULTS[:2]
_COLOUR_REGISTERS = frozenset(register for register, *_ in _SM2_COLOURS)

# Enum members this pass reads for every shader, as module constants:
# ``Code.X`` and friends go through the enum's metaclass (some 70 ns a
# lookup, build.py).
_CONST, _LOAD, _STORE, _SWIZZLE, _RETURN = Code.CONST, Code.LOAD, Code.STORE, Code.SWIZZLE, Code.RETURN
_FMUL, _FADD, _FSUB, _FNEG, _CONSTRUCT = Code.FMUL, Code.FADD, Code.FSUB, Code.FNEG, Code.CONSTRUCT
_FSATURATE = Code.FSATURATE
_INPUT = Storage.INPUT
_PSIZE, _POSITION = U.PSIZE, U.POSITION
_F1 = FLOAT[1]  # a component of an f4 (``resized(F4, 1)``, as ``comp`` makes it)
_OUTPUT = Storage.OUTPUT
_WHOLE = (0xF,)  # the imm of a STORE of all four components
_X, _Y, _Z, _W = (0,), (1,), (2,), (3,)  # the imms of a SWIZZLE to one component
_TWO = (2.0,)

# The half-pixel shift as a fraction of half a pixel: 63/128 px (wined3d,
# DXVK) unless Options.half_pixel_exact.
HALF_PIXEL_BIAS = 63.0 / 64.0

class _IO:
    __slots__ = ("p", "returns", "derivatives", "o", "clip_z", "flip_y", "half_pixel", "half_pixel_scale",
                 "viewport", "prologue", "epilogue", "colours", "islands", "notes")

    def __init__(self, program: Program, options, returns: bool = True, derivatives: bool = True):
        self.p = program
        self.returns = returns
        self.derivatives = derivatives
        self.o = options
        self.clip_z = True if options.clip_z is None else options.clip_z
        self.flip_y = False if options.flip_y is None else options.flip_y
        self.half_pixel = options.half_pixel
        self.half_pixel_scale = 1.0 if options.half_pixel_exact else HALF_PIXEL_BIAS
        self.viewport: Variable | None = None
        self.prologue: list[Op] = []
        self.epilogue: list = []  # callables emitting ops into a list
        self.colours: set[Variable] = set()  # the outputs whose writes are saturated
        # False once the prologue or an epilogue touches a private variable
        # (a split register, vPos, vFace) or the epilogue goes before a RETURN
        self.islands = True
        self.notes = {"clip_z": self.clip_z, "flip_y": self.flip_y, "half_pixel": self.half_pixel,
                      "half_pixel_scale": self.half_pixel_scale if self.half_pixel else 0.0,
                      "viewport": False, "front_face": None}

    # -- helpers ------------------------------------------------------------

    @staticmethod
    def op(out: list, code: Code, type=None, args: tuple = (), imm: tuple = (), var=None) -> Op:
        o = Op(code, type, args, imm, var, -1)
        out.append(o)
        return o

    def const(self, out, value: float) -> Op:
        return self.op(out, Code.CONST, F1, imm=(float(value),))

    def comp(self, out, v: Op, c: int) -> Op:
        return self.op(out, Code.SWIZZLE, resized(v.type, 1), (v,), (c,))

    def get_viewport(self) -> Variable:
        if self.viewport is None:
            self.viewport = Variable("viewport", Storage.INPUT, F4, builtin="viewport")
            self.p.variables.append(self.viewport)
            self.notes["viewport"] = True
        return self.viewport

    def builtin(self, name: str, type) -> Variable:
        for v in self.p.variables:
            if v.builtin == name and v.storage is Storage.INPUT:
                return v
        v = Variable(name, Storage.INPUT, type, builtin=name)
        self.p.variables.append(v)
        return v

    def outputs_by_register(self) -> dict:
        """register -> its OUTPUT variable (the first in ``program.variables``)."""
        outputs: dict = {}
        for v in self.p.variables:
            if v.storage is _OUTPUT and v.register not in outputs:
                outputs[v.register] = v
        return outputs

    # -- main ---------------------------------------------------------------

    def run(self) -> tuple[int, int] | None:
        if self.p.is_vertex:
            self.vertex()
            # What the bodies need: saturated colour writes, and main's
            # epilogue before each of its RETURNs.
            if self.colours or (self.epilogue and self.returns):
                main = self.p.main
                for fn in self.p.functions.values():
                    self.edit_vertex_body(fn, self.epilogue if fn is main else ())
        else:
            self.pixel()
        main = self.p.main
        before = len(main.body)
        for emit in self.epilogue:
            emit(main.body)
        islands = (len(self.prologue), len(main.body) - before) if self.islands else None
        # The epilogue's closures hold this object, which holds the program:
        # a reference cycle that would leave the whole IR to the cyclic
        # collector (a walk over every op of a vertex shader, after each
        # translation) instead of freeing it as the last reference goes.
        self.epilogue.clear()
        if self.prologue:
            main.body[:0] = self.prologue
        self.p.notes["io"] = self.notes
        return islands

    def edit_vertex_body(self, fn: Function, epilogue) -> None:
        """Saturate each write of a colour output, and run ``epilogue`` before
        each RETURN.  No value changes (a STORE is none), so nothing needs
        remapping: a plain walk, cheaper than a ``rewrite``, that rebuilds
        the body from the first op to change and leaves it as it is when
        there is none (most vs_3_0: no colour, no RETURN)."""
        colours = self.colours
        body = fn.body
        for start, op in enumerate(body):
            code = op.code
            if (code is _STORE and op.var in colours) or (code is _RETURN and epilogue):
                break
        else:
            return
        out = body[:start]
        append = out.append
        for op in islice(body, start, None):
            code = op.code
            if code is _STORE:
                if op.var in colours:
                    args = op.args
                    value = Op(_FSATURATE, args[0].type, args[:1], (), None, op.origin)
                    append(value)
                    op.args = (value,) + args[1:]
            elif code is _RETURN:
                if epilogue:
                    self.islands = False  # (a copy of the epilogue before a RETURN)
                for emit in epilogue:
                    emit(out)
            append(op)
        fn.body = out

    # -- vertex shaders -----------------------------------------------------

    def vertex(self) -> None:
        # One look at the shader's outputs finds those to split and the
        # position (the outputs sm2_colours adds are neither).
        split, pos = [], None
        outputs: dict = {}  # register -> its OUTPUT variable (the first): ``outputs_by_register``
        for var in self.p.variables:
            if var.storage is not _OUTPUT:
                continue
            if var.register not in outputs:
                outputs[var.register] = var
            semantics = var.semantics
            if len(semantics) > 1:
                split.append(var)
            elif semantics:
                usage = semantics[0][1].usage
                if usage is _PSIZE and var.type.width > 1:
                    split.append(var)
                elif usage is _POSITION and pos is None and semantics[0][1].index == 0:
                    pos = var
        if self.p.version.major < 3:
            self.sm2_colours(outputs)
        if split:
            for var in split:
                self.split_output(var)
            pos = self.position()  # it may be one of the new outputs
        if pos is None:
            # D3D requires oPos; a shader without it has an undefined position,
            # but GLSL 1.20 / ES 1.00 refuse to link a VS that never writes it.
            pos = Variable("oPos", Storage.OUTPUT, F4, register=(RegisterType.RASTOUT, 0),
                           semantics=((0xF, Semantic(U.POSITION, 0)),))
            self.p.variables.append(pos)
            zero = self.op(self.prologue, Code.CONST, F4, imm=(0.0,) * 4)
            self.op(self.prologue, Code.STORE, None, (zero,), (0xF,), pos)
        if self.clip_z or self.flip_y or self.half_pixel:
            self.epilogue.append(lambda out, pos=pos: self.fix_position(out, pos))

    def position(self) -> Variable | None:
        """The first OUTPUT with the one semantic POSITION0."""
        for v in self.p.variables_of(_OUTPUT):
            if len(v.semantics) == 1 and (s := v.semantics[0][1]).usage is U.POSITION and s.index == 0:
                return v
        return None

    def sm2_colours(self, outputs: dict | None = None) -> None:
        """Give the outputs their D3D defaults; the colours the shader
        writes are saturated (``edit_vertex_body``).  Built with ``Op`` and
        ``Variable`` directly, positional: every vs_1_x/2_x runs this, and
        with ``fixed_outputs`` it makes up to 10 variables and 20 ops."""
        fixed = self.o.fixed_outputs
        if outputs is None:
            outputs = self.outputs_by_register()
        variables, prologue = self.p.variables, self.prologue
        for register, imm, name, semantics in _SM2_DEFAULTS if fixed else _SM2_COLOURS:
            var = outputs.get(register)
            if var is None:
                if not fixed:
                    continue
                # (a colour made here has no write to saturate)
                var = Variable(name, _OUTPUT, F4, None, register, semantics)
                variables.append(var)
            elif register in _COLOUR_REGISTERS:
                self.colours.add(var)
            c = Op(_CONST, F4, (), imm, None, -1)
            prologue += (c, Op(_STORE, None, (c,), _WHOLE, var, -1))

    def split_output(self, var: Variable) -> None:
        """Make ``var`` a LOCAL, copied out at every exit into one OUTPUT per semantic."""
        semantics = var.semantics
        var.storage = Storage.LOCAL
        var.semantics = ()
        self.islands = False
        zero = self.op(self.prologue, Code.CONST, F4, imm=(0.0,) * 4)
        self.op(self.prologue, Code.STORE, None, (zero,), (0xF,), var)
        for mask, sem in semantics:
            scalar = sem.usage is U.PSIZE
            out = Variable(f"{var.name}_{sem}", Storage.OUTPUT, F1 if scalar else F4, register=var.register,
                           semantics=((0x1 if scalar else mask, sem),), mask=0x1 if scalar else mask)
            self.p.variables.append(out)

            def copy(body, src=var, dst=out, scalar=scalar):
                value = self.op(body, Code.LOAD, F4, var=src)
                if scalar:
                    value = self.comp(body, value, 0)
                self.op(body, Code.STORE, None, (value,), (0x1 if scalar else 0xF,), dst)

            self.epilogue.append(copy)

    def fix_position(self, out: list, pos: Variable) -> None:
        # Every vertex shader runs this: the ops are built with ``Op``
        # directly (positional: code, type, args, imm, var, origin), listed in
        # the order they go into ``out``.
        p = Op(_LOAD, F4, (), (), pos, -1)
        args = (p,)  # (one tuple for the four: nothing changes an op's args in place)
        x = Op(_SWIZZLE, _F1, args, _X, None, -1)
        y = Op(_SWIZZLE, _F1, args, _Y, None, -1)
        z = Op(_SWIZZLE, _F1, args, _Z, None, -1)
        w = Op(_SWIZZLE, _F1, args, _W, None, -1)
        out += (p, x, y, z, w)
        if self.half_pixel:
            # 63/128 of a pixel (in NDC one pixel is 2/vp): see the docstring.
            vp = Op(_LOAD, F4, (), (), self.get_viewport(), -1)
            k = Op(_CONST, F1, (), (self.half_pixel_scale,), None, -1)
            kw = Op(_FMUL, F1, (w, k), (), None, -1)
            args = (vp,)
            vx = Op(_SWIZZLE, _F1, args, _X, None, -1)
            dx = Op(_FMUL, F1, (kw, vx), (), None, -1)
            x = Op(_FADD, F1, (x, dx), (), None, -1)
            vy = Op(_SWIZZLE, _F1, args, _Y, None, -1)
            dy = Op(_FMUL, F1, (kw, vy), (), None, -1)
            y = Op(_FSUB, F1, (y, dy), (), None, -1)
            out += (vp, k, kw, vx, dx, x, vy, dy, y)
        if self.flip_y:
            y = Op(_FNEG, F1, (y,), (), None, -1)
            out.append(y)
        if self.clip_z:
            two = Op(_CONST, F1, (), _TWO, None, -1)
            z2 = Op(_FMUL, F1, (z, two), (), None, -1)
            z = Op(_FSUB, F1, (z2, w), (), None, -1)
            out += (two, z2, z)
        value = Op(_CONSTRUCT, F4, (x, y, z, w), (), None, -1)
        out += (value, Op(_STORE, None, (value,), _WHOLE, pos, -1))

    # -- pixel shaders ------------------------------------------------------

    def pixel(self) -> None:
        for var in self.p.variables_of(_INPUT):  # (a new list: the loop may add inputs)
            if var.builtin == "vpos":
                self.vpos(var)
            elif var.builtin == "vface":
                self.vface(var)
            elif len(var.semantics) > 1:
                self.split_input(var)
        if not self.flip_y and self.derivatives and _occurs(self.p, Code.FDDY):
            rewrite(self.p, {Code.FDDY: _negate})
        self.p.notes["fddy"] = "api"

    def vpos(self, var: Variable) -> None:
        out = self.prologue
        fc = self.op(out, Code.LOAD, F4, var=self.builtin("frag_coord", F4))
        half = self.const(out, 0.5)
        x = self.op(out, Code.FSUB, F1, (self.comp(out, fc, 0), half))
        if self.flip_y:
            y = self.op(out, Code.FSUB, F1, (self.comp(out, fc, 1), half))
        else:
            vp = self.op(out, Code.LOAD, F4, var=self.get_viewport())
            top = self.op(out, Code.FSUB, F1, (self.comp(out, vp, 2), half))
            y = self.op(out, Code.FSUB, F1, (top, self.comp(out, fc, 1)))
        value = self.op(out, Code.CONSTRUCT, F4, (x, y, self.comp(out, fc, 2), self.comp(out, fc, 3)))
        var.storage, var.builtin = Storage.LOCAL, None
        self.islands = False
        self.op(out, Code.STORE, None, (value,), (0xF,), var)

    def vface(self, var: Variable) -> None:
        out = self.prologue
        ff = self.op(out, Code.LOAD, B1, var=self.builtin("front_facing", B1))
        value = self.op(out, Code.SELECT, F1, (ff, self.const(out, 1.0), self.const(out, -1.0)))
        var.storage, var.builtin = Storage.LOCAL, None
        self.islands = False
        self.op(out, Code.STORE, None, (value,), (0x1,), var)
        # D3D's front faces are clockwise on screen.  Without a y flip the
        # image is upright in GL window coordinates, so they stay clockwise
        # there; flipping y mirrors them.  Vulkan's framebuffer y points down
        # like D3D's, so there the flip keeps them clockwise.
        self.notes["front_face"] = {"gl": "GL_CCW" if self.flip_y else "GL_CW",
                                    "vulkan": "VK_FRONT_FACE_CLOCKWISE" if self.flip_y
                                    else "VK_FRONT_FACE_COUNTER_CLOCKWISE"}

    def split_input(self, var: Variable) -> None:
        semantics = var.semantics
        var.storage = Storage.LOCAL
        var.semantics = ()
        self.islands = False
        out = self.prologue
        for mask, sem in semantics:
            src = Variable(f"{var.name}_{sem}", Storage.INPUT, F4, register=var.register,
                           semantics=((mask, sem),), mask=mask, centroid=var.centroid,
                           partial_precision=var.partial_precision)
            self.p.variables.append(src)
            comps = tuple(i for i in range(4) if mask & (1 << i))
            value = self.op(out, Code.LOAD, F4, var=src)
            if comps != (0, 1, 2, 3):
                value = self.op(out, Code.SWIZZLE, resized(F4, len(comps)), (value,), comps)
            self.op(out, Code.STORE, None, (value,), (mask,), var)


def _occurs(program: Program, code: Code) -> bool:
    """Whether any op of ``program`` has ``code`` (a plain loop: the
    cheapest way to find that there is none, the most frequent answer)."""
    for fn in program.functions.values():
        for op in fn.body:
            if op.code is code:
                return True
    return False


def _negate(rw, op: Op) -> Op:
    """FDDY along D3D's +y -> the API's dFdy when y is not flipped."""
    rw.keep(op)
    return rw.emit(Code.FNEG, op.type, (op,))
