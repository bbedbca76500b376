"""The ``xlate`` command line.

Every command reads a file (``-`` for standard input), reports problems in
the input as one clear line (``file: byte offset N: reason`` or
``file:line:col: reason``) with exit status 1, and never shows a traceback
for bad input.
"""

from __future__ import annotations

import json
import os
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
  xlate disasm effect.fxo                 an fx_2_0 effect as fxc lists it
  xlate translate effect.fxo -o out/      every shader of every pass + effect.json
  xlate convert assets/ -o out/ -t glsl330 -t spirv
                                          a whole tree, in parallel, cached
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


def _effect_or_none(path: str):
    """The parsed effect when ``path`` holds an fx_2_0 effect, else None
    (the caller reads it as a shader)."""
    from .effect import is_effect, parse_effect

    try:
        data = _read_bytes(path)
    except OSError as exc:
        _fail(path, exc)
    if not is_effect(data):
        return None
    try:
        return parse_effect(data)
    except XlateError as exc:
        _fail(path, exc)


def _effect_listing(effect) -> str:
    from .effect import format_effect

    return format_effect(effect)


def _effect_info(effect, as_json: bool) -> None:
    """``xlate info`` for an effect; every effect-sourced name is escaped."""
    from .effect.info import effect_summary

    facts = effect_summary(effect)
    if as_json:
        click.echo(json.dumps(facts, indent=2))
        return
    from rich.console import Console
    from rich.markup import escape

    console = Console()
    console.print(f"[bold]fx_2_0 effect[/bold], {len(facts['parameters'])} parameters, "
                  f"{len(facts['techniques'])} techniques, {facts['shader_count']} shaders")
    for p in facts["parameters"]:
        shape = p["type"] + (f"[{p['elements']}]" if p["elements"] else "")
        sem = f" : {escape(p['semantic'])}" if p["semantic"] else ""
        console.print(f"  {escape(shape)} {escape(p['name'])}{sem}")
    for t in facts["techniques"]:
        console.print(f"  technique {escape(t['name'] or '(unnamed)')}")
        for ps in t["passes"]:
            shaders = ", ".join(escape(s) for s in ps["shaders"]) or "no shaders"
            console.print(f"    pass {escape(ps['name'] or '(unnamed)')}: {ps['states']} states; {shaders}")


def _translate_effect_files(path: str, target: str, output: str | None, reflect_path: str | None, options: dict) -> None:
    """``xlate translate EFFECT -o DIR``: every shader of the effect as
    DIR/<Technique.Pass.stage>.<vert|frag|spv> with its reflection beside it
    (.json), and the effect's reflection as DIR/effect.json."""
    from .effect.translate import translate_effect

    if not output:
        _fail(path, OSError("an effect translates to several files: give -o FOLDER"))
    try:
        fx = translate_effect(_read_bytes(path), target, **options)
    except (XlateError, OSError) as exc:
        _fail(path, exc)
    for d in fx.diagnostics:
        click.echo(f"xlate: {'<stdin>' if path == '-' else path}: warning: {d}", err=True)
    folder = Path(output)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for shader in fx.shaders:  # names are sanitised stems ([A-Za-z0-9_.-])
            code = shader.translation.code
            ext = {"vertex": "vert", "fragment": "frag"}[shader.stage]
            if target == "wgsl":  # one extension whatever the stage (the name, ...vs0 / ...ps1, says which)
                (folder / f"{shader.name}.wgsl").write_text(code, encoding="utf-8")
            elif isinstance(code, bytes):
                (folder / f"{shader.name}.{ext}.spv").write_bytes(code)
            else:
                (folder / f"{shader.name}.{ext}").write_text(code, encoding="utf-8")
            (folder / f"{shader.name}.json").write_text(
                json.dumps(shader.translation.reflection, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        text = json.dumps(fx.reflection, indent=2) + "\n"
        (folder / "effect.json").write_text(text, encoding="utf-8")
        if reflect_path == "-":
            click.echo(text, nl=False)
        elif reflect_path:
            Path(reflect_path).write_text(text, encoding="utf-8")
    except OSError as exc:
        _fail(path, exc)
    click.echo(f"xlate: {len(fx.shaders)} shaders and effect.json written to {output}", err=True)


class _Main(click.Group):
    """The ``xlate`` group; remembers whether it runs as the process's own
    command (arguments from ``sys.argv``), not called with arguments from
    Python (click's test runner), so that ``convert`` may skip interpreter
    teardown (``_end_process``)."""

    process_entry = False

    def main(self, args=None, *rest, **kwargs):
        if args is None and not rest and kwargs.get("standalone_mode", True):
            _Main.process_entry = True
        return super().main(args, *rest, **kwargs)


def _end_process(code: int):
    """Exit with ``code``.  As the process's own command, without the
    interpreter's teardown: after a conversion the translator's modules and
    caches are loaded, and freeing them object by object (plus a last full
    collection) costs 0.1-0.2 s for nothing.  Everything is written and
    closed by then (outputs and manifest with unbuffered writes; the OUT lock
    goes with the process); only the standard streams need flushing."""
    if _Main.process_entry:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
    sys.exit(code)


@click.group(cls=_Main, epilog=EPILOG_EXAMPLES, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="xlate")
def main() -> None:
    """Translate Direct3D 9 shader bytecode (vs_1_1 ... ps_3_0) to GLSL and SPIR-V.

    FILE arguments are raw shader blobs as fxc or D3DXAssembleShader write
    them (a version token, tokens, END), or '-' for standard input; disasm,
    info and translate also take fx_2_0 effects (.fxo, .fxb).
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

    _check_output_folder(output)
    effect = _effect_or_none(file)
    if effect is not None:
        text = _effect_listing(effect)
    else:
        text = disassemble(_decode(file), header=not no_header)
    if output:
        _write_outputs([(output, text.encode("utf-8"))])
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

    _check_output_folder(output)
    try:
        data = assemble_bytes(_read_text(file), source="<stdin>" if file == "-" else file)
    except (XlateError, OSError) as exc:
        # AsmError already names the file, line and column.
        click.echo(f"xlate: {exc}", err=True)
        sys.exit(1)
    _write_outputs([(output, data)])


@main.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
def info(file: str, as_json: bool) -> None:
    """Summarise a shader: version, instruction counts by kind, registers, CTAB.

    For an fx_2_0 effect: its parameters, techniques, passes and shaders."""
    from .bytecode.stats import shader_info

    effect = _effect_or_none(file)
    if effect is not None:
        _effect_info(effect, as_json)
        return
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


TARGET_NAMES = ("glsl120", "glsl330", "glsl450", "essl100", "essl300", "vulkan", "spirv", "spirv-glslang", "spirv-native",
                "wgsl")

OPTIONS_HELP = """\b
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

\b
Draw-time state a ps_1_x shader depends on (repeat the option per stage):
  --sampler-type STAGE=TYPE  the type of an undeclared sampler: 1d, 2d, cube
                             or volume (default 2d), e.g. --sampler-type 3=cube
  --texture-projection STAGE=COUNT
                             ps_1_0-1_3: the stage is projected
                             (D3DTTFF_PROJECTED) with D3DTTFF_COUNTn = COUNT
                             (2, 3 or 4; 4 when a vertex shader is bound)
  --validate                 check the IR's invariants after the passes
                             (debugging xlate; no effect on the output)"""


def _draw_state_help() -> str:
    """The --draw-state section of the help, from drawstate.KEY_HELP."""
    from .drawstate import KEY_HELP

    rows = "\n".join(f"  {key}: {values}\n      {text}" for key, values, text in KEY_HELP)
    return f"""\b
Draw-time render state (D3D9 state applied around the shader; docs/api.md):
--draw-state KEY=VALUE or FILE.json (one JSON object of keys), repeated;
D3DRS names in lower case, D3D's defaults when not given.
--draw-state-mode baked: the values are constants in the code; dynamic: each
state the shader can depend on is a uniform (GL) or specialization constant
(vulkan, SPIR-V) whose default is the value given.  The reflection's
render_state lists what the shader depends on.  Keys:
{rows}

\b
Example: xlate translate ps.bin --draw-state fogenable=on \\
    --draw-state fogtablemode=linear --draw-state fogstart=0.1 \\
    --draw-state fogend=0.9 --draw-state fogcolor=0xff808080 \\
    --draw-state alphatestenable=on --draw-state alphafunc=greater \\
    --draw-state alpharef=0x80 --draw-state srgbtexture=0,1
JSON: {{"fogenable": true, "fogcolor": [0.5, 0.5, 0.5], "clipplaneenable": 1,
       "clipplanes": [[0, 1, 0, 0]], "flip_y": true}}"""


def _translate_help() -> str:
    from .backends.targets import DESCRIPTIONS

    lines = "\n".join(f"  {name:<8} {text}" for name, text in DESCRIPTIONS.items())
    return f"""Translate a shader blob (or assembly text, assembled first) to GLSL or SPIR-V.

\b
Targets (-t):
{lines}

{OPTIONS_HELP}

{_draw_state_help()}

The reflection (--reflect) says what to bind: constants, samplers, varyings,
the viewport uniform, DEF values, draw-time state (docs/reflection.md).  Every warning names
the file.  Python API and more: docs/api.md."""


def _tri(value: str) -> bool | None:
    return {"auto": None, "on": True, "off": False}[value]


def _stage_values(option: str):
    """A click callback: repeated STAGE=VALUE into a {stage: value} dict (checked by Options)."""

    def parse(ctx, param, values):
        result = {}
        for item in values:
            stage, sep, value = item.partition("=")
            if not sep or not stage.strip() or not value.strip():
                raise click.BadParameter(f"{item!r}: expected STAGE=VALUE, e.g. 3={'cube' if option == 'sampler_types' else '4'}")
            result[stage.strip()] = value.strip()
        return result

    return parse


def _varying_locations(ctx, param, values):
    """A click callback: repeated USAGE[INDEX]=LOCATION into (usage, index, location) triples (checked by Options)."""
    import re

    result = []
    for item in values:
        m = re.fullmatch(r"\s*([A-Za-z_]+?)(\d*)\s*=\s*(\d+)\s*", item)
        if not m:
            raise click.BadParameter(f"{item!r}: expected USAGE[INDEX]=LOCATION, e.g. texcoord4=2 or color=0")
        result.append((m.group(1).lower(), int(m.group(2) or 0), int(m.group(3))))
    return tuple(result)


def _draw_state(ctx, param, values):
    """A click callback: repeated FILE.json or KEY=VALUE into one render-state
    dict, later ones overriding earlier ones (checked by Options)."""
    from .drawstate import DrawStateError, load_json, parse_assignments

    result: dict = {}
    try:
        for item in values:
            if "=" in item and not os.path.exists(item):
                result.update(parse_assignments([item]))
            else:
                result.update(load_json(item))
    except DrawStateError as exc:
        raise click.BadParameter(str(exc)) from None
    return result


# The translation options, shared by every command that translates (one list,
# so 'translate' and 'convert' cannot drift apart).
_TRANSLATION_OPTIONS = [
    click.option("--annotate", is_flag=True, help="Put each D3D instruction as a comment above its code."),
    click.option("--clip-z", "clip_z", type=click.Choice(["auto", "on", "off"]), default="auto", show_default=True),
    click.option("--half-pixel/--no-half-pixel", default=True, show_default=True,
                 help="Move positions to D3D9's integer pixel centres (by 63/128 pixel; see --half-pixel-exact)."),
    click.option("--half-pixel-exact", is_flag=True,
                 help="Move by exactly 1/2 pixel: exact interpolation, but the driver's tie rule decides edges through pixel centres."),
    click.option("--flip-y", "flip_y", type=click.Choice(["auto", "on", "off"]), default="auto", show_default=True),
    click.option("--fixed-outputs/--no-fixed-outputs", default=True, show_default=True),
    click.option("--legacy-multiply/--no-legacy-multiply", default=True, show_default=True),
    click.option("--infinities", type=click.Choice(INFINITIES), default="clamp", show_default=True),
    click.option("--sampler-type", "sampler_types", multiple=True, metavar="STAGE=TYPE",
                 callback=_stage_values("sampler_types"), help="Type of an undeclared sampler (1d, 2d, cube, volume)."),
    click.option("--texture-projection", "texture_projection", multiple=True, metavar="STAGE=COUNT",
                 callback=_stage_values("texture_projection"), help="ps_1_0-1_3: project this stage by D3DTTFF_COUNTn."),
    click.option("--inline-preshader", is_flag=True,
                 help="Compute a preshader's constants in the shader itself (uniforms named after its inputs) "
                      "instead of leaving them to the CPU; the reflection says which mode each shader got."),
    click.option("--varying-location", "varying_locations", multiple=True, metavar="USAGE[INDEX]=LOCATION",
                 callback=_varying_locations,
                 help="Put this varying at this location (glsl450, vulkan, SPIR-V), e.g. texcoord4=2: the map a layer "
                      "passes to both shaders of a pair; repeat it."),
    click.option("--spirv-version", type=click.Choice(["1.0", "1.3"]), default="1.0", show_default=True,
                 help="SPIR-V version the spirv target writes (1.0: Vulkan 1.0; 1.3: Vulkan 1.1+)."),
    click.option("--debug-names/--no-debug-names", default=True, show_default=True,
                 help="SPIR-V OpName/OpSource from the CTAB names; --no-debug-names strips them."),
    click.option("--draw-state", "draw_state", multiple=True, metavar="FILE.json|STATE=VALUE", callback=_draw_state,
                 help="D3D9 draw-time state the shader honours (fog, alpha test, sRGB, samplers, clip planes, "
                      "points, b#/i#, position conventions), D3DRS names in lower case, e.g. "
                      "fogenable=true fogtablemode=linear fogcolor=0xff00ff00 alphafunc=greater alpharef=0x80; "
                      "or a JSON file of them; repeat it.  Every key: the section above."),
    click.option("--draw-state-mode", "draw_state_mode", type=click.Choice(["baked", "dynamic"]), default="baked",
                 show_default=True,
                 help="baked: the render state's values are constants in the code; dynamic: uniforms (GL) or "
                      "specialization constants (vulkan, SPIR-V), listed in the reflection's render_state."),
    click.option("--validate", is_flag=True, help="Check the IR's invariants after the passes (debugging)."),
]
_OPTION_NAMES = ("annotate", "clip_z", "half_pixel", "half_pixel_exact", "flip_y", "fixed_outputs",
                 "legacy_multiply", "infinities", "sampler_types", "texture_projection", "inline_preshader",
                 "varying_locations", "spirv_version", "debug_names", "draw_state", "draw_state_mode", "validate")


def translation_options(command):
    """Add the translation options to a click command."""
    for option in reversed(_TRANSLATION_OPTIONS):
        command = option(command)
    return command


def translation_kwargs(params: dict) -> dict:
    """Take the translation options out of a command's parameters, as ``translate``'s
    keywords.  Only what differs from the default is passed on, so the common
    call takes the API's fast path; a bad value exits with a one-line error."""
    from .options import Options

    kwargs = {name: params.pop(name) for name in _OPTION_NAMES}
    kwargs["clip_z"] = _tri(kwargs["clip_z"])
    kwargs["flip_y"] = _tri(kwargs["flip_y"])
    defaults = Options()
    plain = {}
    for name, value in kwargs.items():
        if name in ("sampler_types", "texture_projection", "draw_state"):
            if value:
                plain[name] = value
        elif name == "draw_state_mode":
            if value != defaults.draw_state_mode.value:
                plain[name] = value
        elif value != getattr(defaults, name):
            plain[name] = value
    try:
        Options.from_kwargs(**plain)
    except (TypeError, ValueError) as exc:
        click.echo(f"xlate: {exc}", err=True)
        sys.exit(2)
    return plain


def _check_output_folder(path: str | None) -> None:
    """Exit with one line, before anything is written, when ``path``'s folder is missing."""
    if not path or path == "-":
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        click.echo(f"xlate: {path}: the folder {os.path.dirname(path) or '.'} does not exist", err=True)
        sys.exit(1)
    if os.path.isdir(path):
        click.echo(f"xlate: {path}: is a folder, not a file", err=True)
        sys.exit(1)


def _write_outputs(files: list[tuple[str, bytes]]) -> None:
    """Write each (path, bytes) atomically; on failure exit with one line (files
    already written stay complete, none is left half-written)."""
    from .convert.writer import atomic_write

    for path, data in files:
        try:
            atomic_write(path, data)
        except OSError as exc:
            click.echo(f"xlate: {path}: {exc.strerror or exc}", err=True)
            sys.exit(1)


@main.command(name="translate", help=_translate_help())
@click.argument("file")
@click.option("-t", "--target", default="glsl330", show_default=True, type=click.Choice(TARGET_NAMES),
              help="Output language.")
@click.option("-o", "--output", type=click.Path(),
              help="Write the code here (required for spirv unless stdout is a file); for an fx_2_0 effect, "
                   "the folder that receives one file per shader and effect.json.")
@click.option("--reflect", "reflect_path", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the reflection JSON here ('-' for standard output; then give -o for the code).")
@translation_options
def translate_command(file, target, output, reflect_path, **params):
    from .api import translate

    kwargs = translation_kwargs(params)
    _check_output_folder(reflect_path)
    if _effect_or_none(file) is not None:
        _translate_effect_files(file, target, output, reflect_path, kwargs)
        return
    _check_output_folder(output)
    if reflect_path == "-" and not output:
        click.echo("xlate: --reflect - and the code would both go to standard output: give -o FILE for the code", err=True)
        sys.exit(2)
    data = _read_shader(file, note=True)
    try:
        result = translate(data, target, **kwargs)
    except XlateError as exc:
        _fail(file, exc)
    label = "<stdin>" if file == "-" else file
    for d in result.diagnostics:
        click.echo(f"xlate: {label}: warning: {d}", err=True)
    code = result.code if isinstance(result.code, bytes) else result.code.encode("utf-8")
    files = []
    if output:
        files.append((output, code))
    elif isinstance(result.code, bytes) and sys.stdout.isatty():
        click.echo("xlate: SPIR-V is binary: give -o FILE", err=True)
        sys.exit(1)
    reflection = (json.dumps(result.reflection, indent=2, sort_keys=True) + "\n") if reflect_path else None
    if reflect_path and reflect_path != "-":
        files.append((reflect_path, reflection.encode("utf-8")))
    _write_outputs(files)
    if not output:
        if isinstance(result.code, bytes):
            sys.stdout.buffer.write(result.code)
        else:
            click.echo(result.code, nl=False)
    if reflect_path == "-":
        click.echo(reflection, nl=False)


CONVERT_HELP = f"""Convert every D3D9 shader, fx_2_0 effect and assembly file under SRC.

Files are recognised by content, not name: a blob whose first DWORD is a
vs/ps version token, an effect (first DWORD 0xFEFF0901), or text whose
first statement is a version (vs_3_0, ps.1.4 ...), which is assembled.
OUT mirrors SRC's layout: for a.bin and target glsl330, OUT/a.bin.glsl330.vert
(.frag for pixel shaders, .spv for spirv; OUT/a.bin.wgsl for wgsl) and its
reflection OUT/a.bin.glsl330.json; an effect gives one pair per pass shader
(a.fxb.<technique>.<pass>.<vs|ps>.glsl330.vert ...) and a.fxb.glsl330.json.
With several SRCs, each goes under OUT/<its name>.

OUT/manifest.json lists every shader and effect found and every file that
looked like one but failed (path, sha256, kind, model, outputs, diagnostics,
errors with byte offsets).  One bad file never stops the run.  Writes are
atomic; after an interruption, run the same command again to finish.
Results are cached by content (input, target, options, xlate version) in
--cache-dir; an unchanged tree is rerun in a fraction of the time.

\b
Exit status:
  0    every file found was converted for every target
  1    some file was refused, failed or could not be read (the others
       were converted; see the summary and manifest.json)
  2    bad arguments (unknown option, missing SRC)
  3    another xlate convert is writing into OUT (nothing was touched)
  130  interrupted (what was written is complete; rerun to finish)

{OPTIONS_HELP}"""


@main.command(name="convert", help=CONVERT_HELP)
@click.argument("sources", metavar="SRC...", nargs=-1, required=True)
@click.option("-o", "--output", "out", required=True, type=click.Path(file_okay=False), help="The output folder (created).")
@click.option("-t", "--target", "targets", multiple=True, type=click.Choice(TARGET_NAMES),
              help="A target to write (repeat for several; default glsl330).")
@click.option("-j", "--jobs", type=click.IntRange(1, 1024), default=None,
              help="Worker processes (default: one per CPU; 1: in this process).")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None,
              help="Where cached results live (default $XDG_CACHE_HOME/xlate, else ~/.cache/xlate).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the cache.")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="Convert on this Dask distributed scheduler (tcp://host:8786) instead of local processes.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False), default=None,
              help="Also write a self-contained HTML report here.")
@click.option("-q", "--quiet", is_flag=True, help="No progress and no summary (errors still go to manifest.json).")
@translation_options
def convert_command(sources, out, targets, jobs, cache_dir, no_cache, scheduler, report_path, quiet, **params):
    from .convert import OutputInUse, SourceError, convert

    kwargs = translation_kwargs(params)
    if report_path:
        _check_output_folder(report_path)
    if scheduler:
        try:
            import distributed  # noqa: F401
        except ImportError:
            click.echo("xlate: --scheduler needs Dask: pip install 'xlate[dask]'", err=True)
            sys.exit(2)
    try:
        run = convert(list(sources), out, targets or ("glsl330",), options=kwargs, jobs=jobs, cache_dir=cache_dir,
                      use_cache=not no_cache, scheduler=scheduler, report=bool(report_path),
                      progress="off" if quiet else "auto")
    except SourceError as exc:
        click.echo(f"xlate: {exc}", err=True)
        sys.exit(2)
    except OutputInUse as exc:
        click.echo(f"xlate: {exc}", err=True)
        sys.exit(3)
    except KeyboardInterrupt:
        click.echo("xlate: interrupted; what was written is complete: run the same command again to finish", err=True)
        sys.exit(130)
    except OSError as exc:
        click.echo(f"xlate: {exc.filename or out}: {exc.strerror or exc}", err=True)
        sys.exit(1)
    if report_path:
        from .report import build_report

        summary = dict(run.counts.to_json(), seconds=round(run.seconds, 2), reasons=run.counts.reason_rows())
        html = build_report(run.report_entries, summary)
        _write_outputs([(report_path, html.encode("utf-8"))])
    if not quiet:  # (rich only here: -q, as build scripts run it, does not import it)
        from rich.console import Console

        from .convert.summary import print_summary

        print_summary(run.counts, Console(), run.seconds)
    _end_process(run.exit_code)


def _read_shader(path: str, note: bool = False) -> bytes:
    """A shader blob, or assembly text (assembled first; with ``note``, saying so)."""
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
            blob = assemble_bytes(text, source="<stdin>" if path == "-" else path)
        except XlateError as asm_exc:
            click.echo(f"xlate: {asm_exc}", err=True)  # names the file, line and column
            sys.exit(1)
        if note:
            label = "<stdin>" if path == "-" else path
            click.echo(f"xlate: {label}: note: assembly text, assembled first (as 'xlate asm' would)", err=True)
        return blob


@main.command(name="verify")
@click.argument("file")
@click.option("--pair", "pair", metavar="OTHER", help="Link FILE with this shader (a VS with a PS, either order) and draw them together.")
@click.option("-t", "--target", default="glsl330", show_default=True,
              type=click.Choice(["glsl120", "glsl330", "glsl450", "essl100", "essl300"]), help="GL dialect to run.")
@click.option("--seeds", default=1, show_default=True, type=click.IntRange(1, 1000), help="Number of random input sets.")
@click.option("--seed", default=0, show_default=True, type=int, help="First input seed.")
@click.option("--draw-state", "draw_state", multiple=True, metavar="FILE.json|STATE=VALUE", callback=_draw_state,
              help="A pixel shader: draw it with this fog / alpha-test state (as 'translate' takes it), which "
                   "the reference applies too.")
@click.option("--draw-state-mode", "draw_state_mode", type=click.Choice(["baked", "dynamic"]), default="baked",
              show_default=True, help="baked constants, or uniforms the runner sets.")
def verify_command(file: str, pair: str | None, target: str, seeds: int, seed: int, draw_state: dict,
                   draw_state_mode: str) -> None:
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
        options = {}
        if draw_state:
            options["draw_state"] = draw_state
        if draw_state_mode != "baked":
            options["draw_state_mode"] = draw_state_mode
        try:
            verdict = D.check_shader(data, seeds=seeds, seed=seed, target=target, name=file, options=options)
        except ValueError as exc:
            click.echo(f"xlate: {exc}", err=True)
            sys.exit(2)
    if verdict.status == "skip":
        click.echo(f"xlate: cannot verify {file}: {verdict.message}", err=True)
        sys.exit(1)
    click.echo(verdict.report())
    sys.exit(0 if verdict.ok else 1)


if __name__ == "__main__":  # pragma: no cover
    main()
