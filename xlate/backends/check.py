"""Validate generated GLSL with glslangValidator, many files per call.

One glslangValidator run compiles every file it is given separately (mixed
versions are fine) and prints each file's name before its messages, so a
batch of hundreds costs about one process start (shared/TESTING.md).
Vulkan-flavoured GLSL (set/binding) only compiles in SPIR-V mode, where one
call links all files of a stage: use ``spirv.compile_glsl`` for those.
"""

from __future__ import annotations

import os
import tempfile

from ..toolchain import glslang

EXT = {"vertex": "vert", "fragment": "frag"}
BATCH = 400


def validate_glsl(items: list[tuple[str, str]]) -> list[str | None]:
    """``items``: (code, stage).  Returns None per valid file, else glslang's messages."""
    results: list[str | None] = []
    for start in range(0, len(items), BATCH):
        results.extend(_batch(items[start:start + BATCH]))
    return results


def _batch(items: list[tuple[str, str]]) -> list[str | None]:
    if not items:
        return []
    with tempfile.TemporaryDirectory(prefix="xlate-glsl-") as tmp:
        paths = []
        for i, (code, stage) in enumerate(items):
            path = os.path.join(tmp, f"s{i}.{EXT[stage]}")
            with open(path, "w", encoding="utf-8") as f:
                f.write(code)
            paths.append(path)
        r = glslang().run(paths, timeout=300)
    text = r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")
    messages: dict[str, list[str]] = {p: [] for p in paths}
    current = None
    for line in text.splitlines():
        if line.strip() in messages:
            current = line.strip()
            continue
        if current is not None and line.strip():
            messages[current].append(line)
    out = []
    for p in paths:
        errors = [m for m in messages[p] if m.startswith("ERROR")]
        out.append("\n".join(messages[p]) if errors else None)
    if r.returncode != 0 and all(o is None for o in out):
        out = [text.strip() or f"glslangValidator exit {r.returncode}"] * len(out)
    return out
