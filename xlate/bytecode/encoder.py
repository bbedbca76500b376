"""``Shader`` -> bytes: the exact inverse of the decoder.

The encoder trusts the model's types but not its consistency with the
version: it writes what it is given.  ``decode(encode(s)) == s`` holds for
every shader the decoder produced, and ``encode(decode(b)) == b`` for every
blob it accepted.
"""

from __future__ import annotations

import struct

from .model import Comment, DestOperand, Instruction, RelativeAddress, Shader, SourceOperand
from .tables import BITS, END_TOKEN, COMMENT_OPCODE, Layout, ShaderVersion, register_type_bits


def encode(shader: Shader) -> bytes:
    """Encode a shader to its token stream."""
    tokens = encode_tokens(shader)
    return struct.pack(f"<{len(tokens)}I", *tokens)


def encode_tokens(shader: Shader) -> list[int]:
    version = shader.version
    out = [version.token]
    for item in shader.items:
        if isinstance(item, Comment):
            out.extend(comment_tokens(item.data))
        else:
            out.extend(instruction_tokens(item, version))
    out.append(END_TOKEN)
    return out


def comment_tokens(data: bytes) -> list[int]:
    padded = data + b"\0" * (-len(data) % 4)
    size = len(padded) // 4
    if size > 0x7FFF:
        raise ValueError(f"a comment holds at most 0x7FFF DWORDs, not {size}")
    return [COMMENT_OPCODE | (size << BITS.COMMENT_SIZE_SHIFT), *struct.unpack(f"<{size}I", padded)]


def instruction_tokens(inst: Instruction, version: ShaderVersion) -> list[int]:
    sm1 = version.major == 1
    params: list[int] = []
    info = inst.info
    if info.layout is Layout.DCL:
        assert inst.declaration is not None and inst.dst is not None
        params.append(inst.declaration.raw)
        params.extend(_dst(inst.dst, sm1))
    elif info.layout in (Layout.DEF, Layout.DEFI, Layout.DEFB):
        assert inst.dst is not None
        params.extend(_dst(inst.dst, sm1))
        params.extend(v & 0xFFFFFFFF for v in inst.literals)
    else:
        if inst.dst is not None:
            params.extend(_dst(inst.dst, sm1))
        if inst.predicate is not None:
            params.extend(_src(inst.predicate, sm1))
        for src in inst.srcs:
            params.extend(_src(src, sm1))
    token = int(inst.opcode) | ((inst.control & 0xFF) << BITS.CONTROL_SHIFT)
    if not sm1:
        if len(params) > 15:
            raise ValueError(f"'{info.mnemonic}' needs {len(params)} parameter tokens; the length field holds at most 15")
        token |= len(params) << BITS.LENGTH_SHIFT
    if inst.predicate is not None:
        token |= BITS.PREDICATED
    if inst.coissue:
        token |= BITS.COISSUE
    return [token, *params]


def _register_bits(rtype: int, index: int) -> int:
    return BITS.PARAM | register_type_bits(int(rtype)) | (index & BITS.REG_NUM_MASK)


def _relative(rel: RelativeAddress | None, sm1: bool) -> tuple[int, list[int]]:
    if rel is None:
        return 0, []
    if sm1 or rel.implicit:
        return BITS.RELATIVE, []
    return BITS.RELATIVE, [_register_bits(rel.type, rel.index) | ((rel.swizzle & 0xFF) << BITS.SWIZZLE_SHIFT)]


def _dst(d: DestOperand, sm1: bool) -> list[int]:
    rel_bit, extra = _relative(d.relative, sm1)
    token = (
        _register_bits(d.type, d.index)
        | rel_bit
        | ((d.write_mask & 0xF) << BITS.WRITEMASK_SHIFT)
        | ((int(d.modifiers) & 0xF) << BITS.DSTMOD_SHIFT)
        | ((d.shift & 0xF) << BITS.SHIFT_SHIFT)
    )
    return [token, *extra]


def _src(s: SourceOperand, sm1: bool) -> list[int]:
    rel_bit, extra = _relative(s.relative, sm1)
    token = (
        _register_bits(s.type, s.index)
        | rel_bit
        | ((s.swizzle & 0xFF) << BITS.SWIZZLE_SHIFT)
        | ((int(s.modifier) & 0xF) << BITS.SRCMOD_SHIFT)
    )
    return [token, *extra]
