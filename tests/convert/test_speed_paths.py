"""What keeps ``xlate convert`` fast, checked for what it must not change:
the warm-up's built-in shaders, the command run as a process (it ends
without the interpreter's teardown: its output, exit status and manifest
must be whole), ``-q`` not importing rich, and the lines workers encode
for the manifest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from xlate.bytecode.asm import assemble_bytes
from xlate.convert.run import WARM_UP_SHADERS

ROOT = Path(__file__).resolve().parents[2]


def test_warm_up_shaders_are_what_their_comment_says():
    assert WARM_UP_SHADERS == (assemble_bytes("vs_2_0\ndcl_position v0\nmov oPos, v0\n"),
                               assemble_bytes("ps_2_0\nmov oC0, c0\n"))


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "d").mkdir(parents=True)
    vs, ps = WARM_UP_SHADERS
    for i in range(20):  # enough for the process pool (-j 2)
        (src / "d" / f"v{i}.vso").write_bytes(vs)
        (src / f"p{i}.pso").write_bytes(ps)
    (src / "bad.bin").write_bytes(vs[:10])  # a truncated shader: exit status 1
    return src


def test_the_command_as_a_process_ends_whole(tmp_path):
    src = _tree(tmp_path)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "xlate.cli", "convert", str(src), "-o", str(out), "-j", "2", "--cache-dir", str(tmp_path / "c")]
    done = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    # The summary, printed to a pipe just before the process ends, is all there.
    assert "41 files" in done.stdout and "glsl330" in done.stdout
    assert "reasons" in done.stdout  # the last table printed
    doc = json.loads((out / "manifest.json").read_text())
    assert len(doc["entries"]) == 41 and doc["counts"]["targets"]["glsl330"]["converted"] == 40
    assert not (out / ".xlate-convert-running").exists()
    assert not [p for p in out.rglob("*.xlate-tmp")]


def test_quiet_convert_does_not_import_rich(tmp_path):
    src = _tree(tmp_path)
    cmd = [sys.executable, "-X", "importtime", "-m", "xlate.cli", "convert", str(src), "-o", str(tmp_path / "out"),
           "-q", "-j", "1", "--no-cache"]
    done = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and done.stdout == ""
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert "xlate.api" in imported  # (the check sees the imports)
    assert not [m for m in imported if m == "rich" or m.startswith("rich.")]


def test_lines_encoded_by_the_workers_are_the_manifests_own(tmp_path):
    from xlate.convert import convert
    from xlate.convert import manifest as mf

    src = _tree(tmp_path)
    out = tmp_path / "out"
    run = convert([str(src)], out, ["glsl330"], jobs=2, use_cache=False, progress="off")
    assert len(run.entries) == 41
    text = (out / mf.NAME).read_bytes()
    doc = json.loads(text)
    header = {k: v for k, v in doc.items() if k not in ("entries", "unreadable", "format")}
    assert mf.dumps(header, doc["entries"], doc["unreadable"]) == text  # every line encoded afresh: the same bytes


def test_called_from_python_the_command_exits_as_usual(tmp_path):
    """Only the process's own ``xlate`` command skips the teardown: called
    with arguments (click's runner, a program embedding the CLI), it raises
    SystemExit like every other command."""
    from click.testing import CliRunner

    from xlate.cli import _Main, main

    src = _tree(tmp_path)
    result = CliRunner().invoke(main, ["convert", str(src), "-o", str(tmp_path / "out"), "-q", "--no-cache", "-j", "1"])
    assert result.exit_code == 1 and not _Main.process_entry


def _fingerprint_by_rglob() -> str:
    """``source_fingerprint`` as it was first written (Path.rglob), the reference for the scandir walk."""
    import hashlib

    from xlate import __version__
    from xlate.convert import cache

    package = Path(cache.__file__).resolve().parents[1]
    h = hashlib.sha256(__version__.encode())
    for root in (package, package.parent / "templates", package / "templates"):
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                h.update(str(path.relative_to(root)).encode() + b"\0")
                h.update(path.read_bytes())
    return h.hexdigest()


def test_source_fingerprint_hashes_what_rglob_finds_in_its_order():
    from xlate.convert.cache import source_fingerprint

    assert source_fingerprint() == _fingerprint_by_rglob()
