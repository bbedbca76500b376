"""Random well-defined ps_1_1-ps_1_4 programs (``xlate.verify.generate_sm1``)
against the reference interpreter: valid (bytecode and assembly round
trips), covering the ps_1_x features, and matching the reference within the
generator's error bounds on llvmpipe (GL, glsl330) and on lavapipe (xlate's
native SPIR-V writer, "spirv").

Program k of a version is ``generate_seed(seed, version)`` with
``seed = random.Random(f"{version}/{XLATE_DIFF_SEED + k}").getrandbits(32)``
and ``random_inputs(random.Random(seed))`` (``differential.check_generated``);
``scripts/difftest --seed S --count 1 --versions ps_1_3`` replays one on GL.
CI runs ``PROGRAMS_PER_VERSION`` per version on each driver (100 ps_1_x
programs per run on each); ``XLATE_CORPUS_FULL=1`` runs ``FULL_PROGRAMS_PER_VERSION``.
On lavapipe the programs are drawn after a pass-through VS that xlate's own
SPIR-V writer translated (``check_generated(native_vs=True)``): the runner's
GLSL pass-through cost a glslang call, ~0.4 s, per program.
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter

import numpy as np
import pytest

from xlate.bytecode import decode, encode
from xlate.bytecode.asm import assemble_bytes
from xlate.bytecode.disasm import disassemble
from xlate.verify import differential as D
from xlate.verify.generate import PS1_VERSIONS, feature_counts, generate_seed, random_inputs

SEED = int(os.environ.get("XLATE_DIFF_SEED", "0"))
FULL = os.environ.get("XLATE_CORPUS_FULL") == "1"
PROGRAMS_PER_VERSION = 25
FULL_PROGRAMS_PER_VERSION = 250  # ten times the CI share, as the other generated shares
COUNT = FULL_PROGRAMS_PER_VERSION if FULL else PROGRAMS_PER_VERSION


def seeds(version: str, count: int = COUNT) -> list[int]:
    return [random.Random(f"{version}/{SEED + k}").getrandbits(32) for k in range(count)]


# Every ps_1_x feature the generator promises, seen at least once over 60
# programs per version (feature_counts names; "coissue" and the shifts are counted here).
EXPECTED_FEATURES = {
    "tex", "texcoord", "texkill", "texbem", "texbeml", "texreg2ar", "texreg2gb", "texreg2rgb", "texm3x2pad",
    "texm3x2tex", "texm3x3pad", "texm3x3tex", "texm3x3", "texdp3", "texdp3tex", "texld", "texcrd", "bem", "phase",
    "add", "sub", "mul", "mad", "mov", "lrp", "dp3", "dp4", "cnd", "cmp", "dst:sat", "def",
    "mod:neg", "mod:bias", "mod:biasneg", "mod:sign", "mod:signneg", "mod:comp", "mod:x2", "mod:x2neg",
    "mod:dz", "mod:dw", "coissue", "shift:x2", "shift:x4", "shift:x8", "shift:d2", "shift:d4", "shift:d8",
    "coissue:reads_partner", "def:clamped", "texm3x2depth", "texdepth",
    "texm3x3spec", "texm3x3vspec",
}
_SHIFTS = {1: "x2", 2: "x4", 3: "x8", -1: "d2", -2: "d4", -3: "d8"}


def _features(shader) -> Counter:
    c = feature_counts(shader)
    ins = shader.instructions
    for i in ins:
        if i.dst is not None and i.dst.shift:
            c["shift:" + _SHIFTS[i.dst.shift]] += 1
        if i.opcode.name == "DEF" and any(abs(x) > 1 for x in i.float_values):
            c["def:clamped"] += 1
    for a, b in zip(ins, ins[1:]):
        if b.coissue:
            c["coissue"] += 1
            if any((s.type, s.index) == (x.dst.type, x.dst.index) for x, y in ((a, b), (b, a)) for s in y.srcs):
                c["coissue:reads_partner"] += 1
    return c


def test_generated_ps1_programs_are_valid_and_bounded():
    """60 programs per version: bytecode and assembly round trips, the
    reference's colour inside the generator's value ranges, the stage
    policy's options, and the features above all exercised."""
    seen: Counter = Counter()
    for version in PS1_VERSIONS:
        for seed in seeds(version, 60):
            prog = generate_seed(seed, version)
            blob = encode(prog.shader)
            assert encode(decode(blob)) == blob
            assert assemble_bytes(disassemble(decode(blob), header=False)) == blob, prog.asm
            assert str(prog.shader.version) == version
            seen.update(_features(prog.shader))
            result = random_inputs(prog.shader, random.Random(seed), n=32).run(prog.shader)
            value = result.outputs["oC0"]
            assert prog.written_masks["oC0"] == 0xF
            for c, rng in enumerate(prog.output_ranges["oC0"]):
                lo, hi = rng
                err = prog.error_bounds["oC0"][c] + 1e-6
                live = ~np.asarray(result.killed, bool)
                assert np.all(value[live, c] >= lo - err) and np.all(value[live, c] <= hi + err), (
                    f"{version} seed {seed}: oC0.{'xyzw'[c]} outside [{lo}, {hi}]\n{prog.asm}")
            for stage, kind in prog.translate_options.get("sampler_types", {}).items():
                assert kind in ("volume", "cube") and prog.sampler_roles[stage] in ("linear", "point", "cube")
    missing = EXPECTED_FEATURES - set(seen)
    assert not missing, f"never generated: {sorted(missing)}"


def _run(version: str, check, record_property, driver: str):
    failures, compared = [], 0
    start = time.perf_counter()
    for seed in seeds(version):
        prog = generate_seed(seed, version)
        verdict = check(prog, seed)
        compared += verdict.compared
        if not verdict.ok:
            failures.append(verdict.report() + "\n" + prog.asm + f"\noptions: {prog.translate_options}")
    summary = (f"differential generated {version} on {driver}: {COUNT} programs, {COUNT - len(failures)} pass, "
               f"{compared} components compared; {time.perf_counter() - start:.1f}s")
    print(summary)
    record_property("corpus_summary", summary)
    assert not failures, f"{len(failures)} of {COUNT} {version} programs failed:\n\n" + "\n\n".join(failures[:5])
    assert compared > 0


@pytest.mark.parametrize("version", PS1_VERSIONS)
def test_generated_ps1_programs_on_gl(gl, version, record_property):
    _run(version, lambda prog, seed: D.check_generated(prog, seed, name=f"{version} seed {seed}"),
         record_property, "llvmpipe (glsl330)")


@pytest.mark.parametrize("version", PS1_VERSIONS)
def test_generated_ps1_programs_on_native_spirv(vkr, version, record_property):
    vkr.drop_pipelines()  # one-off pipelines: lavapipe slows as thousands stay alive
    count = [0]

    def check(prog, seed):
        count[0] += 1
        if count[0] % 50 == 0:
            vkr.drop_pipelines()
        return D.check_generated(prog, seed, target="spirv", runner=vkr, name=f"{version} seed {seed}", native_vs=True)

    _run(version, check, record_property, "lavapipe (native spirv)")


COISSUE = """ps_1_3
def c0, 0.25, 0.5, 0.75, 1
mov r0, c0
mov r0.a, c0.r
+ mov r1.rgb, r0.a
mov r0.rgb, r1
"""


def _coissue_mutant(target: str, runner=None):
    """(verdict of the translation without co-issue, verdict of the real one)
    of ``COISSUE``, both against the reference of the original."""
    import dataclasses

    from xlate import translate
    from xlate.bytecode.model import Instruction

    blob = assemble_bytes(COISSUE)
    shader = decode(blob)
    plain = dataclasses.replace(shader, items=tuple(dataclasses.replace(i, coissue=False) if isinstance(i, Instruction)
                                                     else i for i in shader.items))
    assert encode(plain) != blob
    out = []
    for data in (encode(plain), blob):
        translation = translate(data, target)
        verdict = D.Verdict("mutant", target)
        D._check_pixel(verdict, translation, shader, D.make_inputs(shader, translation.reflection, 0), 0,
                       runner=runner, native_vs=runner is not None)
        out.append(verdict)
    return out


def test_harness_catches_a_wrong_coissue(gl):
    """The ps_1_x comparison is not vacuous: the translation of the same
    program without its co-issue bit (the .rgb op then reads the new r0.a,
    0.25, instead of 1) must fail against the reference of the original."""
    bad, good = _coissue_mutant("glsl330")
    assert bad.status == "fail", bad.report()
    assert good.ok, good.report()


def test_harness_catches_a_wrong_coissue_on_native_spirv(vkr):
    """As above on lavapipe, native SPIR-V after the native pass-through VS
    (``differential.native_passthrough_for``, the path the generated
    programs take there)."""
    from xlate import translate

    assert D.native_passthrough_for(translate(assemble_bytes(COISSUE), "spirv")) is not None
    bad, good = _coissue_mutant("spirv", vkr)
    assert bad.status == "fail", bad.report()
    assert good.ok, good.report()
