"""xlate: Direct3D 9 shader bytecode (vs_1_1 to ps_3_0) to GLSL and SPIR-V."""

from .errors import AsmError, BytecodeError, EffectError, UnsupportedError, XlateError

__version__ = "0.1.0"


def __getattr__(name):  # lazy: ``import xlate`` stays cheap for the CLI's other commands
    if name in ("translate", "Translation"):
        from . import api

        return getattr(api, name)
    if name in ("translate_effect", "EffectTranslation", "EffectShader"):
        from .effect import translate as effect_translate

        return getattr(effect_translate, name)
    raise AttributeError(f"module 'xlate' has no attribute {name!r}")


__all__ = ["AsmError", "BytecodeError", "EffectError", "EffectShader", "EffectTranslation", "Translation", "UnsupportedError",
           "XlateError", "__version__", "translate", "translate_effect"]
