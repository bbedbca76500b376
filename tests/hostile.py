"""Hostile input for the tests and ``scripts/fuzz``: CTAB tables with hostile
names, and structure-aware mutations of token streams (operand register types
and modifiers swapped, nesting deepened, length fields and comment sizes
edited).  Plain functions of bytes and a ``random.Random``, so that a case is
reproducible from its seed; no pytest import.
"""

from __future__ import annotations

import functools
import random
import struct
from contextlib import contextmanager

from xlate.bytecode import decode
from xlate.bytecode.model import Comment
from xlate.bytecode.tables import BITS, Opcode, RegisterType, register_type_bits

R = RegisterType

# Names a CTAB may carry that must never reach generated code, a listing or
# a terminal as they are (issue 16): keywords, gl_ prefixes, double
# underscores, non-ASCII, comment closers, preprocessor lines, newlines that
# would inject instructions into a listing, rich markup, terminal escapes,
# a 64 KB name and duplicates (the same name twice in one table).
HOSTILE_NAMES: tuple[str, ...] = (
    "if", "float", "vec4", "main", "texture2D", "gl_Position", "gl_FragColor", "GL_ES", "__LINE__",
    "a__b", "__", "_", "", "0start", "é", "日本語", "name */ void main() {} /*", "*/", "/*",
    "#define main foo", "x\n#define ps_3_0 nop\nmov oC0, c0", "x\r\ny", "[/]", "[bold red]x[/]",
    "\x1b[31mred\x1b[0m", "\x00hidden", "tab\there", "back\\", "back\\\\", "a b", "$Globals",
    "x" * 65536, "dup", "dup",
)


def _string_table(strings: list[bytes]) -> tuple[bytes, list[int], int]:
    """NUL-terminated strings packed from offset 0; their offsets."""
    out = bytearray()
    offsets = []
    for s in strings:
        offsets.append(len(out))
        out += s + b"\0"
    while len(out) % 4:
        out += b"\0"
    return bytes(out), offsets, len(out)


def ctab_payload(constants: list[tuple[str, int, int, int, int, int]], creator: str = "hostile",
                 target: str = "ps_3_0") -> bytes:
    """The data of a CTAB comment (FourCC included).  ``constants``: (name,
    register set, register index, register count, parameter class,
    parameter type), vectors of 4 for numbers and 1x1 objects for samplers."""
    header_size = 28
    n = len(constants)
    info_at = header_size
    types_at = info_at + 20 * n
    strings_at = types_at + 16 * n
    names = [c[0].encode("utf-8", "surrogatepass") for c in constants]
    strings, offsets, _ = _string_table(names + [creator.encode("utf-8"), target.encode("utf-8")])
    body = bytearray(struct.pack("<7I", header_size, strings_at + offsets[n], 0xFFFF0300, n, info_at, 0,
                                 strings_at + offsets[n + 1]))
    for k, (_, rset, index, count, _, _) in enumerate(constants):
        body += struct.pack("<I4H2I", strings_at + offsets[k], rset, index, count, 0, types_at + 16 * k, 0)
    for (_, _, _, _, cls, ptype) in constants:
        columns = 1 if cls == 4 else 4
        body += struct.pack("<6HI", cls, ptype, 1, columns, 1, 0, 0)
    body += strings
    return b"CTAB" + bytes(body)


def comment_tokens(payload: bytes) -> bytes:
    while len(payload) % 4:
        payload += b"\0"
    size = len(payload) // 4
    if size > 0x7FFF:
        raise ValueError("comment too long")
    return struct.pack("<I", (size << 16) | 0xFFFE) + payload


def with_hostile_ctab(data: bytes, names: list[str]) -> bytes:
    """``data`` (a valid shader) with a CTAB comment first that names the
    constant and sampler registers it reads after ``names`` (cycled)."""
    shader = decode(data)
    consts: set[int] = set()
    samplers: set[int] = set()
    for ins in shader.instructions:
        for src in ins.srcs:
            if src.type == R.CONST and src.relative is None:
                consts.add(src.index)
        if ins.opcode == Opcode.DCL and ins.dst.type == R.SAMPLER:
            samplers.add(ins.dst.index)
    table = []
    k = 0
    for i in sorted(consts)[:8]:
        table.append((names[k % len(names)], 2, i, 1, 1, 3))
        k += 1
    for i in sorted(samplers)[:4]:
        table.append((names[k % len(names)], 3, i, 1, 4, 12))
        k += 1
    if not table:
        table.append((names[0], 2, 0, 1, 1, 3))
    payload = ctab_payload(table, target=shader.version.name)
    # A 64 KB name does not fit one comment (32,767 DWORDs): cut the table's
    # names so that it does; the cut name is still far longer than any listing shows.
    while len(payload) > 4 * 0x7FFF:
        table = [(n[: len(n) // 2], *rest) for n, *rest in table]
        payload = ctab_payload(table, target=shader.version.name)
    # Drop the shader's own CTAB comments: the decoder reads the first one.
    starts = [item.offset for item in shader.items] + [len(data) - 4]
    rest = b"".join(data[starts[k]:starts[k + 1]] for k, item in enumerate(shader.items)
                    if not (isinstance(item, Comment) and item.data[:4] == b"CTAB"))
    return data[:4] + comment_tokens(payload) + rest + struct.pack("<I", 0x0000FFFF)


# --------------------------------------------------------------------------
# Structure-aware mutations
# --------------------------------------------------------------------------

STRUCTURED_MUTATIONS = ("register_type", "src_modifier", "dst_modifier", "nesting", "length", "comment_size",
                        "swap_operands")


@functools.lru_cache(maxsize=8192)  # the fuzz campaign mutates the same seeds again and again
def _instruction_spans(data: bytes) -> tuple[tuple[int, int], ...]:
    """(first token, token count) of each instruction of a decodable blob."""
    shader = decode(data)
    offsets = [item.offset // 4 for item in shader.items]
    n = len(data) // 4
    spans = []
    for k, item in enumerate(shader.items):
        end = offsets[k + 1] if k + 1 < len(offsets) else n - 1
        if not isinstance(item, Comment):
            spans.append((offsets[k], end - offsets[k]))
    return tuple(spans)


def structured_mutation(data: bytes, rnd: random.Random, kind: str | None = None) -> bytes:
    """One structure-aware mutation of a decodable blob."""
    kind = kind or rnd.choice(STRUCTURED_MUTATIONS)
    tokens = list(struct.unpack(f"<{len(data) // 4}I", data))
    spans = _instruction_spans(data)
    if not spans:
        return data
    start, count = rnd.choice(spans)
    params = list(range(start + 1, start + count))
    if kind == "nesting":
        body_at = next((s for s, _ in spans if tokens[s] & 0xFFFF not in (Opcode.DCL, Opcode.DEF, Opcode.DEFI, Opcode.DEFB)),
                       len(tokens) - 1)
        return _deepen(tokens, body_at, rnd)
    if kind == "length":
        tokens[start] = (tokens[start] & ~BITS.LENGTH_MASK) | (rnd.randrange(16) << BITS.LENGTH_SHIFT)
    elif kind == "comment_size":
        comments = [k for k, t in enumerate(tokens) if t & 0xFFFF == 0xFFFE and not t & BITS.PARAM]
        at = rnd.choice(comments) if comments else start
        tokens[at] = (tokens[at] & 0xFFFF) | (rnd.randrange(0x8000) << 16)
    elif params:
        p = rnd.choice(params)
        t = tokens[p]
        if kind == "register_type":
            t = (t & ~(BITS.REG_TYPE_LO_MASK | BITS.REG_TYPE_HI_MASK)) | register_type_bits(rnd.randrange(20))
        elif kind == "src_modifier":
            t = (t & ~BITS.SRCMOD_MASK) | (rnd.randrange(14) << BITS.SRCMOD_SHIFT)
        elif kind == "dst_modifier":
            t = (t & ~(BITS.DSTMOD_MASK | BITS.SHIFT_MASK)) | (rnd.randrange(8) << BITS.DSTMOD_SHIFT) \
                | (rnd.choice((0, 0, 1, 15)) << BITS.SHIFT_SHIFT)
        elif kind == "swap_operands" and len(params) >= 2:
            q = rnd.choice(params)
            tokens[p], tokens[q] = tokens[q], tokens[p]
            return struct.pack(f"<{len(tokens)}I", *tokens)
        tokens[p] = t | BITS.PARAM
    return struct.pack(f"<{len(tokens)}I", *tokens)


def _deepen(tokens: list[int], body_at: int, rnd: random.Random) -> bytes:
    """Wrap the body (from token ``body_at``: after the declarations) in
    2-40 blocks: ``rep i0``, ``loop aL, i0`` or ``if b0``, with their
    ``defi``/``defb`` constants in front."""
    depth = rnd.choice((2, 4, 5, 8, 24, 25, 40))
    kind = rnd.choice(("rep", "loop", "if"))
    sm2 = (tokens[0] >> 8) & 0xFF >= 2
    length = (lambda n: n << BITS.LENGTH_SHIFT) if sm2 else (lambda n: 0)
    param = lambda rtype, index=0, swizzle=0xE4: BITS.PARAM | register_type_bits(rtype) | index | swizzle << 16  # noqa: E731
    open_, close = {
        "rep": ([Opcode.REP | length(1), param(R.CONSTINT)], [Opcode.ENDREP]),
        "loop": ([Opcode.LOOP | length(2), param(R.LOOP), param(R.CONSTINT)], [Opcode.ENDLOOP]),
        "if": ([Opcode.IF | length(1), param(R.CONSTBOOL)], [Opcode.ENDIF]),
    }[kind]
    consts = [Opcode.DEFI | length(5), param(R.CONSTINT, 0, 0) | 0xF << 16, 2, 0, 1, 0,
              Opcode.DEFB | length(2), param(R.CONSTBOOL, 0, 0) | 0xF << 16, 1]
    out = tokens[:body_at] + consts + open_ * depth + tokens[body_at:-1] + close * depth + tokens[-1:]
    return struct.pack(f"<{len(out)}I", *out)


# --------------------------------------------------------------------------
# Every entry point on one input
# --------------------------------------------------------------------------

GLSL_TARGETS = ("glsl120", "glsl330", "glsl450", "essl100", "essl300", "vulkan")


# The assembler's checks that are validity.py's rules (shared with the decoder).
VALIDITY_CHECKS = ("operand_type_problem", "written_problem", "src_modifier_problem", "result_modifier_problem",
                   "dcl_problem")


@contextmanager
def assembler_without_validity():
    """The assembler with validity.py's rules switched off (the syntax and
    register checks stay): it then writes the tokens of text it refuses, for
    tests that show the decoder refusing those tokens too."""
    from xlate.bytecode.asm import rules

    saved = {name: getattr(rules, name) for name in VALIDITY_CHECKS}
    methods = {name: getattr(rules.WholeShader, name) for name in ("block_problem", "declaration_problem")}
    try:
        for name in saved:
            setattr(rules, name, lambda *args, **kwargs: None)
        for name in methods:
            setattr(rules.WholeShader, name, lambda *args, **kwargs: None)
        yield
    finally:
        for name, value in saved.items():
            setattr(rules, name, value)
        for name, value in methods.items():
            setattr(rules.WholeShader, name, value)


def unchecked_bytes(text: str) -> bytes:
    """``assemble_bytes(text)`` without validity.py's rules."""
    from xlate.bytecode.asm import assemble_bytes

    with assembler_without_validity():
        return assemble_bytes(text)


def one_line_error(err: Exception, size: int | None = None) -> None:
    """An XlateError as issue 16 wants it: one line, an offset inside the input."""
    text = str(err)
    assert "\n" not in text and text, f"{type(err).__name__} is not one line: {text!r}"
    offset = getattr(err, "offset", None)
    if size is not None and offset is not None:
        assert -1 <= offset <= size, f"{type(err).__name__} offset {offset} outside the {size}-byte blob"


def listing_tokens_match(shader, data: bytes) -> None:
    """decode -> disassemble -> assemble gives the same tokens (comments aside)."""
    from xlate.bytecode import encode
    from xlate.bytecode.asm import assemble_bytes
    from xlate.bytecode.disasm import disassemble
    from xlate.bytecode.model import Shader

    text = disassemble(shader)
    want = encode(Shader(shader.version, tuple(i for i in shader.items if not isinstance(i, Comment))))
    got = assemble_bytes(text)  # an AsmError here is a disagreement, not a clean refusal
    assert got == want, "the listing does not reassemble to the same tokens"
    return text


def info_text(shader) -> str:
    """What ``xlate info`` prints for ``shader`` (text mode), as a string."""
    import io

    import rich.console

    from xlate import cli
    from xlate.bytecode.stats import shader_info

    buffer = io.StringIO()
    console = rich.console.Console
    # (_print_info makes its own Console: hand it one that writes here)
    rich.console.Console = lambda *args, **kwargs: console(file=buffer, width=120)  # noqa: E731
    try:
        cli._print_info(shader_info(shader))
    finally:
        rich.console.Console = console
    return buffer.getvalue()


def check_entry_points(data: bytes, targets=GLSL_TARGETS, glsl: list | None = None) -> dict[str, str]:
    """Run ``data`` through decode, disasm (and reassembly), info and
    translate for ``targets``; return each entry point's outcome ("ok" or the
    XlateError class).  Any other exception, a broken invariant or a hostile
    byte in a listing or info text propagates.  ``glsl``: (code, stage)
    pairs of the GLSL produced are appended to it, for glslang."""
    from xlate.api import translate
    from xlate.errors import XlateError

    outcome: dict[str, str] = {}
    try:
        shader = decode(data)
    except XlateError as err:
        one_line_error(err, len(data))
        outcome["decode"] = type(err).__name__
        return outcome
    outcome["decode"] = "ok"
    text = listing_tokens_match(shader, data)
    assert "\x1b" not in text and "\x00" not in text
    outcome["disasm"] = "ok"
    shown = info_text(shader)
    assert "\x1b" not in shown and "\x00" not in shown
    outcome["info"] = "ok"
    for target in targets:
        try:
            result = translate(data, target)
        except XlateError as err:
            one_line_error(err, len(data))
            outcome[target] = type(err).__name__
            continue
        outcome[target] = "ok"
        # (Vulkan GLSL is checked through the spirv target: glslang -V, spirv-val.)
        if glsl is not None and isinstance(result.code, str) and target != "vulkan":
            glsl.append((result.code, "fragment" if shader.version.is_pixel else "vertex", target))
    return outcome
