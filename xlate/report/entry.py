"""One shader's page of the HTML report: ``report_entry`` -> ``ReportEntry``.

An entry is computed where the shader is translated (in the batch tool's
worker processes), so it is a frozen dataclass of plain strings, lists and
dicts: cheap to pickle and to turn into JSON.

The links between the D3D listing and the generated code come from the
translator itself: with ``annotate=True`` the GLSL backend writes each D3D
instruction, as the disassembler prints it, in a ``// `` comment above the
first statement it became.  ``link_annotations`` finds those comments,
maps each back to its instruction (by text, in program order, as two
instructions may print the same), removes them, and records which lines of
the code that is left each instruction became.  The code shown is then the
code a translation without ``annotate`` gives.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from ..api import translate
from ..backends import get_target
from ..backends.glsl import CONTINUED_ANNOTATION, SYNTHETIC_ANNOTATION
from ..bytecode import decode
from ..bytecode.asm import assemble_bytes
from ..bytecode.ctab import format_ctab
from ..bytecode.disasm import disassemble, format_instruction
from ..bytecode.tables import Opcode
from ..errors import AsmError, XlateError
from ..ir.builder import lift
from ..options import Options
from ..toolchain import ToolchainError, find_tool
from .cfg_svg import program_svg

# The kinds of entry (the batch tool says which).
KINDS = ("shader", "effect-shader", "asm")
# A target's outcome, as the summary counts them: converted; refused (the
# input is malformed or uses something xlate does not support: an
# XlateError, which names the byte offset); failed (anything else: a bug).
OUTCOMES = ("converted", "refused", "failed")
# D3D9 version tokens: 0xFFFE (vs) or 0xFFFF (ps) in the high half.
_SHADER_TYPES = (0xFFFE, 0xFFFF)
_ANNOTATION = "// "
_SYNTHETIC = _ANNOTATION + SYNTHETIC_ANNOTATION
_CONTINUED = CONTINUED_ANNOTATION + " "


@dataclass(frozen=True)
class ReportEntry:
    """One shader in the report (a bare blob, or one shader of an effect).

    Line numbers are 0-based indices into ``disassembly`` and into the
    target's ``code`` split at newlines.
    """

    path: str  # the source file relative to the tree (+ "#Technique.Pass.vs" for an effect's shader)
    kind: str  # one of KINDS
    version: str  # "ps_3_0", ... ("" when the shader could not be decoded)
    disassembly: list[str]  # the listing, one line per element
    code: dict[str, str]  # target -> generated code (SPIR-V: its disassembly, or a note)
    # target -> (disassembly line of an instruction, first code line, last code line)
    links: dict[str, list[tuple[int, int, int]]]
    reflection: dict[str, dict]  # target -> reflection
    diagnostics: list[str]  # warnings, each once, with the target named when only one target gave it
    errors: list[str]  # why a target (or the whole shader) was not converted
    cfg_svg: str  # the control-flow graph as inline SVG ("" when it could not be built)
    outcome: dict[str, str] = field(default_factory=dict)  # target -> one of OUTCOMES
    # target -> (first code line, last code line) of code from no instruction (position fix-ups)
    synthetic: dict[str, list[tuple[int, int]]] = field(default_factory=dict)

    def to_json(self) -> dict:
        """The entry as the page's script reads it (short keys: thousands are embedded)."""
        return {
            "p": self.path, "k": self.kind, "v": self.version, "d": self.disassembly, "c": self.code,
            "l": {t: [list(x) for x in v] for t, v in self.links.items()}, "r": self.reflection,
            "g": self.diagnostics, "e": self.errors, "f": self.cfg_svg, "o": self.outcome,
            "x": {t: [list(x) for x in v] for t, v in self.synthetic.items()},
        }


def is_bytecode(data: bytes) -> bool:
    """Whether ``data`` starts with a D3D9 shader version token (else it may be assembly text)."""
    return len(data) >= 4 and struct.unpack_from("<I", data)[0] >> 16 in _SHADER_TYPES


def listing(shader) -> tuple[list[str], list[int]]:
    """The fxc-style listing as lines, and the line of each instruction.

    The constant-table header comes from ``format_ctab`` one element per
    line, so a name holding a newline cannot shift the lines below it (the
    page shows control characters escaped).
    """
    header: list[str] = []
    if shader.ctab is not None:
        header = list(format_ctab(shader.ctab))
    body = disassemble(shader, header=False).rstrip("\n").split("\n")
    lines = header + body
    where: list[int] = []
    at = len(header) + 1  # after the version line
    for inst in shader.instructions:
        text = format_instruction(inst, shader.version).strip()
        while at < len(lines) and lines[at].strip() != text:
            at += 1
        if at == len(lines):  # cannot happen while disassemble prints every instruction on its line
            raise AssertionError(f"instruction {text!r} missing from the listing")
        where.append(at)
        at += 1
    return lines, where


@dataclass
class _Group:
    instructions: list[int]  # empty for a run of code from no instruction
    indent: int
    closes_loop: bool
    first: int = -1
    last: int = -1
    took_brace: bool = False


@dataclass(frozen=True)
class Links:
    """What ``link_annotations`` finds: the code without the comments, and its lines' origins."""

    code: str
    links: list[tuple[int, int, int]]  # (instruction, first line, last line)
    synthetic: list[tuple[int, int]]  # (first line, last line) of code from no instruction


def link_annotations(code: str, texts: Sequence[str], closes_loop: Sequence[bool] = ()) -> Links:
    """Strip the ``annotate`` comments from ``code`` and link instructions to lines.

    ``texts[i]`` is instruction i as the backend printed it in its comment;
    ``closes_loop[i]`` says whether it ends a loop (``endloop``/``endrep``),
    whose comment sits inside the loop body: the ``}`` that closes the body
    is then counted as its code too.  Returns the code without those
    comments, ``(instruction, first line, last line)`` triples, lines 0-based
    in the returned code, one triple per instruction that produced a
    statement, and the ``(first line, last line)`` runs of code from no
    instruction.

    A run of annotation comments belongs to the statements after it, up to
    the next annotation comment or the end of the enclosing block (a line
    indented less than the comments).  The backend marks code from no
    instruction (the position fix-ups at the end of a vertex shader, the
    ``aL`` restore after a loop) with its own comment
    (``glsl.SYNTHETIC_ANNOTATION``), which starts a run linked to no
    instruction.  Comments whose text is no instruction's are ordinary
    comments and stay.  When several instructions print the same text, the
    first unused one after the previous match is taken, as the backend
    annotates in program order.
    """
    by_text: dict[str, list[int]] = {}
    for i, t in enumerate(texts):
        by_text.setdefault(t.rstrip(), []).append(i)
    used: set[int] = set()
    previous = -1
    last: dict[str, int] = {}  # text -> the instruction last matched to it
    out: list[str] = []
    links: list[tuple[int, int, int]] = []
    synthetic: list[tuple[int, int]] = []
    group: _Group | None = None

    def close(g: _Group | None) -> None:
        if g is not None and g.first >= 0:
            if g.instructions:
                links.extend((i, g.first, g.last) for i in g.instructions)
            else:
                synthetic.append((g.first, g.last))

    for line in code.split("\n"):
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if stripped == _SYNTHETIC:
            close(group)
            group = _Group([], indent, False)
            continue
        if stripped.startswith(_ANNOTATION):
            text = stripped[len(_ANNOTATION):]
            again = text.startswith(_CONTINUED)
            if again:
                text = text[len(_CONTINUED):]
            candidates = by_text.get(text)
            chosen = None
            if again and text in last:  # more code of the instruction last named so (past its loop's brace)
                chosen, closes = last[text], False
            elif candidates:
                free = [i for i in candidates if i not in used]
                chosen = next((i for i in free if i > previous), free[0] if free else candidates[0])
                used.add(chosen)
                previous = last[text] = chosen
                closes = bool(closes_loop[chosen]) if chosen < len(closes_loop) else False
            if chosen is not None:
                if group is None or group.first >= 0 or not group.instructions:
                    close(group)
                    group = _Group([chosen], indent, closes)
                else:
                    group.instructions.append(chosen)
                    group.closes_loop = group.closes_loop or closes
                continue
        if group is not None and stripped and indent < group.indent:
            if stripped == "}" and group.closes_loop and not group.took_brace and group.first >= 0:
                group.took_brace = True
                out.append(line)
                group.last = len(out) - 1
                continue
            close(group)
            group = None
        out.append(line)
        if group is not None and stripped:
            if group.first < 0:
                group.first = len(out) - 1
            group.last = len(out) - 1
    close(group)
    return Links("\n".join(out), sorted(links), sorted(synthetic))


def _spirv_text(binary: bytes) -> str:
    tool = find_tool("spirv-dis")
    result = tool.run(["--no-color", "-"], input=binary)
    if result.returncode != 0:
        message = (result.stdout + result.stderr).decode(errors="replace").strip()
        return f"; spirv-dis could not disassemble the {len(binary)}-byte module: {message}\n"
    return result.stdout.decode(errors="replace")


def _translate_one(data: bytes, target: str, options: Mapping, done=None) -> tuple[str, dict, list[str]]:
    result = done if done is not None else translate(data, target, **{**options, "annotate": True})
    code = result.code
    if isinstance(code, bytes):
        try:
            code = _spirv_text(code)
        except XlateError as exc:  # no spirv-dis: say so instead of the listing
            code = f"; {len(result.code)}-byte SPIR-V module (no listing: {exc})\n"
    return code, result.reflection, list(result.diagnostics)


def report_entry(path: str, data: bytes, targets: Sequence[str], options: Mapping | None = None,
                 kind: str = "shader", done: Mapping[str, object] | None = None) -> ReportEntry:
    """Translate ``data`` for each target and gather what the report shows of it.

    ``data`` is the shader's bytecode, or for ``kind="asm"`` either the
    bytecode assembled from the text or the assembly text itself (UTF-8),
    which is assembled here.  ``options`` are ``xlate.translate``'s keyword
    options (``annotate`` is always turned on to find the links, and the
    comments removed again).  Never raises for bad input: errors are
    recorded in the entry, per target.

    ``done`` may hold ``Translation``s the caller already made of this
    shader with the same options (target -> translation): those of binary
    targets (SPIR-V, whose listing has no annotations to link) are used
    as they are, which spares compiling them again; text targets are
    translated again with ``annotate``, which is cheap.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    options = dict(options or {})
    kinds = {get_target(t).name: get_target(t) for t in targets}  # a wrong name is the caller's error: raises
    Options.from_kwargs(**{**options, "annotate": True})  # and so is a wrong option: raises here, not per shader
    errors: list[str] = []
    diagnostics: list[str] = []
    blob = bytes(data)
    try:
        if kind == "asm" and not is_bytecode(blob):
            blob = assemble_bytes(blob.decode("utf-8", errors="replace"), source=path)
        shader = decode(blob)
    except XlateError as exc:
        return ReportEntry(path, kind, "", [], {}, {}, {}, [], [_message(exc)], "", {t: "refused" for t in kinds})

    lines, where = listing(shader)
    texts = [format_instruction(i, shader.version) for i in shader.instructions]
    closing = [i.opcode in (Opcode.ENDLOOP, Opcode.ENDREP) for i in shader.instructions]
    code: dict[str, str] = {}
    links: dict[str, list[tuple[int, int, int]]] = {}
    synthetic: dict[str, list[tuple[int, int]]] = {}
    reflection: dict[str, dict] = {}
    outcome: dict[str, str] = {}
    seen: dict[str, list[str]] = {}  # diagnostic -> the targets that gave it
    for target, tgt in kinds.items():
        try:
            given = (done or {}).get(target)
            given = given if given is not None and isinstance(given.code, bytes) else None
            text, refl, diags = _translate_one(blob, target, options, given)
        except ToolchainError as exc:  # glslang or spirv-val refused xlate's own output: a bug, not the input's fault
            errors.append(f"{target}: {exc}")
            outcome[target] = "failed"
            continue
        except XlateError as exc:
            errors.append(f"{target}: {exc}")
            outcome[target] = "refused"
            continue
        except Exception as exc:  # noqa: BLE001 - a bug in xlate: shown in the report, not fatal to it
            errors.append(f"{target}: internal error ({type(exc).__name__}): {exc}")
            outcome[target] = "failed"
            continue
        outcome[target] = "converted"
        if tgt.binary:  # SPIR-V's listing: no annotations to link
            code[target], found = text, []
        else:
            linked = link_annotations(text, texts, closing)
            code[target], found, synthetic[target] = linked.code, linked.links, linked.synthetic
        links[target] = [(where[i], first, last) for i, first, last in found]
        reflection[target] = _plain(refl)
        for d in diags:
            seen.setdefault(str(d), []).append(target)
    converted = [t for t, o in outcome.items() if o == "converted"]
    for d, which in seen.items():  # said once; with its targets when not all of them said it
        diagnostics.append(d if which == converted else f"{', '.join(which)}: {d}")
    return ReportEntry(path, kind, shader.version.name, lines, code, links, reflection, diagnostics, errors,
                       _cfg_svg(shader, where, texts, diagnostics), outcome, synthetic)


def _message(exc: XlateError) -> str:
    """The error as the entry shows it (an assembly error without the file name: the entry has it)."""
    if isinstance(exc, AsmError):
        return f"line {exc.line}, column {exc.column}: {exc.reason}"
    return str(exc)


def _plain(value: dict) -> dict:
    """The reflection as JSON types only (it is documented to be; this keeps a stray enum from breaking the page)."""
    return json.loads(json.dumps(value, default=str))


def _cfg_svg(shader, where: list[int], texts: list[str], diagnostics: list[str]) -> str:
    try:
        program = lift(shader)
    except XlateError as exc:
        diagnostics.append(f"report: no control-flow graph, the shader could not be lifted: {exc}")
        return ""
    return program_svg(program, where, texts)
