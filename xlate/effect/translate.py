"""``translate_effect``: every shader of every pass of an effect, for one target.

    from xlate import translate_effect
    fx = translate_effect(blob, "glsl330")
    for s in fx.shaders:       # one per distinct shader, named "Tech.Pass.vs" ...
        s.translation.code
    fx.reflection              # JSON: parameters, techniques/passes/states, samplers, preshaders
    fx.diagnostics             # warnings: preshaders, shaders that could not be translated

Each shader goes through ``xlate.translate`` (so a pass's VS and PS share
the fixed varying layout of ``backends/layout.py`` and link); a shader used
by several passes is translated once.  The reflection is described in
docs/reflection.md ("Effects").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..bytecode import decode
from ..bytecode.ctab import ParameterClass, ParameterType
from ..errors import XlateError
from .model import Effect, Expression, Parameter, Pass, State, StateKind, safe_stem, safe_text
from .parse import parse_effect
from .select import selected_element
from .usage import parameters_used
from .states import StateClass

if TYPE_CHECKING:  # the API sits above this package; imported lazily at run time
    from ..api import Translation

STAGES = {StateClass.VERTEX_SHADER: ("vertex", "vs"), StateClass.PIXEL_SHADER: ("fragment", "ps")}


@dataclass(frozen=True)
class EffectShader:
    """One translated shader of the effect.

    ``name`` is a filesystem-safe stem unique in the effect
    (``technique.pass.stage``, sanitised; indexes added for duplicates,
    unnamed techniques/passes and array elements); ``technique`` and
    ``pass_name`` are where it is first used (sanitised), ``stage`` is
    "vertex" or "fragment".
    """

    name: str
    technique: str
    pass_name: str
    stage: str
    translation: "Translation"


@dataclass(frozen=True)
class EffectTranslation:
    target: str
    shaders: tuple[EffectShader, ...]
    reflection: dict
    diagnostics: list[str] = field(default_factory=list)


def _expression_json(expr: Expression | None) -> dict | None:
    if expr is None:
        return None
    out = {"offset": expr.offset, "bytes": len(expr.data)}
    try:
        from ..preshader import decode_preshader, format_preshader

        pre = decode_preshader(expr.data, expr.offset)
        out["listing"] = format_preshader(pre)
        out["inputs"] = [safe_text(n) for n in pre.input_names()]
    except XlateError as exc:
        out["error"] = str(exc)
    return out


def _json_value(v):
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return str(v)
    return v


def state_json(effect: Effect, state: State) -> dict:
    """One state assignment, decoded to D3D names and values."""
    out: dict = {
        "state": safe_text(state.name),
        "class": state.state_class.value if state.state_class else None,
        "index": state.index,
        "kind": state.kind.value,
    }
    if state.kind == StateKind.CONSTANT:
        if state.parameter.is_object:
            ids = state.parameter.object_ids
            data = effect.object_data(ids[0]) if ids else None
            out["value"] = None if data is None else safe_text(data.decode("utf-8", "replace").rstrip("\0"))
        else:
            vals = [_json_value(v) for v in state.decoded_value()]
            out["value"] = vals[0] if len(vals) == 1 else vals
    if state.reference is not None:
        out["parameter"] = safe_text(state.reference)
    if state.expression is not None:
        out["expression"] = _expression_json(state.expression)
    return out


def _param_json(effect: Effect, p: Parameter) -> dict:
    out: dict = {
        "name": safe_text(p.name),
        "semantic": safe_text(p.semantic) if p.semantic else None,
        "class": ParameterClass(p.parameter_class).name.lower(),
        "type": ParameterType(p.parameter_type).name.lower(),
        "rows": p.rows,
        "columns": p.columns,
        "elements": p.elements,
        "flags": p.flags,
    }
    if p.members:
        out["members"] = [_param_json(effect, m) for m in p.members]
    if p.is_sampler:
        out["sampler_states"] = [[state_json(effect, s) for s in states] for states in p.sampler_states]
    elif p.is_object:
        objs = []
        for oid in p.object_ids:
            data = effect.object_data(oid)
            if p.parameter_type == ParameterType.STRING and data is not None:
                objs.append(safe_text(data.decode("utf-8", "replace").rstrip("\0")))
            else:
                objs.append(None if data is None else f"{len(data)} bytes")
        out["value"] = objs
    elif p.value:
        out["value"] = [_json_value(v) for v in p.values()]
    return out


class _Namer:
    def __init__(self):
        self.used: set[str] = set()

    def unique(self, stem: str) -> str:
        name, k = stem, 1
        while name in self.used:
            k += 1
            name = f"{stem}{k}"
        self.used.add(name)
        return name


def _preshader_entry(shader, translation, name: str, diagnostics: list[str]) -> dict | None:
    """The shader's preshader for the effect reflection: the translation's own
    ``preshader`` entry (registers with their GLSL names, inputs; mode
    "cpu") plus the FXLVM listing; None when the shader has none.  The
    translation already carries the diagnostic naming the registers the CPU
    fills; one is added here only if it does not."""
    from ..preshader import format_preshader
    from .model import shader_preshader

    try:
        pre = shader_preshader(shader)
    except XlateError as exc:
        if not any("preshader" in d for d in translation.diagnostics):
            diagnostics.append(f"{name}: its preshader could not be decoded: {exc}")
        return {"error": str(exc)}
    if pre is None:
        return None
    entry = dict(translation.reflection.get("preshader") or {"mode": "cpu"})
    entry["listing"] = format_preshader(pre)
    if not any("preshader" in d for d in translation.diagnostics):
        regs = ", ".join(f"{f.prefix}{i}" for f, idx in pre.output_registers.items() for i in idx)
        diagnostics.append(
            f"{name}: the shader carries a preshader that computes {regs or 'no registers'} on the CPU from "
            f"{', '.join(safe_text(n) for n in pre.input_names()) or 'no parameters'}; the translation reads "
            "those as plain constants that the application must fill by evaluating the preshader")
    return entry


def _constants_by_parameter(shader, reflection: dict) -> dict[str, dict]:
    """CTAB name -> where its registers live in this shader's translation."""
    out: dict[str, dict] = {}
    if shader.ctab is None:
        return out
    files = {0: "bool", 1: "int", 2: "float", 3: "sampler"}
    for c in shader.ctab.constants:
        file = files.get(int(c.register_set), "float")
        lo, hi = c.register_index, c.register_index + c.register_count
        if file == "sampler":
            glsl = [s["glsl"] for s in reflection.get("samplers", []) if lo <= s["register"] < hi]
        else:
            glsl = [k["glsl"] for k in reflection.get("constants", [])
                    if k["file"] == file and k["first"] < hi and lo < k["first"] + k["count"]]
        out.setdefault(safe_text(c.name), {"file": file, "first": lo, "count": c.register_count, "glsl": glsl})
    return out


def _link_problem(vs_refl: dict, ps_refl: dict) -> str | None:
    """Every PS input must be a VS output with the same GLSL name and location."""
    outs = {(o["usage"], o["usage_index"]): o for o in vs_refl.get("outputs", [])}
    for i in ps_refl.get("inputs", []):
        o = outs.get((i["usage"], i["usage_index"]))
        if o is None:
            continue  # GL gives an unwritten varying undefined values, as D3D does; not a link error
        if (o["glsl"], o["location"]) != (i["glsl"], i["location"]):
            return (f"{i['usage']}{i['usage_index']}: the vertex shader writes {o['glsl']} at location "
                    f"{o['location']}, the pixel shader reads {i['glsl']} at {i['location']}")
    return None


def translate_effect(data: bytes, target: str = "glsl330", pass_states: bool = True,
                     **options) -> EffectTranslation:
    """Parse an fx_2_0 effect and translate every shader its passes use.

    ``options`` are ``xlate.translate``'s.  With ``pass_states`` (the
    default) a pass's own render states and its samplers' SRGBTexture
    (FogEnable, AlphaFunc, SRGBWriteEnable ...) become the draw state of its
    shaders, over ``options["draw_state"]`` (effect/drawstate.py: baked, or
    the defaults of the dynamic mode's parameters); the pass's reflection
    reports them under ``render_state``, and a state the pass sets that xlate
    does not apply is a diagnostic.  A shader two passes use with different
    states is translated once per state.  Raises ``EffectError`` for a
    malformed effect; a shader that cannot be translated is left out of
    ``shaders`` and reported in ``diagnostics`` and the reflection's
    ``errors`` (name -> message), never dropped silently.
    """
    from ..api import translate
    from ..options import Options

    effect = parse_effect(data)
    namer = _Namer()
    resolved = Options.from_kwargs(**options)  # the base draw state (and position conventions it may carry)
    done: dict[tuple, dict] = {}  # (blob, draw state) -> {"name", and "translation" or "error"}
    shaders: list[EffectShader] = []
    diagnostics: list[str] = []
    preshaders: dict[str, dict | None] = {}
    constants: dict[str, dict[str, dict]] = {}  # parameter -> shader name -> registers
    pre_inputs: dict[str, dict[str, dict]] = {}  # parameter -> shader name -> preshader input registers

    def one(blob: bytes | None, tech: str, pss: str, stage: str, tag: str, state=None) -> dict | None:
        if not blob:
            return None
        key = (blob, None if state is None or state == resolved.draw_state else state)
        if key in done:
            return done[key]
        name = namer.unique(f"{tech}.{pss}.{tag}")
        entry: dict = {"name": name}
        done[key] = entry
        kwargs = options
        if key[1] is not None:
            kwargs = {**options, "draw_state": state, "clip_z": resolved.clip_z, "flip_y": resolved.flip_y,
                      "half_pixel": resolved.half_pixel, "half_pixel_exact": resolved.half_pixel_exact}
        try:
            shader = decode(blob)
            t = translate(blob, target, **kwargs)
        except XlateError as exc:
            entry["error"] = str(exc)
            diagnostics.append(f"{name}: the {stage} shader could not be translated: {exc}")
            return entry
        want = "vertex" if shader.version.is_vertex else "fragment"
        if want != stage:
            diagnostics.append(f"{name}: a {want} shader set as the pass's {stage} shader")
        entry["translation"] = t
        shaders.append(EffectShader(name, tech, pss, want, t))
        diagnostics.extend(f"{name}: {d}" for d in t.diagnostics)
        preshaders[name] = _preshader_entry(shader, t, name, diagnostics)
        for pname, where in _constants_by_parameter(shader, t.reflection).items():
            constants.setdefault(pname, {})[name] = where
        for i in (t.reflection.get("preshader") or {}).get("inputs", ()):
            pre_inputs.setdefault(safe_text(i["name"]), {})[name] = {k: i[k] for k in ("register", "count", "glsl") if k in i}
        return entry

    techniques = []
    for ti, tech in enumerate(effect.techniques):
        tname = safe_stem(tech.name, f"T{ti}")
        passes = []
        for pi, pss in enumerate(tech.passes):
            pname = safe_stem(pss.name, f"P{pi}")
            pds = _pass_draw_state(effect, tech, pss, f"{tname}.{pname}", resolved.draw_state, diagnostics) \
                if pass_states else None
            passes.append(_pass_json(effect, pss, tname, pname, one, diagnostics, pds))
        techniques.append({"name": safe_text(tech.name) if tech.name else None,
                           "annotations": [_param_json(effect, a) for a in tech.annotations],
                           "parameters_used": [safe_text(n) for n in parameters_used(effect, tech)],
                           "passes": passes})
    params = []
    for p in effect.parameters:
        j = _param_json(effect, p)
        j["annotations"] = [_param_json(effect, a) for a in p.annotations]
        j["shaders"] = constants.get(safe_text(p.name), {})
        j["preshader_inputs"] = pre_inputs.get(safe_text(p.name), {})
        params.append(j)
    samplers = {safe_text(p.name): [[state_json(effect, s) for s in st] for st in p.sampler_states]
                for p in effect.parameters if p.is_sampler}
    reflection = {
        "format": "fx_2_0",
        "target": target,
        "parameters": params,
        "techniques": techniques,
        "samplers": samplers,
        "shaders": {s.name: {"technique": s.technique, "pass": s.pass_name, "stage": s.stage,
                             "shader_model": s.translation.reflection.get("shader_model")} for s in shaders},
        "preshaders": preshaders,
        "errors": {e["name"]: e["error"] for e in done.values() if e and "error" in e},
    }
    return EffectTranslation(target, tuple(shaders), reflection, diagnostics)


def _pass_draw_state(effect: Effect, tech, pss: Pass, where: str, base, diagnostics: list[str]):
    """The pass's draw state (effect/drawstate.py), its notes as diagnostics;
    None (the base state, with a diagnostic) when it cannot be evaluated."""
    from ..drawstate import DrawStateError
    from .drawstate import pass_draw_state

    try:
        pds = pass_draw_state(effect, tech, pss, base=base)
    except (ValueError, XlateError) as exc:  # DrawStateError is a ValueError
        kind = "a state value" if isinstance(exc, DrawStateError) else "the pass"
        diagnostics.append(f"{where}: its states are not applied to its shaders ({kind} cannot be "
                           f"evaluated: {exc})")
        return None
    diagnostics.extend(f"{where}: {n}" for n in pds.notes)
    return pds


def _pass_json(effect: Effect, pss: Pass, tname: str, pname: str, one, diagnostics: list[str], pds=None) -> dict:
    states = []
    chosen: dict[str, list[dict]] = {}
    for state in pss.states:
        j = state_json(effect, state)
        stage_tag = STAGES.get(state.state_class)
        if stage_tag is not None:
            stage, tag = stage_tag
            entries = []
            if state.kind == StateKind.ARRAY_SELECTOR:
                found = effect.resolve(state.reference or "")
                if found is None or not found[0].is_shader:
                    diagnostics.append(f"{tname}.{pname}: {stage} shader array {safe_text(state.reference)!r} not found")
                else:
                    for k, oid in enumerate(found[0].object_ids):
                        entries.append(one(effect.object_data(oid), tname, pname, stage, f"{tag}{k}",
                                           pds.for_stage(stage) if pds else None))
                    j["elements"] = [e["name"] if e else None for e in entries]
                    j["default_element"] = selected_element(effect, state)
            else:
                entries.append(one(effect.shader_blob(state), tname, pname, stage, tag,
                                   pds.for_stage(stage) if pds else None))
                j["shader"] = entries[0]["name"] if entries[0] else None
            chosen[stage] = [e for e in entries if e and "translation" in e]
        states.append(j)
    for vs in chosen.get("vertex", []):
        for ps in chosen.get("fragment", []):
            why = _link_problem(vs["translation"].reflection, ps["translation"].reflection)
            if why:
                diagnostics.append(f"{tname}.{pname}: {vs['name']} and {ps['name']} do not link: {why}")
    out = {
        "name": safe_text(pss.name) if pss.name else None,
        "annotations": [_param_json(effect, a) for a in pss.annotations],
        "states": states,
        "vertex_shader": [e["name"] for e in chosen.get("vertex", [])],
        "pixel_shader": [e["name"] for e in chosen.get("fragment", [])],
    }
    if pds is not None and (pds.values or pds.notes):
        # what the pass sets of the draw state its shaders were translated with
        out["render_state"] = {"values": pds.values, "sources": pds.sources, "notes": list(pds.notes)}
    return out
