"""The ``xlate`` command line.

Every command reads a file (``-`` for standard input), reports problems in
the input as one clear line (``file: byte offset N: reason`` or
``file:line:col: reason``) with exit status 1, and never shows a traceback
for bad input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from . import __version__
from .errors import XlateError
from .options import INFINITIES

EPILOG_EXAMPLES = """
\b
Examples:
  xlate disasm shader.bin                 print the assembly of a shader blob
  xlate asm shader.asm -o shader.bin      assemble text into bytecode
  xlate info shader.bin --json            version, instruction counts, registers, CTAB
  xlate translate shader.bin -t glsl330   GLSL (or SPIR-V with -t spirv -o out.spv)
  xlate verify shader.bin --seeds 4       run it on llvmpipe against the reference
"""


def _read_bytes(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    return Path(path).read_bytes()


def _read_text(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    return Path(path).read_text(encoding="utf-8", errors="replace")


def _fail(path: str, exc: Exception) -> None:
    label = "<stdin>" if path == "-" else path
    click.echo(f"xlate: {label}: {exc}", err=True)
    sys.exit(1)


def _decode(path: str):
    from .bytecode import decode

    try:
        return decode(_read_bytes(path))
    except XlateError as exc:
        _fail(path, exc)
    except OSError as exc:
        _fail(path, exc)


@click.group(epilog=EPILOG_EXAMPLES, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="xlate")
def main() -> None:
    """Translate Direct3D 9 shader bytecode (vs_1_1 ... ps_3_0) to GLSL and SPIR-V.

    FILE arguments are raw shader blobs as fxc or D3DXAssembleShader write
    them (a version token, tokens, END), or '-' for standard input.
    """


@main.command()
@click.argument("file")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write the listing here instead of standard output.")
@click.option("--no-header", is_flag=True, help="Leave out the CTAB constant table comment.")
def disasm(file: str, output: str | None, no_header: bool) -> None:
    """Print the assembly of a shader blob, in fxc's /Fc syntax.

    The text assembles back to the same bytes with 'xlate asm'.
    """
    from .bytecode.disasm import disassemble

    shader = _decode(file)
    text = disassemble(shader, header=not no_header)
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=not text.endswith("\n"))


@main.command(name="asm")
@click.argument("file")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, writable=True), help="Where to write the bytecode.")
def asm_command(file: str, output: str) -> None:
    """Assemble shader text (vs_1_1 ... ps_3_0) into bytecode.

    Accepts fxc listings, 'xlate disasm' output and Microsoft assembler
    syntax: case-insensitive, '//' and ';' comments, register aliases
    (oPos, oD0, oT0, oC0, vPos, vFace, aL, p0), #define/#line.
    """
    from .bytecode.asm import assemble_bytes

    try:
        data = assemble_bytes(_read_text(file), source="<stdin>" if file == "-" else file)
    except (XlateError, OSError) as exc:
        # AsmError already names the file, line and column.
        click.echo(f"xlate: {exc}", err=True)
        sys.exit(1)
    Path(output).write_bytes(data)


@main.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
def info(file: str, as_json: bool) -> None:
    """Summarise a shader: version, instruction counts by kind, registers, CTAB."""
    from .bytecode.stats import shader_info

    facts = shader_info(_decode(file))
    if as_json:
        click.echo(json.dumps(facts.to_json(), indent=2))
        return
    _print_info(facts)


def _print_info(facts) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from .bytecode.ctab import shown_name

    def shown(text) -> str:
        # Names, tags and creator strings come from the shader: no control
        # character reaches the terminal, no ``[...]`` is read as markup.
        return escape(shown_name(str(text)))

    console = Console()
    console.print(f"[bold]{facts.version}[/bold] ({facts.stage} shader), {facts.instructions} instructions")
    kinds = ", ".join(f"{k} {n}" for k, n in facts.by_kind.items())
    console.print(f"  by kind: {kinds}")
    console.print("  by opcode: " + ", ".join(f"{k} {n}" for k, n in facts.by_opcode.items()))
    console.print("  registers read: " + (" ".join(facts.registers_read) or "-"))
    console.print("  registers written: " + (" ".join(facts.registers_written) or "-"))
    for c in facts.comments:
        console.print(f"  comment at byte {c['offset']}: {shown(c['fourcc'] or 'binary')}, {c['bytes']} bytes")
    if facts.ctab and facts.ctab["constants"]:
        table = Table(title=f"CTAB ({shown(facts.ctab['creator'])}, {shown(facts.ctab['target'])})")
        for col in ("name", "set", "first", "count", "type"):
            table.add_column(col)
        for c in facts.ctab["constants"]:
            shape = f"{c['class']} {c['type']} {c['rows']}x{c['columns']}" + (f"[{c['elements']}]" if c["elements"] > 1 else "")
            table.add_row(shown(c["name"]), shown(c["register_set"]), str(c["register_index"]), str(c["register_count"]), escape(shape))
        console.print(table)
    elif facts.ctab:
        console.print(f"  CTAB: {shown(facts.ctab['creator'])}, {shown(facts.ctab['target'])}, no constants")


def _translate_help() -> str:
    from .backends.targets import DESCRIPTIONS

    lines = "\n".join(f"  {name:<8} {text}" for name, text in DESCRIPTIONS.items())
    return f"""Translate a shader blob to GLSL or SPIR-V.

\b
Targets (-t):
{lines}

\b
Stage-interface options (defaults are what a D3D9-on-GL/Vulkan layer needs;
'auto' lets the target decide):
  --clip-z auto|on|off       z' = 2z - w on the VS position (D3D 0..w to GL
                             -w..w).  auto: on for GL targets, off for Vulkan.
  --half-pixel/--no-half-pixel
                             move the VS position to D3D9's pixel centres,
                             reading the 'viewport' uniform.  On, by 63/128
                             pixel (as wined3d and DXVK) so D3D's top-left rule
                             decides edges through pixel centres.
  --half-pixel-exact         move by exactly 1/2 pixel instead: exact
                             interpolation, driver's tie rule on such edges.
  --flip-y auto|on|off       negate the VS position's y so the image lies in
                             memory as D3D's (also decides vPos.y and dsy).
                             auto: off for GL, on for Vulkan.
  --no-fixed-outputs         vs_1_x/2_x: declare only the outputs written, not
                             every COLOR0-1/TEXCOORD0-7.
  --no-legacy-multiply       plain IEEE products instead of D3D9's 0*x = 0.
  --infinities clamp|ieee    what rcp/rsq/log give at 0 (and log at +inf):
                             clamp: +-FLT_MAX as documented (ATI); ieee: +-inf
                             as NVIDIA drivers return.

The reflection (--reflect) says what to bind: constants, samplers, varyings,
the viewport uniform, DEF values (docs/reflection.md)."""


def _tri(value: str) -> bool | None:
    return {"auto": None, "on": True, "off": False}[value]


@main.command(name="translate", help=_translate_help())
@click.argument("file")
@click.option("-t", "--target", default="glsl330", show_default=True,
              type=click.Choice(["glsl120", "glsl330", "glsl450", "essl100", "essl300", "vulkan", "spirv"]),
              help="Output language.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True),
              help="Write the code here (required for spirv unless stdout is a file).")
@click.option("--reflect", "reflect_path", type=click.Path(dir_okay=False, writable=True),
              help="Write the reflection JSON here ('-' for standard output).")
@click.option("--annotate", is_flag=True, help="Put each D3D instruction as a comment above its code.")
@click.option("--clip-z", "clip_z", type=click.Choice(["auto", "on", "off"]), default="auto", show_default=True)
@click.option("--half-pixel/--no-half-pixel", default=True, show_default=True,
              help="Move positions to D3D9's integer pixel centres (by 63/128 pixel; see --half-pixel-exact).")
@click.option("--half-pixel-exact", is_flag=True,
              help="Move by exactly 1/2 pixel: exact interpolation, but the driver's tie rule decides edges through pixel centres.")
@click.option("--flip-y", "flip_y", type=click.Choice(["auto", "on", "off"]), default="auto", show_default=True)
@click.option("--fixed-outputs/--no-fixed-outputs", default=True, show_default=True)
@click.option("--legacy-multiply/--no-legacy-multiply", default=True, show_default=True)
@click.option("--infinities", type=click.Choice(INFINITIES), default="clamp", show_default=True)
def translate_command(file, target, output, reflect_path, annotate, clip_z, half_pixel, half_pixel_exact, flip_y,
                      fixed_outputs, legacy_multiply, infinities):
    from .api import translate

    try:
        result = translate(_read_bytes(file), target, annotate=annotate, clip_z=_tri(clip_z),
                           half_pixel=half_pixel, half_pixel_exact=half_pixel_exact, flip_y=_tri(flip_y), fixed_outputs=fixed_outputs,
                           legacy_multiply=legacy_multiply, infinities=infinities)
    except (XlateError, OSError) as exc:
        _fail(file, exc)
    for d in result.diagnostics:
        click.echo(f"xlate: warning: {d}", err=True)
    if isinstance(result.code, bytes):
        if output:
            Path(output).write_bytes(result.code)
        elif sys.stdout.isatty():
            click.echo("xlate: SPIR-V is binary: give -o FILE", err=True)
            sys.exit(1)
        else:
            sys.stdout.buffer.write(result.code)
    elif output:
        Path(output).write_text(result.code, encoding="utf-8")
    else:
        click.echo(result.code, nl=False)
    if reflect_path:
        text = json.dumps(result.reflection, indent=2, sort_keys=True) + "\n"
        if reflect_path == "-":
            click.echo(text, nl=False, err=not output)
        else:
            Path(reflect_path).write_text(text, encoding="utf-8")


def _read_shader(path: str) -> bytes:
    """A shader blob, or assembly text (assembled first)."""
    from .bytecode import decode

    try:
        data = _read_bytes(path)
    except OSError as exc:
        _fail(path, exc)
    try:
        decode(data)
        return data
    except XlateError as exc:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is None or "\0" in text:
            _fail(path, exc)
        from .bytecode.asm import assemble_bytes

        try:
            return assemble_bytes(text, source="<stdin>" if path == "-" else path)
        except XlateError as asm_exc:
            click.echo(f"xlate: {asm_exc}", err=True)  # names the file, line and column
            sys.exit(1)


@main.command(name="verify")
@click.argument("file")
@click.option("--pair", "pair", metavar="OTHER", help="Link FILE with this shader (a VS with a PS, either order) and draw them together.")
@click.option("-t", "--target", default="glsl330", show_default=True,
              type=click.Choice(["glsl120", "glsl330", "glsl450", "essl100", "essl300"]), help="GL dialect to run.")
@click.option("--seeds", default=1, show_default=True, type=click.IntRange(1, 1000), help="Number of random input sets.")
@click.option("--seed", default=0, show_default=True, type=int, help="First input seed.")
def verify_command(file: str, pair: str | None, target: str, seeds: int, seed: int) -> None:
    """Run a shader on the reference interpreter and on OpenGL (Mesa
    llvmpipe) with the same random inputs, and compare.

    A vertex shader runs alone (transform feedback), a pixel shader with a
    pass-through vertex shader.  Prints PASS with counts, or FAIL with the
    first bad vertex/pixel, reference and driver values, the tolerance and
    the last instruction that wrote the wrong component.  Exit status 0 on
    PASS, 1 otherwise.  FILE may be a blob or assembly text.
    """
    from .verify import differential as D

    data = _read_shader(file)
    if pair:
        other = _read_shader(pair)
        from .bytecode import decode

        first_vs = decode(data).version.is_vertex
        vs, ps = (data, other) if first_vs else (other, data)
        names = (file, pair) if first_vs else (pair, file)
        verdict = D.check_pair(vs, ps, seeds=seeds, seed=seed, target=target, name=f"{names[0]} + {names[1]}")
    else:
        verdict = D.check_shader(data, seeds=seeds, seed=seed, target=target, name=file)
    if verdict.status == "skip":
        click.echo(f"xlate: cannot verify {file}: {verdict.message}", err=True)
        sys.exit(1)
    click.echo(verdict.report())
    sys.exit(0 if verdict.ok else 1)


if __name__ == "__main__":  # pragma: no cover
    main()
