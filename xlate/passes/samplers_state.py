"""Draw-time sampler state and sRGB write, baked (``Options.stage_state``).

D3D9 decides at draw time, from the texture bound and the sampler state,
what a texld returns (semantics §2.10 "Runtime semantics"); a translation
specialised for that state spells it out here, after the texture ops have
become SAMPLEs (``texture`` / ``texture_sm1``) and after ``io``:

- depth (D16/D24 texture: shadow compare): the texture passes already gave
  the SAMPLE three coordinate components and ``SampleMode.DEPTH_COMPARE``
  (``depth_compare`` below: the coordinate's z must survive their
  narrowing to the sampler's dimension); the backend declares the sampler
  as a shadow sampler.  Only 2D samplers: a depth cube or volume texture is
  refused (``UnsupportedError``), never sampled as colour.
- fetch4: ``SampleMode.GATHER4`` (2D only, as ATI's FETCH4).
- srgb: the texel's rgb decoded with the sRGB curve (alpha unchanged).
- unbound: the SAMPLE becomes the constant (0, 0, 0, 1).
- srgb_write: at every exit of a pixel shader's main, each colour output's
  rgb is saturated and encoded with the sRGB curve.

The ops are rewritten in place (the SAMPLE object becomes the last op of
its replacement), so no reader needs remapping.  ``program.notes
["stage_state"]`` records what the shader depends on (the reflection's
``stage_state``): only samplers it samples, sRGB write only for a pixel
shader with a colour output.
"""

from __future__ import annotations

from ..bytecode.tables import DeclUsage, SamplerType
from ..errors import UnsupportedError
from ..ir.ops import Code, Op, SampleMode
from ..ir.program import Program, Storage
from ..ir.types import F1, F4, Scalar, Type

DEPTH_COORD_WIDTH = 3  # a 2D shadow lookup's coordinate: u, v and the reference depth
B3 = Type(Scalar.BOOL, 3)
F3 = Type(Scalar.FLOAT, 3)

# The sRGB curve (IEC 61966-2-1), as D3D9 hardware and every sRGB format use it.
SRGB_DECODE_KNEE = 0.04045  # encoded values at or below: linear = c / 12.92
SRGB_ENCODE_KNEE = 0.0031308  # linear values at or below: encoded = 12.92 c
SRGB_SLOPE = 12.92
SRGB_A = 0.055
SRGB_GAMMA = 2.4


def state_of(options):
    return getattr(options, "stage_state", None)


def depth_compare(sampler, stype: SamplerType, options, origin_offset: int = -1) -> bool:
    """Whether SAMPLEs of ``sampler`` (an s# Variable) are shadow compares;
    the texture passes then keep three coordinate components.  A depth
    texture on a cube or volume sampler is refused."""
    state = state_of(options)
    if state is None or not state.depth or sampler.register is None:
        return False
    if sampler.register[1] not in state.depth:
        return False
    if stype is not SamplerType.TEX2D:
        raise UnsupportedError(origin_offset, f"stage_state: sampler {sampler.register[1]} is a depth texture, "
                                              f"but the shader samples it as {stype.name.lower()}; only 2D depth "
                                              "compares are supported")
    return True


class _Out:
    """Ops appended to a list, each synthetic or with one origin."""

    def __init__(self, out: list, origin: int = -1):
        self.out = out
        self.origin = origin

    def op(self, code: Code, type=None, args=(), imm=(), var=None) -> Op:
        o = Op(code, type, tuple(args), tuple(imm), var, self.origin)
        self.out.append(o)
        return o

    def const(self, t: Type, value: float) -> Op:
        return self.op(Code.CONST, t, imm=(float(value),) * t.width)


def srgb_decode(e: _Out, rgb: Op, t: Type = F3) -> Op:
    """Encoded -> linear, per component of type ``t`` (exact curve)."""
    b = Type(Scalar.BOOL, t.width)
    low = e.op(Code.FDIV, t, (rgb, e.const(t, SRGB_SLOPE)))
    shifted = e.op(Code.FDIV, t, (e.op(Code.FADD, t, (rgb, e.const(t, SRGB_A))), e.const(t, 1.0 + SRGB_A)))
    # pow of a negative base is undefined in GLSL: the select never takes
    # that branch, but the value must not poison it (max with 0)
    high = e.op(Code.FPOW, t, (e.op(Code.FMAX, t, (shifted, e.const(t, 0.0))), e.const(t, SRGB_GAMMA)))
    knee = e.op(Code.FLE, b, (rgb, e.const(t, SRGB_DECODE_KNEE)))
    return e.op(Code.SELECT, t, (knee, low, high))


def srgb_encode(e: _Out, rgb: Op) -> Op:
    """Linear f3 (saturated first, as UNORM sRGB targets store it) -> encoded f3."""
    c = e.op(Code.FSATURATE, F3, (rgb,))
    low = e.op(Code.FMUL, F3, (c, e.const(F3, SRGB_SLOPE)))
    power = e.op(Code.FPOW, F3, (c, e.const(F3, 1.0 / SRGB_GAMMA)))
    high = e.op(Code.FSUB, F3, (e.op(Code.FMUL, F3, (power, e.const(F3, 1.0 + SRGB_A))), e.const(F3, SRGB_A)))
    knee = e.op(Code.FLE, B3, (c, e.const(F3, SRGB_ENCODE_KNEE)))
    return e.op(Code.SELECT, F3, (knee, low, high))


def _offset(program: Program, op: Op) -> int:
    if 0 <= op.origin < len(program.instructions):
        return program.instructions[op.origin].offset
    return -1


def run(program: Program, options) -> None:
    state = state_of(options)
    if state is None:
        return
    used: dict[str, set[int]] = {"depth": set(), "srgb": set(), "fetch4": set(), "unbound": set()}
    if state.samples():
        for fn in program.functions.values():
            _samples(program, fn, state, used)
        if used["unbound"]:
            # a sampler no lookup reads any more has nothing for the layer to bind
            sampled = {id(op.var) for _, op in program.all_ops() if op.code is Code.SAMPLE}
            program.variables = [v for v in program.variables
                                 if v.storage is not Storage.SAMPLER or id(v) in sampled
                                 or v.register is None or v.register[1] not in used["unbound"]]
    srgb_write = state.srgb_write and program.is_pixel and _srgb_write(program)
    notes = program.notes.setdefault("stage_state", {})
    for name, found in used.items():
        if found:
            notes[name] = sorted(found)
    if srgb_write:
        notes["srgb_write"] = True


def _samples(program: Program, fn, state, used: dict) -> None:
    body = fn.body
    out: list[Op] = []
    changed = False
    for op in body:
        if op.code is not Code.SAMPLE or op.var is None or op.var.register is None:
            out.append(op)
            continue
        reg = op.var.register[1]
        mode = op.imm[2] if len(op.imm) > 2 else None
        if mode is SampleMode.DEPTH_COMPARE:
            used["depth"].add(reg)
        if reg in state.unbound:
            # D3D9 reads (0, 0, 0, 1) from a sampler with no texture (§2.10)
            op.code, op.args, op.imm, op.var = Code.CONST, (), (0.0, 0.0, 0.0, 1.0), None
            used["unbound"].add(reg)
            out.append(op)
            changed = True
            continue
        if reg in state.fetch4:
            stype = op.imm[1]
            if stype is not SamplerType.TEX2D:
                raise UnsupportedError(_offset(program, op), f"stage_state: FETCH4 on sampler {reg}, which the "
                                                             f"shader samples as {stype.name.lower()} (FETCH4 is 2D only)")
            op.imm = (op.imm[0], stype, SampleMode.GATHER4)
            used["fetch4"].add(reg)
            changed = True
        if reg in state.srgb:
            # the lookup moves to a new op; ``op`` becomes the decoded texel
            raw = Op(Code.SAMPLE, op.type, op.args, op.imm, op.var, op.origin)
            out.append(raw)
            e = _Out(out, op.origin)
            if reg in state.fetch4:
                # FETCH4's four channels are four texels' reds: all decoded
                lin = srgb_decode(e, raw, F4)
                op.code, op.args, op.imm, op.var = Code.SWIZZLE, (lin,), (0, 1, 2, 3), None
            else:
                rgb = e.op(Code.SWIZZLE, F3, (raw,), (0, 1, 2))
                lin = srgb_decode(e, rgb)
                alpha = e.op(Code.SWIZZLE, F1, (raw,), (3,))
                op.code, op.args, op.imm, op.var = Code.CONSTRUCT, (lin, alpha), (), None
            used["srgb"].add(reg)
            changed = True
        out.append(op)
    if changed:
        fn.body = out
        program.notes.pop("d3d_census", None)


def _colour_outputs(program: Program) -> list:
    return [v for v in program.variables
            if v.storage is Storage.OUTPUT and v.semantic is not None and v.semantic.usage is DeclUsage.COLOR]


def _srgb_write(program: Program) -> bool:
    """Encode every colour output at every exit of main; False if none."""
    colours = _colour_outputs(program)
    if not colours:
        return False

    def epilogue(out: list) -> None:
        e = _Out(out)
        for var in colours:
            value = e.op(Code.LOAD, F4, var=var)
            rgb = srgb_encode(e, e.op(Code.SWIZZLE, F3, (value,), (0, 1, 2)))
            e.op(Code.STORE, None, (rgb,), (0x7,), var)

    at_exits(program, epilogue)
    return True


def at_exits(program: Program, emit) -> None:
    """Run ``emit(list)`` at the end of main and before each RETURN in main."""
    main = program.main
    if any(op.code is Code.RETURN for op in main.body):
        out: list[Op] = []
        for op in main.body:
            if op.code is Code.RETURN:
                emit(out)
            out.append(op)
        main.body = out
    emit(main.body)
