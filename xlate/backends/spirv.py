"""SPIR-V: the ``vulkan`` GLSL compiled with glslangValidator -V, then checked
with spirv-val.  Both tools come from the cmeel wheels (``toolchain.py``)."""

from __future__ import annotations

import os
import tempfile

from ..toolchain import ToolchainError, glslang, spirv_val

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
