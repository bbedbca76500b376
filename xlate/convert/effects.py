"""The one place that knows about fx_2_0 effects: ``xlate.translate_effect``
turns an effect into one translation per pass shader, and this module
names the files they become.

For ``fx.fxb`` and target glsl330 that is ``fx.fxb.<shader>.glsl330.vert``
(or ``.frag``; ``.spv`` for spirv; ``fx.fxb.<shader>.wgsl`` for wgsl) with ``fx.fxb.<shader>.glsl330.json``
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


def effect_files(data: bytes, target: str, options: dict) -> tuple[list[CachedFile], list[str], dict]:
    """The files, diagnostics and shader errors (name -> message: shaders of
    the effect that could not be translated, and so have no files) of one
    effect for one target.  Raises XlateError for a malformed effect."""
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
    errors = result.reflection.get("errors") or {} if isinstance(result.reflection, dict) else {}
    return files, diagnostics, dict(errors)


def effect_shader_blobs(data: bytes) -> list[tuple[str, bytes]]:
    """(name, bytecode) of each distinct shader the effect's passes set, for
    the report: named ``Technique.Pass.vs`` (``vs0``, ``vs1`` ... for a
    shader array; a number added to repeats), as ``translate_effect`` names
    them.  Raises XlateError for a malformed effect."""
    from ..effect import parse_effect
    from ..effect.model import StateKind
    from ..effect.model import safe_stem as effect_stem
    from ..effect.translate import STAGES

    effect = parse_effect(data)
    names: dict[bytes, str] = {}
    used: set[str] = set()
    for ti, tech in enumerate(effect.techniques):
        tname = effect_stem(tech.name, f"T{ti}")
        for pi, pss in enumerate(tech.passes):
            pname = effect_stem(pss.name, f"P{pi}")
            for state in pss.states:
                stage = STAGES.get(state.state_class)
                if stage is None:
                    continue
                tag = stage[1]
                if state.kind == StateKind.ARRAY_SELECTOR:
                    found = effect.resolve(state.reference or "")
                    ids = found[0].object_ids if found is not None and found[0].is_shader else ()
                    blobs = [(f"{tag}{k}", effect.object_data(oid)) for k, oid in enumerate(ids)]
                else:
                    blobs = [(tag, effect.shader_blob(state))]
                for t, blob in blobs:
                    if blob and blob not in names:
                        stem = name = f"{tname}.{pname}.{t}"
                        k = 1
                        while name in used:
                            k += 1
                            name = f"{stem}{k}"
                        used.add(name)
                        names[blob] = name
    return [(name, blob) for blob, name in names.items()]
