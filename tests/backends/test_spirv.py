"""The spirv target: glslang -V output that spirv-val accepts."""

from __future__ import annotations

import struct

import pytest

from xlate import translate
from xlate.backends.spirv import SpirvError, check
from xlate.bytecode.asm import assemble_bytes

SHADERS = {
    "ps_tex": """ps_3_0
dcl_texcoord0 v0.xy
dcl_2d s0
dcl vFace
dcl vPos.xy
texld r0, v0, s0
dsy r1, v0
add r0, r0, r1
mul r0, r0, vFace
add oC0, r0, vPos.xyxy
""",
    "vs_loop": """vs_3_0
dcl_position v0
dcl_position o0
defi i0, 4, 0, 1, 0
mov r0, c0
loop aL, i0
add r0, r0, c1[aL]
endloop
add o0, v0, r0
""",
    "vs2": """vs_2_0
dcl_position v0
mov oPos, v0
mov oD0, c3
mov oT0.xy, v0
""",
}


@pytest.mark.parametrize("name", sorted(SHADERS))
def test_spirv_valid(name):
    t = translate(assemble_bytes(SHADERS[name]), "spirv")
    assert isinstance(t.code, bytes) and struct.unpack_from("<I", t.code)[0] == 0x07230203
    check(t.code)  # spirv-val again, explicitly
    for c in t.reflection["constants"] + t.reflection["samplers"]:
        assert c["set"] == (0 if t.reflection["stage"] == "vertex" else 1) and "binding" in c


def test_vulkan_defaults():
    t = translate(assemble_bytes(SHADERS["ps_tex"]), "vulkan")
    assert t.reflection["options"]["flip_y"] is True and t.reflection["options"]["clip_z"] is False
    assert "-dFdy" not in t.code  # flipped: D3D's +y is Vulkan's +y
    g = translate(assemble_bytes(SHADERS["ps_tex"]), "glsl330")
    assert "-dFdy" in g.code


def test_check_rejects_garbage():
    with pytest.raises(SpirvError):
        check(b"\x00" * 20)
