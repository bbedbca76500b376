"""``format_effect``: an fx_2_0 effect listed as fxc's ``/Fc`` does.

fxc lists an effect as: every shader parameter with its compiled shader
(``vertexshader NAME = asm { ... };``, arrays element by element), then
``//listing of all techniques and passes with embedded asm listings``,
then each technique and pass with the vertex and pixel shader it sets
(``//No embedded vertex shader`` where it sets none).  We print the same
and add, as ``//`` comment lines that fxc does not have, what the rest of
the effect holds: parameter declarations with defaults, annotations and
sampler states, and every other state of each pass (decoded to D3D names;
expressions as their FXLVM listing).  docs/disassembly.md ("Effects") gives
the normalisation under which the listing equals fxc's.

Every effect-sourced name goes through ``safe_text``, so a hostile name
cannot break the listing's structure or a terminal.
"""

from __future__ import annotations

from ..bytecode import decode
from ..bytecode.disasm import PRESHADER_PREFIX, disassemble
from ..errors import XlateError
from .select import selected_element
from .model import Effect, Parameter, Pass, State, StateKind, safe_text
from .states import StateClass

INDENT = "    "
PASS_ASM = " " * 12  # fxc indents a pass's asm block by 12 columns


def shader_listing(blob: bytes | None) -> list[str]:
    """The ``asm { ... }`` body lines of one embedded shader (unindented),
    its preshader block first, as fxc prints it.

    The shader disassembler lists the preshader commented out (so that a
    shader listing reassembles); an effect listing is not assembled, and
    fxc shows the block as code there, so its lines lose the ``//``."""
    if not blob:
        return ["// NULL shader"]
    try:
        shader = decode(blob)
    except XlateError as exc:
        return [f"// shader not decoded: {safe_text(str(exc))}"]
    lines = disassemble(shader).rstrip("\n").split("\n")
    start = PRESHADER_PREFIX + "preshader"
    if start in lines:  # the block: that line and the instruction lines after it
        k = lines.index(start)
        while k < len(lines) and lines[k].startswith(PRESHADER_PREFIX):
            lines[k] = INDENT + lines[k][len(PRESHADER_PREFIX):]
            k += 1
    return lines


def expression_lines(expr) -> list[str]:
    """An FXLVM expression's listing (``preshader`` block), as comments."""
    from ..preshader import decode_preshader, format_preshader

    try:
        pre = decode_preshader(expr.data, expr.offset)
    except XlateError as exc:
        return [f"expression of {len(expr.data)} bytes at byte {expr.offset}, not decoded: {safe_text(str(exc))}"]
    return format_preshader(pre)


def state_text(effect: Effect, state: State) -> list[str]:
    """One state assignment as ``Name[index] = value;`` lines (no ``//``)."""
    name = safe_text(state.name)
    if state.info and state.info.state_class in (
        StateClass.TEXTURE_STAGE, StateClass.SAMPLER_STATE, StateClass.LIGHT, StateClass.LIGHT_ENABLE,
        StateClass.TEXTURE, StateClass.SAMPLER, StateClass.SHADER_CONSTANT, StateClass.TRANSFORM,
    ) or state.index:
        name += f"[{state.index}]"
    if state.kind == StateKind.PARAMETER:
        return [f"{name} = <{safe_text(state.reference)}>;"]
    if state.kind == StateKind.ARRAY_SELECTOR:
        return [f"{name} = {safe_text(state.reference)}[expression];", *("  " + x for x in expression_lines(state.expression))]
    if state.kind == StateKind.EXPRESSION:
        return [f"{name} = expression;", *("  " + x for x in expression_lines(state.expression))]
    if state.kind == StateKind.SHADER:
        return [f"{name} = compiled shader ({len(state.shader or b'')} bytes);"]
    if state.parameter.is_object:
        data = effect.object_data(state.parameter.object_ids[0]) if state.parameter.object_ids else None
        return [f"{name} = {'NULL' if data is None else repr(safe_text(data.decode('utf-8', 'replace')))};"]
    values = state.decoded_value()
    text = ", ".join(str(v) for v in values)
    return [f"{name} = {text if len(values) == 1 else '{' + text + '}'};"]


def _annotation_text(annos: tuple[Parameter, ...], effect: Effect) -> list[str]:
    out = []
    for a in annos:
        out.append(f"  <{a.type_text()} {safe_text(a.name)} = {_value_text(a, effect)}>")
    return out


def _value_text(p: Parameter, effect: Effect) -> str:
    if p.is_sampler:
        return "sampler_state"
    if p.is_object:
        parts = []
        for oid in p.object_ids:
            data = effect.object_data(oid)
            if data is None:
                parts.append("NULL")
            elif p.is_shader:
                parts.append(f"compiled shader ({len(data)} bytes)")
            else:
                parts.append(repr(safe_text(data.decode("utf-8", "replace").rstrip("\0"))))
        return ", ".join(parts) or "NULL"
    vals = p.values()
    if len(vals) > 16:
        return "{" + ", ".join(map(str, vals[:16])) + f", ... ({len(vals)} values)}}"
    return "{" + ", ".join(map(str, vals)) + "}"


def _declaration_lines(effect: Effect) -> list[str]:
    lines = ["// Parameters:", "//"]
    for p in effect.parameters:
        decl = f"{p.type_text()} {safe_text(p.name)}"
        if p.elements:
            decl += f"[{p.elements}]"
        if p.semantic:
            decl += f" : {safe_text(p.semantic)}"
        lines.append(f"//   {decl} = {_value_text(p, effect)};")
        lines.extend("//   " + x for x in _annotation_text(p.annotations, effect))
        for k, states in enumerate(p.sampler_states):
            for s in states:
                for x in state_text(effect, s):
                    lines.append(f"//     {'[' + str(k) + '] ' if len(p.sampler_states) > 1 else ''}{x}")
    lines.append("//")
    return lines


def _shader_parameter_lines(effect: Effect, p: Parameter) -> list[str]:
    kind = "vertexshader" if p.parameter_type.name == "VERTEXSHADER" else "pixelshader"
    name = safe_text(p.name)
    blobs = [effect.object_data(oid) for oid in p.object_ids]
    if not any(blobs):
        return []
    if not p.elements:
        return [f"{kind} {name} = ", "asm {", *shader_listing(blobs[0]), "};", "", ""]
    lines = [f"{kind} {name}[{p.elements}] = ", "{"]
    for i, blob in enumerate(blobs):
        lines += [f"//listing for: {name}[{i}]", "asm {", *shader_listing(blob)]
        lines += ["},", ""] if i + 1 < len(blobs) else ["}};", "", ""]
    return lines


def _pass_shader_lines(effect: Effect, pss: Pass, state_class: StateClass, kind: str, word: str) -> list[str]:
    state = pss.shader_state(state_class)
    blob = effect.shader_blob(state) if state is not None else None
    pad = INDENT * 2
    lines = []
    if state is not None and state.kind == StateKind.ARRAY_SELECTOR:
        # fxc lists the element the index expression picks with the
        # parameters' defaults; we say so and show the expression too.
        k = selected_element(effect, state)
        lines.append(f"{pad}// {kind} = {safe_text(state.reference)}[expression]; with the defaults: element {k}")
        lines.extend(f"{pad}//   {x}" for x in expression_lines(state.expression))
        found = effect.resolve(state.reference or "")
        if k is not None and found is not None and 0 <= k < len(found[0].object_ids):
            blob = effect.object_data(found[0].object_ids[k])
    if blob is None:
        return lines + [f"{pad}//No embedded {word} shader"]
    body = [PASS_ASM + "asm {", *(PASS_ASM + x if x else PASS_ASM for x in shader_listing(blob)), PASS_ASM + "};"]
    return lines + [f"{pad}{kind} = ", *body, ""]


def format_effect(effect: Effect) -> str:
    """The effect as an fxc-style listing (newline-terminated)."""
    lines = _declaration_lines(effect)
    lines.append("")
    for p in effect.parameters:
        if p.is_shader:
            lines.extend(_shader_parameter_lines(effect, p))
    lines += ["", "//listing of all techniques and passes with embedded asm listings ", ""]
    for tech in effect.techniques:
        lines.append(f"technique {safe_text(tech.name)}".rstrip() if tech.name else "technique ")
        lines.extend("//" + x for x in _annotation_text(tech.annotations, effect))
        lines.append("{")
        for pss in tech.passes:
            lines.append(f"{INDENT}pass {safe_text(pss.name)}" if pss.name else f"{INDENT}pass ")
            lines.extend(f"{INDENT}//" + x for x in _annotation_text(pss.annotations, effect))
            lines.append(INDENT + "{")
            for state in pss.states:
                if state.state_class in (StateClass.VERTEX_SHADER, StateClass.PIXEL_SHADER):
                    continue
                lines.extend(f"{INDENT * 2}// {x}" for x in state_text(effect, state))
            lines += _pass_shader_lines(effect, pss, StateClass.VERTEX_SHADER, "vertexshader", "vertex")
            lines += _pass_shader_lines(effect, pss, StateClass.PIXEL_SHADER, "pixelshader", "pixel")
            lines.append(INDENT + "}")
        lines += ["}", ""]
    return "\n".join(lines) + "\n"
