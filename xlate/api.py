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

from .options import Options


@dataclass(frozen=True)
class Translation:
    code: str | bytes
    reflection: dict
    target: str
    diagnostics: list[str] = field(default_factory=list)


def translate(data: bytes, target: str = "glsl330", **options) -> Translation:
    from .backends import generate, get_target, resolve_options
    from .bytecode import decode
    from .ir.builder import lift
    from .passes import run_passes

    tgt = get_target(target)
    opts = resolve_options(tgt, Options.from_kwargs(**options))
    # The IR is a large graph of small acyclic objects: the cyclic garbage
    # collector finds nothing in it but would rescan it again and again while
    # it grows (superlinear on big shaders), so it waits until we are done.
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        shader = decode(data)
        program = lift(shader)
        run_passes(program, opts)
        code, reflection = generate(program, tgt, opts)
    finally:
        if collecting:
            gc.enable()
    diagnostics = list(shader.diagnostics)
    diagnostics.extend(str(d) for d in program.notes.get("diagnostics", ()))
    return Translation(code, reflection, tgt.name, diagnostics)
