"""The assembler's preprocessor: comments, line splicing, ``#define`` and
conditional blocks, with every character traced back to the original text.

What it implements is what shader assembly in the wild uses (Wine's
assembler tests, fxc's ``/Fc`` listings, DirectX SDK samples):

* ``//``, ``;`` (to the end of the line) and ``/* ... */`` comments;
* a backslash at the end of a line joins it with the next;
* ``#define NAME text`` (object-like macros only), ``#undef NAME``;
* ``#if``/``#ifdef``/``#ifndef``/``#elif``/``#else``/``#endif``, with C's
  integer expressions (``defined``, ``! ~ - +``, ``* / %``, ``+ -``,
  ``<< >>``, comparisons, ``& ^ |``, ``&& ||``, parentheses; unknown
  identifiers are 0; arithmetic wraps at 64 bits like intmax_t);
* ``#line N "file"`` is checked and otherwise ignored: errors always name
  the line and column of the text the caller passed in.

Function-like macros, ``#include``, ``#pragma`` and the rest are refused with
an ``AsmError`` rather than half-supported.

The output is a list of ``Line`` objects.  A ``Line`` knows, for each of its
characters, where it came from: text copied from the source keeps its own
line and column; text produced by a macro points at the macro's name.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from ...errors import AsmError

Pos = tuple[int, int]  # 1-based (line, column) in the original text

# Limits that keep hostile input from costing more than linear work.
MAX_MACRO_DEPTH = 64
# Characters macros may produce in the whole text, and macro expansions
# (one per macro name replaced, however short its text) the whole text may
# take.  Doubling #defines otherwise turn 4 KB of text into gigabytes; real
# assembly (Wine's tests, SDK samples) expands a few kilobytes at most.
MAX_EXPANSION = 1 << 18
MAX_EXPANSIONS = 1 << 14
MAX_EXPR_DEPTH = 100  # nesting of parentheses/unary operators in #if
MAX_EXPR_TOKENS = 10_000  # tokens in one #if expression


@dataclass
class Line:
    """One logical line of preprocessed text and the map back to the source.

    ``starts[k]`` is the offset in ``text`` where span ``k`` begins; span ``k``
    came from ``origins[k] = (line, column, advances)``: when ``advances`` the
    span is a verbatim copy (column grows with the offset), otherwise every
    character of it maps to the same place (a macro expansion).
    """

    text: str = ""
    starts: list[int] = field(default_factory=list)
    origins: list[tuple[int, int, bool]] = field(default_factory=list)
    end: Pos = (1, 1)  # just past the last character

    def position(self, offset: int) -> Pos:
        if offset >= len(self.text) or not self.starts:
            return self.end
        k = bisect_right(self.starts, offset) - 1
        line, col, advances = self.origins[k]
        return (line, col + offset - self.starts[k]) if advances else (line, col)


class _Builder:
    """Accumulates text and spans into a ``Line``."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.line = Line()

    def add(self, text: str, line: int, col: int, advances: bool = True) -> None:
        if not text:
            return
        origins = self.line.origins
        if advances and origins:
            last_line, last_col, last_adv = origins[-1]
            # extend the previous span when this text continues it exactly
            if last_adv and last_line == line and last_col + self.length - self.line.starts[-1] == col:
                self.parts.append(text)
                self.length += len(text)
                return
        self.line.starts.append(self.length)
        origins.append((line, col, advances))
        self.parts.append(text)
        self.length += len(text)

    def copy(self, src: Line, a: int, b: int) -> None:
        """Append ``src.text[a:b]`` keeping its origins."""
        if a >= b:
            return
        k = max(bisect_right(src.starts, a) - 1, 0)
        while a < b:
            span_end = src.starts[k + 1] if k + 1 < len(src.starts) else len(src.text)
            piece_end = min(b, span_end)
            line, col, advances = src.origins[k]
            self.add(src.text[a:piece_end], line, col + (a - src.starts[k] if advances else 0), advances)
            a = piece_end
            k += 1

    def finish(self, end: Pos) -> Line:
        if not self.parts and self.line.starts:  # a whole line handed over unchanged
            return self.line
        self.line.text = "".join(self.parts)
        self.line.end = end
        return self.line


def _skip_space(text: str, pos: int) -> int:
    """The offset of the first non-blank character at or after ``pos``."""
    return pos + len(text[pos:]) - len(text[pos:].lstrip())


def _fail(pos: Pos, reason: str, source: str) -> AsmError:
    return AsmError(pos[0], pos[1], reason, source)


# --------------------------------------------------------------------------
# Phase 1: physical lines, backslash continuations
# --------------------------------------------------------------------------

_NEWLINE = re.compile(r"\r\n|\r|\n")


def _spliced_lines(text: str) -> list[Line]:
    physical = _NEWLINE.split(text)
    if "\\" not in text:  # the common case: one logical line per physical line
        return [Line(raw, [0], [(n, 1, True)], (n, len(raw) + 1)) for n, raw in enumerate(physical, 1)]
    out: list[Line] = []
    builder = _Builder()
    for lineno, raw in enumerate(physical, 1):
        continued = raw.endswith("\\")
        body = raw[:-1] if continued else raw
        builder.add(body, lineno, 1)
        if not continued or lineno == len(physical):
            out.append(builder.finish((lineno, len(body) + 1)))
            builder = _Builder()
    return out


# --------------------------------------------------------------------------
# Phase 2: comments (a comment spanning lines joins them, as in C)
# --------------------------------------------------------------------------

_COMMENT_START = re.compile(r'//|/\*|;|"')


def _strip_comments(lines: list[Line], source: str) -> list[Line]:
    out: list[Line] = []
    builder = _Builder()
    open_comment: Pos | None = None  # where an unclosed /* started
    for line in lines:
        text = line.text
        pos = 0
        while pos < len(text):
            if open_comment is not None:
                close = text.find("*/", pos)
                if close < 0:
                    pos = len(text)
                    break
                pos = close + 2
                open_comment = None
                continue
            m = _COMMENT_START.search(text, pos)
            if m is None:
                if pos == 0 and not builder.parts:  # nothing to cut: keep the line as it is
                    builder.line = line
                    break
                builder.copy(line, pos, len(text))
                break
            builder.copy(line, pos, m.start())
            token = m.group()
            if token == '"':  # a string (only #line uses one): copy it whole
                close = text.find('"', m.end())
                stop = len(text) if close < 0 else close + 1
                builder.copy(line, m.start(), stop)
                pos = stop
            elif token == "/*":
                builder.add(" ", *line.position(m.start()), advances=False)
                open_comment = line.position(m.start())
                pos = m.end()
            else:  # // or ; runs to the end of the line
                break
        if open_comment is None:
            out.append(builder.finish(line.end))
            builder = _Builder()
    if open_comment is not None:
        raise _fail(open_comment, "this /* comment is never closed", source)
    return out


# --------------------------------------------------------------------------
# Phase 3: directives and macros
# --------------------------------------------------------------------------

# Identifiers, and C's "pp-numbers" so that the e in 1e-5 or the f in 1.0f is
# never taken for a macro name.
_PP_TOKEN = re.compile(r"[A-Za-z_]\w*|\.?\d(?:[eE][+-]|[\w.#])*", re.ASCII)
_DIRECTIVE = re.compile(r"\s*#\s*([A-Za-z_]\w*)?", re.ASCII)
_DEFINED = re.compile(r"\s*(?:\(\s*([A-Za-z_]\w*)\s*\)|([A-Za-z_]\w*))", re.ASCII)
_CONDITIONALS = {"if", "ifdef", "ifndef", "elif", "else", "endif"}


@dataclass
class _Cond:
    outer_active: bool  # was the enclosing region active?
    taking: bool  # is the current branch taken?
    done: bool  # has some branch been taken already?
    seen_else: bool
    pos: Pos  # of the opening directive, for "never closed"


class _Preprocessor:
    def __init__(self, source: str):
        self.source = source
        self.macros: dict[str, str] = {}
        self.conds: list[_Cond] = []
        # What is left of MAX_EXPANSION and MAX_EXPANSIONS for the whole text.
        self.budget = [MAX_EXPANSION, MAX_EXPANSIONS]

    def fail(self, pos: Pos, reason: str) -> AsmError:
        return _fail(pos, reason, self.source)

    @property
    def active(self) -> bool:
        return not self.conds or (self.conds[-1].outer_active and self.conds[-1].taking)

    def run(self, lines: list[Line]) -> list[Line]:
        out = []
        for line in lines:
            m = _DIRECTIVE.match(line.text)
            if m is not None:
                self.directive(line, m)
            elif self.active and line.text.strip():
                out.append(self.expand(line) if self.macros else line)
        if self.conds:
            raise self.fail(self.conds[-1].pos, "this conditional block is never closed with #endif")
        return out

    # -- directives ----------------------------------------------------------

    def directive(self, line: Line, m: re.Match) -> None:
        name = m.group(1)
        rest_at = m.end()
        rest = line.text[rest_at:]
        where = line.position(m.start(1) if name else m.end())
        if name not in _CONDITIONALS and not self.active:
            return  # skipped text: only the nesting of conditionals matters
        if name is None:
            if rest.strip():
                raise self.fail(where, "a '#' must start a preprocessor directive such as #define or #if")
            return  # a lone '#' is C's null directive
        if name in _CONDITIONALS:
            self.conditional(name, line, rest_at, where)
        elif name == "define":
            self.define(line, rest_at, where)
        elif name == "undef":
            self.macros.pop(self.one_name(line, rest_at, where, "#undef"), None)
        elif name == "line":
            if not re.fullmatch(r'\s+\d+(\s+"[^"]*")?\s*', rest, re.ASCII):
                raise self.fail(where, '#line needs a line number and optionally a file name: #line 12 "file.psh"')
        else:
            raise self.fail(where, f"the preprocessor directive #{name} is not supported")

    def one_name(self, line: Line, at: int, where: Pos, directive: str) -> str:
        m = re.fullmatch(r"\s+([A-Za-z_]\w*)\s*", line.text[at:], re.ASCII)
        if m is None:
            raise self.fail(where, f"{directive} needs exactly one macro name")
        return m.group(1)

    def define(self, line: Line, at: int, where: Pos) -> None:
        m = re.match(r"\s+([A-Za-z_]\w*)", line.text[at:], re.ASCII)
        if m is None:
            raise self.fail(where, "#define needs a macro name")
        body = line.text[at + m.end():]
        if body.startswith("("):
            raise self.fail(line.position(at + m.end()), "function-like macros are not supported; only #define NAME text")
        self.macros[m.group(1)] = body.strip()

    def conditional(self, name: str, line: Line, at: int, where: Pos) -> None:
        if name in ("if", "ifdef", "ifndef"):
            outer = self.active
            taking = False
            if outer:
                if name == "if":
                    taking = self.evaluate(line, at, where) != 0
                else:
                    defined = self.one_name(line, at, where, "#" + name) in self.macros
                    taking = defined if name == "ifdef" else not defined
            self.conds.append(_Cond(outer, taking, taking or not outer, False, where))
            return
        if not self.conds:
            raise self.fail(where, f"#{name} without a matching #if")
        cond = self.conds[-1]
        if name in ("endif", "else") and line.text[at:].strip():
            raise self.fail(line.position(_skip_space(line.text, at)), f"unexpected text after #{name}")
        if name == "endif":
            self.conds.pop()
        elif cond.seen_else:
            raise self.fail(where, f"#{name} after #else")
        elif name == "else":
            cond.taking, cond.done, cond.seen_else = not cond.done, True, True
        else:  # elif
            cond.taking = False
            if not cond.done:
                cond.taking = self.evaluate(line, at, where) != 0
                cond.done = cond.taking

    def evaluate(self, line: Line, at: int, where: Pos) -> int:
        sub = _Builder()
        sub.copy(line, at, len(line.text))
        expanded = self.expand(sub.finish(line.end), for_if=True)
        if not expanded.text.strip():
            raise self.fail(where, "#if needs an expression")
        return _Expression(expanded, self.fail).value()

    # -- macro expansion -----------------------------------------------------

    def expand(self, line: Line, for_if: bool = False) -> Line:
        out = _Builder()
        text = line.text
        pos = 0
        budget = self.budget
        for m in _PP_TOKEN.finditer(text):
            word = m.group()
            if for_if and word == "defined":
                d = _DEFINED.match(text, m.end())
                if d is None:
                    raise self.fail(line.position(m.start()), "'defined' needs a macro name")
                out.copy(line, pos, m.start())
                out.add("1" if (d.group(1) or d.group(2)) in self.macros else "0", *line.position(m.start()), advances=False)
                pos = d.end()
                continue
            if m.start() < pos or word not in self.macros:
                continue
            out.copy(line, pos, m.start())
            where = line.position(m.start())
            out.add(self._expand_body(word, frozenset(), 0, where, budget), *where, advances=False)
            pos = m.end()
        out.copy(line, pos, len(text))
        return out.finish(line.end)

    def _expand_body(self, name: str, active: frozenset, depth: int, where: Pos, budget: list[int]) -> str:
        """The text ``name`` stands for, with the macros inside it expanded
        (C's rule: a macro is not expanded again inside its own expansion)."""
        if depth >= MAX_MACRO_DEPTH:
            raise self.fail(where, f"macro expansion nests more than {MAX_MACRO_DEPTH} deep")
        budget[1] -= 1
        if budget[1] < 0:
            raise self.fail(where, f"the text expands more than {MAX_EXPANSIONS} macros in all; "
                                   "the preprocessor stops there (doubling #defines?)")
        active = active | {name}
        body = self.macros[name]
        parts = []
        pos = 0
        for m in _PP_TOKEN.finditer(body):
            word = m.group()
            if word in self.macros and word not in active:
                parts.append(body[pos:m.start()])
                parts.append(self._expand_body(word, active, depth + 1, where, budget))
                pos = m.end()
        parts.append(body[pos:])
        result = "".join(parts)
        budget[0] -= len(result)
        if budget[0] < 0:
            raise self.fail(where, f"macro expansion produces more than {MAX_EXPANSION} characters in all; "
                                   "the preprocessor stops there (doubling #defines?)")
        return result


# --------------------------------------------------------------------------
# #if expressions
# --------------------------------------------------------------------------

_EXPR_TOKEN = re.compile(
    r"\s*(?:(0[xX][0-9A-Fa-f]+|\d+)[uUlL]*(?![\w.])|([A-Za-z_]\w*)|(&&|\|\||==|!=|<=|>=|<<|>>|[-+*/%<>&^|!~()]))",
    re.ASCII,
)
_BINARY = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
    "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}


def _wrap64(v: int) -> int:
    return ((v + (1 << 63)) & ((1 << 64) - 1)) - (1 << 63)


class _Expression:
    """Evaluates one ``#if`` expression by precedence climbing.

    ``live`` is False inside the unevaluated operand of ``&&``/``||``, where
    C allows a division by zero."""

    def __init__(self, line: Line, fail):
        self.line = line
        self.fail = fail
        self.tokens: list[tuple[str, int]] = []  # (token, offset)
        text = line.text
        pos = 0
        end = len(text.rstrip())  # (not ``text[pos:].strip()`` per token: quadratic)
        while pos < end:
            if len(self.tokens) >= MAX_EXPR_TOKENS:
                raise fail(line.position(pos), f"this #if expression has more than {MAX_EXPR_TOKENS} tokens")
            m = _EXPR_TOKEN.match(text, pos)
            if m is None:
                off = _skip_space(text, pos)
                raise fail(line.position(off), f"unexpected {text[off]!r} in a #if expression")
            start = m.start(m.lastindex)
            token = m.group(m.lastindex)
            if m.lastindex == 1:
                if len(token) > 40:
                    raise fail(line.position(start), "this number is too long for a #if expression")
                if re.fullmatch(r"0\d*[89]\d*", token):
                    raise fail(line.position(start), f"'{token}' is not a valid octal number")
                token = str(int(token, 16) if token[1:2] in ("x", "X") else int(token, 8 if token[0] == "0" else 10))
            elif m.lastindex == 2:
                token = "0"  # an identifier that is not a macro counts as 0
            self.tokens.append((token, start))
            pos = m.end()
        self.i = 0
        self.depth = 0

    def value(self) -> int:
        v = self.binary(1, True)
        if self.i < len(self.tokens):
            token, off = self.tokens[self.i]
            raise self.fail(self.line.position(off), f"unexpected '{token}' in a #if expression")
        return v

    def peek(self) -> str | None:
        return self.tokens[self.i][0] if self.i < len(self.tokens) else None

    def here(self) -> Pos:
        return self.line.position(self.tokens[self.i][1] if self.i < len(self.tokens) else len(self.line.text))

    def binary(self, min_prec: int, live: bool) -> int:
        left = self.unary(live)
        while (op := self.peek()) in _BINARY and _BINARY[op] >= min_prec:
            where = self.here()
            self.i += 1
            prec = _BINARY[op]
            if op == "&&":
                right = self.binary(prec + 1, live and left != 0)
                left = int(left != 0 and right != 0)
            elif op == "||":
                right = self.binary(prec + 1, live and left == 0)
                left = int(left != 0 or right != 0)
            else:
                right = self.binary(prec + 1, live)
                left = self.apply(op, left, right, where, live)
        return left

    def apply(self, op: str, a: int, b: int, where: Pos, live: bool) -> int:
        if op in ("/", "%"):
            if b == 0:
                if live:
                    raise self.fail(where, "division by zero in a #if expression")
                return 0
            q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncates toward zero
            return _wrap64(q if op == "/" else a - b * q)
        if op in ("<<", ">>"):
            if not 0 <= b < 64:
                if live:
                    raise self.fail(where, f"shift count {b} is outside 0-63 in a #if expression")
                return 0
            return _wrap64(a << b if op == "<<" else a >> b)
        result = {
            "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
            "<": lambda: int(a < b), ">": lambda: int(a > b), "<=": lambda: int(a <= b), ">=": lambda: int(a >= b),
            "==": lambda: int(a == b), "!=": lambda: int(a != b), "&": lambda: a & b, "^": lambda: a ^ b, "|": lambda: a | b,
        }[op]()
        return _wrap64(result)

    def unary(self, live: bool) -> int:
        token = self.peek()
        if token is None:
            raise self.fail(self.here(), "a #if expression ends too early")
        self.depth += 1
        if self.depth > MAX_EXPR_DEPTH:
            raise self.fail(self.here(), f"a #if expression nests more than {MAX_EXPR_DEPTH} deep")
        self.i += 1
        if token in ("!", "~", "-", "+"):
            v = self.unary(live)
            v = {"!": int(v == 0), "~": ~v, "-": -v, "+": v}[token]
        elif token == "(":
            v = self.binary(1, live)
            if self.peek() != ")":
                raise self.fail(self.here(), "a '(' in a #if expression is never closed")
            self.i += 1
        elif token.isdigit():
            v = int(token)
        else:
            self.i -= 1
            raise self.fail(self.here(), f"unexpected '{token}' in a #if expression")
        self.depth -= 1
        return _wrap64(v)


def preprocess(text: str, source: str = "<asm>") -> list[Line]:
    """Comment-free, macro-expanded logical lines of ``text``, blank lines dropped."""
    return _Preprocessor(source).run(_strip_comments(_spliced_lines(text), source))
