"""D3D9 shader bytecode tables, written once as data.

The decoder, encoder, disassembler and assembler all read these tables; no
other module hard-codes an opcode value, operand count or register limit.
Sources: ``shared/spec/`` (token formats, opcode list) and
``shared/semantics/D3D9_SEMANTICS.md`` sections 1.10-1.15 and 3.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

# --------------------------------------------------------------------------
# Versions
# --------------------------------------------------------------------------


class ShaderKind(enum.IntEnum):
    VERTEX = 0xFFFE
    PIXEL = 0xFFFF

    @property
    def prefix(self) -> str:
        return "vs" if self is ShaderKind.VERTEX else "ps"


SW_MINOR = 0xFF  # vs_2_sw, vs_3_sw, ps_2_sw, ps_3_sw


@dataclass(frozen=True, order=True)
class ShaderVersion:
    """A version token.  ``minor`` is kept raw (1 means 2_x in SM2, 0xFF _sw)."""

    kind: ShaderKind
    major: int
    minor: int

    @property
    def token(self) -> int:
        return (int(self.kind) << 16) | (self.major << 8) | self.minor

    @property
    def is_vertex(self) -> bool:
        return self.kind is ShaderKind.VERTEX

    @property
    def is_pixel(self) -> bool:
        return self.kind is ShaderKind.PIXEL

    @property
    def is_sw(self) -> bool:
        return self.minor == SW_MINOR

    @property
    def key(self) -> tuple[int, int]:
        """Ordering key: (1,0)<(1,1)<...<(1,4)<(2,0)<(2,1)=2_x<(2,255)=2_sw<(3,0)<(3,255)."""
        return (self.major, self.minor)

    def at_least(self, major: int, minor: int = 0) -> bool:
        return self.key >= (major, minor)

    @property
    def name(self) -> str:
        if self.is_sw:
            minor = "sw"
        elif self.major == 2 and self.minor == 1:
            minor = "x"
        else:
            minor = str(self.minor)
        return f"{self.kind.prefix}_{self.major}_{minor}"

    def __str__(self) -> str:
        return self.name

    @classmethod
    def parse(cls, text: str) -> "ShaderVersion":
        """Parse ``vs_3_0``, ``ps.1.4``, ``vs_2_x``, ``ps_3_sw`` (case-insensitive)."""
        t = text.strip().lower().replace(".", "_")
        parts = t.split("_")
        if len(parts) != 3 or parts[0] not in ("vs", "ps"):
            raise ValueError(f"not a shader version: {text!r}")
        kind = ShaderKind.VERTEX if parts[0] == "vs" else ShaderKind.PIXEL
        major = int(parts[1])
        if parts[2] == "x":
            minor = 1
        elif parts[2] == "sw":
            minor = SW_MINOR
        else:
            minor = int(parts[2])
        version = cls(kind, major, minor)
        if version not in KNOWN_VERSIONS:
            raise ValueError(f"unsupported shader version: {text!r}")
        return version


def _versions() -> frozenset[ShaderVersion]:
    vs = [(1, 0), (1, 1), (2, 0), (2, 1), (2, SW_MINOR), (3, 0), (3, SW_MINOR)]
    ps = [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 0), (2, 1), (2, SW_MINOR), (3, 0), (3, SW_MINOR)]
    return frozenset(
        [ShaderVersion(ShaderKind.VERTEX, a, b) for a, b in vs]
        + [ShaderVersion(ShaderKind.PIXEL, a, b) for a, b in ps]
    )


KNOWN_VERSIONS = _versions()

# Magic numbers of containers that are not shaders.
FX_2_0_MAGIC = 0xFEFF0901
XNA_EFFECT_MAGIC = 0xBCF00BCF

END_TOKEN = 0x0000FFFF
COMMENT_OPCODE = 0xFFFE

# --------------------------------------------------------------------------
# Opcodes
# --------------------------------------------------------------------------


class Opcode(enum.IntEnum):
    NOP = 0
    MOV = 1
    ADD = 2
    SUB = 3
    MAD = 4
    MUL = 5
    RCP = 6
    RSQ = 7
    DP3 = 8
    DP4 = 9
    MIN = 10
    MAX = 11
    SLT = 12
    SGE = 13
    EXP = 14
    LOG = 15
    LIT = 16
    DST = 17
    LRP = 18
    FRC = 19
    M4x4 = 20
    M4x3 = 21
    M3x4 = 22
    M3x3 = 23
    M3x2 = 24
    CALL = 25
    CALLNZ = 26
    LOOP = 27
    RET = 28
    ENDLOOP = 29
    LABEL = 30
    DCL = 31
    POW = 32
    CRS = 33
    SGN = 34
    ABS = 35
    NRM = 36
    SINCOS = 37
    REP = 38
    ENDREP = 39
    IF = 40
    IFC = 41
    ELSE = 42
    ENDIF = 43
    BREAK = 44
    BREAKC = 45
    MOVA = 46
    DEFB = 47
    DEFI = 48
    TEXCOORD = 64
    TEXKILL = 65
    TEX = 66
    TEXBEM = 67
    TEXBEML = 68
    TEXREG2AR = 69
    TEXREG2GB = 70
    TEXM3x2PAD = 71
    TEXM3x2TEX = 72
    TEXM3x3PAD = 73
    TEXM3x3TEX = 74
    RESERVED0 = 75  # TEXM3x3DIFF, never valid
    TEXM3x3SPEC = 76
    TEXM3x3VSPEC = 77
    EXPP = 78
    LOGP = 79
    CND = 80
    DEF = 81
    TEXREG2RGB = 82
    TEXDP3TEX = 83
    TEXM3x2DEPTH = 84
    TEXDP3 = 85
    TEXM3x3 = 86
    TEXDEPTH = 87
    CMP = 88
    BEM = 89
    DP2ADD = 90
    DSX = 91
    DSY = 92
    TEXLDD = 93
    SETP = 94
    TEXLDL = 95
    BREAKP = 96
    PHASE = 0xFFFD
    COMMENT = 0xFFFE
    END = 0xFFFF


class Layout(enum.Enum):
    """How the parameter tokens of an instruction are to be read.

    ``OPERANDS`` instructions carry an optional destination followed by
    sources, each of which may be followed by a relative-address token in
    SM2+.  The other layouts carry raw literal DWORDs or a usage token.
    """

    OPERANDS = "operands"
    DCL = "dcl"  # usage token, then a destination token
    DEF = "def"  # destination, four IEEE floats
    DEFI = "defi"  # destination, four int32
    DEFB = "defb"  # destination, one DWORD


# A version range: inclusive (major, minor) keys.  None = stage not allowed.
Range = tuple[tuple[int, int], tuple[int, int]]
ALL: Range = ((1, 0), (3, SW_MINOR))
SM2UP: Range = ((2, 0), (3, SW_MINOR))
SM2XUP: Range = ((2, 1), (3, SW_MINOR))
SM3UP: Range = ((3, 0), (3, SW_MINOR))
SM1: Range = ((1, 0), (1, 4))
PS10_13: Range = ((1, 0), (1, 3))
PS11_13: Range = ((1, 1), (1, 3))
PS12_13: Range = ((1, 2), (1, 3))
PS12UP: Range = ((1, 2), (3, SW_MINOR))
PS14: Range = ((1, 4), (1, 4))


@dataclass(frozen=True)
class OperandForm:
    """One operand layout: a destination or not, and the source count."""

    has_dst: bool
    nsrc: int

    @property
    def sm1_tokens(self) -> int:
        return int(self.has_dst) + self.nsrc


@dataclass(frozen=True)
class OpcodeInfo:
    """Everything the bytecode layer knows about one opcode."""

    opcode: Opcode
    mnemonic: str
    layout: Layout
    forms: tuple[OperandForm, ...]  # accepted operand forms, preferred first
    vs: Range | None
    ps: Range | None
    # (version range, forms) overrides for version-dependent layouts
    version_forms: tuple[tuple[Range, tuple[OperandForm, ...]], ...] = ()
    # control bits 16-23 carry a comparison code (IFC, BREAKC, SETP)
    comparison: bool = False
    # may be predicated / may be co-issued
    predicable: bool = True
    # the instruction opens/closes/splits a block (disassembler indentation)
    block: int = 0  # +1 opens, -1 closes, 2 = else-like (close then open)
    # source operands of these instructions are really destinations in
    # spirit (the aL token of LOOP): kept as sources, as fxc writes them.

    def forms_for(self, version: ShaderVersion) -> tuple[OperandForm, ...]:
        for rng, forms in self.version_forms:
            if in_range(version, rng):
                return forms
        return self.forms

    def allowed_in(self, version: ShaderVersion) -> bool:
        rng = self.vs if version.is_vertex else self.ps
        return rng is not None and in_range(version, rng)


def in_range(version: ShaderVersion, rng: Range) -> bool:
    lo, hi = rng
    key = version.key
    if version.major == 1 and version.minor == 0:
        key = (1, 0)
    return lo <= key <= hi


def _f(has_dst: bool, nsrc: int) -> OperandForm:
    return OperandForm(has_dst, nsrc)


D = (_f(True, 0),)
S = (_f(False, 1),)
SS = (_f(False, 2),)
DS = (_f(True, 1),)
DSS = (_f(True, 2),)
DSSS = (_f(True, 3),)
DSSSS = (_f(True, 4),)
NONE = (_f(False, 0),)


def _op(opcode, mnemonic, forms, vs, ps, layout=Layout.OPERANDS, **kw) -> OpcodeInfo:
    return OpcodeInfo(opcode, mnemonic, layout, forms, vs, ps, **kw)


O = Opcode
# fmt: off
OPCODES: dict[Opcode, OpcodeInfo] = {i.opcode: i for i in [
    _op(O.NOP, "nop", NONE, ALL, ALL),
    _op(O.MOV, "mov", DS, ALL, ALL),
    _op(O.ADD, "add", DSS, ALL, ALL),
    _op(O.SUB, "sub", DSS, ALL, ALL),
    _op(O.MAD, "mad", DSSS, ALL, ALL),
    _op(O.MUL, "mul", DSS, ALL, ALL),
    _op(O.RCP, "rcp", DS, ALL, SM2UP),
    _op(O.RSQ, "rsq", DS, ALL, SM2UP),
    _op(O.DP3, "dp3", DSS, ALL, ALL),
    _op(O.DP4, "dp4", DSS, ALL, ALL),
    _op(O.MIN, "min", DSS, ALL, SM2UP),
    _op(O.MAX, "max", DSS, ALL, SM2UP),
    _op(O.SLT, "slt", DSS, ALL, SM2UP),
    _op(O.SGE, "sge", DSS, ALL, SM2UP),
    _op(O.EXP, "exp", DS, ALL, SM2UP),
    _op(O.LOG, "log", DS, ALL, SM2UP),
    _op(O.LIT, "lit", DS, ALL, None),
    _op(O.DST, "dst", DSS, ALL, None),
    _op(O.LRP, "lrp", DSSS, SM2UP, ALL),
    _op(O.FRC, "frc", DS, ALL, SM2UP),
    _op(O.M4x4, "m4x4", DSS, ALL, SM2UP),
    _op(O.M4x3, "m4x3", DSS, ALL, SM2UP),
    _op(O.M3x4, "m3x4", DSS, ALL, SM2UP),
    _op(O.M3x3, "m3x3", DSS, ALL, SM2UP),
    _op(O.M3x2, "m3x2", DSS, ALL, SM2UP),
    _op(O.CALL, "call", S, SM2UP, SM2XUP, predicable=True),
    _op(O.CALLNZ, "callnz", SS, SM2UP, SM2XUP),
    _op(O.LOOP, "loop", SS, SM2UP, SM3UP, block=1, predicable=False),
    _op(O.RET, "ret", NONE, SM2UP, SM2XUP, predicable=False),
    _op(O.ENDLOOP, "endloop", NONE, SM2UP, SM3UP, block=-1, predicable=False),
    _op(O.LABEL, "label", S, SM2UP, SM2XUP, predicable=False),
    _op(O.DCL, "dcl", (_f(True, 0),), ALL, SM2UP, layout=Layout.DCL, predicable=False),
    _op(O.POW, "pow", DSS, SM2UP, SM2UP),
    _op(O.CRS, "crs", DSS, SM2UP, SM2UP),
    _op(O.SGN, "sgn", DSSS, SM2UP, None, version_forms=((SM3UP, (_f(True, 1), _f(True, 3))),)),
    _op(O.ABS, "abs", DS, SM2UP, SM2UP),
    _op(O.NRM, "nrm", DS, SM2UP, SM2UP),
    _op(O.SINCOS, "sincos", DSSS, SM2UP, SM2UP, version_forms=((SM3UP, DS),)),
    _op(O.REP, "rep", S, SM2UP, SM2XUP, block=1, predicable=False),
    _op(O.ENDREP, "endrep", NONE, SM2UP, SM2XUP, block=-1, predicable=False),
    _op(O.IF, "if", S, SM2UP, SM2XUP, block=1, predicable=False),
    _op(O.IFC, "ifc", SS, SM2XUP, SM2XUP, comparison=True, block=1, predicable=False),
    _op(O.ELSE, "else", NONE, SM2UP, SM2XUP, block=2, predicable=False),
    _op(O.ENDIF, "endif", NONE, SM2UP, SM2XUP, block=-1, predicable=False),
    _op(O.BREAK, "break", NONE, SM2XUP, SM2XUP),
    _op(O.BREAKC, "breakc", SS, SM2XUP, SM2XUP, comparison=True, predicable=False),
    _op(O.MOVA, "mova", DS, SM2UP, None),
    _op(O.DEFB, "defb", D, SM2UP, SM2XUP, layout=Layout.DEFB, predicable=False),
    _op(O.DEFI, "defi", D, SM2UP, SM2XUP, layout=Layout.DEFI, predicable=False),
    _op(O.TEXCOORD, "texcoord", D, None, SM1, version_forms=((PS14, DS),)),
    _op(O.TEXKILL, "texkill", D, None, ALL),
    _op(O.TEX, "tex", D, SM3UP, ALL, version_forms=((PS14, DS), (SM2UP, DSS))),
    _op(O.TEXBEM, "texbem", DS, None, PS10_13),
    _op(O.TEXBEML, "texbeml", DS, None, PS10_13),
    _op(O.TEXREG2AR, "texreg2ar", DS, None, PS10_13),
    _op(O.TEXREG2GB, "texreg2gb", DS, None, PS10_13),
    _op(O.TEXM3x2PAD, "texm3x2pad", DS, None, PS10_13),
    _op(O.TEXM3x2TEX, "texm3x2tex", DS, None, PS10_13),
    _op(O.TEXM3x3PAD, "texm3x3pad", DS, None, PS10_13),
    _op(O.TEXM3x3TEX, "texm3x3tex", DS, None, PS10_13),
    _op(O.TEXM3x3SPEC, "texm3x3spec", DSS, None, PS10_13),
    _op(O.TEXM3x3VSPEC, "texm3x3vspec", DS, None, PS10_13),
    _op(O.EXPP, "expp", DS, ALL, None),
    _op(O.LOGP, "logp", DS, ALL, None),
    _op(O.CND, "cnd", DSSS, None, SM1),
    _op(O.DEF, "def", D, ALL, ALL, layout=Layout.DEF, predicable=False),
    _op(O.TEXREG2RGB, "texreg2rgb", DS, None, PS12_13),
    _op(O.TEXDP3TEX, "texdp3tex", DS, None, PS12_13),
    _op(O.TEXM3x2DEPTH, "texm3x2depth", DS, None, PS12_13),
    _op(O.TEXDP3, "texdp3", DS, None, PS12_13),
    _op(O.TEXM3x3, "texm3x3", DS, None, PS12_13),
    _op(O.TEXDEPTH, "texdepth", D, None, PS14),
    _op(O.CMP, "cmp", DSSS, None, ALL),
    _op(O.BEM, "bem", DSS, None, PS14),
    _op(O.DP2ADD, "dp2add", DSSS, None, SM2UP),
    _op(O.DSX, "dsx", DS, None, SM2XUP),
    _op(O.DSY, "dsy", DS, None, SM2XUP),
    _op(O.TEXLDD, "texldd", DSSSS, None, SM2XUP),
    _op(O.SETP, "setp", DSS, SM2XUP, SM2XUP, comparison=True),
    _op(O.TEXLDL, "texldl", DSS, SM3UP, SM3UP),
    _op(O.BREAKP, "breakp", S, SM2XUP, SM2XUP, predicable=False),
    _op(O.PHASE, "phase", NONE, None, PS14, predicable=False),
]}
# fmt: on

# Opcodes the decoder never sees as instructions.
PSEUDO_OPCODES = {Opcode.COMMENT, Opcode.END, Opcode.RESERVED0}

# --------------------------------------------------------------------------
# Instruction-specific controls (bits 16-23)
# --------------------------------------------------------------------------


class Comparison(enum.IntEnum):
    """D3DSHADER_COMPARISON (control bits 16-18 of IFC/BREAKC/SETP)."""

    NEVER = 0  # reserved: never true
    GT = 1
    EQ = 2
    GE = 3
    LT = 4
    NE = 5
    LE = 6
    ALWAYS = 7  # reserved: always true

    @property
    def suffix(self) -> str:
        return "_" + self.name.lower()


class TexControl(enum.IntEnum):
    """SM2+ TEX opcode control: plain, projected or biased."""

    NONE = 0
    PROJECT = 1
    BIAS = 2

    @property
    def mnemonic(self) -> str:
        return {0: "texld", 1: "texldp", 2: "texldb"}[self.value]


# --------------------------------------------------------------------------
# Registers
# --------------------------------------------------------------------------


class RegisterType(enum.IntEnum):
    TEMP = 0
    INPUT = 1
    CONST = 2
    ADDR = 3  # VS: a0.  PS: TEXTURE (t#), same value
    RASTOUT = 4
    ATTROUT = 5
    TEXCRDOUT = 6  # VS < 3: oT#.  vs_3_0: OUTPUT (o#), same value
    CONSTINT = 7
    COLOROUT = 8
    DEPTHOUT = 9
    SAMPLER = 10
    CONST2 = 11
    CONST3 = 12
    CONST4 = 13
    CONSTBOOL = 14
    LOOP = 15
    TEMPFLOAT16 = 16
    MISCTYPE = 17
    LABEL = 18
    PREDICATE = 19


TEXTURE = RegisterType.ADDR
OUTPUT = RegisterType.TEXCRDOUT

# Index offsets of the extra constant files (software vertex processing).
CONST_FILE_BASE = {
    RegisterType.CONST: 0,
    RegisterType.CONST2: 2048,
    RegisterType.CONST3: 4096,
    RegisterType.CONST4: 6144,
}

RASTOUT_NAMES = ("oPos", "oFog", "oPts")
MISC_NAMES = ("vPos", "vFace")


@dataclass(frozen=True)
class RegisterFile:
    """One register file in one shader version."""

    type: RegisterType
    prefix: str  # asm spelling: "r", "c", "oT", ...
    count: int  # number of valid indices
    readable: bool = True
    writable: bool = False
    # register number printed without a number (a0, aL, p0, oDepth, vFace...)
    # when count == 1 and numbered is False
    numbered: bool = True


def _rf(t, prefix, count, r=True, w=False, numbered=True) -> RegisterFile:
    return RegisterFile(t, prefix, count, r, w, numbered)


R = RegisterType


def _register_files(version: ShaderVersion) -> dict[RegisterType, RegisterFile]:
    """Register files of a version.  Limits are the architectural maxima over
    all hardware caps (and the software profiles), so that every blob a real
    runtime accepts decodes; hardware-cap checks are not the decoder's job."""
    v = version
    files: list[RegisterFile] = []
    sw = v.is_sw
    if v.is_vertex:
        files += [
            # Temp counts are a caps value (12-32 in SM2); vkd3d's compiler
            # emits r12+ in *_2_0 profiles, so accept the largest.
            _rf(R.TEMP, "r", 32 if v.at_least(2, 0) else 12, w=True),
            _rf(R.INPUT, "v", 16),
            _rf(R.CONST, "c", 2048),
            _rf(R.CONST2, "c", 2048),
            _rf(R.CONST3, "c", 2048),
            _rf(R.CONST4, "c", 2048),
            _rf(R.ADDR, "a", 1, w=True),
        ]
        if v.at_least(3, 0):
            files.append(_rf(R.TEXCRDOUT, "o", 12, r=False, w=True))
            files.append(_rf(R.SAMPLER, "s", 4))
        else:
            files += [
                _rf(R.RASTOUT, "o", 3, r=False, w=True),
                _rf(R.ATTROUT, "oD", 2, r=False, w=True),
                _rf(R.TEXCRDOUT, "oT", 8, r=False, w=True),
            ]
        if v.at_least(2, 0):
            nconst = 2048 if sw else 16
            files += [
                _rf(R.CONSTINT, "i", nconst),
                _rf(R.CONSTBOOL, "b", nconst),
                _rf(R.LOOP, "aL", 1, numbered=False),
                _rf(R.LABEL, "l", 2048 if (sw or v.at_least(3, 0)) else 16),
            ]
        if v.at_least(2, 1):
            files.append(_rf(R.PREDICATE, "p", 1, w=True))
    else:
        if v.major == 1:
            ps14 = v.minor == 4
            files += [
                _rf(R.TEMP, "r", 6 if ps14 else 2, w=True),
                _rf(R.INPUT, "v", 2),
                _rf(R.CONST, "c", 8),
                _rf(R.ADDR, "t", 6 if ps14 else 4, w=not ps14),
            ]
        else:
            sm3 = v.at_least(3, 0)
            files += [
                _rf(R.TEMP, "r", 32, w=True),
                _rf(R.INPUT, "v", 10 if sm3 else 2),
                # ps_2_0/2_x document 32 float constants, but vkd3d's HLSL
                # compiler writes c32+ there and its d3d9 runner executes it;
                # DXVK sizes every SM2+ pixel constant buffer at 224.  Accept
                # 224 (a superset; Windows itself refuses c32 in ps_2_0).
                _rf(R.CONST, "c", 8192 if sw else 224),
                _rf(R.SAMPLER, "s", 16),
                _rf(R.COLOROUT, "oC", 4, r=False, w=True),
                _rf(R.DEPTHOUT, "oDepth", 1, r=False, w=True, numbered=False),
            ]
            if not sm3:
                files.append(_rf(R.ADDR, "t", 8))
            if v.at_least(2, 1):
                nconst = 2048 if sw else 16
                files += [
                    _rf(R.CONSTINT, "i", nconst),
                    _rf(R.CONSTBOOL, "b", nconst),
                    _rf(R.LABEL, "l", 2048 if (sw or sm3) else 16),
                    _rf(R.PREDICATE, "p", 1, w=True),
                ]
            if sm3:
                files += [
                    _rf(R.LOOP, "aL", 1, numbered=False),
                    _rf(R.MISCTYPE, "v", 2),
                ]
    return {f.type: f for f in files}


REGISTER_FILES: dict[ShaderVersion, dict[RegisterType, RegisterFile]] = {
    v: _register_files(v) for v in KNOWN_VERSIONS
}


def register_file(version: ShaderVersion, rtype: RegisterType) -> RegisterFile | None:
    return REGISTER_FILES[version].get(rtype)


# Registers written with no number in asm ("a0" is numbered; these are not).
def register_name(version: ShaderVersion, rtype: RegisterType, index: int) -> str:
    """Assembly spelling of a register, e.g. ``r3``, ``oPos``, ``oT2``, ``vFace``."""
    if rtype == R.RASTOUT and version.is_vertex and index < 3:
        return RASTOUT_NAMES[index]
    if rtype == R.MISCTYPE and index < 2:
        return MISC_NAMES[index]
    if rtype == R.LOOP:
        return "aL"
    if rtype == R.DEPTHOUT:
        return "oDepth"
    if rtype in CONST_FILE_BASE:
        return f"c{CONST_FILE_BASE[rtype] + index}"
    files = REGISTER_FILES.get(version, {})
    rf = files.get(rtype)
    if rf is not None:
        return f"{rf.prefix}{index}"
    return f"{_FALLBACK_PREFIX.get(rtype, 'x')}{index}"


_FALLBACK_PREFIX = {
    R.TEMP: "r", R.INPUT: "v", R.CONST: "c", R.CONSTINT: "i", R.CONSTBOOL: "b",
    R.COLOROUT: "oC", R.SAMPLER: "s", R.LABEL: "l", R.PREDICATE: "p",
    R.ATTROUT: "oD", R.TEMPFLOAT16: "h",
}

# Registers whose value is a scalar: the write mask carries no meaning.
SCALAR_REGISTERS = {R.CONSTBOOL, R.LOOP, R.DEPTHOUT}

# --------------------------------------------------------------------------
# Modifiers
# --------------------------------------------------------------------------


class SrcMod(enum.IntEnum):
    """Source modifier (bits 24-27 of a source token)."""

    NONE = 0
    NEG = 1
    BIAS = 2
    BIASNEG = 3
    SIGN = 4  # _bx2
    SIGNNEG = 5
    COMP = 6  # 1-r
    X2 = 7
    X2NEG = 8
    DZ = 9
    DW = 10
    ABS = 11
    ABSNEG = 12
    NOT = 13


@dataclass(frozen=True)
class SrcModInfo:
    prefix: str  # "-", "1-", "!"
    suffix: str  # "_bias", "_bx2", "_x2", "_dz", "_dw", "_abs"
    min_ps: tuple[int, int] | None  # minimum PS version key, None = any
    ps1_only: bool = False


SRC_MODS: dict[SrcMod, SrcModInfo] = {
    SrcMod.NONE: SrcModInfo("", "", None),
    SrcMod.NEG: SrcModInfo("-", "", None),
    SrcMod.BIAS: SrcModInfo("", "_bias", None, ps1_only=True),
    SrcMod.BIASNEG: SrcModInfo("-", "_bias", None, ps1_only=True),
    SrcMod.SIGN: SrcModInfo("", "_bx2", None, ps1_only=True),
    SrcMod.SIGNNEG: SrcModInfo("-", "_bx2", None, ps1_only=True),
    SrcMod.COMP: SrcModInfo("1-", "", None, ps1_only=True),
    SrcMod.X2: SrcModInfo("", "_x2", None, ps1_only=True),
    SrcMod.X2NEG: SrcModInfo("-", "_x2", None, ps1_only=True),
    SrcMod.DZ: SrcModInfo("", "_dz", None, ps1_only=True),
    SrcMod.DW: SrcModInfo("", "_dw", None, ps1_only=True),
    SrcMod.ABS: SrcModInfo("", "_abs", None),
    SrcMod.ABSNEG: SrcModInfo("-", "_abs", None),
    SrcMod.NOT: SrcModInfo("!", "", None),
}

# (prefix, suffix) -> modifier, for the assembler.
SRC_MOD_BY_SPELLING: dict[tuple[str, str], SrcMod] = {
    (i.prefix, i.suffix): m for m, i in SRC_MODS.items()
}


class DstMod(enum.IntFlag):
    """Result modifier bits (bits 20-23 of a destination token)."""

    NONE = 0
    SATURATE = 1
    PARTIALPRECISION = 2
    CENTROID = 4


DST_MOD_SUFFIX = {
    DstMod.SATURATE: "_sat",
    DstMod.PARTIALPRECISION: "_pp",
    DstMod.CENTROID: "_centroid",
}

# Result shift (ps_1_x): 4-bit two's complement in bits 24-27.
SHIFT_SUFFIX = {1: "_x2", 2: "_x4", 3: "_x8", -1: "_d2", -2: "_d4", -3: "_d8"}
SHIFT_BY_SUFFIX = {v: k for k, v in SHIFT_SUFFIX.items()}

# --------------------------------------------------------------------------
# Masks and swizzles
# --------------------------------------------------------------------------

COMPONENTS = "xyzw"
COLOR_COMPONENTS = "rgba"
FULL_MASK = 0xF
IDENTITY_SWIZZLE = 0xE4  # .xyzw


def mask_text(mask: int) -> str:
    """``.xyz`` for 0b0111; empty for the full mask."""
    if mask == FULL_MASK:
        return ""
    return "." + "".join(c for i, c in enumerate(COMPONENTS) if mask & (1 << i))


def swizzle_components(swizzle: int) -> tuple[int, int, int, int]:
    return tuple((swizzle >> (2 * i)) & 3 for i in range(4))  # type: ignore[return-value]


def make_swizzle(components: tuple[int, ...] | list[int]) -> int:
    comps = list(components)
    # A short swizzle repeats its last component (r0.xy == r0.xyyy).
    comps += [comps[-1]] * (4 - len(comps))
    return sum(c << (2 * i) for i, c in enumerate(comps))


def replicate_swizzle(component: int) -> int:
    return component * 0x55


def swizzle_text(swizzle: int) -> str:
    """fxc's spelling: nothing for ``.xyzw``, one letter for a replicate
    (``.x``), otherwise all four letters (``.xyzz``, ``.yzww``): fxc 9.29
    never drops trailing repeats (checked over the fxc-wine corpus)."""
    swizzle &= 0xFF
    if swizzle == IDENTITY_SWIZZLE:
        return ""
    comps = swizzle_components(swizzle)
    if swizzle == replicate_swizzle(comps[0]):
        return "." + COMPONENTS[comps[0]]
    return "." + "".join(COMPONENTS[c] for c in comps)


# --------------------------------------------------------------------------
# Declarations
# --------------------------------------------------------------------------


class DeclUsage(enum.IntEnum):
    POSITION = 0
    BLENDWEIGHT = 1
    BLENDINDICES = 2
    NORMAL = 3
    PSIZE = 4
    TEXCOORD = 5
    TANGENT = 6
    BINORMAL = 7
    TESSFACTOR = 8
    POSITIONT = 9
    COLOR = 10
    FOG = 11
    DEPTH = 12
    SAMPLE = 13

    @property
    def asm(self) -> str:
        return self.name.lower()


class SamplerType(enum.IntEnum):
    UNKNOWN = 0
    TEX1D = 1
    TEX2D = 2
    CUBE = 3
    VOLUME = 4

    @property
    def asm(self) -> str:
        return {0: "unknown", 1: "1d", 2: "2d", 3: "cube", 4: "volume"}[self.value]


SAMPLER_TYPE_BY_ASM = {t.asm: t for t in SamplerType}
USAGE_BY_ASM = {u.asm: u for u in DeclUsage}

# Bit fields of the DCL usage token.
DCL_USAGE_MASK = 0x0000000F
DCL_USAGE_INDEX_SHIFT = 16
DCL_USAGE_INDEX_MASK = 0x000F0000
DCL_SAMPLER_TYPE_SHIFT = 27
DCL_SAMPLER_TYPE_MASK = 0x78000000
# Bit 4 is part of the documented usage field though never used; tolerate it.
DCL_RESERVED_MASK = 0x7FFFFFFF & ~(0x1F | DCL_USAGE_INDEX_MASK | DCL_SAMPLER_TYPE_MASK)


# --------------------------------------------------------------------------
# Token bit fields
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Bits:
    """Bit positions shared by instruction and parameter tokens."""

    OPCODE_MASK: int = 0x0000FFFF
    CONTROL_SHIFT: int = 16
    CONTROL_MASK: int = 0x00FF0000
    LENGTH_SHIFT: int = 24
    LENGTH_MASK: int = 0x0F000000
    PREDICATED: int = 0x10000000
    INSTR_RESERVED: int = 0x20000000
    COISSUE: int = 0x40000000
    PARAM: int = 0x80000000
    REG_NUM_MASK: int = 0x000007FF
    REG_TYPE_LO_SHIFT: int = 28
    REG_TYPE_LO_MASK: int = 0x70000000
    REG_TYPE_HI_SHIFT: int = 8  # bits 11-12 hold type bits 3-4: (tok >> 8) & 0x18
    REG_TYPE_HI_MASK: int = 0x00001800
    RELATIVE: int = 0x00002000
    PARAM_RESERVED: int = 0x0000C000
    WRITEMASK_SHIFT: int = 16
    WRITEMASK_MASK: int = 0x000F0000
    DSTMOD_SHIFT: int = 20
    DSTMOD_MASK: int = 0x00F00000
    SHIFT_SHIFT: int = 24
    SHIFT_MASK: int = 0x0F000000
    SWIZZLE_SHIFT: int = 16
    SWIZZLE_MASK: int = 0x00FF0000
    SRCMOD_SHIFT: int = 24
    SRCMOD_MASK: int = 0x0F000000
    COMMENT_SIZE_SHIFT: int = 16
    COMMENT_SIZE_MASK: int = 0x7FFF0000


BITS = Bits()


def register_type_of(token: int) -> int:
    return ((token & BITS.REG_TYPE_LO_MASK) >> BITS.REG_TYPE_LO_SHIFT) | (
        (token & BITS.REG_TYPE_HI_MASK) >> BITS.REG_TYPE_HI_SHIFT
    )


def register_type_bits(rtype: int) -> int:
    return ((rtype & 7) << BITS.REG_TYPE_LO_SHIFT) | ((rtype & 0x18) << BITS.REG_TYPE_HI_SHIFT)


MNEMONICS: dict[str, Opcode] = {i.mnemonic: op for op, i in OPCODES.items()}

# --------------------------------------------------------------------------
# Assembler spellings and operand rules
# --------------------------------------------------------------------------

# Spellings whose opcode/control differ from ``OPCODES[op].mnemonic``, with the
# versions where that spelling is the right one: ps_1_0-1_3 write TEX and
# TEXCOORD as "tex"/"texcoord", ps_1_4 and SM2+ as "texld"/"texcrd"; SM2+ texld
# carries its projection/bias mode in the control bits.  (spelling -> opcode,
# control, version range)
ASM_SPELLINGS: dict[str, tuple[Opcode, int, Range]] = {
    "tex": (Opcode.TEX, 0, PS10_13),
    "texcoord": (Opcode.TEXCOORD, 0, PS10_13),
    "texld": (Opcode.TEX, TexControl.NONE, ((1, 4), (3, SW_MINOR))),
    "texldp": (Opcode.TEX, TexControl.PROJECT, SM2UP),
    "texldb": (Opcode.TEX, TexControl.BIAS, SM2UP),
    "texcrd": (Opcode.TEXCOORD, 0, PS14),
}

# The comparison instructions are written as a stem plus the comparison
# suffix: if_lt (IFC), break_ne (BREAKC), setp_ge (SETP).
COMPARISON_STEMS: dict[str, Opcode] = {"if": Opcode.IFC, "break": Opcode.BREAKC, "setp": Opcode.SETP}

# The register file each constant-definition layout writes (def c#, defi i#, defb b#).
DEF_REGISTER: dict[Layout, RegisterType] = {
    Layout.DEF: RegisterType.CONST,
    Layout.DEFI: RegisterType.CONSTINT,
    Layout.DEFB: RegisterType.CONSTBOOL,
}

# Opcodes whose destination-format token names a register that is read, not
# written (texkill tests it; dcl declares it).
DST_READ_OPCODES = frozenset({Opcode.TEXKILL, Opcode.DCL})

# Which register files each operand slot accepts, which source modifiers each
# version allows and how deep blocks may nest: ``validity.py``.
