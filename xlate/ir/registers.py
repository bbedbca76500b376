"""Which variable each D3D register becomes when lifted: its storage, type,
semantics and built-in, per shader version (``classify``), and the table of
every register of a version's files worked out once (``register_table``).
Split from ``builder.py``, whose ``_Builder`` looks registers up here.
"""

from __future__ import annotations

from ..bytecode.tables import (
    CONST_FILE_BASE,
    REGISTER_FILES,
    TEXTURE,
    DeclUsage,
    RegisterType,
    ShaderVersion,
    register_name,
)
from .program import Semantic, Storage
from .types import B4, F1, F4, I1, I4

R = RegisterType


def classify(v: ShaderVersion, rtype: RegisterType, index: int) -> tuple | None:
    """(storage, type, semantics, builtin) of a register of ``v`` that is a
    variable; None for one that cannot be used in ``v``."""
    none: tuple = ()
    if rtype == R.TEMP:
        return Storage.TEMP, F4, none, None
    if rtype == R.PREDICATE:
        return Storage.PREDICATE, B4, none, None
    if rtype == R.LOOP:
        return Storage.LOOP_COUNTER, I1, none, None
    if rtype == R.SAMPLER:
        return Storage.SAMPLER, F4, none, None
    if v.is_vertex:
        if rtype == R.ADDR:
            return Storage.ADDRESS, I4, none, None
        if rtype == R.INPUT:
            return Storage.INPUT, F4, none, None  # semantics come from DCL
        if rtype == R.RASTOUT:
            usage, t = [(DeclUsage.POSITION, F4), (DeclUsage.FOG, F1), (DeclUsage.PSIZE, F1)][index]
            return Storage.OUTPUT, t, ((0xF, Semantic(usage, 0)),), None
        if rtype == R.ATTROUT:
            return Storage.OUTPUT, F4, ((0xF, Semantic(DeclUsage.COLOR, index)),), None
        if rtype == R.TEXCRDOUT:
            if v.major >= 3:
                return Storage.OUTPUT, F4, none, None  # semantics come from DCL
            return Storage.OUTPUT, F4, ((0xF, Semantic(DeclUsage.TEXCOORD, index)),), None
    else:
        if rtype == R.INPUT:
            if v.major >= 3:
                return Storage.INPUT, F4, none, None
            return Storage.INPUT, F4, ((0xF, Semantic(DeclUsage.COLOR, index)),), None
        if rtype == TEXTURE:
            if v.major == 1 and v.minor < 4:
                # ps_1_1-1_3 t# is a register texture ops write; the
                # interpolated coordinate is a separate input (texcoord_input).
                return Storage.TEMP, F4, none, None
            return Storage.INPUT, F4, ((0xF, Semantic(DeclUsage.TEXCOORD, index)),), None
        if rtype == R.COLOROUT:
            return Storage.OUTPUT, F4, ((0xF, Semantic(DeclUsage.COLOR, index)),), None
        if rtype == R.DEPTHOUT:
            return Storage.OUTPUT, F1, ((0x1, Semantic(DeclUsage.DEPTH, 0)),), None
        if rtype == R.MISCTYPE:
            if index == 0:
                return Storage.INPUT, F4, none, "vpos"
            return Storage.INPUT, F1, none, "vface"
    return None


def register_table(version: ShaderVersion) -> dict[tuple[RegisterType, int], tuple]:
    """(name, storage, type, semantics, builtin) of every register of
    ``version`` that lifting models as a variable of its own.  A shader
    creates about eight variables; looking their model up here is much
    faster than ``register_name`` and ``classify`` (enum and version
    attribute reads), which only registers missing here still go through."""
    table = {}
    for rtype, rf in REGISTER_FILES[version].items():
        if rtype in CONST_FILE_BASE or rtype in (R.CONSTINT, R.CONSTBOOL, R.LABEL):
            continue  # array files and labels are not register variables
        for index in range(rf.count):
            model = classify(version, rtype, index)
            if model is not None:
                table[(rtype, index)] = (register_name(version, rtype, index),) + model
    return table
