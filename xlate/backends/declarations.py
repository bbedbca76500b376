"""How each kind of declaration (``layout.Decl``) is spelled in each GLSL
dialect: one line of text per declaration, which the shader template
(``templates/glsl/shader.glsl.j2``) lays out in its sections.

These lines were Jinja2 macros once; a macro call per declaration cost more
than printing the whole function body, so they are f-strings here and the
template keeps the shape of the file (sections, their order, the blank
lines, the precision block and the function skeleton).  Every difference
between dialects is a ``Target`` field, never a target's name.
"""

from __future__ import annotations

from .layout import Decl
from .targets import Target


def _loc(d: Decl) -> str:
    return "" if d.location is None else f"layout(location = {d.location}) "


def _prec(t: Target, d: Decl) -> str:
    return f"{d.precision} " if t.es and d.precision else ""


def _array(d: Decl) -> str:
    return f"[{d.array}]" if d.array else ""


def vs_input(t: Target, d: Decl) -> str:
    if t.in_out:
        return f"{_loc(d)}in {_prec(t, d)}{d.type} {d.name};"
    return f"attribute {_prec(t, d)}{d.type} {d.name};"


def fs_input(t: Target, d: Decl) -> str:
    centroid = "centroid " if d.centroid else ""
    if t.in_out:
        return f"{_loc(d)}{centroid}in {_prec(t, d)}{d.type} {d.name};"
    return f"{centroid}varying {_prec(t, d)}{d.type} {d.name};"


def vs_output(t: Target, d: Decl) -> str:
    if t.in_out:
        return f"{_loc(d)}out {d.type} {d.name};"
    return f"varying {d.type} {d.name};"


def fs_output(t: Target, d: Decl) -> str:
    return f"{_loc(d)}out {d.type} {d.name};"


def uniform(t: Target, d: Decl) -> str:
    return f"uniform {_prec(t, d)}{d.type} {d.name}{_array(d)};"


def spec_constant(t: Target, d: Decl) -> str:
    """A specialization constant (Vulkan GLSL): a draw-time state parameter."""
    return f"layout(constant_id = {d.constant_id}) const {d.type} {d.name} = {d.init};"


def sampler(t: Target, d: Decl) -> str:
    if d.set is not None:
        binding = f"layout(set = {d.set}, binding = {d.binding}) "
    elif d.binding is not None:
        binding = f"layout(binding = {d.binding}) "
    else:
        binding = ""
    return f"{binding}uniform {_prec(t, d)}{d.type} {d.name};"


def block_member(t: Target, d: Decl) -> str:
    """A member of a std140 uniform block (Vulkan), at its byte offset."""
    offset = d.offset if d.offset is not None else 0
    return f"    layout(offset = {offset}) {d.type} {d.name}{_array(d)};"


def global_(t: Target, d: Decl) -> str:
    init = f" = {d.init}" if d.init else ""
    return f"{d.type} {d.name}{_array(d)}{init};"


# Decl.kind -> its spelling, in the order the template lays the sections out
# (globals, after the uniform blocks, are a section of their own).
SECTIONS = {
    "vs_input": vs_input, "fs_input": fs_input, "vs_output": vs_output, "fs_output": fs_output,
    "spec_constant": spec_constant, "uniform": uniform, "sampler": sampler,
}
SPELLING = {**SECTIONS, "global": global_}
