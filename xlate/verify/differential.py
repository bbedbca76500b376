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
bounds assume it; for ps_1_x it also gives the texture-stage state, and the
program carries the translation options its stages need,
``GeneratedProgram.translate_options``: sampler types, projection).  Corpus shaders get random values on a fine grid: every
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
import random

import numpy as np

from ..bytecode.model import Shader
from ..bytecode.tables import DeclUsage
from ..drawstate import DrawState
from .differential_base import (  # noqa: F401 - re-exported: the public names and the helpers tests use
    ARITH, CLASS_NAMES, CLASS_TOLERANCE, EXACT, F32, FILTERED, GL_TARGETS, ILL_CONDITIONED, O, PERTURB, PS_LANES,
    SENTINEL, TRANS, VS_LANES, Mismatch, R, Verdict, _finite, _fmt)
from .differential_drivers import (  # noqa: F401
    PROBE_LOCATION, _map_vs_outputs, native_passthrough_for, _pixel_offset, _probe_shader, _quads, _release_programs, _run_ps_driver,
    _run_vs_driver, _screen, _semantic_outputs, _vertex_inputs_for_gl, _vs_adapted, gl_available)
from .differential_expect import (  # noqa: F401
    Expect, _compare_components, _compare_output, _lane_inputs, _op_class, _output_register, _perturbed,
    _within, _writer_text, operation_classes, reference_expectations)
from .differential_inputs import (  # noqa: F401
    GRID, Inputs, _affine_from_lanes, _const_sizes, _fine, _generated_inputs, _gl_key, _global_affine,
    _pixel_input_keys, _quad_values, _random_constants, _sampler_kinds, make_inputs, point_texture)
from .reference import ReferenceConstants, Result

__all__ = [
    "Mismatch", "Verdict", "check_shader", "check_pair", "check_generated", "make_inputs",
    "operation_classes", "GL_TARGETS", "gl_available",
]

# The method (inputs, tolerances, what is compared) is documented above; its
# parts live in differential_base (constants, verdicts), differential_inputs,
# differential_expect (the reference side) and differential_drivers (drawing).


# --------------------------------------------------------------------------
# Checking one vertex or pixel run
# --------------------------------------------------------------------------


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
                 perturbations: int = 2, derivatives: str = "fine", runner=None, native_vs: bool = False):
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
    colours, probe, probed, code = _run_ps_driver(translation, shader, inputs, width, height, runner, native_vs)
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
    # ESSL 1.00 writes depth as gl_FragDepthEXT (GL_EXT_frag_depth); it is not probed there
    if any(o["glsl"] in ("gl_FragDepth", "gl_FragDepthEXT") or o.get("builtin") == "frag_depth"
           for o in refl["outputs"]):
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
                    draw_state=None, draw_state_mode: str = "baked", native_vs: bool = False) -> Verdict:
    """A ``generate.GeneratedProgram`` against its error bounds.  The
    generator only differentiates values affine in the pixel position, so
    the reference's derivative mode should not matter; ``derivatives``
    ("coarse", or "fine" as llvmpipe computes them) lets a caller check
    whether a mismatch comes from a value that is not affine after all.
    ``runner``: as for ``check_shader``.  ``draw_state`` (an ``xlate.drawstate.DrawState``): fog and
    alpha test around a pixel program, translated ``draw_state_mode``
    ("baked" / "dynamic": uniforms the runner sets), applied by the
    reference (``reference_drawstate``); the fog coordinate is a random
    affine input over the pixels, from about -0.8 to 1.8 (both clamps).
    ``native_vs``: a pixel program translated for "spirv" on a ``runner`` is
    drawn after a pass-through vs_3_0 that xlate's SPIR-V writer translated
    (``native_passthrough_for``) instead of the runner's GLSL one, whose
    glslang call costs most of such a check (when no render state needs
    the runner's own VS)."""
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
                derivatives=derivatives, runner=runner, native_vs=native_vs)
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
