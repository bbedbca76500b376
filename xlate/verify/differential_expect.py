"""The reference side of the differential check: operation classes,
expectations with tolerances (``reference_expectations``) and the
comparison of one output (``_compare_output``); see ``differential``'s
module docstring, "Tolerance model"."""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from ..bytecode.model import Shader
from ..bytecode.tables import OUTPUT
from .differential_base import (
    ARITH,
    CLASS_NAMES,
    CLASS_TOLERANCE,
    EXACT,
    F32,
    FILTERED,
    ILL_CONDITIONED,
    O,
    PERTURB,
    TRANS,
    Mismatch,
    R,
    Verdict,
)
from .differential_inputs import Inputs
from .reference import ReferenceConstants, Result


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


