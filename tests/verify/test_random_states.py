"""Random differential programs with every draw-time state drawn at random
(xlate/verify/random_state.py): pixel programs with fog, alpha test, sRGB
write, sRGB read, depth compare and unbound samplers; vertex programs with
user clip planes (the captured clip distances against the reference's) and
the clamped point size.  Baked and dynamic (uniforms) on llvmpipe; pixel
programs with specialization constants on lavapipe (Vulkan GLSL and native
SPIR-V).

A small deterministic share runs in CI; XLATE_CORPUS_FULL=1 runs ten times
as many (the long campaign: scripts/difftest)."""

from __future__ import annotations

import os
from collections import Counter

import pytest

from xlate import translate
from xlate.bytecode import encode
from xlate.verify.random_state import generated

FULL = os.environ.get("XLATE_CORPUS_FULL") == "1"
SHARE = 4 * (10 if FULL else 1)  # seeds per version


def _coverage(seeds, versions) -> Counter:
    """What the translations of these (program, state) pairs depend on."""
    seen: Counter = Counter()
    for seed in seeds:
        for version in versions:
            program, state = generated(seed, version)
            rs = translate(encode(program.shader), "glsl330", draw_state=state).reflection.get("render_state", {})
            seen.update(k for k in rs if k not in ("mode", "baked", "parameters"))
    return seen


def test_the_states_are_exercised():
    """Over a few seeds every state the random draw states draw shows up in
    some translation's reflection (so the differential tests below are not
    vacuous): the generator plans its sRGB and depth samplers first."""
    seen = _coverage(range(20), ("ps_2_0", "ps_2_x", "ps_3_0")) + _coverage(range(6), ("vs_2_0", "vs_3_0"))
    for key in ("fog", "alpha_test", "srgbwriteenable", "srgbtexture", "depthtexture", "nulltexture",
                "clipplanes", "pointsize"):
        assert seen[key] > 0, (key, seen)


@pytest.mark.parametrize("version", ["ps_2_0", "ps_2_x", "ps_3_0", "vs_2_0", "vs_3_0"])
def test_random_programs_with_random_states_gl(gl, version):
    from xlate.verify import differential as D

    compared = 0
    for k in range(SHARE):
        seed = 14000 + k
        program, state = generated(seed, version)
        mode = ("baked", "dynamic")[k % 2]
        v = D.check_generated(program, seed, draw_state=state, draw_state_mode=mode, name=f"{version} {seed} {mode}")
        assert v.ok, v.report() + "\n" + program.asm
        compared += v.compared
    assert compared > 0


def test_clip_distances_and_point_size_are_compared(gl):
    """A vertex program's verdict compares more with clip planes and the point
    clamp on (the captured distances and size) than without."""
    from xlate.drawstate import DrawState
    from xlate.verify import differential as D

    program, _ = generated(3, "vs_2_0")
    state = DrawState(clipplaneenable=0b101, clipplanes=[[1, 0, 0, 0.5], [0] * 4, [0, -1, 0.25, 1]],
                      pointmode=True, pointsize=3.0, pointsize_min=1.0, pointsize_max=2.0)
    plain = D.check_generated(program, 3)
    for mode in ("baked", "dynamic"):
        v = D.check_generated(program, 3, draw_state=state, draw_state_mode=mode)
        assert v.ok, v.report()
        assert v.compared >= plain.compared + 2 * 16, (v.compared, plain.compared)  # two distances per vertex


@pytest.mark.parametrize("target", ["vulkan", "spirv"])
@pytest.mark.parametrize("version", ["ps_2_0", "ps_2_x", "ps_3_0"])
def test_random_pixel_programs_with_specialization_constants_vk(vkr, version, target):
    """Pixel programs on lavapipe, every state a specialization constant
    (the runner fills VkSpecializationInfo from the reflection), as Vulkan
    GLSL and as xlate's native SPIR-V."""
    from xlate.verify import differential as D

    for k in range(max(2, SHARE // 2)):
        seed = 15000 + k
        program, state = generated(seed, version)
        v = D.check_generated(program, seed, target=target, runner=vkr, draw_state=state,
                              draw_state_mode="dynamic", name=f"{version} {seed} {target}")
        assert v.ok, v.report() + "\n" + program.asm
