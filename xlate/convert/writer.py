"""Atomic file writes: a temporary file in the same folder, then ``os.replace``.

A killed process leaves either the old file or the new one, never a part
of one; what it can leave is a temporary file, named
``.NAME.PID-N.xlate-tmp``, which ``remove_stale_temps`` deletes once PID
is no longer running.  (Atomic against a killed process, not against a
power cut: nothing is fsynced, which would cost more than the conversion.)
"""

from __future__ import annotations

import itertools
import os

TEMP_SUFFIX = ".xlate-tmp"
_counter = itertools.count()
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def atomic_write(path: str, data: bytes, *, make_dirs: bool = False) -> None:
    """Write ``data`` to ``path`` so that no reader ever sees part of it."""
    head, name = os.path.split(path)
    temp = os.path.join(head, f".{name}.{os.getpid()}-{next(_counter)}{TEMP_SUFFIX}")
    try:
        fd = os.open(temp, _FLAGS, 0o644)
    except FileNotFoundError:
        if not make_dirs:
            raise
        os.makedirs(head, exist_ok=True)
        fd = os.open(temp, _FLAGS, 0o644)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def remove_stale_temps(root: str | os.PathLike) -> int:
    """Delete the temporary files under ``root`` whose writer is gone; returns how many."""
    removed = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            if not name.endswith(TEMP_SUFFIX):
                continue
            try:
                pid = int(name[: -len(TEMP_SUFFIX)].rsplit(".", 1)[1].split("-")[0])
            except (IndexError, ValueError):
                pid = -1
            if pid > 0 and pid != os.getpid() and _pid_alive(pid):
                continue
            try:
                os.unlink(os.path.join(folder, name))
                removed += 1
            except OSError:
                pass
    return removed
