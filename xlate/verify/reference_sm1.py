"""Shader model 1 opcode handlers of the reference interpreter.

``SM1_OPS`` is ``reference_ops.OPS`` with the shader-model-1 meanings of the
opcodes SM1 shares (tex, texcoord, texkill, cnd) and the ps_1_x-only
texture-address ops added; ``Machine`` uses it for every major-1 shader
(vs_1_x needs nothing here: ``mov a0`` floors in ``Machine._to_address`` and
``expp``'s four-component form is in ``reference_ops``).  Section numbers
refer to ``shared/semantics/D3D9_SEMANTICS.md``, mainly §2.6 and §2.10-2.12.

Conventions of the ps_1_1-1_3 ops (§2.11): ``t(m)`` is the destination,
``t(n)`` the source register (read with its modifiers, so ``t0_bx2`` works),
``tc[k]`` the *raw interpolated* texture coordinate set k (the caller's
``("t", k)`` / TEXCOORDk input, never the t# register a tex op may have
overwritten), and the sampler is always stage m.  A t# register that no
texture op wrote reads its texture coordinate (wined3d initialises T# that
way; legal programs never notice, §2.11 implementation note).

Draw-time state that SM1 shaders depend on comes in explicitly:

* the sampler dimension of a stage is the ``kind`` of the ``Texture`` bound
  to it (2D uses .xy, cube and volume .xyz; §2.10 "SM1: from the texture
  bound to the stage at draw time");
* ``TextureStage`` holds the D3DTSS_* values per stage (projection flag,
  bump-environment matrix, luminance scale/offset).

Sampling uses implicit derivatives, so pixel shaders with texture ops need
``n`` to be a multiple of 4 (2x2 quads), as in SM2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..bytecode.model import Instruction
from ..bytecode.tables import TEXTURE, Opcode, RegisterType
from ..errors import StructureError
from . import textures as tx
from .reference_ops import OPS, coords_for, dot, rep4

F32 = np.float32
O = Opcode
R = RegisterType

__all__ = ["SM1_OPS", "TextureStage"]


@dataclass(frozen=True)
class TextureStage:
    """The texture-stage state (D3DTSS_*) of one stage that SM1 shaders read.

    ``projected``
        D3DTTFF_PROJECTED in D3DTSS_TEXTURETRANSFORMFLAGS.  ps_1_1-1_3
        ``tex`` divides its coordinate by .w, and ``texbem``/``texbeml``
        divide tc[m] by .w before adding the displacement (§2.10, §2.11).
        A vertex shader is bound whenever this interpreter runs, so the
        divisor is .w whatever the COUNT (§2.10).  The division happens for
        cube maps too (dxbc-spirv; only a negative w changes a cube lookup).
        ps_1_4 ignores the flag: its projection is the explicit _dz/_dw.
    ``bump_env_mat``
        (BUMPENVMAT00, BUMPENVMAT01, BUMPENVMAT10, BUMPENVMAT11), read by
        texbem/texbeml of stage m and by ``bem r#`` of stage #.
    ``bump_env_lscale``, ``bump_env_loffset``
        BUMPENVLSCALE / BUMPENVLOFFSET, read by texbeml.

    The defaults are D3D9's (everything 0, no projection).
    """

    projected: bool = False
    bump_env_mat: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    bump_env_lscale: float = 0.0
    bump_env_loffset: float = 0.0


DEFAULT_STAGE = TextureStage()


# -- helpers -------------------------------------------------------------------


def stage_state(m, k: int) -> TextureStage:
    return m.texture_stages.get(k, DEFAULT_STAGE)


def texcoord(m, k: int) -> np.ndarray:
    """tc[k]: the raw interpolated texture coordinate set k, (n, 4)."""
    v = m.inputs.get((TEXTURE, k))
    return np.zeros((m.n, 4), F32) if v is None else v


def projected_texcoord(m, k: int) -> np.ndarray:
    """tc[k], divided by .w when stage k has D3DTTFF_PROJECTED."""
    tc = texcoord(m, k)
    return tc / tc[:, 3:4] if stage_state(m, k).projected else tc


def sample_stage(m, k: int, coord: np.ndarray) -> np.ndarray:
    """Sample the texture bound to stage k at ``coord`` (n, 3+), with the
    dimension of that texture and the LOD from the quad derivatives."""
    ref = np.asarray(coord, F32)[:, 2].copy()  # a depth texture's reference value
    c, tex = coords_for(m, k, coord)
    return tx.sample(tex, c, ddx=m.derivative(c, "x"), ddy=m.derivative(c, "y"), ref=ref)


def coord3(x, y=None, z=None) -> np.ndarray:
    """An (n, 3) coordinate from per-lane columns (missing ones are 0)."""
    zero = np.zeros_like(x)
    return np.stack([x, zero if y is None else y, zero if z is None else z], axis=1).astype(F32)


def store_depth(m, ins: Instruction, depth: np.ndarray):
    """The fragment depth written by texdepth / texm3x2depth (§5.6).  It is
    clamped to [0, 1] with NaN -> 0: the docs' depth range, wined3d's clamp
    and DXSO's final depth saturate agree on that."""
    d = np.nan_to_num(np.clip(depth, F32(0), F32(1)), nan=0.0).astype(F32)
    value = np.zeros((m.n, 4), F32)
    value[:, 0] = d
    enable = m.mask[:, None] & np.array([True, False, False, False])[None, :]
    m._store(R.DEPTHOUT, 0, value, enable, ins)


def pad_rows(m, ins: Instruction, count: int) -> list[tuple[int, np.ndarray]]:
    """Consume the rows stored by the preceding texm3x2pad / texm3x3pad."""
    if len(m.sm1_pad_rows) < count:
        raise StructureError(ins.offset, f"{ins.info.mnemonic} needs {count} pad instruction(s) before it")
    rows = m.sm1_pad_rows[-count:]
    m.sm1_pad_rows = []
    return rows


def row(m, ins: Instruction) -> np.ndarray:
    """tc[dst].xyz · t(n).xyz: one row of the texm3x* matrix product (§2.11);
    a dot product, so legacy multiply applies as in dp3 (§7.2)."""
    return dot(m, texcoord(m, ins.dst.index), m.read(ins.srcs[0]), 3)


# -- shared opcodes with SM1 meanings -----------------------------------------------


def op_tex(m, ins):
    if not ins.srcs:
        # ps_1_1-1_3 ``tex t#``: coordinate tc[#], stage # (§2.10).
        k = ins.dst.index
        m.write(ins, sample_stage(m, k, projected_texcoord(m, k)))
        return
    # ps_1_4 ``texld r#, src``: stage = the destination number; src is t# or
    # r# and its _dz/_dw divide happens in Machine.read (§2.10, §3.1).
    m.write(ins, sample_stage(m, ins.dst.index, m.read(ins.srcs[0])))


def op_texcoord(m, ins):
    if ins.srcs:
        m.write(ins, m.read(ins.srcs[0]))  # ps_1_4 texcrd: a copy, not clamped
        return
    # ps_1_1-1_3 texcoord: saturate(tc[m]) with w = 1 (§2.10, the docs).
    v = np.nan_to_num(np.clip(texcoord(m, ins.dst.index), F32(0), F32(1)), nan=0.0)
    v[:, 3] = 1
    m.write(ins, v)


def op_texkill(m, ins):
    # §2.12: xyz < 0 kills.  ps_1_1-1_3 test the interpolated texcoord set,
    # ps_1_4 the register value.  The invocation keeps running (demote).
    if m.version.minor < 4:
        value = texcoord(m, ins.dst.index)
    else:
        value = m.fetch(ins.dst.type, ins.dst.index)
    m.killed |= m.mask & np.any(value[:, :3] < 0, axis=1)


def op_cnd(m, ins):
    # §2.6: s0 > 0.5 (strictly).  ps_1_4 tests per component; ps_1_1-1_3
    # test s0.a for every component (the validator forces s0 = r0.a, whose
    # replicate swizzle makes both readings equal for legal shaders).
    # Co-issue is Machine.run_block's business: no cnd special case.
    s0, s1, s2 = (m.read(ins.srcs[i]) for i in range(3))
    cond = s0 if m.version.minor >= 4 else s0[:, 3:4]
    m.write(ins, np.where(cond > F32(0.5), s1, s2))


# -- ps_1_1-1_3 texture-address ops (§2.11) ------------------------------------------


def _bump(m, ins, luminance: bool):
    k = ins.dst.index
    st = stage_state(m, k)
    m00, m01, m10, m11 = (F32(x) for x in st.bump_env_mat)
    tc = projected_texcoord(m, k)  # only tc is projected, before the displacement
    s = m.read(ins.srcs[0])
    u = tc[:, 0] + m00 * s[:, 0] + m10 * s[:, 1]
    v = tc[:, 1] + m01 * s[:, 0] + m11 * s[:, 1]
    # texbem is meant for 2D maps; a volume map gets tc[m].z as its w (a choice).
    value = sample_stage(m, k, coord3(u, v, tc[:, 2]))
    if luminance:
        # Clamped to [0, 1] as DXSO and dxbc-spirv do (and Windows in the
        # fixed-function path); NaN -> 0 like any saturate (§3.2).
        lum = s[:, 2] * F32(st.bump_env_lscale) + F32(st.bump_env_loffset)
        lum = np.nan_to_num(np.clip(lum, F32(0), F32(1)), nan=0.0)
        value = value * lum[:, None]
    m.write(ins, value)


def op_texbem(m, ins):
    _bump(m, ins, luminance=False)


def op_texbeml(m, ins):
    _bump(m, ins, luminance=True)


def op_texreg2ar(m, ins):
    s = m.read(ins.srcs[0])
    m.write(ins, sample_stage(m, ins.dst.index, coord3(s[:, 3], s[:, 0])))


def op_texreg2gb(m, ins):
    s = m.read(ins.srcs[0])
    m.write(ins, sample_stage(m, ins.dst.index, coord3(s[:, 1], s[:, 2])))


def op_texreg2rgb(m, ins):
    s = m.read(ins.srcs[0])
    m.write(ins, sample_stage(m, ins.dst.index, s[:, :3]))  # 2D takes .rg


def op_texm_pad(m, ins):
    # texm3x2pad / texm3x3pad: the row is kept for the op that ends the
    # matrix; t(m) itself is not written (§2.11).
    m.sm1_pad_rows.append((ins.dst.index, row(m, ins)))


def op_texm3x2tex(m, ins):
    (_, u), = pad_rows(m, ins, 1)
    m.write(ins, sample_stage(m, ins.dst.index, coord3(u, row(m, ins))))


def op_texm3x2depth(m, ins):
    # depth = z / w with w == 0 -> 1.0; writes the depth, not t(m+1).
    (_, z), = pad_rows(m, ins, 1)
    w = row(m, ins)
    safe = np.where(w == 0, F32(1), w)
    store_depth(m, ins, np.where(w == 0, F32(1), z / safe))


def _normal(m, ins):
    """(N (n, 3), the pad rows) for the texm3x3 ops ending the matrix."""
    pads = pad_rows(m, ins, 2)
    n = np.stack([pads[0][1], pads[1][1], row(m, ins)], axis=1).astype(F32)
    return n, pads


def op_texm3x3tex(m, ins):
    n, _ = _normal(m, ins)
    m.write(ins, sample_stage(m, ins.dst.index, n))


def op_texm3x3(m, ins):
    n, _ = _normal(m, ins)
    m.write(ins, np.concatenate([n, np.ones((m.n, 1), F32)], axis=1))  # w = 1.0


def _reflect(m, ins, n: np.ndarray, e: np.ndarray):
    # R = 2·(N·E)/(N·N)·N − E, the docs' formula: neither N nor E is
    # normalised (DXSO/dxbc-spirv normalise both, wined3d N only; only E's
    # length changes the result).  N = 0 gives NaN coordinates (undefined).
    ne = dot(m, n, e, 3)
    nn = dot(m, n, n, 3)
    r = (F32(2) * ne / nn)[:, None] * n - e
    m.write(ins, sample_stage(m, ins.dst.index, r))


def op_texm3x3spec(m, ins):
    n, _ = _normal(m, ins)
    _reflect(m, ins, n, m.read(ins.srcs[1])[:, :3])  # E = c#.xyz


def op_texm3x3vspec(m, ins):
    n, pads = _normal(m, ins)
    stages = [pads[0][0], pads[1][0], ins.dst.index]
    e = np.stack([texcoord(m, k)[:, 3] for k in stages], axis=1)  # the rows' .w
    _reflect(m, ins, n, e)


def op_texdp3(m, ins):
    m.write(ins, rep4(row(m, ins)))


def op_texdp3tex(m, ins):
    m.write(ins, sample_stage(m, ins.dst.index, coord3(row(m, ins))))


# -- ps_1_4 -------------------------------------------------------------------------


def op_bem(m, ins):
    # §2.11: the bump matrix of stage k = the destination number; .rg only.
    m00, m01, m10, m11 = (F32(x) for x in stage_state(m, ins.dst.index).bump_env_mat)
    s0, s1 = m.read(ins.srcs[0]), m.read(ins.srcs[1])
    out = np.zeros((m.n, 4), F32)
    out[:, 0] = s0[:, 0] + m00 * s1[:, 0] + m10 * s1[:, 1]
    out[:, 1] = s0[:, 1] + m01 * s1[:, 0] + m11 * s1[:, 1]
    m.write(ins, out, ins.dst.write_mask & 0b0011)


def op_texdepth(m, ins):
    # §2.12: depth = r5.r / r5.g, g == 0 -> 1.0 (the docs), clamped to [0, 1].
    r5 = m.fetch(ins.dst.type, ins.dst.index)
    r, g = r5[:, 0], r5[:, 1]
    safe = np.where(g == 0, F32(1), g)
    store_depth(m, ins, np.where(g == 0, F32(1), r / safe))


SM1_OPS = {
    **OPS,
    O.TEX: op_tex, O.TEXCOORD: op_texcoord, O.TEXKILL: op_texkill, O.CND: op_cnd,
    O.TEXBEM: op_texbem, O.TEXBEML: op_texbeml,
    O.TEXREG2AR: op_texreg2ar, O.TEXREG2GB: op_texreg2gb, O.TEXREG2RGB: op_texreg2rgb,
    O.TEXM3x2PAD: op_texm_pad, O.TEXM3x2TEX: op_texm3x2tex, O.TEXM3x2DEPTH: op_texm3x2depth,
    O.TEXM3x3PAD: op_texm_pad, O.TEXM3x3TEX: op_texm3x3tex, O.TEXM3x3: op_texm3x3,
    O.TEXM3x3SPEC: op_texm3x3spec, O.TEXM3x3VSPEC: op_texm3x3vspec,
    O.TEXDP3: op_texdp3, O.TEXDP3TEX: op_texdp3tex,
    O.BEM: op_bem, O.TEXDEPTH: op_texdepth,
}
