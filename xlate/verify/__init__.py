"""Verification of translations: a reference interpreter for decoded D3D9
shaders (``reference``), its opcode table (``reference_ops``) and texture
sampling (``textures``).  See ``reference``'s docstring for the API."""

from .reference import FLT_MAX, MAX_LOOP_COUNT, ReferenceConstants, Result, parse_program, run_shader
from .textures import SamplerState, Texture, sample

__all__ = [
    "FLT_MAX", "MAX_LOOP_COUNT", "ReferenceConstants", "Result", "SamplerState", "Texture",
    "parse_program", "run_shader", "sample",
]
