"""Facts about a decoded shader, for ``xlate info`` and reports."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

from .model import Instruction, Shader
from .tables import Layout, Opcode, RegisterType, register_name

# Instruction kinds, in the order reports print them.
KINDS = ("declaration", "constant", "arithmetic", "texture", "flow", "other")

_TEXTURE = {
    Opcode.TEX, Opcode.TEXLDL, Opcode.TEXLDD, Opcode.TEXKILL, Opcode.TEXCOORD, Opcode.TEXBEM,
    Opcode.TEXBEML, Opcode.TEXREG2AR, Opcode.TEXREG2GB, Opcode.TEXREG2RGB, Opcode.TEXM3x2PAD,
    Opcode.TEXM3x2TEX, Opcode.TEXM3x2DEPTH, Opcode.TEXM3x3PAD, Opcode.TEXM3x3TEX, Opcode.TEXM3x3SPEC,
    Opcode.TEXM3x3VSPEC, Opcode.TEXM3x3, Opcode.TEXDP3, Opcode.TEXDP3TEX, Opcode.TEXDEPTH,
}
_FLOW = {
    Opcode.CALL, Opcode.CALLNZ, Opcode.LOOP, Opcode.ENDLOOP, Opcode.RET, Opcode.LABEL, Opcode.REP,
    Opcode.ENDREP, Opcode.IF, Opcode.IFC, Opcode.ELSE, Opcode.ENDIF, Opcode.BREAK, Opcode.BREAKC,
    Opcode.BREAKP,
}
_OTHER = {Opcode.NOP, Opcode.PHASE}


def instruction_kind(inst: Instruction) -> str:
    layout = inst.info.layout
    if layout is Layout.DCL:
        return "declaration"
    if layout in (Layout.DEF, Layout.DEFI, Layout.DEFB):
        return "constant"
    if inst.opcode in _TEXTURE:
        return "texture"
    if inst.opcode in _FLOW:
        return "flow"
    if inst.opcode in _OTHER:
        return "other"
    return "arithmetic"


@dataclass
class ShaderInfo:
    version: str
    stage: str
    instructions: int
    by_kind: dict[str, int]
    by_opcode: dict[str, int]
    registers_read: list[str]
    registers_written: list[str]
    comments: list[dict] = field(default_factory=list)
    ctab: dict | None = None

    def to_json(self) -> dict:
        return asdict(self)


def _sorted_names(regs: set[tuple[RegisterType, int]], shader: Shader) -> list[str]:
    return [register_name(shader.version, t, i) for t, i in sorted(regs)]


def shader_info(shader: Shader) -> ShaderInfo:
    kinds: Counter[str] = Counter()
    opcodes: Counter[str] = Counter()
    read: set[tuple[RegisterType, int]] = set()
    written: set[tuple[RegisterType, int]] = set()
    for inst in shader.iter_instructions():
        kinds[instruction_kind(inst)] += 1
        opcodes[inst.info.mnemonic] += 1
        if inst.dst is not None:
            target = read if inst.opcode in (Opcode.TEXKILL, Opcode.DCL) else written
            target.add((inst.dst.type, inst.dst.index))
        for src in (*inst.srcs, *((inst.predicate,) if inst.predicate else ())):
            read.add((src.type, src.index))
            if src.relative is not None and not src.relative.implicit:
                read.add((src.relative.type, src.relative.index))
    comments = [
        {"offset": c.offset, "fourcc": c.fourcc, "bytes": len(c.data)} for c in shader.comments
    ]
    return ShaderInfo(
        version=shader.version.name,
        stage=shader.stage,
        instructions=sum(kinds.values()),
        by_kind={k: kinds[k] for k in KINDS if kinds[k]},
        by_opcode=dict(sorted(opcodes.items())),
        registers_read=_sorted_names(read, shader),
        registers_written=_sorted_names(written, shader),
        comments=comments,
        ctab=_ctab_json(shader),
    )


def _ctab_json(shader: Shader) -> dict | None:
    ctab = shader.ctab
    if ctab is None:
        return None
    return {
        "creator": ctab.creator,
        "target": ctab.target,
        "constants": [
            {
                "name": c.name,
                "register_set": getattr(c.register_set, "name", c.register_set),
                "register_index": c.register_index,
                "register_count": c.register_count,
                "class": getattr(c.type.cls, "name", c.type.cls),
                "type": getattr(c.type.type, "name", c.type.type),
                "rows": c.type.rows,
                "columns": c.type.columns,
                "elements": c.type.elements,
                "has_default": c.default_value is not None,
            }
            for c in ctab.constants
        ],
    }
