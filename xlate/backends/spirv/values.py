"""Types, constants and texture sampling of the SPIR-V emitter
(``emitter.Emitter``): the vector types of IR types, constants made once
per module (float32 bits as the key, so 0.0 and -0.0 stay apart), and the
image sampling instructions of ``SAMPLE``."""

from __future__ import annotations

import struct
from math import copysign

from ...ir.ops import Op, SampleKind
from ...ir.types import Scalar
from ...memo import remember
from .grammar import grammar
from . import stage_state
from .module import CONSTANT_HEAD, OP, f32_bits

G = grammar()
IMAGE_OPERANDS = G.enums["ImageOperands"]
FLOAT, INT, BOOL = Scalar.FLOAT, Scalar.INT, Scalar.BOOL
OpLoad, OpImageSampleImplicitLod, OpImageSampleExplicitLod, OpVectorShuffle, OpConstantComposite = (
    OP[n] for n in ("OpLoad", "OpImageSampleImplicitLod", "OpImageSampleExplicitLod", "OpVectorShuffle",
                    "OpConstantComposite"))
# the coordinate components each sampler dimension takes
DIM_COORDS = {"2D": 2, "Cube": 3, "3D": 3}
LOAD_HEAD, SAMPLE_IMPLICIT_HEAD = (4 << 16) | OpLoad, (5 << 16) | OpImageSampleImplicitLod
PLAIN = SampleKind.PLAIN
# [n] -> the packer of n float32s: their bytes are a key that tells 0.0 from -0.0
PACK_FLOATS = [None] + [struct.Struct(f"<{n}f") for n in (1, 2, 3, 4)]
# [n] -> the reader of those bytes as n uints: the values' float32 bits
UNPACK_BITS = [None] + [struct.Struct(f"<{n}I") for n in (1, 2, 3, 4)]
# nonzero float -> its float32 bits: the same constants recur from shader to shader
_BITS: dict = {}
_BITS_MAX = 65536


class Values:
    """Mixin of ``Emitter``: uses its ``m``, ``float``/``int``/``bool``,
    ``types``, ``vecs``, ``vector_constants``, ``images``,
    ``lay``, ``iface``, ``ids``, ``fragment`` and ``inst``/``value``."""

    __slots__ = ()

    # -- types and constants ------------------------------------------------

    def scalar_type(self, s: Scalar) -> int:
        return self.float if s is FLOAT else self.int if s is INT else self.bool

    def type_of(self, t) -> int:
        r = self.types.get(id(t))
        if r is None:  # (vec's table: the common ones are there from the start)
            r = self.vecs.get((t.scalar, t.width)) or self.vec(t.scalar, t.width)
            self.types[id(t)] = r
        return r

    def vec(self, s: Scalar, width: int) -> int:
        key = (s, width)
        r = self.vecs.get(key)
        if r is None:
            r = self.vecs[key] = self.m.vector(self.scalar_type(s), width)
        return r

    def float_bits(self, x: float) -> int:
        """f32_bits, memoised for the process (zeros answered first: 0.0 == -0.0)."""
        if x == 0:
            return 0x80000000 if copysign(1.0, x) < 0 else 0
        bits = _BITS.get(x)
        if bits is None:
            bits = remember(_BITS, x, f32_bits(x), _BITS_MAX)
        return bits

    def constant(self, s: Scalar, width: int, values) -> int:
        m = self.m
        if s is FLOAT and len(values) == 1:  # the common constant, a float scalar or splat
            key = (self.float, self.float_bits(values[0]))
            c = m.constants.get(key)
            if c is None:
                c = m.scalar_constant(*key)
            if width == 1:
                return c
            return m.composite_constant(self.vec(s, width), (c,) * width)
        if s is FLOAT:
            try:
                key = (width, PACK_FLOATS[len(values)].pack(*values))
            except (OverflowError, struct.error, IndexError):
                return self.constant_of(s, width, values)
        else:  # ints and bools: equal values are the same constant
            key = (s, width, tuple(values))
        c = self.vector_constants.get(key)
        if c is None:
            c = self.vector_constants[key] = self.constant_of(s, width, values)
        return c

    def packed_constant(self, width: int, packed: bytes, n: int) -> int:
        """``constant(FLOAT, width, values)`` of the ``n`` values whose
        float32 bytes are ``packed`` (``PACK_FLOATS[n]``): those bytes read
        as uints are ``float_bits`` of each value, so the scalar and
        composite constants are looked up and written here, in the order
        ``constant`` and ``constant_of`` make them (the same ids), without
        their calls: most of a shader's CONST ops make a new constant."""
        m = self.m
        constants = m.constants
        f = self.float
        if n == 1:
            bits = UNPACK_BITS[1].unpack(packed)[0]
            c = constants.get((f, bits))
            if c is None:
                c = constants[(f, bits)] = m.bound
                m.bound = c + 1
                m.globals += (CONSTANT_HEAD, f, c, bits)
            if width == 1:
                return c
            components = (c,) * width
        else:
            key = (width, packed)
            c = self.vector_constants.get(key)
            if c is not None:
                return c
            bits = UNPACK_BITS[n].unpack(packed)
            if n < width:  # constant_of's padding: the last value repeated
                bits += (bits[-1],) * (width - n)
            components = []
            for b in bits[:width]:
                c = constants.get((f, b))
                if c is None:
                    c = constants[(f, b)] = m.bound
                    m.bound = c + 1
                    m.globals += (CONSTANT_HEAD, f, c, b)
                components.append(c)
            if width == 1:
                self.vector_constants[key] = c = components[0]
                return c
            components = tuple(components)
        vt = self.vecs.get((FLOAT, width)) or self.vec(FLOAT, width)
        key = (vt, components)
        c = constants.get(key)
        if c is None:
            c = constants[key] = m.bound
            m.bound = c + 1
            m.globals += (((3 + width) << 16) | OpConstantComposite, vt, c, *components)
        if n > 1:
            self.vector_constants[(width, packed)] = c
        return c

    def constant_of(self, s: Scalar, width: int, values) -> int:
        m = self.m
        values = list(values)
        if len(values) < width:
            values += [values[-1] if values else 0] * (width - len(values))
        if s is FLOAT:
            ids = [m.scalar_constant(self.float, self.float_bits(x)) for x in values[:width]]
        elif s is INT:
            ids = [m.scalar_constant(self.int, int(x) & 0xFFFFFFFF) for x in values[:width]]
        else:
            ids = [m.bool_constant(bool(x)) for x in values[:width]]
        if width == 1:
            return ids[0]
        return m.composite_constant(self.vec(s, width), tuple(ids))

    def splat(self, value: float, width: int) -> int:
        """``constant(FLOAT, width, (value,) * width)``: the scalar, then the
        composite of it (packed_constant's one-value path: the same ids)."""
        return self.packed_constant(width, PACK_FLOATS[1].pack(value), 1)

    # -- texture sampling ------------------------------------------------------

    def sampler_place(self, op: Op):
        """The interface place of a SAMPLE's sampler; unsupported when its
        variable is not a declared sampler."""
        acc = self.lay.access.get(id(op.var))
        place = self.iface.places.get(acc.name) if acc is not None else None
        if place is None or place.sampler_dim is None:
            raise self.unsupported(op, f"a texture lookup through {op.var.name}, which is not a declared sampler")
        return place

    def sample(self, op: Op) -> None:
        if len(op.imm) > 2:  # draw-time sampler state (Options.draw_state): spirv/stage_state.py
            return stage_state.sample_mode(self, op)
        kind = op.imm[0]
        place = self.sampler_place(op)
        dim = place.sampler_dim
        m = self.m
        image_type = self.images.get(dim)
        if image_type is None:
            image_type = self.images[dim] = m.sampled_image(dim)
        image = m.bound  # (inst's words, written out for the commonest lookup)
        m.bound = image + 1
        self.words += (LOAD_HEAD, image_type, image, place.var)
        f4 = self.vecs[(FLOAT, 4)]  # in every module (Module.start)
        coord = self.fit(op, op.args[0], DIM_COORDS[dim])
        if kind is PLAIN:
            if self.fragment:
                r = m.bound
                m.bound = r + 1
                self.words += (SAMPLE_IMPLICIT_HEAD, f4, r, image, coord)
            else:  # glslang's texture() outside fragment shaders: level 0
                r = self.inst(OpImageSampleExplicitLod, f4, image, coord, IMAGE_OPERANDS["Lod"],
                              m.float_constant(0.0))
        elif kind is SampleKind.BIAS:
            if not self.fragment:
                raise self.unsupported(op, "a LOD bias in a vertex shader")
            r = self.inst(OpImageSampleImplicitLod, f4, image, coord, IMAGE_OPERANDS["Bias"],
                          self.value(op.args[1]))
        elif kind is SampleKind.LOD:
            r = self.inst(OpImageSampleExplicitLod, f4, image, coord, IMAGE_OPERANDS["Lod"], self.value(op.args[1]))
        elif kind is SampleKind.GRAD:
            n = DIM_COORDS[dim]
            r = self.inst(OpImageSampleExplicitLod, f4, image, coord, IMAGE_OPERANDS["Grad"],
                          self.fit(op, op.args[1], n), self.fit(op, op.args[2], n))
        else:
            raise self.unsupported(op, f"sample kind {kind}")
        self.ids[op] = r

    def fit(self, op: Op, v: Op, width: int) -> int:
        """A coordinate of exactly ``width`` components."""
        w = v.type.width
        x = self.value(v)
        if w == width:
            return x
        if w > width:
            return self.inst(OpVectorShuffle, self.vec(FLOAT, width), x, x, *range(width))
        raise self.unsupported(op, f"a {w}-component texture coordinate where {width} are needed")
