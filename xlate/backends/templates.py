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


def template_dirs() -> list[str]:
    here = Path(__file__).resolve().parent.parent  # xlate/
    candidates = [here.parent / "templates", here / "templates"]
    return [str(p) for p in candidates if p.is_dir()]


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    dirs = template_dirs()
    if not dirs:
        raise RuntimeError("xlate's templates/ directory was not found next to the package")
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(dirs),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        auto_reload=False,  # templates are read once per process: no stat() per render
        trim_blocks=False,
        lstrip_blocks=False,
    )


def render_shader(*, target, stage, program, layout, extensions, helpers, functions) -> str:
    header = f"xlate: {program.version.name} {stage} shader for {target.name}"
    by_kind: dict[str, list] = {}  # decls grouped by kind, in order (a filter per kind costs more)
    for d in layout.decls:
        by_kind.setdefault(d.kind, []).append(d)
    text = environment().get_template("glsl/shader.glsl.j2").render(
        target=target, stage=stage, header=header, extensions=extensions, decls=layout.decls,
        by_kind=by_kind, blocks=layout.blocks, helpers=helpers, functions=functions,
    )
    # one blank line at most between sections, and a single final newline
    lines = text.splitlines()
    out: list[str] = []
    for line in lines:
        if line.strip() == "" and (not out or out[-1] == ""):
            continue
        out.append(line.rstrip())
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"
