"""Differential testing: the same shader on the reference interpreter and on
OpenGL (Mesa llvmpipe through ``xlate.verify.gl``), with the same seeded
random inputs, constants and textures, compared within stated tolerances.

Entry points
------------
``check_shader(data, seeds=1, seed=0, target="glsl330")`` -> ``Verdict``
    one shader blob: a vertex shader runs alone through transform feedback,
    a pixel shader with the runner's pass-through vertex shader.
``check_pair(vs_data, ps_data, ...)`` -> ``Verdict``
    a VS+PS pair linked as one program (see "Pairs" below).
``check_generated(program, seed, target="glsl330")`` -> ``Verdict``
    a ``generate.GeneratedProgram`` with its own inputs (``random_inputs``)
    and the generator's per-output error bounds.
``Verdict.ok`` / ``.status`` ("pass", "fail", "error", "skip"),
``Verdict.report()`` the text the CLI prints (``xlate verify``).

``check_shader`` and ``check_generated`` take ``runner=``: None for the GL
runner, or another runner with the same ``run_vertex`` and ``draw``
(``vk.runner()`` with ``target="vulkan"`` or ``"spirv"``): vertex shaders
through its ``run_vertex``, pixel shaders through its ``draw`` with its
pass-through VS (a SPIR-V PS gets its probe output written into its words,
``spirv_edit.probe``).

Draw states (``check_generated(..., draw_state=, draw_state_mode=)``; the
random ones of ``random_state.py``): a pixel program is drawn with the
state (fog, alpha test, sRGB read/write, depth-compare textures, unbound
samplers), which the reference applies too; a vertex program's clip
distances and clamped point size are captured and compared with the
reference's (``reference.clip_distances`` / ``point_sizes``).

What runs
---------
* Vertex shaders: ``n`` vertices (64 by default) of random attributes, one
  invocation each (``GLRunner.run_vertex``); every output the reflection
  lists is captured.  The position is compared in D3D clip space (the
  runner undoes the io fix-ups; its viewport uniform is 0, so the
  half-pixel offset is not exercised here).
* Pixel shaders: a 4-pixel-wide grid of 2×2 quads (``generate.pixel_grid``),
  each drawn as its own square whose edges lie on pixel boundaries
  (``_quads``), so each quad can have its own input values: every input is
  affine in the D3D pixel position, which the interpolator reproduces
  exactly (measured: bit-exact on llvmpipe for the values used), and
  coarse and fine derivatives of inputs agree.  Killed pixels (texkill) and
  ``oDepth`` are read through a probe render target (``_probe_shader``).
  vFace: the triangle is wound D3D-front or D3D-back as the seed decides;
  vPos: the pixel position.

Inputs (``make_inputs``)
------------------------
Generated programs use ``generate.random_inputs`` unchanged (their error
bounds assume it).  Corpus shaders get random values on a fine grid: every
float input and API float constant component a non-zero multiple of 2**-18
in (-2, 2) (sm1/sm2 pixel-shader colour inputs in (0, 1)), so that sums of
a few of them almost never hit a texel boundary or a compare threshold
exactly (``_fine``); pixel-shader inputs are affine per 2×2 quad with
slopes that are multiples of 1/16; i# = (count 0..3, start 0..4, step -2..2,
0); random b#.  Textures (corpus shaders): POINT sampling, one level, so
the level of detail (and the driver's approximation of it) cannot matter;
texel values multiples of 1/16; random wrap/mirror/clamp/border/mirroronce;
2D and volume sizes 2..16 (powers of two), cube faces 4x4.  ps_1_x
texture-stage state (bump-environment matrix, luminance scale and offset):
multiples of 1/16 in [-1, 1].

Tolerance model
---------------
Generated programs: ``max(bound, 1e-6 * (1 + |ref|))`` per output component,
``bound`` from ``GeneratedProgram.error_bounds`` (see generate.py).

Corpus shaders: each output component gets a class from the operations that
can feed it (``operation_classes``: a static backward slice over registers,
to a fixed point over the instruction stream, so loops and calls are
covered; selectors of cmp/cnd, conditions and texture coordinates of
point-sampled fetches are not "feeding" values, only choosers):

=========  ===========================================  =========================
class      operations                                   tolerance (plus spread)
=========  ===========================================  =========================
exact      mov, mova, min, max, cmp, cnd, slt, sge,     0 (bit-exact; -0 == +0)
           sgn, abs, frc, modifiers, point texture
           fetches, inputs, constants
arith      add, mul, mad, dp2add, dp3, dp4, the matrix  2**-20 * |ref| (8 ulps)
           macros, lrp, crs, dst, ps_1_x texture
           arithmetic (texm3x*, texdp3, bem, ...)
trans      rcp, rsq, nrm, exp, expp, log, logp, pow,    2**-16 * (1 + |ref|)
           lit, sincos
filtered   linear-filtered texture results              2**-8 (only when linear
                                                         sampling is asked for)
=========  ===========================================  =========================

The class term covers rounding where the value is well-conditioned.
Conditioning is measured, not guessed: the reference also runs on inputs and
API constants each multiplied by (1 ± 2**-16) with random signs, in
antithetic pairs (``perturbations`` runs; default one pair).  ``spread`` is
the largest deviation of those runs from the unperturbed one; the tolerance
is ``class tolerance + 2 * spread``.  That covers cancellation (a − b with
a ≈ b moves by about 2**-16·|a|, far more than any rounding difference)
and error growth through long chains.  A component is *ill-conditioned*
and left out (counted as "skipped") when the spread exceeds
``2**-8 * (1 + |ref|)``, when the perturbed runs disagree on texkill, or
when some runs are finite and others not: a tiny change flips a comparison,
a texel, a loop count or a relative index there, so any implementation may
legitimately give another value.  Non-finite reference values must come
back as the same kind (NaN, +inf, -inf); in the corpora only shaders that
meet the pow(0, y < 0) translator bug (see the corpus test) reach them.
``oDepth`` is compared after
clamping to [0, 1] (the depth buffer's range).  The position's z is
compared with 2**-22 * (|z| + |w|) extra, the rounding of the clip-z
fix-up the runner undoes.

What is compared: per lane, the components the reference says were written
(``Result.trace`` >= 0); for vs_1_x/2_x the whole oD#/oT# registers too
(unwritten components read 1 for oD0, 0 otherwise, in the reference and in
the translation's fixed outputs); oFog and oPts in x; texkill per pixel.
Outputs the translation writes but the reference never produced (fixed
outputs of vs_1_x/2_x) are not compared.

Verdicts
--------
On a mismatch the verdict names the first bad vertex or pixel (D3D pixel
coordinates, y down), the output component, reference and driver values,
the tolerance and its class, and the last instruction that wrote that
component in the reference (``Result.trace``), printed with
``format_instruction``; plus the input values of that lane.

Pairs
-----
``check_pair`` links the translated VS and PS into one program and draws
the vertices as 1-pixel points (the runner's point size clamp is set to
[1, 1]).  Each vertex whose reference position lands strictly inside one
pixel (w > 0, 0 < z/w < 1, not within 0.05 pixel of a pixel edge, no other
vertex on that pixel) gives one compared pixel: the reference pixel shader
runs on the reference vertex outputs linked by semantic (its inputs are
constant over the point, so derivatives are 0 on both sides).  The vertex
outputs are compared through transform feedback as for a VS alone.
"""

from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from ..bytecode.model import Shader
from ..bytecode.tables import OUTPUT, DeclUsage, Opcode, RegisterType, SamplerType
from ..drawstate import DrawState
from .reference import ReferenceConstants, Result, run_shader
from .reference_sm1 import TextureStage
from .textures import SamplerState, Texture

R = RegisterType
O = Opcode
F32 = np.float32

GL_TARGETS = ("glsl120", "glsl330", "glsl450", "essl100", "essl300")
VS_LANES = 64
PS_LANES = 64  # a 4 x 16 pixel image
PERTURB = 2.0**-16
ILL_CONDITIONED = 2.0**-8
SENTINEL = -1.2345678e30  # clear colour: a killed pixel keeps it

EXACT, ARITH, TRANS, FILTERED = 0, 1, 2, 3
CLASS_NAMES = ("exact", "arith", "trans", "filtered")
# (absolute, relative) tolerance per class; see the module docstring
CLASS_TOLERANCE = {EXACT: (0.0, 0.0), ARITH: (0.0, 2.0**-20), TRANS: (2.0**-16, 2.0**-16), FILTERED: (2.0**-8, 2.0**-8)}

__all__ = [
    "Mismatch", "Verdict", "check_shader", "check_pair", "check_generated", "make_inputs",
    "operation_classes", "GL_TARGETS", "gl_available",
]


# --------------------------------------------------------------------------
# Verdicts
# --------------------------------------------------------------------------


@dataclass
class Mismatch:
    """One output component of one lane outside its tolerance."""

    stage: str  # "vertex" | "pixel"
    seed: int
    lane: int
    where: str  # "vertex 3" / "pixel (2, 5)"
    output: str  # reference register name (oC0, oPos, o3 ...)
    component: int  # 0..3, or -1 for texkill
    reference: float
    driver: float
    tolerance: float
    klass: str
    writer: str | None  # "#12 (byte 0x40): mad r0, r1, c2, r3"
    inputs: dict = field(default_factory=dict)  # input name -> 4 values at this lane

    def describe(self) -> str:
        comp = "xyzw"[self.component] if self.component >= 0 else ""
        if self.component < 0:
            what = (f"{self.where}: texkill differs: reference {'killed' if self.reference else 'kept'} it, "
                    f"driver {'killed' if self.driver else 'kept'} it")
        else:
            what = (f"{self.where} {self.output}.{comp}: reference {_fmt(self.reference)}, driver {_fmt(self.driver)} "
                    f"(|diff| {_fmt(abs(self.driver - self.reference)) if _finite(self.reference, self.driver) else 'n/a'}"
                    f", tolerance {_fmt(self.tolerance)}, {self.klass})")
        lines = [f"seed {self.seed}, {what}"]
        if self.component < 0:
            lines.append(f"  texkill instructions: {self.writer or 'none'}")
        else:
            lines.append(f"  last writer: {self.writer or 'none (never written in the reference)'}")
        for name, vals in self.inputs.items():
            lines.append(f"  input {name} = ({', '.join(_fmt(v) for v in vals)})")
        return "\n".join(lines)


def _finite(*xs) -> bool:
    return all(math.isfinite(x) for x in xs)


def _fmt(x: float) -> str:
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.9g}"


@dataclass
class Verdict:
    name: str
    target: str
    status: str = "pass"  # pass | fail | error | skip
    message: str = ""
    version: str = ""
    seeds: list[int] = field(default_factory=list)
    lanes: int = 0
    compared: int = 0  # output components compared
    skipped: int = 0  # ill-conditioned components left out
    killed: int = 0  # lanes the reference killed (texkill)
    mismatches: list[Mismatch] = field(default_factory=list)
    bad_components: int = 0  # total, the list keeps the first few
    bad_by_output: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    asm: str = ""  # the disassembly (for reproducers)

    @property
    def ok(self) -> bool:
        return self.status == "pass"

    def merge_mismatch(self, m: Mismatch, keep: int = 5):
        self.bad_components += 1
        key = f"{m.stage}:{m.output}" + (("." + "xyzw"[m.component]) if m.component >= 0 else "")
        self.bad_by_output[key] = self.bad_by_output.get(key, 0) + 1
        if len(self.mismatches) < keep:
            self.mismatches.append(m)
        self.status = "fail"

    def summary(self) -> str:
        head = f"{self.status.upper()} {self.name} ({self.version or '?'}, {self.target}"
        head += f", seeds {','.join(map(str, self.seeds))})" if self.seeds else ")"
        if self.status in ("error", "skip"):
            return f"{head}: {self.message}"
        text = (f"{head}: {self.lanes} lanes, {self.compared} components compared, "
                f"{self.skipped} skipped as ill-conditioned")
        if self.killed:
            text += f", {self.killed} lanes killed"
        if self.status == "fail":
            kills = sum(v for k, v in self.bad_by_output.items() if k.endswith(":texkill"))
            text += f"; {self.bad_components - kills} components outside tolerance"
            if kills:
                text += f", {kills} pixels with a different texkill"
        return text

    def report(self) -> str:
        lines = [self.summary()]
        if self.status == "fail":
            lines.append("first mismatch: " + self.mismatches[0].describe())
            if len(self.bad_by_output) > 0:
                lines.append("mismatches by output: "
                             + ", ".join(f"{k} {v}" for k, v in sorted(self.bad_by_output.items())))
            for m in self.mismatches[1:]:
                lines.append("also: " + m.describe().splitlines()[0])
        for n in self.notes:
            lines.append(f"note: {n}")
        return "\n".join(lines)


# --------------------------------------------------------------------------
# GL access (xlate.verify.gl) and the adapter for what it lacks
# --------------------------------------------------------------------------


def gl_available() -> str | None:
    """None when GL works here, else the reason."""
    from . import gl

    try:
        gl.runner()
    except gl.GLUnavailable as exc:
        return str(exc)
    return None


PROBE_LOCATION = 4  # D3D9 has 4 colour outputs (0-3): the probe target comes after them


def _probe_shader(code: str, refl: dict) -> tuple[str, dict, bool]:
    """The adapter for what ``gl.GLRunner.draw`` cannot read: whether a pixel
    was discarded, and gl_FragDepth (the runner has no depth attachment and
    draws with the depth test off).  For GLSL 1.30+/ESSL 3.00 the PS's main
    is renamed and a new main calls it, then writes ``vec4(1, depth, 0, 0)``
    to an extra colour output at ``PROBE_LOCATION`` (a discard skips that
    write, so the probe keeps its clear value).  Returns (code, reflection,
    probed); older dialects are returned unchanged (texkill is then judged
    from the colour targets keeping the clear colour, and depth is not
    compared)."""
    import re

    if isinstance(code, (bytes, bytearray)):  # SPIR-V: the same probe, written into the words
        from .spirv_edit import probe

        depth = any(o["glsl"] == "gl_FragDepth" for o in refl["outputs"])
        new_refl = dict(refl)
        new_refl["outputs"] = list(refl["outputs"]) + [
            {"usage": "color", "usage_index": PROBE_LOCATION, "register": PROBE_LOCATION, "mask": "xyzw",
             "glsl": "xl_probe", "location": PROBE_LOCATION}]
        return probe(bytes(code), PROBE_LOCATION, depth), new_refl, True
    m = re.search(r"#version\s+(\d+)(\s+es)?", code)
    ver, es = (int(m.group(1)), bool(m.group(2))) if m else (110, False)
    if (es and ver < 300) or (not es and ver < 130):
        return code, refl, False
    main = re.compile(r"\bvoid\s+main\s*\(\s*(void)?\s*\)")
    if not main.search(code):
        return code, refl, False
    depth = any(o["glsl"] == "gl_FragDepth" for o in refl["outputs"])
    body = code
    body = main.sub("void xl_probe_main()", body, count=1)
    prec = "highp " if es else ""
    decl = f"layout(location = {PROBE_LOCATION}) out {prec}vec4 xl_probe;\n"
    tail = (f"\nvoid main()\n{{\n    xl_probe_main();\n"
            f"    xl_probe = vec4(1.0, {'gl_FragDepth' if depth else '0.0'}, 0.0, 0.0);\n}}\n")
    # declarations go after #version / precision / extension lines
    lines = body.split("\n")
    at = 0
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("#version") or s.startswith("#extension") or s.startswith("precision"):
            at = i + 1
    lines.insert(at, decl)
    new_refl = dict(refl)
    new_refl["outputs"] = list(refl["outputs"]) + [
        {"usage": "color", "usage_index": PROBE_LOCATION, "register": PROBE_LOCATION, "mask": "xyzw",
         "glsl": "xl_probe", "location": PROBE_LOCATION}]
    return "\n".join(lines) + tail, new_refl, True


def _release_programs(codes: Iterable[str]):
    """Drop the runner's cached programs built from these sources (the cache
    would otherwise keep thousands of programs alive in a corpus run)."""
    from . import gl

    r = gl.runner()
    codes = set(codes)
    for key in [k for k in r.programs if any(c in codes for c in k if isinstance(c, str))]:
        prog = r.programs.pop(key)
        try:
            prog.release()
        except Exception:  # noqa: BLE001
            pass


# --------------------------------------------------------------------------
# Static operation classes (the tolerance model's first half)
# --------------------------------------------------------------------------

_EXACT_OPS = {O.MOV, O.MOVA, O.MIN, O.MAX, O.CMP, O.CND, O.SLT, O.SGE, O.SGN, O.ABS, O.FRC, O.SETP, O.TEXCOORD,
              O.TEXKILL, O.TEX, O.TEXLDL, O.TEXLDD, O.DSX, O.DSY, O.TEXREG2AR, O.TEXREG2GB, O.TEXREG2RGB}
_TRANS_OPS = {O.RCP, O.RSQ, O.NRM, O.EXP, O.EXPP, O.LOG, O.LOGP, O.POW, O.LIT, O.SINCOS}
_TEXTURE_OPS = {O.TEX, O.TEXLDL, O.TEXLDD, O.TEXBEM, O.TEXBEML, O.TEXREG2AR, O.TEXREG2GB, O.TEXREG2RGB,
                O.TEXDP3TEX, O.TEXM3x2TEX, O.TEXM3x3TEX, O.TEXM3x3SPEC, O.TEXM3x3VSPEC}


def _op_class(op) -> int:
    if op in _EXACT_OPS:
        return EXACT
    if op in _TRANS_OPS:
        return TRANS
    return ARITH


def operation_classes(shader: Shader, linear_samplers: Iterable[int] = ()) -> dict[tuple[int, int], int]:
    """{(register type, index): class} for every register written: the worst
    class among the operations that can feed it (module docstring).
    Derivatives are exact of an exact value, but dsx/dsy of an inexact one
    are as inexact as it (their class is the operand's)."""
    linear = set(linear_samplers)
    cls: dict[tuple[int, int], int] = {}
    sm1_pixel = shader.version.is_pixel and shader.version.major < 2
    for _ in range(64):
        changed = False
        for ins in shader.instructions:
            op = ins.opcode
            if ins.dst is None or op in (O.DCL, O.DEF, O.DEFI, O.DEFB, O.TEXKILL):
                continue
            srcs = list(ins.srcs)
            if op in (O.CMP, O.CND):
                srcs = srcs[1:]  # the selector only chooses
            worst = _op_class(op)
            if op in _TEXTURE_OPS:
                samplers = [s.index for s in ins.srcs if s.type == R.SAMPLER] or [ins.dst.index]
                if any(s in linear for s in samplers):
                    worst = FILTERED
                if op in (O.TEX, O.TEXLDL, O.TEXLDD) and not sm1_pixel:
                    srcs = []  # point-sampled texels are exact: the coordinates only choose
                elif sm1_pixel and op not in (O.TEXCOORD,):
                    worst = max(worst, ARITH)  # ps_1_x address ops compute coordinates
            for s in srcs:
                if s.type in (R.SAMPLER, R.LABEL, R.CONSTINT, R.CONSTBOOL, R.LOOP):
                    continue
                worst = max(worst, cls.get((int(s.type), s.index), EXACT))
                if s.relative is not None:
                    worst = max(worst, cls.get((int(s.relative.type), s.relative.index), EXACT))
            key = (int(ins.dst.type), ins.dst.index)
            if ins.dst.type in (R.ADDR,) and shader.version.is_vertex:
                worst = EXACT  # a0 selects; its effect shows as ill-conditioning
            if cls.get(key, -1) < worst:
                cls[key] = worst
                changed = True
        if not changed:
            break
    return cls


def _output_register(name: str, shader: Shader) -> tuple[int, int]:
    v = shader.version
    if name == "oPos":
        return int(R.RASTOUT), 0
    if name == "oFog":
        return int(R.RASTOUT), 1
    if name == "oPts":
        return int(R.RASTOUT), 2
    if name == "oDepth":
        return int(R.DEPTHOUT), 0
    if name.startswith("oC"):
        if v.is_pixel and v.major < 2:
            return int(R.TEMP), 0  # ps_1_x colour is r0
        return int(R.COLOROUT), int(name[2:])
    if name.startswith("oD"):
        return int(R.ATTROUT), int(name[2:])
    if name.startswith("oT"):
        return int(R.TEXCRDOUT), int(name[2:])
    if name.startswith("o"):
        return int(OUTPUT), int(name[1:])
    raise ValueError(f"unknown output {name}")


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------


@dataclass
class Inputs:
    """Everything one seed feeds to both sides."""

    reference: dict  # key -> (n, 4): register ("v", 0) or semantic ("texcoord", 0) keys
    constants: ReferenceConstants
    textures: dict[int, Texture]
    n: int
    pixel_coords: np.ndarray | None = None
    front_facing: bool = True
    texture_stages: dict[int, TextureStage] = field(default_factory=dict)
    # pixel shaders: per reference key, (A, B, C), each (quads, 4): in quad q the
    # pixel (dx, dy) from its top-left pixel (dx, dy in {0, 1}) reads
    # A[q] + B[q]*dx + C[q]*dy (``_quad_values``)
    affine: dict = field(default_factory=dict)
    # the translation options that change what the reference computes
    # (``reference_options``): legacy_multiply, infinities
    options: dict = field(default_factory=dict)
    # pixel shaders drawn with fog / the alpha test (xlate.drawstate.DrawState):
    # the state, the fog coordinate's (A, B, C) per quad as for ``affine``
    # (what a vertex shader's oFog would give), and the pixels' depth z (the
    # quads of ``_quads`` lie at z = DEPTH)
    draw_state: Any = None
    fog_affine: tuple | None = None
    depth: float = 0.5

    def run(self, shader: Shader, **options) -> Result:
        kw = dict(inputs=self.reference, constants=self.constants, textures=self.textures, n=self.n,
                  texture_stages=self.texture_stages, **self.options)
        if self.draw_state is not None:
            kw["draw_state"] = self.draw_state
            kw["depth"] = self.depth
            if self.fog_affine is not None:
                kw["fog_coordinate"] = _quad_values(*self.fog_affine)[:, 0]
        if self.pixel_coords is not None:
            kw["pixel_coords"] = self.pixel_coords
            kw["front_facing"] = np.full(self.n, bool(self.front_facing))
        kw.update(options)
        return run_shader(shader, **kw)


GRID = 2.0**-18


def _fine(rng: np.random.Generator, lo: float, hi: float, size=None):
    """Random multiples of 2**-18 strictly inside (lo, hi), never 0: fine
    enough that sums and products of a few of them almost never land on a
    texel boundary or a compare threshold (the coarse grids a generator
    needs for exact arithmetic would: the sum of two odd multiples of 1/32
    is a multiple of 1/16), coarse enough that per-quad affine inputs stay
    exact through interpolation."""
    klo = math.floor(lo / GRID) + 1
    khi = math.ceil(hi / GRID) - 1
    ks = rng.integers(klo, khi + 1, size=size)
    ks = np.where(ks == 0, 1, ks)
    return ks * GRID


def _const_sizes(shader: Shader) -> tuple[int, int, int]:
    v = shader.version
    if v.is_vertex:
        return (8192 if v.is_sw else 256), (2048 if v.is_sw else 16), (2048 if v.is_sw else 16)
    if v.major >= 3 or v.is_sw:
        return 224, 16, 16
    if v.major == 2:
        return 32, 16, 16
    return 8, 0, 0


def _random_constants(shader: Shader, rng: np.random.Generator) -> ReferenceConstants:
    nf, ni, nb = _const_sizes(shader)
    floats = _fine(rng, -2.0, 2.0, (nf, 4)).astype(F32)
    ints = np.zeros((max(ni, 1), 4), np.int32)
    ints[:, 0] = rng.integers(0, 4, len(ints))
    ints[:, 1] = rng.integers(0, 5, len(ints))
    ints[:, 2] = rng.integers(-2, 3, len(ints))
    bools = [bool(x) for x in rng.integers(0, 2, max(nb, 1))]
    return ReferenceConstants(floats=floats, ints=ints, bools=bools)


_ADDRESS = ("wrap", "mirror", "clamp", "border", "mirroronce")


def point_texture(rng: np.random.Generator, kind: str) -> Texture:
    """A one-level POINT-sampled texture of random texels (multiples of 1/16)."""
    state = SamplerState(*(str(rng.choice(_ADDRESS)) for _ in range(3)), mag_filter="point", min_filter="point",
                         mip_filter="none", border_color=tuple(float(x) for x in rng.integers(0, 17, 4) / 16.0))
    if kind == "cube":
        level = rng.integers(0, 17, size=(6, 4, 4, 4)) / 16.0
        return Texture("cube", [level.astype(F32)], state)
    if kind == "volume":
        dims = [int(2 ** rng.integers(1, 4)) for _ in range(3)]
        level = rng.integers(0, 17, size=tuple(reversed(dims)) + (4,)) / 16.0
        return Texture("volume", [level.astype(F32)], state)
    dims = [int(2 ** rng.integers(1, 5)) for _ in range(2)]
    level = rng.integers(0, 17, size=tuple(reversed(dims)) + (4,)) / 16.0
    return Texture("2d", [level.astype(F32)], state)


def _sampler_kinds(shader: Shader, refl: dict) -> dict[int, str]:
    kinds = {s["register"]: s["type"] for s in refl.get("samplers", ())}
    for ins in shader.instructions:
        if ins.opcode == O.DCL and ins.dst.type == R.SAMPLER and ins.dst.index not in kinds:
            t = ins.declaration.sampler_type
            kinds[ins.dst.index] = {SamplerType.CUBE: "cube", SamplerType.VOLUME: "volume"}.get(t, "2d")
    return kinds


def _pixel_input_keys(refl: dict) -> list[tuple[str, int]]:
    return [(i["usage"], int(i["usage_index"])) for i in refl["inputs"] if not i["glsl"].startswith("gl_")]


def make_inputs(shader: Shader, refl: dict, seed: int, n: int | None = None) -> Inputs:
    """Seeded inputs for a corpus shader (ranges in the module docstring)."""
    from .generate import pixel_grid

    rng = np.random.default_rng([seed, 0x5EED])
    v = shader.version
    consts = _random_constants(shader, rng)
    textures = {s: point_texture(rng, kind) for s, kind in sorted(_sampler_kinds(shader, refl).items())}
    stages = {}
    if v.is_pixel and v.major < 2:
        for s in range(8):
            mat = tuple(float(x) for x in rng.integers(-16, 17, 4) / 16.0)
            stages[s] = TextureStage(False, mat, float(rng.integers(-16, 17) / 16.0), float(rng.integers(-16, 17) / 16.0))
    if v.is_vertex:
        n = n or VS_LANES
        inputs = {}
        for i in refl["inputs"]:
            inputs[("v", int(i["register"]))] = _fine(rng, -2.0, 2.0, (n, 4)).astype(F32)
        return Inputs(inputs, consts, textures, n, texture_stages=stages)
    n = n or PS_LANES
    coords = pixel_grid(n)
    nq = n // 4
    inputs, affine = {}, {}
    for key in _pixel_input_keys(refl):
        lo, hi = (0.0, 1.0) if key[0] == "color" and v.major < 3 else (-2.0, 2.0)
        kmax = int((hi - lo) * 2)  # slopes up to (hi - lo) / 8 per pixel, multiples of 1/16
        B = rng.integers(-kmax, kmax + 1, (nq, 4)) / 16.0
        C = rng.integers(-kmax, kmax + 1, (nq, 4)) / 16.0
        A = np.zeros((nq, 4))
        for q in range(nq):
            for comp in range(4):
                lo_a = lo - min(0.0, B[q, comp]) - min(0.0, C[q, comp])
                hi_a = hi - max(0.0, B[q, comp]) - max(0.0, C[q, comp])
                A[q, comp] = float(_fine(rng, lo_a, hi_a))
        affine[key] = (A, B, C)
        inputs[key] = _quad_values(A, B, C)
    front = bool(rng.integers(0, 2))
    return Inputs(inputs, consts, textures, n, coords, front, stages, affine)


def _quad_values(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Lane values (n, 4) of per-quad affine inputs (lanes TL, TR, BL, BR)."""
    dx = np.tile([0.0, 1.0, 0.0, 1.0], len(A))[:, None]
    dy = np.tile([0.0, 0.0, 1.0, 1.0], len(A))[:, None]
    rep = lambda a: np.repeat(a, 4, axis=0)  # noqa: E731
    return (rep(A) + rep(B) * dx + rep(C) * dy).astype(F32)


def _global_affine(a, b, c, coords: np.ndarray):
    """(A, B, C) per quad of one affine function a + b*x + c*y."""
    tl = coords[0::4].astype(np.float64)
    A = a[None, :] + b[None, :] * tl[:, :1] + c[None, :] * tl[:, 1:2]
    return A, np.repeat(b[None, :], len(tl), 0), np.repeat(c[None, :], len(tl), 0)


def _affine_from_lanes(values: np.ndarray, coords: np.ndarray):
    """Recover (a, b, c) of lane values that are affine in the pixel position
    (``generate.random_inputs`` makes them so)."""
    values = np.asarray(values, np.float64)
    if values.ndim == 1:
        values = np.broadcast_to(values, (len(coords), len(values)))
    full = np.zeros((len(coords), 4))
    full[:, : values.shape[1]] = values
    if values.shape[1] < 4:
        full[:, 3] = 1.0
    i0 = int(np.flatnonzero((coords[:, 0] == 0) & (coords[:, 1] == 0))[0])
    i1 = int(np.flatnonzero((coords[:, 0] == 1) & (coords[:, 1] == 0))[0])
    i2 = int(np.flatnonzero((coords[:, 0] == 0) & (coords[:, 1] == 1))[0])
    a = full[i0]
    b = full[i1] - a
    c = full[i2] - a
    again = a + b * coords[:, :1] + c * coords[:, 1:2]
    if not np.array_equal(again.astype(F32), full.astype(F32)):
        raise ValueError("pixel-shader inputs are not affine in the pixel position")
    return a, b, c


def _generated_inputs(program, shader: Shader, refl: dict, seed: int) -> Inputs:
    """``generate.random_inputs`` for a generated program, as ``Inputs``."""
    from .generate import random_inputs

    si = random_inputs(shader, random.Random(seed), n=32 if shader.version.is_pixel else 32)
    inputs = Inputs(dict(si.inputs), si.constants, dict(si.textures), si.n, si.pixel_coords,
                    bool(si.front_facing[0]) if si.front_facing is not None else True,
                    dict(si.texture_stages))
    if shader.version.is_pixel:
        for key, vals in si.inputs.items():
            inputs.affine[key] = _global_affine(*_affine_from_lanes(vals, si.pixel_coords), si.pixel_coords)
    return inputs


def _gl_key(key, shader: Shader, refl: dict) -> tuple[str, int] | None:
    """Reference input key -> the (usage, index) the GL runner binds."""
    kind, idx = key
    if isinstance(kind, str) and kind not in ("v", "t"):
        return kind.lower(), int(idx)
    if not isinstance(kind, str):
        return DeclUsage(int(kind)).name.lower(), int(idx)
    v = shader.version
    if v.is_pixel and v.major < 3:
        return ("color" if kind == "v" else "texcoord"), int(idx)
    for i in refl["inputs"]:
        if i.get("register") == idx:
            return i["usage"], int(i["usage_index"])
    return None


# --------------------------------------------------------------------------
# Reference side: expectations with tolerances
# --------------------------------------------------------------------------


@dataclass
class Expect:
    """What the reference says about one output."""

    name: str  # reference register name
    value: np.ndarray  # (n, 4) float32
    tol: np.ndarray  # (n, 4) float64
    compare: np.ndarray  # (n, 4) bool: compare this component
    klass: np.ndarray  # (n, 4) int: class index (for the message)
    skipped: int = 0


def _perturbed(inputs: Inputs, rng: np.random.Generator, sign: float, signs_cache: dict) -> Inputs:
    ref = {}
    for key, vals in inputs.reference.items():
        vals = np.asarray(vals, F32)
        s = signs_cache.setdefault(("in", key), rng.choice([-1.0, 1.0], size=vals.shape))
        ref[key] = (vals * (1.0 + sign * PERTURB * s)).astype(F32)
    floats = inputs.constants.floats
    if isinstance(floats, np.ndarray):
        s = signs_cache.setdefault(("c",), rng.choice([-1.0, 1.0], size=floats.shape))
        floats = (floats.astype(np.float64) * (1.0 + sign * PERTURB * s)).astype(F32)
    consts = ReferenceConstants(floats=floats, ints=inputs.constants.ints, bools=inputs.constants.bools)
    return dataclasses.replace(inputs, reference=ref, constants=consts)


def _compare_components(shader: Shader, result: Result, name: str) -> np.ndarray:
    v = shader.version
    written = result.trace[name] >= 0
    if name in ("oFog", "oPts"):
        written = written.copy()
        written[:, 1:] = False
        return written
    if v.is_vertex and v.major < 3 and (name.startswith("oD") or name.startswith("oT")):
        return np.ones_like(written)
    return written


def reference_expectations(shader: Shader, inputs: Inputs, *, bounds: dict | None = None,
                           perturbations: int = 2, seed: int = 0, derivatives: str = "fine",
                           linear_samplers=()) -> tuple[Result, dict[str, Expect], np.ndarray, np.ndarray]:
    """Run the reference (and its perturbed copies); returns (result,
    {output: Expect}, killed (n,), texkill-unstable (n,))."""
    base = inputs.run(shader, derivatives=derivatives)
    runs = []
    if bounds is None and perturbations:
        rng = np.random.default_rng([seed, 0xD1FF])
        for k in range(perturbations // 2 + perturbations % 2):
            cache: dict = {}
            for sign in (1.0, -1.0):
                runs.append(_perturbed(inputs, rng, sign, cache).run(shader, derivatives=derivatives))
    killed = np.asarray(base.killed, bool)
    unstable_kill = np.zeros(inputs.n, bool)
    for r in runs:
        unstable_kill |= np.asarray(r.killed, bool) != killed
    classes = operation_classes(shader, linear_samplers) if bounds is None else {}
    expects = {}
    for name, value in base.outputs.items():
        value = np.asarray(value, F32)
        compare = _compare_components(shader, base, name)
        compare &= ~killed[:, None]
        n = len(value)
        if bounds is not None:
            b = np.asarray(bounds.get(name, (0.0, 0.0, 0.0, 0.0)), np.float64)
            tol = np.maximum(b[None, :], 1e-6 * (1.0 + np.abs(value.astype(np.float64))))
            klass = np.full((n, 4), -1)
            expects[name] = Expect(name, value, tol, compare, klass)
            continue
        k = classes.get(_output_register(name, shader), EXACT)
        atol, rtol = CLASS_TOLERANCE[k]
        v64 = value.astype(np.float64)
        with np.errstate(all="ignore"):
            tol = atol + rtol * np.abs(v64)
            if k == TRANS:
                tol = atol * (1.0 + np.abs(v64))
            spread = np.zeros_like(v64)
            bad = np.zeros(value.shape, bool)
            fin = np.isfinite(v64)
            for r in runs:
                other = np.asarray(r.outputs.get(name, value), np.float64)
                ofin = np.isfinite(other)
                bad |= fin != ofin
                both = fin & ofin
                spread = np.where(both, np.maximum(spread, np.abs(other - v64)), spread)
                # non-finite: the same kind in every run
                bad |= ~fin & ~ofin & ~((np.isnan(v64) & np.isnan(other)) | (v64 == other))
            tol = tol + 2.0 * spread
            bad |= spread > ILL_CONDITIONED * (1.0 + np.abs(np.where(fin, v64, 0.0)))
        bad |= unstable_kill[:, None]
        skipped = int((compare & bad).sum())
        compare &= ~bad
        expects[name] = Expect(name, value, tol, compare, np.full((n, 4), k), skipped)
    return base, expects, killed, unstable_kill


def _within(ref: np.ndarray, got: np.ndarray, tol: np.ndarray) -> np.ndarray:
    ref = ref.astype(np.float64)
    got = got.astype(np.float64)
    with np.errstate(all="ignore"):
        ok = np.abs(got - ref) <= tol
        ok |= np.isnan(ref) & np.isnan(got)
        ok |= np.isinf(ref) & (ref == got)
    return ok


# --------------------------------------------------------------------------
# Driver side
# --------------------------------------------------------------------------


def _semantic_outputs(result: Result) -> dict[tuple[str, int], str]:
    return {(DeclUsage(int(u)).name.lower(), int(i)): name for (u, i), name in result.semantics.items()}


def _vs_adapted(translation) -> tuple[str, dict]:
    """The adapter for vertex inputs without a DCL (vs_1_x as Direct3D 8
    wrote them: the reflection gives ``usage`` None): ``GLRunner`` binds
    attributes by (usage, index) only, so such inputs get the made-up usage
    ``xl_v<register>`` (index 0) in a copy of the reflection."""
    refl = translation.reflection
    if all(i.get("usage") is not None for i in refl["inputs"]):
        return translation.code, refl
    new = dict(refl)
    new["inputs"] = [dict(i, usage=f"xl_v{i['register']}", usage_index=0) if i.get("usage") is None else i
                     for i in refl["inputs"]]
    return translation.code, new


def _vertex_inputs_for_gl(inputs: Inputs, refl: dict) -> dict:
    """{(usage, index): values} for ``GLRunner`` from reference inputs keyed
    by register (("v", n)) or semantic, through the (adapted) reflection."""
    out = {}
    for i in refl["inputs"]:
        key = (i["usage"], int(i["usage_index"]))
        vals = inputs.reference.get(("v", i["register"]))
        if vals is None:
            vals = inputs.reference.get(key)
        if vals is not None:
            out[key] = np.asarray(vals, F32)
    return out


def _run_vs_driver(translation, shader: Shader, inputs: Inputs, runner=None):
    """The translated VS through transform feedback (``VertexResult``) on
    ``runner``: the GL runner by default, or any runner with the same
    ``run_vertex`` (the Vulkan one, for "vulkan" translations)."""
    from . import gl

    code, refl = _vs_adapted(translation)
    runner = runner if runner is not None else gl.runner()
    extra = {"state_values": inputs.draw_state} if inputs.draw_state is not None else {}
    return runner.run_vertex((code, refl), _vertex_inputs_for_gl(inputs, refl), inputs.constants,
                             inputs.textures, count=inputs.n, **extra)


def _map_vs_outputs(vr, result: Result, refl: dict) -> dict[str, tuple[np.ndarray, str]]:
    """{reference name: (driver values (n, 4), mask letters)}."""
    sem = _semantic_outputs(result)
    out = {}
    for o in refl["outputs"]:
        key = (o["usage"], int(o["usage_index"]))
        name = sem.get(key)
        if name is None or name not in result.outputs:
            continue
        if o["glsl"] == "gl_Position" or o.get("builtin") == "position":  # (WGSL's reflection names it so)
            vals = vr.position
        else:
            vals = vr.outputs[o["glsl"]]
        if name in out:  # two semantics in one vs_3_0 register (masks split it)
            prev, mask = out[name]
            merged = prev.copy()
            for c, letter in enumerate("xyzw"):
                if letter in o.get("mask", "xyzw"):
                    merged[:, c] = vals[:, c]
            out[name] = (merged, mask + o.get("mask", "xyzw"))
        else:
            out[name] = (np.asarray(vals, F32), o.get("mask", "xyzw"))
    return out


def _quads(width: int, height: int, front: bool, corners: np.ndarray,
           shift: tuple[float, float] = (0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """Geometry for pixel shaders: one square per 2×2 pixel quad, whose
    top-left pixels are ``corners`` (q, 2), each square two triangles in D3D
    clip space with its edges on pixel boundaries, so no edge passes through
    a pixel centre and nothing is clipped (clipping re-interpolates the
    attributes at new vertices, inexactly).  ``shift`` (``_pixel_offset``)
    moves the vertices so that after the pass-through VS's fix-up they lie on
    integer GL window coordinates: only then is llvmpipe's interpolation
    bit-exact for small squares (measured).  Wound D3D-front (clockwise on
    screen, y down) or back.  Returns (positions (6q, 4), each vertex's
    offset from its quad's top-left pixel centre in pixels (6q, 2))."""
    d = [(-0.5, -0.5), (1.5, -0.5), (-0.5, 1.5), (1.5, -0.5), (1.5, 1.5), (-0.5, 1.5)]  # tl tr bl, tr br bl
    if not front:
        d = [d[0], d[2], d[1], d[3], d[5], d[4]]
    d = np.array(d)
    corners = np.asarray(corners, np.float64)
    scr = (corners[:, None, :] + d[None, :, :]).reshape(-1, 2) + np.asarray(shift, np.float64)
    pos = np.zeros((len(scr), 4))
    pos[:, 0] = 2.0 * scr[:, 0] / width - 1.0
    pos[:, 1] = 1.0 - 2.0 * scr[:, 1] / height
    pos[:, 2] = 0.5
    pos[:, 3] = 1.0
    return pos.astype(F32), np.tile(d, (len(corners), 1))


_OFFSETS: dict = {}


def _pixel_offset(target: str, width: int, height: int, runner=None) -> tuple[float, float]:
    """How far a runner's pass-through VS moves pixel centres from D3D's,
    in pixels: (0, 0) for an exact half-pixel fix-up (the runner may move by
    slightly less than half a pixel to keep edges off pixel centres).
    Measured once per (target, size): a PS outputs an input holding the
    screen position; the offset is rounded to 2**-12 pixel, then a second
    draw with ``_quads(shift=offset)`` must read every pixel's own
    coordinates exactly.  ``runner``: the GL runner by default, or any
    runner with the same ``draw`` (the Vulkan one)."""
    from . import gl

    runner = runner if runner is not None else gl.runner()
    key = (type(runner).__name__, target, width, height)
    if key in _OFFSETS:
        return _OFFSETS[key]
    from ..api import translate
    from ..bytecode.asm import assemble_bytes

    t = translate(assemble_bytes("ps_3_0\ndcl_texcoord0 v0\nmov oC0, v0\n"), target)
    corners = np.array([(x, y) for y in range(0, height, 2) for x in range(0, width, 2)], np.float64)
    xs, ys = np.meshgrid(np.arange(width), np.arange(height))
    shift = (0.0, 0.0)
    for attempt in range(2):
        quad, offs = _quads(width, height, True, corners, shift)
        vals = np.zeros((len(quad), 4), F32)
        vals[:, :2] = np.repeat(corners, 6, axis=0) + offs
        res = runner.draw(None, t, gl.Draw(vertices={("position", 0): quad, ("texcoord", 0): vals},
                                           size=(width, height)))
        res.targets.release()
        img = res.colors[0].astype(np.float64)
        ex, ey = img[..., 0] - xs, img[..., 1] - ys
        if attempt == 0:
            shift = (round(float(np.median(ex)) * 4096) / 4096, round(float(np.median(ey)) * 4096) / 4096)
        elif np.any(ex != 0) or np.any(ey != 0):
            raise RuntimeError(f"pass-through interpolation is not exact at {width}x{height}: pixel centres read "
                               f"offsets {ex.min()}..{ex.max()}, {ey.min()}..{ey.max()} after a shift of {shift}")
    _OFFSETS[key] = shift
    return shift


def _screen(pos: np.ndarray, width: int, height: int) -> np.ndarray:
    """D3D screen coordinates (pixel centres at integers) of clip positions."""
    x = (pos[:, 0] / pos[:, 3] + 1.0) / 2.0 * width
    y = (1.0 - pos[:, 1] / pos[:, 3]) / 2.0 * height
    return np.stack([x, y], 1)


def _run_ps_driver(translation, shader: Shader, inputs: Inputs, width: int, height: int, runner=None):
    """Returns (colours list of (H, W, 4) in D3D order, probe (H, W, 4) or None, probed).
    ``runner``: the GL runner by default, or one with the same ``draw``
    (the Vulkan one: SPIR-V is probed by editing its words, a dynamic
    translation's state values become its specialization constants; the
    WebGPU one, with its own ``probe_shader``)."""
    from . import gl

    refl = translation.reflection
    code, prefl, probed = getattr(runner, "probe_shader", _probe_shader)(translation.code, refl)
    corners = inputs.pixel_coords[0::4].astype(np.float64)
    pos, offs = _quads(width, height, inputs.front_facing, corners,
                       _pixel_offset(translation.target, width, height, runner))
    verts = {("position", 0): pos}
    for key, (A, B, C) in inputs.affine.items():
        gk = _gl_key(key, shader, refl)
        if gk is None:
            continue
        rep = lambda a: np.repeat(np.asarray(a, np.float64), 6, axis=0)  # noqa: E731
        verts[gk] = (rep(A) + rep(B) * offs[:, :1] + rep(C) * offs[:, 1:2]).astype(F32)
    if inputs.fog_affine is not None and any(i["usage"] == "fog" for i in refl["inputs"]):
        rep = lambda a: np.repeat(np.asarray(a, np.float64), 6, axis=0)  # noqa: E731
        A, B, C = inputs.fog_affine
        verts[("fog", 0)] = (rep(A) + rep(B) * offs[:, :1] + rep(C) * offs[:, 1:2]).astype(F32)
    ntargets = PROBE_LOCATION + 1 if probed else 1 + max(
        [o["usage_index"] for o in refl["outputs"] if o["usage"] == "color"] + [0])
    clear = [(SENTINEL,) * 4] * ntargets
    if probed:
        clear[PROBE_LOCATION] = (0.0, 0.0, 0.0, 0.0)
    draw = gl.Draw(vertices=verts, primitive="triangle_list", constants=inputs.constants, textures=inputs.textures,
                   texture_stages=inputs.texture_stages, size=(width, height), targets=ntargets, clear=clear,
                   state_values=inputs.draw_state)
    res = (runner if runner is not None else gl.runner()).draw(None, (code, prefl), draw)
    probe = res.colors[PROBE_LOCATION] if probed else None
    colours = res.colors
    res.targets.release()
    return colours, probe, probed, code


# --------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------


def _writer_text(result: Result, shader: Shader, name: str, lane: int, comp: int) -> str | None:
    from ..bytecode.disasm import format_instruction

    if name not in result.trace:
        return None
    idx = int(result.trace[name][lane, comp])
    if idx < 0:
        return None
    ins = result.instructions[idx]
    return f"#{idx} (byte {ins.offset:#x}): {format_instruction(ins, shader.version)}"


def _lane_inputs(inputs: Inputs, lane: int) -> dict:
    out = {}
    for key, vals in inputs.reference.items():
        vals = np.asarray(vals)
        row = vals[lane] if vals.ndim == 2 else vals
        out[f"{key[0]}{key[1]}" if key[0] in ("v", "t") else f"{key[0]}{key[1]}"] = [float(x) for x in row]
    return out


def _compare_output(verdict: Verdict, shader: Shader, result: Result, inputs: Inputs, exp: Expect,
                    got: np.ndarray, stage: str, seed: int, where, comps=None):
    compare = exp.compare
    if comps is not None:
        compare = compare & comps[None, :]
    ok = _within(exp.value, got, exp.tol)
    bad = compare & ~ok
    verdict.compared += int(compare.sum())
    verdict.skipped += exp.skipped
    for lane, comp in zip(*np.nonzero(bad)):
        k = int(exp.klass[lane, comp])
        verdict.merge_mismatch(Mismatch(
            stage, seed, int(lane), where(int(lane)), exp.name, int(comp), float(exp.value[lane, comp]),
            float(got[lane, comp]), float(exp.tol[lane, comp]),
            CLASS_NAMES[k] if k >= 0 else "generator bound",
            _writer_text(result, shader, exp.name, int(lane), int(comp)),
            _lane_inputs(inputs, int(lane)) if verdict.bad_components < 2 else {}))


def _check_vertex(verdict: Verdict, translation, shader: Shader, inputs: Inputs, seed: int, bounds=None,
                  perturbations: int = 2, runner=None):
    result, expects, _, _ = reference_expectations(shader, inputs, bounds=bounds, perturbations=perturbations,
                                                   seed=seed, derivatives="coarse")
    vr = _run_vs_driver(translation, shader, inputs, runner)
    got = _map_vs_outputs(vr, result, translation.reflection)
    verdict.lanes += inputs.n
    if inputs.draw_state is not None:  # clip distances and the clamped point size (random_state.py)
        from .random_state import vertex_state_expects

        for exp, vals in vertex_state_expects(translation, result, vr, inputs.draw_state, expects):
            _compare_output(verdict, shader, result, inputs, exp, vals, "vertex", seed, lambda i: f"vertex {i}")
    for name, exp in expects.items():
        if name not in got:
            if exp.compare.any():
                verdict.notes.append(f"the translation has no output for {name} (reference writes it)")
                verdict.status = "fail"
            continue
        vals, mask = got[name]
        if name == "oPos":
            exp = _position_tolerance(exp)
        comps = np.array([letter in mask for letter in "xyzw"])
        _compare_output(verdict, shader, result, inputs, exp, vals, "vertex", seed, lambda i: f"vertex {i}", comps)


def _position_tolerance(exp: Expect) -> Expect:
    v = exp.value.astype(np.float64)
    tol = exp.tol.copy()
    tol[:, 2] += 2.0**-22 * (np.abs(v[:, 2]) + np.abs(v[:, 3]))
    return Expect(exp.name, exp.value, tol, exp.compare, exp.klass, exp.skipped)


def _check_pixel(verdict: Verdict, translation, shader: Shader, inputs: Inputs, seed: int, bounds=None,
                 perturbations: int = 2, derivatives: str = "fine", runner=None):
    from .generate import QUAD_GRID_WIDTH

    width, height = QUAD_GRID_WIDTH, inputs.n // QUAD_GRID_WIDTH
    pos_key = next((k for k in inputs.reference if _gl_key(k, shader, translation.reflection) == ("position", 0)), None)
    if pos_key is not None:
        # the runner feeds ("position", 0) to its own position: make the PS input equal to it
        sx, sy = _pixel_offset(translation.target, width, height, runner)
        a = np.array([-1.0 + 2.0 * sx / width, 1.0 - 2.0 * sy / height, 0.5, 1.0])
        b = np.array([2.0 / width, 0.0, 0.0, 0.0])
        c = np.array([0.0, -2.0 / height, 0.0, 0.0])
        inputs.affine[pos_key] = _global_affine(a, b, c, inputs.pixel_coords)
        inputs.reference[pos_key] = _quad_values(*inputs.affine[pos_key])
        verdict.notes.append("the PS reads POSITION0, which the pass-through VS also uses as the clip position: "
                             "fed the position itself")
    result, expects, killed, unstable_kill = reference_expectations(
        shader, inputs, bounds=bounds, perturbations=perturbations, seed=seed, derivatives=derivatives)
    if inputs.draw_state is not None:
        _draw_state_tolerances(shader, inputs, expects, unstable_kill, derivatives)
    colours, probe, probed, code = _run_ps_driver(translation, shader, inputs, width, height, runner)
    xs = inputs.pixel_coords[:, 0].astype(int)
    ys = inputs.pixel_coords[:, 1].astype(int)

    def where(i):
        return f"pixel ({xs[i]}, {ys[i]})"

    verdict.lanes += inputs.n
    verdict.killed += int(killed.sum())
    # texkill
    if probed:
        alive = probe[ys, xs, 0] == 1.0
    else:
        alive = np.zeros(inputs.n, bool)
        for name, exp in expects.items():
            if not name.startswith("oC"):
                continue
            img = colours[int(name[2:])]
            px = img[ys, xs]
            alive |= ((px != F32(SENTINEL)) & exp.compare.any(axis=0)[None, :]).any(axis=1)
    driver_killed = ~alive
    for lane in np.flatnonzero((killed != driver_killed) & ~unstable_kill):
        verdict.merge_mismatch(Mismatch("pixel", seed, int(lane), where(int(lane)), "texkill", -1,
                                        bool(killed[lane]), bool(driver_killed[lane]), 0.0, "exact",
                                        _kill_writer(result, shader, int(lane)), _lane_inputs(inputs, int(lane))))
    live = ~killed & ~driver_killed
    refl = translation.reflection
    have = {f"oC{o['usage_index']}" for o in refl["outputs"] if o["usage"] == "color"}
    if any(o["glsl"] == "gl_FragDepth" or o.get("builtin") == "frag_depth" for o in refl["outputs"]):
        have.add("oDepth")
    for name, exp in expects.items():
        exp = Expect(exp.name, exp.value, exp.tol, exp.compare & live[:, None], exp.klass, exp.skipped)
        if name not in have:
            if exp.compare.any():
                verdict.notes.append(f"the translation has no output for {name} (reference writes it)")
                verdict.status = "fail"
            continue
        if name == "oDepth":
            if not probed:
                verdict.notes.append("oDepth not compared (no probe for this dialect)")
                continue
            got = np.zeros((inputs.n, 4), F32)
            got[:, 0] = probe[ys, xs, 1]
            value = np.clip(exp.value, 0.0, 1.0)
            comp = np.zeros(4, bool)
            comp[0] = True
            exp = Expect(exp.name, value, exp.tol, exp.compare, exp.klass, exp.skipped)
            got = np.clip(got, 0.0, 1.0)
            _compare_output(verdict, shader, result, inputs, exp, got, "pixel", seed, where, comp)
            continue
        got = colours[int(name[2:])][ys, xs]
        _compare_output(verdict, shader, result, inputs, exp, got, "pixel", seed, where)


def _draw_state_tolerances(shader: Shader, inputs: Inputs, expects: dict, unstable_kill: np.ndarray,
                           derivatives: str) -> None:
    """Widen oC0's tolerance for the fog blend and leave out the pixels whose
    alpha test a rounding could flip (``inputs.draw_state``), in place.

    The fog blend fc + f (rgb - fc) moves an error in rgb by f <= 1, and
    adds the error of f (exp2 and a divide, a few ulps) times |rgb - fc|:
    2**-18 (1 + |rgb| + |fc|) covers it.  The alpha test compares
    round(saturate(a) * 255) with ALPHAREF: a pixel whose a * 255 + 0.5
    lies within the tolerance of a whole number may round either way."""
    exp = expects.get("oC0")
    if exp is None:
        return
    state = inputs.draw_state
    bare = dataclasses.replace(inputs, draw_state=None).run(shader, derivatives=derivatives)
    pre = np.abs(np.asarray(bare.outputs.get("oC0", exp.value), np.float64))
    tol = exp.tol.astype(np.float64)
    if state.fogenable:
        fc = np.abs(np.asarray(state.fogcolor[:3], np.float64))
        tol[:, :3] = tol[:, :3] + 2.0**-18 * (1.0 + pre[:, :3] + fc[None, :])
    if getattr(state, "srgbwriteenable", False):
        # the sRGB encode's slope is at most 12.92 (at the knee); pow adds a few ulps
        tol[:, :3] = tol[:, :3] * 12.92 + 2.0**-16
    if state.alphatestenable:
        a = np.nan_to_num(np.asarray(exp.value[:, 3], np.float64), nan=0.0)
        t = np.clip(a, 0.0, 1.0) * 255.0 + 0.5
        margin = 255.0 * tol[:, 3] + 2.0**-12
        unstable_kill |= np.abs(t - np.rint(t)) <= margin
    expects["oC0"] = Expect(exp.name, exp.value, tol, exp.compare, exp.klass, exp.skipped)


def _sampler_states(textures: dict, state) -> dict:
    """The textures as ``state`` (a DrawState) binds them: its null-texture
    samplers unbound, its sRGB samplers decoding (the reference's model)."""
    out = {}
    for s, tex in textures.items():
        if s in state.nulltexture:
            continue
        if s in state.srgbtexture:
            tex = dataclasses.replace(tex, sampler=dataclasses.replace(tex.sampler, srgb=True))
        out[s] = tex
    return out


def _kill_writer(result: Result, shader: Shader, lane: int) -> str | None:
    from ..bytecode.disasm import format_instruction

    kills = [(i, ins) for i, ins in enumerate(result.instructions) if ins.opcode == O.TEXKILL]
    if not kills:
        return None
    return "; ".join(f"#{i} (byte {ins.offset:#x}): {format_instruction(ins, shader.version)}" for i, ins in kills[:4])


# --------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------


def _prepare(data, target: str, name: str | None, options: dict, runner=None):
    """(shader, translation, verdict) or a finished verdict on failure.
    ``runner``: None for the GL runner (GL targets only), else a runner
    that takes translations for ``target``."""
    from ..api import translate
    from ..bytecode import decode
    from ..bytecode.disasm import disassemble
    from ..errors import XlateError

    verdict = Verdict(name or "<shader>", target)
    if runner is None and target not in GL_TARGETS:
        verdict.status, verdict.message = "skip", f"target {target} does not run on OpenGL (GL targets: {', '.join(GL_TARGETS)})"
        return None, None, verdict
    try:
        shader = decode(data) if isinstance(data, (bytes, bytearray)) else data
        verdict.version = str(shader.version)
        try:
            verdict.asm = disassemble(shader, header=False)
        except Exception:  # noqa: BLE001 - the listing is a courtesy
            verdict.asm = ""
        blob = data if isinstance(data, (bytes, bytearray)) else _encode(shader)
        translation = translate(blob, target, **options)
    except XlateError as exc:
        verdict.status, verdict.message = "error", f"translation failed: {exc}"
        return None, None, verdict
    return shader, translation, verdict


def _encode(shader: Shader) -> bytes:
    from ..bytecode import encode

    return encode(shader)


def _guard_gl(verdict: Verdict, runner=None) -> bool:
    if runner is not None:
        return True  # the caller made its runner, so it works
    why = gl_available()
    if why is not None:
        verdict.status, verdict.message = "skip", why
        return False
    return True


def _run_gl(verdict: Verdict, fn, *args, **kwargs):
    """``fn(*args, **kwargs)``; an exception becomes an "error" verdict
    (named after ``kwargs["runner"]`` when one is given, else OpenGL)."""
    try:
        fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - a GL compile/link error is a verdict
        verdict.status = "error"
        first = str(exc).strip().splitlines()
        runner = kwargs.get("runner")
        api = "OpenGL" if runner is None else type(runner).__name__
        verdict.message = f"{api} run failed: {type(exc).__name__}: {' | '.join(first[:6])}"
        return False
    return True


REFERENCE_OPTIONS = ("legacy_multiply", "infinities")


def reference_options(options: dict) -> dict:
    """The translation options the reference interpreter must follow too
    (what the shader computes, not how it is laid out)."""
    return {k: options[k] for k in REFERENCE_OPTIONS if k in options}


def check_shader(data, *, seeds: int = 1, seed: int = 0, target: str = "glsl330", name: str | None = None,
                 perturbations: int = 2, options: dict | None = None, keep_programs: bool = False,
                 runner=None, constants: ReferenceConstants | None = None) -> Verdict:
    """One vertex or pixel shader on the reference and on llvmpipe, for
    ``seeds`` consecutive input seeds from ``seed``.  ``runner``: None for
    the GL runner, or another runner with ``run_vertex`` and ``draw`` (the
    Vulkan one, ``target="vulkan"`` or ``"spirv"``).
    ``constants``: fixed constant registers (an effect pass's, from
    ``xlate.effect.evaluate_pass``) instead of random ones; the other
    inputs stay seeded.  ``options`` with ``draw_state`` (fog, alpha test)
    or ``draw_state_mode="dynamic"``: a pixel shader is drawn with that
    state, which the reference applies too."""
    shader, translation, verdict = _prepare(data, target, name, options or {}, runner)
    if shader is None or not _guard_gl(verdict, runner):
        return verdict
    for s in range(seed, seed + seeds):
        verdict.seeds.append(s)
        inputs = make_inputs(shader, translation.reflection, s)
        inputs.options = reference_options(options or {})
        if constants is not None:
            inputs.constants = constants
        state = _options_draw_state(options or {})
        if state is not None and shader.version.is_pixel:
            _with_draw_state(inputs, state, s)
        fn = _check_vertex if shader.version.is_vertex else _check_pixel
        if not _run_gl(verdict, fn, verdict, translation, shader, inputs, s, perturbations=perturbations,
                       runner=runner):
            break
    if verdict.status == "pass" and verdict.compared == 0:
        verdict.notes.append("nothing compared (no well-conditioned written output)")
    if not keep_programs and runner is None:
        _release_programs([translation.code])
    return verdict


def _with_draw_state(inputs: Inputs, draw_state, seed: int) -> None:
    """A pixel shader's inputs drawn with ``draw_state``: the reference
    applies it, the runner sets it (dynamic translations), and the fog
    coordinate is a random affine input over the pixels, from about -0.8
    to 1.8 (both clamps)."""
    inputs.draw_state = draw_state
    rng = np.random.default_rng([seed, 0xF06])
    a = np.array([rng.integers(-16, 80) / 64.0, 0.0, 0.0, 1.0])  # the fog coordinate is .x
    b = np.array([rng.integers(-4, 5) / 64.0, 0.0, 0.0, 0.0])
    c = np.array([rng.integers(-4, 5) / 64.0, 0.0, 0.0, 0.0])
    inputs.fog_affine = _global_affine(a, b, c, inputs.pixel_coords)


def _options_draw_state(options: dict):
    """The DrawState translation ``options`` give, or None when they add no
    render-state work (fog and alpha test off, baked)."""
    if not options or not ({"draw_state", "draw_state_mode"} & set(options)):
        return None
    from ..drawstate import DrawStateMode
    from ..options import Options

    o = Options.from_kwargs(**{k: options[k] for k in ("draw_state", "draw_state_mode") if k in options})
    s = o.draw_state
    return s if (s.fogenable or s.alphatestenable or o.draw_state_mode is DrawStateMode.DYNAMIC) else None


def check_generated(program, seed: int = 0, *, target: str = "glsl330", name: str | None = None,
                    keep_programs: bool = False, derivatives: str = "coarse", runner=None,
                    draw_state=None, draw_state_mode: str = "baked") -> Verdict:
    """A ``generate.GeneratedProgram`` against its error bounds.  The
    generator only differentiates values affine in the pixel position, so
    the reference's derivative mode should not matter; ``derivatives``
    ("coarse", or "fine" as llvmpipe computes them) lets a caller check
    whether a mismatch comes from a value that is not affine after all.
    ``runner``: as for ``check_shader``.  ``draw_state`` (an ``xlate.drawstate.DrawState``): fog and
    alpha test around a pixel program, translated ``draw_state_mode``
    ("baked" / "dynamic": uniforms the runner sets), applied by the
    reference (``reference_drawstate``); the fog coordinate is a random
    affine input over the pixels, from about -0.8 to 1.8 (both clamps)."""
    shader = program.shader
    options = dict(getattr(program, "translate_options", None) or {})  # ps_1_x: sampler_types
    if draw_state is not None:
        options["draw_state"] = draw_state
        if draw_state_mode == "dynamic":  # the values are the runner's; what changes the code stays baked
            options.update({"draw_state_mode": "dynamic",
                            "draw_state": DrawState(depthtexture=draw_state.depthtexture, fetch4=draw_state.fetch4,
                                                    clipplaneenable=draw_state.clipplaneenable)})
    got = _prepare(shader, target, name or f"generated {program.version}", options, runner)
    shader, translation, verdict = got
    if shader is None or not _guard_gl(verdict, runner):
        return verdict
    if draw_state is not None and runner is not None and shader.version.is_vertex:
        verdict.status = "skip"
        verdict.message = (f"vertex programs with a draw state are checked on the GL runner only (clip distances "
                           f"and state uniforms), not on {type(runner).__name__}")
        return verdict
    verdict.seeds.append(seed)
    inputs = _generated_inputs(program, shader, translation.reflection, seed)
    if draw_state is not None:
        if shader.version.is_pixel:
            _with_draw_state(inputs, draw_state, seed)
        else:
            inputs.draw_state = draw_state
        verdict.notes.append(f"draw state ({draw_state_mode}): {draw_state.to_dict()}")
    if draw_state is not None and draw_state.depthtexture:
        from .random_state import with_depth_textures

        inputs.textures = with_depth_textures(inputs.textures, draw_state, seed)
    if draw_state is not None and (draw_state.nulltexture or draw_state.srgbtexture):
        inputs.textures = _sampler_states(inputs.textures, draw_state)
    linear = [s for s, role in program.sampler_roles.items() if role != "point"]
    del linear  # the generator's bounds already cover filtered results
    if shader.version.is_vertex:
        _run_gl(verdict, _check_vertex, verdict, translation, shader, inputs, seed, bounds=program.error_bounds,
                runner=runner)
    else:
        _run_gl(verdict, _check_pixel, verdict, translation, shader, inputs, seed, bounds=program.error_bounds,
                derivatives=derivatives, runner=runner)
    if not keep_programs and runner is None:
        _release_programs([translation.code])
    return verdict


def check_pair(vs_data, ps_data, *, seeds: int = 1, seed: int = 0, target: str = "glsl330",
               name: str | None = None, perturbations: int = 2, options: dict | None = None,
               width: int = 64, height: int = 64, vertices: int = 256,
               vs_constants: ReferenceConstants | None = None,
               ps_constants: ReferenceConstants | None = None) -> Verdict:
    """A VS+PS pair linked as one program (module docstring, "Pairs").
    ``vs_constants`` / ``ps_constants``: fixed constant registers for each
    stage (as ``check_shader``'s ``constants``) instead of random ones."""
    from . import gl

    vshader, vt, verdict = _prepare(vs_data, target, name, options or {})
    if vshader is None:
        return verdict
    pshader, pt, pverdict = _prepare(ps_data, target, name, options or {})
    if pshader is None:
        return pverdict
    verdict.version = f"{vshader.version}+{pshader.version}"
    verdict.asm = verdict.asm + "\n// pixel shader\n" + pverdict.asm
    if not vshader.version.is_vertex or not pshader.version.is_pixel:
        verdict.status, verdict.message = "error", "--pair needs a vertex shader and a pixel shader"
        return verdict
    if not _guard_gl(verdict):
        return verdict
    for s in range(seed, seed + seeds):
        verdict.seeds.append(s)
        vin = make_inputs(vshader, vt.reflection, s, n=vertices)
        vin.options = reference_options(options or {})
        if vs_constants is not None:
            vin.constants = vs_constants
        if not _run_gl(verdict, _check_vertex, verdict, vt, vshader, vin, s, perturbations=perturbations):
            break
        pin = make_inputs(pshader, pt.reflection, s + 7919)
        pin.options = vin.options
        if ps_constants is not None:
            pin.constants = ps_constants
        if not _run_gl(verdict, _check_pair_pixels, verdict, vt, pt, vshader, pshader, vin, pin, s, width, height,
                       perturbations):
            break
    _release_programs([vt.code, pt.code])
    del gl
    return verdict


def _check_pair_pixels(verdict: Verdict, vt, pt, vshader: Shader, pshader: Shader, vin: Inputs, pin: Inputs,
                       seed: int, width: int, height: int, perturbations: int):
    from . import gl

    vres = vin.run(vshader)
    pos = vres.output((DeclUsage.POSITION, 0)).astype(np.float64) if (int(DeclUsage.POSITION), 0) in vres.semantics \
        else None
    if pos is None:
        verdict.notes.append("the VS writes no position: no pixel compared")
        return
    with np.errstate(all="ignore"):
        scr = _screen(pos, width, height)
        zw = pos[:, 2] / pos[:, 3]
    px = np.rint(scr)
    fr = np.abs(scr - px)
    ok = (pos[:, 3] > 0) & (zw > 0.001) & (zw < 0.999) & (fr < 0.45).all(axis=1)
    ok &= (px[:, 0] >= 0) & (px[:, 0] < width) & (px[:, 1] >= 0) & (px[:, 1] < height)
    cells = {}
    for i in np.flatnonzero(ok):
        cells.setdefault((int(px[i, 0]), int(px[i, 1])), []).append(int(i))
    # any vertex (valid or not) whose point may touch a cell disqualifies it
    lanes = []
    for (x, y), members in cells.items():
        if len(members) != 1:
            continue
        near = np.abs(scr[:, 0] - x) < 1.0
        near &= np.abs(scr[:, 1] - y) < 1.0
        if int(np.nansum(near)) == 1:
            lanes.append(members[0])
    if not lanes:
        verdict.notes.append("no vertex landed alone inside a pixel: pixel stage not compared for seed "
                             f"{seed}")
        return
    lanes = np.array(lanes)
    # reference PS inputs: VS outputs linked by semantic, each lane repeated over a quad
    sem = {(DeclUsage(int(u)).name.lower(), int(i)): name for (u, i), name in vres.semantics.items()}
    ref_inputs = {}
    for key in _pixel_input_keys(pt.reflection):
        vname = sem.get(key)
        vals = vres.outputs[vname][lanes] if vname in vres.outputs else np.zeros((len(lanes), 4), F32)
        if vname is None and key[0] == "color" and key[1] == 0:
            vals = np.ones((len(lanes), 4), F32)
        ref_inputs[key] = np.repeat(vals, 4, axis=0)
    coords = np.repeat(px[lanes], 4, axis=0).astype(F32)
    n = 4 * len(lanes)
    inputs = Inputs(ref_inputs, pin.constants, pin.textures, n, coords, True, pin.texture_stages,
                    options=pin.options)
    result, expects, killed, unstable_kill = reference_expectations(
        pshader, inputs, perturbations=perturbations, seed=seed, derivatives="fine")
    code, prefl, probed = _probe_shader(pt.code, pt.reflection)
    ntargets = PROBE_LOCATION + 1 if probed else 4
    clear = [(SENTINEL,) * 4] * ntargets
    if probed:
        clear[PROBE_LOCATION] = (0.0, 0.0, 0.0, 0.0)
    vcode, vrefl = _vs_adapted(vt)
    verts = _vertex_inputs_for_gl(vin, vrefl)
    draw = gl.Draw(vertices=verts, primitive="point_list", constants=pin.constants, vs_constants=vin.constants,
                   textures=pin.textures, vs_textures=vin.textures, texture_stages=pin.texture_stages,
                   size=(width, height), targets=ntargets, clear=clear,
                   state=gl.RenderState(point_size=1.0, point_size_min=1.0, point_size_max=1.0),
                   count=vin.n)
    res = gl.runner().draw((vcode, vrefl), (code, prefl), draw)
    res.targets.release()
    sel = np.arange(0, n, 4)  # one lane per quad
    xs = coords[sel, 0].astype(int)
    ys = coords[sel, 1].astype(int)
    verdict.lanes += len(lanes)
    verdict.notes.append(f"seed {seed}: {len(lanes)} of {vin.n} vertices gave a compared pixel")

    def where(i):
        return f"pixel ({xs[i]}, {ys[i]}) from vertex {lanes[i]}"

    if probed:
        alive = res.colors[PROBE_LOCATION][ys, xs, 0] == 1.0
    else:
        alive = np.ones(len(lanes), bool)
    k = killed[sel]
    for i in np.flatnonzero((k != ~alive) & ~unstable_kill[sel]):
        verdict.merge_mismatch(Mismatch("pixel", seed, int(i), where(int(i)), "texkill", -1, bool(k[i]),
                                        bool(not alive[i]), 0.0, "exact", _kill_writer(result, pshader, int(sel[i]))))
    live = ~k & alive
    have = {f"oC{o['usage_index']}" for o in pt.reflection["outputs"] if o["usage"] == "color"}
    sub_inputs = Inputs({kk: np.asarray(v)[sel] for kk, v in ref_inputs.items()}, pin.constants, pin.textures,
                        len(sel), options=pin.options)
    for name, exp in expects.items():
        if name not in have:
            continue
        e = Expect(name, exp.value[sel], exp.tol[sel], exp.compare[sel] & live[:, None], exp.klass[sel],
                   int(exp.skipped // 4))
        got = res.colors[int(name[2:])][ys, xs]
        sub_result = _SubResult(result, sel)
        _compare_output(verdict, pshader, sub_result, sub_inputs, e, got, "pixel", seed, where)


class _SubResult:
    """A view of a Result restricted to some lanes (for writer lookups)."""

    def __init__(self, result: Result, lanes: np.ndarray):
        self.trace = {k: v[lanes] for k, v in result.trace.items()}
        self.instructions = result.instructions


def reproducer_text(verdict: Verdict, *, seed: int | None = None, version: str | None = None) -> str:
    """A self-contained description of a failing case (scripts/difftest)."""
    lines = [f"// {verdict.summary()}"]
    if seed is not None:
        lines.append(f"// generator: generate_seed({seed}, {version!r}); inputs: random_inputs(random.Random({seed}))")
    lines.extend("// " + line for line in verdict.report().splitlines()[1:])
    lines.append(verdict.asm)
    return "\n".join(lines) + "\n"
