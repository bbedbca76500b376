"""Draw-time sampler state and sRGB write (``Options.draw_state``).

D3D9 decides at draw time, from the texture bound and the sampler state,
what a texld returns (semantics §2.10 "Runtime semantics"); this pass
spells it out after the texture ops have become SAMPLEs (``texture`` /
``texture_sm1``), after ``io`` and after the fog blend (``drawstate``):

- depthtexture (a D16/D24 texture: shadow compare; baked in both modes):
  the texture passes already gave the SAMPLE three coordinate components
  and ``SampleMode.DEPTH_COMPARE`` (``depth_compare`` below: the
  coordinate's z must survive their narrowing to the sampler's
  dimension); the backend declares the sampler a shadow sampler.  2D only:
  a depth cube or volume sampler is refused (``UnsupportedError``).
- fetch4 (baked in both modes): ``SampleMode.GATHER4`` (2D only).
- srgbtexture: the texel's rgb decoded with the sRGB curve (FETCH4: all
  four reds).  Dynamic: selected by the ``srgbtexture_s<n>`` parameter.
- nulltexture: the lookup reads (0, 0, 0, 1).  Dynamic: selected by the
  ``nulltexture_s<n>`` parameter (Vulkan's null descriptor gives alpha 0).
- srgbwriteenable: at every exit of a pixel shader's main, each colour
  output's rgb is saturated and encoded.  Dynamic: selected by the
  ``srgbwriteenable`` parameter.

Ops are rewritten in place (the SAMPLE object becomes the last op of its
replacement), so no reader needs remapping.  ``program.notes
["stage_state"]`` records what the shader depends on (the reflection's
``stage_state``): only samplers it samples, sRGB write only for a pixel
shader with a colour output.
"""

from __future__ import annotations

from ..bytecode.tables import DeclUsage, SamplerType
from ..drawstate import DrawStateMode
from ..errors import UnsupportedError
from ..ir.ops import Code, Op, SampleMode
from ..ir.program import Program, Storage
from ..ir.types import F1, F4, Scalar, Type
from .drawstate import StateReader, at_exits

DEPTH_COORD_WIDTH = 3  # a 2D shadow lookup's coordinate: u, v and the reference depth
F3 = Type(Scalar.FLOAT, 3)
NULL_TEXEL = (0.0, 0.0, 0.0, 1.0)  # what D3D9 reads from a sampler with no texture

# The sRGB curve (IEC 61966-2-1), as D3D9 hardware and every sRGB format use it.
SRGB_DECODE_KNEE = 0.04045  # encoded values at or below: linear = c / 12.92
SRGB_ENCODE_KNEE = 0.0031308  # linear values at or below: encoded = 12.92 c
SRGB_SLOPE = 12.92
SRGB_A = 0.055
SRGB_GAMMA = 2.4


def dynamic(options) -> bool:
    return options.draw_state_mode is DrawStateMode.DYNAMIC


def depth_compare(sampler, stype: SamplerType, options, origin_offset: int = -1) -> bool:
    """Whether SAMPLEs of ``sampler`` (an s# Variable) are shadow compares;
    the texture passes then keep three coordinate components.  A depth
    texture on a cube or volume sampler is refused."""
    depth = options.draw_state.depthtexture
    if not depth or sampler.register is None or sampler.register[1] not in depth:
        return False
    if stype is not SamplerType.TEX2D:
        raise UnsupportedError(origin_offset, f"draw_state: sampler {sampler.register[1]} is a depth texture, "
                                              f"but the shader samples it as {SamplerType(stype).asm}; only 2D "
                                              "depth compares are supported")
    return True


class Out:
    """Ops appended to a list, each synthetic or with one origin; state
    values through ``drawstate.StateReader`` (constants when baked, LOADs of
    the program's STATE variables when dynamic)."""

    def __init__(self, out: list, program: Program, options, origin: int = -1):
        self.out = out
        self.p = program
        self.o = options
        self.origin = origin
        self.reader: StateReader | None = None

    def op(self, code: Code, type=None, args=(), imm=(), var=None) -> Op:
        o = Op(code, type, tuple(args), tuple(imm), var, self.origin)
        self.out.append(o)
        return o

    def const(self, t: Type, value) -> Op:
        return self.op(Code.CONST, t, imm=(value,) * t.width)

    def const_vec(self, values) -> Op:
        return self.op(Code.CONST, Type(Scalar.FLOAT, len(values)), imm=tuple(float(v) for v in values))

    def param(self, key: str) -> Op:
        """State parameter ``key`` (recorded for the reflection when dynamic)."""
        if self.reader is None:
            self.reader = StateReader(self.p, self.o)
        if self.reader.dynamic:
            keys = self.p.notes.setdefault("stage_state", {}).setdefault("parameters", [])
            if key not in keys:
                keys.append(key)
        return self.reader.param(self.out, key)


def srgb_decode(e: Out, rgb: Op, t: Type = F3) -> Op:
    """Encoded -> linear, per component of type ``t`` (exact curve)."""
    b = Type(Scalar.BOOL, t.width)
    low = e.op(Code.FDIV, t, (rgb, e.const(t, SRGB_SLOPE)))
    shifted = e.op(Code.FDIV, t, (e.op(Code.FADD, t, (rgb, e.const(t, SRGB_A))), e.const(t, 1.0 + SRGB_A)))
    # pow of a negative base is undefined in GLSL: the select never takes
    # that branch, but the value must not poison it (max with 0)
    high = e.op(Code.FPOW, t, (e.op(Code.FMAX, t, (shifted, e.const(t, 0.0))), e.const(t, SRGB_GAMMA)))
    knee = e.op(Code.FLE, b, (rgb, e.const(t, SRGB_DECODE_KNEE)))
    return e.op(Code.SELECT, t, (knee, low, high))


def srgb_encode(e: Out, rgb: Op) -> Op:
    """Linear f3 (saturated first, as UNORM sRGB targets store it) -> encoded f3."""
    c = e.op(Code.FSATURATE, F3, (rgb,))
    low = e.op(Code.FMUL, F3, (c, e.const(F3, SRGB_SLOPE)))
    power = e.op(Code.FPOW, F3, (c, e.const(F3, 1.0 / SRGB_GAMMA)))
    high = e.op(Code.FSUB, F3, (e.op(Code.FMUL, F3, (power, e.const(F3, 1.0 + SRGB_A))), e.const(F3, SRGB_A)))
    knee = e.op(Code.FLE, Type(Scalar.BOOL, 3), (c, e.const(F3, SRGB_ENCODE_KNEE)))
    return e.op(Code.SELECT, F3, (knee, low, high))


def _offset(program: Program, op: Op) -> int:
    if 0 <= op.origin < len(program.instructions):
        return program.instructions[op.origin].offset
    return -1


def run(program: Program, options) -> None:
    ds = options.draw_state
    dyn = dynamic(options)
    if not (dyn or ds.srgbtexture or ds.fetch4 or ds.nulltexture or ds.depthtexture or ds.srgbwriteenable):
        return  # (every shader, with D3D's default state: nothing to do, nothing to note)
    used: dict[str, set[int]] = {"depthtexture": set(), "srgbtexture": set(), "fetch4": set(), "nulltexture": set()}
    if dyn or ds.srgbtexture or ds.fetch4 or ds.nulltexture or ds.depthtexture:
        for fn in list(program.functions.values()):
            _samples(program, options, fn, used)
        if used["nulltexture"] and not dyn:
            # a sampler no lookup reads any more has nothing for the layer to bind
            sampled = {id(op.var) for _, op in program.all_ops() if op.code is Code.SAMPLE}
            program.variables = [v for v in program.variables
                                 if v.storage is not Storage.SAMPLER or id(v) in sampled
                                 or v.register is None or v.register[1] not in used["nulltexture"]]
    write = (dyn or ds.srgbwriteenable) and program.is_pixel and _srgb_write(program, options)
    if any(used.values()) or write:
        notes = program.notes.setdefault("stage_state", {})
        for name, found in used.items():
            if found:
                notes[name] = sorted(found)
        if write:
            notes["srgbwriteenable"] = True


def _samples(program: Program, options, fn, used: dict) -> None:
    ds = options.draw_state
    dyn = dynamic(options)
    out: list[Op] = []
    changed = False
    for op in fn.body:
        if op.code is not Code.SAMPLE or op.var is None or op.var.register is None:
            out.append(op)
            continue
        reg = op.var.register[1]
        if len(op.imm) > 2 and op.imm[2] is SampleMode.DEPTH_COMPARE:
            used["depthtexture"].add(reg)
        if reg in ds.nulltexture and not dyn:
            # D3D9 reads (0, 0, 0, 1) from a sampler with no texture (§2.10)
            op.code, op.type, op.args, op.imm, op.var = Code.CONST, F4, (), NULL_TEXEL, None
            used["nulltexture"].add(reg)
            out.append(op)
            changed = True
            continue
        fetch4 = reg in ds.fetch4
        if fetch4:
            stype = op.imm[1]
            if stype is not SamplerType.TEX2D:
                raise UnsupportedError(_offset(program, op), f"draw_state: FETCH4 on sampler {reg}, which the shader "
                                                             f"samples as {SamplerType(stype).asm} (FETCH4 is 2D only)")
            op.imm = (op.imm[0], stype, SampleMode.GATHER4)
            used["fetch4"].add(reg)
            changed = True
        srgb = dyn or reg in ds.srgbtexture
        null = dyn and not (len(op.imm) > 2 and op.imm[2] is SampleMode.DEPTH_COMPARE)
        if not (srgb or null):
            out.append(op)
            continue
        # the lookup moves to a new op; ``op`` becomes the value its readers see
        raw = Op(Code.SAMPLE, op.type, op.args, op.imm, op.var, op.origin)
        out.append(raw)
        e = Out(out, program, options, op.origin)
        value = raw
        if srgb:
            if fetch4:  # FETCH4's four channels are four texels' reds: all decoded
                decoded = srgb_decode(e, raw, F4)
            else:
                lin = srgb_decode(e, e.op(Code.SWIZZLE, F3, (raw,), (0, 1, 2)))
                decoded = e.op(Code.CONSTRUCT, F4, (lin, e.op(Code.SWIZZLE, F1, (raw,), (3,))))
            if dyn:
                decoded = e.op(Code.SELECT, F4, (e.param(f"srgbtexture_s{reg}"), decoded, raw))
            value = decoded
            used["srgbtexture"].add(reg)
        if null:
            value = e.op(Code.SELECT, F4, (e.param(f"nulltexture_s{reg}"), e.const_vec(NULL_TEXEL), value))
            used["nulltexture"].add(reg)
        _become(op, out)
        changed = True
    if changed:
        fn.body = out
        program.notes.pop("d3d_census", None)


def _become(op: Op, out: list) -> None:
    """``op`` (whose readers are already built) takes the place and fields of
    the last op in ``out``, which nothing reads yet."""
    last = out.pop()
    op.code, op.type, op.args, op.imm, op.var = last.code, last.type, last.args, last.imm, last.var
    out.append(op)


def _colour_outputs(program: Program) -> list:
    return [v for v in program.variables
            if v.storage is Storage.OUTPUT and v.semantic is not None and v.semantic.usage is DeclUsage.COLOR
            and v.type.width == 4]


def _srgb_write(program: Program, options) -> bool:
    """Encode every colour output at every exit of main; False if none."""
    colours = _colour_outputs(program)
    if not colours:
        return False

    def epilogue(out: list) -> None:
        e = Out(out, program, options)
        enabled = e.param("srgbwriteenable") if dynamic(options) else None
        for var in colours:
            value = e.op(Code.LOAD, F4, var=var)
            rgb = e.op(Code.SWIZZLE, F3, (value,), (0, 1, 2))
            encoded = srgb_encode(e, rgb)
            if enabled is not None:
                encoded = e.op(Code.SELECT, F3, (enabled, encoded, rgb))
            e.op(Code.STORE, None, (encoded,), (0x7,), var)

    at_exits(program, epilogue)
    return True

