"""Verification of translations: a reference interpreter for decoded D3D9
shaders (``reference``), its opcode tables (``reference_ops``, and
``reference_sm1`` for shader model 1) and texture sampling (``textures``).
See ``reference``'s docstring for the API."""

from .reference import FLT_MAX, MAX_LOOP_COUNT, ReferenceConstants, Result, parse_program, run_shader
from .reference_sm1 import TextureStage
from .textures import SamplerState, Texture, sample

__all__ = [
    "FLT_MAX", "MAX_LOOP_COUNT", "ReferenceConstants", "Result", "SamplerState", "Texture",
    "TextureStage", "parse_program", "run_shader", "sample",
]
