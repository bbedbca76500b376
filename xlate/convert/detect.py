"""What a file holds, decided by its content (never by its name).

* a shader blob: the first DWORD is a vs/ps version token xlate knows;
* an effect: the first DWORD is fx_2_0's magic (0xFEFF0901);
* assembly text: UTF-8 text whose first statement (after comments,
  preprocessor lines and blank lines) is a shader version such as
  ``vs_3_0`` or ``ps.1.4`` — fxc's ``/Fc`` listings and hand-written files.

Anything else is not a shader and is only counted.  A file that looks like
one of these but then fails (truncated, malformed) is reported.
"""

from __future__ import annotations

import enum
import re
import struct

from ..bytecode.tables import FX_2_0_MAGIC, KNOWN_VERSIONS


class Kind(str, enum.Enum):
    SHADER = "shader"
    EFFECT = "effect"
    ASM = "asm"


_VERSION_TOKENS = frozenset(v.token for v in KNOWN_VERSIONS)
_VERSION_NAME = {v.token: v.name for v in KNOWN_VERSIONS}
# A version statement as the assembler accepts it: vs_3_0, ps.1.4, vs_2_x, ps_3_sw.
_ASM_VERSION = re.compile(r"\s*([vp]s[._][0-9][._](?:[0-9]|x|sw))(?![\w.])", re.IGNORECASE)
# How far into a text file the version statement may be (fxc's listing
# header is a dozen comment lines; a long licence comment is more).
HEAD_BYTES = 64 * 1024
_UNPACK = struct.Struct("<I").unpack_from


def detect(data: bytes) -> Kind | None:
    """The kind of ``data``, or None when it is not a shader, effect or assembly."""
    if len(data) >= 4:
        first = _UNPACK(data)[0]
        if first in _VERSION_TOKENS:
            return Kind.SHADER
        if first == FX_2_0_MAGIC:
            return Kind.EFFECT
    return Kind.ASM if asm_version(data) else None


def blob_model(data: bytes) -> str | None:
    """The shader model a blob's version token names (``vs_3_0``), or None."""
    return _VERSION_NAME.get(_UNPACK(data)[0]) if len(data) >= 4 else None


def asm_version(data: bytes) -> str | None:
    """The version statement that opens assembly text (``ps_2_0``), or None."""
    head = data[:HEAD_BYTES]
    if b"\0" in head:
        return None
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not just a character cut by the scan limit
            return None
        text = head[: exc.start].decode("utf-8")
    in_block = False
    for line in text.splitlines():
        if in_block:
            end = line.find("*/")
            if end < 0:
                continue
            line = line[end + 2:]
            in_block = False
        stripped = line.strip()
        if stripped.startswith("/*"):
            end = stripped.find("*/", 2)
            if end < 0:
                in_block = True
                continue
            stripped = stripped[end + 2:].strip()
        if not stripped or stripped.startswith(("//", ";", "#")):
            continue
        m = _ASM_VERSION.match(stripped)
        return m.group(1).lower().replace(".", "_") if m else None
    return None
