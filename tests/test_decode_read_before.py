"""The decoder's memory of plain instructions read before (``_Profile.read``):
a shader decodes to the same objects, offsets and errors whether its
instructions were read before (by another shader, or earlier in itself) or not."""

from __future__ import annotations

import pytest

from xlate.bytecode import decoder
from xlate.bytecode.asm import assemble_bytes
from xlate.errors import RegisterError

from corpus import corpus_available, valid_shaders


def _forget() -> None:
    for profile in decoder._PROFILES.values():
        profile.read.clear()


def _decoded(data: bytes) -> str:
    shader = decoder.decode(data)
    # (repr shows the offsets, which Shader equality leaves out)
    return repr((shader.items, shader.instructions, shader.ctab, shader.diagnostics))


@pytest.mark.skipif(not corpus_available(), reason="peer corpus absent")
def test_remembered_reads_make_the_same_shaders():
    shaders = [data for _id, data in valid_shaders()[::7]]  # a deterministic seventh
    fresh = []
    for data in shaders:
        _forget()
        fresh.append(_decoded(data))
    _forget()
    warm = [_decoded(data) for data in shaders]  # later shaders find earlier ones' instructions
    again = [_decoded(data) for data in shaders]  # every instruction read before
    assert warm == fresh and again == fresh
    assert sum(len(p.read) for p in decoder._PROFILES.values()) > 500


def test_a_remembered_dcl_is_still_declared():
    """A dcl found among the reads of before is remembered by the shader
    too: declaring the same semantic twice fails the same way both times."""
    data = assemble_bytes("vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\nmov o0, v0\n")
    twice = data.replace(b"\xff\xff\x00\x00", b"") + data[4:4 + 3 * 4] + b"\xff\xff\x00\x00"
    errors = []
    for _ in range(2):
        _forget()
        decoder.decode(data)  # (its dcl is now read before)
        with pytest.raises(RegisterError) as err:
            decoder.decode(twice)
        errors.append((err.value.offset, str(err.value)))
    _forget()
    with pytest.raises(RegisterError) as err:
        decoder.decode(twice)
    assert errors[0] == errors[1] == (err.value.offset, str(err.value))


def test_the_memory_is_bounded():
    _forget()
    lines = [f"add r{i % 32}, c{i % 200}, c{(i * 7) % 200}" for i in range(decoder._READ_BEFORE_LIMIT + 100)]
    decoder.decode(assemble_bytes("vs_3_0\n" + "\n".join(lines) + "\n"))
    profile = next(p for p in decoder._PROFILES.values() if str(p.version) == "vs_3_0")
    assert 0 < len(profile.read) <= decoder._READ_BEFORE_LIMIT
