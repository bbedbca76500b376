"""The one place that knows about fx_2_0 effects: ``xlate.translate_effect``
turns an effect into one translation per pass shader, and this module
names the files they become.

For ``fx.fxb`` and target glsl330 that is ``fx.fxb.<shader>.glsl330.vert``
(or ``.frag``; ``.spv`` for spirv) with ``fx.fxb.<shader>.glsl330.json``
beside it, ``<shader>`` being the effect's stable stem for the pass shader
(``Render.P0.vs``), and ``fx.fxb.glsl330.json`` for the effect's own
reflection (techniques, passes, states, parameters).
"""

from __future__ import annotations

import re

from .cache import CachedFile
from .outputs import code_file, json_bytes

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def safe_stem(name: str) -> str:
    """A file-name part made from an effect's name: no separators, no leading dot."""
    stem = _UNSAFE.sub("_", name)[:120].strip(".") or "shader"
    return stem


def effect_files(data: bytes, target: str, options: dict) -> tuple[list[CachedFile], list[str]]:
    """The files and diagnostics of one effect for one target (raises XlateError)."""
    from .. import translate_effect

    result = translate_effect(data, target, **options)
    files: list[CachedFile] = []
    diagnostics = list(result.diagnostics)
    used: set[str] = set()
    for shader in result.shaders:
        stem = safe_stem(shader.name)
        while stem in used:  # never let two pass shaders share a file
            stem += "_"
        used.add(stem)
        t = shader.translation
        files.append(code_file(f".{stem}.{target}", t.code, shader.stage == "vertex", target))
        files.append(CachedFile(f".{stem}.{target}.json", json_bytes(t.reflection)))
        diagnostics.extend(f"{stem}: {d}" for d in t.diagnostics)
    files.append(CachedFile(f".{target}.json", json_bytes(result.reflection)))
    return files, diagnostics
