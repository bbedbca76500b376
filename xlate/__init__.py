"""xlate: Direct3D 9 shader bytecode (vs_1_1 to ps_3_0) to GLSL and SPIR-V."""

from .errors import AsmError, BytecodeError, XlateError

__version__ = "0.1.0"

__all__ = ["AsmError", "BytecodeError", "XlateError", "__version__"]
