"""The namer against hostile names (CTAB names are untrusted input)."""

from __future__ import annotations

import re

import pytest

from xlate.backends.names import KEYWORDS, MAX_LENGTH, Namer, is_reserved, sanitize

LEGAL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def legal(name: str) -> bool:
    return bool(LEGAL.match(name)) and not is_reserved(name) and len(name) <= MAX_LENGTH + 8


@pytest.mark.parametrize("raw", [
    "if", "float", "vec4", "texture2D", "sampler", "main", "sin", "gl_Position", "gl_x", "GL_ES", "Gl_foo",
    "__a", "a__b", "_", "__", "", "0abc", "123", "é", "日本語", "x" * 10_000, "a b-c.d", "$$", "__LINE__",
    "input", "output", "demote", "texture2DLodEXT", "ugl_x",
])
def test_sanitize_is_legal(raw):
    assert legal(sanitize(raw)), (raw, sanitize(raw))


def test_keywords_are_renamed():
    for kw in sorted(KEYWORDS):
        n = Namer().name(kw)
        assert n != kw and legal(n)


def test_duplicates_get_suffixes_without_double_underscores():
    namer = Namer()
    names = [namer.name(x) for x in ["a", "a", "a", "a_", "a_2", "if", "if", "if_"]]
    assert len(set(names)) == len(names)
    assert all(legal(n) for n in names)
    assert names[:3] == ["a", "a_2", "a_3"]


def test_long_names_are_cut_and_stay_unique():
    namer = Namer()
    a = namer.name("x" * 10_000)
    b = namer.name("x" * 9_999 + "y")
    assert a != b and len(a) <= MAX_LENGTH + 8 and len(b) <= MAX_LENGTH + 8


def test_non_ascii_and_gl_prefix():
    namer = Namer()
    assert namer.name("gl_Position") == "ugl_Position"
    assert namer.name("GL_ES").lower().startswith("ugl_")
    n = namer.name("Größe")
    assert n.isascii() and legal(n)


def test_reserved_fixed_names_win():
    namer = Namer()
    namer.reserve("v_texcoord0")
    assert namer.name("v_texcoord0") == "v_texcoord0_2"
    with pytest.raises(ValueError):
        namer.reserve("v_texcoord0")


def test_hostile_ctab_names_compile(tmp_path):
    """CTAB entries with hostile names still give valid GLSL (glslang)."""
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from irkit import Kit

    from xlate.backends import generate, get_target, resolve_options
    from xlate.backends.check import validate_glsl
    from xlate.bytecode.ctab import Constant, ConstantTable, TypeInfo
    from xlate.bytecode.tables import RegisterType as R
    from xlate.ir.ops import Code
    from xlate.options import Options

    hostile = ["if", "gl_Position", "__a", "é日本", "x" * 10_000, "dup", "dup", "v_texcoord0", "xl_viewport", "main"]
    ti = TypeInfo.__new__(TypeInfo)  # the emitter never reads the type
    consts = tuple(Constant(n, 2, i, 1, ti) for i, n in enumerate(hostile))
    ctab = ConstantTable("hostile", 0, 0, "ps_3_0", consts)
    k = Kit("ps_3_0", ctab=ctab)
    c = k.const_file(len(hostile))
    o = k.output("oC0", (R.COLOROUT, 0), "color", 0)
    total = k.load(c, 0)
    for i in range(1, len(hostile)):
        total = k.op(Code.FADD, total, k.load(c, i))
    k.store(o, total)
    items = []
    for t in ("glsl120", "glsl330", "essl100", "essl300", "glsl450"):
        tgt = get_target(t)
        code, refl = generate(k.program, tgt, resolve_options(tgt, Options()))
        names = [e["glsl"] for e in refl["constants"]]
        assert len(set(names)) == len(hostile) and all(legal(n) for n in names)
        items.append((code, "fragment"))
    assert validate_glsl(items) == [None] * len(items)
