"""Random well-defined programs (``xlate.verify.generate``, all features on)
on the reference interpreter and on llvmpipe, compared against the
generator's per-output error bounds (``xlate.verify.differential``).

``PROGRAMS_PER_VERSION`` × 6 versions (vs_2_0, vs_2_x, vs_3_0, ps_2_0,
ps_2_x, ps_3_0) = 2,040 programs per run, plus ``PROGRAMS_PER_SM1_VERSION``
vs_1_1 ones (``generate.SM1_VERSIONS``), one test per version so that
pytest-xdist spreads them over its workers.  Program k of a version is
``generate_seed(SEED + k, version)`` with ``random_inputs(random.Random(SEED
+ k))``; ``scripts/difftest --seed S --count 1 --versions V`` replays one,
and runs longer campaigns.  Measured cost on llvmpipe (one core, cold Mesa
shader cache): about 50 ms per program (translate ~15, compile + link +
first-draw JIT ~30, reference ~5).

``KNOWN_GENERATED`` holds bugs (translator and generator) the campaign keeps finding, each
matched narrowly (by what the program contains and how the verdict looks),
so that they do not hide other failures; their counts are reported.  Remove
an entry once the bug is fixed.
"""

from __future__ import annotations

import os

import pytest

from xlate.verify import differential as D
from xlate.verify.generate import SM1_VERSIONS, VERSIONS, generate_seed

SEED = int(os.environ.get("XLATE_DIFF_SEED", "0"))
PROGRAMS_PER_VERSION = 340
# vs_1_1 (generate.SM1_VERSIONS): fewer on GL (lavapipe runs 170 native SPIR-V
# ones, test_vk_runner.py), to keep the CI time
PROGRAMS_PER_SM1_VERSION = 100


# name -> (matcher(program, verdict), reason): bugs a campaign keeps finding,
# listed until fixed.  Empty: every generated program matches.
KNOWN_GENERATED: dict = {}


@pytest.mark.parametrize("version", VERSIONS + SM1_VERSIONS)
def test_generated_programs(gl, version, record_property):
    failures = []
    known = {name: 0 for name in KNOWN_GENERATED}
    compared = 0
    count = PROGRAMS_PER_SM1_VERSION if version in SM1_VERSIONS else PROGRAMS_PER_VERSION
    for k in range(count):
        seed = SEED + k
        program = generate_seed(seed, version)
        verdict = D.check_generated(program, seed, name=f"{version} seed {seed}")
        compared += verdict.compared
        if verdict.ok:
            continue
        for name, (match, _) in KNOWN_GENERATED.items():
            if match(program, verdict):
                known[name] += 1
                break
        else:
            failures.append(verdict.report() + "\n" + program.asm)
    known_text = ", ".join(f"{n} {c}" for n, c in known.items() if c) or "none"
    record_property("corpus_summary", (
        f"differential generated {version}: {count} programs on llvmpipe, "
        f"{count - len(failures) - sum(known.values())} pass, known bugs: {known_text}, "
        f"{len(failures)} unexpected; {compared} components compared"))
    assert not failures, f"{len(failures)} of {count} {version} programs failed:\n\n" + \
        "\n\n".join(failures[:5])


def test_harness_catches_a_wrong_translation(gl):
    """The comparison is not vacuous: a translation with one operator
    changed (mad's + to -) must fail, naming the instruction."""
    import dataclasses

    from xlate import translate
    from xlate.bytecode import decode
    from xlate.bytecode.asm import assemble_bytes

    blob = assemble_bytes("ps_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\nmad oC0, v0, v1, c0\n")
    good = translate(blob, "glsl330")
    assert "+ ps_c0" in good.code, good.code
    bad = dataclasses.replace(good, code=good.code.replace("+ ps_c0", "- ps_c0"))
    shader = decode(blob)
    verdict = D.Verdict("mutant", "glsl330")
    D._check_pixel(verdict, bad, shader, D.make_inputs(shader, bad.reflection, 0), 0)
    assert verdict.status == "fail"
    assert "mad oC0, v0, v1, c0" in (verdict.mismatches[0].writer or ""), verdict.report()
    verdict = D.Verdict("original", "glsl330")
    D._check_pixel(verdict, good, shader, D.make_inputs(shader, good.reflection, 0), 0)
    assert verdict.ok, verdict.report()
