"""``xlate info EFFECT``: a JSON-serialisable summary of an effect.

Every name is passed through ``safe_text`` (control and bidi characters
escaped); the CLI escapes rich markup on top."""

from __future__ import annotations

from ..bytecode import decode
from ..bytecode.ctab import ParameterType
from ..errors import XlateError
from .model import Effect, StateKind, safe_text
from .states import StateClass


def _shader_text(effect: Effect, state) -> str:
    stage = "vs" if state.state_class == StateClass.VERTEX_SHADER else "ps"
    if state.kind == StateKind.ARRAY_SELECTOR:
        return f"{stage}: {safe_text(state.reference)}[expression]"
    blob = effect.shader_blob(state)
    if blob is None:
        return f"{stage}: none"
    try:
        version = decode(blob).version.name
    except XlateError:
        version = "invalid shader"
    return f"{stage}: {version}"


def effect_summary(effect: Effect) -> dict:
    """Parameters, techniques, passes (state counts and shader versions)."""
    params = [{
        "name": safe_text(p.name),
        "semantic": safe_text(p.semantic) if p.semantic else None,
        "type": p.type_text(),
        "elements": p.elements,
        "annotations": len(p.annotations),
    } for p in effect.parameters]
    blobs = set()
    for p in effect.parameters:
        if p.parameter_type in (ParameterType.VERTEXSHADER, ParameterType.PIXELSHADER):
            blobs.update(d for d in (effect.object_data(i) for i in p.object_ids) if d)
    techniques = []
    for t in effect.techniques:
        passes = []
        for ps in t.passes:
            shaders = []
            for s in ps.states:
                if s.state_class in (StateClass.VERTEX_SHADER, StateClass.PIXEL_SHADER):
                    shaders.append(_shader_text(effect, s))
                    blob = effect.shader_blob(s)
                    if blob:
                        blobs.add(blob)
            passes.append({"name": safe_text(ps.name) if ps.name else None, "states": len(ps.states),
                           "annotations": len(ps.annotations), "shaders": shaders})
        techniques.append({"name": safe_text(t.name) if t.name else None, "passes": passes})
    return {"format": "fx_2_0", "bytes": effect.size, "parameters": params, "techniques": techniques,
            "shader_count": len(blobs)}
