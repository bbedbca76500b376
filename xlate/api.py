"""The one-call API: bytes in, GLSL or SPIR-V out.

    from xlate import translate
    t = translate(blob, "glsl330", annotate=True)
    t.code          # str (bytes for target="spirv")
    t.reflection    # dict, JSON-serialisable: see docs/reflection.md
    t.diagnostics   # warnings (decoder diagnostics included)

decode -> lift -> run_passes -> backend.  Options are ``Options`` fields
(``xlate/options.py``); ``None`` fields are resolved for the target.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from types import MappingProxyType

from .backends import TARGETS, Target, generate, get_target, resolve_options
from .bytecode import decode
from .ir.builder import lift
from .options import Options
from .passes import run_passes

# Each target's options when the caller gives none (the usual call): built
# once here, as building and resolving a frozen Options costs more than
# some passes.
DEFAULT_OPTIONS = MappingProxyType({name: resolve_options(target, Options()) for name, target in TARGETS.items()})


@dataclass(frozen=True)
class Translation:
    """The result of ``translate``.

    ``code``: the GLSL source (``str``), or the SPIR-V module (``bytes``) for
    target ``spirv``.  ``reflection``: a JSON-serialisable dict saying what to
    bind (constants, samplers, varyings, the viewport uniform, DEF values;
    docs/reflection.md).  ``target``: the target's name.  ``diagnostics``:
    warnings as plain sentences, the decoder's included: each one names
    something the output does not honour exactly, so show them to the user.
    """

    code: str | bytes
    reflection: dict
    target: str
    diagnostics: list[str] = field(default_factory=list)


def translate(data: bytes, target: str = "glsl330", **options) -> Translation:
    """Translate one D3D9 shader blob (vs_1_1 ... ps_3_0 token stream) to ``target``.

    ``target``: ``glsl120``, ``glsl330``, ``glsl450``, ``essl100``,
    ``essl300``, ``vulkan``, ``spirv`` or ``wgsl``.  ``options``: the fields of
    ``xlate.options.Options`` as keywords, in plain values (docs/api.md):
    ``annotate``, ``legacy_multiply``, ``infinities`` ("clamp"/"ieee"),
    ``clip_z``, ``half_pixel``, ``half_pixel_exact``, ``flip_y`` (None lets
    the target decide), ``fixed_outputs``, ``sampler_types`` ({3: "cube"}),
    ``texture_projection`` ({0: 4}), ``draw_state`` ({"fogenable": True,
    "alphafunc": "greater", ...}: D3D9 draw-time state, fog, alpha test,
    samplers, sRGB, clip planes, points, and the position conventions
    clip_z / flip_y / half_pixel; docs/api.md),
    ``draw_state_mode`` ("baked" / "dynamic") and ``validate``.

    Raises ``XlateError`` for bad input (``BytecodeError`` with the byte
    offset; ``UnsupportedError`` for what this target cannot express),
    ``ValueError``/``TypeError`` for a bad target or option.
    """
    tgt = get_target(target)
    opts = resolve_options(tgt, Options.from_kwargs(**options)) if options else DEFAULT_OPTIONS[tgt.name]
    # The IR is a large graph of small acyclic objects: the cyclic garbage
    # collector finds nothing in it but would rescan it again and again while
    # it grows (superlinear on big shaders), so it waits until we are done.
    # It comes back only once the IR is freed (when _translate returns), so
    # a big shader's IR is not scanned once more on the way out.
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        code, reflection, diagnostics = _translate(data, tgt, opts)
    finally:
        if collecting:
            gc.enable()
    return Translation(code, reflection, tgt.name, diagnostics)


def _translate(data: bytes, target: Target, options: Options) -> tuple[str | bytes, dict, list[str]]:
    shader = decode(data)
    program = lift(shader)
    inlined = _inline(program, shader) if options.inline_preshader else None
    run_passes(program, options)
    code, reflection = generate(program, target, options)
    diagnostics = list(shader.diagnostics)
    noted = program.notes.get("diagnostics")
    if noted:
        diagnostics.extend([str(d) for d in noted])
    # A preshader (PRES comment) fills constants on the CPU: say which.
    if _has_pres(shader):
        from .preshader.reflect import describe_preshader

        preshader, notes = describe_preshader(shader, reflection.get("constants", ()), inlined)
        if preshader is not None:
            reflection["preshader"] = preshader
            diagnostics.extend(notes)
    return code, reflection, diagnostics


def _has_pres(shader) -> bool:
    """Whether ``shader`` has a PRES comment, the only place a preshader can
    be: without one, the preshader package (a tenth of the translator's
    import time) is not imported at all."""
    return any(comment.fourcc == "PRES" for comment in shader.comments)


def _inline(program, shader):
    """Options.inline_preshader: the preshader computed in the shader (an
    ``Inlined``), or why not (a str); None without a (decodable) preshader."""
    if not _has_pres(shader):
        return None
    from .preshader.reflect import preshader_of

    pre = preshader_of(shader)
    if pre is None:
        return None
    from .ir.preshader_inline import inline_preshader

    return inline_preshader(program, pre)
