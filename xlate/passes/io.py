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

from ..bytecode.tables import DeclUsage, RegisterType
from ..ir.ops import Code, Op
from ..ir.program import Program, Semantic, Storage, Variable
from ..ir.types import B1, F1, F4
from .build import resized
from .rewrite import rewrite

U = DeclUsage


def run(program: Program, options) -> None:
    _IO(program, options).run()


# vs_1_x/2_x outputs D3D gives a value before the shader writes them:
# (register, value, and the name and semantics to declare it with when the
# shader does not): oD0 = 1, oD1 = 0, then (``fixed_outputs``) oT0-oT7 = 0.
_SM2_DEFAULTS = tuple(
    ((rtype, i), value, f"{prefix}{i}", ((0xF, Semantic(usage, i)),))
    for rtype, usage, prefix, values in (
        (RegisterType.ATTROUT, U.COLOR, "oD", (1.0, 0.0)),
        (RegisterType.TEXCRDOUT, U.TEXCOORD, "oT", (0.0,) * 8),
    )
    for i, value in enumerate(values)
)
_SM2_COLOURS = _SM2_DEFAULTS[:2]

# The half-pixel shift as a fraction of half a pixel: 63/128 px (wined3d,
# DXVK) unless Options.half_pixel_exact.
HALF_PIXEL_BIAS = 63.0 / 64.0

class _IO:
    def __init__(self, program: Program, options):
        self.p = program
        self.o = options
        self.clip_z = True if options.clip_z is None else options.clip_z
        self.flip_y = False if options.flip_y is None else options.flip_y
        self.half_pixel = options.half_pixel
        self.half_pixel_scale = 1.0 if options.half_pixel_exact else HALF_PIXEL_BIAS
        self.viewport: Variable | None = None
        self.prologue: list[Op] = []
        self.epilogue: list = []  # callables emitting ops into a list
        # rewrite handlers for the one walk over the bodies at the end
        self.handlers: dict = {}
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
            if v.storage is Storage.OUTPUT and v.register not in outputs:
                outputs[v.register] = v
        return outputs

    # -- main ---------------------------------------------------------------

    def run(self) -> None:
        if self.p.is_vertex:
            self.vertex()
        else:
            self.pixel()
        # One walk does what the bodies need: saturate colour writes, negate
        # dsy, and emit the epilogue before each RETURN of main.
        if self.epilogue:
            self.handlers[Code.RETURN] = self.exit
        if self.handlers:
            rewrite(self.p, self.handlers)
        main = self.p.main
        for emit in self.epilogue:
            emit(main.body)
        if self.prologue:
            main.body[:0] = self.prologue
        self.p.notes["io"] = self.notes

    def exit(self, rw, op: Op) -> None:
        """A RETURN: main's epilogue runs first."""
        if rw.fn is self.p.main:
            for emit in self.epilogue:
                emit(rw.out)
        rw.keep(op)

    # -- vertex shaders -----------------------------------------------------

    def vertex(self) -> None:
        v = self.p.version
        if v.major < 3:
            self.sm2_colours()
        for var in self.p.variables_of(Storage.OUTPUT):
            semantics = var.semantics
            psize_vec = var.type.width > 1 and len(semantics) == 1 and semantics[0][1].usage is U.PSIZE
            if len(semantics) > 1 or psize_vec:
                self.split_output(var)
        pos = next((v for v in self.p.variables_of(Storage.OUTPUT)
                    if len(v.semantics) == 1 and (s := v.semantics[0][1]).usage is U.POSITION and s.index == 0), None)
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

    def sm2_colours(self) -> None:
        fixed = self.o.fixed_outputs
        outputs = self.outputs_by_register()
        for register, value, name, semantics in _SM2_DEFAULTS if fixed else _SM2_COLOURS:
            var = outputs.get(register)
            if var is None:
                if not fixed:
                    continue
                var = Variable(name, Storage.OUTPUT, F4, register=register, semantics=semantics)
                self.p.variables.append(var)
                outputs[register] = var
            c = self.op(self.prologue, Code.CONST, F4, imm=(value,) * 4)
            self.op(self.prologue, Code.STORE, None, (c,), (0xF,), var)
        colours = {outputs[r] for r, *_ in _SM2_COLOURS if r in outputs}
        if not colours:
            return

        def saturate(rw, op):
            if op.var not in colours:
                rw.keep(op)
                return None
            value = rw.emit(Code.FSATURATE, op.args[0].type, (op.args[0],))
            rw.become(op, Code.STORE, None, (value, *op.args[1:]), op.imm, op.var)
            return None

        self.handlers[Code.STORE] = saturate

    def split_output(self, var: Variable) -> None:
        """Make ``var`` a LOCAL, copied out at every exit into one OUTPUT per semantic."""
        semantics = var.semantics
        var.storage = Storage.LOCAL
        var.semantics = ()
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
        p = self.op(out, Code.LOAD, F4, var=pos)
        x, y, z, w = (self.comp(out, p, i) for i in range(4))
        if self.half_pixel:
            vp = self.op(out, Code.LOAD, F4, var=self.get_viewport())
            # 63/128 of a pixel (in NDC one pixel is 2/vp): see the docstring.
            kw = self.op(out, Code.FMUL, F1, (w, self.const(out, self.half_pixel_scale)))
            x = self.op(out, Code.FADD, F1, (x, self.op(out, Code.FMUL, F1, (kw, self.comp(out, vp, 0)))))
            y = self.op(out, Code.FSUB, F1, (y, self.op(out, Code.FMUL, F1, (kw, self.comp(out, vp, 1)))))
        if self.flip_y:
            y = self.op(out, Code.FNEG, F1, (y,))
        if self.clip_z:
            z = self.op(out, Code.FSUB, F1, (self.op(out, Code.FMUL, F1, (z, self.const(out, 2.0))), w))
        value = self.op(out, Code.CONSTRUCT, F4, (x, y, z, w))
        self.op(out, Code.STORE, None, (value,), (0xF,), pos)

    # -- pixel shaders ------------------------------------------------------

    def pixel(self) -> None:
        for var in list(self.p.variables_of(Storage.INPUT)):
            if var.builtin == "vpos":
                self.vpos(var)
            elif var.builtin == "vface":
                self.vface(var)
            elif len(var.semantics) > 1:
                self.split_input(var)
        if not self.flip_y:
            def negate(rw, op):
                rw.keep(op)
                return rw.emit(Code.FNEG, op.type, (op,))

            self.handlers[Code.FDDY] = negate
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
        self.op(out, Code.STORE, None, (value,), (0xF,), var)

    def vface(self, var: Variable) -> None:
        out = self.prologue
        ff = self.op(out, Code.LOAD, B1, var=self.builtin("front_facing", B1))
        value = self.op(out, Code.SELECT, F1, (ff, self.const(out, 1.0), self.const(out, -1.0)))
        var.storage, var.builtin = Storage.LOCAL, None
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


