"""What Microsoft's assembler refuses, as small predicates.

Each function returns ``None`` when the construct is allowed, or the reason
(a plain sentence) it is not; the parser attaches the line and column.  The
rules come from Wine's assembler tests (``wine/asm_failures.jsonl`` and what
``asm_pairs.jsonl`` shows Microsoft's assembler accepting) and the register
and modifier tables.  The operand-type and source-modifier rules are
``validity.py``'s, shared with the decoder; the decoder applies every one,
this module those too, except the ones known to be laxer in Microsoft's
assembler (``OperandRule.assembler`` False: the sampler slot), so the
assembler never refuses what the decoder accepts and refuses all the
decoder refuses but those (``tests/test_validity_agreement.py`` walks the
tables and checks both sides).

Where Microsoft's assembler is laxer than the documentation, these rules
follow the assembler: labels l0-l2047 in every version, no index check on a
relatively addressed register, any result shift in every ps_1_x, ``_x2``
sources in ps_1_1-1_3.
"""

from __future__ import annotations

from ..tables import (
    BITS,
    OUTPUT,
    TEXTURE,
    CONST_FILE_BASE,
    DEF_REGISTER,
    DST_READ_OPCODES,
    DstMod,
    Layout,
    Opcode,
    OpcodeInfo,
    RegisterType,
    ShaderVersion,
    SrcMod,
    register_file,
    register_name,
)
from ..validity import (  # noqa: F401 (the parser's)
    NEST_OF,
    Nest,
    dcl_problem,
    dcl_spelling,
    nesting_problem,
    operand_problem,
    redeclaration_problem,
    result_modifier_problem,
    semantic_linked,
    written_problem,
)
from ..validity import src_modifier_problem as _src_modifier_problem

R = RegisterType

# The register-number field holds 11 bits: the bound on any index, and the
# one Microsoft's assembler applies to labels and relative addressing.
FIELD_LIMIT = BITS.REG_NUM_MASK + 1


def _is_ps1(version: ShaderVersion) -> bool:
    return version.is_pixel and version.major == 1


def register_problem(version: ShaderVersion, rtype: RegisterType, index: int,
                     *, written: bool | None, relative: bool) -> str | None:
    """Does the register exist here, and may it be written (``written``),
    read (``not written``), or only named (``None``: dcl, def and texkill
    operands)?"""
    rf = register_file(version, rtype)
    if rf is None:
        return f"register {register_name(version, rtype, index)} does not exist in {version}"
    limit = FIELD_LIMIT if relative or rtype == R.LABEL else rf.count
    if index >= limit:
        last = rf.prefix + str(limit - 1) if rf.numbered else rf.prefix
        return f"register {register_name(version, rtype, index)} does not exist in {version} (the last one is {last})"
    if written and not rf.writable:
        return f"{register_name(version, rtype, index)} cannot be written in {version}"
    if written is False and not rf.readable:
        return f"{register_name(version, rtype, index)} cannot be read in {version}"
    return None


def operand_type_problem(opcode: Opcode, slot: int, rtype: RegisterType, name: str, mnemonic: str) -> str | None:
    """The operand rules of ``validity.py`` that Microsoft's assembler enforces."""
    return operand_problem(opcode, slot, rtype, name, mnemonic, assembler=True)


def destination_access(info: OpcodeInfo) -> bool | None:
    """``written`` for ``register_problem``: True for a real destination,
    None where the destination token only names a register (dcl, def,
    texkill), as the decoder treats it."""
    if info.layout is not Layout.OPERANDS or info.opcode in DST_READ_OPCODES:
        return None
    return True


def relative_problem(version: ShaderVersion, rtype: RegisterType, name: str, *, dst: bool) -> str | None:
    """May register file ``rtype`` be indexed by an address register here?"""
    if dst:
        ok = version.is_vertex and version.major >= 3 and rtype == OUTPUT
    elif version.is_vertex:
        ok = rtype in CONST_FILE_BASE or (version.major >= 3 and rtype == R.INPUT)
    else:
        ok = version.major >= 3 and rtype == R.INPUT
    if ok:
        return None
    role = "destinations" if dst else "sources"
    return f"{name} registers cannot be relatively addressed as {role} in {version}"


def address_problem(version: ShaderVersion, rtype: RegisterType, name: str, swizzle_text: str | None) -> str | None:
    """Is ``name`` (with its swizzle as written) a valid address register?"""
    if rtype == R.LOOP:
        # Microsoft's assembler refuses any swizzle on aL (Wine: "v[aL.x + 12]").
        # Real tokens may still hold one, which the disassembler writes with
        # all four letters (c3[aL.yyyy], an extension); that form is read back.
        if swizzle_text is None or len(swizzle_text) == 4:
            return None
        return f"aL is a scalar register and takes no swizzle (.{swizzle_text})"
    if rtype != R.ADDR or version.is_pixel:
        return f"only a0 or aL can index a register, not {name}"
    if version.major == 1 and (swizzle_text or "").lower() != "x":
        return f"{version} indexes registers with a0.x only"
    return None


def src_modifier_problem(version: ShaderVersion, mod: SrcMod, rtype: RegisterType, opcode: Opcode, spelling: str) -> str | None:
    """``validity.src_modifier_problem``: the runtime and the assembler agree."""
    return _src_modifier_problem(version, mod, rtype, opcode, spelling)


class WholeShader:
    """The rules over more than one instruction, applied as the decoder
    applies them: block nesting (``validity.nesting_problem``) and
    declarations (each register's components declared once; where semantics
    link stages, one register per semantic)."""

    def __init__(self, version: ShaderVersion):
        self.version = version
        self.open: list[Nest | None] = []
        self.depth = dict.fromkeys(Nest, 0)
        self.declared: dict[tuple[RegisterType, int], int] = {}
        self.semantics: dict[int, int] = {}

    def block_problem(self, info: OpcodeInfo) -> str | None:
        """Why ``info``'s instruction may not open a block here, or None
        (closers close; an unmatched closer is left to the structure checks)."""
        if info.block == 1:
            nest = NEST_OF.get(info.opcode)
            self.open.append(nest)
            if nest is not None:
                self.depth[nest] += 1
                return nesting_problem(nest, self.depth[nest], self.version)
        elif info.block == -1 and self.open:
            nest = self.open.pop()
            if nest is not None:
                self.depth[nest] -= 1
        return None

    def declaration_problem(self, dst, raw: int, semantic: str) -> str | None:
        """Why the dcl of ``dst`` (usage token ``raw``, written ``semantic``)
        repeats an earlier one, or None."""
        version = self.version
        name = register_name(version, dst.type, dst.index)
        key = (dst.type, dst.index)
        declared = self.declared.get(key, 0)
        if declared & dst.write_mask:
            return redeclaration_problem(name, None, None)
        self.declared[key] = declared | dst.write_mask
        if semantic_linked(version, dst.type):
            other = self.semantics.setdefault(raw & 0x000F000F, dst.index)  # usage and usage index
            if other != dst.index:
                return redeclaration_problem(name, semantic, register_name(version, dst.type, other))
        return None


def coissue_problem(version: ShaderVersion) -> str | None:
    if _is_ps1(version):
        return None
    return f"co-issue ('+') exists only in ps_1_x, not {version}"


def predication_problem(version: ShaderVersion) -> str | None:
    if register_file(version, R.PREDICATE) is None:
        return f"predication does not exist in {version}"
    return None


def predicable_problem(info: OpcodeInfo, spelled: str) -> str | None:
    return None if info.predicable else f"'{spelled}' cannot be predicated"
