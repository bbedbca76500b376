"""The project's own shader corpus (``corpus/<version>/<name>.asm``).

Four kinds of test:

* every file assembles, its folder names the version its text declares, its
  tokens decode, and decode -> encode gives the same bytes;
* decode -> disassemble -> assemble gives the same bytes (the disassembler's
  contract with the assembler);
* each shader is well defined enough to execute and compare: no temp,
  address, predicate or ps_1_1-1_3 texture register component is read
  before some instruction earlier in the file (or in a subroutine it calls)
  has written it, every required output is written, and every sampler read
  in SM2+ is declared;
* the corpus as a whole covers the bytecode: every version, every opcode of
  ``tables.OPCODES`` in a version that accepts it, and the special forms
  listed in ``REQUIRED`` below.  The figures are printed in the run's
  "corpus summary" section.
"""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from xlate.bytecode import decode, encode
from xlate.bytecode.asm import assemble, assemble_bytes
from xlate.bytecode.model import Instruction, Shader, SourceOperand
from xlate.bytecode.tables import (
    FULL_MASK,
    IDENTITY_SWIZZLE,
    KNOWN_VERSIONS,
    OPCODES,
    OUTPUT,
    PSEUDO_OPCODES,
    TEXTURE,
    Comparison,
    DeclUsage,
    DstMod,
    Opcode,
    RegisterType,
    SamplerType,
    ShaderVersion,
    SrcMod,
    TexControl,
    swizzle_components,
)

try:
    from xlate.bytecode.disasm import disassemble, format_instruction
except ImportError:  # the disassembler is optional for this test module
    disassemble = format_instruction = None

R = RegisterType
O = Opcode

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"
SOURCES = sorted(p for p in CORPUS.rglob("*.asm") if (CORPUS / "build") not in p.parents)

# vs_1_0 / ps_1_0 are decoded as 1_1 and need no shader of their own.
REQUIRED_VERSIONS = sorted(
    (v for v in KNOWN_VERSIONS if not (v.major == 1 and v.minor == 0)),
    key=lambda v: (v.is_pixel, v.key),
)


def _id(path: Path) -> str:
    return str(path.relative_to(CORPUS))


@functools.lru_cache(maxsize=None)
def built(path: Path) -> tuple[bytes, Shader]:
    """(assembled bytes, decoded shader) for one corpus file."""
    data = assemble_bytes(path.read_text(encoding="utf-8"), source=_id(path))
    return data, decode(data)


def test_corpus_is_not_empty():
    assert SOURCES, f"no .asm files under {CORPUS}"


# --------------------------------------------------------------------------
# Assembly and round trips
# --------------------------------------------------------------------------


def header_comment(text: str) -> str:
    """The comment lines before the version line."""
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(("//", ";")):
            break
        lines.append(stripped)
    return "\n".join(lines)


@pytest.mark.parametrize("path", SOURCES, ids=_id)
def test_assembles_and_round_trips(path: Path):
    text = path.read_text(encoding="utf-8")
    assert text.lstrip().startswith("//"), f"{_id(path)}: start with a header comment saying what it exercises"
    header = header_comment(text)
    assert "Exercises:" in header, f"{_id(path)}: the header comment should have an 'Exercises:' line"
    shader = assemble(text, source=_id(path))
    data = encode(shader)
    decoded = decode(data)
    assert decoded.version == shader.version
    assert encode(decoded) == data, "decode -> encode is not byte-identical"
    assert decoded.items == shader.items, "decode(encode(assemble(text))) differs from assemble(text)"
    assert path.parent.name == shader.version.name, (
        f"{_id(path)} declares {shader.version.name} but lives in {path.parent.name}/"
    )


@pytest.mark.skipif(disassemble is None, reason="xlate.bytecode.disasm is not available")
@pytest.mark.parametrize("path", SOURCES, ids=_id)
def test_disassembly_reassembles_identically(path: Path):
    data, shader = built(path)
    listing = disassemble(shader)
    again = assemble_bytes(listing, source=f"disasm({_id(path)})")
    assert again == data, f"decode -> disassemble -> assemble changed the bytes of {_id(path)}:\n{listing}"


# --------------------------------------------------------------------------
# Well-definedness (what a GPU run compared with an interpreter needs)
# --------------------------------------------------------------------------

_PER_COMPONENT = {
    O.MOV, O.ADD, O.SUB, O.MAD, O.MUL, O.MIN, O.MAX, O.SLT, O.SGE, O.FRC, O.ABS,
    O.LRP, O.CMP, O.CND, O.DSX, O.DSY, O.MOVA, O.SETP,
}
_SCALAR = {O.RCP, O.RSQ, O.EXP, O.LOG, O.EXPP, O.LOGP, O.POW, O.IFC, O.BREAKC}
_MATRIX_ROWS = {O.M4x4: (4, 4), O.M4x3: (4, 3), O.M3x4: (3, 4), O.M3x3: (3, 3), O.M3x2: (3, 2)}
# ps_1_1-1_3 texture-address ops: components of t(n) they read.
_PS1_TEX_READS = {
    O.TEXBEM: (0, 1), O.TEXBEML: (0, 1, 2), O.TEXREG2AR: (3, 0), O.TEXREG2GB: (1, 2),
    O.TEXREG2RGB: (0, 1, 2), O.TEXM3x2PAD: (0, 1, 2), O.TEXM3x2TEX: (0, 1, 2),
    O.TEXM3x2DEPTH: (0, 1, 2), O.TEXM3x3PAD: (0, 1, 2), O.TEXM3x3TEX: (0, 1, 2),
    O.TEXM3x3SPEC: (0, 1, 2), O.TEXM3x3VSPEC: (0, 1, 2), O.TEXM3x3: (0, 1, 2),
    O.TEXDP3: (0, 1, 2), O.TEXDP3TEX: (0, 1, 2),
}
# ps_1_1-1_3 ops that do not write their t(m) destination.
_PS1_NO_WRITE = {O.TEXM3x2PAD, O.TEXM3x3PAD, O.TEXM3x2DEPTH}
_SAMPLER_DIMS = {SamplerType.TEX2D: 2, SamplerType.TEX1D: 1, SamplerType.CUBE: 3, SamplerType.VOLUME: 3}


def _mask(inst: Instruction) -> tuple[int, ...]:
    return inst.dst.components if inst.dst is not None else (0,)


def _tracked(version: ShaderVersion, rtype: RegisterType) -> bool:
    """Register files that hold nothing until the shader writes them."""
    if rtype in (R.TEMP, R.PREDICATE):
        return True
    if rtype == R.ADDR:  # a0 in VS; t# in ps_1_1-1_3 is written by tex ops
        return version.is_vertex or (version.major == 1 and version.minor < 4)
    return False


def _sampler_types(shader: Shader) -> dict[int, SamplerType]:
    out = {}
    for inst in shader.instructions:
        if inst.opcode is O.DCL and inst.dst.type == R.SAMPLER:
            out[inst.dst.index] = inst.declaration.sampler_type
    return out


def _slots_read(inst: Instruction, k: int, version: ShaderVersion, samplers) -> set[int] | None:
    """Result slots (pre-swizzle) of source ``k`` that ``inst`` reads; None = not a data read."""
    op = inst.opcode
    src = inst.srcs[k]
    if src.type == R.SAMPLER:
        return None
    if op in _PER_COMPONENT:
        return set(_mask(inst))
    if op is O.SGN:
        return set(_mask(inst)) if k == 0 else None  # SM2 scratch operands
    if op in _SCALAR:
        return {0}
    if op is O.SINCOS:
        return {0} if k == 0 else None
    if op is O.DP3 or op is O.CRS:
        return {0, 1, 2}
    if op is O.DP4:
        return {0, 1, 2, 3}
    if op is O.DP2ADD:
        return {0, 1} if k < 2 else {0}
    if op is O.NRM:
        return {0, 1, 2} | set(_mask(inst))
    if op is O.LIT:
        return {0, 1, 3}
    if op is O.DST:
        return {1, 2} if k == 0 else {1, 3}
    if op in _MATRIX_ROWS:
        return set(range(_MATRIX_ROWS[op][0]))
    if op is O.BEM:
        return {0, 1}
    if op in (O.CALLNZ, O.IF, O.BREAKP):
        return {0} if src.type == R.PREDICATE else None
    if op in (O.TEX, O.TEXLDL, O.TEXLDD):
        if version.major == 1:  # ps_1_4 texld r#, src: xyz (+ z/w for _dz/_dw)
            return {0, 1, 2}
        sampler = next((s for s in inst.srcs if s.type == R.SAMPLER), None)
        dims = _SAMPLER_DIMS.get(samplers.get(sampler.index) if sampler else None, 3)
        if k == 0:
            slots = set(range(dims))
            if op is O.TEXLDL or (op is O.TEX and inst.tex_control in (TexControl.PROJECT, TexControl.BIAS)):
                slots.add(3)
            return slots
        return set(range(dims))  # texldd gradients
    if op in _PS1_TEX_READS:
        return set(_PS1_TEX_READS[op])
    return set(_mask(inst))


def _components_read(src: SourceOperand, slots: set[int]) -> set[int]:
    sw = swizzle_components(src.swizzle)
    comps = {sw[s] for s in slots}
    if src.modifier is SrcMod.DZ:
        comps.add(2)
    elif src.modifier is SrcMod.DW:
        comps.add(3)
    return comps


@dataclass
class Lint:
    version: ShaderVersion
    problems: list[str] = field(default_factory=list)

    def add(self, inst: Instruction, text: str) -> None:
        where = f"offset 0x{inst.offset:x}" if inst.offset >= 0 else "instruction"
        if format_instruction is not None:
            where += f" `{format_instruction(inst, self.version).strip()}`"
        else:
            where += f" ({inst.info.mnemonic})"
        self.problems.append(f"{where}: {text}")


def _read_port_limits(version: ShaderVersion) -> dict[RegisterType, int]:
    """How many different registers of a file one instruction may read
    (the "read ports" of the register tables in the D3D9 docs; only the
    limits fxc itself always respects are checked)."""
    if version.is_vertex:
        return {R.INPUT: 1, R.CONST: 1} if version.major == 1 else {R.INPUT: 1}
    if version.major == 1:
        return {R.INPUT: 2, R.CONST: 2} if version.minor < 4 else {R.INPUT: 2, R.CONST: 2, TEXTURE: 1}
    return {R.INPUT: 1, TEXTURE: 1} if version.major == 2 else {R.INPUT: 1}


def _subroutine_writes(shader: Shader) -> dict[int, set[tuple]]:
    """Registers components written by each label's body, calls followed."""
    bodies: dict[int, list[Instruction]] = defaultdict(list)
    current = None
    for inst in shader.instructions:
        if inst.opcode is O.LABEL:
            current = inst.srcs[0].index
            continue
        if current is not None:
            bodies[current].append(inst)
    direct = {label: {(i.dst.type, i.dst.index, c) for i in body if i.dst is not None
                      and i.opcode not in (O.DCL, O.DEF, O.DEFI, O.DEFB) for c in i.dst.components}
              for label, body in bodies.items()}
    calls = {label: {i.srcs[0].index for i in body if i.opcode in (O.CALL, O.CALLNZ)}
             for label, body in bodies.items()}
    result = {}
    for label in bodies:
        seen, todo, acc = set(), [label], set()
        while todo:
            cur = todo.pop()
            if cur in seen:
                continue
            seen.add(cur)
            acc |= direct.get(cur, set())
            todo.extend(calls.get(cur, ()))
        result[label] = acc
    return result


def lint(shader: Shader) -> list[str]:
    version = shader.version
    out = Lint(version)
    ports = _read_port_limits(version)
    samplers = _sampler_types(shader)
    sub_writes = _subroutine_writes(shader)
    written: set[tuple[RegisterType, int, int]] = set()
    ever_written: set[tuple[RegisterType, int, int]] = set()
    ps1 = version.is_pixel and version.major == 1
    ps11_13 = ps1 and version.minor < 4
    defi = {i.dst.index: i.int_values for i in shader.instructions if i.opcode is O.DEFI}
    loops: list[tuple[int, ...] | None] = []  # aL values of each open loop (None: not a defi)

    def need(inst, rtype, index, comps, what):
        if not _tracked(version, rtype):
            return
        missing = sorted(c for c in comps if (rtype, index, c) not in written)
        if missing:
            name = shader.register_name(rtype, index)
            out.add(inst, f"reads {name}.{''.join('xyzw'[c] for c in missing)} ({what}) before anything writes it")

    for inst in shader.instructions:
        op = inst.opcode
        if op is O.DEF and ps1 and any(not -1.0 <= x <= 1.0 for x in inst.float_values):
            out.add(inst, "ps_1_x clamps constants to [-1, 1]; define values in that range")
        if op in (O.DCL, O.DEF, O.DEFI, O.DEFB, O.LABEL):
            continue
        # -- reads
        per_file = Counter(rtype for rtype, _ in {(s.type, s.index) for s in inst.srcs if s.relative is None})
        for rtype, limit in ports.items():
            if per_file[rtype] > limit:
                name = {R.INPUT: "v#", R.CONST: "c#", TEXTURE: "t#"}[rtype]
                out.add(inst, f"reads {per_file[rtype]} different {name} registers; "
                              f"{version} allows {limit} per instruction")
        for k, src in enumerate(inst.srcs):
            slots = _slots_read(inst, k, version, samplers)
            if slots is not None:
                need(inst, src.type, src.index, _components_read(src, slots), f"source {k}")
            if src.relative is not None and src.relative.type == R.ADDR and version.is_vertex:
                need(inst, R.ADDR, 0, {src.relative.component}, "relative address")
            if src.type == R.SAMPLER and version.major >= 2 and src.index not in samplers:
                out.add(inst, f"samples s{src.index}, which has no dcl")
        if inst.predicate is not None:
            pred = inst.predicate
            sw = swizzle_components(pred.swizzle)
            need(inst, R.PREDICATE, 0, {sw[c] for c in _mask(inst)}, "predicate")
        if op is O.TEXKILL and not ps11_13:
            need(inst, inst.dst.type, inst.dst.index,
                 {0, 1, 2} if ps1 else set(inst.dst.components), "texkill test")
        if op is O.TEXDEPTH:
            need(inst, inst.dst.type, inst.dst.index, {0, 1}, "texdepth ratio")
        # -- writes
        if op in (O.CALL, O.CALLNZ):
            written |= sub_writes.get(inst.srcs[0].index, set())
        if op is O.LOOP:
            count, start, step = defi.get(inst.srcs[1].index, (None, 0, 0, 0))[:3]
            loops.append(None if count is None else tuple(start + k * step for k in range(count)))
        elif op is O.ENDLOOP:
            loops.pop()
        if op is O.PHASE:  # alpha written in phase 1 does not survive
            written = {w for w in written if not (w[0] == R.TEMP and w[2] == 3)}
        dst = inst.dst
        if dst is None or op in (O.TEXKILL, O.TEXDEPTH) or (ps11_13 and op in _PS1_NO_WRITE):
            continue
        comps = set(dst.components)
        if op is O.TEXCOORD and version.minor == 4 and ps1:
            comps.discard(3)  # texcrd leaves the fourth channel undefined
            if inst.srcs[0].modifier is SrcMod.DW and 3 in set(swizzle_components(inst.srcs[0].swizzle)[:3]):
                comps.discard(2)  # and the third for .xyw_dw
        indices = [dst.index]
        if dst.relative is not None:  # o[aL + n]: every value aL takes in the innermost loop
            values = loops[-1] if dst.relative.type == R.LOOP and loops else None
            indices = [dst.index + a for a in values] if values is not None else list(range(dst.index, 16))
        for index in indices:
            for c in comps:
                written.add((dst.type, index, c))
                ever_written.add((dst.type, index, c))
        if op is O.SINCOS and version.major == 2:  # SM2: x/y/z outside the mask become undefined
            for c in {0, 1, 2} - comps:
                written.discard((dst.type, dst.index, c))

    # -- outputs
    def covered(rtype, index, comps):
        return all((rtype, index, c) in ever_written for c in comps)

    if version.is_vertex and version.major < 3:
        if not covered(R.RASTOUT, 0, range(4)):
            out.problems.append("oPos is not fully written")
    elif version.is_vertex:
        for inst in shader.instructions:
            if inst.opcode is O.DCL and inst.dst.type == OUTPUT:
                if not covered(OUTPUT, inst.dst.index, inst.dst.components):
                    out.problems.append(f"declared output o{inst.dst.index}{_masktext(inst.dst.write_mask)} "
                                        f"({inst.declaration.usage.name}) is not fully written")
    elif ps1:
        if not covered(R.TEMP, 0, range(4)):
            out.problems.append("r0 (the ps_1_x colour output) is not fully written")
    else:
        targets = {w[1] for w in ever_written if w[0] == R.COLOROUT}
        if 0 not in targets:
            out.problems.append("oC0 is never written")
        for t in sorted(targets):
            if not covered(R.COLOROUT, t, range(4)):
                out.problems.append(f"oC{t} is only partly written")
    return out.problems


def _masktext(mask: int) -> str:
    return "" if mask == FULL_MASK else "." + "".join("xyzw"[i] for i in range(4) if mask >> i & 1)


@pytest.mark.parametrize("path", SOURCES, ids=_id)
def test_shader_is_well_defined(path: Path):
    _, shader = built(path)
    problems = lint(shader)
    assert not problems, f"{_id(path)}:\n  " + "\n  ".join(problems)


def test_lint_catches_a_read_of_an_unwritten_temp():
    shader = assemble("vs_2_0\ndcl_position v0\nadd r1, r0, v0\nmov oPos, r1\n")
    assert any("r0.xyzw" in p for p in lint(shader))


def test_lint_checks_read_ports():
    text = "vs_1_1\ndcl_position v0\ndcl_normal v1\nadd r0, v0, v1\nmad oPos, r0, c0, c1\n"
    problems = lint(decode(encode(assemble(text))))
    assert any("2 different v# registers" in p for p in problems)
    assert any("2 different c# registers" in p for p in problems)


def test_lint_knows_ps14_phase_drops_alpha():
    text = "ps_1_4\ntexld r1, t1\nphase\ntexld r2, t2\nmul r0, r1, r2\n"
    assert any("r1.w" in p for p in lint(assemble(text)))


def test_lint_flags_ps1_constants_outside_the_clamp_range():
    text = "ps_1_1\ndef c0, 2, 0, 0, 1\nmov r0, c0\n"
    assert any("[-1, 1]" in p for p in lint(assemble(text)))


def test_lint_knows_sm2_sincos_clobbers_its_unmasked_components():
    text = (
        "vs_2_0\ndef c0, 1, 1, 1, 1\ndcl_position v0\nmov r0, c0\n"
        "sincos r0.y, c0.x, c1, c2\nmov oPos, r0\n"
    )
    assert any("r0.xz" in p for p in lint(assemble(text)))


# --------------------------------------------------------------------------
# Coverage
# --------------------------------------------------------------------------

_COMPARISON_OPS = {O.IFC: "ifc", O.BREAKC: "breakc", O.SETP: "setp"}
_REAL_COMPARISONS = [c for c in Comparison if c not in (Comparison.NEVER, Comparison.ALWAYS)]
_PS1_MODS = {SrcMod.NEG, SrcMod.BIAS, SrcMod.BIASNEG, SrcMod.SIGN, SrcMod.SIGNNEG, SrcMod.COMP,
             SrcMod.X2, SrcMod.X2NEG, SrcMod.DZ, SrcMod.DW}
_SM2_MODS = {SrcMod.NEG, SrcMod.ABS, SrcMod.ABSNEG}
_BLOCK_OPEN = {O.LOOP: "loop", O.REP: "rep", O.IF: "if", O.IFC: "if"}
_ORDER = {v: i for i, v in enumerate(REQUIRED_VERSIONS)}


def _tex_variant(inst: Instruction) -> str | None:
    if inst.opcode is O.TEX and inst.srcs and len(inst.srcs) == 2:
        return inst.tex_control.mnemonic
    return {O.TEXLDL: "texldl", O.TEXLDD: "texldd"}.get(inst.opcode)


@dataclass
class Coverage:
    files: Counter = field(default_factory=Counter)  # version name -> files
    opcodes: dict = field(default_factory=lambda: defaultdict(set))  # opcode -> version names
    features: dict = field(default_factory=lambda: defaultdict(set))  # feature -> file ids

    def note(self, feature: str, where: str) -> None:
        self.features[feature].add(where)


def _walk(shader: Shader, where: str, cov: Coverage) -> None:
    v = shader.version
    vn = v.name
    ps1 = v.is_pixel and v.major == 1
    samplers = _sampler_types(shader)
    cov.files[vn] += 1
    stack: list[str] = []
    in_sub = False
    for inst in shader.instructions:
        op = inst.opcode
        cov.opcodes[op].add(vn)
        # texture sampling variants x sampler dimensionality
        variant = _tex_variant(inst)
        if variant:
            sampler = next(s for s in inst.srcs if s.type == R.SAMPLER)
            st = samplers.get(sampler.index)
            cov.note(f"{variant} {st.asm if isinstance(st, SamplerType) else st}", where)
        if op is O.TEX:
            form = {0: "tex t# (ps_1_1-1_3)", 1: "texld r#, src (ps_1_4)"}.get(len(inst.srcs))
            if form:
                cov.note(form, where)
        if op is O.TEXCOORD:
            cov.note("texcrd (ps_1_4)" if inst.srcs else "texcoord (ps_1_1-1_3)", where)
        if op is O.TEXKILL:
            cov.note("texkill ps_1_1-1_3" if ps1 and v.minor < 4 else
                     "texkill ps_1_4" if ps1 else "texkill sm2+", where)
        if op in _COMPARISON_OPS:
            cov.note(f"{_COMPARISON_OPS[op]}{inst.comparison.suffix}", where)
        if op is O.SINCOS:
            cov.note(f"sincos {len(inst.srcs)}-source form", where)
        if op is O.SGN:
            cov.note(f"sgn {len(inst.srcs)}-source form", where)
        if op is O.MOVA and inst.dst.write_mask not in (1, 2, 4, 8):
            cov.note("mova multi-component mask", where)
        if op is O.MOV and inst.dst is not None and inst.dst.type == R.ADDR and v.is_vertex:
            cov.note("mov a0 (vs_1_1)", where)
        # modifiers and shifts
        for src in inst.srcs:
            if src.modifier is SrcMod.NONE:
                continue
            if ps1:
                cov.note(f"ps_1_x src {src.modifier.name}", where)
            elif src.modifier is SrcMod.NOT:
                cov.note(f"!{'b#' if src.type == R.CONSTBOOL else 'p0' if src.type == R.PREDICATE else src.type.name}"
                         f" in {inst.info.mnemonic}", where)
            else:
                cov.note(f"sm2+ src {src.modifier.name}", where)
        if inst.dst is not None:
            if inst.dst.shift:
                cov.note(f"shift {inst.dst.shift:+d}", where)
            for flag in (DstMod.SATURATE, DstMod.PARTIALPRECISION, DstMod.CENTROID):
                if inst.dst.modifiers & flag:
                    cov.note(f"dst {flag.name.lower()}", where)
        if inst.coissue:
            cov.note("co-issue ps_1_4" if v.minor == 4 else "co-issue ps_1_1-1_3", where)
        # predication
        if inst.predicate is not None:
            p = inst.predicate
            kind = ("identity" if p.swizzle == IDENTITY_SWIZZLE else
                    "replicate" if len(set(swizzle_components(p.swizzle))) == 1 else "swizzled")
            cov.note(f"predicate {kind}", where)
            if p.modifier is SrcMod.NOT:
                cov.note("predicate !p0", where)
            if op in (O.TEX, O.TEXLDL, O.TEXLDD):
                cov.note("predicated texture read", where)
        # relative addressing
        for operand, role in [(s, "src") for s in inst.srcs] + ([(inst.dst, "dst")] if inst.dst is not None else []):
            rel = getattr(operand, "relative", None)
            if rel is None:
                continue
            reg = {R.CONST: "c", R.INPUT: "v", OUTPUT: "o"}.get(operand.type, operand.type.name)
            if rel.implicit:
                cov.note(f"{vn[:2]} {reg}[a0.x] implicit (vs_1_1)", where)
            elif rel.type == R.LOOP:
                cov.note(f"{vn[:2]}{v.major} {reg}[aL]", where)
            else:
                cov.note(f"{vn[:2]}{v.major} {reg}[a0.{'xyzw'[rel.component]}]", where)
        # registers of note
        for operand in list(inst.srcs) + ([inst.dst] if inst.dst is not None else []):
            if operand.type == R.MISCTYPE:
                cov.note(("vPos", "vFace")[operand.index] + (" dcl" if op is O.DCL else " read"), where)
            if operand.type == R.COLOROUT:
                cov.note(f"oC{operand.index}", where)
            if operand.type == R.DEPTHOUT:
                cov.note("oDepth", where)
            if operand.type in (R.RASTOUT, R.ATTROUT):
                cov.note(shader.register_name(operand.type, operand.index), where)
            elif operand.type == OUTPUT and v.is_vertex and v.major < 3:
                cov.note("oT#", where)
        # declarations
        if op is O.DCL:
            decl = inst.declaration
            if inst.dst.type == R.SAMPLER:
                cov.note(f"dcl_{decl.sampler_type.asm} s#", where)
            elif v.is_vertex and inst.dst.type == R.INPUT:
                cov.note(f"vs input dcl_{decl.usage.asm}", where)
            elif v.is_vertex and inst.dst.type == OUTPUT:
                cov.note(f"vs_3 output dcl_{decl.usage.asm}", where)
            elif v.is_pixel and v.major == 3 and inst.dst.type == R.INPUT:
                cov.note(f"ps_3 input dcl_{decl.usage.asm}", where)
        # nesting
        if op in _BLOCK_OPEN:
            if stack:
                cov.note(f"{_BLOCK_OPEN[op]} inside {stack[-1]}", where)
            stack.append(_BLOCK_OPEN[op])
        elif op in (O.ENDLOOP, O.ENDREP, O.ENDIF):
            stack.pop()
        elif op in (O.CALL, O.CALLNZ):
            if any(s in ("loop", "rep") for s in stack):
                cov.note("call inside a loop", where)
            if in_sub:
                cov.note("call from a subroutine", where)
        elif op in (O.BREAK, O.BREAKC, O.BREAKP) and "if" in stack:
            cov.note(f"{inst.info.mnemonic} inside if", where)
        elif op is O.LABEL:
            in_sub = True
        if op is O.ELSE:
            cov.note("else", where)


# What the corpus must contain beyond "every opcode in some version".
REQUIRED: list[str] = (
    [f"{t} {d}" for t in ("texld", "texldp", "texldb", "texldl", "texldd") for d in ("2d", "cube", "volume")]
    + [f"{name}{c.suffix}" for name in _COMPARISON_OPS.values() for c in _REAL_COMPARISONS]
    + [f"ps_1_x src {m.name}" for m in sorted(_PS1_MODS)]
    + [f"sm2+ src {m.name}" for m in sorted(_SM2_MODS)]
    + ["!b# in if", "!b# in callnz", "!p0 in if", "!p0 in callnz", "!p0 in breakp"]
    + [f"shift {k:+d}" for k in (1, 2, 3, -1, -2, -3)]
    + ["co-issue ps_1_1-1_3", "co-issue ps_1_4"]
    + ["predicate identity", "predicate replicate", "predicate swizzled", "predicate !p0",
       "predicated texture read"]
    + ["vs c[a0.x] implicit (vs_1_1)", "mov a0 (vs_1_1)", "vs2 c[a0.x]", "vs2 c[a0.w]", "vs2 c[aL]",
       "vs3 c[aL]", "vs3 c[a0.x]", "vs3 v[aL]", "vs3 v[a0.x]", "vs3 o[aL]", "ps3 v[aL]",
       "mova multi-component mask"]
    + ["loop inside loop", "rep inside loop", "if inside loop", "if inside rep", "if inside if",
       "call inside a loop", "call from a subroutine", "break inside if", "else"]
    + [f"vs input dcl_{u.asm}" for u in DeclUsage]
    + [f"vs_3 output dcl_{u.asm}" for u in DeclUsage]
    + ["vPos dcl", "vPos read", "vFace dcl", "vFace read", "oDepth", "oC0", "oC1", "oC2", "oC3"]
    + ["oPos", "oFog", "oPts", "oD0", "oD1", "oT#"]
    + ["sincos 3-source form", "sincos 1-source form", "sgn 3-source form", "sgn 1-source form"]
    + ["tex t# (ps_1_1-1_3)", "texld r#, src (ps_1_4)", "texcoord (ps_1_1-1_3)", "texcrd (ps_1_4)",
       "texkill ps_1_1-1_3", "texkill ps_1_4", "texkill sm2+"]
    + ["dcl_2d s#", "dcl_cube s#", "dcl_volume s#"]
    + ["dst saturate", "dst partialprecision", "dst centroid"]
)


@functools.lru_cache(maxsize=None)
def coverage() -> Coverage:
    cov = Coverage()
    for path in SOURCES:
        _, shader = built(path)
        _walk(shader, _id(path), cov)
    return cov


def _wanted_opcodes() -> list[Opcode]:
    return [op for op in OPCODES if op not in PSEUDO_OPCODES]


def test_every_version_has_a_shader():
    cov = coverage()
    missing = [v.name for v in REQUIRED_VERSIONS if not cov.files[v.name]]
    assert not missing, f"versions without a corpus shader: {missing}"


def test_every_opcode_appears_in_a_version_that_accepts_it():
    cov = coverage()
    by_name = {v.name: v for v in KNOWN_VERSIONS}
    missing = []
    for op in _wanted_opcodes():
        info = OPCODES[op]
        used_in = cov.opcodes.get(op, set())
        if not any(info.allowed_in(by_name[vn]) for vn in used_in):
            missing.append(info.mnemonic)
    assert not missing, f"opcodes no corpus shader uses (in a version that accepts them): {missing}"


def test_special_forms_are_covered():
    cov = coverage()
    missing = [f for f in REQUIRED if not cov.features.get(f)]
    assert not missing, "special forms the corpus lacks:\n  " + "\n  ".join(missing)


def test_print_coverage_figures(record_property):
    cov = coverage()
    opcodes = _wanted_opcodes()
    used = [op for op in opcodes if cov.opcodes.get(op)]
    per_version = ", ".join(f"{v.name} {cov.files[v.name]}" for v in REQUIRED_VERSIONS)
    got = [f for f in REQUIRED if cov.features.get(f)]
    # opcodes per version, as a compact table
    rows = []
    for v in REQUIRED_VERSIONS:
        ops = sorted(OPCODES[op].mnemonic for op in opcodes if v.name in cov.opcodes.get(op, ()))
        allowed = sum(1 for op in opcodes if OPCODES[op].allowed_in(v))
        rows.append(f"  {v.name:8} {len(ops):3}/{allowed:3} opcodes")
    lines = [
        f"own corpus: {len(SOURCES)} files ({per_version})",
        f"own corpus: {len(used)}/{len(opcodes)} opcodes used; {len(got)}/{len(REQUIRED)} special forms",
        "own corpus: opcodes used per version (of those the version accepts):",
        *rows,
    ]
    summary = "\n".join(lines)
    print(summary)
    record_property("corpus_summary", summary)
    assert len(used) == len(opcodes)
