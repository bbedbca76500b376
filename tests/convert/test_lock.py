"""Two runs into one OUT: the second fails at once (exit status 3, one line
naming the folder) and the first finishes as if it had been alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from xlate.bytecode.asm import assemble_bytes
from xlate.convert import OutputInUse, convert
from xlate.convert.lock import LOCK_NAME, lock_output

from .treekit import cli_env, read_tree

SHADERS = 150


@pytest.fixture(scope="module")
def src(tmp_path_factory):
    """Distinct small shaders, enough that a one-process run takes a while."""
    root = tmp_path_factory.mktemp("lock") / "src"
    for i in range(SHADERS):
        folder = root / f"d{i % 5}"
        folder.mkdir(parents=True, exist_ok=True)
        text = (f"vs_3_0\ndcl_position v0\ndcl_position o0\ndef c{200 + i % 50}, {i}.5, 1, 2, 3\n"
                f"mul r0, v0, c{i % 100}\nadd o0, r0, c{200 + i % 50}\n")
        (folder / f"s{i}.vso").write_bytes(assemble_bytes(text))
    return root


def _command(src, out, cache):
    return [sys.executable, "-m", "xlate.cli", "convert", str(src), "-o", str(out), "--cache-dir", str(cache),
            "-t", "glsl330", "-j", "1", "-q"]


def _listing(root):
    return sorted((p.relative_to(root).as_posix(), p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*"))


def test_second_run_into_the_same_out_fails_at_once(src, tmp_path):
    env = cli_env()
    reference = subprocess.run(_command(src, tmp_path / "ref", tmp_path / "ref-cache"), env=env, capture_output=True)
    assert reference.returncode == 0, reference.stderr.decode()
    out = tmp_path / "out"
    first = subprocess.Popen(_command(src, out, tmp_path / "cache"), env=env, start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        # Once the first run has OUT (its running marker is written under the lock), stop it
        # there, so that the second run surely meets it whatever the machine's load.
        deadline = time.monotonic() + 60
        while not (out / ".xlate-convert-running").exists():
            assert first.poll() is None, "the first run ended before it could be caught running"
            assert time.monotonic() < deadline
            time.sleep(0.002)
        os.killpg(first.pid, signal.SIGSTOP)
        before = _listing(out)
        assert (out / LOCK_NAME).read_text().strip() == str(first.pid)
        start = time.monotonic()
        second = subprocess.run(_command(src, out, tmp_path / "cache2"), env=env, capture_output=True, timeout=120)
        waited = time.monotonic() - start
        assert second.returncode == 3
        lines = second.stderr.decode().splitlines()
        assert len(lines) == 1 and str(out) in lines[0] and f"process {first.pid}" in lines[0], lines
        assert second.stdout == b""
        assert _listing(out) == before  # it touched nothing
        assert not (tmp_path / "cache2").exists()
        assert waited < 30  # at once: it did not wait for the lock (the bound only absorbs a loaded machine)
    finally:
        os.killpg(first.pid, signal.SIGCONT)
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err.decode()
    assert read_tree(out) == read_tree(tmp_path / "ref")
    assert (out / LOCK_NAME).read_bytes() == b""  # kept (never deleted), emptied at the end
    # The lock went with the first run: the same command again works (and keeps everything).
    again = subprocess.run(_command(src, out, tmp_path / "cache"), env=env, capture_output=True)
    assert again.returncode == 0, again.stderr.decode()
    assert read_tree(out) == read_tree(tmp_path / "ref")


def test_api_raises_while_the_folder_is_held(src, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with lock_output(str(out)):
        with pytest.raises(OutputInUse) as caught:
            convert([str(src)], out, ["glsl330"], jobs=1, use_cache=False, progress="off")
        assert caught.value.out == str(out) and caught.value.holder == os.getpid()
        assert sorted(p.name for p in out.iterdir()) == [LOCK_NAME]
    run = convert([str(src)], out, ["glsl330"], jobs=1, use_cache=False, progress="off")
    assert run.exit_code == 0 and len(run.entries) == SHADERS


def test_a_killed_holder_leaves_the_folder_free(src, tmp_path):
    """The kernel drops a lock with its process: SIGKILL never leaves OUT locked."""
    out = tmp_path / "out"
    out.mkdir()
    code = ("import sys, time; from xlate.convert.lock import lock_output; "
            "lock_output(sys.argv[1]); print('held', flush=True); time.sleep(600)")
    holder = subprocess.Popen([sys.executable, "-c", code, str(out)], env=cli_env(), stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"held\n"
        with pytest.raises(OutputInUse):
            lock_output(str(out))
    finally:
        holder.kill()
        holder.wait()
    lock_output(str(out)).release()
