"""xlate's own SPIR-V writer (targets "spirv" and "spirv-native"):
grammar tables, the module builder, the corpus through spirv-val, the
interface it shares with the "vulkan" GLSL target.

Execution on lavapipe is in tests/verify/test_vk_runner.py (vkd3d's
cases and generated pixel shaders, beside the glslang path).

Corpus share: every shader of wine, wine-composed, vkd3d, hlsldecompiler
and the project's sm1 corpus, every 4th of fxc-wine; XLATE_CORPUS_FULL=1
takes all of fxc-wine.  spirv-val runs once per batch (a directory).
"""

from __future__ import annotations

import json
import os
import struct
import sys

import pytest

from xlate import translate
from xlate.backends.layout import FALLBACK_LOCATIONS, SEMANTIC_ROWS, fallback_location
from xlate.backends.spirv import validate_many
from xlate.backends.spirv.grammar import grammar
from xlate.backends.spirv.module import Module
from xlate.bytecode.asm import assemble_bytes
from xlate.bytecode.tables import DeclUsage
from xlate.errors import XlateError

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import corpus  # noqa: E402

PS = """ps_3_0
def c1, 0, 0.5, 1, -2
dcl_texcoord0 v0.xy
dcl_texcoord1 v1
dcl_2d s0
dcl_cube s1
dcl vFace
dcl vPos.xy
defi i0, 3, 0, 0, 0
texld r0, v0, s0
texldl r1, v1, s1
dsx r2, v1
dsy r3, v1
rep i0
  add r0, r0, c0
  if_lt r0.x, c1.y
    break
  endif
endrep
setp_gt p0, r0, c1.x
(p0.y) mov r0.y, r1.x
texkill v1
cmp r0.xz, r0, r2, r3
mul r0, r0, vFace
mov oDepth, r0.w
add oC0, r0, vPos.xyxy
mov oC1, r1
"""
VS = """vs_3_0
dcl_position v0
dcl_texcoord0 v1
dcl_position o0
dcl_texcoord0 o1
dcl_psize o2
defi i0, 4, 0, 1, 0
mova a0.x, v1.x
mov r0, c0[a0.x]
loop aL, i0
  add r0, r0, c10[aL]
endloop
call l1
m4x4 o0, v0, c20
mov o1, r0
mov o2.x, c1.x
ret
label l1
mul r0, r0, c2
ret
"""


def words(code: bytes) -> tuple[int, ...]:
    return struct.unpack(f"<{len(code) // 4}I", code)


def opcodes(code: bytes) -> list[int]:
    w = words(code)
    out, i = [], 5
    while i < len(w):
        out.append(w[i] & 0xFFFF)
        i += w[i] >> 16
    return out


def test_grammar_is_read_from_the_headers_wheel():
    g = grammar()
    assert g is grammar()  # read once
    assert g.magic == 0x07230203
    # the machine-readable header (spirv.json, the same wheel) agrees with the grammar
    from xlate.backends.spirv.grammar import _find

    header = json.loads(_find("spirv/unified1/spirv.json").read_text())
    enums = {e["Name"]: e["Values"] for e in header["spv"]["enum"]}
    for name in ("OpFAdd", "OpLoopMerge", "OpImageSampleExplicitLod", "OpKill", "OpSpecConstant"):
        assert enums["Op"][name] == g.opcode(name)
    assert enums["Decoration"]["SpecId"] == g.enum("Decoration", "SpecId")
    assert g.ext("FClamp") > 0 and g.ext("InverseSqrt") > 0


def test_module_deduplicates_types_and_constants():
    m = Module()
    f = m.float()
    assert m.vector(f, 4) == m.vector(f, 4) and m.vector(f, 1) == f
    assert m.float_constant(0.5) == m.float_constant(0.5)
    assert m.float_constant(0.0) != m.float_constant(-0.0)  # different bits
    assert m.float_constant(1e39) == m.float_constant(float("inf"))  # beyond float32: inf
    # an explicitly laid out array is not the private one
    assert m.array(f, 4) != m.array(f, 4, 16) and m.array(f, 4, 16) == m.array(f, 4, 16)
    s = m.spec_constant(f, 7, 2.0)
    assert s != m.float_constant(2.0)
    with pytest.raises(ValueError, match="SpecId 7"):
        m.spec_constant(m.bool(), 7, True)
    with pytest.raises(ValueError):
        Module("1.5")


def test_native_is_valid_and_reflects_like_vulkan():
    for src in (PS, VS):
        blob = assemble_bytes(src)
        native = translate(blob, "spirv")
        assert native.target == "spirv" and isinstance(native.code, bytes)
        vk = translate(blob, "vulkan")
        assert {**native.reflection, "target": "vulkan"} == vk.reflection
        assert translate(blob, "spirv-native").code == native.code
    assert validate_many([translate(assemble_bytes(s), "spirv").code for s in (PS, VS)]) == [None, None]


def test_options_strip_names_and_pick_the_version():
    blob = assemble_bytes(PS)
    g = grammar()
    named = translate(blob, "spirv")
    stripped = translate(blob, "spirv", debug_names=False)
    assert g.opcode("OpName") in opcodes(named.code)
    assert not {g.opcode("OpName"), g.opcode("OpMemberName"), g.opcode("OpSource")} & set(opcodes(stripped.code))
    assert words(named.code)[1] == 0x00010000
    v13 = translate(blob, "spirv", spirv_version="1.3")
    assert words(v13.code)[1] == 0x00010300
    assert validate_many([stripped.code]) == [None]
    assert validate_many([v13.code], "vulkan1.3") == [None]
    with pytest.raises(ValueError, match="spirv_version"):
        translate(blob, "spirv", spirv_version="1.6")


def test_structured_control_flow_and_ops():
    """The shaders above hold loops, breaks, calls, predication, texkill,
    depth and MRT: the merges and the execution modes are there."""
    g = grammar()
    ps = opcodes(translate(assemble_bytes(PS), "spirv").code)
    vs = opcodes(translate(assemble_bytes(VS), "spirv").code)
    for name in ("OpLoopMerge", "OpSelectionMerge", "OpKill", "OpDPdx", "OpDPdy", "OpImageSampleImplicitLod",
                 "OpImageSampleExplicitLod"):
        assert g.opcode(name) in ps, name
    assert g.opcode("OpFunctionCall") in vs and g.opcode("OpLoopMerge") in vs
    code = translate(assemble_bytes(PS), "spirv").code
    w = words(code)
    depth_replacing = g.enum("ExecutionMode", "DepthReplacing")
    assert any(w[i] & 0xFFFF == g.opcode("OpExecutionMode") and w[i + 2] == depth_replacing
               for i in range(5, len(w) - 2))


def test_glslang_path_stays_available():
    t = translate(assemble_bytes(PS), "spirv-glslang")
    assert t.code[:4] == b"\x03\x02\x23\x07" and t.reflection["samplers"] == translate(
        assemble_bytes(PS), "spirv").reflection["samplers"]


def _selection() -> list[tuple[str, bytes]]:
    from test_translate_corpus import _own_sm1  # noqa: PLC0415 - the same assembled sm1 corpus

    full = os.environ.get("XLATE_CORPUS_FULL") == "1"
    blobs = []
    for name in ("wine", "wine-composed", "vkd3d", "hlsldecompiler", "fxc-wine"):
        items = list(corpus.iter_corpus(name))
        if name == "fxc-wine" and not full:
            items = items[::4]
        blobs += [(f"{name}:{bid}", data) for bid, data in items]
    return blobs + _own_sm1()


@pytest.mark.parametrize("version,env", [("1.0", "vulkan1.0"), ("1.3", "vulkan1.3")])
def test_corpus_spirv_val(version, env, record_property):
    """Every shader that translates to "vulkan" GLSL translates natively,
    and spirv-val accepts every module (1.3: every 3rd shader of the share)."""
    corpus.require_corpus()
    blobs = _selection()
    if version == "1.3":
        blobs = blobs[::3]
    modules, names, refused, problems = [], [], 0, []
    for bid, data in blobs:
        try:
            t = translate(data, "spirv", spirv_version=version)
        except XlateError as exc:
            try:
                translate(data, "vulkan")
            except XlateError:
                refused += 1  # the GLSL path refuses it too (not a shader, unsupported)
                continue
            problems.append(f"{bid}: only the native writer refuses: {exc}")
            continue
        modules.append(t.code)
        names.append(bid)
    results = validate_many(modules, env)
    problems += [f"{bid}: {msg[:600]}" for bid, msg in zip(names, results) if msg]
    summary = (f"spirv (native, SPIR-V {version}) corpus: {len(blobs)} blobs, {len(modules)} modules, "
               f"{len(modules) - sum(map(bool, results))} pass spirv-val --target-env {env}, {refused} refused "
               "by both writers")
    print(summary)
    record_property("corpus_summary", summary)
    assert not problems, f"{len(problems)} failures:\n" + "\n".join(problems[:20])
    assert modules


def test_interface_cache_gives_the_same_bytes():
    """A module whose interface is copied from an earlier shader's is the
    module built from scratch."""
    from xlate.backends.spirv import interface

    for src in (PS, VS):
        blob = assemble_bytes(src)
        interface._BUILT.clear()
        fresh = translate(blob, "spirv").code
        assert translate(blob, "spirv").code == fresh  # now from the cache
        stripped = translate(blob, "spirv", debug_names=False).code
        interface._BUILT.clear()
        assert translate(blob, "spirv", debug_names=False).code == stripped


def test_interface_cache_is_bounded_and_evicts_the_oldest(monkeypatch):
    """Past ``_BUILT_MAX`` interfaces the oldest goes: the cache stays that
    size, and a shader whose interface was evicted (built again) or is still
    there (copied) gives the bytes it gave the first time."""
    from xlate.backends.spirv import interface

    monkeypatch.setattr(interface, "_BUILT", {})
    monkeypatch.setattr(interface, "_BUILT_MAX", 2)
    blobs = [assemble_bytes(src) for src in (PS, VS, VS_COLOR4)]  # three interfaces
    first = [translate(b, "spirv").code for b in blobs]
    assert len(interface._BUILT) == 2
    assert [translate(b, "spirv").code for b in reversed(blobs)] == first[::-1]
    assert len(interface._BUILT) == 2


VS_COLOR4 = "vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_color4 o1\nmov o0, v0\nmov o1, c0\n"
PS_COLOR4 = "ps_3_0\ndcl_color4 v0\nmov oC0, v0\n"


@pytest.mark.parametrize("target", ["vulkan", "spirv", "glsl450"])
def test_varying_locations_option(target):
    """A layer's map moves a semantic outside the fixed table (Vulkan: its
    fallback location, 10 for color4) elsewhere, in the code and the
    reflection, for both stages; semantics it does not list keep theirs."""
    default = translate(assemble_bytes(PS_COLOR4), target)
    if target != "glsl450":
        assert default.reflection["inputs"][0]["location"] == fallback_location(DeclUsage.COLOR, 4) == 10
    opts = {"varying_locations": (("color", 4, 3), ("texcoord", 0, 0))}
    ps = translate(assemble_bytes(PS_COLOR4), target, **opts)
    vs = translate(assemble_bytes(VS_COLOR4), target, **opts)
    assert ps.reflection["inputs"][0]["location"] == 3
    assert [o["location"] for o in vs.reflection["outputs"] if o["usage"] == "color"] == [3]
    if target == "spirv":
        assert validate_many([ps.code, vs.code]) == [None, None]
        g = grammar()
        w = words(ps.code)
        loc = g.enum("Decoration", "Location")
        assert any(w[i] & 0xFFFF == g.opcode("OpDecorate") and w[i + 2] == loc and w[i + 3] == 3
                   for i in range(5, len(w) - 3))
    else:
        assert "layout(location = 3) in vec4 v_color4;" in ps.code


@pytest.mark.parametrize("target", ["vulkan", "spirv"])
def test_default_varying_locations_are_under_32(target):
    """Every semantic D3D can declare gets a Vulkan location under 32 from
    the semantic alone, VS output and PS input alike: the fixed table's, or
    its fallback (one of TEXCOORD8-15's)."""
    for usage in DeclUsage:
        for index in range(16):
            row = SEMANTIC_ROWS[usage][index]
            assert row.vk_location < 32
            if row.gl_location is None:
                assert row.vk_location in FALLBACK_LOCATIONS
    sem = "color5"
    vs = translate(assemble_bytes(f"vs_3_0\ndcl_position o0\ndcl_{sem} o1\nmov o0, c0\nmov o1, c1\n"), target)
    ps = translate(assemble_bytes(f"ps_3_0\ndcl_{sem} v0\nmov oC0, v0\n"), target)
    want = fallback_location(DeclUsage.COLOR, 5)
    assert [o["location"] for o in vs.reflection["outputs"] if o["usage"] == "color"] == [want]
    assert ps.reflection["inputs"][0]["location"] == want
    assert not any("location" in d for d in vs.diagnostics + ps.diagnostics)


@pytest.mark.parametrize("target", ["vulkan", "spirv"])
def test_default_varying_locations_spread_a_shared_one(target):
    """normal2 and tangent1 fall on one fallback location: the later one
    moves to a free location, in the code and the reflection, with a
    diagnostic that points to varying_locations; a PS declaring the same
    semantics moves it alike."""
    assert fallback_location(DeclUsage.NORMAL, 2) == fallback_location(DeclUsage.TANGENT, 1)
    vs = translate(assemble_bytes("vs_3_0\ndcl_position o0\ndcl_normal2 o1\ndcl_tangent1 o2\nmov o0, c0\n"
                                  "mov o1, c1\nmov o2, c2\n"), target)
    ps = translate(assemble_bytes("ps_3_0\ndcl_normal2 v0\ndcl_tangent1 v1\nadd oC0, v0, v1\n"), target)
    vl = {o["usage"]: o["location"] for o in vs.reflection["outputs"] if o["glsl"].startswith("v_")}
    pl = {i["usage"]: i["location"] for i in ps.reflection["inputs"]}
    assert vl == pl and vl["normal"] == fallback_location(DeclUsage.NORMAL, 2) and vl["tangent"] != vl["normal"]
    assert vl["tangent"] < 32
    for t in (vs, ps):
        assert any("v_tangent1 would share Vulkan location" in d and "varying_locations" in d for d in t.diagnostics)
    if target == "spirv":
        assert validate_many([vs.code, ps.code]) == [None, None]
    else:
        assert f"layout(location = {vl['tangent']}) in vec4 v_tangent1;" in ps.code


def test_varying_locations_refuses_bad_maps():
    with pytest.raises(ValueError, match="not \\(usage, index, location\\)"):
        translate(assemble_bytes(PS_COLOR4), "spirv", varying_locations=(("colour", 4, 3),))
    with pytest.raises(ValueError, match="two semantics"):
        translate(assemble_bytes(PS_COLOR4), "spirv", varying_locations=(("color", 4, 3), ("fog", 0, 3)))
    clash = "ps_3_0\ndcl_color4 v0\ndcl_texcoord0 v1\nadd oC0, v0, v1\n"
    with pytest.raises(XlateError, match="both at location 0"):
        translate(assemble_bytes(clash), "spirv", varying_locations=(("color", 4, 0),))


def test_sampler_read_as_a_value_is_refused(monkeypatch):
    """A hostile shader using s0 as an arithmetic source: an error naming
    the instruction, never an invalid module (with the IR validator off,
    as translations run by default).  The validity rule
    (xlate/bytecode/validity.py) refuses it in the assembler and the
    decoder alike (the decoder's refusal of the same tokens is
    tests/test_hostile.py's fuzz-finding ps30_sampler_as_source.bin), so
    the writer's own check is the last line of defence."""
    monkeypatch.delenv("XLATE_VALIDATE", raising=False)
    text = "ps_3_0\ndcl_2d s0\ndcl_texcoord0 v0\ntexld r0, v0, s0\nadd r0, r0, s0\nmov oC0, r0\n"
    with pytest.raises(XlateError, match="'add' .*s0.*sampler"):
        translate(assemble_bytes(text), "spirv", validate=False)


def test_one_semantic_on_two_inputs_is_refused():
    """Two PS input registers declared with one semantic would share a
    location: refused (by the decoder's validity rule), never an invalid
    module."""
    from hostile import unchecked_bytes  # the assembler refuses the text too (the same rule)

    blob = unchecked_bytes("ps_3_0\ndcl_texcoord0 v0\ndcl_texcoord0 v1\nadd oC0, v0, v1\n")
    with pytest.raises(XlateError, match="declared as texcoord, which v0 already is"):
        translate(blob, "spirv")


MUTATIONS = ("flip", "flip", "replace", "opcode", "truncate", "duplicate", "delete", "insert")


def test_mutated_corpus_shaders_give_valid_modules_or_errors():
    """Hostile input (corpus shaders with random token mutations,
    tests/corpus.py): every one translates to a module spirv-val accepts or
    raises XlateError; nothing else."""
    import random

    rng = random.Random(20261126)
    seeds = corpus.mutation_seeds()
    if not seeds:
        pytest.skip("no mutation seeds (peer corpus absent)")
    modules, crashes = [], []
    for _ in range(800):
        _, data = seeds[rng.randrange(len(seeds))]
        blob = corpus.mutate(data, rng.choice(MUTATIONS), rng.randrange(max(1, len(data) // 4)), rng.getrandbits(32))
        try:
            modules.append(translate(blob, "spirv").code)
        except XlateError:
            continue
        except Exception as exc:  # noqa: BLE001 - the failure this test looks for
            crashes.append(f"{type(exc).__name__}: {exc}")
    assert not crashes, crashes[:5]
    results = validate_many(modules)
    assert modules and not any(results), [r for r in results if r][:3]


def test_store_of_the_wrong_kind_is_refused(monkeypatch):
    """setp into a temporary (only p0 takes booleans): refused, never an
    OpStore of a bool vector into a float register."""
    monkeypatch.delenv("XLATE_VALIDATE", raising=False)
    tokens = list(words(assemble_bytes("ps_3_0\ndcl_texcoord0 v0\nsetp_gt p0, v0, c0\nmov oC0, r0\n")))
    # the assembler refuses r0 as setp's destination: turn p0 (register type 19) into r0 (0) by hand
    at = next(i for i, t in enumerate(tokens) if t >> 31 and (t >> 28) & 7 == 3 and (t >> 11) & 3 == 2)
    tokens[at] &= ~((7 << 28) | (3 << 11))
    blob = struct.pack(f"<{len(tokens)}I", *tokens)
    # the decoder's validity rule refuses it first (the writer would say "stored into r0")
    with pytest.raises(XlateError, match="operand 1 of 'setp' cannot be r0"):
        translate(blob, "spirv")


def _instructions(code: bytes):
    """(opcode, operands) of each instruction of a module's words."""
    words = struct.unpack(f"<{len(code) // 4}I", code)[5:]
    k = 0
    while k < len(words):
        count = words[k] >> 16
        yield words[k] & 0xFFFF, words[k + 1:k + count]
        k += count


def test_register_load_agrees_with_the_general_load(monkeypatch):
    """A constant register's first load, written by ``register_load`` (the
    op loop's path, its element constant written out), gives the bytes
    ``load``'s general path gives (``_access``, ``int_constant``,
    ``pointer``): every 25th fxc-wine shader and the sources here."""
    from xlate.backends.spirv import interface
    from xlate.backends.spirv.access import Access

    corpus.require_corpus()
    blobs = [assemble_bytes(src) for src in (PS, VS, VS_COLOR4)]
    blobs += [blob for k, (_, blob) in enumerate(corpus.iter_corpus("fxc-wine")) if k % 25 == 0]

    def codes() -> list:
        out = []
        for blob in blobs:
            try:
                out.append(translate(blob, "spirv").code)
            except XlateError:
                out.append(None)
        return out

    fast = codes()
    monkeypatch.setattr(Access, "register_load", lambda self, key: None)
    interface._BUILT.clear()
    general = codes()
    assert sum(code is not None for code in fast) > 100
    assert general == fast


def test_vector_constant_shares_its_repeated_scalars():
    """``def c0, 0.3, 0.3, 0.7, 0.3``: one OpConstant per distinct value
    (the new ones made in component order), the composite naming them."""
    code = translate(assemble_bytes("ps_3_0\ndef c0, 0.3, 0.3, 0.7, 0.3\nmov oC0, c0\n"), "spirv").code
    op = grammar().instructions
    bits = {struct.unpack("<I", struct.pack("<f", x))[0]: x for x in (0.3, 0.7)}
    scalars = {operands[1]: operands[2] for opcode, operands in _instructions(code)
               if opcode == op["OpConstant"].opcode and operands[2] in bits}
    assert sorted(scalars.values()) == sorted(bits)  # each value once
    by_value = {v: k for k, v in scalars.items()}
    assert by_value[min(bits, key=bits.get)] < by_value[max(bits, key=bits.get)]  # 0.3 made before 0.7
    composites = [operands[2:] for opcode, operands in _instructions(code)
                  if opcode == op["OpConstantComposite"].opcode and set(operands[2:]) <= set(scalars)]
    a, b = by_value[min(bits, key=bits.get)], by_value[max(bits, key=bits.get)]
    assert (a, a, b, a) in [tuple(c) for c in composites]
