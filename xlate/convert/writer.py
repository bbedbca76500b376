"""Atomic file writes: a temporary file in the same folder, then ``os.replace``.

A killed process leaves either the old file or the new one, never a part
of one; what it can leave is a temporary file, named
``.NAME.PID-START-N.xlate-tmp``, which ``remove_stale_temps`` deletes once
that process is gone.  START is the process's start time (Linux
``/proc/PID/stat``), so a PID the system has since given to another
process does not keep a dead writer's file alive; where it cannot be read
it is 0 and the PID alone decides.  (Atomic against a killed process, not against a
power cut: nothing is fsynced, which would cost more than the conversion.)
"""

from __future__ import annotations

import itertools
import os

TEMP_SUFFIX = ".xlate-tmp"
_counter = itertools.count()
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def _start_time(pid: int) -> int:
    """When process ``pid`` started (clock ticks since boot), 0 when unknown,
    -1 when it has exited (a zombie not yet reaped: killed workers are
    reparented and wait for their reaper, still holding their PID)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        # Fields from the 3rd (state) on follow the ")" that ends the name; start time is the 22nd.
        fields = stat[stat.rindex(b")") + 2:].split()
        return -1 if fields[0] in (b"Z", b"X") else int(fields[19])
    except (OSError, ValueError, IndexError):
        return 0


_writer = ""  # "PID-START" of this process; forgotten in a forked child


def _writer_tag() -> str:
    global _writer
    if not _writer:
        pid = os.getpid()
        _writer = f"{pid}-{_start_time(pid)}"
    return _writer


def _forget_writer() -> None:
    global _writer
    _writer = ""


if hasattr(os, "register_at_fork"):  # (absent where there is no fork: one process, one tag)
    os.register_at_fork(after_in_child=_forget_writer)


def _split(path: str) -> tuple[str, str]:
    """``os.path.split`` where a folder's trailing separator is kept (``"a/b/"``,
    ``"c"``): the folder and the name join back by concatenation.  Written
    out for POSIX paths (a convert run writes two or three files per input,
    and the general functions cost more than the rest of the Python here)."""
    cut = path.rfind("/") + 1
    return path[:cut], path[cut:]


if os.altsep:  # (Windows: drives and two separators; the general functions)
    def _split(path: str) -> tuple[str, str]:  # noqa: F811 - the platform's version of the above
        head, name = os.path.split(path)
        return (os.path.join(head, "") if head else ""), name


def atomic_write(path: str, data: bytes, *, make_dirs: bool = False) -> None:
    """Write ``data`` to ``path`` so that no reader ever sees part of it."""
    head, name = _split(path)
    temp = f"{head}.{name}.{_writer or _writer_tag()}-{next(_counter)}{TEMP_SUFFIX}"
    try:
        fd = os.open(temp, _FLAGS, 0o644)
    except FileNotFoundError:
        if not make_dirs or not head:
            raise
        os.makedirs(head, exist_ok=True)
        fd = os.open(temp, _FLAGS, 0o644)
    try:
        try:
            written = os.write(fd, data)  # all of it, but for a signal or a full disk
            if written < len(data):
                view = memoryview(data)[written:]
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


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def _writer_alive(tag: str) -> bool:
    """Whether the process that named a temporary file ``...TAG.xlate-tmp``
    (TAG ``PID-START-N``) may still be writing it.  This process's own files
    count as stale (it only cleans before it writes)."""
    try:
        pid, start = (int(x) for x in tag.split("-")[:2])
    except ValueError:
        return False
    if pid <= 0 or pid == os.getpid() or not pid_alive(pid):
        return False
    # The PID is taken: by the writer, or by a process that came later.
    now = _start_time(pid)
    return now != -1 and (start == 0 or now in (0, start))


def remove_stale_temps(root: str | os.PathLike) -> tuple[int, int]:
    """Delete the temporary files under ``root`` whose writer is gone;
    returns (how many were deleted, how many were kept as still being written)."""
    removed = kept = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            if not name.endswith(TEMP_SUFFIX):
                continue
            if _writer_alive(name[: -len(TEMP_SUFFIX)].rsplit(".", 1)[-1]):
                kept += 1
                continue
            try:
                os.unlink(os.path.join(folder, name))
                removed += 1
            except OSError:
                pass
    return removed, kept
