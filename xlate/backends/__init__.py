"""Backends: core IR -> GLSL dialects, SPIR-V and WGSL.

``generate(program, target, options)`` returns ``(code, reflection)``; code is
``str`` for GLSL and WGSL targets and ``bytes`` for the SPIR-V ones.  The program must have
been through ``passes.run_passes`` (core ops only); ``options`` must be
resolved for the target (``targets.resolve_options``).
"""

from __future__ import annotations

import functools

from .targets import DESCRIPTIONS, TARGETS, Api, Target, get_target, resolve_options


def generate(program, target: Target | str, options):
    glsl, reflection = _backend()
    if isinstance(target, str):
        target = get_target(target)
    if target.api is Api.WEBGPU:
        from .wgsl import emit as emit_wgsl

        code, layout_reflection = emit_wgsl(program, target, options)
        refl = reflection.build(program, target, options, layout_reflection)
        refl["entry_point"] = layout_reflection["entry_point"]
        refl["limits"] = layout_reflection["limits"]
        return code, refl
    if target.native:
        code, layout_reflection = _native()(program, target, options, version=options.spirv_version,
                                            names=options.debug_names)
        return code, reflection.build(program, target, options, layout_reflection)
    out = glsl.emit(program, target, options)
    refl = reflection.build(program, target, options, out.reflection)
    if target.binary:
        from . import spirv

        return spirv.compile_glsl(out.code, refl["stage"]), refl
    return out.code, refl


@functools.lru_cache(maxsize=1)
def _native():
    """The SPIR-V writer's ``emit`` (``spirv/emitter.py``), imported on the
    first SPIR-V translation: it reads the SPIR-V grammar."""
    from .spirv.emitter import emit

    return emit


@functools.lru_cache(maxsize=1)
def _backend():
    """The emitter and reflection modules, imported on the first translation
    rather than with the package (whose `targets` list the CLI reads without
    loading the emitter's graph library or Jinja2).  Cached: an import
    statement costs a few microseconds per call even once the module is
    loaded."""
    from . import glsl, reflection

    return glsl, reflection


__all__ = ["DESCRIPTIONS", "TARGETS", "Target", "generate", "get_target", "resolve_options"]
