"""Shaders and names that try to break the report page (shared by the report tests)."""

from __future__ import annotations

import struct

from xlate.bytecode.asm import assemble_bytes

# Names a game's files or a CTAB may hold: markup, a script end, quotes, a
# comment end, a newline, ESC, a line separator, a bidi override, and length.
HOSTILE_NAMES = [
    "</script><script>window.__pwned = 1</script>",
    "<img src=x onerror=\"window.__pwned=1\">",
    "\"quotes' and `ticks`",
    "*/ --> <!-- ]]>",
    "two\nlines\r\nhere",
    "esc\x1b[31mred",
    "sep\u2028arator\u202eevil",
    "&amp; &lt;",
    "long/" + "x" * 3000,
]

CTAB = 0x42415443  # 'CTAB'


def ctab_shader(name: str) -> bytes:
    """A ps_2_0 shader reading c0, whose constant table names c0 ``name``."""
    raw = name.encode("utf-8", errors="surrogatepass") + b"\0"
    header = 28
    info_at = header
    type_at = info_at + 20
    name_at = type_at + 16
    creator_at = name_at + len(raw)
    target_at = creator_at + 2
    payload = struct.pack("<7I", header, creator_at, 0xFFFF0200, 1, info_at, 0, target_at)
    payload += struct.pack("<IHHHHII", name_at, 2, 0, 1, 0, type_at, 0)  # float4 in c0
    payload += struct.pack("<HHHHHHI", 1, 3, 1, 4, 1, 0, 0)  # vector, float, 1x4
    payload += raw + b"x\0" + b"ps_2_0\0"
    payload += b"\0" * (-len(payload) % 4)
    body = assemble_bytes("ps_2_0\nmov oC0, c0\n")
    comment = struct.pack("<II", 0xFFFE | ((len(payload) // 4 + 1) << 16), CTAB) + payload
    return body[:4] + comment + body[4:]
