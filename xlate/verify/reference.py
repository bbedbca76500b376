"""Reference interpreter for decoded D3D9 shaders (shader models 1 to 3).

It reads the *decoded* ``Shader`` (never xlate's IR), so comparing its
results with an executed translation checks the whole translation.  The
rules implemented are those of ``shared/semantics/D3D9_SEMANTICS.md``; each
handler cites its section.  The opcode handlers live in ``reference_ops.py``
(a table keyed by opcode); ``reference_sm1.py`` extends that table for
shader model 1 (its texture ops, and the SM1 meanings of tex, texcoord,
texkill and cnd).  Texture filtering is in ``textures.py``; the constants,
the result and the block tree of a program in ``reference_program.py``; the
render state around the shader in ``reference_drawstate.py`` (all re-exported
here).

API
---
``run_shader(shader, inputs, constants, textures, *, n, ...) -> Result``
runs n invocations (vertices or pixels) at once: every register is a numpy
float32 array of shape (n, 4) and divergent control flow is handled with
per-invocation execution masks (no Python loop over invocations).

``inputs``
    ``{key: values}``; ``values`` is (n, k) with k <= 4 (missing components
    are filled from (0, 0, 0, 1), §5.1) or a single (k,) vector for all
    invocations.  ``key`` is a register, ``("v", 0)`` / ``("t", 2)``, or a
    semantic, ``(DeclUsage.TEXCOORD, 0)`` or ``("texcoord", 0)``.  Semantics
    resolve through the DCLs (VS, ps_3_0) or the fixed ps_2_x map (v0/v1 =
    COLOR0/1, t# = TEXCOORD#, §1.13).  Inputs not given read 0.
``constants``
    ``ReferenceConstants`` (API values of c#, i#, b#).  DEF/DEFI/DEFB in the
    shader override them, for direct and relative reads alike (§6.1).
``textures``
    ``{sampler number: Texture}``; unbound samplers return (0, 0, 0, 1).
``n``
    Number of invocations.  For pixel shaders that use derivatives (dsx,
    dsy, implicit-LOD texld) n must be a multiple of 4 and the invocations
    come in 2×2 quads: lanes 4k, 4k+1, 4k+2, 4k+3 are the quad's top-left,
    top-right, bottom-left and bottom-right pixels (y grows downwards, as in
    D3D).  ``derivatives="coarse"`` (default, what llvmpipe and most GPUs do)
    uses TR−TL for d/dx and BL−TL for d/dy on the whole quad; ``"fine"``
    uses the lane's own row/column.  Vertex shaders have no derivatives: 0.
``legacy_multiply``
    D3D9's "anything × 0 = 0" (§7.2) in mul, mad, dp2add, dp3, dp4 and the
    matrix macros: each factor is replaced by 0 when the other is 0 (DXVK's
    Strict form, so 0·∞ = 0·NaN = 0).  Off: IEEE products.
``flush_denormals``
    Every written result flushes denormals to zero of the same sign (§7.4;
    D3D9-class hardware and dxbc-spirv flush).  Inputs and constants are
    read as given.
``pixel_coords``
    (n, 2) window coordinates for ps_3_0 ``vPos`` (D3D9 integer pixel
    centres: the top-left pixel is (0, 0), §5.5); z and w of vPos read 0.
``front_facing``
    bool or (n,) bools for ``vFace`` (+1 front, −1 back; default front).
``texture_stages``
    ``{stage: TextureStage}``: the draw-time texture-stage state SM1 pixel
    shaders read (D3DTTFF_PROJECTED, BUMPENVMAT00/01/10/11, BUMPENVLSCALE,
    BUMPENVLOFFSET; see ``reference_sm1.TextureStage``).  Stages not given
    have D3D9's defaults (no projection, zero matrix and luminance).  The
    SM1 sampler dimension (2D / cube / volume) is the ``kind`` of the
    ``Texture`` bound in ``textures`` (§2.10).

``Result``
    ``outputs[name]`` (n, 4) float32 by register name (``oPos``, ``oFog``,
    ``oPts``, ``oD0``, ``oT3``, ``o5``, ``oC0``, ``oDepth``; scalar registers
    in component x); ``semantics[(usage, index)]`` -> output name (vs_3_0
    from its DCLs, vs_2 fixed: oPos = POSITION0, oD# = COLOR#, oT# =
    TEXCOORD#, oFog = FOG0, oPts = PSIZE0); ``output_masks[name]`` the DCL
    mask of a vs_3_0 output; ``killed`` (n,) bool (texkill); ``trace[name]``
    (n, 4) int32: index into ``shader.instructions`` of the last instruction
    that wrote each output component of each invocation (−1: never
    written); ``last_writer(name, lane, component)`` returns it.

Behaviour choices (documented here once):

* **mova** rounds half to even (``np.rint``, as dxbc-spirv's RoundEven,
  §2.9); NaN converts to 0 and values are clamped to the int32 range.
  vs_1_x ``mov a0`` floors (§2.9).
* **rcp/rsq/log/logp** return the IEEE result clamped to ±FLT_MAX (§7.1
  recommendation): rcp(±0) = ±FLT_MAX, rsq(0) = FLT_MAX, log(0) = −FLT_MAX;
  with ``infinities="ieee"`` (``Options.infinities``) the IEEE ±∞ instead.
  ``exp``/``pow`` are not clamped; pow(x, 0) = 1 for every x (§2.5).
* **Loops** (§4.1): ``loop`` runs i#.x times whatever the step, aL = i#.y
  then += i#.z after each iteration, the enclosing aL is restored after
  ``endloop``; ``rep`` runs i#.x times.  Counts are clamped to [0, 255]
  (the documented range; also the infinite-loop guard).  Calls nest at most
  ``MAX_CALL_DEPTH`` deep (recursion is illegal, §4.3).
* **ret** inside nested control flow ends the function for those
  invocations (the docs forbid it; handled anyway).
* **Uninitialised temps** read 0 (§3.4, DXSO).  Saturate maps NaN to 0
  (§7.3).  min/max return the non-NaN operand (§7.3); comparisons are
  ordered except ``ne`` (§4.1, §7.3).
* **texkill** (SM2+) tests all four components of the register, < 0
  kills (§2.12); killed invocations keep executing (demote semantics, so
  derivatives stay defined) and are reported in ``Result.killed``.
* **VS output rules for vs_1_x/2_x** (§5.2): oD0/oD1 are saturated, and
  the components of a written oD0 that were never written read 1.0 (an
  oD0 never written at all is absent from ``outputs``: the caller supplies
  the (1, 1, 1, 1) default at link time).  Other unwritten output
  components read 0.
* Relative reads outside the register file return 0 (§6.1); c# file sizes:
  VS 256 (8192 for _sw), ps_3_0 224, ps_2_x 32, ps_1_x 8 (§1.12), override
  with ``float_constant_count``.  Relative writes to o# outside o0-o11 are
  dropped.
* ``_pp`` and ``_centroid`` are hints and are ignored (everything is fp32).

Shader model 1 (details in ``reference_sm1``):

* **ps_1_x colour** is r0 at the end (§5.6): ``outputs["oC0"]`` is r0 and
  ``trace["oC0"]`` records r0's writers.  It is not clamped (the UNORM
  target does that).  texdepth / texm3x2depth write ``outputs["oDepth"]``.
* **Co-issue** (§3.6): an instruction with the co-issue bit runs together
  with the one before it; all instructions of the pair read their sources
  before either writes.  A co-issued cnd follows the same rule (§2.6).
* **t#**: ps_1_1-1_3 texture ops write t#; a t# nothing wrote reads its
  texture coordinate (wined3d); ps_1_4 t# are the read-only coordinates.
  The texture-address ops read the raw coordinate sets (§2.11).
* **ps_1_x constants** are clamped to [−1, 1], DEF and API values alike
  (§3.5); results are not clamped; colour inputs v# are read as given.
* **phase** is a no-op: every value survives it, as with every peer (§2.12).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..bytecode.model import Instruction, RelativeAddress, Shader, SourceOperand
from ..bytecode.tables import (
    CONST_FILE_BASE,
    OUTPUT,
    TEXTURE,
    DeclUsage,
    Opcode,
    RegisterType,
    SrcMod,
)
from ..errors import StructureError, UnsupportedError
from .reference_drawstate import clip_distances, point_sizes  # noqa: F401 (re-exported)
from .reference_ops import FLOW, OPS, unsupported
from .reference_program import (IfNode, LoopNode, Op, Program, ReferenceConstants, Result,  # noqa: F401 (re-exported)
                                _usage, parse_program)
from .reference_sm1 import SM1_OPS, TextureStage
from . import textures as tx
from .textures import Texture

R = RegisterType
F32 = np.float32
FLT_MAX = np.finfo(np.float32).max
_FLT_MIN = np.finfo(np.float32).tiny  # smallest normal float32
MAX_LOOP_COUNT = 255
MAX_CALL_DEPTH = 16

__all__ = ["ReferenceConstants", "Result", "TextureStage", "run_shader", "MAX_LOOP_COUNT", "FLT_MAX"]


# --------------------------------------------------------------------------
# The machine
# --------------------------------------------------------------------------

# Output register files and their names.
_OUTPUT_TYPES = {R.RASTOUT, R.ATTROUT, R.TEXCRDOUT, R.COLOROUT, R.DEPTHOUT}
_SCALAR_OUTPUTS = {(R.RASTOUT, 1), (R.RASTOUT, 2), (R.DEPTHOUT, 0)}


class _Frame:
    """One function activation: which invocations returned, and the loop
    contexts opened inside it (break only reaches loops of its own frame)."""

    def __init__(self, n: int):
        self.returned = np.zeros(n, bool)
        self.loops: list[np.ndarray] = []  # per open loop: invocations that broke


class Machine:
    def __init__(
        self,
        shader: Shader,
        inputs: Mapping,
        constants: ReferenceConstants,
        textures: Mapping[int, Texture],
        n: int,
        *,
        legacy_multiply: bool,
        infinities: str = "clamp",
        flush_denormals: bool,
        pixel_coords,
        front_facing,
        derivatives: str,
        float_constant_count: int | None,
        texture_stages: Mapping[int, TextureStage] | None = None,
    ):
        self.shader = shader
        self.version = v = shader.version
        self.vertex = v.is_vertex
        self.n = n
        self.legacy_multiply = legacy_multiply
        self.infinities = infinities
        self.flush_denormals = flush_denormals
        self.textures = dict(textures)
        if derivatives not in ("coarse", "fine"):
            raise ValueError("derivatives must be 'coarse' or 'fine'")
        self.derivatives = derivatives
        self.instructions = shader.instructions
        self.ops = SM1_OPS if v.major == 1 else OPS
        self.texture_stages = dict(texture_stages or {})
        # Rows of a texm3x2/texm3x3 product waiting for the op that ends it:
        # [(stage, (n,) dot product)] (reference_sm1, §2.11).
        self.sm1_pad_rows: list[tuple[int, np.ndarray]] = []
        # While a co-issued pair runs, writes wait here (§3.6).
        self._deferred: list | None = None
        # ps_1_x: r0 is the colour output, so its writers are traced (§5.6).
        self._traced_temp = (R.TEMP, 0) if (v.major == 1 and not self.vertex) else None

        # Register files: {(type, index): (n, 4)} created on first use.
        self.regs: dict[tuple[int, int], np.ndarray] = {}
        self.a0 = np.zeros((n, 4), np.int32)
        self.aL = 0
        self.p0 = np.zeros((n, 4), bool)
        self.killed = np.zeros(n, bool)
        self.trace: dict[tuple[int, int], np.ndarray] = {}
        self.mask = np.ones(n, bool)
        self.frames: list[_Frame] = []

        self._setup_constants(constants, float_constant_count)
        self._setup_declarations()
        self._setup_inputs(inputs)
        self.vpos = None
        if pixel_coords is not None:
            pc = np.asarray(pixel_coords, dtype=F32).reshape(n, -1)
            self.vpos = np.zeros((n, 4), F32)
            self.vpos[:, : min(2, pc.shape[1])] = pc[:, :2]
        face = np.broadcast_to(np.asarray(front_facing if front_facing is not None else True, bool), (n,))
        self.vface = np.repeat(np.where(face, F32(1), F32(-1))[:, None], 4, axis=1)

    # -- setup -------------------------------------------------------------

    def _setup_constants(self, constants: ReferenceConstants, count: int | None):
        v = self.version
        if count is None:
            if self.vertex:
                count = 8192 if v.is_sw else 256
            elif v.major == 1:
                count = 8
            elif v.is_sw:
                count = 8192
            else:
                count = 224 if v.major == 3 else 32
        self.float_limit = count
        defs = [i for i in self.instructions if i.opcode == Opcode.DEF]
        direct = [s.index + CONST_FILE_BASE.get(s.type, 0) for i in self.instructions for s in i.srcs if s.type in CONST_FILE_BASE]
        size = max([count] + [d.dst.index + 1 for d in defs] + [x + 1 for x in direct])
        self.c = constants.floats_table(size)
        for d in defs:  # §6.1: DEF wins over the API value, relative reads included
            vals = np.array(d.float_values, dtype=F32)
            if v.major == 1 and not self.vertex:
                vals = np.clip(vals, -1, 1)  # §3.5
            self.c[d.dst.index] = vals
        nother = 2048 if v.is_sw else 16
        self.i = constants.ints_table(nother)
        self.b = constants.bools_table(nother)
        for d in self.instructions:
            if d.opcode == Opcode.DEFI and d.dst.index < nother:
                self.i[d.dst.index] = d.int_values
            elif d.opcode == Opcode.DEFB and d.dst.index < nother:
                self.b[d.dst.index] = d.bool_value

    def _setup_declarations(self):
        """Semantics of inputs/outputs and sampler types from the DCLs."""
        self.input_semantics: dict[tuple[int, int], tuple[int, int]] = {}  # (usage, idx) -> register
        self.output_semantics: dict[tuple[int, int], str] = {}
        self.output_masks: dict[str, int] = {}
        self.sampler_types: dict[int, int] = {}
        v = self.version
        for ins in self.instructions:
            if ins.opcode != Opcode.DCL:
                continue
            d, decl = ins.dst, ins.declaration
            if d.type == R.SAMPLER:
                self.sampler_types[d.index] = int(decl.sampler_type)
            elif d.type == R.INPUT and (self.vertex or v.major >= 3):
                self.input_semantics[(int(decl.usage), decl.usage_index)] = (R.INPUT, d.index)
            elif d.type == OUTPUT and self.vertex and v.major >= 3:
                name = f"o{d.index}"
                self.output_semantics[(int(decl.usage), decl.usage_index)] = name
                self.output_masks[name] = self.output_masks.get(name, 0) | d.write_mask
        if not self.vertex and v.major < 3:
            for k in range(2):
                self.input_semantics[(int(DeclUsage.COLOR), k)] = (R.INPUT, k)
            for k in range(8):
                self.input_semantics[(int(DeclUsage.TEXCOORD), k)] = (TEXTURE, k)

    def _setup_inputs(self, inputs: Mapping):
        n = self.n
        self.inputs: dict[tuple[int, int], np.ndarray] = {}
        for key, value in inputs.items():
            reg = self._input_register(key)
            a = np.asarray(value, dtype=F32)
            if a.ndim == 1:
                a = np.broadcast_to(a, (n, a.shape[0]))
            if a.shape[0] != n or a.shape[1] > 4:
                raise ValueError(f"input {key!r} has shape {a.shape}, want ({n}, <=4)")
            full = np.tile(np.array([0, 0, 0, 1], F32), (n, 1))
            full[:, : a.shape[1]] = a
            self.inputs[reg] = full

    def _input_register(self, key) -> tuple[int, int]:
        kind, index = key
        if isinstance(kind, str) and kind in ("v", "t"):
            return (R.INPUT if kind == "v" else TEXTURE, int(index))
        sem = (_usage(kind), int(index))
        if sem not in self.input_semantics:
            # An input the shader does not declare: harmless, keep it aside.
            return (-1, hash(sem))
        return self.input_semantics[sem]

    # -- register access ---------------------------------------------------

    def _file(self, rtype: int, index: int) -> np.ndarray:
        key = (rtype, index)
        arr = self.regs.get(key)
        if arr is None:
            arr = self.regs[key] = np.zeros((self.n, 4), F32)
        return arr

    def address_offset(self, rel: RelativeAddress) -> np.ndarray | int:
        """The integer offset of a relative operand: per invocation for a0,
        uniform for aL (§1.6)."""
        if rel.type == R.LOOP:
            return self.aL
        if rel.implicit:  # vs_1_1: a0.x
            return self.a0[:, 0]
        return self.a0[:, rel.component]

    def fetch(self, rtype: int, index: int, rel: RelativeAddress | None = None) -> np.ndarray:
        """The raw (n, 4) value of a register, before swizzle and modifiers."""
        n = self.n
        if rtype in CONST_FILE_BASE:
            index += CONST_FILE_BASE[rtype]
            if rel is None:
                row = self.c[index] if index < len(self.c) else np.zeros(4, F32)
                if self.version.major == 1 and not self.vertex:
                    row = np.clip(row, -1, 1)  # §3.5
                return np.broadcast_to(row, (n, 4))
            idx = index + np.broadcast_to(np.asarray(self.address_offset(rel), np.int64), (n,))
            ok = (idx >= 0) & (idx < self.float_limit)  # §6.1: out of range reads 0
            return np.where(ok[:, None], self.c[np.where(ok, idx, 0)], F32(0))
        if rtype == R.TEMP:
            return self._file(R.TEMP, index)
        if rtype == R.INPUT or (rtype == TEXTURE and not self.vertex):
            if rel is None and (rtype, index) in self.regs:
                return self.regs[(rtype, index)]  # ps_1_x t# written by the shader
            if rel is None:
                return self.inputs.get((rtype, index), np.zeros((n, 4), F32))
            limit = 16 if self.vertex else 10
            idx = index + np.broadcast_to(np.asarray(self.address_offset(rel), np.int64), (n,))
            out = np.zeros((n, 4), F32)
            for k in np.unique(idx):
                if 0 <= k < limit and (rtype, int(k)) in self.inputs:
                    sel = idx == k
                    out[sel] = self.inputs[(rtype, int(k))][sel]
            return out
        if rtype == R.ADDR:  # VS a0 (PS t# handled above)
            return self.a0.astype(F32)
        if rtype == R.CONSTINT:
            return np.broadcast_to(self.i[index].astype(F32), (n, 4))
        if rtype == R.CONSTBOOL:
            return np.broadcast_to(np.full(4, F32(self.b[index])), (n, 4))
        if rtype == R.LOOP:
            return np.full((n, 4), F32(self.aL))
        if rtype == R.PREDICATE:
            return self.p0.astype(F32)
        if rtype == R.MISCTYPE:
            if index == 0:
                if self.vpos is None:
                    raise ValueError("the shader reads vPos: pass pixel_coords")
                return self.vpos
            return self.vface
        if rtype in _OUTPUT_TYPES:
            # Not readable in SM2/3; sm1 outputs are temps in disguise.
            return self._file(rtype, index)
        raise UnsupportedError(-1, f"reading register type {RegisterType(rtype).name}")

    def read(self, src: SourceOperand, index_delta: int = 0) -> np.ndarray:
        """A source operand after swizzle and modifier (§3.1): (n, 4)."""
        raw = self.fetch(src.type, src.index + index_delta, src.relative)
        mod = src.modifier
        if mod in (SrcMod.DZ, SrcMod.DW):  # before the swizzle, §3.1
            div = raw[:, 2:3] if mod == SrcMod.DZ else raw[:, 3:4]
            raw = raw / div
        v = raw[:, list(src.components)]
        if mod in (SrcMod.NONE, SrcMod.DZ, SrcMod.DW):
            return v
        if mod == SrcMod.NEG:
            return -v
        if mod == SrcMod.ABS:
            return np.abs(v)
        if mod == SrcMod.ABSNEG:
            return -np.abs(v)
        if mod == SrcMod.BIAS:
            return v - F32(0.5)
        if mod == SrcMod.BIASNEG:
            return -(v - F32(0.5))
        if mod == SrcMod.SIGN:
            return F32(2) * v - F32(1)
        if mod == SrcMod.SIGNNEG:
            return -(F32(2) * v - F32(1))
        if mod == SrcMod.COMP:
            return F32(1) - v
        if mod == SrcMod.X2:
            return F32(2) * v
        if mod == SrcMod.X2NEG:
            return F32(-2) * v
        if mod == SrcMod.NOT:  # §3.1: tolerant logical not
            return (v == 0).astype(F32)
        raise UnsupportedError(-1, f"source modifier {mod!r}")

    def condition(self, src: SourceOperand) -> np.ndarray:
        """A boolean (n,) from b#, p0.c or their negation (if, callnz, breakp)."""
        if src.type == R.CONSTBOOL:
            value = np.full(self.n, bool(self.b[src.index]))
        elif src.type == R.PREDICATE:
            value = self.p0[:, src.components[0]].copy()
        else:
            value = self.read(src)[:, 0] != 0
        if src.modifier == SrcMod.NOT:
            value = ~value
        return value

    def predicate_mask(self, instr: Instruction) -> np.ndarray:
        """Per destination component, whether the predicate allows the write
        (§4.2: p0.swizzle[c], optionally negated)."""
        p = instr.predicate
        if p is None:
            return np.ones((self.n, 4), bool)
        value = self.p0[:, list(p.components)]
        return ~value if p.modifier == SrcMod.NOT else value

    def write(self, instr: Instruction, value: np.ndarray, comp_mask: int | None = None):
        """Store under write mask, predicate and execution mask, after the
        result shift and saturate (§3.2, §3.3).  ``value`` is (n, 4).
        Inside a co-issued pair the store waits for the pair's end (§3.6)."""
        if self._deferred is not None:
            self._deferred.append((self._current_index, instr, value, comp_mask))
            return
        dst = instr.dst
        v = np.asarray(value, dtype=F32)
        if dst.shift:
            v = v * F32(2.0 ** dst.shift)
        if dst.saturate:
            v = np.nan_to_num(np.clip(v, F32(0), F32(1)), nan=0.0)
        if self.flush_denormals:  # §7.4: results flush denormals (sign kept)
            v = np.where(np.abs(v) < _FLT_MIN, v * F32(0), v)
        wm = dst.write_mask if comp_mask is None else comp_mask
        rtype, index = dst.type, dst.index
        if (rtype, index) in _SCALAR_OUTPUTS:
            wm = 1  # scalar registers take x (§1.4, §2.1)
        comps = np.array([(wm >> c) & 1 for c in range(4)], bool)
        enable = self.mask[:, None] & comps[None, :] & self.predicate_mask(instr)
        if rtype == R.ADDR and self.vertex:
            self.a0 = np.where(enable, self._to_address(instr, v), self.a0)
            return
        if rtype == R.PREDICATE:
            self.p0 = np.where(enable, v != 0, self.p0)
            return
        if dst.relative is not None:
            self._write_relative(instr, v, enable)
            return
        self._store(rtype, index, v, enable, instr)

    def _to_address(self, instr: Instruction, v: np.ndarray) -> np.ndarray:
        if instr.opcode == Opcode.MOVA:
            r = np.rint(v)  # §2.9: round to nearest, half to even
        else:
            r = np.floor(v)  # vs_1_x mov a0: floor (§2.9)
        r = np.nan_to_num(r, nan=0.0)
        return np.clip(r, -(2.0**31), 2.0**31 - 1).astype(np.int32)

    def _store(self, rtype, index, v, enable, instr):
        arr = self._file(rtype, index)
        np.copyto(arr, v, where=enable)
        if rtype in _OUTPUT_TYPES or (rtype, index) == self._traced_temp:
            tr = self.trace.get((rtype, index))
            if tr is None:
                tr = self.trace[(rtype, index)] = np.full((self.n, 4), -1, np.int32)
            tr[enable] = self._current_index

    def _write_relative(self, instr, v, enable):
        """o#[aL + n] in vs_3_0 (§1.6, §5.3); out-of-range writes dropped."""
        dst = instr.dst
        idx = dst.index + np.broadcast_to(np.asarray(self.address_offset(dst.relative), np.int64), (self.n,))
        for k in np.unique(idx):
            if 0 <= k < 12:
                self._store(dst.type, int(k), v, enable & (idx == k)[:, None], instr)

    # -- derivatives --------------------------------------------------------

    def derivative(self, value: np.ndarray, axis: str) -> np.ndarray:
        """d/dx or d/dy of a (n, k) value over 2×2 quads (see module doc)."""
        if self.vertex:
            return np.zeros_like(value)
        n = self.n
        if n % 4:
            raise ValueError("pixel derivatives need invocations in 2x2 quads (n % 4 == 0)")
        q = value.reshape(n // 4, 4, -1)
        tl, tr, bl, br = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
        out = np.empty_like(q)
        if axis == "x":
            top = tr - tl
            bottom = br - bl if self.derivatives == "fine" else top
            out[:, 0] = out[:, 1] = top
            out[:, 2] = out[:, 3] = bottom
        else:
            left = bl - tl
            right = br - tr if self.derivatives == "fine" else left
            out[:, 0] = out[:, 2] = left
            out[:, 1] = out[:, 3] = right
        return out.reshape(value.shape)

    # -- control flow --------------------------------------------------------

    @property
    def frame(self) -> _Frame:
        return self.frames[-1]

    def _alive(self) -> np.ndarray:
        """Invocations not removed by a break of the innermost loop or a ret."""
        dead = self.frame.returned
        if self.frame.loops:
            dead = dead | self.frame.loops[-1]
        return ~dead

    def run_block(self, block: list):
        i = 0
        while i < len(block):
            node = block[i]
            if isinstance(node, Op):
                # §3.6: following instructions with the co-issue bit pair
                # with this one (only SM1 sets it; SM1 has no flow control).
                j = i + 1
                while j < len(block) and isinstance(block[j], Op) and block[j].instr.coissue:
                    j += 1
                if j - i == 1:
                    self._run_op(node)
                else:
                    self._run_coissued(block[i:j])
                i = j
                continue
            if isinstance(node, IfNode):
                self._run_if(node)
            else:
                self._run_loop(node)
            i += 1

    def _run_op(self, node: Op):
        ins = node.instr
        self._current_index = node.index
        op = ins.opcode
        if op in FLOW:
            FLOW[op](self, ins)
            return
        if not self.mask.any():
            return
        handler = self.ops.get(op)
        if handler is None:
            unsupported(self, ins)
        handler(self, ins)

    def _run_coissued(self, nodes: list):
        """Run a co-issued group: every instruction reads its sources before
        any of them writes (§3.6), so the writes are collected, then done in
        order."""
        self._deferred = []
        try:
            for node in nodes:
                self._run_op(node)
            pending = self._deferred
        finally:
            self._deferred = None
        for index, instr, value, comp_mask in pending:
            self._current_index = index
            self.write(instr, value, comp_mask)

    def _run_if(self, node: IfNode):
        ins = node.instr
        entry = self.mask
        if ins.opcode == Opcode.IF:
            cond = self.condition(ins.srcs[0])
        else:
            cond = self.compare(ins.comparison, self.read(ins.srcs[0])[:, 0], self.read(ins.srcs[1])[:, 0])
        self.mask = entry & cond
        self.run_block(node.then)
        self.mask = entry & ~cond & self._alive()
        self.run_block(node.orelse)
        self.mask = entry & self._alive()

    def _run_loop(self, node: LoopNode):
        ins = node.instr
        is_loop = ins.opcode == Opcode.LOOP
        ireg = ins.srcs[1] if is_loop else ins.srcs[0]
        count, start, step = (int(x) for x in self.i[ireg.index][:3])
        count = min(max(count, 0), MAX_LOOP_COUNT)  # §4.1 range 0-255; loop guard
        entry = self.mask
        saved_aL = self.aL
        broke = np.zeros(self.n, bool)
        self.frame.loops.append(broke)
        if is_loop:
            self.aL = start
        for _ in range(count):
            self.mask = entry & ~self.frame.loops[-1] & ~self.frame.returned
            if not self.mask.any():
                break
            self.run_block(node.body)
            if is_loop:
                self.aL += step
        self.frame.loops.pop()
        if is_loop:
            self.aL = saved_aL  # §4.1: the enclosing loop's aL is restored
        self.mask = entry & self._alive()

    def _break(self, cond: np.ndarray):
        if not self.frame.loops:
            raise StructureError(-1, "break outside a loop")
        hit = self.mask & cond
        self.frame.loops[-1] |= hit
        self.mask = self.mask & ~hit

    def _predicate_scalar(self, ins: Instruction) -> np.ndarray:
        """For predicated instructions without a destination (break, call):
        the first predicate swizzle component."""
        return self.predicate_mask(ins)[:, 0]

    def call(self, label: int, cond: np.ndarray, offset: int):
        body = self.program.functions.get(label)
        if body is None:
            raise StructureError(offset, f"call to undefined label l{label}")
        if len(self.frames) > MAX_CALL_DEPTH:
            raise StructureError(offset, "call nesting too deep (recursion?)")
        entry = self.mask
        self.mask = entry & cond
        if self.mask.any():
            self.frames.append(_Frame(self.n))
            self.run_block(body)
            self.frames.pop()
        self.mask = entry

    @staticmethod
    def compare(code, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """D3DSHADER_COMPARISON (§1.14); ordered except ne (§4.1)."""
        c = int(code)
        if c == 1:
            return a > b
        if c == 2:
            return a == b
        if c == 3:
            return a >= b
        if c == 4:
            return a < b
        if c == 5:
            return a != b  # unordered: NaN != x is true
        if c == 6:
            return a <= b
        return np.full(a.shape, c == 7)

    # -- entry ----------------------------------------------------------------

    def run(self, program: Program):
        self.program = program
        self.frames = [_Frame(self.n)]
        self.run_block(program.main)

    def result(self) -> Result:
        n = self.n
        v = self.version
        outputs: dict[str, np.ndarray] = {}
        trace: dict[str, np.ndarray] = {}
        semantics = dict(self.output_semantics)
        for (rtype, index), arr in sorted(self.regs.items()):
            if rtype not in _OUTPUT_TYPES:
                continue
            name = self.shader.register_name(rtype, index)
            outputs[name] = arr
            trace[name] = self.trace.get((rtype, index), np.full((n, 4), -1, np.int32))
        if self.vertex and v.major < 3:
            for name in list(outputs):
                sem = _fixed_vs_semantic(name)
                if sem is not None:
                    semantics[sem] = name
            # §5.2: colours saturated; unwritten oD0 components read 1.0.
            for k in range(2):
                name = f"oD{k}"
                if name in outputs:
                    val = np.nan_to_num(np.clip(outputs[name], 0, 1), nan=0.0)
                    if k == 0:
                        val = np.where(trace[name] < 0, F32(1), val)
                    outputs[name] = val.astype(F32)
        if not self.vertex and v.major == 1:
            outputs["oC0"] = self._file(R.TEMP, 0)  # §5.6: ps_1_x colour is r0
            trace["oC0"] = self.trace.get((R.TEMP, 0), np.full((n, 4), -1, np.int32))
        return Result(outputs, semantics, dict(self.output_masks), self.killed.copy(), trace, self.instructions)


def _fixed_vs_semantic(name: str):
    if name == "oPos":
        return (int(DeclUsage.POSITION), 0)
    if name == "oFog":
        return (int(DeclUsage.FOG), 0)
    if name == "oPts":
        return (int(DeclUsage.PSIZE), 0)
    if name.startswith("oD"):
        return (int(DeclUsage.COLOR), int(name[2:]))
    if name.startswith("oT"):
        return (int(DeclUsage.TEXCOORD), int(name[2:]))
    return None


# --------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------


def run_shader(
    shader: Shader,
    inputs: Mapping | None = None,
    constants: ReferenceConstants | None = None,
    textures: Mapping[int, Texture] | None = None,
    *,
    n: int,
    legacy_multiply: bool = True,
    infinities: str = "clamp",
    flush_denormals: bool = True,
    pixel_coords=None,
    front_facing=None,
    derivatives: str = "coarse",
    float_constant_count: int | None = None,
    texture_stages: Mapping[int, TextureStage] | None = None,
    draw_state=None,
    fog_coordinate=None,
    depth=None,
    srgb_write: bool = False,
    point_sprite: bool = False,
) -> Result:
    """Run ``shader`` for ``n`` invocations; see the module docstring.
    ``draw_state`` (an ``xlate.drawstate.DrawState``): the alpha test and fog
    applied after a pixel shader (``reference_drawstate``), with the
    pixels' interpolated fog coordinate and depth z (each (n,)), then its
    sRGB write.

    ``srgb_write`` (D3DRS_SRGBWRITEENABLE, also taken from ``draw_state``):
    the colour outputs' rgb come out saturated and sRGB-encoded, as an sRGB
    render target stores them.  ``point_sprite`` (D3DRS_POINTSPRITEENABLE,
    pixel shaders): every TEXCOORD input reads (u, v, 0, 0) with (u, v) =
    ``inputs["point_coord"]`` (n, 2), the position in the point, u right and
    v down."""
    if point_sprite:
        inputs = _point_sprite_inputs(shader, dict(inputs or {}), n)
    m = Machine(
        shader,
        inputs or {},
        constants or ReferenceConstants(),
        textures or {},
        n,
        legacy_multiply=legacy_multiply,
        infinities=infinities,
        flush_denormals=flush_denormals,
        pixel_coords=pixel_coords,
        front_facing=front_facing,
        derivatives=derivatives,
        float_constant_count=float_constant_count,
        texture_stages=texture_stages,
    )
    program = parse_program(shader)
    with np.errstate(all="ignore"):
        m.run(program)
    result = m.result()
    if draw_state is not None:
        from .reference_drawstate import apply_draw_state

        result = apply_draw_state(result, shader.version, draw_state, fog_coordinate=fog_coordinate, depth=depth)
    if srgb_write or getattr(draw_state, "srgbwriteenable", False):
        srgb_write = shader.version.is_pixel
    if srgb_write:
        for name, value in result.outputs.items():
            if name.startswith("oC"):
                value[:, :3] = tx.linear_to_srgb(value[:, :3])
    return result


def _point_sprite_inputs(shader: Shader, inputs: dict, n: int) -> dict:
    """The inputs with every TEXCOORD the shader can read set to the point
    coordinate (semantics 5.4)."""
    from ..bytecode.tables import DeclUsage

    uv = np.asarray(inputs.pop("point_coord"), F32).reshape(-1, 2)
    value = np.zeros((max(n, len(uv)), 4), F32)
    value[:, :2] = uv
    for k in range(16):
        inputs[(DeclUsage.TEXCOORD, k)] = value
    return inputs
