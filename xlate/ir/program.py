"""Variables, functions and the program: the containers of the IR."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Iterator

from ..bytecode.model import Instruction
from ..bytecode.tables import DeclUsage, RegisterType, SamplerType, ShaderVersion
from .ops import Op
from .types import Type


class Storage(enum.Enum):
    # Members are singletons: hash by identity (C speed; Enum's own hashes
    # the name in Python, and sets/dicts keyed by these are in every hot loop).
    __hash__ = object.__hash__

    TEMP = "temp"  # r#, ps_1_x t# written by texture ops: private, starts at 0
    ADDRESS = "address"  # a0: private ivec4
    LOOP_COUNTER = "loop_counter"  # aL: private int
    PREDICATE = "predicate"  # p0: private bvec4
    INPUT = "input"  # v#, t# (ps_1_4+/ps_2), vPos, vFace: stage input
    OUTPUT = "output"  # oPos, oD#, oT#, o#, oC#, oDepth, oFog, oPts
    FLOAT_CONST = "float_const"  # the c# file, an array
    INT_CONST = "int_const"  # the i# file, an array
    BOOL_CONST = "bool_const"  # the b# file, an array
    SAMPLER = "sampler"  # s#
    LOCAL = "local"  # introduced by lifting/passes (loop trip counts, copies)
    # A draw-time state parameter (xlate/drawstate.py): a scalar the layer
    # sets per draw, read-only; ``builtin`` is its StateParam key.  Declared
    # as a uniform (GL), a specialization constant (Vulkan, SPIR-V).
    STATE = "state"


# the constant files (c#, i#, b#): read-only, loaded by register
CONSTANT_FILES = frozenset((Storage.FLOAT_CONST, Storage.INT_CONST, Storage.BOOL_CONST))


@dataclass(frozen=True)
class Semantic:
    """A D3D declaration usage: (POSITION, 0), (TEXCOORD, 3), ..."""

    usage: DeclUsage
    index: int = 0

    def __str__(self) -> str:
        return f"{self.usage.name.lower()}{self.index}"


@dataclass(eq=False, slots=True)
class Variable:
    """A storage location.  Identity matters; ``name`` is only a readable base
    name (the backend's namer turns it into a legal, unique identifier).

    Slots: a shader makes dozens (every register, every output io adds),
    and without an instance dict each costs less to make, to free and for
    the cyclic collector to visit."""

    name: str
    storage: Storage
    type: Type
    length: int | None = None  # array length (constant files, local arrays)
    register: tuple[RegisterType, int] | None = None  # the D3D register it models
    # Inputs/outputs: (component mask, semantic) pairs.  One register can
    # carry two semantics in vs_3_0 (dcl_texcoord0 o5.xy + dcl_texcoord1 o5.zw).
    semantics: tuple[tuple[int, Semantic], ...] = ()
    builtin: str | None = None  # "vpos" / "vface" for ps_3_0 misc registers
    mask: int = 0xF  # declared components (DCL write mask)
    centroid: bool = False
    partial_precision: bool = False
    sampler_type: SamplerType | None = None  # SAMPLER only

    @property
    def semantic(self) -> Semantic | None:
        return self.semantics[0][1] if self.semantics else None

    def __repr__(self) -> str:
        return f"<Variable {self.name} {self.storage.value} {self.type}" + (
            f"[{self.length}]" if self.length else ""
        ) + ">"


@dataclass
class Function:
    """A D3D main program or subroutine (``label lN`` ... ``ret``)."""

    name: str
    body: list[Op] = field(default_factory=list)
    label: int | None = None  # the D3D label number; None for main
    origin: int = -1  # instruction index of the LABEL


@dataclass(frozen=True)
class ConstantDef:
    """A DEF/DEFI/DEFB: register ``index`` of ``storage`` holds ``values``."""

    storage: Storage
    index: int
    values: tuple  # 4 floats, 4 ints, or (bool,)
    origin: int = -1


@dataclass
class Program:
    version: ShaderVersion
    functions: dict[str, Function]  # "main" first, then subroutines by label
    variables: list[Variable]
    defs: list[ConstantDef]
    instructions: tuple[Instruction, ...]  # the decoded instructions (for annotations)
    ctab: object | None = None  # bytecode.ctab.ConstantTable
    # facts passes record for later passes and the backend
    notes: dict[str, object] = field(default_factory=dict)

    @property
    def is_vertex(self) -> bool:
        return self.version.is_vertex

    @property
    def is_pixel(self) -> bool:
        return self.version.is_pixel

    @property
    def main(self) -> Function:
        return self.functions["main"]

    def all_ops(self) -> Iterator[tuple[Function, Op]]:
        for fn in self.functions.values():
            for op in fn.body:
                yield fn, op

    def variables_of(self, storage: Storage) -> list[Variable]:
        return [v for v in self.variables if v.storage is storage]

    def new_local(self, name: str, type: Type, length: int | None = None) -> Variable:
        existing = self._variable_names()
        base, n = name, 0
        while name in existing:
            n += 1
            name = f"{base}{n}"
        var = Variable(name, Storage.LOCAL, type, length)
        self.variables.append(var)
        existing.add(name)
        self.__dict__["_names_key"] = (id(self.variables), len(self.variables), id(var))
        return var

    def _variable_names(self) -> set[str]:
        """The names in ``variables``, kept between ``new_local`` calls while
        the list is the same one, as long, with the same last variable (so
        lifting a shader with thousands of loops is not quadratic); rebuilt
        whenever anything else changed it (nothing renames a variable)."""
        variables = self.variables
        key = (id(variables), len(variables), id(variables[-1]) if variables else 0)
        names = self.__dict__.get("_names")
        if names is None or self.__dict__.get("_names_key") != key:
            names = self.__dict__["_names"] = {v.name for v in variables}
            self.__dict__["_names_key"] = key
        return names
