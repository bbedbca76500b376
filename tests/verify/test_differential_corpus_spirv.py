"""Corpus pixel shaders on xlate's native SPIR-V (target "spirv") on lavapipe,
against the reference interpreter, as test_differential_corpus.py checks
every corpus shader's GLSL on llvmpipe: ``differential.check_shader`` with
the Vulkan runner (its pass-through VS; texkill and oDepth read through a
probe output written into the module's words, ``spirv_edit.probe``), the
same seeded inputs and tolerance model.

CI checks a deterministic share: every SHARE_STRIDE-th corpus pixel shader
(about 0.2 s each on lavapipe here), at least PER_VERSION of each version
and every KILL_STRIDE-th one that discards or writes depth (``share``):
~110 shaders.
XLATE_CORPUS_FULL=1 checks all of them (~2,900, ~10 minutes).
``KNOWN_MISMATCHES`` of test_differential_corpus.py apply here too (a
listed shader that fails is counted, not reported), and so does its rule
that anything GLSL passes and SPIR-V does not is a bug.
"""

from __future__ import annotations

import functools
import os
import struct

import pytest
from corpus import CORPORA, iter_corpus, iter_wine_shaders, require_corpus
from .test_differential_corpus import KNOWN_MISMATCHES

from xlate.bytecode import decode
from xlate.errors import XlateError
from xlate.verify import differential as D

SEED = int(os.environ.get("XLATE_DIFF_SEED", "0"))
SHARE_STRIDE = 40
FULL = os.environ.get("XLATE_CORPUS_FULL") == "1"


PER_VERSION = 4  # the share holds at least this many of every pixel shader version (ps_1_1 ... ps_3_sw)
KILL_STRIDE = 3  # and every 3rd shader that discards pixels or writes depth (texkill, oDepth, texdepth ...)


@functools.lru_cache(maxsize=None)
def corpus_pixel_shaders() -> tuple[tuple[str, bytes, str, bool], ...]:
    """(id, blob, version, discards or writes depth?) of every corpus pixel shader."""
    from xlate.bytecode.tables import Opcode, RegisterType

    require_corpus()
    kill_ops = {Opcode.TEXKILL, Opcode.TEXDEPTH, Opcode.TEXM3x2DEPTH}
    out = []
    for name in CORPORA:
        blobs = iter_wine_shaders(complete_only=True) if name == "wine" else iter_corpus(name)
        for blob_id, data in blobs:
            try:
                shader = decode(data)
            except XlateError:
                continue
            if shader.version.is_vertex:
                continue
            special = any(i.opcode in kill_ops or (i.dst is not None and i.dst.type == RegisterType.DEPTHOUT)
                          for i in shader.instructions)
            out.append((f"{name}:{blob_id}", data, str(shader.version), special))
    return tuple(out)


def share(shaders) -> list:
    """The CI share, deterministic: every SHARE_STRIDE-th shader, the first
    PER_VERSION of each version at an even stride, every KILL_STRIDE-th
    shader that discards or writes depth; in corpus order."""
    picked = set(range(0, len(shaders), SHARE_STRIDE))
    by_version: dict[str, list[int]] = {}
    for k, s in enumerate(shaders):
        by_version.setdefault(s[2], []).append(k)
    for ks in by_version.values():
        picked.update(ks[::max(1, len(ks) // PER_VERSION)][:PER_VERSION])
    picked.update([k for k, s in enumerate(shaders) if s[3]][::KILL_STRIDE])
    return [shaders[k] for k in sorted(picked)]


def test_corpus_pixel_shaders_native_spirv(vkr, record_property):
    shaders = corpus_pixel_shaders()
    chosen = list(shaders) if FULL else share(shaders)
    unexpected, known = [], 0
    counts = {"pass": 0, "fail": 0, "error": 0, "skip": 0}
    compared = killed = 0
    versions: dict[str, int] = {}
    for k, (sid, data, _, _) in enumerate(chosen):
        if k % 50 == 0:
            vkr.drop_pipelines()  # one-off pipelines: lavapipe slows as thousands stay alive
        verdict = D.check_shader(data, seed=SEED, target="spirv", runner=vkr, name=sid)
        counts[verdict.status] += 1
        versions[verdict.version] = versions.get(verdict.version, 0) + 1
        compared += verdict.compared
        killed += verdict.killed
        if sid in KNOWN_MISMATCHES and not verdict.ok:
            known += 1
        elif not verdict.ok:
            unexpected.append(verdict.report())
    record_property("corpus_summary", (
        f"differential corpus on native SPIR-V (lavapipe): {len(chosen)} of {len(shaders)} pixel shaders "
        f"({', '.join(f'{v} {n}' for v, n in sorted(versions.items()))}), {counts['pass']} pass, {known} known "
        f"mismatches, {len(unexpected)} unexpected; {compared} components compared, {killed} texkill'd lanes"))
    assert len(chosen) >= 50
    assert compared > 0 and killed > 0
    assert not unexpected, f"{len(unexpected)} unexpected failures:\n\n" + "\n\n".join(unexpected[:5])


def test_native_spirv_pixel_check_catches_a_wrong_translation(vkr):
    """The SPIR-V pixel comparison is not vacuous: the module with mad's
    OpFAdd turned into OpFSub fails, naming the instruction; unchanged, it
    passes; a texkill the module drops is caught through the probe."""
    from xlate import translate
    from xlate.backends.spirv.grammar import grammar
    from xlate.bytecode.asm import assemble_bytes

    g = grammar()

    def swap(code: bytes, old: str, new: str) -> bytes:
        words = list(struct.unpack(f"<{len(code) // 4}I", code))
        i, hit = 5, False
        while i < len(words):
            if words[i] & 0xFFFF == g.opcode(old):
                words[i] = (words[i] & 0xFFFF0000) | g.opcode(new)
                hit = True
            i += words[i] >> 16
        assert hit, f"no {old} in the module"
        return struct.pack(f"<{len(words)}I", *words)

    blob = assemble_bytes("ps_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\nmad oC0, v0, v1, c0\n")
    good = translate(blob, "spirv")
    shader = decode(blob)
    verdict = D.Verdict("original", "spirv")
    D._check_pixel(verdict, good, shader, D.make_inputs(shader, good.reflection, 0), 0, runner=vkr)
    assert verdict.ok, verdict.report()
    import dataclasses

    bad = dataclasses.replace(good, code=swap(good.code, "OpFAdd", "OpFSub"))
    verdict = D.Verdict("mutant", "spirv")
    D._check_pixel(verdict, bad, shader, D.make_inputs(shader, bad.reflection, 0), 0, runner=vkr)
    assert verdict.status == "fail"
    assert "mad oC0, v0, v1, c0" in (verdict.mismatches[0].writer or ""), verdict.report()

    kill = assemble_bytes("ps_3_0\ndcl_texcoord0 v0\ntexkill v0\nmov oC0, v0\n")
    good = translate(kill, "spirv")
    shader = decode(kill)
    inputs = D.make_inputs(shader, good.reflection, 0)
    verdict = D.Verdict("texkill", "spirv")
    D._check_pixel(verdict, good, shader, inputs, 0, runner=vkr)
    assert verdict.ok and verdict.killed > 0, verdict.report()
    kept = dataclasses.replace(good, code=swap(good.code, "OpKill", "OpReturn"))
    verdict = D.Verdict("texkill dropped", "spirv")
    D._check_pixel(verdict, kept, shader, D.make_inputs(shader, kept.reflection, 0), 0, runner=vkr)
    assert verdict.status == "fail" and any(m.output == "texkill" for m in verdict.mismatches), verdict.report()
