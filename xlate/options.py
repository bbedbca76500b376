"""Translation options: one frozen dataclass, shared by passes and backends.

Defaults are what a D3D9-on-GL/Vulkan compatibility layer needs; every
field is documented because each one changes what the output computes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from .bytecode.tables import SAMPLER_TYPE_BY_ASM, DeclUsage, SamplerType
from .drawstate import DrawState, DrawStateMode, split_position


INFINITIES = ("clamp", "ieee")
SPIRV_VERSIONS = ("1.0", "1.3")


@dataclass(frozen=True)
class Options:
    """Every translation option (``translate``'s keywords; the comment above
    each field says what it changes and why).

    legacy_multiply: D3D9's "anything x 0 = 0" products (default True).
    infinities: "clamp" (+-FLT_MAX, documented) or "ieee" (+-inf) for rcp/rsq/log.
    annotate: each D3D instruction as a comment above its code.
    sampler_types: types of undeclared samplers (ps_1_x): {stage: "cube"}.
    texture_projection: ps_1_0-1_3 projected stages: {stage: D3DTTFF_COUNTn}.
    clip_z: remap clip z from D3D's 0..w to GL's -w..w (None: by target).
    half_pixel / half_pixel_exact: move positions to D3D9's pixel centres.
    flip_y: negate the position's y so images lie as D3D's (None: by target).
    fixed_outputs: vs_1_x/2_x declare every output an SM1/2 pixel shader reads.
    draw_state / draw_state_mode: fog and alpha test, baked or read at draw time.
        A draw_state dict may also give clip_z, flip_y, half_pixel and
        half_pixel_exact (the position conventions): they set those fields.
    validate: check every IR invariant after the passes (debugging).
    """

    # "Anything x 0 = 0" (D3D9 legacy multiply) for mul, mad, dp2add/dp3/dp4
    # and the matrix ops.  Costs a compare and select per product; turn it
    # off when the shaders are known not to rely on 0 * inf = 0.
    legacy_multiply: bool = True
    # What rcp, rsq, log and logp give where IEEE arithmetic gives an
    # infinity (rcp(+-0), rsq(0), log(0), log(+inf)).  "clamp": the IEEE
    # result clamped to +-FLT_MAX, the docs' values and ATI's (semantics
    # 7.1's recommendation; later products with 0 stay 0 even without the
    # legacy multiply).  "ieee": +-inf as NVIDIA returns them (and as vkd3d's
    # tests expect); keep legacy_multiply on then, or 0 * inf gives NaN.
    infinities: str = "clamp"
    # Put each D3D instruction as a comment above the code it became.
    annotate: bool = False
    # Sampler types for shaders that do not declare them (ps_1_x, or
    # UNKNOWN declarations): ((stage, SamplerType), ...); others default 2D.
    sampler_types: tuple[tuple[int, SamplerType], ...] = ()
    # ps_1_0-1_3 texture projection (D3DTTFF_PROJECTED, draw-time stage
    # state): ((stage, count), ...) for each projected stage, where count is
    # the stage's D3DTTFF_COUNTn (2, 3 or 4): `tex` / `texbem` / `texbeml`
    # divide the stage's coordinate by its component count-1 (.y, .z, .w)
    # first.  With a vertex shader bound D3D9 divides by .w whatever the
    # count says: give 4 (semantics 2.10).  Stages not listed are not
    # projected; cube-map stages are divided too (dxbc-spirv; only a negative
    # divisor changes a cube lookup).  ps_1_4 ignores this state: it
    # projects with the _dz/_dw source modifiers.
    texture_projection: tuple[tuple[int, int], ...] = ()

    # --- stage interface (passes/io.py; docs/reflection.md) ------------------
    # D3D9 clip-space z runs 0..w, GL's -w..w: remap z' = 2z - w on the
    # vertex position.  None: the target decides (GL targets True, Vulkan and
    # SPIR-V False, as Vulkan already uses 0..w).  Set False on GL when the
    # layer calls glClipControl(..., GL_ZERO_TO_ONE).
    clip_z: bool | None = None
    # D3D9 samples pixels at integer coordinates, GL/Vulkan at +0.5: move the
    # position by half a pixel (right, and down in D3D's image), reading the
    # viewport size from the `viewport` uniform the reflection reports.  Turn
    # off when the layer shifts the viewport itself (as DXVK does).
    half_pixel: bool = True
    # How far half_pixel moves: 63/128 of a pixel by default, as wined3d and
    # DXVK do, so an edge through D3D pixel centres is never a tie for the
    # driver's fill rule (D3D9's top-left rule decides coverage).  The cost:
    # varyings are interpolated 1/128 pixel off D3D's centres (a few ulps on
    # steep gradients).  True shifts exactly 1/2: exact interpolation, but the
    # driver's own tie rule decides edges through pixel centres.
    half_pixel_exact: bool = False
    # Negate the position's y after the other fix-ups, so that the image
    # lies in memory as D3D9 lays it out (row 0 = top).  None: the target
    # decides: False on GL (the image is upright on the default framebuffer,
    # the layer flips render-target textures itself or renders y-inverted
    # with flip_y=True as wined3d does offscreen), True on Vulkan (whose NDC
    # y points down).  It also decides how vPos.y and dsy are computed.
    flip_y: bool | None = None
    # vs_1_x/vs_2_x: always declare the outputs every ps_1_x/2_x can read
    # (COLOR0-1, TEXCOORD0-7) with D3D's defaults (oD0 = 1, others 0), so any
    # SM1/2 pair links without patching (DXSO does the same).  False: only
    # the outputs the shader writes.
    fixed_outputs: bool = True
    # A shader with a preshader (docs/preshader.md): False (the "cpu" mode)
    # leaves the registers it fills as ordinary constants for the application
    # to compute; True computes them at the start of the shader from uniforms
    # named after the preshader's inputs (ir/preshader_inline.py), when that
    # can be done faithfully (else the cpu mode, with a diagnostic saying why).
    inline_preshader: bool = False

    # Where varyings go, for the targets that give them locations (glsl450,
    # vulkan, the SPIR-V ones): ((usage, index, location), ...), e.g.
    # (("color", 4, 2), ("normal", 1, 9)) -- the map a layer builds when it
    # links a VS to a PS, given to both.  Semantics not listed keep the fixed
    # table's location (layout.VARYING_LOCATIONS; outside it, Vulkan's
    # layout.fallback_location, under 32, shared with a rare table entry:
    # docs/reflection.md).  The reflection reports the locations used.
    varying_locations: tuple[tuple[str, int, int], ...] = ()

    # --- draw-time render state (xlate/drawstate.py; docs/ir.md) ---------------
    # The D3D9 render states applied around the shader that the translation
    # adds to it: fog (blended into oC0 after a ps_1_x/2_x pixel shader; the
    # fog coordinate a vs_1_x/2_x passes on) and the alpha test (a discard
    # by oC0.a).  Also the sampler states (depth compare, sRGB read, FETCH4,
    # null textures), sRGB write, user clip planes, point size and sprites,
    # and b#/i# as specialization (docs/ir.md "Sampler, clip-plane and point
    # state").  Default: all off (D3D's defaults), so nothing is added.
    draw_state: DrawState = DrawState()
    # "baked": draw_state's values are constants in the code (the shader is
    # right for that state only).  "dynamic": every state the shader can
    # depend on is read at draw time, as a uniform on GL targets and a
    # specialization constant on vulkan / SPIR-V (draw_state's values are
    # their defaults); the reflection's "state_parameters" lists them.
    draw_state_mode: DrawStateMode = DrawStateMode.BAKED

    # --- SPIR-V (targets spirv, spirv-native) ----------------------------------
    # The SPIR-V version written: "1.0" (Vulkan 1.0) or "1.3" (Vulkan 1.1+).
    spirv_version: str = "1.0"
    # OpName/OpMemberName/OpSource (the layout's names, from the CTAB):
    # False strips them (smaller modules, no names shipped).
    debug_names: bool = True

    # --- debugging -------------------------------------------------------------
    # Check every IR invariant after the passes (``ir.validate``: types,
    # dominance, nesting, index bounds).  A broken invariant is a bug in a
    # pass, never in the shader, so a translation does not pay for the check
    # by default (it costs as much as several passes); the test suite turns
    # it on for every translation through the environment variable
    # XLATE_VALIDATE=1 (tests/conftest.py), as may anyone chasing a bug.
    # Off, what comes from the input is still checked: a D3D op no pass
    # lowers (UnsupportedError) and calls to missing labels or recursion
    # (StructureError).  No effect on the output.
    validate: bool = False

    def __post_init__(self):
        if isinstance(self.draw_state, dict):
            states, position = split_position(self.draw_state)
            self._take_position(position)
            object.__setattr__(self, "draw_state", DrawState.from_dict(states))
        elif not isinstance(self.draw_state, DrawState):
            object.__setattr__(self, "draw_state", DrawState.from_dict(self.draw_state))
        if not isinstance(self.draw_state_mode, DrawStateMode):
            try:
                object.__setattr__(self, "draw_state_mode", DrawStateMode(str(self.draw_state_mode).lower()))
            except ValueError:
                raise ValueError(f"draw_state_mode must be one of baked, dynamic, not {self.draw_state_mode!r}") from None
        if self.varying_locations:
            varying_location_map(self.varying_locations)  # raises ValueError on a bad entry
        if self.spirv_version not in SPIRV_VERSIONS:
            raise ValueError(f"spirv_version must be one of {', '.join(SPIRV_VERSIONS)}, not {self.spirv_version!r}")
        if self.infinities not in INFINITIES:
            raise ValueError(f"infinities must be one of {', '.join(INFINITIES)}, not {self.infinities!r}")

    def _take_position(self, position: dict) -> None:
        """The position conventions a draw_state dict gave (drawstate.POSITION_KEYS)
        become these fields; one also set here to another value is a conflict."""
        defaults = {f.name: f.default for f in fields(self)}
        for name, value in position.items():
            current = getattr(self, name)
            if current != defaults[name] and current != value:
                raise ValueError(f"draw_state gives {name}={value!r} but the option {name} is {current!r}")
            object.__setattr__(self, name, value)

    def with_(self, **changes) -> "Options":
        return replace(self, **changes)

    @classmethod
    def from_kwargs(cls, **kwargs) -> "Options":
        """Options from ``translate``'s keyword arguments, in plain Python values.

        ``sampler_types`` takes a mapping from sampler number to type name
        (``{3: "cube"}`` or ``{"3": "cube"}``; types ``1d``, ``2d``, ``cube``,
        ``volume``), ``texture_projection`` a mapping from texture stage to
        its D3DTTFF_COUNTn (``{0: 4}``); both also take ``(stage, value)``
        pairs and the internal forms.  Unknown names raise ``TypeError``, bad
        values ``ValueError`` naming the option.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(kwargs) - known)
        if unknown:
            raise TypeError(f"unknown translation option(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        if "sampler_types" in kwargs:
            kwargs["sampler_types"] = _stage_pairs("sampler_types", kwargs["sampler_types"], 15, _sampler_type)
        if "texture_projection" in kwargs:
            kwargs["texture_projection"] = _stage_pairs("texture_projection", kwargs["texture_projection"], 7, _projection_count)
        return cls(**kwargs)

    def sampler_type(self, stage: int) -> SamplerType:
        for s, t in self.sampler_types:
            if s == stage:
                return t
        return SamplerType.TEX2D

    def projection_component(self, stage: int) -> int | None:
        """The coordinate component a ps_1_x stage divides by, or None."""
        for s, count in self.texture_projection:
            if s == stage:
                if count not in (2, 3, 4):
                    raise ValueError(f"texture_projection: stage {stage} count must be 2, 3 or 4, not {count}")
                return count - 1
        return None


def _stage_number(option: str, value, highest: int) -> int:
    try:
        stage = int(value)
        if isinstance(value, bool) or (isinstance(value, float) and value != stage):
            raise ValueError
    except (TypeError, ValueError):
        raise ValueError(f"{option}: {value!r} is not a stage number (0-{highest})") from None
    if not 0 <= stage <= highest:
        raise ValueError(f"{option}: stage {stage} is out of range (0-{highest})")
    return stage


def _sampler_type(value) -> SamplerType:
    if isinstance(value, SamplerType) and value is not SamplerType.UNKNOWN:
        return value
    if isinstance(value, str):
        found = SAMPLER_TYPE_BY_ASM.get(value.strip().lower())
        if found is not None and found is not SamplerType.UNKNOWN:
            return found
    raise ValueError(f"sampler_types: {value!r} is not a sampler type (1d, 2d, cube or volume)")


def _projection_count(value) -> int:
    try:
        count = int(value)
    except (TypeError, ValueError):
        count = None
    if isinstance(value, bool) or count not in (2, 3, 4):
        raise ValueError(f"texture_projection: {value!r} is not a D3DTTFF_COUNTn count (2, 3 or 4)")
    return count


def _stage_pairs(option: str, value, highest: int, convert) -> tuple:
    """A mapping or (stage, value) pairs as a sorted tuple of pairs."""
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, (str, bytes)):
        raise ValueError(f"{option}: give a mapping such as {{0: ...}}, not a string")
    else:
        try:
            items = [tuple(p) for p in value]
        except TypeError:
            raise ValueError(f"{option}: give a mapping from stage to value, not {type(value).__name__}") from None
        if any(len(p) != 2 for p in items):
            raise ValueError(f"{option}: each entry must be a (stage, value) pair")
    result: dict[int, object] = {}
    for stage, v in items:
        n = _stage_number(option, stage, highest)
        if n in result:
            raise ValueError(f"{option}: stage {n} is given twice")
        result[n] = convert(v)
    return tuple(sorted(result.items()))


def varying_location_map(entries) -> dict[tuple[DeclUsage, int], int]:
    """``Options.varying_locations`` as {(DeclUsage, index): location};
    ValueError names the first entry that is not (usage, index, location)
    with a D3D usage name, an index 0-15 and a location 0-4095 used once."""
    out: dict[tuple[DeclUsage, int], int] = {}
    used: dict[int, tuple] = {}
    for entry in entries:
        try:
            usage, index, location = entry
            u = DeclUsage[str(usage).upper()]
            index, location = int(index), int(location)
        except (TypeError, ValueError, KeyError):
            raise ValueError(f"varying_locations: {entry!r} is not (usage, index, location) with a D3D usage "
                             f"({', '.join(x.name.lower() for x in DeclUsage)})") from None
        if not 0 <= index < 16 or not 0 <= location < 4096:
            raise ValueError(f"varying_locations: {entry!r}: index must be 0-15 and location 0-4095")
        if location in used and used[location] != (u, index):
            raise ValueError(f"varying_locations: location {location} given to two semantics")
        used[location] = (u, index)
        out[(u, index)] = location
    return out
