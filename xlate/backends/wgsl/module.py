"""The WGSL module around the function bodies: declarations from the
layout, uniform-buffer structs, texture and sampler bindings, the
entry point and its interface structs, and the reflection's WGSL facts.

Every register lives in a ``var<private>``: inputs are copied from the
entry point's argument at the start, outputs into its result at the end
(the IR's main is ``xl_main``, which may ``return`` early).  Built-ins
the layout reaches by their GLSL names become private variables too:
``gl_Position`` (the Vulkan clip position, whose y the entry point negates
for WebGPU), ``gl_FragCoord`` (``@builtin(position)``: framebuffer
coordinates, y down, as Vulkan's), ``gl_FrontFacing``, ``gl_FragDepth``.
"""

from __future__ import annotations

from ...ir.program import Program, Storage
from .. import layout as layout_mod
from ..layout import Layout
from ..literals import float_literal, int_literal
from .locations import relocate

SAMPLER_BINDING_BASE = 32  # s# -> its WGSL sampler at binding 32 + s (its texture: the layout's 4 + s)
ENTRY_POINT = "main"
# GLSL declaration type -> WGSL; bools in uniform buffers are u32 (not host-shareable)
TYPES = {"float": "f32", "vec2": "vec2<f32>", "vec3": "vec3<f32>", "vec4": "vec4<f32>",
         "int": "i32", "ivec2": "vec2<i32>", "ivec3": "vec3<i32>", "ivec4": "vec4<i32>",
         "bool": "bool", "bvec2": "vec2<bool>", "bvec3": "vec3<bool>", "bvec4": "vec4<bool>"}
HOST_TYPES = {**TYPES, "bool": "u32"}
SIZES = {"f32": 4, "i32": 4, "u32": 4, "vec4<f32>": 16, "vec4<i32>": 16, "vec4<u32>": 16}
TEXTURES = {"sampler2D": "texture_2d<f32>", "samplerCube": "texture_cube<f32>", "sampler3D": "texture_3d<f32>",
            "sampler2DShadow": "texture_depth_2d"}  # (a depth-compared 2D sampler: Options.draw_state.depthtexture)
# GLSL built-in the layout names -> (WGSL private variable, type, interface: (stage, "in"/"out", builtin) or None)
BUILTINS = {
    "gl_Position": ("xl_position", "vec4<f32>", "position"),
    "gl_PointSize": ("xl_point_size", "f32", None),
    "gl_FragCoord": ("xl_frag_coord", "vec4<f32>", "position"),
    "gl_FrontFacing": ("xl_front_facing", "bool", "front_facing"),
    "gl_FragDepth": ("xl_frag_depth", "f32", "frag_depth"),
    "gl_ClipDistance": ("xl_clip_distances", "array<f32, N>", "clip_distances"),  # N: the planes used
}
# D3D's point-sprite coordinate (passes/points.py) at the centre of WebGPU's 1-pixel points
POINT_COORD = "vec2<f32>(0.5, 0.5)"
FIXED_NAMES = ("xl_main", "xl_s", "xl_in", "xl_out", "XlIn", "XlOut", ENTRY_POINT) + tuple(
    b[0] for b in BUILTINS.values())


def f32_literal(value: float) -> str:
    """A finite f32 literal (an override's default cannot call a function)."""
    if value != value or value in (float("inf"), float("-inf")):
        value = 3.4028234663852886e38 if value > 0 else -3.4028234663852886e38 if value < 0 else 0.0
    return float_literal(value, bits_builtins=True)


class Module:
    def __init__(self, program: Program, lay: Layout, options):
        self.p = program
        self.lay = lay
        self.o = options
        self.vertex = lay.stage == "vertex"
        self.namer = lay.namer
        for name in FIXED_NAMES:
            if name not in self.namer.used:
                self.namer.used.add(name)
        # WGSL's own varying locations, within WebGPU's 16 for the common ones
        self.diagnostics: list[str] = relocate(lay)
        self.member_of: dict[str, str] = {}  # block member -> the block's variable
        self.qualified: dict[str, str] = {}  # qualify's answers (a register is read many times)
        self.structs: dict[str, str] = {}  # block name -> its struct type name
        for b in lay.blocks:
            self.structs[b.name] = self.namer.name(b.name + "_t")
            for m in b.members:
                self.member_of[m.name] = b.name
        self.samplers: dict[str, tuple[str, str, int]] = {}  # texture -> (sampler, GLSL type, s#)
        for d in lay.decls:
            if d.kind == "sampler":
                reg = d.binding - layout_mod.SAMPLER_BINDING_BASE
                self.samplers[d.name] = (self.namer.name(d.name + "_sampler"), d.type, reg)
        self.builtins: set[str] = set()  # the GLSL built-ins the layout reached
        self.clip_distances = 0  # how many gl_ClipDistance elements the shader writes
        for var in program.variables:
            if var.storage is Storage.INPUT or var.storage is Storage.OUTPUT:
                acc = lay.access.get(id(var))
                if acc is None:
                    continue
                base = acc.name.split("[", 1)[0]
                if base in BUILTINS:
                    self.builtins.add(base)
                if base == "gl_ClipDistance":
                    self.clip_distances = max(self.clip_distances, int(acc.name[len(base) + 1:-1]) + 1)
                if "gl_PointCoord" in acc.name:
                    lay.reach(var, layout_mod.Access(POINT_COORD))
                    self.diagnostics.append(
                        "wgsl: WebGPU draws every point one pixel wide and has no point sprites: the point-sprite "
                        "coordinate is that pixel's centre, (0.5, 0.5)")
        if "gl_PointSize" in self.builtins:
            self.diagnostics.append("wgsl: WebGPU draws every point one pixel wide and has no point-size output: "
                                    "the point size this vertex shader writes (oPts / PSIZE) is dropped")

    # -- names --------------------------------------------------------------

    def function_name(self, name: str) -> str:
        return "xl_main" if name == "main" else self.namer.name(name)

    def qualify(self, text: str) -> str:
        """A layout text (``vs_c[3]``, ``gl_Position``, ``v_fog0.x``) as
        WGSL reaches it: block members through their block, built-ins
        through their private variables."""
        done = self.qualified.get(text)
        if done is not None:
            return done
        done = self.qualified[text] = self._qualify(text)
        return done

    def _qualify(self, text: str) -> str:
        end = len(text)
        for sep in "[.":
            k = text.find(sep)
            if 0 <= k < end:
                end = k
        base = text[:end]
        block = self.member_of.get(base)
        if block is not None:
            return f"{block}.{text}"
        builtin = BUILTINS.get(base)
        if builtin is not None:
            return builtin[0] + text[end:]
        return text

    def text_of(self, var, element) -> str:
        return self.qualify(self.lay.text_of(var, element))

    def bool_constant(self, text: str) -> str:
        """A b# register read from its u32 (an array element's is in .x)."""
        if text.endswith("]"):
            text += ".x"
        return f"({text} != 0u)"

    def texture_of(self, var) -> tuple[str, str, str]:
        name = self.lay.access[id(var)].name
        sampler, glsl_type, _ = self.samplers[name]
        return name, sampler, glsl_type

    # -- the module ---------------------------------------------------------

    def render(self, functions: list[tuple[str, list[str]]], helpers: list[str], directive: bool) -> str:
        out: list[str] = []
        if self.clip_distances:
            out.append("enable clip_distances;")  # (the WebGPU device needs the "clip-distances" feature)
        if directive:
            out.append("diagnostic(off, derivative_uniformity);")
            out.append("")
        out.append(f"// {self.p.version.name} -> WGSL (xlate)")
        out += self._blocks()
        out += self._resources()
        out += self._overrides()
        ins, outs, privates = self._interface()
        out += privates
        for d in self.lay.decls:
            if d.kind == "global":
                t = TYPES[d.type]
                out.append(f"var<private> {d.name}: {f'array<{t}, {d.array}>' if d.array else t};")
        if helpers:
            out.append("")
            out += helpers
        for name, lines in functions:
            out.append("")
            out.append(f"fn {name}() {{")
            out += lines
            out.append("}")
        out.append("")
        out += self._entry(ins, outs)
        return "\n".join(out) + "\n"

    def _blocks(self) -> list[str]:
        out = []
        for b in self.lay.blocks:
            struct = self.structs[b.name]
            out.append("")
            out.append(f"struct {struct} {{")
            cur, pad = 0, 0
            for m in b.members:
                offset = m.offset if m.offset is not None else cur
                if offset > cur:
                    out.append(f"    @size({offset - cur}) xl_pad{pad}: u32,")
                    pad += 1
                t = HOST_TYPES[m.type]
                if m.array:
                    if t == "u32":
                        t = "vec4<u32>"  # a bool array: 16-byte elements, the value in .x
                    out.append(f"    {m.name}: array<{t}, {m.array}>,")
                    cur = offset + 16 * m.array
                else:
                    out.append(f"    {m.name}: {t},")
                    cur = offset + SIZES[t]
            out.append("}")
            out.append(f"@group({b.set}) @binding({b.binding}) var<uniform> {b.name}: {struct};")
        return out

    def _resources(self) -> list[str]:
        out = []
        for d in self.lay.decls:
            if d.kind == "sampler":
                sampler, glsl_type, reg = self.samplers[d.name]
                kind = "sampler_comparison" if glsl_type == "sampler2DShadow" else "sampler"
                out.append(f"@group({d.set}) @binding({d.binding}) var {d.name}: {TEXTURES[glsl_type]};")
                out.append(f"@group({d.set}) @binding({SAMPLER_BINDING_BASE + reg}) var {sampler}: {kind};")
        return out

    def _overrides(self) -> list[str]:
        """Draw-time state parameters (Options.draw_state_mode "dynamic"):
        pipeline-overridable constants, WGSL's specialization constants, at
        the Vulkan constant_id, defaulting to the options' draw state."""
        out = []
        defaults = {e["glsl"]: e.get("default") for e in self.lay.reflection.get("state_parameters", ())}
        for d in self.lay.decls:
            if d.kind == "spec_constant":
                t = TYPES[d.type]
                value = defaults.get(d.name)
                if t == "bool":
                    init = "true" if value else "false"
                elif t == "i32":
                    init = int_literal(int(value or 0))
                else:
                    init = f32_literal(float(value or 0.0))
                out.append(f"@id({d.constant_id}) override {d.name}: {t} = {init};")
        return out

    def _interface(self) -> tuple[list[str], list[str], list[str]]:
        """The entry point's input and output struct members, and the
        private variables behind them."""
        ins, outs, privates = [], [], []
        for d in self.lay.decls:
            if d.kind in ("vs_input", "fs_input", "vs_output", "fs_output"):
                t = TYPES[d.type]
                attrs = f"@location({d.location})"
                if d.kind == "fs_input" and d.centroid:
                    attrs += " @interpolate(perspective, centroid)"
                (ins if d.kind.endswith("input") else outs).append((f"{attrs} {d.name}: {t}", d.name, d.name))
                privates.append(f"var<private> {d.name}: {t};")
        for glsl_name in sorted(self.builtins):
            name, t, builtin = BUILTINS[glsl_name]
            t = t.replace("N", str(self.clip_distances))
            privates.append(f"var<private> {name}: {t};")
            if builtin is None:
                continue
            member = f"@builtin({builtin}) {name}: {t}"
            if glsl_name in ("gl_FragCoord", "gl_FrontFacing"):
                ins.append((member, name, name))
            else:
                outs.append((member, name, name))
        return ins, outs, privates

    def _entry(self, ins, outs) -> list[str]:
        out = []
        if ins:
            out.append("struct XlIn {")
            out += [f"    {member}," for member, _, _ in ins]
            out.append("}")
            out.append("")
        if outs:
            out.append("struct XlOut {")
            out += [f"    {member}," for member, _, _ in outs]
            out.append("}")
            out.append("")
        stage = "@vertex" if self.vertex else "@fragment"
        args = "xl_in: XlIn" if ins else ""
        result = " -> XlOut" if outs else ""
        out.append(f"{stage}")
        out.append(f"fn {ENTRY_POINT}({args}){result} {{")
        for _, field, var in ins:
            out.append(f"    {var} = xl_in.{field};")
        out.append("    xl_main();")
        if outs:
            out.append("    var xl_out: XlOut;")
            for _, field, var in outs:
                if var == "xl_position":
                    # the Vulkan clip position: WebGPU's NDC y points up
                    out.append(f"    xl_out.{field} = vec4<f32>({var}.x, -{var}.y, {var}.z, {var}.w);")
                else:
                    out.append(f"    xl_out.{field} = {var};")
            out.append("    return xl_out;")
        out.append("}")
        return out

    # -- reflection ---------------------------------------------------------

    def reflection(self) -> dict:
        """The layout's reflection with WGSL's facts: ``group`` beside each
        Vulkan ``set``, the sampler object of each texture, u32 bools, and
        the built-ins by their WGSL names."""
        refl = self.lay.reflection
        for entry in refl["constants"]:
            if "set" in entry:
                entry["group"] = entry["set"]
            if entry["file"] == "bool":
                entry["wgsl_type"] = "vec4<u32>" if entry["element"] is not None else "u32"
        for entry in refl["samplers"]:
            sampler, _, reg = self.samplers[entry["glsl"]]
            entry.update(group=entry["set"], texture=entry["glsl"], sampler=sampler,
                         sampler_binding=SAMPLER_BINDING_BASE + reg)
        for key in ("inputs", "outputs"):
            for entry in refl[key]:
                found = BUILTINS.get(entry["glsl"])
                if found is not None:
                    entry["glsl"] = found[2] or found[0]
                    entry["builtin"] = found[2]
        for entry in refl.get("draw_state", []):
            if "set" in entry:
                entry["group"] = entry["set"]
        for entry in refl.get("state_parameters", []):
            if entry.get("form") == "specialization_constant":
                entry.update(form="override", override_id=entry["constant_id"])
        for entry in refl["samplers"]:
            if entry.get("compare"):
                entry["sampler_type"] = "comparison"
        if refl.get("viewport") and "set" in refl["viewport"]:
            refl["viewport"]["group"] = refl["viewport"]["set"]
        refl["entry_point"] = ENTRY_POINT
        # the WebGPU device limits the module needs (the defaults: 16
        # inter-stage variables, locations.py keeps the common ones within)
        varyings = [d.location for d in self.lay.decls if d.kind in ("vs_output", "fs_input") and d.location is not None]
        attributes = [d.location for d in self.lay.decls if d.kind == "vs_input" and d.location is not None]
        refl["limits"] = {"maxInterStageShaderVariables": max(varyings) + 1 if varyings else 0,
                          "maxVertexAttributes": max(attributes) + 1 if attributes else 0}
        return refl
