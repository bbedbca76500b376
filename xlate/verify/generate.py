"""Random valid, well-defined D3D9 programs for differential testing.

``generate(rng, version)`` builds a ``GeneratedProgram`` (a model ``Shader``
plus metadata) for vs_2_0, vs_2_x, vs_3_0, ps_2_0, ps_2_x or ps_3_0
(``VERSIONS``), vs_1_1 (``SM1_VERSIONS``) or ps_1_1-ps_1_4
(``PS1_VERSIONS``, built by ``generate_sm1``);
``random_inputs(shader, rng)`` builds matching inputs, constants and
textures for ``reference.run_shader`` (``ShaderInputs.run(shader)``).
``programs()`` is the hypothesis strategy; ``feature_counts`` tells what a
program exercises.  ``scripts/genprog`` prints programs as assembly.

How "well-defined" is achieved
------------------------------
Every instruction is proposed at random and then checked by an abstract
interpreter (``_Interp``) that tracks, per register component, an
abstract value ``AV = (lo, hi, d, err, flags)``:

* ``lo..hi`` bounds the value over every invocation and every input that
  ``random_inputs`` can produce; ``|value| <= MAX_MAGNITUDE`` is enforced
  except for the deliberate special values below.
* ``d >= 0`` means *exact*: the value is a multiple of ``2**-d`` small
  enough (< 2**24 units) that every IEEE-conforming evaluation order
  (fused or unfused mad, any summation order of a dot product, GLSL's
  ``mix`` formula for lrp) computes it bit for bit.  ``d < 0``: inexact.
* ``err`` bounds how far a conforming implementation may be from the
  reference (the tolerance model, below); exact values have ``err == 0``.
* flags: ``UNIFORM`` (same in every invocation), ``AFFINE`` (affine in the
  pixel position, so coarse and fine derivatives agree), ``HALF`` (an odd
  multiple of 1/32, never on a texel boundary), ``SPECIAL`` (may be
  ±FLT_MAX, from rcp/rsq/log of an exact 0).

A proposed instruction is rejected (and another one proposed) when it
would read a component that is not definitely written on every path
(temps, a0, p0, outputs, undeclared input components), when a
discontinuous operation would consume an inexact operand (slt, sge,
setp, cmp's selector, sgn, frc, mova, ifc, breakc, texkill, lit's tests,
point-sampled texture coordinates) unless the interval decides it with a
margin, when a value or its error bound grows too large, when rcp/rsq/log
see an interval that touches 0 (except an exact +0 from a ``def``: the
deliberate special value), when a relative index may leave the register
file (except the controlled out-of-range fraction for ``c[a0.c + n]``,
which reads 0), or when a derivative (dsx, dsy, implicit-LOD texld) is
not in uniform control flow or follows a texkill.  Loops are re-checked
for every iteration (trip counts <= 4), so loop-carried values are
covered; if/else and loop exits join the states of all paths.

Inputs and constants (``random_inputs``, documented ranges)
-----------------------------------------------------------
* Every float input and API float constant component is an odd multiple
  of 1/32 in [-2, 2] (colour inputs v0/v1 of ps_2_x: in (0, 1)); never 0,
  never on a texel boundary of a point-sampled texture of size <= 16.
* Pixel shaders: ``n`` lanes form a 4-wide grid of 2×2 quads (lane 4k..4k+3
  = TL, TR, BL, BR of quad k; ``pixel_coords`` gives the integer D3D pixel
  position).  Every input is *affine in the pixel position*
  (``a + b·x + c·y`` per component), so a GL runner can feed it as a
  ``noperspective`` varying, and coarse and fine derivatives agree.
* i#: (count 0..3, start 0..4, step -2..2, 0); b#: random; ``vFace``: one
  random facing for all lanes; ``vPos``: the pixel position.
* Samplers (policy from the shader alone, ``sampler_roles``):
  2D/volume samplers with an even number are POINT (single level,
  nearest, texel values multiples of 1/16, random wrap/mirror/clamp/
  border/mirroronce: results exact); odd 2D/volume samplers are LINEAR
  (smooth periodic content, bilinear); cube samplers are LINEAR with
  content a smooth function of the direction (face edges agree).  A
  LINEAR sampler gets a mip chain with distinct levels (trilinear) only
  when no pixel-shader texld/texldb/texldp/texldd reads it (the LOD then
  comes from texldl or is 0 in a vertex shader); otherwise one level, so
  the implementation's LOD approximation cannot matter.

Tolerance model (``GeneratedProgram.error_bounds``)
---------------------------------------------------
For each written output component the generator exports an absolute error
bound derived from these per-operation allowances (assumptions about a
conforming GPU, llvmpipe in particular): basic arithmetic 1 ulp
(2**-23 relative) per rounding; rcp/rsq 2**-21 relative; exp/log/pow
2**-18 relative plus input-error propagation; sin/cos 2**-18 absolute;
bilinear texture results ``TEX_LINEAR_ERR``, cube ``TEX_CUBE_ERR``,
point-sampled textures exact.  Comparators should allow
``max(bound, 1e-6·(1 + |ref|))``.  Exact outputs have bound 0.

Non-finite values and deliberate special values
-----------------------------------------------
Outputs are always finite.  Deliberate special inputs: ``def`` constants
holding exact 0, 1, -1, 0.5, ... feed rcp(0) = rsq(0) = FLT_MAX,
log(0) = -FLT_MAX, rcp(1) = rsq(1) = 1, pow(x, 0) = 1, pow(0, y > 0) = 0,
nrm(0) = 0, and anything × 0 = 0 (legacy multiply) with a ±FLT_MAX
operand.  ±FLT_MAX values only flow into mov, min, max, cmp's selected
operands, saturate and products with an exact 0, so they never turn into
∞ or NaN.  Negative zero is never produced deliberately (the sign of
rcp(-0) is driver-dependent, §7.1).

Other choices: ``mova`` may round exact .5 ties (the reference rounds half
to even; ``GenOptions.mova_ties=False`` avoids them); ``_pp`` and
``_centroid`` appear as hints; sm2 ``sincos`` never leaves a component it
made undefined readable; oPts is never written (its clamp is render
state) and oFog / oDepth are written saturated.

Modules
-------
This module holds the public entry points (``generate``,
``generate_seed``, ``programs``, ``feature_counts``, the version lists)
and re-exports the names of the modules the generator is made of:
``generate_values`` (abstract values, ``State``, the tolerance constants),
``generate_program`` (``Node``, ``GenOptions``, ``GeneratedProgram``,
operand helpers), ``generate_interp`` (``_Interp``),
``generate_instructions`` and ``generate_builder`` (``_Generator``),
``generate_inputs`` (``random_inputs``, ``sampler_roles``, textures);
``generate_sm1*`` add ps_1_x.
"""

from __future__ import annotations

import random
from collections import Counter

from ..bytecode.model import Shader
from ..bytecode.tables import IDENTITY_SWIZZLE, DstMod, Opcode, RegisterType, ShaderVersion, SrcMod, replicate_swizzle

# Re-exported: the names other modules and tests import from here.
from .generate_builder import _call_depth, _count, _flatten, _Generator, _loop_depth  # noqa: F401
from .generate_inputs import (  # noqa: F401
    _ADDRESS,
    _FACE_AXES,
    CUBE,
    LINEAR,
    LINEAR_LOD,
    POINT,
    QUAD_GRID_WIDTH,
    ShaderInputs,
    _cube_level,
    _halfgrid,
    _input_range,
    _roles_from,
    _texture,
    cube_direction,
    cube_value,
    pixel_grid,
    random_inputs,
    sampler_roles,
)
from .generate_instructions import PS3_USAGES, VS_USAGES, _InstructionGenerator  # noqa: F401
from .generate_interp import _has_break, _Interp  # noqa: F401
from .generate_program import (  # noqa: F401
    A0_REL,
    AL_REL,
    MATRIX_SHAPE,
    PER_COMPONENT,
    SCALAR_OPS,
    SCALAR_SLOT,
    SPECIAL_OK,
    Function,
    GeneratedProgram,
    GenOptions,
    InputInfo,
    Node,
    _dst,
    _mask_comps,
    _src,
    _tex_dims,
)
from .generate_values import (  # noqa: F401
    AFFINE,
    ERR_LIMIT,
    EXACT_UNITS,
    FLT_MAX,
    HALF,
    MAX_MAGNITUDE,
    SINCOS_CONST1,
    SINCOS_CONST2,
    SPECIAL,
    TEX_CUBE_ERR,
    TEX_LINEAR_ERR,
    TEX_SRGB_ERR,
    U_BASIC,
    U_RCP,
    U_TRANS,
    UNIFORM,
    ZERO,
    Reject,
    State,
    _away_from_zero,
    _compare_const,
    _decided,
    _exact,
    _fl2,
    _halfgrid_av,
    _is_zero,
    _join_regs,
    _mag,
    _mk,
    _nospecial,
    av_abs,
    av_add,
    av_cmp_zero,
    av_compare,
    av_dot,
    av_exact,
    av_exp,
    av_frc,
    av_join,
    av_log,
    av_minmax,
    av_mul,
    av_neg,
    av_pow,
    av_rcp,
    av_rsq,
    av_sat,
    av_select,
    av_sgn,
    av_sub,
    av_trig,
    join_states,
)
from .textures import SamplerState, Texture  # noqa: F401

R = RegisterType
O = Opcode

VERSIONS = ("vs_2_0", "vs_2_x", "vs_3_0", "ps_2_0", "ps_2_x", "ps_3_0")
# Shader model 1 programs (vs_1_1: no flow control, no _sat, mov a0.x, the
# 4-component expp, frc on .y/.xy), kept apart from VERSIONS so that the
# programs a seed gives for those stay what they were.
SM1_VERSIONS = ("vs_1_1",)
# ps_1_1-ps_1_4: generated by ``generate_sm1`` (texture registers and ops,
# ps_1_x modifiers and shifts, co-issue, ps_1_4 phases).
PS1_VERSIONS = ("ps_1_1", "ps_1_2", "ps_1_3", "ps_1_4")
ALL_VERSIONS = VERSIONS + SM1_VERSIONS + PS1_VERSIONS


# --------------------------------------------------------------------------
# Coverage
# --------------------------------------------------------------------------


def feature_counts(shader: Shader) -> Counter:
    """Which opcodes and forms a shader exercises (one count per occurrence)."""
    from ..bytecode.disasm import mnemonic

    c: Counter = Counter()
    v = shader.version
    defs = {i.dst.index: i.float_values for i in shader.instructions if i.opcode == O.DEF}
    defis = {i.dst.index: i.int_values for i in shader.instructions if i.opcode == O.DEFI}
    depth = 0
    for ins in shader.instructions:
        op = ins.opcode
        if op in (O.DCL, O.DEF, O.DEFI, O.DEFB):
            c[op.name.lower()] += 1
            if op == O.DCL and ins.dst.modifiers & DstMod.CENTROID:
                c["dcl_centroid"] += 1
            continue
        name = mnemonic(ins, v)
        if ins.info.comparison:
            c[name.split("_")[0] + "_cmp"] += 1
            c["cmp:" + ins.comparison.name.lower()] += 1
        else:
            c[name.split("_")[0]] += 1
        if op == O.SINCOS:
            c["sincos:sm2" if len(ins.srcs) == 3 else "sincos:sm3"] += 1
        if op == O.SGN:
            c[f"sgn:{len(ins.srcs)}src"] += 1
        if op in (O.LOOP, O.REP, O.IF, O.IFC):
            depth += 1
            c[f"nest:{depth}"] += 1
        if op in (O.ENDLOOP, O.ENDREP, O.ENDIF):
            depth -= 1
        if op == O.LOOP and ins.srcs[1].index in defis:
            count, start, step, _ = defis[ins.srcs[1].index]
            c["loop:step0" if step == 0 else ("loop:step<0" if step < 0 else "loop:step>0")] += 1
            if count == 0:
                c["loop:count0"] += 1
        if op in (O.LOOP, O.REP) and ins.srcs[-1].index not in defis:
            c["loop:api_count"] += 1
        if op in (O.IF, O.CALLNZ):
            cond = ins.srcs[-1]
            c[f"{name.split('_')[0]}:{'b' if cond.type == R.CONSTBOOL else 'p0'}{'!' if cond.modifier == SrcMod.NOT else ''}"] += 1
        if ins.predicate is not None:
            c["pred"] += 1
            if ins.predicate.modifier == SrcMod.NOT:
                c["pred:not"] += 1
            if op in (O.TEX, O.TEXLDL, O.TEXLDD):
                c["pred:tex"] += 1
            if ins.predicate.swizzle != replicate_swizzle(ins.predicate.swizzle & 3):
                c["pred:swizzle"] += 1
        d = ins.dst
        if d is not None and op not in (O.TEXKILL,):
            if d.saturate:
                c["dst:sat"] += 1
            if d.partial_precision:
                c["dst:pp"] += 1
            if d.write_mask != 0xF and d.type not in (R.PREDICATE,):
                c["dst:partial_mask"] += 1
            if d.relative is not None:
                c["rel:o[aL]"] += 1
            if d.type not in (R.TEMP, R.ADDR, R.PREDICATE):
                c["dst:output"] += 1
        for i, s in enumerate(ins.srcs):
            if s.type in (R.LABEL, R.LOOP, R.CONSTINT):
                continue
            if s.modifier != SrcMod.NONE:
                c["mod:" + s.modifier.name.lower()] += 1
            if s.type != R.SAMPLER and s.swizzle != IDENTITY_SWIZZLE:
                c["swizzle"] += 1
            if s.type == R.SAMPLER and s.swizzle != IDENTITY_SWIZZLE:
                c["sampler_swizzle"] += 1
            if s.relative is not None:
                reg = "c" if s.type == R.CONST else "v"
                c[f"rel:{reg}[{'aL' if s.relative.type == R.LOOP else 'a0'}]"] += 1
            if s.type == R.MISCTYPE:
                c["vPos" if s.index == 0 else "vFace"] += 1
            if op in (O.RCP, O.RSQ, O.LOG, O.LOGP) and s.type == R.CONST and s.index in defs and s.relative is None:
                val = defs[s.index][(s.swizzle >> (2 * SCALAR_SLOT)) & 3]
                if val == 0.0:
                    c[f"special:{op.name.lower()}(0)"] += 1
                elif val == 1.0:
                    c[f"special:{op.name.lower()}(1)"] += 1
    return c


# --------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------


def generate(rng: random.Random, version: str | ShaderVersion | None = None,
             options: GenOptions | None = None) -> GeneratedProgram:
    """One program for ``version`` (a random one of ``VERSIONS`` if None)."""
    opts = options or GenOptions()
    if version is None:
        version = rng.choice(VERSIONS)
    if isinstance(version, str):
        version = ShaderVersion.parse(version)
    make = _Generator
    if version.is_pixel and version.major == 1:
        from .generate_sm1 import _PS1Generator as make
    for _ in range(20):
        try:
            return make(rng, version, opts).run()
        except Reject:
            continue
    raise RuntimeError("could not generate a program")  # pragma: no cover


def generate_seed(seed: int, version=None, options: GenOptions | None = None) -> GeneratedProgram:
    """``generate(random.Random(seed), version)``: reproducible from the seed."""
    return generate(random.Random(seed), version, options)


def programs(versions=VERSIONS, options: GenOptions | None = None, *, shrinkable: bool = False):
    """A hypothesis strategy of ``GeneratedProgram``.

    By default each example draws a 64-bit seed (fast, reproducible, the
    seed shrinks but the program does not simplify); ``shrinkable=True``
    drives every choice through hypothesis (slower: ~50 µs per choice)."""
    from hypothesis import strategies as st

    vs = st.sampled_from(list(versions))
    if shrinkable:
        return st.tuples(vs, st.randoms(use_true_random=False)).map(lambda t: generate(t[1], t[0], options))
    return st.tuples(vs, st.integers(0, 2**64 - 1)).map(lambda t: generate_seed(t[1], t[0], options))
