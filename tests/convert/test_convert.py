"""``xlate convert`` over a tree built from the peer corpus (treekit.py)."""

from __future__ import annotations

import json

import pytest

from xlate import translate
from xlate.convert import convert
from xlate.convert.detect import Kind, detect
from xlate.convert.lock import LOCK_NAME
from xlate.errors import XlateError

from .treekit import FULL, build_tree, read_tree

TARGET = "glsl330"


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return build_tree(tmp_path_factory.mktemp("src"))


@pytest.fixture(scope="module")
def first_run(tree, tmp_path_factory):
    base = tmp_path_factory.mktemp("run")
    run = convert([str(tree.root)], base / "out", [TARGET], jobs=2, cache_dir=base / "cache", progress="off")
    return base, run


def _manifest(out):
    return json.loads((out / "manifest.json").read_text())


def test_every_shader_found_converted_or_reported_once(tree, first_run):
    base, run = first_run
    out = base / "out"
    doc = _manifest(out)
    entries = {e["path"]: e for e in doc["entries"]}
    assert len(entries) == len(doc["entries"]), "a file is listed twice"
    expected = set(tree.blobs) | set(tree.asm) | {tree.truncated, tree.bad_asm}
    assert set(entries) == expected
    converted = 0
    for rel, data in tree.blobs.items():
        e = entries[rel]
        out_t = e["outputs"][TARGET]
        if detect(data) is Kind.EFFECT:
            assert e["kind"] == "effect" and e["model"] == "fx_2_0"
            _check_effect(out, rel, data, out_t)
            continue
        try:
            want = translate(data, TARGET)
        except XlateError as exc:
            assert out_t["status"] in ("refused", "failed"), rel
            assert out_t["error"]["file"] == rel and out_t["error"]["message"], rel
            assert out_t["error"]["type"] == type(exc).__name__
            continue
        assert out_t["status"] == "converted", (rel, out_t["error"])
        code, refl = (f["path"] for f in out_t["files"])
        assert (out / code).read_text() == want.code
        assert json.loads((out / refl).read_text()) == want.reflection
        assert out_t["diagnostics"] == [f"{rel}: {d}" for d in want.diagnostics]
        converted += 1
    assert converted >= len(tree.blobs) // 2
    for rel in tree.asm:
        assert entries[rel]["kind"] == "asm" and entries[rel]["outputs"][TARGET]["status"] == "converted", rel
    trunc = entries[tree.truncated]["outputs"][TARGET]
    assert trunc["status"] == "failed" and trunc["error"]["offset"] is not None
    bad = entries[tree.bad_asm]["outputs"][TARGET]
    assert bad["status"] == "failed" and bad["error"]["type"] == "AsmError" and bad["error"]["line"] == 4
    assert sorted(u["path"] for u in doc["unreadable"]) == sorted(tree.unreadable)
    assert all(u["error"]["message"] for u in doc["unreadable"])
    assert doc["counts"]["not_shaders"] == len(tree.unrelated)
    assert doc["counts"]["files"] == len(expected) + len(tree.unrelated) + len(tree.unreadable)
    assert run.exit_code == 1  # the truncated shader, the broken text, the unreadable links


def _check_effect(out, rel, data, outcome):
    """An effect's outputs are translate_effect's, file for file."""
    from xlate import translate_effect

    try:
        want = translate_effect(data, TARGET)
    except XlateError as exc:
        assert outcome["status"] in ("refused", "failed") and outcome["error"]["type"] == type(exc).__name__, rel
        return
    errors = want.reflection.get("errors") or {}
    assert outcome["status"] == ("refused" if errors else "converted"), (rel, outcome["error"])
    if errors:
        assert outcome["error"]["type"] == "EffectShaderError" and all(n in outcome["error"]["message"] for n in errors)
    files = {f["path"]: (out / f["path"]).read_bytes() for f in outcome["files"]}
    assert len(files) == 2 * len(want.shaders) + 1
    assert json.loads(files[f"{rel}.{TARGET}.json"]) == json.loads(json.dumps(want.reflection))
    codes = sorted(f for f in files if not f.endswith(".json"))
    assert sorted(s.translation.code for s in want.shaders) == sorted(files[f].decode() for f in codes)


def test_corpus_effects(tmp_path):
    """Every effect of the peer corpus (FNA, omegaengine, fxc-wine's) through xlate convert."""
    from .treekit import corpus

    root = corpus.require_corpus()
    effects = sorted(p for pattern in ("fxc/fna/*.fxb", "fxc/omegaengine/*.fxo") for p in root.glob(pattern))
    effects += [r.path for r in corpus.fxc_wine_records() if r.is_effect][:: 1 if FULL else 8]
    src = tmp_path / "src"
    for i, path in enumerate(effects):
        (src / f"{i:03d}").mkdir(parents=True)
        (src / f"{i:03d}" / path.name).symlink_to(path)
    run = convert([str(src)], tmp_path / "out", [TARGET], jobs=2, use_cache=False, progress="off")
    assert len(run.entries) == len(effects)
    for e in run.entries:
        _check_effect(tmp_path / "out", e["path"], (src / e["path"]).read_bytes(), e["outputs"][TARGET])
    converted = sum(e["outputs"][TARGET]["status"] == "converted" for e in run.entries)
    assert converted >= len(effects) * 3 // 4
    # The report's names for an effect's shaders are translate_effect's.
    from xlate import translate_effect
    from xlate.convert.effects import effect_shader_blobs

    for path in effects[:6]:
        data = path.read_bytes()
        named = {name for name, _blob in effect_shader_blobs(data)}
        want = translate_effect(data, TARGET)
        assert {s.name for s in want.shaders} | set(want.reflection.get("errors") or {}) == named, path


def test_cache_and_rerun_give_identical_trees(tree, first_run, tmp_path):
    base, first = first_run
    reference = read_tree(base / "out")
    # A fresh OUT with the warm cache, and one without any cache.
    warm = convert([str(tree.root)], tmp_path / "warm", [TARGET], jobs=2, cache_dir=base / "cache", progress="off")
    cold = convert([str(tree.root)], tmp_path / "nocache", [TARGET], jobs=1, use_cache=False, progress="off")
    assert read_tree(tmp_path / "warm") == reference
    assert read_tree(tmp_path / "nocache") == reference
    assert warm.kept == cold.kept == 0
    # The same OUT again: every entry is kept from the manifest, nothing rewritten.
    again = convert([str(tree.root)], base / "out", [TARGET], jobs=2, cache_dir=base / "cache", progress="off")
    assert again.kept == len(first.entries)
    assert read_tree(base / "out") == reference


def test_changes_are_picked_up(tree, tmp_path):
    src = tmp_path / "src"
    rels = [r for r, d in sorted(tree.blobs.items()) if detect(d) is Kind.SHADER][:6]
    for rel in rels:
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_bytes(tree.blobs[rel])
    out, cache = tmp_path / "out", tmp_path / "cache"
    convert([str(src)], out, [TARGET], jobs=1, cache_dir=cache, progress="off")
    # a changed file, a removed file, a changed option
    (src / rels[0]).write_bytes(tree.blobs[rels[1]])
    (src / rels[2]).unlink()
    run = convert([str(src)], out, [TARGET], jobs=1, cache_dir=cache, progress="off")
    assert run.kept == 4
    entries = {e["path"]: e for e in run.entries}
    assert rels[2] not in entries and not list(out.glob(f"**/{rels[2].split('/')[-1]}.*"))
    assert (out / entries[rels[0]]["outputs"][TARGET]["files"][0]["path"]).read_text() == translate(tree.blobs[rels[1]], TARGET).code
    run = convert([str(src)], out, [TARGET], jobs=1, cache_dir=cache, progress="off", options={"annotate": True})
    assert run.kept == 0
    # Another target: the first target's outputs go, as the manifest no longer lists them.
    other = convert([str(src)], out, ["essl300"], jobs=1, cache_dir=cache, progress="off")
    listed = {f["path"] for e in other.entries for f in e["outputs"]["essl300"]["files"]} | {"manifest.json", LOCK_NAME}
    assert {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()} == listed
    convert([str(src)], out, [TARGET], jobs=1, cache_dir=cache, progress="off", options={"annotate": True})
    code = (out / run.entries[0]["outputs"][TARGET]["files"][0]["path"]).read_text()
    data = (src / run.entries[0]["path"]).read_bytes()
    assert code == translate(data, TARGET, annotate=True).code


def test_several_targets_and_sources(tree, tmp_path):
    rels = [r for r, d in sorted(tree.blobs.items()) if detect(d) is Kind.SHADER][:4]
    a, b = tmp_path / "a", tmp_path / "b"
    for i, rel in enumerate(rels):
        folder = a if i % 2 else b
        (folder / "x").mkdir(parents=True, exist_ok=True)
        (folder / "x" / f"s{i}.bin").write_bytes(tree.blobs[rel])
    run = convert([str(a), str(b)], tmp_path / "out", ["glsl120", "vulkan"], jobs=1, use_cache=False, progress="off")
    assert sorted(e["path"] for e in run.entries) == ["a/x/s1.bin", "a/x/s3.bin", "b/x/s0.bin", "b/x/s2.bin"]
    for e in run.entries:
        for target in ("glsl120", "vulkan"):
            assert e["outputs"][target]["status"] == "converted"
            for f in e["outputs"][target]["files"]:
                assert (tmp_path / "out" / f["path"]).stat().st_size == f["size"]


def test_effects_go_through_translate_effect(monkeypatch, tmp_path):
    """What the corpus effects do not show: a malformed effect, a pass shader that
    could not be translated, and names that are not file names, through a
    stand-in for translate_effect with its interface (test_corpus_effects runs
    the real one)."""
    import dataclasses

    import xlate
    from xlate.api import Translation

    @dataclasses.dataclass(frozen=True)
    class Shader:
        name: str
        technique: str
        pass_name: str
        stage: str
        translation: Translation

    @dataclasses.dataclass(frozen=True)
    class Effect:
        target: str
        shaders: tuple
        reflection: dict
        diagnostics: list

    from xlate.bytecode.asm import assemble_bytes

    vs = translate(assemble_bytes("vs_2_0\ndcl_position v0\nmov oPos, v0\n"), "glsl330")

    def translate_effect(data, target, **options):
        if data[4:8] == b"BAD!":
            raise xlate.BytecodeError(4, "the effect's header is damaged")
        if data[4:8] == b"HALF":
            return Effect(target, (Shader("T.P0.vs", "T", "P0", "vertex", vs),),
                          {"errors": {"T.P0.ps": "byte offset 8 (0x8): truncated"}}, [])
        return Effect(target, (Shader("Render.P0.vs", "Render", "P0", "vertex", vs),
                               Shader("../evil/name", "Render", "P1", "vertex", vs)),
                      {"techniques": ["Render"]}, ["an effect note"])

    monkeypatch.setattr(xlate, "translate_effect", translate_effect, raising=False)
    src = tmp_path / "src"
    src.mkdir()
    (src / "good.fxb").write_bytes(b"\x01\x09\xff\xfe" + b"\0" * 16)
    (src / "bad.fxo").write_bytes(b"\x01\x09\xff\xfe" + b"BAD!" + b"\0" * 8)
    (src / "half.fx").write_bytes(b"\x01\x09\xff\xfe" + b"HALF" + b"\0" * 8)
    run = convert([str(src)], tmp_path / "out", ["glsl330"], jobs=1, use_cache=False, progress="off")
    good, bad = ({e["path"]: e for e in run.entries}[k] for k in ("good.fxb", "bad.fxo"))
    files = sorted(f["path"] for f in good["outputs"]["glsl330"]["files"])
    assert files == ["good.fxb.Render.P0.vs.glsl330.json", "good.fxb.Render.P0.vs.glsl330.vert",
                     "good.fxb._evil_name.glsl330.json", "good.fxb._evil_name.glsl330.vert",
                     "good.fxb.glsl330.json"]
    assert (tmp_path / "out" / "good.fxb.Render.P0.vs.glsl330.vert").read_text() == vs.code
    assert json.loads((tmp_path / "out" / "good.fxb.glsl330.json").read_text()) == {"techniques": ["Render"]}
    assert good["outputs"]["glsl330"]["diagnostics"][0] == "good.fxb: an effect note"
    half = {e["path"]: e for e in run.entries}["half.fx"]["outputs"]["glsl330"]
    assert half["status"] == "refused" and "T.P0.ps: byte offset 8" in half["error"]["message"]
    assert [f["path"] for f in half["files"]] == ["half.fx.T.P0.vs.glsl330.vert", "half.fx.T.P0.vs.glsl330.json",
                                                  "half.fx.glsl330.json"]
    assert bad["outputs"]["glsl330"]["status"] == "failed"
    assert bad["outputs"]["glsl330"]["error"] == {"file": "bad.fxo", "type": "BytecodeError", "offset": 4,
                                                  "message": "the effect's header is damaged"}


def test_big_unrelated_files_are_not_read_whole(tmp_path, monkeypatch):
    """Only the first 64 KiB of a file decide; a large shader is still read whole."""
    from xlate.bytecode.asm import assemble_bytes

    src = tmp_path / "src"
    src.mkdir()
    (src / "video.bin").write_bytes(b"\x89PNG" + b"\0" * (1 << 20))
    padding = "// " + "x" * 100 + "\n"
    text = padding * 700 + "vs_2_0\ndcl_position v0\nmov oPos, v0\n"  # over 64 KiB of comments first
    (src / "big.vsh").write_text(padding * 10 + "vs_2_0\ndcl_position v0\nmov oPos, v0\n" + padding * 700)
    (src / "late.vsh").write_text(text)
    reads = []
    real_read = __import__("os").read
    def counting_read(fd, n):
        data = real_read(fd, n)
        reads.append(len(data))
        return data

    monkeypatch.setattr("xlate.convert.jobs.os.read", counting_read)
    run = convert([str(src)], tmp_path / "out", ["glsl330"], jobs=1, use_cache=False, progress="off")
    assert [e["path"] for e in run.entries] == ["big.vsh"]
    assert run.entries[0]["outputs"]["glsl330"]["status"] == "converted"
    assert run.counts.not_shaders == 2  # late.vsh: no version within the first 64 KiB
    big = (src / "big.vsh").stat().st_size
    assert sum(reads) == big + 2 * (1 << 16)  # big.vsh whole, the others' heads only
    assert translate(assemble_bytes((src / "big.vsh").read_text()), "glsl330").code == \
        (tmp_path / "out" / "big.vsh.glsl330.vert").read_text()
