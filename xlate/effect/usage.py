"""Which parameters a technique reads (d3dx9's IsParameterUsed).

A pass uses: the parameters its states name (``<param>``, array selectors
and their element shaders), the inputs of its expressions (their CTAB), the
constants and samplers of each shader it can set (the shader's CTAB and its
preshader's), and, through a sampler, what that sampler's states name
(``Texture = <tex>``).
"""

from __future__ import annotations

import re

from ..bytecode import decode
from ..errors import XlateError
from .model import Effect, Parameter, State, StateKind, Technique

_BASE = re.compile(r"[^.\[\]@]+")


def _top(name: str) -> str:
    m = _BASE.match(name)
    return m.group() if m else name


def _fx_inputs(data: bytes, offset: int) -> list[str]:
    from ..preshader import decode_preshader

    try:
        pre = decode_preshader(data, offset)
    except XlateError:
        return []
    return [c.name for c in pre.ctab.constants] if pre.ctab is not None else []


def _shader_inputs(blob: bytes | None) -> list[str]:
    if not blob:
        return []
    try:
        shader = decode(blob)
    except XlateError:
        return []
    names = [c.name for c in shader.ctab.constants] if shader.ctab is not None else []
    for comment in shader.comments:
        if comment.fourcc == "PRES" and comment.payload:
            names += _fx_inputs(comment.payload, max(comment.offset, 0) + 8)
    return names


class _Walk:
    def __init__(self, effect: Effect):
        self.effect = effect
        self.used: dict[str, None] = {}

    def name(self, name: str) -> None:
        top = _top(name)
        param = self.effect.parameter(top)
        if param is None or top in self.used:
            return
        self.used[top] = None
        self.parameter(param)

    def parameter(self, param: Parameter) -> None:
        for states in param.sampler_states:
            for s in states:
                self.state(s)

    def state(self, state: State) -> None:
        if state.reference:
            self.name(state.reference)
        if state.expression is not None:
            for n in _fx_inputs(state.expression.data, state.expression.offset):
                self.name(n)
        if state.kind == StateKind.ARRAY_SELECTOR:
            found = self.effect.resolve(state.reference or "")
            if found is not None:
                for oid in found[0].object_ids:
                    for n in _shader_inputs(self.effect.object_data(oid)):
                        self.name(n)
        elif state.kind in (StateKind.SHADER, StateKind.PARAMETER):
            blob = self.effect.shader_blob(state)
            for n in _shader_inputs(blob):
                self.name(n)


def parameters_used(effect: Effect, technique: Technique) -> tuple[str, ...]:
    """The names of the top-level parameters ``technique`` reads, in the
    order its passes first reach them."""
    walk = _Walk(effect)
    for pss in technique.passes:
        for state in pss.states:
            walk.state(state)
    return tuple(walk.used)
