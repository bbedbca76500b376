"""Generated ps_3_0 shaders with many if / loop / rep blocks (assembly text).

They measure that translation cost stays linear in the number of control
blocks (``scripts/bench --blocks``) and give one large, control-heavy
shader whose translation a test compiles and validates.  Every pattern
keeps temporaries live across blocks (some are written at the start and
read only at the end, others are carried from block to block), so the
liveness walks of the passes see many variables live at many markers.

Patterns (``PATTERNS``):
- ``if``: sequential ``if_lt`` / ``else`` / ``endif`` blocks;
- ``loop``: sequential ``loop aL, i#`` blocks ;
- ``rep``: sequential ``rep i#`` blocks, each holding an ``if`` with a ``break_gt``;
- ``nested-if``: groups of ``if`` / ``else`` nested 24 deep (D3D9's limit);
- ``nested-loop``: groups of ``loop`` / ``rep`` nested 4 deep (D3D9's
  limit), with ``if`` / ``else`` blocks inside each level;
- ``loop-call``: ``loop`` blocks after a ``call`` of a subroutine with a
  ``rep`` of its own (a CALL reads every register); ``loop-call-late``:
  the call after the blocks;
- ``loop-vs``: the same blocks in a vs_3_0 shader that ends writing
  ``o[aL]`` (outputs written through an index are a private array until
  the end: ``cleanup`` follows them with ``analysis.LiveSlots``).
"""

from __future__ import annotations

PATTERNS = ("if", "loop", "rep", "nested-if", "nested-loop", "loop-call", "loop-call-late", "loop-vs")

IF_DEPTH = 24  # ps_3_0's limit on nested if blocks
LOOP_DEPTH = 4  # ps_3_0's limit on nested loop / rep blocks

_TEMPS = 32  # r0-r31 in ps_3_0
# r0-r7 are carried from block to block; r8-r31 are written once at the
# start and read only at the end (live across every block).
_CARRIED = 8

_HEADER = [
    "ps_3_0",
    "dcl_texcoord0 v0",
    "dcl_texcoord1 v1",
    "defi i0, 3, 0, 1, 0",
    "defi i1, 2, 1, 1, 0",
    "def c200, 0.5, 0.25, 2, 1",
]


_HEADER_VS = [
    "vs_3_0",
    "dcl_texcoord0 v0",
    "dcl_texcoord1 v1",
    "dcl_position o0",
    "dcl_texcoord0 o1",
    "dcl_texcoord1 o2",
    "dcl_texcoord2 o3",
    "defi i0, 3, 0, 1, 0",
    "defi i1, 2, 1, 1, 0",
    "def c200, 0.5, 0.25, 2, 1",
]


def _reg(i: int) -> int:
    return i % _CARRIED


def _if_block(i: int) -> list[str]:
    a, b, c = _reg(i), _reg(i + 3), _reg(i + 5)
    k = i % 180
    return [
        f"if_lt r{a}.x, c{k}.y",
        f"add r{b}, r{a}, c{k}",
        f"mul r{c}.xy, r{b}, r{a}.yzxw",
        "else",
        f"mad r{b}, r{c}, c{k}.x, r{a}",
        "endif",
    ]


def _loop_block(i: int) -> list[str]:
    a, b = _reg(i), _reg(i + 2)
    return [
        f"loop aL, i{i % 2}",
        f"add r{a}, r{a}, c{i % 180}",
        f"mul r{b}.xyz, r{b}, r{a}",
        "endloop",
    ]


def _rep_block(i: int) -> list[str]:
    a, b = _reg(i), _reg(i + 1)
    k = i % 180
    return [
        f"rep i{i % 2}",
        f"add r{a}, r{a}, c{k}",
        f"if_ge r{a}.x, c{k}.z",
        f"mov r{b}, r{a}.wzyx",
        "endif",
        f"break_gt r{b}.x, c200.z",
        f"max r{b}, r{b}, -r{a}",
        "endrep",
    ]


def _nested_ifs(first: int, count: int) -> tuple[list[str], int]:
    """``count`` if/else blocks nested in groups of ``IF_DEPTH``."""
    lines: list[str] = []
    i = first
    while i < first + count:
        depth = min(IF_DEPTH, first + count - i)
        for d in range(depth):
            a, b = _reg(i + d), _reg(i + d + 1)
            lines += [f"if_gt r{a}.y, c{(i + d) % 180}.x", f"add r{b}, r{b}, r{a}"]
        for d in reversed(range(depth)):
            a, b = _reg(i + d + 2), _reg(i + d)
            lines += ["else", f"mul r{a}, r{a}, r{b}.zwxy", "endif"]
        i += depth
    return lines, i


def _nested_loops(first: int, count: int) -> list[str]:
    """``count`` blocks: groups of ``LOOP_DEPTH`` nested loop / rep blocks
    (alternating), each level opening an if/else block as well."""
    lines: list[str] = []
    i = first
    while i < first + count:
        depth = min(LOOP_DEPTH, first + count - i)
        for d in range(depth):
            a, b = _reg(i + d), _reg(i + d + 4)
            lines.append("loop aL, i1" if d % 2 == 0 else f"rep i{d % 2}")
            lines += [f"add r{a}, r{a}, c{(i + d) % 180}", f"if_lt r{a}.z, r{b}.x", f"mov r{b}.xy, r{a}"]
            lines += ["else", f"min r{b}, r{b}, r{a}", "endif"]
        for d in reversed(range(depth)):
            a = _reg(i + d + 1)
            lines += [f"mul r{a}, r{a}, c200.x", "endloop" if d % 2 == 0 else "endrep"]
        i += depth
    return lines


def block_shader(pattern: str, blocks: int) -> tuple[str, int]:
    """(assembly text, instruction count) of a ps_3_0 shader with ``blocks``
    control blocks of ``pattern`` (one of ``PATTERNS``)."""
    if pattern not in PATTERNS:
        raise ValueError(f"unknown block pattern {pattern!r}")
    header = _HEADER_VS if pattern == "loop-vs" else _HEADER
    body: list[str] = ["call l0"] if pattern == "loop-call" else []
    for r in range(_TEMPS):  # every temp defined first
        body.append(f"mul r{r}, v{r % 2}, c{190 + r % 10}")
    if pattern == "nested-if":
        body += _nested_ifs(0, blocks)[0]
    elif pattern == "nested-loop":
        body += _nested_loops(0, blocks)
    else:
        make = {"if": _if_block, "rep": _rep_block}.get(pattern, _loop_block)
        for i in range(blocks):
            body += make(i)
    # the long-lived temps are read only here
    body.append("mov r0, r0")
    for r in range(1, _TEMPS):
        body.append(f"add r0, r0, r{r}")
    if pattern == "loop-call-late":
        body.append("call l0")
    if pattern == "loop-vs":
        body += ["mov o0, r0", "loop aL, i0", "mov o[aL + 1], r1", "endloop"]
    else:
        body.append("mov oC0, r0")
    if pattern.startswith("loop-call"):
        body += ["ret", "label l0", "rep i1", "add r1, r1, c200", "endrep", "ret"]
    lines = header + body
    dcls = sum(line.startswith("dcl_") for line in header)
    return "\n".join(lines) + "\n", len(lines) - 1 - dcls  # the version and dcls are not instructions
