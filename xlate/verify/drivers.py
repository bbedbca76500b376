"""Which graphics drivers this process has started.

llvmpipe, lavapipe and wgpu run threads of their own once started (the
rasteriser's, the shader cache's).  A ``fork()`` of such a process copies
whatever locks those threads held at that instant into a child that has
only the forking thread, and the child can then deadlock or crash at random.
The runners note each driver here before they start it, so that code which
forks (the fuzz campaign's worker pool) can start fresh processes instead.
This module imports nothing: a caller can look it up in ``sys.modules``
without loading the runners.
"""

from __future__ import annotations

_STARTED: set[str] = set()


def note_started(name: str) -> None:
    """Record that this process starts the driver ``name`` (before the
    attempt: a failed start may leave threads behind too)."""
    _STARTED.add(name)


def started() -> frozenset[str]:
    """The drivers this process has started (or tried to)."""
    return frozenset(_STARTED)
