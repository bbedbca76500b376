"""Backends: core IR -> GLSL dialects and SPIR-V.

``generate(program, target, options)`` returns ``(code, reflection)``; code is
``str`` for GLSL targets and ``bytes`` for ``spirv``.  The program must have
been through ``passes.run_passes`` (core ops only); ``options`` must be
resolved for the target (``targets.resolve_options``).
"""

from __future__ import annotations

from .targets import DESCRIPTIONS, TARGETS, Target, get_target, resolve_options


def generate(program, target: Target | str, options):
    # Imported here, not above: `import xlate.backends` (the CLI's `targets`
    # command) then loads neither the emitter's graph library nor Jinja2.
    # Only what the target needs: each name costs a look-up per call.
    from . import glsl, reflection

    if isinstance(target, str):
        target = get_target(target)
    out = glsl.emit(program, target, options)
    refl = reflection.build(program, target, options, out.reflection)
    if target.binary:
        from . import spirv

        return spirv.compile_glsl(out.code, refl["stage"]), refl
    return out.code, refl


__all__ = ["DESCRIPTIONS", "TARGETS", "Target", "generate", "get_target", "resolve_options"]
