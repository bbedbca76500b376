"""What a D3D9 shader may contain beyond its token format, written once as data.

The decoder (``decoder.py``), the assembler (``asm/rules.py``) and the IR
(``ir/cfg.py``: call depth) all read these rules; none restates them.  Each
operand rule says whether Microsoft's assembler enforces it too
(``assembler``).  The decoder follows the runtime's validation
(``IDirect3DDevice9::CreatePixelShader``/``CreateVertexShader``), and so does
the assembler except where Microsoft's assembler is known to be laxer (Wine's
``asm.c`` cases "Assembly succeeds, validation fails": the sampler slot).  So
text the assembler accepts may be refused by the decoder only there, and
never the other way round: whatever decodes disassembles to text that
assembles to the same tokens (``tests/test_validity_agreement.py``).

Where xlate is deliberately laxer than Windows, the case is listed in
``docs/validity.md`` and every later stage handles it.

Sources: ``shared/semantics/D3D9_SEMANTICS.md`` 1.10-1.15 and 4.3 (nesting
limits), Microsoft's instruction pages in ``shared/spec/``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .tables import (
    DEF_REGISTER,
    OUTPUT,
    SRC_MODS,
    TEXTURE,
    Layout,
    DstMod,
    Opcode,
    OpcodeInfo,
    RegisterType,
    ShaderVersion,
    SrcMod,
)

R = RegisterType

# --------------------------------------------------------------------------
# Operand register types
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class OperandRule:
    """Operand ``slot`` of ``opcode`` (the destination, if any, is slot 0)
    must name a register of ``allowed``; ``assembler``: Microsoft's assembler
    checks it too."""

    opcode: Opcode
    slot: int
    allowed: frozenset[RegisterType]
    assembler: bool = True


def _rule(opcode: Opcode, slot: int, *types: RegisterType, assembler: bool = True) -> OperandRule:
    return OperandRule(opcode, slot, frozenset(types), assembler)


# The sampler operand of the SM2+ sampling instructions (slot 2: after the
# destination and the coordinate).  Microsoft's assembler does not check it
# (Wine assembles "texldd r0, r1, r2, r3, r4"); the runtime does.  ps_1_x
# tex/texld take no sampler operand, so their forms have no slot 2.
SAMPLER_SLOT = 2
SAMPLING_OPCODES = frozenset({Opcode.TEX, Opcode.TEXLDL, Opcode.TEXLDD})

OPERAND_RULES: tuple[OperandRule, ...] = (
    _rule(Opcode.CALL, 0, R.LABEL),
    _rule(Opcode.LABEL, 0, R.LABEL),
    _rule(Opcode.CALLNZ, 0, R.LABEL),
    _rule(Opcode.CALLNZ, 1, R.CONSTBOOL, R.PREDICATE),
    _rule(Opcode.IF, 0, R.CONSTBOOL, R.PREDICATE),
    _rule(Opcode.BREAKP, 0, R.PREDICATE),
    _rule(Opcode.LOOP, 0, R.LOOP),
    _rule(Opcode.LOOP, 1, R.CONSTINT),
    _rule(Opcode.REP, 0, R.CONSTINT),
    _rule(Opcode.SETP, 0, R.PREDICATE),
    _rule(Opcode.MOVA, 0, R.ADDR),
    # def, defi and defb define a constant of their own file (tables.DEF_REGISTER).
    _rule(Opcode.DEF, 0, R.CONST, R.CONST2, R.CONST3, R.CONST4),
    _rule(Opcode.DEFI, 0, R.CONSTINT),
    _rule(Opcode.DEFB, 0, R.CONSTBOOL),
) + tuple(_rule(op, SAMPLER_SLOT, R.SAMPLER, assembler=False) for op in sorted(SAMPLING_OPCODES))

# Register files an operand slot accepts, by opcode and slot.
OPERAND_REGISTERS: dict[Opcode, dict[int, OperandRule]] = {}
for _r in OPERAND_RULES:
    OPERAND_REGISTERS.setdefault(_r.opcode, {})[_r.slot] = _r
del _r

# Files that only the slots above may name: a sampler is read only by a
# sampling instruction, a label only by call/callnz/label.  Anywhere else
# both the runtime and Microsoft's assembler refuse them.  (dcl names a
# sampler too; its layout is not ``OPERANDS`` and is checked by dcl rules.)
SLOT_ONLY_FILES = frozenset({R.SAMPLER, R.LABEL})


# Files only some instructions may write: p0 is set by setp alone (an
# arithmetic result has no bool meaning D3D9 gives it; the backends cannot
# honour "add p0, r0, c0", scripts/fuzz found GLSL glslang refuses).
# The decoder and the assembler both refuse the rest (whether Microsoft's
# assembler does is not known).
WRITTEN_ONLY_BY: dict[RegisterType, frozenset[Opcode]] = {R.PREDICATE: frozenset({Opcode.SETP})}


def written_problem(opcode: Opcode, rtype: RegisterType, name: str, mnemonic: str) -> str | None:
    """Why ``opcode``'s destination may not be ``rtype``, or None."""
    writers = WRITTEN_ONLY_BY.get(rtype)
    if writers is None or opcode in writers:
        return None
    only = ", ".join(sorted(w.name.lower() for w in writers))
    return f"'{mnemonic}' cannot write {name}: only {only} writes that register"



def operand_problem(opcode: Opcode, slot: int, rtype: RegisterType, name: str, mnemonic: str,
                    *, assembler: bool = False) -> str | None:
    """Why operand ``slot`` of ``opcode`` may not name ``rtype`` (``name`` is
    the register's spelling), or None.  ``assembler``: only the rules
    Microsoft's assembler enforces."""
    rule = OPERAND_REGISTERS.get(opcode, {}).get(slot)
    if rule is not None:
        if rtype in rule.allowed or (assembler and not rule.assembler):
            return None
        return f"operand {slot + 1} of '{mnemonic}' cannot be {name}"
    if rtype in SLOT_ONLY_FILES:
        what = "a sampler" if rtype == R.SAMPLER else "a label"
        return f"operand {slot + 1} of '{mnemonic}' cannot be {name}: {what} is only read where an instruction samples or calls"
    return None


def checks_operands(opcode: Opcode, layout: Layout) -> bool:
    """Does any operand rule name this opcode's slots?  (Instructions of other
    opcodes need only the slot-only check.)"""
    return layout is Layout.OPERANDS and opcode in OPERAND_REGISTERS


# --------------------------------------------------------------------------
# Declarations
# --------------------------------------------------------------------------


def dcl_spelling(version: ShaderVersion, rtype: RegisterType) -> tuple[bool, bool, bool]:
    """How the disassembler writes a dcl of ``rtype``: (bare ``dcl``, with a
    usage such as ``dcl_texcoord``, with a texture type such as ``dcl_2d``);
    ``dcl_problem`` judges a register declared by its raw token (which
    tells neither) by that spelling."""
    sampler = rtype == R.SAMPLER
    bare = rtype == R.MISCTYPE or (version.is_pixel and version.major == 2 and rtype in (R.INPUT, R.ADDR))
    return bare, not bare and not sampler, sampler


def dcl_problem(version: ShaderVersion, rtype: RegisterType, name: str, *, usage: bool, sampler: bool) -> str | None:
    """Can ``name`` be declared here, with a usage (``dcl_texcoord``) or a
    texture type (``dcl_2d``) as written?  (The decoder passes what the
    disassembler would write for the token.)"""
    if rtype == R.SAMPLER:
        return None if sampler else f"declare sampler {name} with its texture type: dcl_2d, dcl_cube, dcl_volume"
    if sampler:
        return f"dcl_2d/dcl_cube/dcl_volume declare samplers, not {name}"
    if version.is_vertex:
        if rtype == R.INPUT or (version.major >= 3 and rtype == OUTPUT):
            return None
    elif rtype == R.MISCTYPE:
        return f"{name} is declared with a plain dcl" if usage else None
    elif rtype in (R.INPUT, TEXTURE):  # v#; t# exists only below ps_3_0
        return None
    return f"{name} cannot be declared in {version}"


def semantic_linked(version: ShaderVersion, rtype: RegisterType) -> bool:
    """Is a dcl of ``rtype`` the linkage of a semantic between stages (the
    ps_3_0 inputs and the vs_3_0 outputs)?  Each semantic there names one
    register: the runtime refuses a second register with the same usage and
    index, and a register declared twice over the same components."""
    if version.major < 3:
        return False
    return rtype == (R.INPUT if version.is_pixel else OUTPUT)


def redeclaration_problem(name: str, semantic: str | None, other: str | None) -> str:
    """The reason for a dcl that repeats one (``other``: the register that
    already has ``semantic``; None: ``name`` itself was declared over the same
    components)."""
    if other is None:
        return f"{name} is declared twice over the same components"
    return f"{name} is declared as {semantic}, which {other} already is: a semantic names one register"


# --------------------------------------------------------------------------
# Source modifiers
# --------------------------------------------------------------------------


def _is_ps1(version: ShaderVersion) -> bool:
    return version.is_pixel and version.major == 1


def src_modifier_problem(version: ShaderVersion, mod: SrcMod, rtype: RegisterType, opcode: Opcode | None,
                         spelling: str) -> str | None:
    """Why ``mod`` may not modify a ``rtype`` source of ``opcode`` here, or
    None.  ``opcode`` None: any opcode (the decoder's per-version table; the
    opcode-dependent ``_dz``/``_dw`` then count as not allowed)."""
    if mod in (SrcMod.NONE, SrcMod.NEG):
        return None
    if mod == SrcMod.NOT:
        if version.major < 2 or rtype not in (R.CONSTBOOL, R.PREDICATE):
            return f"the '!' modifier applies only to b# and p0 registers in shader model 2 and up ({spelling})"
        return None
    if mod in (SrcMod.ABS, SrcMod.ABSNEG):
        if version.major < 2 or (version.is_vertex and version.major < 3):
            return f"the _abs modifier needs vs_3_0 or ps_2_0 and up, not {version} ({spelling})"
        return None
    if SRC_MODS[mod].ps1_only and not _is_ps1(version):
        return f"the source modifier in {spelling} exists only in ps_1_x, not {version}"
    if mod in (SrcMod.DZ, SrcMod.DW) and not (version.minor == 4 and opcode in (Opcode.TEX, Opcode.TEXCOORD)):
        return f"_dz and _dw apply only to texld and texcrd sources in ps_1_4 ({spelling})"
    return None


# --------------------------------------------------------------------------
# Result modifiers
# --------------------------------------------------------------------------


def result_modifier_problem(version: ShaderVersion, info: OpcodeInfo, spelled: str, mods: DstMod, shift: int) -> str | None:
    """Result modifiers and shift written on the mnemonic (``spelled``)."""
    if info.opcode == Opcode.DCL:
        if shift:
            return "dcl takes no result shift"
        if mods & DstMod.SATURATE:
            return "dcl takes no _sat modifier"
        if mods and version.is_vertex:
            return "dcl takes no modifiers in vertex shaders"
        return None
    if (mods or shift) and (not info.forms[0].has_dst or info.layout in DEF_REGISTER):
        return f"'{spelled}' takes no result modifiers"
    if mods & (DstMod.PARTIALPRECISION | DstMod.CENTROID) and version.is_vertex:
        return "_pp and _centroid do not exist in vertex shaders"
    if shift and not _is_ps1(version):
        return f"result shifts (_x2, _d2, ...) exist only in ps_1_x, not {version}"
    return None


# --------------------------------------------------------------------------
# Nesting
# --------------------------------------------------------------------------


class Nest(enum.Enum):
    """The kinds of nesting D3D9 limits separately."""

    # Members are singletons: hash by identity (C speed; Enum's own hash is a
    # Python call, and the decoder keys a dict by these in every shader).
    __hash__ = object.__hash__

    LOOP = "loop/rep"
    IF = "if"
    CALL = "call"


# What each block instruction opens.
NEST_OF: dict[Opcode, Nest] = {
    Opcode.LOOP: Nest.LOOP,
    Opcode.REP: Nest.LOOP,
    Opcode.IF: Nest.IF,
    Opcode.IFC: Nest.IF,
}


@dataclass(frozen=True)
class NestingLimits:
    """The deepest nesting a version allows, per kind."""

    loop: int
    if_: int
    call: int

    def of(self, nest: Nest) -> int:
        return {Nest.LOOP: self.loop, Nest.IF: self.if_, Nest.CALL: self.call}[nest]


# D3D9_SEMANTICS 4.3: loop/rep nesting 4 (vs_2_0's documented 1 is a caps
# minimum; DXVK advertises 4 everywhere and so does xlate), dynamic and
# static ``if`` nesting 24 (vs_2_0's 16 is likewise raised to 24), call
# nesting 4 (a chain main -> f1 -> f2 -> f3 -> f4).  ps_2_0 and SM1 have no
# flow control at all (the opcode tables refuse it).  The software profiles
# take the same limits.
NESTING_LIMITS = NestingLimits(loop=4, if_=24, call=4)


def nesting_limits(version: ShaderVersion) -> NestingLimits:
    """The nesting limits of ``version`` (the same for every SM2+ profile)."""
    return NESTING_LIMITS


def nesting_problem(nest: Nest, depth: int, version: ShaderVersion) -> str | None:
    limit = nesting_limits(version).of(nest)
    if depth <= limit:
        return None
    return f"{nest.value} blocks are nested {depth} deep; {version} allows at most {limit}"
