"""SPIR-V: the ``vulkan`` GLSL compiled with glslangValidator -V, then checked
with spirv-val.  Both tools come from the cmeel wheels (``toolchain.py``)."""

from __future__ import annotations

import os
import re
import tempfile

from ...toolchain import ToolchainError, glslang, spirv_val

_FILE_NAME = re.compile(r"m\d{6}\.spv")
STAGE_FLAG = {"vertex": "vert", "fragment": "frag"}


class SpirvError(ToolchainError):
    """glslang refused the generated GLSL, or spirv-val the SPIR-V: a bug in xlate."""


def compile_glsl(code: str, stage: str, *, validate: bool = True) -> bytes:
    with tempfile.TemporaryDirectory(prefix="xlate-spv-") as tmp:
        out = os.path.join(tmp, "shader.spv")
        r = glslang().run(["--stdin", "-S", STAGE_FLAG[stage], "-V", "--target-env", "vulkan1.0", "-o", out],
                          input=code.encode())
        if r.returncode != 0:
            raise SpirvError(f"glslangValidator -V failed on generated GLSL:\n{r.stdout.decode(errors='replace')}"
                             f"{r.stderr.decode(errors='replace')}")
        with open(out, "rb") as f:
            data = f.read()
    if validate:
        check(data)
    return data


def check(data: bytes) -> None:
    """spirv-val the binary; raises SpirvError with its message."""
    r = spirv_val().run(["--target-env", "vulkan1.0", "-"], input=data)
    if r.returncode != 0:
        raise SpirvError(f"spirv-val: {r.stdout.decode(errors='replace')}{r.stderr.decode(errors='replace')}")


def validate_many(modules: list[bytes], target_env: str = "vulkan1.0") -> list[str | None]:
    """spirv-val over many modules in one process (it validates every
    ``.spv`` file of a directory): None per valid module, else spirv-val's
    messages about it."""
    if not modules:
        return []
    with tempfile.TemporaryDirectory(prefix="xlate-spv-") as tmp:
        paths = []
        for i, data in enumerate(modules):
            path = os.path.join(tmp, f"m{i:06d}.spv")
            with open(path, "wb") as f:
                f.write(data)
            paths.append(path)
        r = spirv_val().run(["--target-env", target_env, tmp], timeout=600)
    text = r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")
    return _per_file(text, paths, r.returncode)


def _per_file(text: str, paths: list[str], returncode: int) -> list[str | None]:
    messages: dict[str, list[str]] = {p: [] for p in paths}
    names = {os.path.basename(p): p for p in paths}
    current = None
    for line in text.splitlines():
        found = _FILE_NAME.search(line)
        if found is not None and found.group(0) in names:
            current = names[found.group(0)]
        if current is not None and line.strip():
            messages[current].append(line)
    out = [("\n".join(messages[p]) or None) for p in paths]
    if returncode != 0 and all(o is None for o in out):
        out = [text.strip() or f"spirv-val exit {returncode}"] * len(out)
    return out
