"""What a translation says about a shader's preshader: the reflection's
``preshader`` entry and the diagnostic (docs/reflection.md, "Preshader")."""

from __future__ import annotations

from ..bytecode.ctab import RegisterSet
from ..bytecode.model import Shader
from ..errors import PreshaderError
from .decoder import shader_preshader
from .model import COMPONENT_LETTERS, Preshader
from .tables import RegisterFile

_FILE_NAMES = {RegisterFile.OUTPUT: "float", RegisterFile.OUTPUT_INT: "int", RegisterFile.OUTPUT_BOOL: "bool"}
_PREFIX = {"float": "c", "int": "i", "bool": "b"}
MAX_NAME = 64


def display_name(name: str) -> str:
    """A CTAB name fit for a message: printable ASCII as is, anything else
    escaped (``\\x1b``), long names cut."""
    text = name if name.isascii() and name.isprintable() else ascii(name)[1:-1]
    return text if len(text) <= MAX_NAME else text[:MAX_NAME] + "..."


def _glsl_of(constants, file: str, register: int) -> tuple[str | None, int | None]:
    for entry in constants:
        first, count = entry.get("first", 0), entry.get("count", 0)
        if entry.get("file") == file and first <= register < first + count:
            element = entry.get("element")
            return entry.get("glsl"), (element + register - first) if element is not None else None
    return None, None


def _registers(pre: Preshader, constants) -> list[dict]:
    masks: dict[tuple[str, int], set[int]] = {}
    for reg in pre.outputs:
        file = _FILE_NAMES[reg.file]
        component = 0 if reg.file == RegisterFile.OUTPUT_BOOL else reg.component
        masks.setdefault((file, reg.index), set()).add(component)
    out = []
    for (file, register), comps in sorted(masks.items()):
        glsl, element = _glsl_of(constants, file, register)
        entry = {"file": file, "register": register, "glsl": glsl, "element": element}
        if file != "bool":
            entry["mask"] = "".join(COMPONENT_LETTERS[c] for c in sorted(comps))
        out.append(entry)
    return out


def _inputs(pre: Preshader) -> list[dict]:
    if pre.ctab is None:
        return []
    used = set(pre.input_names())
    return [
        {"name": c.name, "register": c.register_index, "count": c.register_count}
        for c in pre.ctab.constants
        if c.name in used and c.register_set == RegisterSet.FLOAT4
    ]


def preshader_of(shader: Shader) -> Preshader | None:
    """``shader_preshader``, or None when it cannot be decoded (which
    ``describe_preshader`` reports)."""
    try:
        return shader_preshader(shader)
    except PreshaderError:
        return None


def _inline_entry(pre: Preshader, base: int, constants) -> tuple[dict, list[str]]:
    registers = [{k: v for k, v in r.items() if k not in ("glsl", "element")} for r in _registers(pre, ())]
    inputs = []
    for item in _inputs(pre):
        register = base + item["register"]
        glsl, element = _glsl_of(constants, "float", register)
        inputs.append({**item, "register": register, "glsl": glsl, "element": element})
    entry = {"mode": "inline", "registers": registers, "inputs": inputs, "instructions": len(pre.instructions)}
    filled = ", ".join(f"c{r['register']}" for r in registers) or "no register"
    sources = ", ".join(f"{display_name(i['name'])} (c{i['register']})" for i in inputs) or "no input"
    return entry, [f"the shader's preshader is inlined: the shader computes {filled} itself from the uniforms "
                   f"{sources} (reflection 'preshader'); set those like any constant"]


def describe_preshader(shader: Shader, constants=(), inlined=None) -> tuple[dict | None, list[str]]:
    """The reflection entry and diagnostics for ``shader``'s preshader:
    ``(None, [])`` when it has none.  ``constants`` is the reflection's
    ``constants`` list, to name the GLSL uniform each filled register is in
    (cpu mode) or each input is read from (inline mode).  ``inlined`` is what
    ``ir.preshader_inline.inline_preshader`` returned (an ``Inlined``, or the
    reason it refused), None when inlining was not asked for."""
    if inlined is not None and not isinstance(inlined, str):
        return _inline_entry(inlined.preshader, inlined.base, constants)
    try:
        pre = shader_preshader(shader)
    except PreshaderError as err:
        reason = str(err)
        return ({"mode": "cpu", "error": reason, "registers": [], "inputs": [], "instructions": 0},
                [f"the shader's preshader (PRES comment) cannot be decoded ({reason}): the constants it "
                 f"would fill are left to the application"])
    if pre is None:
        return None, []
    registers = _registers(pre, constants)
    inputs = _inputs(pre)
    entry = {"mode": "cpu", "registers": registers, "inputs": inputs, "instructions": len(pre.instructions)}
    filled = ", ".join(f"{_PREFIX[r['file']]}{r['register']}{'.' + r['mask'] if r.get('mask', 'xyzw') != 'xyzw' else ''}"
                       for r in registers) or "no register"
    sources = ", ".join(display_name(i["name"]) for i in inputs) or "no input"
    notes = [f"the shader carries a preshader: d3dx9 computes {filled} on the CPU from {sources} before each draw; "
             f"the translation reads them as ordinary constants, so fill them (xlate.preshader: Preshader.evaluate, "
             f"reflection 'preshader')"]
    if isinstance(inlined, str):
        entry["inline_refused"] = inlined
        notes.append(f"inline_preshader was asked for but the preshader stays on the CPU: {inlined}")
    if not pre.terminated or pre.trailing_bytes:
        notes.append(f"the preshader's FX stream {'has no END token' if not pre.terminated else 'ends early'}"
                     f"{f' and {pre.trailing_bytes} bytes after it are not read' if pre.trailing_bytes else ''} "
                     f"(d3dx9 ignores them too)")
    return entry, notes
