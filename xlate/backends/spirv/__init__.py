"""SPIR-V output.

Two writers produce it:

- ``emitter`` (targets ``spirv`` and ``spirv-native``): SPIR-V written straight from the
  IR, with the opcode and enumerant tables read from the official grammar
  (``grammar``), a builder that makes each type and constant once
  (``module``) and the ``vulkan`` GLSL target's layout as variables
  (``interface``): the same sets, bindings, blocks and locations, the same
  reflection.  Its mixins: ``control`` (structured control flow),
  ``helpers`` (saturate, the legacy multiply and dot), ``values`` (types,
  constants, texture sampling), ``access`` (places and access chains).
- ``glslang`` (target ``spirv-glslang``): the ``vulkan``
  GLSL compiled by glslangValidator -V and checked by spirv-val.

``check`` runs spirv-val on a module; ``validate_many`` on many at once
(one process for a whole batch).
"""

from __future__ import annotations

from .glslang import STAGE_FLAG, SpirvError, check, compile_glsl, validate_many

__all__ = ["STAGE_FLAG", "SpirvError", "check", "compile_glsl", "validate_many", "emit"]


def emit(program, target, options):
    """The native writer: ``(bytes, layout reflection)`` (``emitter.emit``)."""
    from .emitter import emit as native

    return native(program, target, options, version=options.spirv_version, names=options.debug_names)
