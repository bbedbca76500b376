"""The random program generator (xlate/verify/generate.py).

Every generated program must encode -> decode to the same model,
disassemble -> assemble to the same bytes, run on the reference interpreter
with finite outputs inside the generator's claimed ranges, and not depend on
anything a conforming implementation may do differently (uninitialised
temps, coarse vs fine derivatives).  The coverage test prints which opcodes
and forms a sample exercises.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlate.bytecode import decode, encode
from xlate.bytecode.asm import assemble
from xlate.bytecode.tables import OPCODES, Opcode, ShaderVersion
from xlate.verify import reference
from xlate.verify import generate as gen
from xlate.verify.generate import (
    TEX_CUBE_ERR,
    VERSIONS,
    feature_counts,
    generate,
    generate_seed,
    programs,
    random_inputs,
)
from xlate.verify.textures import sample

ROOT = Path(__file__).resolve().parents[2]

SETTINGS = dict(derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def check_program(prog, seed: int) -> None:
    shader = prog.shader
    blob = encode(shader)
    assert decode(blob) == shader, "encode -> decode changed the model"
    text = prog.asm
    assert encode(assemble(text)) == blob, "disassemble -> assemble changed the bytes:\n" + text
    inputs = random_inputs(shader, seed)
    result = inputs.run(shader)
    assert prog.written_masks, "a program writes at least one output"
    for name, mask in prog.written_masks.items():
        assert name in result.outputs, f"{name} never written:\n{text}"
        out = result.outputs[name]
        for c in range(4):
            if not mask >> c & 1:
                continue
            col = out[:, c]
            assert np.all(np.isfinite(col)), f"{name}.{'xyzw'[c]} is not finite:\n{text}"
            lo, hi = prog.output_ranges[name][c]
            tol = prog.error_bounds[name][c] + 1e-6 * (1 + np.abs(col))
            assert np.all(col >= lo - tol) and np.all(col <= hi + tol), (
                f"{name}.{'xyzw'[c]} = {col} outside the claimed [{lo}, {hi}]:\n{text}")


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=360, **SETTINGS)
@given(seed=st.integers(0, 2**64 - 1))
def test_generated_programs_are_valid(version, seed):
    check_program(generate_seed(seed, version), seed % 2**32)


@settings(max_examples=60, **SETTINGS)
@given(prog=programs())
def test_strategy_programs_are_valid(prog):
    check_program(prog, 1)


@settings(max_examples=20, **SETTINGS)
@given(prog=programs(("ps_3_0", "vs_2_x"), shrinkable=True))
def test_shrinkable_strategy(prog):
    check_program(prog, 2)


def _poisoned_run(inputs, shader):
    """Run with every temp starting as NaN: a program that reads an
    unwritten temp component shows it in its outputs."""
    orig = reference.Machine._file

    def poisoned(self, rtype, index):
        if (rtype, index) not in self.regs and rtype == 0:
            self.regs[(rtype, index)] = np.full((self.n, 4), np.nan, np.float32)
        return orig(self, rtype, index)

    reference.Machine._file = poisoned
    try:
        return inputs.run(shader)
    finally:
        reference.Machine._file = orig


@settings(max_examples=240, **SETTINGS)
@given(prog=programs())
def test_well_defined(prog):
    """Uninitialised temps and the derivative mode do not matter."""
    inputs = random_inputs(prog.shader, 3)
    base = inputs.run(prog.shader)
    poisoned = _poisoned_run(inputs, prog.shader)
    fine = inputs.run(prog.shader, derivatives="fine") if prog.version.is_pixel else base
    for name, mask in prog.written_masks.items():
        for c in range(4):
            if mask >> c & 1:
                a = base.outputs[name][:, c]
                assert np.array_equal(a, poisoned.outputs[name][:, c]), f"{name}: reads an unwritten temp\n{prog.asm}"
                tol = 2 * prog.error_bounds[name][c] + 1e-6 * (1 + np.abs(a))
                assert np.all(np.abs(a - fine.outputs[name][:, c]) <= tol), f"{name}: derivative-mode dependent\n{prog.asm}"


def test_reproducible():
    a = generate(random.Random(5), "vs_3_0")
    b = generate(random.Random(5), "vs_3_0")
    assert encode(a.shader) == encode(b.shader)
    ia, ib = random_inputs(a.shader, 9), random_inputs(b.shader, 9)
    ra, rb = ia.run(a.shader), ib.run(b.shader)
    for name in a.written_masks:
        assert np.array_equal(ra.outputs[name], rb.outputs[name])


def test_random_inputs_match_declarations():
    for seed in range(60):
        prog = generate_seed(seed, VERSIONS[seed % 6])
        inputs = random_inputs(prog.shader, seed)
        declared = {(i.dst.type, i.dst.index) for i in prog.shader.instructions if i.opcode == Opcode.DCL}
        for (kind, index), values in inputs.inputs.items():
            rtype = 1 if kind == "v" else 3
            assert (rtype, index) in declared
            assert values.shape == (inputs.n, 4)
            # odd multiples of 1/32: never 0, never on a texel boundary
            k = values * 32
            assert np.all(k == np.round(k)) and np.all(np.round(k) % 2 == 1)
            if prog.version.is_pixel:  # affine in the pixel position
                q = values.reshape(-1, 4, 4)
                assert np.allclose(q[:, 1] - q[:, 0], q[:, 3] - q[:, 2])
                assert np.allclose(q[:, 2] - q[:, 0], q[:, 3] - q[:, 1])
        samplers = {i.dst.index for i in prog.shader.instructions if i.opcode == Opcode.DCL and i.dst.type == 10}
        assert set(inputs.textures) == samplers


def test_cube_textures_are_smooth_in_direction():
    """Cube content is a smooth function of the direction, so the face a
    tie picks (or seamless filtering) cannot matter beyond TEX_CUBE_ERR."""
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (4, 3))
    a /= np.maximum(1.0, np.linalg.norm(a, axis=1, keepdims=True))
    tex = gen.Texture("cube", [gen._cube_level(16, a).astype(np.float32)],
                      gen.SamplerState(mag_filter="linear", min_filter="linear"))
    d = rng.uniform(-1, 1, (4000, 3)).astype(np.float32)
    d = d[np.abs(d).max(axis=1) > 0.25]
    got = sample(tex, d, lod=np.zeros(len(d), np.float32))
    want = gen.cube_value(d.astype(np.float64), a)
    assert np.max(np.abs(got - want)) < TEX_CUBE_ERR


def _allowed_opcodes(version: ShaderVersion) -> set[str]:
    skip = {Opcode.NOP, Opcode.DCL, Opcode.DEF, Opcode.DEFI, Opcode.DEFB, Opcode.PHASE, Opcode.COMMENT, Opcode.END,
            Opcode.RESERVED0, Opcode.TEXCOORD}
    names = set()
    for op, info in OPCODES.items():
        if op in skip or not info.allowed_in(version):
            continue
        names.add(info.mnemonic)
    return names


def test_feature_coverage_report(capsys):
    """Generate a sample, print what it covers, and require every opcode
    legal in each version and the important forms to appear."""
    total: Counter = Counter()
    per_version: dict[str, Counter] = {}
    sizes = []
    for seed in range(900):
        version = VERSIONS[seed % 6]
        prog = generate_seed(10_000 + seed, version)
        feats = feature_counts(prog.shader)
        per_version.setdefault(version, Counter()).update(feats)
        total.update(feats)
        sizes.append(sum(1 for i in prog.shader.instructions
                         if i.opcode not in (Opcode.DCL, Opcode.DEF, Opcode.DEFI, Opcode.DEFB)))
    with capsys.disabled():
        print(f"\nfeature coverage over 900 programs (instructions per program: min {min(sizes)}, "
              f"median {sorted(sizes)[len(sizes) // 2]}, max {max(sizes)}):")
        items = sorted(total.items())
        for i in range(0, len(items), 4):
            print("  " + "  ".join(f"{k:>22}={v:<5}" for k, v in items[i:i + 4]))
    aliases = {"tex": "texld", "ifc": "if_cmp", "breakc": "break_cmp", "setp": "setp_cmp"}
    for version, feats in per_version.items():
        v = ShaderVersion.parse(version)
        missing = set()
        for name in _allowed_opcodes(v):
            key = aliases.get(name, name)
            if feats[key] == 0:
                missing.add(name)
        assert not missing, f"{version} never generates {sorted(missing)}"
    for feature in ("mod:neg", "mod:abs", "mod:absneg", "mod:not", "dst:sat", "dst:partial_mask", "swizzle",
                    "pred", "pred:not", "pred:tex", "pred:swizzle", "rel:c[a0]", "rel:c[aL]", "rel:v[aL]",
                    "rel:o[aL]", "sincos:sm2", "sincos:sm3", "loop:step0", "loop:step<0", "loop:api_count",
                    "if:b", "if:p0", "callnz:b", "callnz:p0", "texldp", "texldb", "texldl", "texldd",
                    "nest:2", "special:rcp(0)", "special:rsq(0)", "special:log(0)", "vPos", "vFace",
                    "dst:output", "sampler_swizzle", "label", "ret"):
        assert total[feature] > 0, f"no program exercises {feature}"


def test_genprog_script():
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "genprog"), "--seed", "4", "--count", "2",
                          "--version", "ps_3_0", "--run"], capture_output=True, text=True, check=True).stdout
    programs_text = [p for p in out.split("// program ") if p.strip()]
    assert len(programs_text) == 2
    for text in programs_text:
        body = "\n".join(line for line in text.splitlines()[1:] if not line.startswith("//"))
        assemble(body)
    help_text = subprocess.run([sys.executable, str(ROOT / "scripts" / "genprog"), "--help"],
                               capture_output=True, text=True, check=True).stdout
    assert "--count" in help_text and "--version" in help_text
