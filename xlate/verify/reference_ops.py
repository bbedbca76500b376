"""Opcode handlers of the reference interpreter, one function per opcode.

``OPS`` maps an ``Opcode`` to ``handler(machine, instruction)``; each handler
reads its sources through ``Machine.read`` (swizzle and modifiers applied),
computes an (n, 4) float32 result and stores it with ``Machine.write`` (which
applies shift, saturate, write mask, predicate and execution mask).  Flow
control (if/loop/rep/break/call/ret) is in ``reference.py``.  Section numbers
refer to ``shared/semantics/D3D9_SEMANTICS.md``.

These are the SM2/SM3 meanings.  Shader model 1 shares the arithmetic;
``reference_sm1.SM1_OPS`` overrides the opcodes SM1 reads differently (tex,
texcoord, texkill, cnd) and adds its texture-address ops.
"""

from __future__ import annotations

import numpy as np

from ..bytecode.model import Instruction
from ..bytecode.tables import Opcode, SamplerType, TexControl
from ..errors import UnsupportedError
from . import textures as tx

F32 = np.float32
FLT_MAX = np.finfo(np.float32).max
O = Opcode


def rep4(x: np.ndarray) -> np.ndarray:
    """A scalar per invocation replicated into four components."""
    return np.repeat(np.asarray(x, F32)[:, None], 4, axis=1)


def lmul(m, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """§7.2 legacy multiply (DXVK Strict): each factor is 0 where the other
    is 0, so 0·∞ = 0·NaN = 0.  Plain IEEE when the option is off."""
    if not m.legacy_multiply:
        return a * b
    zero = F32(0)
    return np.where(b == 0, zero, a) * np.where(a == 0, zero, b)


def dot(m, a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    p = lmul(m, a[:, :k], b[:, :k])
    s = p[:, 0]
    for c in range(1, k):
        s = s + p[:, c]
    return s


def scalar(m, ins: Instruction, i: int = 0) -> np.ndarray:
    """Scalar ops read the last swizzle slot: the same as any for the
    replicate swizzles fxc writes, and what Windows drivers read otherwise
    (Wine test_scalar_instructions: `rcp oD0, c0` gives 1/c0.w; wined3d
    agrees; semantics §2.1 rule 3 suggests .x, which real drivers contradict)."""
    return m.read(ins.srcs[i])[:, 3]


def clamp_fmax(m, x: np.ndarray) -> np.ndarray:
    """§7.1: IEEE result clamped to ±FLT_MAX (NaN passes through), unless
    the machine runs with ``infinities="ieee"`` (NVIDIA's ±∞)."""
    if m.infinities == "ieee":
        return x
    return np.clip(x, -FLT_MAX, FLT_MAX)


def _src(m, ins, i=0):
    return m.read(ins.srcs[i])


# -- per-component arithmetic (§2.2) -----------------------------------------


def op_mov(m, ins):
    m.write(ins, _src(m, ins))


def op_add(m, ins):
    m.write(ins, _src(m, ins, 0) + _src(m, ins, 1))


def op_sub(m, ins):
    m.write(ins, _src(m, ins, 0) - _src(m, ins, 1))


def op_mul(m, ins):
    m.write(ins, lmul(m, _src(m, ins, 0), _src(m, ins, 1)))


def op_mad(m, ins):
    m.write(ins, lmul(m, _src(m, ins, 0), _src(m, ins, 1)) + _src(m, ins, 2))


def op_min(m, ins):
    m.write(ins, np.fmin(_src(m, ins, 0), _src(m, ins, 1)))  # §7.3: non-NaN operand


def op_max(m, ins):
    m.write(ins, np.fmax(_src(m, ins, 0), _src(m, ins, 1)))


def op_slt(m, ins):
    m.write(ins, (_src(m, ins, 0) < _src(m, ins, 1)).astype(F32))  # ordered: NaN -> 0


def op_sge(m, ins):
    m.write(ins, (_src(m, ins, 0) >= _src(m, ins, 1)).astype(F32))


def op_frc(m, ins):
    s = _src(m, ins)
    m.write(ins, s - np.floor(s))


def op_abs(m, ins):
    m.write(ins, np.abs(_src(m, ins)))


def op_sgn(m, ins):
    # §2.2/§2.7: -1 below 0, 0 for ±0, +1 otherwise (NaN included).  The SM2
    # scratch operands are ignored.
    s = _src(m, ins)
    m.write(ins, np.where(s < 0, F32(-1), np.where(s == 0, F32(0), F32(1))))


def op_lrp(m, ins):
    s0, s1, s2 = (_src(m, ins, i) for i in range(3))
    m.write(ins, s2 + s0 * (s1 - s2))


def op_cmp(m, ins):
    # §2.2: s0 >= 0 selects s1, so -0 selects s1 and NaN selects s2.
    s0, s1, s2 = (_src(m, ins, i) for i in range(3))
    m.write(ins, np.where(s0 >= 0, s1, s2))


# -- dot products and matrices (§2.2, §2.8) -----------------------------------


def op_dp3(m, ins):
    m.write(ins, rep4(dot(m, _src(m, ins, 0), _src(m, ins, 1), 3)))


def op_dp4(m, ins):
    m.write(ins, rep4(dot(m, _src(m, ins, 0), _src(m, ins, 1), 4)))


def op_dp2add(m, ins):
    s0, s1 = _src(m, ins, 0), _src(m, ins, 1)
    m.write(ins, rep4(dot(m, s0, s1, 2) + m.read(ins.srcs[2])[:, 0]))


def _matrix(rows: int, width: int):
    def handler(m, ins):
        # §2.8: row k is src1's register + k with src1's swizzle/modifier (and
        # its relative address); every row is read before the write (aliasing).
        v = m.read(ins.srcs[0])
        out = np.zeros((m.n, 4), F32)
        for k in range(rows):
            out[:, k] = dot(m, v, m.read(ins.srcs[1], index_delta=k), width)
        m.write(ins, out, ins.dst.write_mask & ((1 << rows) - 1))

    return handler


def op_crs(m, ins):
    # §2.2: cross product of xyz; w is never written.
    a, b = _src(m, ins, 0), _src(m, ins, 1)
    out = np.zeros((m.n, 4), F32)
    out[:, 0] = a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1]
    out[:, 1] = a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2]
    out[:, 2] = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
    m.write(ins, out, ins.dst.write_mask & 0b0111)


def op_nrm(m, ins):
    # §2.5: length from xyz always; f = FLT_MAX for a zero length, so a zero
    # xyz gives 0 (never NaN) and w = s.w · FLT_MAX.
    s = _src(m, ins)
    length2 = s[:, 0] * s[:, 0] + s[:, 1] * s[:, 1] + s[:, 2] * s[:, 2]
    f = np.where(length2 != 0, F32(1) / np.sqrt(length2), FLT_MAX).astype(F32)
    m.write(ins, s * f[:, None])


# -- scalar ops (§2.1 rule 3, §2.2, §2.5, §7.1) ---------------------------------


def op_rcp(m, ins):
    m.write(ins, rep4(clamp_fmax(m, F32(1) / scalar(m, ins))))


def op_rsq(m, ins):
    m.write(ins, rep4(clamp_fmax(m, F32(1) / np.sqrt(np.abs(scalar(m, ins))))))


def op_exp(m, ins):
    m.write(ins, rep4(np.exp2(scalar(m, ins))))


def op_log(m, ins):
    m.write(ins, rep4(clamp_fmax(m, np.log2(np.abs(scalar(m, ins))))))


def op_expp(m, ins):
    x = scalar(m, ins)
    if m.version.major >= 2:
        m.write(ins, rep4(np.exp2(x)))  # §2.2: SM2+ is 2^s replicated
        return
    fl = np.floor(x)  # vs_1_1 four-component form
    m.write(ins, np.stack([np.exp2(fl), x - fl, np.exp2(x), np.ones_like(x)], axis=1))


def op_pow(m, ins):
    # §2.2/§2.5: |s0|^s1, and pow(x, 0) = 1 for every x (NaN and 0 included).
    base = np.abs(scalar(m, ins, 0))
    e = scalar(m, ins, 1)
    m.write(ins, rep4(np.where(e == 0, F32(1), np.power(base, e))))


def op_lit(m, ins):
    # §2.2/§2.3: strict > tests, pow only inside them, no w == 0 shortcut.
    s = _src(m, ins)
    x, y = s[:, 0], s[:, 1]
    p = np.clip(s[:, 3], F32(-127.9961), F32(127.9961))
    out = np.zeros((m.n, 4), F32)
    out[:, 0] = 1
    out[:, 3] = 1
    out[:, 1] = np.where(x > 0, x, F32(0))
    both = (x > 0) & (y > 0)
    safe_y = np.where(both, y, F32(1))
    out[:, 2] = np.where(both, np.power(safe_y, p), F32(0))
    m.write(ins, out)


def op_dst(m, ins):
    a, b = _src(m, ins, 0), _src(m, ins, 1)
    out = np.stack([np.ones(m.n, F32), a[:, 1] * b[:, 1], a[:, 2], b[:, 3]], axis=1)
    m.write(ins, out)


def op_sincos(m, ins):
    # §2.4: x = cos, y = sin of the replicated source; only .x/.y written
    # (SM2's extra operands ignored; its undefined z is left unchanged).
    x = scalar(m, ins)
    out = np.zeros((m.n, 4), F32)
    out[:, 0] = np.cos(x)
    out[:, 1] = np.sin(x)
    m.write(ins, out, ins.dst.write_mask & 0b0011)


def op_mova(m, ins):
    m.write(ins, _src(m, ins))  # rounding in Machine._to_address (§2.9)


def op_setp(m, ins):
    # §4.2: component-wise compare into p0 under the mask (and predicate).
    m.write(ins, m.compare(ins.comparison, _src(m, ins, 0), _src(m, ins, 1)).astype(F32))


def op_dsx(m, ins):
    m.write(ins, m.derivative(_src(m, ins), "x"))


def op_dsy(m, ins):
    m.write(ins, m.derivative(_src(m, ins), "y"))


# -- texturing (§2.10, §2.12) ----------------------------------------------------

_KIND_BY_SAMPLER_TYPE = {
    SamplerType.TEX1D: "1d",
    SamplerType.TEX2D: "2d",
    SamplerType.CUBE: "cube",
    SamplerType.VOLUME: "volume",
}


def coords_for(m, sampler: int, coord: np.ndarray) -> tuple[np.ndarray, object]:
    """The (n, 3) coordinate the sampler's dimension uses (2D: .xy) and the
    bound texture.  The dimension comes from the DCL (SM2+) or else from the
    bound texture (SM1, §2.10)."""
    tex = m.textures.get(sampler)
    kind = _KIND_BY_SAMPLER_TYPE.get(m.sampler_types.get(sampler, 0))
    if kind is None:
        kind = tex.kind if tex is not None else "2d"
    c = coord[:, :3].copy()
    if kind in ("1d", "2d"):
        c[:, 2] = 0
    return c, tex


def sample_into(m, ins: Instruction, coord: np.ndarray, sampler_src, *, lod=None, bias=None, grads=None):
    s = sampler_src.index
    ref = coord[:, 2].copy()  # a depth texture's reference (texldp: divided already)
    c, tex = coords_for(m, s, coord)
    ddx = ddy = None
    if lod is None:
        if grads is not None:
            ddx, ddy = grads
        elif not m.vertex:
            ddx, ddy = m.derivative(c, "x"), m.derivative(c, "y")
        else:
            lod = np.zeros(m.n, F32)  # §2.10: VS texld samples LOD 0
    value = tx.sample(tex, c, lod=lod, bias=bias, ddx=ddx, ddy=ddy, ref=ref)
    # §2.10: in SM3 the sampler's swizzle applies to the result.
    m.write(ins, value[:, list(sampler_src.components)])


def op_tex(m, ins):
    coord = _src(m, ins, 0)
    ctrl = ins.tex_control
    if ctrl == TexControl.PROJECT:  # texldp: xyz / w
        coord = coord / coord[:, 3:4]
        sample_into(m, ins, coord, ins.srcs[1])
    elif ctrl == TexControl.BIAS:  # texldb: bias = w
        sample_into(m, ins, coord, ins.srcs[1], bias=coord[:, 3])
    else:
        sample_into(m, ins, coord, ins.srcs[1])


def op_texldl(m, ins):
    coord = _src(m, ins, 0)
    sample_into(m, ins, coord, ins.srcs[1], lod=coord[:, 3])


def op_texldd(m, ins):
    coord = _src(m, ins, 0)
    sample_into(m, ins, coord, ins.srcs[1], grads=(_src(m, ins, 2), _src(m, ins, 3)))


def op_texkill(m, ins):
    # §2.12: SM2+ tests xyzw of the register (ps_1_x: reference_sm1); < 0
    # kills.  The invocation keeps running (demote) and is reported as killed.
    value = m.fetch(ins.dst.type, ins.dst.index, ins.dst.relative)
    hit = np.any(value < 0, axis=1)
    if ins.predicate is not None:
        hit &= m.predicate_mask(ins)[:, 0]
    m.killed |= m.mask & hit


def unsupported(m, ins):
    raise UnsupportedError(
        ins.offset, f"the reference interpreter has no handler for {ins.info.mnemonic} in {m.version}"
    )


OPS = {
    O.MOV: op_mov, O.ADD: op_add, O.SUB: op_sub, O.MUL: op_mul, O.MAD: op_mad,
    O.MIN: op_min, O.MAX: op_max, O.SLT: op_slt, O.SGE: op_sge, O.FRC: op_frc,
    O.ABS: op_abs, O.SGN: op_sgn, O.LRP: op_lrp, O.CMP: op_cmp,
    O.DP3: op_dp3, O.DP4: op_dp4, O.DP2ADD: op_dp2add,
    O.M4x4: _matrix(4, 4), O.M4x3: _matrix(3, 4), O.M3x4: _matrix(4, 3),
    O.M3x3: _matrix(3, 3), O.M3x2: _matrix(2, 3),
    O.CRS: op_crs, O.NRM: op_nrm,
    O.RCP: op_rcp, O.RSQ: op_rsq, O.EXP: op_exp, O.LOG: op_log, O.LOGP: op_log,
    O.EXPP: op_expp, O.POW: op_pow, O.LIT: op_lit, O.DST: op_dst, O.SINCOS: op_sincos,
    O.MOVA: op_mova, O.SETP: op_setp, O.DSX: op_dsx, O.DSY: op_dsy,
    O.TEX: op_tex, O.TEXLDL: op_texldl, O.TEXLDD: op_texldd, O.TEXKILL: op_texkill,
}


# --------------------------------------------------------------------------
# Flow instructions that appear as plain ops inside blocks
# --------------------------------------------------------------------------


def _flow_break(m, ins: Instruction):
    m._break(m._predicate_scalar(ins))


def _flow_breakc(m, ins: Instruction):
    a = m.read(ins.srcs[0])[:, 0]
    b = m.read(ins.srcs[1])[:, 0]
    m._break(m.compare(ins.comparison, a, b))


def _flow_breakp(m, ins: Instruction):
    m._break(m.condition(ins.srcs[0]))


def _flow_call(m, ins: Instruction):
    m.call(ins.srcs[0].index, m._predicate_scalar(ins), ins.offset)


def _flow_callnz(m, ins: Instruction):
    m.call(ins.srcs[0].index, m.condition(ins.srcs[1]) & m._predicate_scalar(ins), ins.offset)


def _flow_ret(m, ins: Instruction):
    # A ret nested in control flow: those invocations leave the function.
    m.frame.returned |= m.mask
    m.mask = np.zeros(m.n, bool)


# Run by the machine itself (``reference.Machine._run_op``), not through OPS.
FLOW = {
    Opcode.BREAK: _flow_break,
    Opcode.BREAKC: _flow_breakc,
    Opcode.BREAKP: _flow_breakp,
    Opcode.CALL: _flow_call,
    Opcode.CALLNZ: _flow_callnz,
    Opcode.RET: _flow_ret,
}
