"""Tests of the CTAB constant-table parser and fxc-style listing header.

Real tables come from ``shared/peer-corpus`` (fxc output, Wine's d3dx9 test
arrays, vkd3d's compiler output); malformed tables are built here field by
field so that every error offset can be checked exactly.
"""

from __future__ import annotations

import json
import struct
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from xlate.bytecode.ctab import (
    Constant,
    ConstantTable,
    ParameterClass,
    ParameterType,
    RegisterSet,
    _parse_plain,
    _Parser,
    format_ctab,
    parse_ctab,
)
from xlate.errors import CtabError

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "peer-corpus"
FXC_WINE = CORPUS / "fxc-wine"
FX_2_0_MAGIC = 0xFEFF0901

needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"peer corpus not found at {CORPUS} (shared reference material absent)"
)


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def ctab_payload(blob: bytes) -> tuple[bytes, int] | None:
    """The CTAB payload (after the FourCC) and its absolute offset, or None.

    Walks the comments that follow the version token (Wine's tests put a
    TEXT comment first).  A comment that claims more DWORDs than the blob
    holds is cut at the end of the blob: some of Wine's test arrays are
    deliberately partial.
    """
    ntokens = len(blob) // 4
    i = 1
    while i < ntokens:
        token = struct.unpack_from("<I", blob, i * 4)[0]
        if token & 0xFFFF != 0xFFFE:
            return None
        size = (token >> 16) & 0x7FFF
        data = blob[(i + 1) * 4:(i + 1 + size) * 4]
        if data[:4] == b"CTAB":
            return data[4:], (i + 1) * 4 + 4
        i += 1 + size
    return None


def fxc_header(asm_text: str) -> list[str]:
    """The constant-table lines of an fxc ``/Fc`` listing, trailing blanks removed.

    That is the block before the blank line that precedes the version
    instruction, from the ``//`` above ``// Parameters:``; [] when fxc
    printed none.  An effect's shader with a preshader has an earlier block
    for the preshader's own table; only the last one belongs to the shader.
    """
    lines = asm_text.splitlines()
    version = next(i for i, line in enumerate(lines) if line.startswith(("    vs_", "    ps_")))
    if lines[version - 1] != "" or lines[version - 2] != "//":
        return []
    start = max(i for i in range(version) if lines[i] == "// Parameters:") - 1
    return [line.rstrip() for line in lines[start:version - 1]]


@lru_cache(maxsize=None)
def fxc_wine_entries() -> tuple[tuple[dict, bytes], ...]:
    """(index entry, blob) for every fxc-wine shader blob (effects left out)."""
    out = []
    with open(FXC_WINE / "index.jsonl") as f:
        for line in f:
            entry = json.loads(line)
            if entry["kind"] == "effect":
                continue
            blob = (FXC_WINE / entry["path"]).read_bytes()
            if struct.unpack_from("<I", blob)[0] == FX_2_0_MAGIC:
                continue
            out.append((entry, blob))
    return tuple(out)


def fxc_wine_table(name: str) -> ConstantTable:
    blob = (FXC_WINE / "dxdecompiler" / name).read_bytes()
    payload, base = ctab_payload(blob)
    return parse_ctab(payload, base)


def wine_shader(array_name: str) -> dict:
    with open(CORPUS / "wine" / "shaders.jsonl") as f:
        for line in f:
            entry = json.loads(line)
            if entry["array_name"] == array_name:
                return entry
    raise KeyError(array_name)


def words_to_bytes(words: list[int]) -> bytes:
    return struct.pack(f"<{len(words)}I", *words)


# --------------------------------------------------------------------------
# Real tables
# --------------------------------------------------------------------------


@needs_corpus
def test_every_fxc_wine_table_parses():
    parsed = 0
    for entry, blob in fxc_wine_entries():
        found = ctab_payload(blob)
        if found is None:
            # Hand-written assembly wrapped in an effect carries no CTAB.
            assert entry["kind"] == "fx_embedded", entry["path"]
            continue
        ctab = parse_ctab(*found)
        parsed += 1
        assert ctab.creator.startswith("Microsoft (R) HLSL Shader Compiler"), entry["path"]
        assert ctab.version_token == struct.unpack_from("<I", blob)[0], entry["path"]
        if entry["kind"] == "fx_embedded":
            # The index says ps_2_x where the effect compiled for ps_2_a/ps_2_b.
            assert ctab.target[:4] == entry["profile"][:4], entry["path"]
        else:
            assert ctab.target == entry["profile"], entry["path"]
        for constant in ctab.constants:
            # Lookup by register finds each constant at both ends of its range.
            assert ctab.find(constant.register_set, constant.register_index) is constant
            assert ctab.find(constant.register_set, constant.register_end - 1) is constant
    assert parsed > 3000


@needs_corpus
def test_hlsldecompiler_fxc_tables_parse():
    files = sorted((CORPUS / "fxc" / "hlsldecompiler" / "CompiledShaders").glob("**/*.fxc"))
    assert len(files) >= 50
    for path in files:
        blob = path.read_bytes()
        found = ctab_payload(blob)
        assert found is not None, path
        ctab = parse_ctab(*found)
        assert ctab.creator.startswith("Microsoft"), path
        assert ctab.target == path.parent.name, path
        assert ctab.version_token == struct.unpack_from("<I", blob)[0]


@needs_corpus
def test_vkd3d_tables_parse():
    files = sorted((CORPUS / "vkd3d").glob("*.d3dbc"))
    assert files
    for path in files:
        ctab = parse_ctab(*ctab_payload(path.read_bytes()))
        assert ctab.creator.startswith("vkd3d-shader"), path


@needs_corpus
def test_known_values_matrix_and_sampler():
    ctab = fxc_wine_table("AntiAlias__AntiAlias.ColorVS.vs_1_1.bin")
    (mvp,) = ctab.constants
    assert mvp.name == "g_mWorldViewProjection"
    assert (mvp.register_set, mvp.register_index, mvp.register_count) == (RegisterSet.FLOAT4, 0, 4)
    assert mvp.type.cls is ParameterClass.MATRIX_COLUMNS
    assert mvp.type.type is ParameterType.FLOAT
    assert (mvp.type.rows, mvp.type.columns, mvp.type.elements) == (4, 4, 1)
    assert ctab.target == "vs_1_1"
    assert ctab.creator == "Microsoft (R) HLSL Shader Compiler 9.29.952.3111"

    ctab = fxc_wine_table("BasicHLSL__BasicHLSL.RenderScenePS.ps_3_0+Gfp.bin")
    sampler = ctab.by_name("MeshTextureSampler")
    assert (sampler.register_set, sampler.register_index, sampler.register_count) == (RegisterSet.SAMPLER, 0, 1)
    assert sampler.type.cls is ParameterClass.OBJECT and sampler.type.type is ParameterType.SAMPLER2D
    assert ctab.find(RegisterSet.SAMPLER, 0) is sampler
    assert ctab.find(RegisterSet.BOOL, 0).name == "$bTexture"
    assert ctab.find(RegisterSet.FLOAT4, 0) is None

    # A sampler array takes one s# per element.
    (samplers,) = fxc_wine_table("Internal__Effect_SamplerArray.RenderScenePS.ps_2_0+Gpp.bin").constants
    assert (samplers.name, samplers.register_count, samplers.type.elements) == ("samp3", 2, 2)


@needs_corpus
def test_known_values_sets_arrays_trimmed_registers():
    ctab = fxc_wine_table("BasicHLSL__BasicHLSL.RenderSceneVS.vs_2_0+Gfp.bin")
    assert ctab.find(RegisterSet.BOOL, 1).name == "$bTexture"
    assert ctab.find(RegisterSet.INT4, 0).name == "$nNumLights"
    light_dir = ctab.find(RegisterSet.FLOAT4, 6)
    assert light_dir.name == "g_LightDir" and light_dir.type.elements == 3 and light_dir.register_index == 4
    # fxc trims a float4x4 to the 3 registers the shader reads.
    world = ctab.by_name("g_mWorld")
    assert (world.register_index, world.register_count, world.type.rows) == (10, 3, 4)
    assert ctab.find(RegisterSet.FLOAT4, 13).name == "g_MaterialAmbientColor"

    # One variable in two register sets: look up by (set, index).
    ctab = fxc_wine_table("HDRFormats__HDRFormats.DownScale2x2_Lum.ps_3_0+Zi.bin")
    assert ctab.find(RegisterSet.BOOL, 0).name == "$RGBE8"
    assert ctab.find(RegisterSet.FLOAT4, 4).name == "$RGBE8"
    assert ctab.find(RegisterSet.FLOAT4, 5).name == "$RGB16"
    assert ctab.by_name("$RGBE8", RegisterSet.BOOL).register_index == 0
    assert ctab.by_name("$RGBE8", RegisterSet.FLOAT4).register_index == 4


@needs_corpus
def test_known_values_structs():
    ctab = fxc_wine_table("Internal__Effect_Structs.VertScene.vs_3_0.bin")
    test_struct = ctab.by_name("testStruct")
    assert (test_struct.register_index, test_struct.register_count) == (10, 10)
    t = test_struct.type
    assert t.cls is ParameterClass.STRUCT and t.is_struct
    assert [m.name for m in t.members] == ["Member1", "Member2", "Member3", "Member4", "Member5", "Member6"]
    assert t.members[0].type.type is ParameterType.INT
    assert [m.name for m in t.members[1].type.members] == ["Member1", "Member2"]
    assert t.members[2].type.elements == 2
    simple_arr = ctab.by_name("simpleArr")
    assert simple_arr.type.elements == 5 and simple_arr.type.is_struct
    assert ctab.find(RegisterSet.FLOAT4, 22).name == "index"


@needs_corpus
def test_known_default_values():
    ctab = fxc_wine_table("CompiledEffect__CompiledEffect.RenderSceneVS.vs_2_0.bin")
    assert ctab.by_name("g_LightDiffuse").default_registers == ((1.0, 1.0, 1.0, 1.0),)
    x, y, z, w = ctab.by_name("g_LightDir").default_registers[0]
    assert x == y == -z == pytest.approx(0.57735026) and w == 0.0
    assert ctab.by_name("g_mWorld").default_value is None

    # vkd3d: float2 a = {1, 2}; float4x2 b = {1, ..., 8} (column-major, so one
    # register per column); a struct default spans all its registers.
    ctab = parse_ctab(*ctab_payload((CORPUS / "vkd3d" / "default-values__0.ps_2_0.d3dbc").read_bytes()))
    assert ctab.by_name("a").default_registers == ((1.0, 2.0, 0.0, 0.0),)
    assert ctab.by_name("b").default_registers == ((1.0, 3.0, 5.0, 7.0), (2.0, 4.0, 6.0, 8.0))
    ctab = parse_ctab(*ctab_payload((CORPUS / "vkd3d" / "default-values__8.ps_2_0.d3dbc").read_bytes()))
    assert len(ctab.by_name("ap").default_value) == 4 * 16


@needs_corpus
def test_default_covers_the_whole_type_not_register_count():
    # fxc trims RegisterCount to what the shader reads but writes defaults
    # for every element: float2 g_avSampleOffsets[16] uses 9 registers here.
    ctab = fxc_wine_table("HDRFormats__HDRFormats.fxobj00.ps_2_0.bin")
    offsets = ctab.by_name("g_avSampleOffsets")
    assert offsets.register_count == 9 and offsets.type.elements == 16
    assert len(offsets.default_value) == 16 * 16


# --------------------------------------------------------------------------
# Wine's d3dx9 test arrays
# --------------------------------------------------------------------------


@needs_corpus
def test_wine_ctab_arrays():
    seen = 0
    with open(CORPUS / "wine" / "shaders.jsonl") as f:
        entries = [json.loads(line) for line in f]
    for entry in entries:
        if "ctab" not in entry["id"].lower():
            continue
        seen += 1
        name = entry["array_name"]
        payload, base = ctab_payload(words_to_bytes(entry["bytecode"]))
        if name == "shader_with_invalid_ctab":
            with pytest.raises(CtabError) as info:
                parse_ctab(payload, base)
            assert info.value.offset == 12 and "too short for its 28-byte header" in info.value.reason
        elif name == "ctab_arrays":
            # Wine's array declares its comment 2 DWORDs too short: the
            # creator string "Wine project" crosses the end of the comment.
            with pytest.raises(CtabError) as info:
                parse_ctab(payload, base)
            assert info.value.offset == base + 0x13C and "no NUL terminator" in info.value.reason
        else:
            ctab = parse_ctab(payload, base)
            assert ctab.version_token == entry["bytecode"][0]
            format_ctab(ctab)
    assert seen == 9


@needs_corpus
def test_wine_ctab_values():
    def table(array_name):
        return parse_ctab(*ctab_payload(words_to_bytes(wine_shader(array_name)["bytecode"])))

    ctab = table("ctab_basic")
    assert (ctab.creator, ctab.target) == ("Wine project", "vs_3_0")
    assert [(c.name, c.register_index, c.type.hlsl_name) for c in ctab.constants] == [
        ("f", 6, "float"), ("f4", 7, "float4"), ("i", 4, "int"), ("i4", 5, "int4"), ("mvp", 0, "float4x4"),
    ]
    ctab = table("ctab_matrices")
    assert ctab.by_name("imatrix2x3").type.cls is ParameterClass.MATRIX_ROWS
    assert ctab.by_name("imatrix2x3").type.hlsl_name == "row_major int2x3"
    # Target and creator share one block of bytes in this array.
    ctab = table("ctab_matrices2")
    assert (ctab.target, ctab.creator) == ("vs_2_0", "AAAAAAAA")
    assert ctab.find(RegisterSet.FLOAT4, 14).name == "c3x2"
    ctab = table("ctab_samplers")
    assert ctab.find(RegisterSet.SAMPLER, 3).type.type is ParameterType.SAMPLER3D
    ctab = table("ctab_with_default_values")
    assert ctab.by_name("arr").default_registers == ((100.0, 0, 0, 0), (200.0, 0, 0, 0), (300.0, 0, 0, 0))
    assert ctab.by_name("mat4").default_floats == tuple(float(v) for v in (1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 4, 8, 12, 16))
    assert ctab.by_name("vec4").default_registers == ((10.0, 20.0, 30.0, 40.0),)
    # A TEXT comment comes before the CTAB here; its table is empty.
    ctab = table("shader_with_ctab")
    assert ctab.constants == () and format_ctab(ctab) == []


# --------------------------------------------------------------------------
# Malformed tables, built by hand
# --------------------------------------------------------------------------

BASE = 12  # version token + comment token + 'CTAB': where payload[0] sits in a blob

# Layout of the hand-built table (payload offsets):
HEADER_AT, INFO_AT, TYPE_AT, NAME_AT, TARGET_AT, CREATOR_AT, DEFAULT_AT = 0, 28, 48, 64, 68, 76, 88


def table(*, default: bool = True) -> bytearray:
    """A valid one-constant table: ``float4 c`` in c3 with a default value."""
    out = bytearray(104)
    struct.pack_into("<7I", out, HEADER_AT, 28, CREATOR_AT, 0xFFFE0300, 1, INFO_AT, 0x100, TARGET_AT)
    struct.pack_into("<I4HII", out, INFO_AT, NAME_AT, RegisterSet.FLOAT4, 3, 1, 0, TYPE_AT,
                     DEFAULT_AT if default else 0)
    struct.pack_into("<6HI", out, TYPE_AT, ParameterClass.VECTOR, ParameterType.FLOAT, 1, 4, 1, 0, 0)
    out[NAME_AT:NAME_AT + 4] = b"c\0\0\0"
    out[TARGET_AT:TARGET_AT + 8] = b"vs_3_0\0\0"
    out[CREATOR_AT:CREATOR_AT + 12] = b"Microsoft\0\0\0"
    struct.pack_into("<4f", out, DEFAULT_AT, 1.0, 2.0, 3.0, 4.0)
    return out


def put32(data: bytearray, offset: int, value: int) -> bytearray:
    struct.pack_into("<I", data, offset, value)
    return data


def error_of(payload) -> CtabError:
    with pytest.raises(CtabError) as info:
        parse_ctab(bytes(payload), BASE)
    return info.value


def test_hand_built_table_parses():
    ctab = parse_ctab(bytes(table()), BASE)
    assert (ctab.creator, ctab.target, ctab.version_token, ctab.flags) == ("Microsoft", "vs_3_0", 0xFFFE0300, 0x100)
    (c,) = ctab.constants
    assert (c.name, c.register_set, c.register_index, c.register_count) == ("c", RegisterSet.FLOAT4, 3, 1)
    assert c.default_floats == (1.0, 2.0, 3.0, 4.0)
    assert ctab.find(RegisterSet.FLOAT4, 3) is c and ctab.find(RegisterSet.FLOAT4, 4) is None
    assert ctab.find(RegisterSet.INT4, 3) is None
    assert ctab.by_name("c") is c and ctab.by_name("d") is None
    assert format_ctab(ctab)[3] == "//   float4 c;"
    assert parse_ctab(bytes(table(default=False)), BASE).constants[0].default_value is None


def test_truncated_header():
    err = error_of(table()[:20])
    assert err.offset == BASE
    assert err.reason == "the constant table is 20 bytes long, too short for its 28-byte header"
    assert error_of(b"").offset == BASE


def test_bad_header_size():
    err = error_of(put32(table(), 0, 32))
    assert err.offset == BASE
    assert err.reason == "the constant table header size is 32; it must be 28"


def test_creator_offset_past_end():
    err = error_of(put32(table(), 4, 0x1000))
    assert err.offset == BASE + 4
    assert err.reason == "the creator string offset 0x1000 is outside the 104-byte constant table"


def test_target_offset_past_end():
    err = error_of(put32(table(), 24, 104))
    assert err.offset == BASE + 24
    assert "target string offset 0x68 is outside" in err.reason


def test_unterminated_string():
    data = table()[:NAME_AT + 1]  # the name "c" loses its NUL: it is now the last byte
    put32(data, 4, NAME_AT)  # creator -> "c" too, so it is read first
    err = error_of(data)
    assert err.offset == BASE + NAME_AT
    assert err.reason == "the creator string at table offset 0x40 has no NUL terminator"


def test_constant_array_past_end():
    err = error_of(put32(table(), 12, 5))
    assert err.offset == BASE + 12
    assert err.reason == (
        "the array of 5 constant descriptions at table offset 0x1c (100 bytes) "
        "runs past the end of the 104-byte constant table"
    )


def test_huge_constant_count():
    err = error_of(put32(table(), 12, 0xFFFFFFFF))
    assert err.offset == BASE + 12
    assert "array of 4294967295 constant descriptions" in err.reason


def test_constant_info_offset_past_end():
    err = error_of(put32(table(), 16, 0xFFFFFFF0))
    assert err.offset == BASE + 12  # the count and the offset are checked together, as the count
    assert "array of 1 constant descriptions at table offset 0xfffffff0 (20 bytes)" in err.reason


def test_constant_name_past_end():
    err = error_of(put32(table(), INFO_AT, 200))
    assert err.offset == BASE + INFO_AT
    assert err.reason == "the constant name string offset 0xc8 is outside the 104-byte constant table"


def test_type_offset_past_end():
    err = error_of(put32(table(), INFO_AT + 12, 100))
    assert err.offset == BASE + INFO_AT + 12
    assert err.reason == "the type description at table offset 0x64 (16 bytes) runs past the end of the 104-byte constant table"


def test_default_value_past_end():
    err = error_of(put32(table(), INFO_AT + 16, 96))
    assert err.offset == BASE + INFO_AT + 16
    assert err.reason == "the default value at table offset 0x60 (16 bytes) runs past the end of the 104-byte constant table"


def test_default_value_sized_by_type():
    # A float4[2] needs 32 bytes of default even when RegisterCount says 1.
    data = table()
    struct.pack_into("<H", data, TYPE_AT + 8, 2)
    err = error_of(data)
    assert err.offset == BASE + INFO_AT + 16 and "(32 bytes)" in err.reason


def struct_table(members_at: int, nmembers: int) -> bytearray:
    """``table()`` with its type turned into a struct; room for members at 104.."""
    data = table() + bytearray(64)
    struct.pack_into("<6HI", data, TYPE_AT, ParameterClass.STRUCT, ParameterType.VOID, 1, 4, 1, nmembers, members_at)
    return data


def test_self_referential_struct():
    data = struct_table(104, 1)
    struct.pack_into("<II", data, 104, NAME_AT, TYPE_AT)  # member "c" of type <itself>
    err = error_of(data)
    assert err.offset == BASE + 104 + 4
    assert err.reason == "the type at table offset 0x30 contains itself"


def test_struct_members_past_end():
    err = error_of(struct_table(104, 0xFFFF))
    assert err.offset == BASE + TYPE_AT + 10
    assert err.reason == (
        "the struct member array at table offset 0x68 (524280 bytes) runs past the end "
        "of the 168-byte constant table"
    )


def chain(length: int, fanout: int) -> bytearray:
    """A struct of ``fanout`` members of the next struct, ``length`` deep; the last is a float."""
    data = table(default=False)
    at = len(data)
    type_offsets = [at + i * 16 for i in range(length + 1)]
    members_at = at + (length + 1) * 16
    data += bytearray((length + 1) * 16 + length * 8 * fanout)
    struct.pack_into("<I", data, INFO_AT + 12, type_offsets[0])
    for level in range(length):
        mine = members_at + level * 8 * fanout
        struct.pack_into("<6HI", data, type_offsets[level], ParameterClass.STRUCT, 0, 1, 4, 1, fanout, mine)
        for k in range(fanout):
            struct.pack_into("<II", data, mine + 8 * k, NAME_AT, type_offsets[level + 1])
    struct.pack_into("<6HI", data, type_offsets[length], ParameterClass.SCALAR, ParameterType.FLOAT, 1, 1, 1, 0, 0)
    return data


def test_deep_struct_chain():
    ctab = parse_ctab(bytes(chain(32, 1)), BASE)  # 32 levels are accepted
    assert ctab.constants[0].type.members[0].type.is_struct
    err = error_of(chain(40, 1))
    assert err.reason == "structs are nested more than 32 levels deep"
    # Blamed on the type field of the member record that reaches level 33.
    members_at = 104 + 41 * 16
    assert err.offset == BASE + members_at + 32 * 8 + 4


def test_shared_struct_dag_does_not_explode():
    # 30 levels of two members that share the next type: 2**30 nodes expanded.
    err = error_of(chain(30, 2))
    assert "the struct types expand to more than" in err.reason
    # The same DAG, only 5 levels deep, is fine and shares its TypeInfo objects.
    ctab = parse_ctab(bytes(chain(5, 2)), BASE)
    top = ctab.constants[0].type
    assert top.members[0].type is top.members[1].type


def test_overlapping_defaults_are_bounded():
    # 40 constants whose defaults all cover the same 8 KiB: copying them all
    # would take 40x the table, so the parser refuses.
    count = 40
    info_at, type_at, name_at, default_at = 28, 28 + 20 * count, 28 + 20 * count + 16, 28 + 20 * count + 20
    registers = 512
    data = bytearray(default_at + registers * 16)
    struct.pack_into("<7I", data, 0, 28, name_at, 0xFFFE0300, count, info_at, 0, name_at)
    for i in range(count):
        struct.pack_into("<I4HII", data, info_at + 20 * i, name_at, RegisterSet.FLOAT4, 0, registers, 0, type_at, default_at)
    struct.pack_into("<6HI", data, type_at, ParameterClass.VECTOR, ParameterType.FLOAT, 1, 4, registers, 0, 0)
    data[name_at:name_at + 4] = b"x\0\0\0"
    err = error_of(data)
    assert "overlaps other data so often" in err.reason
    assert (err.offset - BASE - info_at - 16) % 20 == 0


def test_unknown_enum_values_are_kept_as_ints():
    data = table()
    struct.pack_into("<H", data, INFO_AT + 4, 9)  # register set 9
    struct.pack_into("<HH", data, TYPE_AT, 42, 77)  # class 42, type 77
    ctab = parse_ctab(bytes(data), BASE)
    (c,) = ctab.constants
    assert c.register_set == 9 and not isinstance(c.register_set, RegisterSet)
    assert c.type.cls == 42 and not isinstance(c.type.cls, ParameterClass)
    assert c.type.type == 77 and not isinstance(c.type.type, ParameterType)
    assert ctab.find(9, 3) is c
    assert len(format_ctab(ctab)) > 5


def test_untrusted_names_decode():
    data = table()
    data[NAME_AT:NAME_AT + 4] = b"\xff\x80\0\0"
    assert parse_ctab(bytes(data), BASE).constants[0].name == "\xff\x80"


def test_ctab_error_is_picklable_and_a_bytecode_error():
    import pickle

    from xlate.errors import BytecodeError

    err = error_of(table()[:4])
    assert isinstance(err, BytecodeError)
    again = pickle.loads(pickle.dumps(err))
    assert (again.offset, again.reason) == (err.offset, err.reason)


# --------------------------------------------------------------------------
# Mutation fuzzing
# --------------------------------------------------------------------------

FUZZ_SEEDS = [
    "Internal__Effect_Structs.VertScene.vs_3_0.bin",
    "BasicHLSL__BasicHLSL.RenderSceneVS.vs_2_0+Gfp.bin",
    "HDRFormats__HDRFormats.DownScale2x2_Lum.ps_3_0+Zi.bin",
    "CompiledEffect__CompiledEffect.RenderSceneVS.vs_2_0.bin",
    "Internal__Effect_SamplerArray.RenderScenePS.ps_2_0+Gpp.bin",
]


@lru_cache(maxsize=None)
def fuzz_payloads() -> tuple[bytes, ...]:
    out = [bytes(table()), bytes(chain(3, 2))]
    for name in FUZZ_SEEDS:
        out.append(ctab_payload((FXC_WINE / "dxdecompiler" / name).read_bytes())[0])
    return tuple(out)


mutation = st.one_of(
    st.tuples(st.just("byte"), st.integers(0, 1 << 16), st.integers(0, 255)),
    # Overwrite an aligned DWORD: hits offsets and counts far more often
    # than single bytes do.
    st.tuples(st.just("dword"), st.integers(0, 1 << 14),
              st.one_of(st.integers(0, 512), st.integers(0, 0xFFFFFFFF))),
    st.tuples(st.just("truncate"), st.integers(0, 1 << 16), st.just(0)),
)


@needs_corpus
@settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, len(FUZZ_SEEDS) + 1), mutations=st.lists(mutation, min_size=1, max_size=6))
def test_mutated_tables_parse_or_raise_ctab_error(seed, mutations):
    data = bytearray(fuzz_payloads()[seed])
    for kind, where, value in mutations:
        if not data:
            break
        if kind == "byte":
            data[where % len(data)] = value
        elif kind == "dword" and len(data) >= 4:
            struct.pack_into("<I", data, (where * 4) % (len(data) - 3), value)
        elif kind == "truncate":
            del data[where % len(data):]
    try:
        ctab = parse_ctab(bytes(data), 100)
    except CtabError as err:
        assert 100 <= err.offset <= 100 + len(data)
        event(f"CtabError: {' '.join(err.reason.split()[:3])}")
        return
    event("parsed")
    assert isinstance(ctab, ConstantTable)
    assert all(isinstance(c, Constant) for c in ctab.constants)
    format_ctab(ctab)


def _general_parse(data: bytes):
    """``_Parser``'s table or error: what ``parse_ctab`` gives when its plain
    reader declines."""
    try:
        return _Parser(data, 0).parse()
    except CtabError as err:
        return err


@needs_corpus
def test_plain_reader_agrees_with_the_parser():
    """``_parse_plain`` (the common tables, read in one loop) makes the table
    ``_Parser`` makes, and declines (None) every table the parser refuses:
    over every fxc-wine table and mutations of them."""
    import random

    rng = random.Random(13)
    plain = declined = 0
    payloads = [found[0] for _entry, blob in fxc_wine_entries() if (found := ctab_payload(blob)) is not None]
    mutated = []
    for _ in range(3000):
        data = bytearray(rng.choice(payloads))
        if not data:
            continue
        where = rng.randrange(len(data))
        if rng.random() < 0.5:
            data[where] = rng.randrange(256)
        elif len(data) >= 4:
            struct.pack_into("<I", data, where & ~3 if where & ~3 <= len(data) - 4 else 0, rng.choice([0, 1, 16, 0xFFFF, rng.randrange(1 << 32)]))
        mutated.append(bytes(data))
    for data in payloads + mutated:
        ours = _parse_plain(data)
        theirs = _general_parse(data)
        if ours is None:
            declined += 1
            continue
        plain += 1
        assert ours == theirs
    assert plain > 3000 and declined > 100, (plain, declined)


# --------------------------------------------------------------------------
# fxc's listing header
# --------------------------------------------------------------------------

HEADER_SAMPLES = [
    "AntiAlias__AntiAlias.ColorVS.vs_1_1",  # one matrix
    "AntiAlias__AntiAlias.ColorPS.ps_2_0",  # empty table: no block at all
    "Internal__Effect_Structs.VertScene.vs_3_0",  # nested structs, struct arrays
    "Internal__Effect_Structs.VertScene.vs_2_0+Zpr",  # row_major members
    "Internal__Effect_Structs.PixScene.ps_2_0+Gpp",
    "BasicHLSL__BasicHLSL.RenderSceneVS.vs_2_0+Gfp",  # b#, i#, c#, arrays
    "HDRFormats__HDRFormats.DownScale2x2_Lum.ps_3_0+Zi",  # one name in two sets
    "Internal__Effect_SamplerArray.RenderScenePS.ps_2_0+Gpp",  # sampler array
    "BasicHLSL__BasicHLSL.fxobj01.vs_2_0",  # effect shader with a preshader
]


@needs_corpus
@pytest.mark.parametrize("stem", HEADER_SAMPLES)
def test_format_matches_fxc_listing(stem):
    ctab = fxc_wine_table(stem + ".bin")
    asm = (FXC_WINE / "dxdecompiler" / (stem + ".asm")).read_text()
    got = format_ctab(ctab)
    assert [line.rstrip() for line in got] == fxc_header(asm)
    # Byte for byte, trailing blanks included, where fxc printed a block.
    if got:
        lines = asm.splitlines()
        start = max(i for i, line in enumerate(lines) if line == "// Parameters:") - 1
        assert lines[start:start + len(got)] == got


@needs_corpus
def test_format_matches_the_whole_fxc_wine_corpus():
    total = matched = 0
    mismatches = []
    for entry, blob in fxc_wine_entries():
        found = ctab_payload(blob)
        if found is None:
            continue
        total += 1
        expected = fxc_header((FXC_WINE / entry["asm"]).read_text())
        if [line.rstrip() for line in format_ctab(parse_ctab(*found))] == expected:
            matched += 1
        else:
            mismatches.append(entry["path"])
    assert total > 3000
    assert not mismatches, f"{len(mismatches)} of {total} listings differ, e.g. {mismatches[:5]}"
