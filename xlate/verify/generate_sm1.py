"""Random valid, well-defined ps_1_1–ps_1_4 programs for differential testing.

The shader-model-1 pixel part of ``generate`` (which dispatches here for
``PS1_VERSIONS``): the same abstract interpretation (``generate._Interp``,
abstract values ``AV = (lo, hi, d, err, flags)``) extended with what
ps_1_x adds (D3D9_SEMANTICS §2.6, §2.10–2.12, §3.1–3.6; the reference
interpreter, ``reference_sm1``, is the truth):

* **ps_1_1–1_3** — a texture block, then arithmetic.  Texture ops write
  t0–t3 once each: ``tex``, ``texcoord`` (saturated, w = 1), ``texbem`` /
  ``texbeml`` (stage m's bump matrix and luminance), ``texreg2ar/gb/rgb``,
  ``texm3x2pad``+``texm3x2tex``, ``texm3x3pad``×2 + ``texm3x3tex`` /
  ``texm3x3``, ``texdp3`` / ``texdp3tex``, then ``texkill`` (the raw
  coordinate set's xyz).  The source register n of a texture-address op is
  below its destination m and was written by an earlier texture op.
* **ps_1_4** — one or two phases (``phase``): ``texld r#, t#|r#`` with
  ``_dz`` / ``_dw``, ``texcrd``, ``bem`` (phase 1), ``texkill r#|t#``;
  v# only in phase 2 (or without ``phase``), dependent reads from r# only
  in phase 2.
* Arithmetic: mov, add, sub, mul, mad, lrp, dp3, dp4, cnd (ps_1_1–1_3:
  ``r0.a`` > 0.5 for every component; ps_1_4 per component), cmp; source
  modifiers ``-``, ``_bias``, ``_bx2``, ``1-``, ``_x2`` (ps_1_4); result
  shifts ``_x2 _x4 _d2`` (and ``_x8 _d4 _d8`` in ps_1_4) before ``_sat``;
  co-issued pairs (``+``: one writes .rgb, the other .a, both read before
  either writes).
* Constants c0–c7 are clamped to [−1, 1] (DEF values too: some ``def``
  values lie outside on purpose); the colour r0 is the output ``oC0``.

Stage policy (derived from the shader alone, ``stage_plan``): the texture
kind of stage k is ``STAGE_KINDS[k]`` (translated with the
``sampler_types`` option, ``translate_options``); a 2D or volume stage in
``POINT_STAGES`` sampled only *directly* (``tex t#``, ``texld r#, t#``
without ``_dz``/``_dw``) is POINT-sampled (coordinates on the half grid,
exact results), every other stage LINEAR (one level) or CUBE.

Stages in ``PROJECTED_STAGES`` (ps_1_1-1_3) have D3DTTFF_PROJECTED
(``texture_projection`` COUNT4): ``tex`` and ``texbem``/``texbeml`` divide
tc[m] by .w.

Inputs (``ps1_inputs``): v0/v1 in (0, 1); texture coordinate sets with
x, y in (−2, 2) and z, w in (0.5, 2) (``TEXCOORD_RANGES``: the divisor of
``_dz``/``_dw`` and a cube direction's z stay away from 0; set 3 all in
(0.5, 2)); all affine in
the pixel position, odd multiples of 1/32; API constants in (−2, 2) (so the
clamp bites); bump matrices, luminance scales and offsets multiples of
1/16 in [−1, 1].

Depth: ``texm3x2depth`` (ps_1_3) and ``texdepth r5`` (ps_1_4 phase 2) write
``oDepth`` = z / w clamped to [0, 1], with w kept away from 0.

Not generated: ``texm3x3spec``/``texm3x3vspec`` (the reflection vector's
length and direction cannot be bounded usefully by intervals, and peers
differ on normalising N and E).
"""

from __future__ import annotations

import struct

import numpy as np

from ..bytecode.model import DestOperand, Instruction, Shader, SourceOperand
from ..bytecode.tables import (
    IDENTITY_SWIZZLE,
    OPCODES,
    TEXTURE,
    Comparison,
    DstMod,
    Opcode,
    SamplerType,
    ShaderVersion,
    SrcMod,
    make_swizzle,
    replicate_swizzle,
    swizzle_components,
)
from .generate import (
    CUBE,
    LINEAR,
    POINT,
    TEX_CUBE_ERR,
    TEX_LINEAR_ERR,
    HALF,
    UNIFORM,
    AFFINE,
    ZERO,
    GeneratedProgram,
    GenOptions,
    InputInfo,
    Node,
    O,
    R,
    Reject,
    State,
    _dst,
    _exact,
    _Generator,
    _halfgrid,
    _halfgrid_av,
    _Interp,
    _mag,
    _mask_comps,
    _mk,
    _nospecial,
    _src,
    _texture,
    av_add,
    av_compare,
    av_dot,
    av_exact,
    av_mul,
    av_neg,
    av_sat,
    av_select,
    av_sub,
    pixel_grid,
    ShaderInputs,
)
from .reference import ReferenceConstants
from .reference_sm1 import TextureStage

PS1_VERSIONS = ("ps_1_1", "ps_1_2", "ps_1_3", "ps_1_4")

STAGE_KINDS = {0: "2d", 1: "2d", 2: "volume", 3: "cube", 4: "2d", 5: "volume", 6: "2d", 7: "2d"}
POINT_STAGES = frozenset({0, 2, 4})
# ps_1_1-1_3 stages with D3DTTFF_PROJECTED (translated as texture_projection COUNT4: a
# vertex shader is bound, so the divisor is .w, §2.10); ps_1_4 ignores the flag.
PROJECTED_STAGES = frozenset({1})
TEXCOORD_RANGES = ((-2.0, 2.0), (-2.0, 2.0), (0.5, 2.0), (0.5, 2.0))
# Set 3 is positive everywhere, so that a texm3x2depth row's w (tc[3] · a
# saturated texcoord) stays away from 0.
POSITIVE_SETS = frozenset({3})


def texcoord_ranges(k: int) -> tuple:
    """Per-component (lo, hi) of texture coordinate set k."""
    return ((0.5, 2.0),) * 4 if k in POSITIVE_SETS else TEXCOORD_RANGES
COLOR_RANGE = (0.0, 1.0)
# The ops that sample the texture of stage dst.index (ps_1_4 texld is O.TEX with a source).
SAMPLING_OPS = frozenset({O.TEX, O.TEXBEM, O.TEXBEML, O.TEXREG2AR, O.TEXREG2GB, O.TEXREG2RGB, O.TEXM3x2TEX,
                          O.TEXM3x3TEX, O.TEXDP3TEX, O.TEXM3x3SPEC, O.TEXM3x3VSPEC})
XYZ, XYW = make_swizzle([0, 1, 2, 2]), make_swizzle([0, 1, 3, 3])
_PAD = -1  # State.regs key type of a texm pad row: (_PAD, m) -> (row AV,)
NONE4 = (None,) * 4
ONE = av_exact(1.0)
TWO = av_exact(2.0)
HALF_AV = av_exact(0.5)
# a bump-environment matrix entry / luminance scale or offset: multiples of 1/16 in [-1, 1]
STAGE_VALUE = (-1.0, 1.0, 4, 0.0, UNIFORM | AFFINE)


def is_ps1(version) -> bool:
    if isinstance(version, str):
        version = ShaderVersion.parse(version)
    return version.is_pixel and version.major == 1


# --------------------------------------------------------------------------
# Stage policy (from the shader alone)
# --------------------------------------------------------------------------


def _direct(ins: Instruction) -> bool:
    """A sample at a raw texture coordinate set: ``tex t#`` (ps_1_1-1_3) or
    ``texld r#, t#`` without ``_dz``/``_dw`` (ps_1_4)."""
    if ins.opcode != O.TEX:
        return False
    if not ins.srcs:
        return True
    s = ins.srcs[0]
    return s.type == TEXTURE and s.modifier == SrcMod.NONE


def stage_kind(stage: int, op: Opcode | None = None) -> str:
    """The texture kind of ``stage``; ``texm3x3tex`` samples a volume (a cube
    lookup needs a direction that cannot be short, which a product with a
    fetched normal cannot promise)."""
    return "volume" if op == O.TEXM3x3TEX else STAGE_KINDS[stage]


def stage_role(stage: int, direct: bool, kind: str | None = None) -> str:
    kind = kind or STAGE_KINDS[stage]
    if kind == "cube":
        return CUBE
    return POINT if direct and stage in POINT_STAGES else LINEAR


def stage_plan(shader: Shader) -> dict[int, tuple[str, str]]:
    """{stage: (kind, role)} of every stage a ps_1_x program samples; a
    stage sampled both directly and dependently is LINEAR."""
    direct: dict[int, bool] = {}
    kinds: dict[int, str] = {}
    for ins in shader.instructions:
        if ins.opcode in SAMPLING_OPS and ins.dst is not None:
            k = ins.dst.index
            direct[k] = direct.get(k, True) and _direct(ins)
            kinds[k] = stage_kind(k, ins.opcode)
    return {k: (kinds[k], stage_role(k, d, kinds[k])) for k, d in sorted(direct.items())}


def projected_stages(shader: Shader) -> list[int]:
    """The stages of ``PROJECTED_STAGES`` a ps_1_1-1_3 program projects
    (``tex``, ``texbem``, ``texbeml`` read them)."""
    if shader.version.minor >= 4:
        return []
    return sorted({i.dst.index for i in shader.instructions if i.opcode in (O.TEX, O.TEXBEM, O.TEXBEML)
                   and i.dst.index in PROJECTED_STAGES})


def translate_options(shader: Shader) -> dict:
    """The translation options a generated ps_1_x program needs: the
    ``sampler_types`` of its cube and volume stages (2D is the default) and
    the ``texture_projection`` (COUNT4) of its projected stages."""
    out: dict = {}
    types = {k: kind for k, (kind, _) in stage_plan(shader).items() if kind != "2d"}
    if types:
        out["sampler_types"] = types
    projected = projected_stages(shader)
    if projected:
        out["texture_projection"] = {k: 4 for k in projected}
    return out


_STYPE = {"2d": SamplerType.TEX2D, "volume": SamplerType.VOLUME, "cube": SamplerType.CUBE}


# --------------------------------------------------------------------------
# Abstract interpretation of the ps_1_x additions
# --------------------------------------------------------------------------


def apply_modifier(mod: SrcMod, a: tuple) -> tuple:
    """A ps_1_x source modifier on an AV (§3.1; negation last)."""
    if mod == SrcMod.NONE:
        return a
    if mod == SrcMod.NEG:
        return av_neg(a)
    if mod in (SrcMod.BIAS, SrcMod.BIASNEG):
        r = av_sub(a, HALF_AV)
        return av_neg(r) if mod == SrcMod.BIASNEG else r
    if mod in (SrcMod.SIGN, SrcMod.SIGNNEG):
        r = av_sub(av_mul(TWO, a), ONE)
        return av_neg(r) if mod == SrcMod.SIGNNEG else r
    if mod == SrcMod.COMP:
        return av_sub(ONE, a)
    if mod in (SrcMod.X2, SrcMod.X2NEG):
        r = av_mul(TWO, a)
        return av_neg(r) if mod == SrcMod.X2NEG else r
    raise Reject("modifier")


def _divide(a: tuple, div: tuple) -> tuple:
    """a / div for _dz/_dw: div must stay away from 0 (the texcoord ranges
    keep z, w in (0.5, 2)); a division has rcp's error and a rounding."""
    _nospecial(a, div)
    lo, hi = div[0] - div[3], div[1] + div[3]
    if lo < 0.25 and hi > -0.25:
        raise Reject("_dz/_dw divisor near zero")
    mn = min(abs(lo), abs(hi))
    corners = [x / y for x in (a[0], a[1]) for y in (div[0], div[1])]
    err = a[3] / mn + _mag(a) * div[3] / (mn * mn)
    return _mk(min(corners), max(corners), -1, err, a[4] & div[4] & UNIFORM, 2.0**-21)


class _PS1Interp(_Interp):
    def __init__(self, gen):
        super().__init__(gen)
        self.phase = 2  # ps_1_4: 1 before ``phase`` in a two-phase program
        self.deferred: list | None = None  # writes of a co-issued pair, applied at its end

    # -- reading ---------------------------------------------------------------

    def reg_values(self, st: State, rtype: int, index: int) -> tuple:
        g = self.g
        if rtype == R.TEMP:
            return st.regs.get((rtype, index), NONE4)
        if rtype == TEXTURE:
            if g.ps14:  # read-only coordinates (texld / texcrd / texkill sources)
                return g.input_avs.get((TEXTURE, index), NONE4)
            return st.regs.get((TEXTURE, index), NONE4)  # written by a texture op
        if rtype == R.INPUT:
            if g.ps14 and self.phase == 1:
                raise Reject("v# in ps_1_4 phase 1")
            return g.input_avs.get((R.INPUT, index), NONE4)
        if rtype == R.CONST:
            return g.const_av(index)
        raise Reject(f"unreadable register type {rtype}")

    def read(self, st: State, src: SourceOperand, slots, delta: int = 0) -> list:
        mod = src.modifier
        if mod in (SrcMod.DZ, SrcMod.DW):  # divide before the swizzle (§3.1)
            vals = self.fetch(st, src)
            div = vals[2 if mod == SrcMod.DZ else 3]
            comps = swizzle_components(src.swizzle)
            out = []
            for s in slots:
                a = vals[comps[s]]
                if a is None or div is None:
                    raise Reject("read of an unwritten component")
                out.append(_divide(a, div))
            return out
        plain = SourceOperand(src.type, src.index, src.swizzle, SrcMod.NONE, src.relative)
        return [apply_modifier(mod, a) for a in super().read(st, plain, slots, delta)]

    def texcoord(self, m: int) -> tuple:
        """tc[m]: the raw interpolated coordinate set m."""
        return self.g.input_avs[(TEXTURE, m)]

    def projected_texcoord(self, m: int) -> tuple:
        """tc[m], divided by .w on a projected ps_1_1-1_3 stage."""
        tc = self.texcoord(m)
        if self.g.ps14 or m not in PROJECTED_STAGES:
            return tc
        return tuple(_divide(v, tc[3]) for v in tc[:3]) + (ONE,)

    # -- writing ---------------------------------------------------------------

    def write(self, st: State, ins: Instruction, values: dict):
        k = ins.dst.shift
        if k:  # result shift before saturate (§3.3)
            f = av_exact(2.0**k)
            values = {c: av_mul(v, f) for c, v in values.items()}
        if self.deferred is not None:
            self.deferred.append((ins, values))
            return
        self.store(st, ins, values)

    def store(self, st: State, ins: Instruction, values: dict):
        """The base write (mask, saturate) of values already shifted."""
        noshift = Instruction(ins.opcode, DestOperand(ins.dst.type, ins.dst.index, ins.dst.write_mask,
                                                      ins.dst.modifiers, 0, None), ins.srcs, ins.control)
        super().write(st, noshift, values)

    def node(self, st: State, node: Node) -> State | None:
        partner = getattr(node, "partner", None)
        if partner is None:
            return self.op(st, node.ins)
        # co-issue (§3.6): both read their sources before either writes
        self.deferred = []
        try:
            self.op(st, node.ins)
            self.op(st, partner)
            pending = self.deferred
        finally:
            self.deferred = None
        for ins, values in pending:
            self.store(st, ins, values)
        return st

    # -- instructions --------------------------------------------------------------

    def op(self, st: State, ins: Instruction) -> State | None:
        op = ins.opcode
        g = self.g
        if op == O.PHASE:
            self.phase = 2
            return st
        if op == O.TEXKILL:
            d = ins.dst
            vals = self.reg_values(st, d.type, d.index) if g.ps14 else self.texcoord(d.index)
            for v in vals[:3]:  # xyz only (§2.12)
                if v is None:
                    raise Reject("texkill of an unwritten component")
                av_compare(v, ZERO, Comparison.LT)
            st.killed = True
            return st
        if op in (O.TEXM3x2PAD, O.TEXM3x3PAD):
            st.regs[(_PAD, ins.dst.index)] = (self.row(st, ins), None, None, None)
            return st
        if op in (O.TEXM3x2DEPTH, O.TEXDEPTH):
            # depth = z / w clamped to [0, 1] (§2.11, §2.12); w stays away from 0, so the
            # w == 0 -> 1.0 case never arises.  Neither op writes its register.
            if op == O.TEXM3x2DEPTH:
                z, w = self.pad_rows(st, ins, 1)[0], self.row(st, ins)
            else:
                z, w = self.reg_values(st, ins.dst.type, ins.dst.index)[:2]
                if z is None or w is None:
                    raise Reject("texdepth of an unwritten r5.rg")
            st.regs[(R.DEPTHOUT, 0)] = (av_sat(_divide(z, w)), None, None, None)
            return st
        if ins.dst is not None and ins.dst.type == R.TEMP and ins.dst.index >= g.ntemps:
            raise Reject("temp out of range")
        comps = _mask_comps(ins.dst.write_mask) if ins.dst is not None else []
        if op == O.CND:
            if g.ps14:
                conds = [av_compare(a, HALF_AV, Comparison.GT) for a in self.read(st, ins.srcs[0], comps)]
            else:  # ps_1_1-1_3: r0.a for every component
                conds = [av_compare(self.read(st, ins.srcs[0], [3])[0], HALF_AV, Comparison.GT)] * len(comps)
            s1, s2 = (self.read(st, x, comps) for x in ins.srcs[1:3])
            self.write(st, ins, {c: av_select(conds[i], s1[i], s2[i]) for i, c in enumerate(comps)})
            return st
        if op == O.BEM:
            s0, s1 = self.read(st, ins.srcs[0], [0, 1]), self.read(st, ins.srcs[1], [0, 1])
            full = {0: self.bump(s0[0], s1), 1: self.bump(s0[1], s1)}
            self.write(st, ins, {c: full[c] for c in comps if c < 2})
            return st
        if op in (O.TEX, O.TEXCOORD, O.TEXBEM, O.TEXBEML, O.TEXREG2AR, O.TEXREG2GB, O.TEXREG2RGB, O.TEXM3x2TEX,
                  O.TEXM3x3TEX, O.TEXM3x3, O.TEXDP3, O.TEXDP3TEX):
            full = self.texture_op(st, ins)
            self.write(st, ins, {c: full[c] for c in comps})
            return st
        return super().op(st, ins)

    def bump(self, base: tuple, s: list) -> tuple:
        """base + M·s for one row of a bump-environment matrix (entries STAGE_VALUE)."""
        return av_add(base, av_add(av_mul(STAGE_VALUE, s[0]), av_mul(STAGE_VALUE, s[1])))

    def row(self, st: State, ins: Instruction) -> tuple:
        """tc[dst].xyz · t(n).xyz, a texm3x* row (§2.11)."""
        return av_dot(self.texcoord(ins.dst.index)[:3], self.read(st, ins.srcs[0], [0, 1, 2]))

    def pad_rows(self, st: State, ins: Instruction, count: int) -> list:
        m = ins.dst.index
        rows = []
        for k in range(count, 0, -1):
            r = st.regs.pop((_PAD, m - k), None)
            if r is None:
                raise Reject("texm op without its pads")
            rows.append(r[0])
        return rows

    def texture_op(self, st: State, ins: Instruction) -> dict:
        """The four result AVs of a ps_1_x texture op writing t(m)/r(m)."""
        op, m = ins.opcode, ins.dst.index
        g = self.g
        if op == O.TEX:
            if not ins.srcs:  # tex t#
                return self.sample(st, m, list(self.projected_texcoord(m)[:3]), True)
            src = ins.srcs[0]  # texld r#, src: the components the stage's dimension uses
            slots = [0, 1] if STAGE_KINDS[m] == "2d" else [0, 1, 2]
            return self.sample(st, m, self.read(st, src, slots), _direct(ins))
        if op == O.TEXCOORD:
            if not ins.srcs:  # texcoord t#: saturate, w = 1
                return {**{c: av_sat(v) for c, v in enumerate(self.texcoord(m)[:3])}, 3: ONE}
            vals = self.read(st, ins.srcs[0], _mask_comps(ins.dst.write_mask))  # texcrd: a copy
            return dict(zip(_mask_comps(ins.dst.write_mask), vals))
        if g.ps14:
            raise Reject(f"{op.name} in ps_1_4")
        if op in (O.TEXBEM, O.TEXBEML):
            tc = self.projected_texcoord(m)  # only tc is projected, before the displacement
            s = self.read(st, ins.srcs[0], [0, 1, 2])
            out = self.sample(st, m, [self.bump(tc[0], s), self.bump(tc[1], s), tc[2]], False)
            if op == O.TEXBEML:
                lum = av_sat(av_add(av_mul(s[2], STAGE_VALUE), STAGE_VALUE))
                out = {c: av_mul(v, lum) for c, v in out.items()}
            return out
        if op in (O.TEXREG2AR, O.TEXREG2GB, O.TEXREG2RGB):
            s = self.read(st, ins.srcs[0], [0, 1, 2, 3])
            coord = {O.TEXREG2AR: [s[3], s[0]], O.TEXREG2GB: [s[1], s[2]], O.TEXREG2RGB: s[:3]}[op]
            return self.sample(st, m, coord, False)
        if op == O.TEXM3x2TEX:
            u = self.pad_rows(st, ins, 1)[0]
            return self.sample(st, m, [u, self.row(st, ins)], False)
        if op in (O.TEXM3x3TEX, O.TEXM3x3):
            n = self.pad_rows(st, ins, 2) + [self.row(st, ins)]
            if op == O.TEXM3x3:
                return {0: n[0], 1: n[1], 2: n[2], 3: ONE}
            return self.sample(st, m, n, False, stage_kind(m, op))
        if op == O.TEXDP3:
            r = self.row(st, ins)
            return {c: r for c in range(4)}
        if op == O.TEXDP3TEX:
            return self.sample(st, m, [self.row(st, ins)], False)
        raise Reject(op.name)

    def sample(self, st: State, stage: int, coord: list, direct: bool, kind: str | None = None) -> dict:
        """Four result AVs of sampling ``stage`` (its kind and role from the
        stage policy) at ``coord`` (missing components are 0)."""
        self.need_derivatives(st)
        kind = kind or STAGE_KINDS[stage]
        role = stage_role(stage, direct, kind)
        dims = 2 if kind == "2d" else 3
        coord = (list(coord) + [ZERO] * 3)[:dims]
        for v in coord:
            if v is None:
                raise Reject("coordinate unwritten")
        _nospecial(*coord)
        if role == POINT:
            for v in coord:
                if not v[4] & HALF:  #: an odd multiple of 1/32, never on a texel boundary
                    raise Reject("point-sampled coordinate off the half grid")
            r = (0.0, 1.0, 4, 0.0, 0)
            return {c: r for c in range(4)}
        err = 0.0
        for v in coord:
            if _mag(v) > 16:
                raise Reject("coordinate range")
            err = max(err, v[3])
        if kind == "cube":
            big = max(min(abs(v[0]), abs(v[1])) if v[0] * v[1] > 0 else 0.0 for v in coord)
            if big < 0.25:
                raise Reject("cube direction may be short")
            r = _mk(0.0, 1.0, -1, TEX_CUBE_ERR + 4 * err, 0)
        else:
            r = _mk(0.0, 1.0, -1, TEX_LINEAR_ERR + 32 * err, 0)
        return {c: r for c in range(4)}


# --------------------------------------------------------------------------
# The generator
# --------------------------------------------------------------------------

_ALPHA_OPS = (O.MOV, O.ADD, O.SUB, O.MUL, O.MAD, O.LRP, O.CND, O.CMP)


class _PS1Generator(_Generator):
    def __init__(self, rng, version: ShaderVersion, opts: GenOptions):
        super().__init__(rng, version, opts)
        self.ps14 = version.minor >= 4
        self.ntemps = 6 if self.ps14 else 2
        self.ntex = 6 if self.ps14 else 4
        self.const_count = self.const_window = 8
        self.abs_ok = False
        self.interp = _PS1Interp(self)
        self.two_phase = False
        self.stage_direct: dict[int, bool] = {}
        self.depth_ready = False  # ps_1_4: r5.g was written away from 0 for texdepth

    # -- static registers -------------------------------------------------------

    def const_av(self, index: int) -> tuple:
        if index in self.defs:  # §3.5: DEF values are clamped too
            return tuple(av_exact(min(max(x, -1.0), 1.0)) for x in self.defs[index])
        if 0 <= index < self.const_count:  # API values in (-2, 2) clamped: multiples of 1/32 in [-1, 1]
            return ((-1.0, 1.0, 5, 0.0, UNIFORM | AFFINE),) * 4
        return (ZERO,) * 4

    def setup(self):
        rng = self.rng
        for k in range(2):
            self._add_input((R.INPUT, k), 0xF, None, k, *COLOR_RANGE)
        for k in range(self.ntex):
            self.inputs.append(InputInfo((TEXTURE, k), 0xF, None, k, -2.0, 2.0))
            self.input_avs[(TEXTURE, k)] = tuple(_halfgrid_av(lo, hi, AFFINE) for lo, hi in texcoord_ranges(k))
        for _ in range(rng.randint(0, 3)):
            idx = rng.randrange(self.const_count)
            if idx in self.defs:
                continue
            if rng.random() < 0.4:  # exact special values, some outside [-1, 1] (clamped)
                vals = tuple(rng.choice([0.0, 1.0, -1.0, 0.5, 2.0, -1.5, 0.25, -0.5, 0.75]) for _ in range(4))
            else:
                vals = tuple((2 * rng.randint(-32, 31) + 1) / 32 for _ in range(4))
            self.defs[idx] = vals
        self.output_masks = {(R.TEMP, 0): 0xF}
        self.dcls = []

    # -- operand choice -----------------------------------------------------------

    def readable(self, st: State, need_exact=False, want=None):
        out = []
        for (rt, idx), vals in st.regs.items():
            if rt in (R.TEMP, TEXTURE) and any(x is not None for x in vals):
                out.append((rt, idx, vals))
        if not (self.ps14 and self.interp.phase == 1):
            for k in range(2):
                out.append((R.INPUT, k, self.input_avs[(R.INPUT, k)]))
        k = self.rng.randrange(self.const_count)
        out.append((R.CONST, k, self.const_av(k)))
        for d in list(self.defs)[:2]:
            out.append((R.CONST, d, self.const_av(d)))
        if need_exact:
            out = [c for c in out if any(x is not None and _exact(x) for x in c[2])] or out
        return out

    def swizzle(self, avail, slots, replicate=False) -> int:
        rng = self.rng
        reps = avail if self.ps14 else [c for c in avail if c >= 2 or self.version.minor >= 4] or avail
        if replicate or rng.random() < 0.25:
            return replicate_swizzle(rng.choice(reps))
        if set(avail) >= {0, 1, 2, 3}:
            return IDENTITY_SWIZZLE
        comps = [c if c in avail else rng.choice(avail) for c in range(4)]
        return comps[0] | comps[1] << 2 | comps[2] << 4 | comps[3] << 6

    def modifier(self, allow=True) -> SrcMod:
        if not allow:
            return SrcMod.NONE
        r = self.rng.random()
        table = [(0.10, SrcMod.NEG), (0.17, SrcMod.BIAS), (0.20, SrcMod.BIASNEG), (0.30, SrcMod.SIGN),
                 (0.34, SrcMod.SIGNNEG), (0.42, SrcMod.COMP)]
        if self.ps14:
            table += [(0.47, SrcMod.X2), (0.50, SrcMod.X2NEG)]
        for p, mod in table:
            if r < p:
                return mod
        return SrcMod.NONE

    def dest(self, st: State, *, allow_output=True, mask=None, writemask_ok=True) -> DestOperand:
        rng = self.rng
        rtype, idx = R.TEMP, rng.randrange(self.ntemps)
        if not self.ps14 and rng.random() < 0.15:
            written = [i for (rt, i) in st.regs if rt == TEXTURE]
            if written:
                rtype, idx = TEXTURE, rng.choice(written)
        if mask is None:
            if self.ps14:
                mask = 0xF if rng.random() < 0.5 else rng.randint(1, 15)
            else:
                mask = rng.choice([0xF, 0xF, 0x7, 0x8])
        mods = DstMod.SATURATE if rng.random() < 0.15 else DstMod.NONE
        shift = 0
        if rng.random() < 0.2:
            shift = rng.choice([1, 2, -1] + ([3, -2, -3] if self.ps14 else []))
        return DestOperand(rtype, idx, mask, mods, shift, None)

    # -- proposals ------------------------------------------------------------------

    def arith_ops(self) -> list:
        ops = [O.MOV, O.ADD, O.ADD, O.SUB, O.MUL, O.MUL, O.MAD, O.MAD, O.LRP, O.DP3, O.CND, O.DP4, O.CMP]
        if self.ps14 and self.interp.phase == 1 and self.two_phase:
            ops += [O.BEM, O.BEM, O.BEM]
        return [o for o in ops if OPCODES[o].allowed_in(self.version)]

    def propose_arith(self, st: State, op, mask=None) -> Instruction:
        rng = self.rng
        d = self.dest(st, mask=mask)
        comps = _mask_comps(d.write_mask)
        if op in (O.DP3, O.DP4):
            if not self.ps14 and d.write_mask == 0x8 and op == O.DP3:
                raise Reject("dp3 in the alpha pipe")
            k = 3 if op == O.DP3 else 4
            return Instruction(op, d, (self.source(st, range(k), prefer_recent=True), self.source(st, range(k))))
        if op == O.BEM:
            d = DestOperand(R.TEMP, d.index, 0x3, d.modifiers, d.shift, None)
            return Instruction(op, d, (self.source(st, [0, 1], prefer_recent=True), self.source(st, [0, 1])))
        if op == O.CND and not self.ps14:
            sel = _src(R.TEMP, 0, replicate_swizzle(3))
            return Instruction(op, d, (sel, self.source(st, comps), self.source(st, comps)))
        nsrc = OPCODES[op].forms[0].nsrc
        srcs = [self.source(st, comps, need_exact=op in (O.CND, O.CMP) and i == 0, prefer_recent=i == 0)
                for i in range(nsrc)]
        return Instruction(op, d, tuple(srcs))

    def make_pair(self, st: State) -> Node:
        """A co-issued pair: one op writes .rgb, the other .a (§3.6)."""
        rng = self.rng
        ops = self.arith_ops()
        vec = self.propose_arith(st, rng.choice([o for o in ops if o != O.BEM]), mask=0x7)
        alpha = self.propose_arith(st, rng.choice([o for o in _ALPHA_OPS if o in ops]), mask=0x8)
        first, second = (vec, alpha) if rng.random() < 0.5 else (alpha, vec)
        second = Instruction(second.opcode, second.dst, second.srcs, second.control, None, True)
        node = Node("op", first)
        node.partner = second  # type: ignore[attr-defined]
        return node

    def arith_block(self, st: State, budget: int) -> tuple[State, list]:
        nodes: list[Node] = []
        used = stall = 0
        rng = self.rng
        while used < budget and stall < 8:
            if rng.random() < 0.2:
                make = lambda: self.make_pair(st)  # noqa: E731
            else:
                op = rng.choice(self.arith_ops())
                make = lambda: Node("op", self.propose_arith(st, op))  # noqa: E731
            made = self.try_node(st, make)
            if made is None:
                stall += 1
                continue
            st, node = made
            nodes.append(node)
            used += 1
            for ins in (node.ins, getattr(node, "partner", None)):
                if ins is not None and ins.dst.type == R.TEMP:
                    key = (R.TEMP, ins.dst.index)
                    if key in self.last_written:
                        self.last_written.remove(key)
                    self.last_written.append(key)
        return st, nodes

    def _try_ops(self, st: State, inss: list) -> State | None:
        s = st.copy()
        try:
            for ins in inss:
                s = self.interp.op(s, ins)
        except Reject:
            return None
        return s

    def _tsrc(self, n: int, sign_ok: bool) -> SourceOperand:
        mod = SrcMod.SIGN if sign_ok and self.rng.random() < 0.35 else SrcMod.NONE
        return _src(TEXTURE, n, IDENTITY_SWIZZLE, mod)

    def tex_block_13(self, st: State) -> tuple[State, list]:
        """ps_1_1-1_3 texture instructions: each t# written once, sources below destinations."""
        rng, v = self.rng, self.version
        nodes: list[Node] = []
        free = list(range(self.ntex))
        forms = ["tex", "tex", "tex", "texcoord", "texbem", "texbeml", "texreg2ar", "texreg2gb", "texreg2rgb",
                 "texm3x2", "texm3x3tex", "texm3x3", "texdp3", "texdp3tex"]
        if v.minor >= 3:
            forms += ["texm3x2depth"] * 4 + ["texcoord"] * 2
        later = v.minor >= 2
        target, done = rng.choice([0, 1, 2, 2, 3, 3, 4]), 0
        for _ in range(24):
            if not free or done >= target:
                break
            form = rng.choice(forms)
            written = sorted(i for (rt, i) in st.regs if rt == TEXTURE)
            dst = _dst(TEXTURE, 0)
            if form in ("tex", "texcoord"):
                m = min(free) if rng.random() < 0.5 else rng.choice(free)
                inss = [Instruction(O.TEX if form == "tex" else O.TEXCOORD, _dst(TEXTURE, m))]
                taken = [m]
            else:
                if not written:
                    continue
                n = rng.choice(written)
                span = {"texm3x2": 2, "texm3x2depth": 2, "texm3x3tex": 3, "texm3x3": 3}.get(form, 1)
                starts = [m for m in free if m > n and all(m + j in free for j in range(span))]
                if not starts:
                    continue
                m = rng.choice(starts)
                taken = list(range(m, m + span))
                simple = {"texbem": O.TEXBEM, "texbeml": O.TEXBEML, "texreg2ar": O.TEXREG2AR,
                          "texreg2gb": O.TEXREG2GB, "texreg2rgb": O.TEXREG2RGB, "texdp3": O.TEXDP3,
                          "texdp3tex": O.TEXDP3TEX}
                if form in simple:
                    op = simple[form]
                    sign_ok = (later or op not in (O.TEXBEM, O.TEXBEML)) and op not in (
                        O.TEXREG2AR, O.TEXREG2GB, O.TEXREG2RGB)
                    inss = [Instruction(op, _dst(TEXTURE, m), (self._tsrc(n, sign_ok),))]
                else:
                    src = self._tsrc(n, form != "texm3x2depth")  # w = tc·t(n) must stay positive
                    if form in ("texm3x2", "texm3x2depth"):
                        if form == "texm3x2depth" and (R.DEPTHOUT, 0) in st.regs:
                            continue
                        last = O.TEXM3x2TEX if form == "texm3x2" else O.TEXM3x2DEPTH
                        inss = [Instruction(O.TEXM3x2PAD, _dst(TEXTURE, m), (src,)),
                                Instruction(last, _dst(TEXTURE, m + 1), (src,))]
                    else:
                        last = O.TEXM3x3TEX if form == "texm3x3tex" else O.TEXM3x3
                        inss = [Instruction(O.TEXM3x3PAD, _dst(TEXTURE, m), (src,)),
                                Instruction(O.TEXM3x3PAD, _dst(TEXTURE, m + 1), (src,)),
                                Instruction(last, _dst(TEXTURE, m + 2), (src,))]
            del dst
            if not all(OPCODES[i.opcode].allowed_in(v) for i in inss):
                continue
            s2 = self._try_ops(st, inss)
            if s2 is None:
                continue
            st = s2
            done += 1
            nodes += [Node("op", i) for i in inss]
            for t in taken:
                free.remove(t)
        return self.kills(st, nodes, [(TEXTURE, k) for k in range(self.ntex)])

    def kills(self, st: State, nodes: list, regs: list) -> tuple[State, list]:
        for _ in range(self.rng.choice([0, 0, 0, 0, 0, 1, 1, 2])):
            rt, k = self.rng.choice(regs)
            s2 = self._try_ops(st, [Instruction(O.TEXKILL, _dst(rt, k))])
            if s2 is not None:
                st = s2
                nodes.append(Node("op", Instruction(O.TEXKILL, _dst(rt, k))))
        return st, nodes

    def tex_block_14(self, st: State, phase: int) -> tuple[State, list]:
        """ps_1_4 texld/texcrd of one phase (each r# once), then texkill."""
        rng = self.rng
        nodes: list[Node] = []
        free = list(range(self.ntemps))
        dependent = phase == 2 and self.two_phase
        earlier = [i for (rt, i) in st.regs if rt == R.TEMP] if dependent else []
        for _ in range(rng.randint(0, 5)):
            if not free:
                break
            k = rng.choice(free)
            crd = rng.random() < 0.3
            if earlier and rng.random() < 0.4:
                src = _src(R.TEMP, rng.choice(earlier), IDENTITY_SWIZZLE, rng.choice([SrcMod.NONE, SrcMod.NONE, SrcMod.DZ]))
            else:
                swizzle = rng.choice([IDENTITY_SWIZZLE] * 3 + [XYZ, XYW])  # t#.xyz / t#.xyw forms
                src = _src(TEXTURE, rng.randrange(self.ntex), swizzle,
                           rng.choice([SrcMod.NONE, SrcMod.NONE, SrcMod.DZ, SrcMod.DW]))
            divided = src.modifier in (SrcMod.DZ, SrcMod.DW)
            if crd:
                if src.type != TEXTURE:
                    continue
                mask = 0x3 if divided else (rng.choice([0xF, 0x7]) if src.swizzle == IDENTITY_SWIZZLE else 0x7)
                ins = Instruction(O.TEXCOORD, _dst(R.TEMP, k, mask), (src,))
            else:
                if divided and STAGE_KINDS[k] != "2d":
                    continue  # z/w of a divided coordinate are not defined (§2.10)
                direct = src.type == TEXTURE and not divided
                if self.stage_direct.get(k, direct) != direct:
                    continue
                ins = Instruction(O.TEX, _dst(R.TEMP, k), (src,))
            s2 = self._try_ops(st, [ins])
            if s2 is None:
                continue
            st = s2
            nodes.append(Node("op", ins))
            free.remove(k)
            if ins.opcode == O.TEX:
                self.stage_direct[k] = _direct(ins)
        if phase == 2 and rng.random() < (0.9 if self.depth_ready else 0.1):
            ins = Instruction(O.TEXDEPTH, _dst(R.TEMP, 5))
            s2 = self._try_ops(st, [ins])
            if s2 is not None:
                st = s2
                nodes.append(Node("op", ins))
        if phase == 2:
            regs = [(TEXTURE, j) for j in range(self.ntex)] + [(R.TEMP, i) for (rt, i) in st.regs if rt == R.TEMP]
            st, nodes = self.kills(st, nodes, regs)
        return st, nodes

    def depth_source(self, st: State) -> tuple[State, list]:
        """ps_1_4 phase 1: write r5.rg with a g away from 0, for texdepth."""
        for _ in range(12):
            op = self.rng.choice([O.MOV, O.ADD, O.MAD, O.MUL])
            try:
                ins = self.propose_arith(st, op, mask=self.rng.choice([0x3, 0xF]))
                ins = Instruction(op, DestOperand(R.TEMP, 5, ins.dst.write_mask, ins.dst.modifiers, ins.dst.shift, None),
                                  ins.srcs)
                s2 = self.interp.op(st.copy(), ins)
                _divide(ONE, s2.regs[(R.TEMP, 5)][1])
            except Reject:
                continue
            return s2, [Node("op", ins)]
        return st, []

    def epilogue(self, st: State) -> tuple[State, list]:
        """Write every component of r0 (the colour) that is not written yet."""
        have = st.regs.get((R.TEMP, 0), NONE4)
        missing = sum(1 << c for c in range(4) if have[c] is None)
        if not missing:
            return st, []
        if not self.ps14:
            missing = 0x7 if missing & 0x7 == missing else (0x8 if missing == 0x8 else 0xF)
        for attempt in range(16):
            op = O.MOV if attempt >= 12 or self.rng.random() < 0.5 else self.rng.choice([O.ADD, O.MUL, O.MAD])
            try:
                d = DestOperand(R.TEMP, 0, missing, DstMod.NONE, 0, None)
                nsrc = OPCODES[op].forms[0].nsrc
                srcs = tuple(self.source(st, _mask_comps(missing), prefer_recent=attempt < 8) for _ in range(nsrc))
                ins = Instruction(op, d, srcs)
                st = self.interp.op(st.copy(), ins)
                return st, [Node("op", ins)]
            except Reject:
                continue
        ins = Instruction(O.MOV, _dst(R.TEMP, 0, missing), (_src(R.CONST, 0),))
        return self.interp.op(st, ins), [Node("op", ins)]

    # -- driver ---------------------------------------------------------------------------

    def run(self) -> GeneratedProgram:
        self.setup()
        rng = self.rng
        st = State()
        main: list[Node] = []
        budget = rng.randint(self.opts.min_instructions, max(self.opts.min_instructions, 12))
        if self.ps14:
            self.two_phase = rng.random() < 0.6
            self.interp.phase = 1 if self.two_phase else 2
            st, nodes = self.tex_block_14(st, self.interp.phase)
            main += nodes
            if self.two_phase:
                st, nodes = self.arith_block(st, rng.randint(0, budget // 2))
                main += nodes
                if rng.random() < 0.4:
                    st, nodes = self.depth_source(st)
                    main += nodes
                    self.depth_ready = bool(nodes)
                main.append(Node("op", Instruction(O.PHASE)))
                self.interp.phase = 2
                st, nodes = self.tex_block_14(st, 2)
                main += nodes
        else:
            st, nodes = self.tex_block_13(st)
            main += nodes
        st, nodes = self.arith_block(st, budget)
        main += nodes
        st, nodes = self.epilogue(st)
        main += nodes
        # final validation of the whole program from scratch
        self.interp.phase = 1 if self.two_phase else 2
        final = self.interp.block(State(), main)
        if final is None:
            raise Reject("main never reaches its end")
        shader = self.assemble(main)
        bounds, written, ranges = {}, {}, {}
        for name, key in (("oC0", (R.TEMP, 0)), ("oDepth", (R.DEPTHOUT, 0))):
            if key not in final.regs:
                continue
            vals = final.regs[key]
            bounds[name] = tuple(0.0 if x is None else float(x[3]) for x in vals)
            written[name] = sum(1 << c for c in range(4) if vals[c] is not None)
            ranges[name] = tuple(None if x is None else (float(x[0]), float(x[1])) for x in vals)
        roles = {k: role for k, (_, role) in stage_plan(shader).items()}
        return GeneratedProgram(shader, self.version, bounds, written, roles, ranges,
                                translate_options=translate_options(shader))

    def assemble(self, main: list) -> Shader:
        items: list[Instruction] = []
        for idx in sorted(self.defs):
            lits = struct.unpack("<4I", struct.pack("<4f", *self.defs[idx]))
            items.append(Instruction(O.DEF, _dst(R.CONST, idx), literals=lits))
        for n in main:
            items.append(n.ins)
            partner = getattr(n, "partner", None)
            if partner is not None:
                items.append(partner)
        return Shader(self.version, tuple(items))


def generate_ps1(rng, version: ShaderVersion, opts: GenOptions) -> GeneratedProgram:
    """One ps_1_x program (raises ``Reject`` when this draw fails)."""
    return _PS1Generator(rng, version, opts).run()


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------


def _reads(shader: Shader) -> tuple[set, set]:
    """(colour inputs, texture coordinate sets) a ps_1_x program reads."""
    colours, sets = set(), set()
    ps14 = shader.version.minor >= 4
    for ins in shader.instructions:
        for s in ins.srcs:
            if s.type == R.INPUT:
                colours.add(s.index)
            elif s.type == TEXTURE and ps14:
                sets.add(s.index)
        d = ins.dst
        if d is not None and d.type == TEXTURE and not ps14:
            sets.add(d.index)  # tex ops read tc[m]; texkill too
        if ins.opcode == O.TEXKILL and d.type == TEXTURE:
            sets.add(d.index)
        if ins.opcode in (O.TEXM3x2TEX, O.TEXM3x3TEX, O.TEXM3x3):
            sets.update(range(d.index - (1 if ins.opcode == O.TEXM3x2TEX else 2), d.index))
    return colours, sets


def _affine(rng: np.random.Generator, coords: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """A column a + b·x + c·y of odd multiples of 1/32 in (lo, hi), b and c
    multiples of 1/16 (as ``generate.random_inputs``)."""
    xmax, ymax = float(coords[:, 0].max()), float(coords[:, 1].max())
    kmax = int((hi - lo) / 4 * 16 // max(1.0, xmax + ymax))
    b = rng.integers(-kmax, kmax + 1) / 16
    c = rng.integers(-kmax, kmax + 1) / 16
    ext = abs(b) * xmax + abs(c) * ymax
    a = float(_halfgrid(rng, lo + ext, hi - ext))
    col = a + b * coords[:, 0] + c * coords[:, 1]
    if col.min() <= lo or col.max() >= hi:
        col = np.full(len(coords), _halfgrid(rng, lo, hi))
    return col


def ps1_inputs(shader: Shader, rng: np.random.Generator, n: int) -> ShaderInputs:
    """Inputs, constants, textures and texture-stage state for a ps_1_x
    program (ranges in the module docstring)."""
    coords = pixel_grid(n)
    colours, sets = _reads(shader)
    inputs: dict = {}
    for k in sorted(colours):
        inputs[("v", k)] = np.stack([_affine(rng, coords, *COLOR_RANGE) for _ in range(4)], 1).astype(np.float32)
    for k in sorted(sets):
        inputs[("t", k)] = np.stack([_affine(rng, coords, lo, hi) for lo, hi in texcoord_ranges(k)], 1).astype(np.float32)
    floats = _halfgrid(rng, -2.0, 2.0, (32, 4)).astype(np.float32)
    constants = ReferenceConstants(floats=floats, ints=np.zeros((16, 4), np.int32), bools=[False] * 16)
    textures = {k: _texture(rng, _STYPE[kind], role, False) for k, (kind, role) in stage_plan(shader).items()}
    stages = {}
    for k in range(8):
        mat = tuple(float(x) for x in rng.integers(-16, 17, 4) / 16.0)
        projected = k in PROJECTED_STAGES and shader.version.minor < 4
        stages[k] = TextureStage(projected, mat, float(rng.integers(-16, 17) / 16.0), float(rng.integers(-16, 17) / 16.0))
    front = np.full(n, bool(rng.integers(0, 2)))
    return ShaderInputs(inputs, constants, textures, n, coords, front, texture_stages=stages)


__all__ = ["PS1_VERSIONS", "STAGE_KINDS", "generate_ps1", "is_ps1", "ps1_inputs", "stage_plan", "translate_options"]
