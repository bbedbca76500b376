"""Atomic writes and the clean-up of what a killed writer left behind."""

from __future__ import annotations

import os

from xlate.convert.writer import TEMP_SUFFIX, _start_time, atomic_write, remove_stale_temps


def test_atomic_write_leaves_only_the_file(tmp_path):
    target = tmp_path / "a" / "out.glsl"
    atomic_write(str(target), b"code", make_dirs=True)
    assert target.read_bytes() == b"code"
    assert os.listdir(target.parent) == ["out.glsl"]



def test_atomic_write_to_a_bare_name_and_a_missing_folder(tmp_path, monkeypatch):
    """The temporary file sits beside the target whatever the path's shape:
    a bare name (the current folder), a folder made on demand, or not made
    (``make_dirs`` off: the error is the open's, nothing is left)."""
    monkeypatch.chdir(tmp_path)
    atomic_write("bare.json", b"{}")
    assert (tmp_path / "bare.json").read_bytes() == b"{}"
    atomic_write("x/y/deep.vert", b"v", make_dirs=True)
    assert (tmp_path / "x" / "y" / "deep.vert").read_bytes() == b"v"
    try:
        atomic_write(str(tmp_path / "missing" / "f"), b"f")
    except FileNotFoundError:
        pass
    else:
        raise AssertionError("a missing folder without make_dirs must raise")
    assert sorted(os.listdir(tmp_path)) == ["bare.json", "x"]
    assert os.listdir(tmp_path / "x" / "y") == ["deep.vert"]

def test_a_reused_pid_does_not_keep_a_dead_writers_file(tmp_path):
    """A temporary file is kept only while the process that wrote it runs:
    its PID alone is not enough (PIDs are reused, and a kill-and-rerun on a
    busy machine met exactly that), the process's start time must match."""
    live_pid = os.getppid()  # alive for the whole test, and not this process
    start = _start_time(live_pid)
    kept = tmp_path / f".out.glsl.{live_pid}-{start}-0{TEMP_SUFFIX}"
    reused = tmp_path / f".out.glsl.{live_pid}-{start + 1}-0{TEMP_SUFFIX}"
    dead = tmp_path / f".out.json.{2**22 + 1}-5-0{TEMP_SUFFIX}"  # above Linux's highest PID
    mine = tmp_path / f".out.txt.{os.getpid()}-{_start_time(os.getpid())}-0{TEMP_SUFFIX}"
    for path in (kept, reused, dead, mine):
        path.write_bytes(b"part")
    assert remove_stale_temps(tmp_path) == (3, 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == [kept.name]


def test_a_zombie_writer_counts_as_gone(tmp_path):
    """A killed worker that is not reaped yet keeps its PID and start time
    but writes nothing more: its files are stale."""
    import subprocess
    import sys

    if not os.path.isdir("/proc/self"):
        import pytest

        pytest.skip("needs Linux /proc to see a zombie")
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    while True:  # exited but not waited for: a zombie
        with open(f"/proc/{child.pid}/stat", "rb") as f:
            if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                break
    temp = tmp_path / f".out.glsl.{child.pid}-7-0{TEMP_SUFFIX}"
    temp.write_bytes(b"part")
    try:
        assert remove_stale_temps(tmp_path) == (1, 0)
    finally:
        child.wait()
