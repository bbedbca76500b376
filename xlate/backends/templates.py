"""The Jinja2 environment for the GLSL templates (top-level ``templates/``).

One environment per process (the first call creates it): templates are
looked up next to the package (a checkout or an editable install) or inside
it (``xlate/templates``, for an installed wheel that ships them).
StrictUndefined turns a typo in a template into an error, not empty text.
"""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

from . import declarations
from .reflection import shader_model


def template_dirs() -> list[str]:
    here = Path(__file__).resolve().parent.parent  # xlate/
    candidates = [here.parent / "templates", here / "templates"]
    return [str(p) for p in candidates if p.is_dir()]


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    dirs = template_dirs()
    if not dirs:
        raise RuntimeError("xlate's templates/ directory was not found next to the package")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(dirs),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        auto_reload=False,  # templates are read once per process: no stat() per render
        trim_blocks=True,  # a line holding only a {% tag %} prints nothing
        lstrip_blocks=True,
    )
    # The templates use none of Jinja's default globals (range, dict, lipsum
    # ...), and every render copies the globals into its context: with them
    # gone, a render costs half as much.
    env.globals.clear()
    return env


@functools.lru_cache(maxsize=1)
def shader_template() -> jinja2.Template:
    template = environment().get_template("glsl/shader.glsl.j2")
    # Its globals are a ChainMap over the environment's (empty, see
    # environment()), which every render walks in Python to list their
    # names: a plain empty dict says the same for nothing.
    template.globals = {}
    return template


def render(template: jinja2.Template, variables: dict) -> str:
    """``template.render(**variables)`` for a fraction of the cost: the
    compiled template runs on a context that shares ``variables`` (render()
    copies them twice first).  Jinja's own error handling (which rewrites
    tracebacks to point into the template) is skipped: our templates raise
    only on a bug, and StrictUndefined still names the missing variable."""
    return "".join(template.root_render_func(template.new_context(variables, shared=True)))


def render_shader(*, target, stage, program, layout, extensions, helpers, functions) -> str:
    """The whole file.  ``functions``: (name, body lines) pairs, callees first.

    The template writes every blank line itself (one before each section,
    none at the end) and no line it is given is blank or ends in spaces, so
    the text needs no clean-up afterwards."""
    # decl kind -> its lines, in declaration order; the kinds in the order
    # of declarations.SPELLING (the sections', then the globals): a literal,
    # built for less than looking each kind up as it comes
    spelled: dict[str, list[str]] = {"vs_input": [], "fs_input": [], "vs_output": [], "fs_output": [],
                                     "spec_constant": [], "uniform": [],
                                     "sampler": [], "global": []}
    spelling = declarations.SPELLING
    for d in layout.decls:
        kind = d.kind
        spelled[kind].append(spelling[kind](target, d))
    globals_ = spelled.pop("global")
    sections = ["\n".join(lines) for lines in spelled.values() if lines]
    # the precision block the template writes (see its header)
    if target.es:
        precision = "fallback" if target.version < 300 and stage == "fragment" else "highp"
    else:
        precision = ""
    blocks = [(b.name, b.set, b.binding, "\n".join([declarations.block_member(target, m) for m in b.members]))
              for b in layout.blocks] if layout.blocks else ()  # Vulkan only
    return render(shader_template(), {
        "version_line": target.version_line,
        "header": f"xlate: {shader_model(program.version)} {stage} shader for {target.name}",
        "precision": precision,
        "extensions": extensions,
        "declarations": sections,
        "blocks": blocks,
        "globals": "\n".join(globals_),
        "helpers": "\n".join(helpers),
        "functions": [(name, "\n".join(lines)) for name, lines in functions],
    })
