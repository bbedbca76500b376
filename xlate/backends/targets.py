"""The output targets and what distinguishes them.

Every difference between GLSL dialects that the emitter or the templates
need is a field here, so that neither tests a target's name.  ``spirv``
(also ``spirv-native``) is written from the IR (``spirv/emitter.py``) with
the ``vulkan`` layout; ``spirv-glslang`` is the ``vulkan`` GLSL compiled by
glslangValidator (``spirv/glslang.py``), kept for cross-checks.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ..errors import UnsupportedError


class Api(enum.Enum):
    GL = "gl"
    VULKAN = "vulkan"
    WEBGPU = "webgpu"  # WGSL (backends/wgsl/), laid out by the Vulkan rules


@dataclass(frozen=True)
class Target:
    name: str
    version: int  # the #version number
    es: bool = False
    api: Api = Api.GL
    # in/out (1.30+, ES 3.00) rather than attribute/varying/gl_FragColor
    in_out: bool = True
    # layout(location) on VS inputs and FS outputs (3.30+, ES 3.00)
    io_locations: bool = True
    # layout(location) on varyings too (4.10+ separate shader objects)
    varying_locations: bool = False
    # layout(binding) on samplers (4.20+)
    sampler_bindings: bool = False
    # constants in uniform blocks with set/binding (Vulkan)
    uniform_blocks: bool = False
    # texture(), textureLod() ... rather than texture2D(), texture2DLod() ...
    generic_texture: bool = True
    # mix(genType, genType, genBType), roundEven, uintBitsToFloat (1.30+, ES 3.00)
    glsl130_builtins: bool = True
    # ES 1.00 Appendix A: only constant-bounded for loops, constant indexing
    # of temporaries, constant indexing of uniforms in fragment shaders
    appendix_a: bool = False
    binary: bool = False  # the output is SPIR-V bytes
    # SPIR-V written by xlate from the IR (backends/spirv/emitter.py), not
    # the target's GLSL compiled by glslang
    native: bool = False
    # Derived from the fields above, once: the backend reads them for every
    # shader (and `vulkan` for every interface variable), where a property
    # would cost a call each time.  ``vulkan``: the Vulkan binding model
    # (sets, bindings, a location on every varying, clip z 0..w, the y flip
    # on by default), which WebGPU shares (its groups are Vulkan's sets; the
    # WGSL backend turns the Vulkan clip position into WebGPU's).
    version_line: str = field(init=False, repr=False, compare=False)
    vulkan: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        es_suffix = " es" if self.es and self.version >= 300 else ""
        object.__setattr__(self, "version_line", f"#version {self.version}{es_suffix}")
        object.__setattr__(self, "vulkan", self.api is Api.VULKAN or self.api is Api.WEBGPU)


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target("glsl120", 120, in_out=False, io_locations=False, generic_texture=False, glsl130_builtins=False),
        Target("glsl330", 330),
        Target("glsl450", 450, varying_locations=True, sampler_bindings=True),
        Target("essl100", 100, es=True, in_out=False, io_locations=False, generic_texture=False,
               glsl130_builtins=False, appendix_a=True),
        Target("essl300", 300, es=True),
        Target("vulkan", 450, api=Api.VULKAN, varying_locations=True, sampler_bindings=True, uniform_blocks=True),
        Target("spirv", 450, api=Api.VULKAN, varying_locations=True, sampler_bindings=True, uniform_blocks=True,
               binary=True, native=True),
        Target("spirv-glslang", 450, api=Api.VULKAN, varying_locations=True, sampler_bindings=True,
               uniform_blocks=True, binary=True),
        Target("spirv-native", 450, api=Api.VULKAN, varying_locations=True, sampler_bindings=True,
               uniform_blocks=True, binary=True, native=True),
        # (no #version in WGSL: 450 is the GLSL feature level the layout's
        # checks ask about, e.g. clip distances, which WGSL has)
        Target("wgsl", 450, api=Api.WEBGPU, varying_locations=True, sampler_bindings=True, uniform_blocks=True),
    )
}

DESCRIPTIONS = {
    "glsl120": "GLSL 1.20 (OpenGL 2.1): attribute/varying, gl_FragColor/gl_FragData, texture2D()",
    "glsl330": "GLSL 3.30 core: in/out, layout(location) on vertex inputs and fragment outputs",
    "glsl450": "GLSL 4.50 core: explicit locations on every varying, sampler bindings",
    "essl100": "GLSL ES 1.00 (WebGL 1 / GLES 2): Appendix A limits; raises UnsupportedError where they bite",
    "essl300": "GLSL ES 3.00 (WebGL 2 / GLES 3): precision qualifiers, in/out",
    "vulkan": "Vulkan GLSL 4.50: set/binding on constant blocks and samplers, locations on everything",
    "spirv": "SPIR-V 1.0 (or 1.3) binary written by xlate from the IR (no glslang), the 'vulkan' layout",
    "spirv-glslang": "SPIR-V 1.0 binary: the 'vulkan' GLSL compiled by glslangValidator -V, checked by spirv-val",
    "spirv-native": "the same writer as 'spirv', by its own name",
    "wgsl": "WGSL (WebGPU), written from the IR: the 'vulkan' layout, groups = sets, separate textures and samplers",
}


def get_target(name: str) -> Target:
    try:
        return TARGETS[name.lower()]
    except KeyError:
        raise ValueError(f"unknown target {name!r}; known: {', '.join(TARGETS)}") from None


def resolve_options(target: Target, options):
    """Fill the options that default to 'the target decides' (see options.py)."""
    changes = {}
    if options.clip_z is None:
        changes["clip_z"] = not target.vulkan  # Vulkan clip z is 0..w like D3D9
    if options.flip_y is None:
        changes["flip_y"] = target.vulkan  # Vulkan NDC y points down
    return options.with_(**changes) if changes else options


def unsupported(program, target: Target, op, reason: str) -> UnsupportedError:
    """The error an emitter raises for an op it cannot write: the byte offset
    and mnemonic of the D3D instruction the op came from (``op.origin``), when
    there is one, and the target's name.  Shared by the GLSL and SPIR-V
    emitters so both word it alike."""
    offset, where = -1, ""
    if op is not None and 0 <= op.origin < len(program.instructions):
        inst = program.instructions[op.origin]
        offset = inst.offset
        where = f"'{inst.info.mnemonic}' (instruction {op.origin + 1}): "
    return UnsupportedError(offset, f"{where}{target.name}: {reason}")
