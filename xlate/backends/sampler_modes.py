"""GLSL for SAMPLEs with a ``SampleMode`` (draw-time sampler state,
``passes/samplers_state.py``): shadow compares and FETCH4 gathers.

Kept apart from ``glsl.py`` so that the common lookups stay one table
away; the emitter calls ``sample_mode`` for a SAMPLE whose imm has a mode.
"""

from __future__ import annotations

from ..ir.ops import Op, SampleKind, SampleMode

PRIMARY, ADD, MUL = 16, 13, 14


def _call(name: str, args: list) -> tuple[str, int]:
    return f"{name}({', '.join(a[0] for a in args)})", PRIMARY


def sample_mode(em, op: Op, a: list, name: str, decl_type: str) -> tuple[str, int]:
    mode = op.imm[2]
    if mode is SampleMode.DEPTH_COMPARE:
        return _shadow(em, op, a, name, decl_type)
    if mode is SampleMode.GATHER4:
        return _fetch4(em, op, a, name, decl_type)
    raise em.unsupported(op, f"sample mode {mode}")


def _shadow(em, op: Op, a: list, name: str, decl_type: str) -> tuple[str, int]:
    """texture(sampler2DShadow, vec3(u, v, ref)) -> the 0/1 (PCF-filtered)
    result in every component, as D3D9 drivers return it."""
    if decl_type != "sampler2DShadow":
        raise em.unsupported(op, f"a depth compare through {name}, declared {decl_type}")
    kind = op.imm[0]
    t = em.t
    sampler = (name, PRIMARY)
    coord = em.fit(op, op.args[0], a[0], 3)
    if t.generic_texture:
        if kind is SampleKind.PLAIN:
            r = _call("texture", [sampler, coord])
        elif kind is SampleKind.BIAS:
            if not em.fragment:
                raise em.unsupported(op, "a LOD bias in a vertex shader")
            r = _call("texture", [sampler, coord, a[1]])
        elif kind is SampleKind.LOD:
            r = _call("textureLod", [sampler, coord, a[1]])
        else:
            r = _call("textureGrad", [sampler, coord, em.fit(op, op.args[1], a[1], 2), em.fit(op, op.args[2], a[2], 2)])
        return f"vec4({r[0]})", PRIMARY
    # GLSL 1.20: shadow2D returns a vec4 already
    if kind is SampleKind.PLAIN:
        return _call("shadow2D", [sampler, coord])
    if kind is SampleKind.BIAS and em.fragment:
        return _call("shadow2D", [sampler, coord, a[1]])
    if kind is SampleKind.LOD and not em.fragment:
        return _call("shadow2DLod", [sampler, coord, a[1]])
    raise em.unsupported(op, f"a depth compare with {kind.value} LOD needs GLSL 1.30+ (glsl330 or later)")


def _fetch4(em, op: Op, a: list, name: str, decl_type: str) -> tuple[str, int]:
    """ATI FETCH4: a gather of red half a texel on (the footprint whose
    top-left texel a point sample would read), swizzled to FETCH4's order
    (semantics §2.10: the gather's (2, 0, 1, 3)); base level."""
    t = em.t
    if decl_type != "sampler2D":
        raise em.unsupported(op, f"FETCH4 through {name}, declared {decl_type}")
    if not t.generic_texture or (t.es and t.version < 310):
        raise em.unsupported(op, "FETCH4 needs textureGather (GLSL 4.00, or 3.30 with GL_ARB_texture_gather)")
    if not t.es and t.version < 400:
        em.need_extension("GL_ARB_texture_gather")
    coord = em.fit(op, op.args[0], a[0], 2)
    c = coord[0] if coord[1] >= ADD else f"({coord[0]})"
    return f"textureGather({name}, {c} + 0.5 / vec2(textureSize({name}, 0))).zxyw", PRIMARY
