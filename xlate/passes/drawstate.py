"""The fixed-function work D3D9 does around a shader, added to it in core IR:
fog and the alpha test (``Options.draw_state``, xlate/drawstate.py).

Runs after ``io`` (it appends to what io left at main's exits) and before
``cleanup`` (which folds what a baked state makes constant and drops the
state parameters nothing reads).  Each state value is a ``CONST`` in the
baked mode and a ``LOAD`` of a ``Storage.STATE`` variable in the dynamic
mode (docs/ir.md "Draw-time state"); in the dynamic mode every choice a
state makes (fog mode, compare function) is a SELECT or an IF in the code.

Pixel shaders, at every exit of main (its end and each RETURN in it), on
the COLOR0 output (oC0, or r0 in ps_1_x):
- alpha test (ALPHATESTENABLE): a = round(saturate(oC0.a) * 255) compared
  with ALPHAREF by ALPHAFUNC (D3D compares the 8-bit quantised alpha);
  a failed test is a DISCARD.
- fog (FOGENABLE; ps_1_x/2_x only: D3D9 leaves fog to a ps_3_0 shader):
  f = the fog coordinate the vertex shader wrote (oFog, the FOG0 input) when
  FOGTABLEMODE is NONE (vertex fog: with a vertex shader D3D uses oFog as
  the factor and ignores FOGVERTEXMODE); else table fog from the pixel's
  depth z = the position's z before the perspective divide, interpolated
  (``frag_coord.z / frag_coord.w``: the 0..1 depth times the clip w; with
  vertex shaders wined3d and DXVK both fog from this z, D3D9's "w-fog" being
  a fixed-function projection-matrix rule): LINEAR (end - z) / (end - start),
  EXP exp(-density*z), EXP2 exp(-(density*z)^2).  f is clamped to [0, 1] and
  oC0.rgb = lerp(fogcolor, oC0.rgb, f); alpha is untouched.
Vertex shaders (vs_1_x/2_x, fog possibly on): a shader that never writes
oFog gets one set to 0 (what D3D9 hardware passes on: Wine's
fog_with_shader_test expects a fully fogged quad), so any ps_1_x/2_x links.
"""

from __future__ import annotations

import math

from ..bytecode.tables import DeclUsage, RegisterType
from ..drawstate import PARAMS_BY_KEY, CmpFunc, DrawState, DrawStateMode, FogMode, ParamType
from ..ir.ops import Code, Op
from ..ir.program import Program, Semantic, Storage, Variable
from ..ir.types import B1, F1, F3, F4, I1

_LOG2E = 1.0 / math.log(2.0)
_PARAM_TYPES = {ParamType.BOOL: B1, ParamType.INT: I1, ParamType.FLOAT: F1}
# D3DCMPFUNC -> the IR comparison "alpha FUNC ref" is (NEVER/ALWAYS: constants)
_COMPARE = {CmpFunc.LESS: Code.FLT, CmpFunc.EQUAL: Code.FEQ, CmpFunc.LESSEQUAL: Code.FLE,
            CmpFunc.GREATER: Code.FGT, CmpFunc.NOTEQUAL: Code.FNE, CmpFunc.GREATEREQUAL: Code.FGE}


def run(program: Program, options) -> None:
    state: DrawState = options.draw_state
    dynamic = options.draw_state_mode is DrawStateMode.DYNAMIC
    if program.is_vertex:
        if program.version.major < 3 and (dynamic or state.fogenable):
            _fog_output(program)
        if state.fogenable and (state.fogvertexmode is not FogMode.NONE or state.rangefogenable):
            _note(program, "FOGVERTEXMODE and RANGEFOGENABLE apply to fixed-function vertex processing only: "
                           "with a vertex shader D3D9 uses the oFog it writes as the fog factor")
        return
    fog = program.version.major < 3 and (dynamic or state.fogenable)
    alpha = dynamic or state.alphatestenable
    if state.fogenable and program.version.major >= 3:
        _note(program, f"{program.version}: no fog is added (D3D9 applies no fixed-function fog after a ps_3_0 "
                       "shader, which computes its own)")
    if not (fog or alpha):
        return
    colour = _colour_output(program)
    if colour is None:
        if state.alphatestenable or state.fogenable:
            _note(program, "the shader writes no oC0, so there is no colour to alpha-test or fog: none added")
        return
    work = _PixelWork(program, options, colour, fog, alpha)
    at_exits(program, work.emit)
    # (other render-state work adds its own keys: backends/reflection.render_state)
    program.notes.setdefault("drawstate", {}).update(fog=fog, alpha_test=alpha, dynamic=dynamic)


def _note(program: Program, text: str) -> None:
    program.notes.setdefault("diagnostics", []).append(text)


def _fog_output(program: Program) -> None:
    for v in program.variables:
        if v.storage is Storage.OUTPUT and any(s.usage is DeclUsage.FOG for _, s in v.semantics):
            return
    var = Variable("oFog", Storage.OUTPUT, F1, register=(RegisterType.RASTOUT, 1),
                   semantics=((0x1, Semantic(DeclUsage.FOG, 0)),), mask=0x1)
    program.variables.append(var)
    zero = Op(Code.CONST, F1, (), (0.0,))
    program.main.body[:0] = [zero, Op(Code.STORE, None, (zero,), (0x1,), var)]


def _colour_output(program: Program) -> Variable | None:
    for v in program.variables:
        if (v.storage is Storage.OUTPUT and len(v.semantics) == 1 and v.semantics[0][1].usage is DeclUsage.COLOR
                and v.semantics[0][1].index == 0 and v.type.width == 4):
            return v
    return None


def at_exits(program: Program, emit) -> None:
    """``emit(out)`` before each RETURN of main and at its end."""
    main = program.main
    out: list[Op] = []
    for op in main.body:
        if op.code is Code.RETURN:
            emit(out)
        out.append(op)
    emit(out)
    main.body = out


class StateReader:
    """Reads draw-time state parameters into a program: ``param(out, key)``
    appends to ``out`` a CONST of the value (baked mode) or a LOAD of the
    parameter's STATE variable, made once per program (dynamic mode).  For
    every pass that adds render-state work (docs/ir.md "Draw-time state")."""

    def __init__(self, program: Program, options):
        self.p = program
        self.s: DrawState = options.draw_state
        self.dynamic = options.draw_state_mode is DrawStateMode.DYNAMIC
        self.params: dict[str, Variable] = {}
        for v in program.variables:  # another pass may have made some already
            if v.storage is Storage.STATE:
                self.params[v.builtin] = v

    @staticmethod
    def op(out: list, code: Code, type=None, args: tuple = (), imm: tuple = (), var=None) -> Op:
        o = Op(code, type, args, imm, var)
        out.append(o)
        return o

    def const(self, out: list, value, type=F1) -> Op:
        return self.op(out, Code.CONST, type, imm=(value,))

    def param(self, out: list, key: str) -> Op:
        """State parameter ``key``: its value (baked) or a LOAD of its STATE variable."""
        p = PARAMS_BY_KEY[key]
        t = _PARAM_TYPES[p.type]
        if not self.dynamic:
            return self.const(out, self.s.param_value(key), t)
        var = self.params.get(key)
        if var is None:
            var = self.params[key] = Variable(key, Storage.STATE, t, builtin=key)
            self.p.variables.append(var)
        return self.op(out, Code.LOAD, t, var=var)


class _PixelWork(StateReader):
    def __init__(self, program: Program, options, colour: Variable, fog: bool, alpha: bool):
        super().__init__(program, options)
        self.colour = colour
        self.fog = fog
        self.alpha = alpha
        self.fog_input: Variable | None = None
        self.frag_coord: Variable | None = None

    # -- values -------------------------------------------------------------

    def input(self, attr: str, make) -> Variable:
        var = getattr(self, attr)
        if var is None:
            var = make()
            setattr(self, attr, var)
        return var

    def fog_coordinate(self, out: list) -> Op:
        def make():
            for v in self.p.variables:
                if v.storage is Storage.INPUT and any(s.usage is DeclUsage.FOG for _, s in v.semantics):
                    if v.type.width == 1:
                        return v
            v = Variable("vFog", Storage.INPUT, F1, semantics=((0x1, Semantic(DeclUsage.FOG, 0)),), mask=0x1)
            self.p.variables.append(v)
            return v
        return self.op(out, Code.LOAD, F1, var=self.input("fog_input", make))

    def depth(self, out: list) -> Op:
        """The fog depth: the clip-space z the vertex shader wrote, at this
        pixel (the window depth 0..1 times the clip w = 1 / frag_coord.w)."""
        def make():
            for v in self.p.variables:
                if v.storage is Storage.INPUT and v.builtin == "frag_coord":
                    return v
            v = Variable("frag_coord", Storage.INPUT, F4, builtin="frag_coord")
            self.p.variables.append(v)
            return v
        fc = self.op(out, Code.LOAD, F4, var=self.input("frag_coord", make))
        z = self.op(out, Code.SWIZZLE, F1, (fc,), (2,))
        return self.op(out, Code.FDIV, F1, (z, self.op(out, Code.SWIZZLE, F1, (fc,), (3,))))

    # -- the epilogue ---------------------------------------------------------

    def emit(self, out: list) -> None:
        if self.alpha:
            self.alpha_test(out)
        if self.fog:
            self.fog_blend(out)

    def alpha_test(self, out: list) -> None:
        op, const = self.op, self.const
        func = None if self.dynamic else self.s.alphafunc
        if func is CmpFunc.ALWAYS:
            return
        if func is CmpFunc.NEVER:
            self.op(out, Code.DISCARD)
            return
        c = op(out, Code.LOAD, F4, var=self.colour)
        a = op(out, Code.SWIZZLE, F1, (c,), (3,))
        # round(a * 255) as DXVK does, NOT saturated first: on a float target
        # D3D9 compares the written value (vkd3d's alpha-test: 1.5 fails
        # EQUAL 255 and passes GREATER 255); NaN compares as 0
        a = op(out, Code.SELECT, F1, (op(out, Code.FNE, B1, (a, a)), const(out, 0.0), a))
        scaled = op(out, Code.FMUL, F1, (a, const(out, 255.0)))
        a8 = op(out, Code.FFLOOR, F1, (op(out, Code.FADD, F1, (scaled, const(out, 0.5))),))
        ref = self.param(out, "alpharef")
        ref = op(out, Code.I2F, F1, (ref,)) if ref.type == I1 else ref
        if func is not None:
            passed = op(out, _COMPARE[func], B1, (a8, ref))
            failed = op(out, Code.BNOT, B1, (passed,))
        else:
            fn = self.param(out, "alphafunc")
            passed = const(out, False, B1)  # NEVER and any value outside 1-8
            for cmp, code in _COMPARE.items():
                hit = op(out, Code.IEQ, B1, (fn, const(out, int(cmp), I1)))
                passed = op(out, Code.SELECT, B1, (hit, op(out, code, B1, (a8, ref)), passed))
            always = op(out, Code.IEQ, B1, (fn, const(out, int(CmpFunc.ALWAYS), I1)))
            passed = op(out, Code.BOR, B1, (passed, always))
            enabled = self.param(out, "alphatestenable")
            failed = op(out, Code.BAND, B1, (enabled, op(out, Code.BNOT, B1, (passed,))))
        op(out, Code.IF, None, (failed,))
        op(out, Code.DISCARD)
        op(out, Code.ENDIF)

    def fog_factor(self, out: list) -> Op:
        op, const = self.op, self.const
        if not self.dynamic:
            mode = self.s.fogtablemode
            if mode is FogMode.NONE:
                return self.fog_coordinate(out)
            z = self.depth(out)
            if mode is FogMode.LINEAR:
                start, end = self.s.fogstart, self.s.fogend
                # D3D's (end - z) / (end - start); end == start gives +-inf
                # or NaN, which the clamp turns into 1 or 0 as hardware does
                return op(out, Code.FDIV, F1, (op(out, Code.FSUB, F1, (const(out, end), z)),
                                               const(out, end - start)))
            dz = op(out, Code.FMUL, F1, (const(out, self.s.fogdensity), z))
            return self.exp_fog(out, dz, mode is FogMode.EXP2)
        mode = self.param(out, "fogtablemode")
        z = self.depth(out)
        end = self.param(out, "fogend")
        linear = op(out, Code.FDIV, F1, (op(out, Code.FSUB, F1, (end, z)),
                                         op(out, Code.FSUB, F1, (end, self.param(out, "fogstart")))))
        dz = op(out, Code.FMUL, F1, (self.param(out, "fogdensity"), z))
        exp, exp2 = self.exp_fog(out, dz, False), self.exp_fog(out, dz, True)
        f = self.fog_coordinate(out)  # NONE (and any value outside 0-3): vertex fog
        for m, value in ((FogMode.EXP, exp), (FogMode.EXP2, exp2), (FogMode.LINEAR, linear)):
            hit = op(out, Code.IEQ, B1, (mode, const(out, int(m), I1)))
            f = op(out, Code.SELECT, F1, (hit, value, f))
        return f

    def exp_fog(self, out: list, dz: Op, squared: bool) -> Op:
        """exp(-dz) or exp(-dz^2), as exp2(-x * log2(e))."""
        op = self.op
        x = op(out, Code.FMUL, F1, (dz, dz)) if squared else dz
        return op(out, Code.FEXP2, F1, (op(out, Code.FMUL, F1, (x, self.const(out, -_LOG2E))),))

    def fog_blend(self, out: list) -> None:
        op = self.op
        if self.dynamic:
            op(out, Code.IF, None, (self.param(out, "fogenable"),))
        f = op(out, Code.FSATURATE, F1, (self.fog_factor(out),))
        c = op(out, Code.LOAD, F4, var=self.colour)
        rgb = op(out, Code.SWIZZLE, F3, (c,), (0, 1, 2))
        if self.dynamic:
            fc = op(out, Code.CONSTRUCT, F3, tuple(self.param(out, f"fogcolor_{x}") for x in "rgb"))
        else:
            fc = op(out, Code.CONST, F3, imm=tuple(float(x) for x in self.s.fogcolor[:3]))
        # lerp(fogcolor, colour, f) = fogcolor + f * (colour - fogcolor)
        ff = op(out, Code.CONSTRUCT, F3, (f, f, f))
        mixed = op(out, Code.FADD, F3, (fc, op(out, Code.FMUL, F3, (ff, op(out, Code.FSUB, F3, (rgb, fc))))))
        op(out, Code.STORE, None, (mixed,), (0x7,), self.colour)
        if self.dynamic:
            op(out, Code.ENDIF)
