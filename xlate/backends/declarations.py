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


# Each spelling is one f-string with its optional parts written inline
# (a helper call per part cost as much as the rest of the line).


def vs_input(t: Target, d: Decl) -> str:
    prec = f"{d.precision} " if t.es and d.precision else ""
    if t.in_out:
        loc = "" if d.location is None else f"layout(location = {d.location}) "
        return f"{loc}in {prec}{d.type} {d.name};"
    return f"attribute {prec}{d.type} {d.name};"


def fs_input(t: Target, d: Decl) -> str:
    centroid = "centroid " if d.centroid else ""
    prec = f"{d.precision} " if t.es and d.precision else ""
    if t.in_out:
        loc = "" if d.location is None else f"layout(location = {d.location}) "
        return f"{loc}{centroid}in {prec}{d.type} {d.name};"
    return f"{centroid}varying {prec}{d.type} {d.name};"


def vs_output(t: Target, d: Decl) -> str:
    if t.in_out:
        loc = "" if d.location is None else f"layout(location = {d.location}) "
        return f"{loc}out {d.type} {d.name};"
    return f"varying {d.type} {d.name};"


def fs_output(t: Target, d: Decl) -> str:
    loc = "" if d.location is None else f"layout(location = {d.location}) "
    return f"{loc}out {d.type} {d.name};"


def uniform(t: Target, d: Decl) -> str:
    prec = f"{d.precision} " if t.es and d.precision else ""
    array = f"[{d.array}]" if d.array else ""
    return f"uniform {prec}{d.type} {d.name}{array};"


def sampler(t: Target, d: Decl) -> str:
    if d.set is not None:
        binding = f"layout(set = {d.set}, binding = {d.binding}) "
    elif d.binding is not None:
        binding = f"layout(binding = {d.binding}) "
    else:
        binding = ""
    prec = f"{d.precision} " if t.es and d.precision else ""
    return f"{binding}uniform {prec}{d.type} {d.name};"


def block_member(t: Target, d: Decl) -> str:
    """A member of a std140 uniform block (Vulkan), at its byte offset."""
    offset = d.offset if d.offset is not None else 0
    array = f"[{d.array}]" if d.array else ""
    return f"    layout(offset = {offset}) {d.type} {d.name}{array};"


def global_(t: Target, d: Decl) -> str:
    array = f"[{d.array}]" if d.array else ""
    init = f" = {d.init}" if d.init else ""
    return f"{d.type} {d.name}{array}{init};"


# Decl.kind -> its spelling, in the order the template lays the sections out
# (globals, after the uniform blocks, are a section of their own).
SECTIONS = {
    "vs_input": vs_input, "fs_input": fs_input, "vs_output": vs_output, "fs_output": fs_output,
    "uniform": uniform, "sampler": sampler,
}
SPELLING = {**SECTIONS, "global": global_}
