"""One rule of validity (issue 16): the assembler and the decoder agree.

Walks the data of ``xlate/bytecode/validity.py`` and the register tables for
every shader version and builds, for each rule, instructions that keep it
and instructions that break it, as model shaders.  Each is judged twice: its
tokens by the decoder (``decode(encode(shader))``) and its listing by the
assembler (``assemble_bytes(disassemble(shader))``).  Both must accept or
both refuse; where both accept, the listing assembles to the same tokens.
The one documented exception (docs/validity.md): Microsoft's assembler does
not check the sampler operand of the sampling instructions (an
``OperandRule`` with ``assembler`` False), so there the assembler accepts
what the decoder refuses, and only there.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter

import pytest

from xlate.bytecode import decode
from xlate.bytecode.asm import assemble, assemble_bytes
from xlate.bytecode.disasm import disassemble
from xlate.bytecode.encoder import encode
from xlate.bytecode.model import Declaration, DestOperand, Instruction, Shader, SourceOperand
from xlate.bytecode.tables import (BITS, DCL_SAMPLER_TYPE_SHIFT, DST_READ_OPCODES, FULL_MASK, KNOWN_VERSIONS, OPCODES,
                                   REGISTER_FILES, DeclUsage, DstMod, Layout, Opcode, SamplerType, ShaderVersion,
                                   SrcMod)
from xlate.bytecode.validity import NEST_OF, OPERAND_REGISTERS, OPERAND_RULES, WRITTEN_ONLY_BY, nesting_limits
from xlate.errors import AsmError, XlateError

VERSIONS = sorted(KNOWN_VERSIONS, key=lambda v: (v.is_pixel, v.major, v.minor))

# A valid instruction of each opcode an operand rule names (and add/mov for
# the files only some slots may name), in the versions where the body is valid.
TEMPLATES: dict[Opcode, tuple[str, ...]] = {
    Opcode.CALL: ("call l0\nret\nlabel l0\nret",),
    Opcode.LABEL: ("call l0\nret\nlabel l0\nret",),
    Opcode.CALLNZ: ("defb b0, true\ncallnz l0, b0\nret\nlabel l0\nret",),
    Opcode.IF: ("defb b0, true\nif b0\nendif",),
    Opcode.BREAKP: ("defi i0, 1, 0, 0, 0\nsetp_gt p0, c0, c1\nrep i0\nbreakp p0.x\nendrep",),
    Opcode.LOOP: ("defi i0, 1, 0, 0, 0\nloop aL, i0\nendloop",),
    Opcode.REP: ("defi i0, 1, 0, 0, 0\nrep i0\nendrep",),
    Opcode.SETP: ("setp_gt p0, c0, c1",),
    Opcode.MOVA: ("mova a0.x, c0",),
    Opcode.DEF: ("def c0, 1, 2, 3, 4",),
    Opcode.DEFI: ("defi i0, 1, 0, 0, 0",),
    Opcode.DEFB: ("defb b0, true",),
    Opcode.TEX: ("dcl t0\ndcl_2d s0\ntexld r0, t0, s0", "dcl_texcoord0 v0\ndcl_2d s0\ntexld r0, v0, s0",
                 "dcl_2d s0\ntexld r0, c0, s0"),
    Opcode.TEXLDL: ("dcl_2d s0\ntexldl r0, c0, s0",),
    Opcode.TEXLDD: ("dcl_2d s0\ntexldd r0, c0, s0, c1, c2",),
    Opcode.ADD: ("add r0, c0, c1",),
    Opcode.MOV: ("mov r0, c0",),
}


@dataclasses.dataclass
class Verdict:
    walk: str  # the function that built the case
    rule: str  # which table the case comes from
    case: str
    decoded: bool
    assembled: bool


def _judge(walk: str, rule: str, shader: Shader) -> Verdict:
    tokens = encode(shader)
    try:
        decode(tokens)
        decoded = True
    except XlateError:
        decoded = False
    text = disassemble(shader, header=False)
    try:
        again = assemble_bytes(text)
        assembled = True
    except AsmError:
        assembled = False
    if decoded and assembled:
        assert again == tokens, text
    return Verdict(walk, rule, text.strip().replace("\n", " | "), decoded, assembled)


@functools.lru_cache(maxsize=None)
def _baseline(version: ShaderVersion, body: str) -> Shader | None:
    """``body`` assembled in ``version``, if both sides accept it."""
    try:
        shader = assemble(f"{version}\n{body}\n")
        decode(encode(shader))
    except XlateError:
        return None
    return shader


def _operands(inst: Instruction) -> list:
    return ([inst.dst] if inst.dst is not None else []) + list(inst.srcs)


def _with_operand(inst: Instruction, slot: int, **change) -> Instruction:
    operands = _operands(inst)
    operands[slot] = dataclasses.replace(operands[slot], **change)
    if inst.dst is not None:
        return dataclasses.replace(inst, dst=operands[0], srcs=tuple(operands[1:]))
    return dataclasses.replace(inst, srcs=tuple(operands))


def _replace(shader: Shader, at: int, inst: Instruction) -> Shader:
    items = list(shader.items)
    items[at] = inst
    return Shader(shader.version, tuple(items))


def _first(shader: Shader, opcode: Opcode) -> int:
    return next(k for k, item in enumerate(shader.items) if getattr(item, "opcode", None) == opcode)


def _files(version: ShaderVersion):
    return sorted(REGISTER_FILES[version], key=int)


def operand_cases():
    """Every register file in every operand slot of the opcodes with operand
    rules (and add/mov: samplers and labels only in their slots)."""
    for version in VERSIONS:
        for opcode, bodies in TEMPLATES.items():
            shader = next((s for s in (_baseline(version, b) for b in bodies) if s is not None), None)
            if shader is None:
                continue
            at = _first(shader, opcode)
            inst = shader.items[at]
            for slot in range(len(_operands(inst))):
                for rtype in _files(version):
                    if inst.opcode is Opcode.DCL:
                        continue
                    yield f"operand {opcode.name} {slot}", _replace(shader, at, _with_operand(inst, slot, type=rtype,
                                                                                              index=0))


def written_cases():
    """Each file only some opcodes write, as the destination of every other
    opcode that writes one."""
    for rtype, writers in WRITTEN_ONLY_BY.items():
        for version in VERSIONS:
            if rtype not in REGISTER_FILES[version]:
                continue
            for opcode, info in OPCODES.items():
                if (opcode in writers or opcode in DST_READ_OPCODES or info.layout is not Layout.OPERANDS
                        or not info.allowed_in(version) or not info.forms_for(version)[0].has_dst):
                    continue
                srcs = ", ".join(f"c{k}" for k in range(info.forms_for(version)[0].nsrc))
                shader = _baseline(version, f"{info.mnemonic} r0{', ' if srcs else ''}{srcs}")
                if shader is None:
                    continue
                inst = shader.items[0]
                yield f"written {rtype.name}", _replace(shader, 0, _with_operand(inst, 0, type=rtype, index=0))


# (body, opcode, slot) where each source modifier is tried on each file.
MODIFIER_SITES = (("add r0, c0, c1", Opcode.ADD, 1), ("defb b0, true\nif b0\nendif", Opcode.IF, 0),
                  ("texld r0, t0", Opcode.TEX, 1), ("texcrd r0.xyz, t0", Opcode.TEXCOORD, 1))


def modifier_cases():
    for version in VERSIONS:
        for body, opcode, slot in MODIFIER_SITES:
            shader = _baseline(version, body)
            if shader is None:
                continue
            at = _first(shader, opcode)
            for rtype in _files(version):
                for mod in SrcMod:
                    inst = _with_operand(shader.items[at], slot, type=rtype, index=0, modifier=mod)
                    yield f"source modifier {mod.name}", _replace(shader, at, inst)


RESULT_SITES = (("add r0, c0, c1", Opcode.ADD), ("def c0, 1, 2, 3, 4", Opcode.DEF), ("dcl_texcoord0 v0", Opcode.DCL),
                ("dcl t0", Opcode.DCL), ("dcl_2d s0", Opcode.DCL))


def result_cases():
    for version in VERSIONS:
        for body, opcode in RESULT_SITES:
            shader = _baseline(version, body)
            if shader is None:
                continue
            at = _first(shader, opcode)
            for mods in range(8):
                for shift in (0, 1, -1):
                    inst = _with_operand(shader.items[at], 0, modifiers=DstMod(mods), shift=shift)
                    yield "result modifier", _replace(shader, at, inst)


def dcl_cases():
    raws = {"usage": BITS.PARAM | DeclUsage.TEXCOORD, "plain": BITS.PARAM,
            "sampler": BITS.PARAM | (SamplerType.TEX2D << DCL_SAMPLER_TYPE_SHIFT)}
    for version in VERSIONS:
        if not OPCODES[Opcode.DCL].allowed_in(version):
            continue
        for rtype in _files(version):
            for raw in raws.values():
                inst = Instruction(Opcode.DCL, DestOperand(rtype, 0, FULL_MASK), declaration=Declaration(raw))
                yield "dcl", Shader(version, (inst,))


def nesting_cases():
    openers = {Opcode.REP: "defi i0, 1, 0, 0, 0\nrep i0\nendrep", Opcode.LOOP: "defi i0, 1, 0, 0, 0\nloop aL, i0\nendloop",
               Opcode.IF: "defb b0, true\nif b0\nendif"}
    for version in VERSIONS:
        for opcode, body in openers.items():
            shader = _baseline(version, body)
            if shader is None:
                continue
            define, opener, closer = shader.items
            limit = nesting_limits(version).of(NEST_OF[opcode])
            for depth in (limit, limit + 1):
                yield f"nesting {opcode.name}", Shader(version, (define,) + (opener,) * depth + (closer,) * depth)


def redeclaration_cases():
    pairs = (("dcl_texcoord0 v0.xy", "dcl_texcoord1 v0.xy"), ("dcl_texcoord0 v0.xy", "dcl_texcoord1 v0.zw"),
             ("dcl_texcoord0 v0", "dcl_texcoord0 v1"), ("dcl_texcoord0 v0", "dcl_texcoord1 v1"),
             ("dcl_position o0", "dcl_position o1"), ("dcl_texcoord0 o1.xy", "dcl_texcoord1 o1.zw"),
             ("dcl_position v0", "dcl_normal v0"), ("dcl t0.xy", "dcl t0.zw"), ("dcl t0", "dcl t0"),
             ("dcl_2d s0", "dcl_cube s0"))
    for version in VERSIONS:
        for first, second in pairs:
            a, b = _baseline(version, first), _baseline(version, second)
            if a is not None and b is not None:
                yield "redeclaration", Shader(version, a.items + b.items)


WALKS = (operand_cases, written_cases, modifier_cases, result_cases, dcl_cases, nesting_cases, redeclaration_cases)


def _documented(verdict: Verdict) -> bool:
    """The assembler accepts and the decoder refuses where Microsoft's
    assembler does not check (``assembler=False``): the sampler slot."""
    laxer = {f"operand {r.opcode.name} {r.slot}" for r in OPERAND_RULES if not r.assembler}
    return verdict.rule in laxer and verdict.assembled and not verdict.decoded


@functools.lru_cache(maxsize=1)
def verdicts() -> tuple[Verdict, ...]:
    return tuple(_judge(walk.__name__, rule, shader) for walk in WALKS for rule, shader in walk())


def test_every_rule_has_a_walk():
    # Each opcode an operand rule names has a template, so a new rule cannot go unchecked.
    assert set(OPERAND_REGISTERS) <= set(TEMPLATES)
    rules = Counter(v.rule for v in verdicts())
    for r in OPERAND_RULES:
        assert rules[f"operand {r.opcode.name} {r.slot}"] > 0, r
    for rtype in WRITTEN_ONLY_BY:
        assert rules[f"written {rtype.name}"] > 0


@pytest.mark.parametrize("walk", [w.__name__ for w in WALKS])
def test_the_assembler_refuses_what_the_decoder_refuses(walk):
    found = [v for v in verdicts() if v.walk == walk]
    assert found
    refused = [v for v in found if not v.decoded]
    assert refused, f"{walk}: no case breaks a rule"  # the walk tests something
    if walk != "written_cases":  # (its baselines, with r0 written, were checked by _baseline)
        assert any(v.decoded for v in found), f"{walk}: no case keeps the rule"
    disagree = [v for v in found if v.decoded != v.assembled and not _documented(v)]
    assert not disagree, "\n".join(f"{v.rule}: {v.case}: decoder {'accepts' if v.decoded else 'refuses'}, "
                                   f"assembler {'accepts' if v.assembled else 'refuses'}" for v in disagree[:20])


def test_the_documented_exception_is_the_sampler_slot_only():
    laxer = [v for v in verdicts() if _documented(v)]
    assert {v.rule for v in laxer} == {f"operand {r.opcode.name} {r.slot}" for r in OPERAND_RULES if not r.assembler}
