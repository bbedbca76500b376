"""Interrupting ``xlate convert`` (SIGKILL at random points, and Ctrl-C) and
running it again gives the same output tree, byte for byte, as a run that
was never interrupted, with no temporary file left anywhere."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from .treekit import build_tree, cli_env, read_tree

ITERATIONS = 3
SAMPLE = 100


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The tree, and an uninterrupted run's output (and how long it took)."""
    base = tmp_path_factory.mktemp("interrupt")
    tree = build_tree(base / "src", sample=SAMPLE)
    start = time.perf_counter()
    ref = subprocess.run(_command(tree.root, base / "ref", base / "ref-cache"), env=_env(), capture_output=True)
    duration = time.perf_counter() - start
    assert ref.returncode == 1, ref.stderr.decode()  # the tree holds bad files on purpose
    return tree, read_tree(base / "ref"), duration


def _env():
    env = cli_env()
    env["XLATE_VALIDATE"] = "0"  # the IR checks only slow these runs down
    return env


def _command(src, out, cache):
    return [sys.executable, "-m", "xlate.cli", "convert", str(src), "-o", str(out), "--cache-dir", str(cache),
            "-t", "glsl330", "-j", "2", "-q"]


def _temps(*roots):
    return [p for root in roots if root.exists() for p in root.rglob("*.xlate-tmp")]


def test_killed_runs_resume_to_the_same_tree(reference, tmp_path):
    tree, expected, duration = reference
    env = _env()
    rng = random.Random(12)
    for i in range(ITERATIONS):
        out, cache = tmp_path / f"out{i}", tmp_path / f"cache{i}"
        # Kill it at a random point (twice in the last iteration), then let it finish.
        for _ in range(1 if i < ITERATIONS - 1 else 2):
            proc = subprocess.Popen(_command(tree.root, out, cache), env=env, start_new_session=True,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.1, duration))
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        done = subprocess.run(_command(tree.root, out, cache), env=env, capture_output=True)
        assert done.returncode == 1, done.stderr.decode()
        assert read_tree(out) == expected
        assert not _temps(out, cache)


def test_ctrl_c_stops_cleanly_and_a_rerun_finishes(reference, tmp_path):
    tree, expected, _duration = reference
    env = _env()
    out, cache = tmp_path / "out", tmp_path / "cache"
    proc = subprocess.Popen(_command(tree.root, out, cache), env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # Wait until it has started writing, then press Ctrl-C (SIGINT to the group).
    deadline = time.monotonic() + 60
    while not (out / ".xlate-convert-running").exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    if proc.returncode == 130:
        assert b"interrupted" in err and b"Traceback" not in err
    else:  # it finished before the signal landed
        assert proc.returncode == 1, err.decode()
    assert not _temps(out, cache)
    done = subprocess.run(_command(tree.root, out, cache), env=env, capture_output=True)
    assert done.returncode == 1
    assert read_tree(out) == expected
