"""Translation options: one frozen dataclass, shared by passes and backends.

Defaults are what a D3D9-on-GL/Vulkan compatibility layer needs; every
field is documented because each one changes what the output computes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from .bytecode.tables import SamplerType


@dataclass(frozen=True)
class Options:
    # "Anything x 0 = 0" (D3D9 legacy multiply) for mul, mad, dp2add/dp3/dp4
    # and the matrix ops.  Costs a compare and select per product; turn it
    # off when the shaders are known not to rely on 0 * inf = 0.
    legacy_multiply: bool = True
    # Put each D3D instruction as a comment above the code it became.
    annotate: bool = False
    # Sampler types for shaders that do not declare them (ps_1_x, or
    # UNKNOWN declarations): ((stage, SamplerType), ...); others default 2D.
    sampler_types: tuple[tuple[int, SamplerType], ...] = ()

    def with_(self, **changes) -> "Options":
        return replace(self, **changes)

    @classmethod
    def from_kwargs(cls, **kwargs) -> "Options":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(kwargs) - known)
        if unknown:
            raise TypeError(f"unknown translation option(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        return cls(**kwargs)

    def sampler_type(self, stage: int) -> SamplerType:
        for s, t in self.sampler_types:
            if s == stage:
                return t
        return SamplerType.TEX2D
