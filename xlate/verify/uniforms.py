"""The bytes of a translation's uniform buffers for a draw, as its reflection
lays them out (docs/reflection.md): one buffer a constant register file (16
bytes a register), the viewport vector and the ps_1_x draw-state block.  The
Vulkan and WebGPU runners bind them; only the binding numbers they default
to differ."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..backends.layout import DRAW_STATE_STAGE_STRIDE, DRAW_STATE_UNIFORMS
from .reference import ReferenceConstants
from .reference_sm1 import TextureStage

F32 = np.float32
# the first D3D state of a draw-state uniform -> its byte offset within the stage's bytes
_DRAW_STATE_OFFSETS = {states[0]: offset for _, offset, states, _ in DRAW_STATE_UNIFORMS.values()}


def uniform_blocks(refl: dict, consts: ReferenceConstants, stages: Mapping[int, TextureStage], viewport_value,
                   viewport_binding: int, draw_state_binding: int) -> dict[int, bytes]:
    """binding -> the buffer's bytes; ``viewport_binding`` and
    ``draw_state_binding`` where the reflection names none."""
    out: dict[int, bytes] = {}
    ends: dict[str, int] = {}
    files: dict[str, int] = {}
    for c in refl.get("constants", ()):
        ends[c["file"]] = max(ends.get(c["file"], 0), c["first"] + c["count"])
        files[c["file"]] = c["binding"]
        if c.get("offset", 16 * c["first"]) != 16 * c["first"]:  # register k at byte 16k (reflection.md)
            raise ValueError(f"unexpected offset in {c}")
    for file, binding in files.items():
        end = ends[file]
        if file == "float":
            out[binding] = consts.floats_table(end).astype(F32).tobytes()
        elif file == "int":
            out[binding] = consts.ints_table(end).astype(np.int32).tobytes()
        else:
            regs = np.zeros((end, 4), np.uint32)
            regs[:, 0] = consts.bools_table(end)
            out[binding] = regs.tobytes()
    vp = refl.get("viewport")
    if vp:
        out[vp.get("binding", viewport_binding)] = np.asarray(viewport_value, F32).tobytes()
    ds = (refl.get("draw_state") or {}).get("uniforms", ())
    if ds:
        count = max(8, 1 + max(u["stage"] for u in ds))
        block = np.zeros((count, 8), F32)
        for m in range(count):
            st = stages.get(m, TextureStage())
            block[m, :4] = st.bump_env_mat
            block[m, 4:6] = (st.bump_env_lscale, st.bump_env_loffset)
        for u in ds:  # the reflection's offsets are the layout above
            want = DRAW_STATE_STAGE_STRIDE * u["stage"] + _DRAW_STATE_OFFSETS[u["state"][0]]
            if u.get("offset", want) != want:
                raise NotImplementedError(f"draw-state uniform at an unexpected offset: {u}")
        out[ds[0].get("binding", draw_state_binding)] = block.tobytes()
    return out
