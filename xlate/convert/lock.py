"""One ``xlate convert`` at a time per output folder.

A run holds an exclusive, non-blocking ``flock`` on ``OUT/.xlate-convert.lock``
from before it looks at OUT (stale temporary files, the previous manifest)
until its manifest is written.  A second run into the same OUT fails at
once with ``OutputInUse`` and touches nothing.  The lock file is never
deleted: deleting it would let a third run lock a new file while the
second still held the old one.  The kernel drops the lock when the holder
exits, however it ends (SIGKILL included), so a killed run never leaves OUT
locked; the pool workers it forked share the lock while they still run,
which keeps a new run out until they are gone too.  The holder's PID is
written into the file while it runs, for the error message only (the file is
empty again once the run ends).
"""

from __future__ import annotations

import os

from .writer import pid_alive

LOCK_NAME = ".xlate-convert.lock"

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None


class OutputInUse(RuntimeError):
    """Another ``xlate convert`` is writing into the same output folder."""

    def __init__(self, out: str, holder: int | None):
        self.out = out
        self.holder = holder
        if not holder:
            who = ""
        elif pid_alive(holder):
            who = f" (process {holder})"
        else:  # killed alone: the pool workers it forked hold the lock until they finish their chunk
            who = f" (the workers of process {holder}, which has ended)"
        super().__init__(f"{out}: another xlate convert{who} is writing into this folder; "
                         "wait for it to finish or choose another output folder")


class OutputLock:
    """The held lock; ``release`` (or the end of the process) frees it."""

    def __init__(self, fd: int):
        self._fd = fd

    def __enter__(self) -> "OutputLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def release(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            try:
                os.ftruncate(fd, 0)  # the PID goes: a finished OUT is the same bytes whoever wrote it
            finally:
                os.close(fd)  # closing the last descriptor of the open file drops the lock


def lock_output(out: str) -> OutputLock:
    """Lock the existing folder ``out`` for this run, or raise ``OutputInUse``."""
    path = os.path.join(out, LOCK_NAME)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        if not _try_lock(fd):
            raise OutputInUse(out, _holder(fd))
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())  # at offset 0: the descriptor is new
    except BaseException:
        os.close(fd)
        raise
    return OutputLock(fd)


def _try_lock(fd: int) -> bool:
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    import msvcrt

    try:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


def _holder(fd: int) -> int | None:
    try:
        text = os.read(fd, 32).decode("ascii").strip()
        return int(text) if text.isdigit() else None
    except (OSError, UnicodeDecodeError):
        return None
