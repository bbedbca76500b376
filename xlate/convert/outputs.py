"""How a translation becomes files: names and bytes, shared by shaders and effects.

A shader ``a/b.bin`` converted for glsl330 gives ``a/b.bin.glsl330.vert``
(``.frag`` for a pixel shader, ``.spv`` for SPIR-V; for WGSL, one extension
whatever the stage, ``a/b.bin.wgsl``) and its reflection
``a/b.bin.glsl330.json``: the source's full name is kept, so ``x.vsh`` and
``x.psh`` side by side never collide.  JSON is written compactly with sorted
keys (the same document ``translate --reflect`` writes, minus indentation),
one line with a final newline.
"""

from __future__ import annotations

import json

from .cache import CachedFile


# json.dumps(value, sort_keys=True, separators=(",", ":")), built once (dumps
# builds an encoder per call); without the circular-reference bookkeeping:
# what is encoded here is plain acyclic data (a cycle would still raise).
COMPACT_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), check_circular=False)


def json_bytes(value) -> bytes:
    return (COMPACT_JSON.encode(value) + "\n").encode()


# Targets whose module has one extension whatever the stage, that extension
# being the target's name: the code file is ``<stem>.<target>`` itself
# (``a/b.bin.wgsl``; an effect's ``fx.fxb.<technique>.<pass>.vs.wgsl``).
SINGLE_EXTENSION_TARGETS = frozenset({"wgsl"})


def code_file(stem_suffix: str, code: str | bytes, vertex: bool, target: str) -> CachedFile:
    """The code file of a translation; ``stem_suffix`` ends with ``.<target>``."""
    if target in SINGLE_EXTENSION_TARGETS and stem_suffix.endswith(f".{target}"):
        return CachedFile(stem_suffix, code.encode() if isinstance(code, str) else code)
    if isinstance(code, bytes):
        return CachedFile(f"{stem_suffix}.spv", code)
    return CachedFile(f"{stem_suffix}.{'vert' if vertex else 'frag'}", code.encode())
