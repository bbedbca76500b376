"""Constants and verdicts of the differential check (``differential``).

See ``differential``'s module docstring for the method, tolerances and
what is compared."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..bytecode.tables import Opcode, RegisterType

R = RegisterType
O = Opcode
F32 = np.float32

GL_TARGETS = ("glsl120", "glsl330", "glsl450", "essl100", "essl300")
VS_LANES = 64
PS_LANES = 64  # a 4 x 16 pixel image
PERTURB = 2.0**-16
ILL_CONDITIONED = 2.0**-8
SENTINEL = -1.2345678e30  # clear colour: a killed pixel keeps it

EXACT, ARITH, TRANS, FILTERED = 0, 1, 2, 3
CLASS_NAMES = ("exact", "arith", "trans", "filtered")
# (absolute, relative) tolerance per class; see the module docstring
CLASS_TOLERANCE = {EXACT: (0.0, 0.0), ARITH: (0.0, 2.0**-20), TRANS: (2.0**-16, 2.0**-16), FILTERED: (2.0**-8, 2.0**-8)}

# --------------------------------------------------------------------------
# Verdicts
# --------------------------------------------------------------------------


@dataclass
class Mismatch:
    """One output component of one lane outside its tolerance."""

    stage: str  # "vertex" | "pixel"
    seed: int
    lane: int
    where: str  # "vertex 3" / "pixel (2, 5)"
    output: str  # reference register name (oC0, oPos, o3 ...)
    component: int  # 0..3, or -1 for texkill
    reference: float
    driver: float
    tolerance: float
    klass: str
    writer: str | None  # "#12 (byte 0x40): mad r0, r1, c2, r3"
    inputs: dict = field(default_factory=dict)  # input name -> 4 values at this lane

    def describe(self) -> str:
        comp = "xyzw"[self.component] if self.component >= 0 else ""
        if self.component < 0:
            what = (f"{self.where}: texkill differs: reference {'killed' if self.reference else 'kept'} it, "
                    f"driver {'killed' if self.driver else 'kept'} it")
        else:
            what = (f"{self.where} {self.output}.{comp}: reference {_fmt(self.reference)}, driver {_fmt(self.driver)} "
                    f"(|diff| {_fmt(abs(self.driver - self.reference)) if _finite(self.reference, self.driver) else 'n/a'}"
                    f", tolerance {_fmt(self.tolerance)}, {self.klass})")
        lines = [f"seed {self.seed}, {what}"]
        if self.component < 0:
            lines.append(f"  texkill instructions: {self.writer or 'none'}")
        else:
            lines.append(f"  last writer: {self.writer or 'none (never written in the reference)'}")
        for name, vals in self.inputs.items():
            lines.append(f"  input {name} = ({', '.join(_fmt(v) for v in vals)})")
        return "\n".join(lines)


def _finite(*xs) -> bool:
    return all(math.isfinite(x) for x in xs)


def _fmt(x: float) -> str:
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.9g}"


@dataclass
class Verdict:
    name: str
    target: str
    status: str = "pass"  # pass | fail | error | skip
    message: str = ""
    version: str = ""
    seeds: list[int] = field(default_factory=list)
    lanes: int = 0
    compared: int = 0  # output components compared
    skipped: int = 0  # ill-conditioned components left out
    killed: int = 0  # lanes the reference killed (texkill)
    mismatches: list[Mismatch] = field(default_factory=list)
    bad_components: int = 0  # total, the list keeps the first few
    bad_by_output: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    asm: str = ""  # the disassembly (for reproducers)

    @property
    def ok(self) -> bool:
        return self.status == "pass"

    def merge_mismatch(self, m: Mismatch, keep: int = 5):
        self.bad_components += 1
        key = f"{m.stage}:{m.output}" + (("." + "xyzw"[m.component]) if m.component >= 0 else "")
        self.bad_by_output[key] = self.bad_by_output.get(key, 0) + 1
        if len(self.mismatches) < keep:
            self.mismatches.append(m)
        self.status = "fail"

    def summary(self) -> str:
        head = f"{self.status.upper()} {self.name} ({self.version or '?'}, {self.target}"
        head += f", seeds {','.join(map(str, self.seeds))})" if self.seeds else ")"
        if self.status in ("error", "skip"):
            return f"{head}: {self.message}"
        text = (f"{head}: {self.lanes} lanes, {self.compared} components compared, "
                f"{self.skipped} skipped as ill-conditioned")
        if self.killed:
            text += f", {self.killed} lanes killed"
        if self.status == "fail":
            kills = sum(v for k, v in self.bad_by_output.items() if k.endswith(":texkill"))
            text += f"; {self.bad_components - kills} components outside tolerance"
            if kills:
                text += f", {kills} pixels with a different texkill"
        return text

    def report(self) -> str:
        lines = [self.summary()]
        if self.status == "fail" and self.mismatches:  # (a missing output fails with a note only)
            lines.append("first mismatch: " + self.mismatches[0].describe())
            if len(self.bad_by_output) > 0:
                lines.append("mismatches by output: "
                             + ", ".join(f"{k} {v}" for k, v in sorted(self.bad_by_output.items())))
            for m in self.mismatches[1:]:
                lines.append("also: " + m.describe().splitlines()[0])
        for n in self.notes:
            lines.append(f"note: {n}")
        return "\n".join(lines)

