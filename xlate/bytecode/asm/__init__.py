"""The assembler: D3D9 shader assembly text -> ``Shader`` -> bytes.

It reads three dialects, which mostly coincide:

* fxc's ``/Fc`` listings (``ps_3_0``, ``dcl_texcoord1 v1.xy``,
  ``texld_pp r0, t0, s0``, ``+ mov r0.w, ...``, ``#line`` directives);
* the Microsoft assembler's text as Wine's tests write it (``vs.1.1``,
  ``c[a0.x + 4]``, ``1 - r0``, ``#define``, ``;`` comments);
* what ``xlate disasm`` prints, including its spellings for things fxc has
  none for (``docs/disassembly.md``, "Extensions").

``preprocess.py`` turns the text into logical lines that remember where
each character came from; ``parser.py`` parses each line into a model
``Instruction``, checking it with ``rules.py`` (what Microsoft's assembler
refuses).  Any problem is an ``AsmError`` with the 1-based line and column of
the offending token in the text as given; nothing else escapes.
"""

from __future__ import annotations

from ..encoder import encode
from ..model import Shader
from .parser import parse
from .preprocess import preprocess

__all__ = ["assemble", "assemble_bytes"]


def assemble(text: str, *, source: str = "<asm>") -> Shader:
    """Assemble shader text into a ``Shader`` (raises ``AsmError``)."""
    return parse(preprocess(text, source), source)


def assemble_bytes(text: str, *, source: str = "<asm>") -> bytes:
    """Assemble shader text into its token stream: ``encode(assemble(text))``."""
    return encode(assemble(text, source=source))
