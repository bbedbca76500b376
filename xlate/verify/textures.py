"""Texture sampling for the reference interpreter (D3D9_SEMANTICS.md §2.10).

A ``Texture`` is float RGBA texel data with its mip levels and the sampler
state bound with it (D3D9 keeps filter and address modes per sampler stage;
here they travel together because the interpreter only ever needs the pair).

Layouts (level 0 first, each level half the size of the previous, rounded
down, at least 1):

* ``"2d"``:     each level ``(height, width, 4)``; row 0 is v = 0 (the top).
* ``"1d"``:     as 2D with height 1 (D3D9 samples 1D textures with .xy).
* ``"volume"``: each level ``(depth, height, width, 4)``; slice 0 is w = 0.
* ``"cube"``:   each level ``(6, size, size, 4)``, faces in D3D order
  +X, −X, +Y, −Y, +Z, −Z, each face row 0 at t = 0.

``sample()`` is vectorised over n lookups.  What it models:

* address modes wrap / mirror / clamp / border / mirroronce per axis; cube
  faces always clamp to their own edge (no filtering across faces: a
  simplification, real hardware blends the neighbouring face);
* filters: point and linear for MAG/MIN, none/point/linear for MIP
  ("anisotropic" is treated as linear); filter weights are exact float32
  (hardware uses 6-8 fractional bits, so linear results may differ in the
  last bits);
* level of detail: explicit (texldl), or from derivatives (implicit texld,
  texldb, texldd) with the standard isotropic formula
  ``lod = log2(max(|d(uvw·size)/dx|, |d(uvw·size)/dy|))``, plus the
  instruction bias and the sampler's MIPMAPLODBIAS; MAXMIPLEVEL is the most
  detailed level used.  lod <= 0 magnifies (MAG filter on the base level),
  lod > 0 minifies (MIN filter; MIP point picks round(lod), MIP linear blends
  floor/ceil).  For cube maps the derivatives of the face coordinates are
  taken per lane from the derivative of the direction (quotient rule), with
  the face of the lane itself;
* an unbound sampler (``texture is None``) returns (0, 0, 0, 1).

Draw-time sampler state (issue #14, ``Options.draw_state``):

* depth formats (``Texture.format`` "d16" / "d24"): the texel's red is the
  stored depth, quantised to the format; a lookup compares the reference
  (the coordinate's z after texldp's divide, clamped to [0, 1] as for every
  fixed-point depth format) LESS_EQUAL with each texel *before* filtering,
  so a linear filter gives PCF; the 0/1 result is in all four channels;
* ``SamplerState.srgb`` (SRGBTEXTURE): each texel's rgb is decoded with the
  sRGB curve before filtering (as sRGB formats are filtered);
* ``SamplerState.fetch4`` (ATI FETCH4, 2D): the reds of the 2x2 footprint
  whose top-left texel a point sample reads, as (top-right, bottom-left,
  bottom-right, top-left), base level, address modes applied.

Not modelled: anisotropy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

ADDRESS_MODES = ("wrap", "mirror", "clamp", "border", "mirroronce")
FILTERS = ("none", "point", "linear", "anisotropic")
KINDS = ("1d", "2d", "cube", "volume")
FORMATS = ("rgba", "d16", "d24")  # colour (float), or a depth format (red = depth)
DEPTH_STEPS = {"d16": 65535.0, "d24": 16777215.0}

F32 = np.float32


@dataclass(frozen=True)
class SamplerState:
    """D3DSAMP_* states of one sampler stage (D3D9 defaults)."""

    address_u: str = "wrap"
    address_v: str = "wrap"
    address_w: str = "wrap"
    mag_filter: str = "point"
    min_filter: str = "point"
    mip_filter: str = "none"
    border_color: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    mip_lod_bias: float = 0.0
    max_mip_level: int = 0
    srgb: bool = False  # D3DSAMP_SRGBTEXTURE: rgb decoded with the sRGB curve
    fetch4: bool = False  # ATI FETCH4 (2D): the 2x2 footprint's reds

    def __post_init__(self):
        for mode in (self.address_u, self.address_v, self.address_w):
            if mode not in ADDRESS_MODES:
                raise ValueError(f"unknown address mode {mode!r}")
        for f in (self.mag_filter, self.min_filter, self.mip_filter):
            if f not in FILTERS:
                raise ValueError(f"unknown filter {f!r}")


@dataclass
class Texture:
    kind: str
    levels: list[np.ndarray]
    sampler: SamplerState = field(default_factory=SamplerState)
    format: str = "rgba"  # "d16" / "d24": a depth texture, sampled with a compare

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown texture kind {self.kind!r}")
        if self.format not in FORMATS:
            raise ValueError(f"unknown texture format {self.format!r}")
        if self.format != "rgba" and self.kind != "2d":
            raise ValueError("depth textures are 2D here")
        want = {"1d": 3, "2d": 3, "volume": 4, "cube": 4}[self.kind]
        levels = []
        for level in self.levels:
            a = np.asarray(level, dtype=F32)
            if a.ndim == want - 1 and self.kind in ("1d", "2d"):
                a = a[None]  # (w, 4) for a 1D texture
            if a.ndim != want or a.shape[-1] != 4:
                raise ValueError(f"{self.kind} level has shape {a.shape}")
            if self.kind == "cube" and a.shape[0] != 6:
                raise ValueError("a cube level needs 6 faces")
            levels.append(a)
        if not levels:
            raise ValueError("a texture needs at least one level")
        self.levels = levels

    @classmethod
    def from_rgba(cls, kind: str, levels, sampler: SamplerState | None = None) -> "Texture":
        return cls(kind, list(levels), sampler or SamplerState())

    def _volume(self, level: int) -> np.ndarray:
        """The level as (slices, height, width, 4); slices = faces for cubes."""
        a = self.levels[level]
        return a[None] if a.ndim == 3 else a

    def size(self, level: int = 0) -> tuple[int, int, int]:
        """(width, height, depth) of a level (depth 1 for 2D and cube)."""
        v = self._volume(level)
        depth = v.shape[0] if self.kind == "volume" else 1
        return v.shape[2], v.shape[1], depth


UNBOUND = np.array([0.0, 0.0, 0.0, 1.0], dtype=F32)



UNBOUND = (0.0, 0.0, 0.0, 1.0)  # what D3D9 (and GL) read from an unbound sampler


def unbound_texture(kind: str) -> Texture:
    """A 1x1 texture of ``kind`` holding UNBOUND, for a runner to bind where
    a shader's sampler has no texture (a 1D sampler is a 2D texture)."""
    if kind == "cube":
        level = np.broadcast_to(np.asarray(UNBOUND, F32), (6, 1, 1, 4))
    elif kind == "volume":
        level = np.broadcast_to(np.asarray(UNBOUND, F32), (1, 1, 1, 4))
    else:
        level = np.broadcast_to(np.asarray(UNBOUND, F32), (1, 1, 4))
    return Texture(kind if kind != "1d" else "2d", [np.array(level)])

def cube_face(d: np.ndarray):
    """Face index, sc, tc and |major axis| of directions d (n, 3).

    Ties prefer z, then y, then x (a choice; real hardware varies)."""
    x, y, z = d[:, 0], d[:, 1], d[:, 2]
    ax, ay, az = np.abs(x), np.abs(y), np.abs(z)
    use_z = (az >= ax) & (az >= ay)
    use_y = ~use_z & (ay >= ax)
    use_x = ~use_z & ~use_y
    face = np.where(use_x, np.where(x >= 0, 0, 1), np.where(use_y, np.where(y >= 0, 2, 3), np.where(z >= 0, 4, 5)))
    # (sc, tc) per face: +X (-z,-y), -X (z,-y), +Y (x,z), -Y (x,-z), +Z (x,-y), -Z (-x,-y)
    sc_axis = np.array([2, 2, 0, 0, 0, 0])[face]
    sc_sign = np.array([-1, 1, 1, 1, 1, -1], dtype=F32)[face]
    tc_axis = np.array([1, 1, 2, 2, 1, 1])[face]
    tc_sign = np.array([-1, -1, 1, -1, -1, -1], dtype=F32)[face]
    ma_axis = np.array([0, 0, 1, 1, 2, 2])[face]
    return face, sc_axis, sc_sign, tc_axis, tc_sign, ma_axis


def _cube_coords(d: np.ndarray):
    face, sca, scs, tca, tcs, maa = cube_face(d)
    rows = np.arange(len(d))
    ma = np.abs(d[rows, maa])
    safe = np.where(ma == 0, F32(1), ma)
    s = (scs * d[rows, sca] / safe + 1) * F32(0.5)
    t = (tcs * d[rows, tca] / safe + 1) * F32(0.5)
    return face, s.astype(F32), t.astype(F32), (sca, scs, tca, tcs, maa, safe)


def _cube_derivative(d, dd, parts):
    """d(s, t)/dx of the lane's face from the direction derivative dd."""
    sca, scs, tca, tcs, maa, ma = parts
    rows = np.arange(len(d))
    sign_ma = np.sign(d[rows, maa])
    dma = sign_ma * dd[rows, maa]
    sc, tc = scs * d[rows, sca], tcs * d[rows, tca]
    dsc, dtc = scs * dd[rows, sca], tcs * dd[rows, tca]
    ds = F32(0.5) * (dsc * ma - sc * dma) / (ma * ma)
    dt = F32(0.5) * (dtc * ma - tc * dma) / (ma * ma)
    return np.stack([ds, dt], axis=1)


def _address(i: np.ndarray, size: int, mode: str):
    """Integer texel index -> (index in [0, size), valid); invalid = border."""
    if mode == "wrap":
        return np.mod(i, size), np.ones(i.shape, bool)
    if mode == "mirror":
        m = np.mod(i, 2 * size)
        return np.where(m < size, m, 2 * size - 1 - m), np.ones(i.shape, bool)
    if mode == "mirroronce":
        m = np.where(i < 0, -1 - i, i)
        return np.clip(m, 0, size - 1), np.ones(i.shape, bool)
    if mode == "clamp":
        return np.clip(i, 0, size - 1), np.ones(i.shape, bool)
    # border
    valid = (i >= 0) & (i < size)
    return np.clip(i, 0, size - 1), valid


def _axis(u: np.ndarray, size: int, linear: np.ndarray):
    """Two texel indices and the weight of the second along one axis."""
    with np.errstate(invalid="ignore"):
        scaled = u.astype(np.float64) * size
        scaled = np.nan_to_num(scaled, nan=0.0, posinf=1e9, neginf=-1e9)
        scaled = np.clip(scaled, -1e9, 1e9)
        lin = scaled - 0.5
        i_lin = np.floor(lin)
        w_lin = (lin - i_lin).astype(F32)
        i_pt = np.floor(scaled)
    i0 = np.where(linear, i_lin, i_pt).astype(np.int64)
    w1 = np.where(linear, w_lin, F32(0))
    return i0, w1


def srgb_to_linear(c: np.ndarray) -> np.ndarray:
    """The sRGB decode curve (IEC 61966-2-1), float32."""
    c = np.asarray(c, F32)
    with np.errstate(invalid="ignore"):
        high = np.power(np.maximum((c + F32(0.055)) / F32(1.055), F32(0)), F32(2.4))
    return np.where(c <= F32(0.04045), c / F32(12.92), high).astype(F32)


def linear_to_srgb(c: np.ndarray) -> np.ndarray:
    """The sRGB encode curve of a UNORM target: saturate, then encode."""
    c = np.clip(np.nan_to_num(np.asarray(c, F32), nan=0.0), 0, 1).astype(F32)
    high = F32(1.055) * np.power(c, F32(1 / 2.4)) - F32(0.055)
    return np.where(c <= F32(0.0031308), c * F32(12.92), high).astype(F32)


def _texel_value(tex: Texture, texel: np.ndarray, ref) -> np.ndarray:
    """What filtering sees of a fetched texel: the compare result of a depth
    format, the decoded colour of an sRGB sampler, else the texel."""
    if tex.format != "rgba":
        steps = F32(DEPTH_STEPS[tex.format])
        depth = np.round(np.clip(texel[:, 0], 0, 1) * steps) / steps
        passed = (ref <= depth).astype(F32)
        return np.repeat(passed[:, None], 4, axis=1)
    if tex.sampler.srgb:
        return np.concatenate([srgb_to_linear(texel[:, :3]), texel[:, 3:]], axis=1)
    return texel


def _fetch_level(tex: Texture, level: int, coords, layer, linear, border, ref=None):
    """Filter one level.  coords (m, 3) normalised; layer (m,) = cube face or
    None; linear (m,) bool per lane (point otherwise); ref (m,): a depth
    texture's reference values."""
    vol = tex._volume(level)
    slices, height, width = vol.shape[:3]
    s = tex.sampler
    if tex.kind == "cube":
        modes = ("clamp", "clamp", "clamp")
    else:
        modes = (s.address_u, s.address_v, s.address_w)
    ix, wx = _axis(coords[:, 0], width, linear)
    if tex.kind == "1d":
        iy, wy = np.zeros_like(ix), np.zeros_like(wx)
    else:
        iy, wy = _axis(coords[:, 1], height, linear)
    if tex.kind == "volume":
        iz, wz = _axis(coords[:, 2], slices, linear)
    else:
        iz = np.zeros_like(ix) if layer is None else layer.astype(np.int64)
        wz = np.zeros_like(wx)
    plain = tex.format == "rgba" and not tex.sampler.srgb
    out = np.zeros((len(ix), 4), dtype=F32)
    for dz in (0, 1):
        if tex.kind != "volume" and dz:
            continue
        for dy in (0, 1):
            for dx in (0, 1):
                w = (wx if dx else 1 - wx) * (wy if dy else 1 - wy) * (wz if dz else 1 - wz)
                if not np.any(w):
                    continue
                xx, vx = _address(ix + dx, width, modes[0])
                yy, vy = _address(iy + dy, height, modes[1]) if tex.kind != "1d" else (iy, np.ones_like(vx))
                if tex.kind == "volume":
                    zz, vz = _address(iz + dz, slices, modes[2])
                else:
                    zz, vz = iz, np.ones_like(vx)
                texel = vol[zz, yy, xx]
                valid = vx & vy & vz
                texel = np.where(valid[:, None], texel, border)
                if not plain:
                    texel = _texel_value(tex, texel, ref)
                out += w[:, None].astype(F32) * texel
    return out


def compute_lod(tex: Texture, coords: np.ndarray, ddx: np.ndarray, ddy: np.ndarray) -> np.ndarray:
    """Isotropic LOD (log2 of the larger texel-space derivative length)."""
    width, height, depth = tex.size(0)
    if tex.kind == "cube":
        _, _, _, parts = _cube_coords(coords)
        gx = _cube_derivative(coords, ddx, parts) * F32(width)
        gy = _cube_derivative(coords, ddy, parts) * F32(width)
    else:
        dims = {"1d": 1, "2d": 2, "volume": 3}[tex.kind]
        scale = np.array([width, height, depth][:dims], dtype=F32)
        gx = ddx[:, :dims] * scale
        gy = ddy[:, :dims] * scale
    rho = np.maximum(np.sqrt(np.sum(gx * gx, axis=1)), np.sqrt(np.sum(gy * gy, axis=1)))
    with np.errstate(divide="ignore", invalid="ignore"):
        lod = np.log2(rho.astype(F32))
    return np.nan_to_num(lod, nan=0.0, neginf=-1000.0, posinf=1000.0).astype(F32)


def sample(
    tex: Texture | None,
    coords: np.ndarray,
    *,
    lod: np.ndarray | None = None,
    bias: np.ndarray | None = None,
    ddx: np.ndarray | None = None,
    ddy: np.ndarray | None = None,
    ref: np.ndarray | None = None,
) -> np.ndarray:
    """Sample ``tex`` at ``coords`` (n, 3+).  LOD: ``lod`` if given
    (explicit), else from ``ddx``/``ddy`` if given, else 0; ``bias`` is added.
    ``ref``: a depth texture's reference values (n,).  Returns (n, 4) float32."""
    coords = np.asarray(coords, dtype=F32)[:, :3]
    n = len(coords)
    if tex is None:
        return np.tile(UNBOUND, (n, 1))
    s = tex.sampler
    if tex.format != "rgba":
        if ref is None:
            raise ValueError("a depth texture is sampled with a reference value")
        ref = np.clip(np.nan_to_num(np.asarray(ref, F32), nan=0.0), 0, 1).astype(F32)
    if s.fetch4:
        return _fetch4(tex, coords)
    if lod is not None:
        lam = np.asarray(lod, dtype=F32).copy()
    elif ddx is not None and ddy is not None:
        lam = compute_lod(tex, coords, np.asarray(ddx, F32)[:, :3], np.asarray(ddy, F32)[:, :3])
    else:
        lam = np.zeros(n, F32)
    if bias is not None:
        lam = lam + np.asarray(bias, F32)
    lam = np.nan_to_num(lam + F32(s.mip_lod_bias), nan=0.0)

    if tex.kind == "cube":
        face, su, tv, _ = _cube_coords(coords)
        uvw = np.stack([su, tv, np.zeros(n, F32)], axis=1)
        layer = face
    else:
        uvw, layer = coords, None

    nlevels = len(tex.levels)
    base = min(max(s.max_mip_level, 0), nlevels - 1)
    magnify = lam <= 0
    lin_filter = lambda name: name in ("linear", "anisotropic")  # noqa: E731
    linear = np.where(magnify, lin_filter(s.mag_filter), lin_filter(s.min_filter))
    # Level choice per lane: (first level, second level, weight of second).
    if s.mip_filter == "none":
        l0 = np.full(n, base)
        frac = np.zeros(n, F32)
    elif s.mip_filter == "point":
        l0 = np.floor(np.maximum(lam, 0) + F32(0.5)).astype(np.int64) + base
        frac = np.zeros(n, F32)
    else:
        lp = np.maximum(lam, 0)
        fl = np.floor(lp)
        l0 = fl.astype(np.int64) + base
        frac = (lp - fl).astype(F32)
    l0 = np.where(magnify, base, np.clip(l0, base, nlevels - 1))
    frac = np.where(magnify | (l0 >= nlevels - 1), F32(0), frac)
    l1 = np.minimum(l0 + 1, nlevels - 1)
    border = np.asarray(s.border_color, dtype=F32)

    out = np.zeros((n, 4), dtype=F32)
    for level in np.unique(np.concatenate([l0, l1[frac > 0]])):
        for which, lv, weight in ((0, l0, 1 - frac), (1, l1, frac)):
            sel = lv == level
            if which == 1:
                sel &= frac > 0
            if not sel.any():
                continue
            texels = _fetch_level(tex, int(level), uvw[sel], None if layer is None else layer[sel], linear[sel], border,
                                  None if ref is None else ref[sel])
            out[sel] += weight[sel, None] * texels
    return out


def _fetch4(tex: Texture, coords: np.ndarray) -> np.ndarray:
    """ATI FETCH4: the reds of the 2x2 footprint whose top-left texel a point
    sample at ``coords`` reads, as (top-right, bottom-left, bottom-right,
    top-left) -- the gather order DXSO swizzles to (semantics §2.10)."""
    if tex.kind != "2d" or tex.format != "rgba":
        raise ValueError("FETCH4 reads 2D colour textures")
    s = tex.sampler
    vol = tex._volume(min(max(s.max_mip_level, 0), len(tex.levels) - 1))
    height, width = vol.shape[1:3]
    point = np.zeros(len(coords), bool)
    ix, _ = _axis(coords[:, 0], width, point)
    iy, _ = _axis(coords[:, 1], height, point)
    border = np.asarray(s.border_color, dtype=F32)

    def red(dx: int, dy: int) -> np.ndarray:
        xx, vx = _address(ix + dx, width, s.address_u)
        yy, vy = _address(iy + dy, height, s.address_v)
        texel = np.where((vx & vy)[:, None], vol[0, yy, xx], border)
        return _texel_value(tex, texel, None)[:, 0]

    return np.stack([red(1, 0), red(0, 1), red(1, 1), red(0, 0)], axis=1).astype(F32)
