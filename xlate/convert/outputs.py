"""How a translation becomes files: names and bytes, shared by shaders and effects.

A shader ``a/b.bin`` converted for glsl330 gives ``a/b.bin.glsl330.vert``
(``.frag`` for a pixel shader, ``.spv`` for SPIR-V) and its reflection
``a/b.bin.glsl330.json``: the source's full name is kept, so ``x.vsh`` and
``x.psh`` side by side never collide.  JSON is written compactly with sorted
keys (the same document ``translate --reflect`` writes, minus indentation),
one line with a final newline.
"""

from __future__ import annotations

import json

from .cache import CachedFile


def json_bytes(value) -> bytes:
    return (json.dumps(value, sort_keys=True, separators=(",", ":")) + "\n").encode()


def code_file(stem_suffix: str, code: str | bytes, vertex: bool, target: str) -> CachedFile:
    if isinstance(code, bytes):
        return CachedFile(f"{stem_suffix}.spv", code)
    return CachedFile(f"{stem_suffix}.{'vert' if vertex else 'frag'}", code.encode())
