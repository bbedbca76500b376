"""SPIR-V for the draw-time sampler, clip-plane and point states
(``passes/samplers_state.py``, ``clip_planes.py``, ``points.py``), kept
apart from the emitter, which calls in here:

- a depth-compared sampler (the layout's ``sampler2DShadow``): a depth image
  type (``OpTypeImage`` Depth 1) and ``OpImageSampleDref*Lod``, the 0/1
  result spread to a vec4;
- FETCH4: ``OpImageGather`` of component 0 at coordinate + half a texel
  (``OpImageQuerySizeLod``, capability ImageQuery), shuffled (2, 0, 1, 3);
- ``gl_ClipDistance[i]``: one ``float[N]`` Output variable decorated
  BuiltIn ClipDistance (capability ClipDistance), N = highest index + 1;
- ``gl_PointCoord``: an Input vec2 decorated BuiltIn PointCoord.
"""

from __future__ import annotations

from ...errors import UnsupportedError
from ...ir.ops import Op, SampleKind, SampleMode
from .grammar import grammar
from .module import E, OP, OpTypeImage, OpTypeSampledImage

G = grammar()
IMAGE_OPERANDS = G.enums["ImageOperands"]
SHADOW_DIM = "2DShadow"  # interface.SAMPLER_DIMS of the layout's sampler2DShadow
CLIP_DISTANCE = "gl_ClipDistance["
POINT_COORD = "gl_PointCoord"
(OpLoad, OpImage, OpImageQuerySizeLod, OpConvertSToF, OpFDiv, OpFAdd, OpImageGather, OpVectorShuffle,
 OpCompositeConstruct, OpImageSampleDrefImplicitLod, OpImageSampleDrefExplicitLod) = (OP[n] for n in (
    "OpLoad", "OpImage", "OpImageQuerySizeLod", "OpConvertSToF", "OpFDiv", "OpFAdd", "OpImageGather",
    "OpVectorShuffle", "OpCompositeConstruct", "OpImageSampleDrefImplicitLod", "OpImageSampleDrefExplicitLod"))


def capability_once(m, name: str) -> None:
    """OpCapability ``name`` unless the module declares it already."""
    if not m.has_capability(name):
        m.capability(name)


def shadow_sampled_image(m) -> int:
    """The sampled-image type of a 2D depth texture read with a compare."""
    image = m._type(("image", "2D", "depth"), OpTypeImage, m.float(), E["Dim"]["2D"], 1, 0, 0, 1,
                    E["ImageFormat"]["Unknown"])
    return m._type(("sampled", image), OpTypeSampledImage, image)


def builtin_place(iface, name: str, builtins: tuple):
    """The Place of a built-in the table in interface.py does not hold, or None."""
    from .interface import Place

    m = iface.m
    if name.startswith(CLIP_DISTANCE):
        array = iface.places.get("gl_ClipDistance")
        if array is None:
            size = 1 + max(int(b[len(CLIP_DISTANCE):-1]) for b in builtins if b.startswith(CLIP_DISTANCE))
            capability_once(m, "ClipDistance")
            f = m.float()
            v = m.variable("Output", m.array(f, size))
            m.decorate_builtin(v, "ClipDistance")
            iface._name(v, "gl_ClipDistance")
            iface.io.append(v)
            array = iface.places["gl_ClipDistance"] = Place(v, "Output", None, m.array(f, size), f)
        return Place(array.var, "Output", int(name[len(CLIP_DISTANCE):-1]), m.float(), None)
    if name == POINT_COORD:
        t = m.vector(m.float(), 2)
        v = m.variable("Input", t)
        m.decorate_builtin(v, "PointCoord")
        iface._name(v, name)
        iface.io.append(v)
        return Place(v, "Input", None, t, None)
    if name.startswith("vec2(" + POINT_COORD):
        raise UnsupportedError(-1, "point sprites with flip_y=False on a SPIR-V target (the point coordinate "
                                   "would need flipping): use the default flip_y or the vulkan GLSL target")
    return None


def sample_mode(em, op: Op) -> None:
    """An IR SAMPLE with a SampleMode (values.Values.sample calls this)."""
    mode = op.imm[2]
    place = em.sampler_place(op)
    m = em.m
    f = m.float()
    f4 = m.vector(f, 4)
    kind = op.imm[0]
    if mode is SampleMode.DEPTH_COMPARE:
        if place.sampler_dim != SHADOW_DIM:
            raise em.unsupported(op, f"a depth compare through {op.var.name}, which is not a shadow sampler")
        image = em.inst(OpLoad, shadow_sampled_image(m), place.var)
        coord3 = em.fit(op, op.args[0], 3)
        uv = em.inst(OpVectorShuffle, m.vector(f, 2), coord3, coord3, 0, 1)
        ref = em.inst(OP["OpCompositeExtract"], f, coord3, 2)
        if kind is SampleKind.PLAIN and em.fragment:
            d = em.inst(OpImageSampleDrefImplicitLod, f, image, uv, ref)
        elif kind is SampleKind.BIAS:
            if not em.fragment:
                raise em.unsupported(op, "a LOD bias in a vertex shader")
            d = em.inst(OpImageSampleDrefImplicitLod, f, image, uv, ref, IMAGE_OPERANDS["Bias"], em.value(op.args[1]))
        elif kind is SampleKind.GRAD:
            d = em.inst(OpImageSampleDrefExplicitLod, f, image, uv, ref, IMAGE_OPERANDS["Grad"],
                        em.fit(op, op.args[1], 2), em.fit(op, op.args[2], 2))
        else:  # LOD, or PLAIN outside a fragment shader (level 0)
            lod = em.value(op.args[1]) if kind is SampleKind.LOD else m.float_constant(0.0)
            d = em.inst(OpImageSampleDrefExplicitLod, f, image, uv, ref, IMAGE_OPERANDS["Lod"], lod)
        em.ids[op] = em.inst(OpCompositeConstruct, f4, d, d, d, d)
        return
    if mode is SampleMode.GATHER4:
        if place.sampler_dim != "2D":
            raise em.unsupported(op, f"FETCH4 through {op.var.name}, which is not a 2D sampler")
        capability_once(m, "ImageQuery")
        sampled_type = m.sampled_image("2D")
        sampled = em.inst(OpLoad, sampled_type, place.var)
        image_type = m._type(("image", "2D"), OpTypeImage, f, E["Dim"]["2D"], 0, 0, 0, 1, E["ImageFormat"]["Unknown"])
        image = em.inst(OpImage, image_type, sampled)
        i2 = m.vector(m.int(), 2)
        size = em.inst(OpConvertSToF, m.vector(f, 2), em.inst(OpImageQuerySizeLod, i2, image, m.int_constant(0)))
        half = m.composite_constant(m.vector(f, 2), (m.float_constant(0.5),) * 2)
        uv = em.inst(OpFAdd, m.vector(f, 2), em.fit(op, op.args[0], 2), em.inst(OpFDiv, m.vector(f, 2), half, size))
        g = em.inst(OpImageGather, f4, sampled, uv, m.int_constant(0))
        em.ids[op] = em.inst(OpVectorShuffle, f4, g, g, 2, 0, 1, 3)
        return
    raise em.unsupported(op, f"sample mode {mode}")

