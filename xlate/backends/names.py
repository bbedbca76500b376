"""A namer that turns untrusted text (CTAB names, register names) into legal,
unique GLSL identifiers.

Rules enforced, whatever the target version (one list serves all, so a name
never changes with the target):
- only ASCII letters, digits and ``_``; anything else becomes ``_``;
- no leading digit, never empty;
- no ``__`` anywhere (reserved by every GLSL spec);
- no ``gl_`` / ``GL_`` prefix (reserved for built-ins and macros);
- not a keyword or reserved word of any GLSL / GLSL ES version, Vulkan GLSL
  type names included, nor a built-in function or predefined macro name
  (declaring ``sin`` hides the function, ``GL_ES`` is replaced by 1);
- nor a WGSL keyword, reserved word, predeclared type or built-in function
  (``WGSL_RESERVED``: a module-scope ``var select`` would hide the built-in);
- at most ``MAX_LENGTH`` characters (ES 3.00 allows 1024; short is readable);
- unique within the shader (``name``, ``name_2``, ``name_3`` ...).
"""

from __future__ import annotations

import re

from ..memo import remember

MAX_LENGTH = 48

KEYWORDS = frozenset("""
attribute const uniform varying buffer shared coherent volatile restrict readonly writeonly atomic_uint
layout centroid flat smooth noperspective patch sample invariant precise break continue do for while
switch case default if else subroutine in out inout int void bool true false float double discard
return struct lowp mediump highp precision uint demote terminateInvocation terminateRayEXT
vec2 vec3 vec4 ivec2 ivec3 ivec4 bvec2 bvec3 bvec4 uvec2 uvec3 uvec4 dvec2 dvec3 dvec4
mat2 mat3 mat4 mat2x2 mat2x3 mat2x4 mat3x2 mat3x3 mat3x4 mat4x2 mat4x3 mat4x4
dmat2 dmat3 dmat4 dmat2x2 dmat2x3 dmat2x4 dmat3x2 dmat3x3 dmat3x4 dmat4x2 dmat4x3 dmat4x4
float16_t f16vec2 f16vec3 f16vec4 int64_t uint64_t i64vec2 u64vec2 int8_t uint8_t int16_t uint16_t
sampler1D sampler2D sampler3D samplerCube sampler1DShadow sampler2DShadow samplerCubeShadow
sampler1DArray sampler2DArray sampler1DArrayShadow sampler2DArrayShadow isampler1D isampler2D
isampler3D isamplerCube isampler1DArray isampler2DArray usampler1D usampler2D usampler3D
usamplerCube usampler1DArray usampler2DArray sampler2DRect sampler2DRectShadow isampler2DRect
usampler2DRect samplerBuffer isamplerBuffer usamplerBuffer sampler2DMS isampler2DMS usampler2DMS
sampler2DMSArray isampler2DMSArray usampler2DMSArray samplerCubeArray samplerCubeArrayShadow
isamplerCubeArray usamplerCubeArray samplerExternalOES sampler3DRect
image1D iimage1D uimage1D image2D iimage2D uimage2D image3D iimage3D uimage3D image2DRect
iimage2DRect uimage2DRect imageCube iimageCube uimageCube imageBuffer iimageBuffer uimageBuffer
image1DArray iimage1DArray uimage1DArray image2DArray iimage2DArray uimage2DArray imageCubeArray
iimageCubeArray uimageCubeArray image2DMS iimage2DMS uimage2DMS image2DMSArray iimage2DMSArray
uimage2DMSArray
texture1D texture2D texture3D textureCube texture1DArray texture2DArray textureBuffer texture2DMS
texture2DMSArray textureCubeArray texture2DRect itexture1D itexture2D itexture3D itextureCube
utexture1D utexture2D utexture3D utextureCube sampler samplerShadow subpassInput isubpassInput
usubpassInput subpassInputMS isubpassInputMS usubpassInputMS
common partition active asm class union enum typedef template this resource goto inline noinline
public static extern external interface long short half fixed unsigned superp input output
hvec2 hvec3 hvec4 fvec2 fvec3 fvec4 filter sizeof cast namespace using
""".split())

BUILTIN_FUNCTIONS = frozenset("""
radians degrees sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh pow exp log exp2 log2
sqrt inversesqrt abs sign floor trunc round roundEven ceil fract mod modf min max clamp mix step
smoothstep isnan isinf floatBitsToInt floatBitsToUint intBitsToFloat uintBitsToFloat fma frexp ldexp
packUnorm2x16 packSnorm2x16 packUnorm4x8 packSnorm4x8 unpackUnorm2x16 unpackSnorm2x16 unpackUnorm4x8
unpackSnorm4x8 packHalf2x16 unpackHalf2x16 packDouble2x32 unpackDouble2x32 length distance dot cross
normalize ftransform faceforward reflect refract matrixCompMult outerProduct transpose determinant
inverse lessThan lessThanEqual greaterThan greaterThanEqual equal notEqual any all not uaddCarry
usubBorrow umulExtended imulExtended bitfieldExtract bitfieldInsert bitfieldReverse bitCount findLSB
findMSB textureSize textureQueryLod textureQueryLevels textureSamples texture textureProj textureLod
textureOffset texelFetch texelFetchOffset textureProjOffset textureLodOffset textureProjLod
textureProjLodOffset textureGrad textureGradOffset textureProjGrad textureProjGradOffset textureGather
textureGatherOffset textureGatherOffsets texture1DProj texture1DLod texture1DProjLod texture2DProj
texture2DLod texture2DProjLod texture3DProj texture3DLod texture3DProjLod textureCubeLod shadow1D
shadow2D shadow1DProj shadow2DProj shadow1DLod shadow2DLod shadow1DProjLod shadow2DProjLod
texture2DLodEXT texture2DProjLodEXT textureCubeLodEXT texture2DGradEXT texture2DProjGradEXT
textureCubeGradEXT texture2DGradARB textureCubeGradARB texture3DGradARB dFdx dFdy fwidth dFdxFine
dFdyFine fwidthFine dFdxCoarse dFdyCoarse fwidthCoarse interpolateAtCentroid interpolateAtSample
interpolateAtOffset noise1 noise2 noise3 noise4 EmitVertex EndPrimitive EmitStreamVertex
EndStreamPrimitive barrier memoryBarrier groupMemoryBarrier imageLoad imageStore imageSize
atomicAdd atomicMin atomicMax atomicAnd atomicOr atomicXor atomicExchange atomicCompSwap
atomicCounter atomicCounterIncrement atomicCounterDecrement main
""".split())

MACROS = frozenset("__LINE__ __FILE__ __VERSION__ GL_ES GL_FRAGMENT_PRECISION_HIGH GL_core_profile "
                   "GL_compatibility_profile GL_es_profile VULKAN GL_SPIRV".split())

# WGSL (W3C WGSL, "Keywords", "Reserved Words", "Predeclared types" and the
# built-in functions): one list for every target, so a name never changes
# with the target.
WGSL_RESERVED = frozenset("""
alias break case const const_assert continue continuing default diagnostic discard else enable false fn for
if let loop override requires return struct switch true var while
NULL Self abstract active alignas alignof as asm asm_fragment async attribute auto await become binding_array
cast catch class co_await co_return co_yield coherent column_major common compile compile_fragment concept
const_cast consteval constexpr constinit crate debugger decltype delete demote demote_to_helper do
dynamic_cast enum explicit export extends extern external fallthrough filter final finally friend from
fxgroup get goto groupshared highp impl implements import inline instanceof interface layout lowp macro
macro_rules match mediump meta mod module move mut mutable namespace new nil noexcept noinline
nointerpolation noperspective null nullptr of operator package packoffset partition pass patch
pixelfragment precise precision premerge priv protected pub public readonly ref regardless register
reinterpret_cast require resource restrict self set shared sizeof smooth snorm static static_assert
static_cast std subroutine super target template this thread_local throw trait try type typedef typeid
typename typeof union unless unorm unsafe unsized use using varying virtual volatile wgsl where with
writeonly yield
array atomic bool f16 f32 i32 u32 mat2x2 mat2x3 mat2x4 mat3x2 mat3x3 mat3x4 mat4x2 mat4x3 mat4x4 ptr
sampler sampler_comparison vec2 vec3 vec4 vec2i vec3i vec4i vec2u vec3u vec4u vec2f vec3f vec4f vec2h vec3h
vec4h mat2x2f mat2x3f mat2x4f mat3x2f mat3x3f mat3x4f mat4x2f mat4x3f mat4x4f mat2x2h mat2x3h mat2x4h
mat3x2h mat3x3h mat3x4h mat4x2h mat4x3h mat4x4h texture_1d texture_2d texture_2d_array texture_3d
texture_cube texture_cube_array texture_multisampled_2d texture_depth_multisampled_2d texture_external
texture_storage_1d texture_storage_2d texture_storage_2d_array texture_storage_3d texture_depth_2d
texture_depth_2d_array texture_depth_cube texture_depth_cube_array
read write read_write function private workgroup uniform storage handle
bitcast all any select arrayLength abs acos acosh asin asinh atan atanh atan2 ceil clamp cos cosh
countLeadingZeros countOneBits countTrailingZeros cross degrees determinant distance dot dot4U8Packed
dot4I8Packed exp exp2 extractBits faceForward firstLeadingBit firstTrailingBit floor fma fract frexp
insertBits inverseSqrt ldexp length log log2 max min mix modf normalize pow quantizeToF16 radians reflect
refract reverseBits round saturate sign sin sinh smoothstep sqrt step tan tanh transpose trunc dpdx dpdxCoarse
dpdxFine dpdy dpdyCoarse dpdyFine fwidth fwidthCoarse fwidthFine textureDimensions textureGather
textureGatherCompare textureLoad textureNumLayers textureNumLevels textureNumSamples textureSample
textureSampleBias textureSampleCompare textureSampleCompareLevel textureSampleGrad textureSampleLevel
textureSampleBaseClampToEdge textureStore atomicLoad atomicStore atomicAdd atomicSub atomicMax atomicMin
atomicAnd atomicOr atomicXor atomicExchange atomicCompareExchangeWeak pack4x8snorm pack4x8unorm
pack4xI8 pack4xU8 pack4xI8Clamp pack4xU8Clamp pack2x16snorm pack2x16unorm pack2x16float unpack4x8snorm
unpack4x8unorm unpack4xI8 unpack4xU8 unpack2x16snorm unpack2x16unorm unpack2x16float storageBarrier
textureBarrier workgroupBarrier workgroupUniformLoad subgroupAdd subgroupBallot subgroupBroadcast
subgroupElect subgroupMax subgroupMin subgroupShuffle quadBroadcast quadSwapX quadSwapY quadSwapDiagonal
""".split())

RESERVED = KEYWORDS | BUILTIN_FUNCTIONS | MACROS | WGSL_RESERVED

_BAD_CHARS = re.compile(r"[^A-Za-z0-9_]")
_UNDERSCORES = re.compile(r"_{2,}")


def is_reserved(name: str) -> bool:
    return name in RESERVED or name.lower().startswith("gl_") or "__" in name


def sanitize(raw: str) -> str:
    """A legal identifier close to ``raw`` (not yet made unique)."""
    # An ASCII str.isidentifier() is [A-Za-z_][A-Za-z0-9_]*, tested in C
    # for a third less than the same regular expression.
    if raw.isascii() and raw.isidentifier() and len(raw) <= MAX_LENGTH and "__" not in raw and raw != "_" \
            and raw not in RESERVED and raw[:3].lower() != "gl_":
        return raw  # already legal (r0, in_texcoord0, vs_WorldViewProj): nothing below would change it
    name = _BAD_CHARS.sub("_", raw)
    name = _UNDERSCORES.sub("_", name)
    if len(name) > MAX_LENGTH:
        name = name[:MAX_LENGTH]
    if not name or name == "_":
        name = "unnamed"
    if name[0].isdigit():
        name = "n" + name
    if name.lower().startswith("gl_"):
        name = "u" + name  # ugl_...: no longer the reserved prefix
    if name in RESERVED:
        name = name + "_"
    return name[:MAX_LENGTH + 4]


# raw name -> sanitize(raw): the same names (r0, CTAB names) recur from
# shader to shader (bounded: ``xlate.memo``)
_SANITIZED: dict[str, str] = {}
_SANITIZED_MAX = 8192


def _sanitized(raw: str) -> str:
    return remember(_SANITIZED, raw, sanitize(raw), _SANITIZED_MAX)


class Namer:
    """Hands out unique identifiers; the first to ask for a name gets it."""

    def __init__(self, reserved=()):
        self.used: set[str] = set(reserved)

    def reserve(self, name: str) -> str:
        """Claim a fixed (already legal) name, e.g. a varying that must link by name."""
        if name in self.used:
            raise ValueError(f"name {name!r} claimed twice")
        self.used.add(name)
        return name

    def fresh(self, name: str) -> str:
        """``name(name)`` for a name known to be legal (``t12``): the emitter
        asks for one per local, so the sanitizing is skipped when it is free."""
        if name not in self.used:
            self.used.add(name)
            return name
        return self.name(name)

    def name(self, raw: str) -> str:
        base = _SANITIZED.get(raw)
        if base is None:
            base = _sanitized(raw)
        if base not in self.used:
            self.used.add(base)
            return base
        stem = base.rstrip("_") or "unnamed"
        n = 2
        while True:
            candidate = f"{stem}_{n}"
            if candidate not in self.used and candidate not in RESERVED:
                self.used.add(candidate)
                return candidate
            n += 1
