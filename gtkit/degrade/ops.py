"""Pure image functions of the degrade pipeline.

Every function takes an image (uint8, H x W gray or H x W x 3 BGR) and plain numbers, and returns a new
image of the same height and width. None of them draws from a sampling distribution: the few that need a
pixel field (noise, speckles, dust) take a `noise_seed` that the stage recorded, and build their own
`numpy.random.Generator` from it, so a replay gives the same pixels without drawing anything new.

Only `warp` moves pixels, by one homography; every other function is photometric: it changes the value
of a pixel from that pixel (and, for blur, resampling and bleed-through, a small neighbourhood or a
separate ghost image), never where ink sits.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np

from gtkit.geometry import pixel_homography

# --- geometry -----------------------------------------------------------------------------------------------------


def warp(img: np.ndarray, h_norm: np.ndarray, background: int = 255, *, nearest: bool = False) -> np.ndarray:
    """Warp the page image by the normalized homography H (the same H that moves the boxes).

    Destination pixel p' takes the source value at H_px^-1 p' (bilinear), with
    H_px = A H A^-1 and A the pixel-index matrix of `gtkit.geometry.pixel_homography`; uncovered pixels
    take `background`.
    """
    hgt, wid = img.shape[:2]
    hp = pixel_homography(h_norm, wid, hgt)
    inv = np.linalg.inv(hp)
    flags = (cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR) | cv2.WARP_INVERSE_MAP
    border = (background,) * (img.shape[2] if img.ndim == 3 else 1)
    return cv2.warpPerspective(img, inv, (wid, hgt), flags=flags, borderMode=cv2.BORDER_CONSTANT, borderValue=border)


# --- helpers ------------------------------------------------------------------------------------------------------


def _u8(a: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(a), 0, 255).astype(np.uint8)


def _gain(img: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """img * gain / 255 with `gain` a uint8 map of the image's height and width (per channel if color),
    or img * gain with a float map in [0, 1]."""
    g = gain if gain.dtype == np.uint8 else _u8(gain * 255.0)
    if img.ndim == 3:
        g = cv2.merge([g, g, g])
    return cv2.multiply(img, g, scale=1.0 / 255.0)


def _coarse(shape: tuple[int, int], fn: Callable[[np.ndarray, np.ndarray], np.ndarray], step: int = 8) -> np.ndarray:
    """A smooth gain field fn(x, y) in [0, 1] (normalized coordinates of pixel centres), evaluated on a coarse
    grid, quantized to uint8 (0..255) and resized up bilinearly to the image size."""
    hgt, wid = shape
    ch, cw = max(2, math.ceil(hgt / step)), max(2, math.ceil(wid / step))
    ys = (np.arange(ch, dtype=np.float64) + 0.5) / ch
    xs = (np.arange(cw, dtype=np.float64) + 0.5) / cw
    field = _u8(np.clip(fn(xs[None, :], ys[:, None]), 0.0, 1.0) * 255.0)
    return cv2.resize(field, (wid, hgt), interpolation=cv2.INTER_LINEAR)


def _noise_rng(noise_seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(int(noise_seed)))


def _normal_quantiles() -> np.ndarray:
    """Standard normal quantiles at (i + 1/2) / 256: one uniform byte becomes one (truncated) Gaussian draw."""
    from statistics import NormalDist

    nd = NormalDist()
    return np.array([nd.inv_cdf((i + 0.5) / 256.0) for i in range(256)])


_NORMAL_Q = _normal_quantiles()


# --- tone and color -----------------------------------------------------------------------------------------------


def tone_curve(img: np.ndarray, gamma: float, black: float, white: float, out_black: float,
               out_white: float) -> np.ndarray:
    """Levels and gamma by lookup table:
    v' = out_black + (out_white - out_black) * clip((v - black) / (white - black))^gamma."""
    x = np.arange(256, dtype=np.float64)
    t = np.clip((x - black) / max(white - black, 1e-6), 0.0, 1.0) ** gamma
    lut = _u8(out_black + (out_white - out_black) * t)
    return cv2.LUT(img, lut)


def tint(img: np.ndarray, paper_rgb: tuple[int, int, int], ink_rgb: tuple[int, int, int], amount: float) -> np.ndarray:
    """Gray to color: value v maps to mix(ink, paper, v / 255) per channel, blended with neutral gray by `amount`."""
    gray = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    x = np.arange(256, dtype=np.float64) / 255.0
    luts = []
    for c in (2, 1, 0):  # BGR order from RGB parameters
        colored = ink_rgb[c] + (paper_rgb[c] - ink_rgb[c]) * x
        luts.append(_u8((1 - amount) * x * 255.0 + amount * colored))
    lut = np.stack(luts, axis=1).reshape(1, 256, 3)
    return cv2.LUT(cv2.merge([gray, gray, gray]), lut)


# --- blur and resolution ------------------------------------------------------------------------------------------


def blur(img: np.ndarray, sigma_px: float) -> np.ndarray:
    """Gaussian blur with standard deviation sigma_px (a symmetric kernel: strokes soften, they do not move)."""
    if sigma_px <= 0:
        return img.copy()
    return cv2.GaussianBlur(img, (0, 0), sigmaX=sigma_px, sigmaY=sigma_px, borderType=cv2.BORDER_REPLICATE)


def resample(img: np.ndarray, factor_x: float, factor_y: float, up: str = "linear") -> np.ndarray:
    """Down-sample by (factor_x, factor_y) with area averaging, then back up to the original size.

    Both resizes map pixel centres by x' = (x + 1/2) f - 1/2, so the round trip keeps every point in place.
    """
    hgt, wid = img.shape[:2]
    w2, h2 = max(1, round(wid * factor_x)), max(1, round(hgt * factor_y))
    if (w2, h2) == (wid, hgt):
        return img.copy()
    small = cv2.resize(img, (w2, h2), interpolation=cv2.INTER_AREA)
    interp = {"linear": cv2.INTER_LINEAR, "nearest": cv2.INTER_NEAREST_EXACT, "cubic": cv2.INTER_CUBIC}[up]
    return cv2.resize(small, (wid, hgt), interpolation=interp)


def jpeg_roundtrip(img: np.ndarray, quality: int) -> np.ndarray:
    """Encode as baseline JPEG at `quality` and decode again (block artefacts, fixed libjpeg settings)."""
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality), cv2.IMWRITE_JPEG_OPTIMIZE, 0])
    if not ok:  # pragma: no cover - OpenCV always encodes uint8 images
        raise RuntimeError("JPEG encoding failed")
    out = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    if out is None:  # pragma: no cover - OpenCV decodes what it has just encoded
        raise RuntimeError("JPEG decoding failed")
    return out


# --- binarization -------------------------------------------------------------------------------------------------

_BAYER8 = np.array(
    [[0, 32, 8, 40, 2, 34, 10, 42], [48, 16, 56, 24, 50, 18, 58, 26], [12, 44, 4, 36, 14, 46, 6, 38],
     [60, 28, 52, 20, 62, 30, 54, 22], [3, 35, 11, 43, 1, 33, 9, 41], [51, 19, 59, 27, 49, 17, 57, 25],
     [15, 47, 7, 39, 13, 45, 5, 37], [63, 31, 55, 23, 61, 29, 53, 21]], dtype=np.float64)


def _gray(img: np.ndarray) -> np.ndarray:
    return img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)


def threshold(img: np.ndarray, method: str, level: float = 128.0, offset: float = 0.0) -> np.ndarray:
    """To 1 bit (values 0 or 255): Otsu's threshold plus `offset`, a fixed `level`, or an 8x8 Bayer ordered dither.

    otsu/fixed: v' = 255 if v > t else 0. bayer: v' = 255 if v > 255 (B[y mod 8, x mod 8] + 1/2) / 64 else 0.
    """
    g = _gray(img)
    if method == "bayer":
        hgt, wid = g.shape
        tile = _u8((_BAYER8 + 0.5) * 255.0 / 64.0)
        thr = np.tile(tile, (hgt // 8 + 1, wid // 8 + 1))[:hgt, :wid]
        return np.where(g > thr, np.uint8(255), np.uint8(0))
    if method == "otsu":
        t, _ = cv2.threshold(g, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        t = t + offset
    else:
        t = level
    _, out = cv2.threshold(g, float(np.clip(t, 0, 254)), 255, cv2.THRESH_BINARY)
    return out


# --- noise --------------------------------------------------------------------------------------------------------


def gaussian_noise(img: np.ndarray, sigma: float, noise_seed: int) -> np.ndarray:
    """Add i.i.d. Gaussian noise of standard deviation `sigma` (gray levels) per pixel, clipped to [0, 255].

    One uniform byte per pixel from PCG64(noise_seed) becomes a normal quantile Phi^-1((b + 1/2) / 256)
    (a Gaussian truncated at about 2.9 sigma), which is ten times faster than drawing float normals.
    """
    if sigma <= 0:
        return img.copy()
    rng = _noise_rng(noise_seed)
    b = np.frombuffer(rng.bytes(img.shape[0] * img.shape[1]), dtype=np.uint8).reshape(img.shape[:2])
    q = np.clip(np.rint(_NORMAL_Q * sigma), -255, 255)
    pos = cv2.LUT(b, np.clip(q, 0, 255).astype(np.uint8))
    neg = cv2.LUT(b, np.clip(-q, 0, 255).astype(np.uint8))
    if img.ndim == 3:
        pos, neg = cv2.merge([pos, pos, pos]), cv2.merge([neg, neg, neg])
    return cv2.subtract(cv2.add(img, pos), neg)  # saturating: clip(v + n, 0, 255)


def paper_grain(img: np.ndarray, strength: float, grain_px: float, noise_seed: int) -> np.ndarray:
    """Low-frequency paper texture: a noise field on a grid of cell `grain_px`, smoothly resized, times the image.

    v' = v * (1 - strength * n(x, y)), n in [0, 1] from uniform cell values interpolated bilinearly.
    """
    if strength <= 0:
        return img.copy()
    hgt, wid = img.shape[:2]
    cell = max(grain_px, 1.0)
    ch, cw = max(2, math.ceil(hgt / cell)), max(2, math.ceil(wid / cell))
    rng = _noise_rng(noise_seed)
    field = _u8((1.0 - strength * rng.random((ch, cw))) * 255.0)
    return _gain(img, cv2.resize(field, (wid, hgt), interpolation=cv2.INTER_LINEAR))


def _spots(shape: tuple[int, int], count: int, radius_px: tuple[float, float], rng: np.random.Generator) -> np.ndarray:
    """A mask with `count` filled discs of random radius at random positions."""
    hgt, wid = shape
    mask = np.zeros(shape, dtype=np.uint8)
    if count <= 0:
        return mask
    xs = rng.integers(0, wid, count)
    ys = rng.integers(0, hgt, count)
    rs = rng.uniform(radius_px[0], radius_px[1], count)
    small = rs < 0.75
    mask[ys[small], xs[small]] = 255
    for x, y, r in zip(xs[~small], ys[~small], rs[~small], strict=True):
        cv2.circle(mask, (int(x), int(y)), max(1, round(float(r))), 255, -1, lineType=cv2.LINE_8)
    return mask


def speckle(
    img: np.ndarray, dark_count: int, light_count: int, radius_px: tuple[float, float], noise_seed: int,
    dark_level: int = 30, light_level: int = 255,
) -> np.ndarray:
    """Salt-and-pepper specks: `dark_count` dark and `light_count` light discs of radius in `radius_px`."""
    rng = _noise_rng(noise_seed)
    out = img.copy()
    dark = _spots(img.shape[:2], dark_count, radius_px, rng)
    light = _spots(img.shape[:2], light_count, radius_px, rng)
    out[dark > 0] = dark_level
    out[light > 0] = light_level
    return out


def dust(
    img: np.ndarray, particles: int, radius_px: tuple[float, float], hairs: int, hair_len_px: float,
    darkness: float, noise_seed: int,
) -> np.ndarray:
    """Dust on the glass: soft dark particles and thin curved hairs, darkening v' = v * (1 - darkness * m)."""
    rng = _noise_rng(noise_seed)
    hgt, wid = img.shape[:2]
    mask = _spots((hgt, wid), particles, radius_px, rng)
    for _ in range(hairs):
        x, y = rng.uniform(0, wid), rng.uniform(0, hgt)
        ang = rng.uniform(0, 2 * math.pi)
        pts = []
        steps = 12
        for _s in range(steps + 1):
            pts.append((x, y))
            ang += rng.normal(0, 0.35)
            x += math.cos(ang) * hair_len_px / steps
            y += math.sin(ang) * hair_len_px / steps
        thick = max(1, round(float(radius_px[0])))
        cv2.polylines(mask, [np.rint(np.array(pts)).astype(np.int32)], False, 255, thick, lineType=cv2.LINE_AA)
    soft = cv2.GaussianBlur(mask, (0, 0), 0.7) if (particles or hairs) else mask
    lut = _u8(255.0 * (1.0 - darkness * np.arange(256) / 255.0))
    return _gain(img, cv2.LUT(soft, lut))


def streaks(img: np.ndarray, bands: list[dict[str, float]]) -> np.ndarray:
    """Toner streaks: vertical bands [x0, x0 + width) (fractions of the width) that darken (strength > 0,
    v' = v (1 - strength)) or lighten (strength < 0, v' = v + (255 - v) |strength|) whole columns."""
    out = img.copy()
    wid = img.shape[1]
    for band in bands:
        a = round(float(band["x"] * wid))
        b = max(a + 1, round(float((band["x"] + band["width"]) * wid)))
        s = float(band["strength"])
        x = np.arange(256, dtype=np.float64)
        lut = _u8(x * (1 - s)) if s >= 0 else _u8(x + (255 - x) * (-s))
        out[:, a:b] = cv2.LUT(np.ascontiguousarray(out[:, a:b]), lut)
    return out


# --- light --------------------------------------------------------------------------------------------------------


def vignette(img: np.ndarray, strength: float, falloff: float = 2.0) -> np.ndarray:
    """Darker corners: v' = v * (1 - strength * (r / r_max)^falloff), r the distance to the centre."""
    if strength <= 0:
        return img.copy()

    def fn(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        r = np.sqrt((x - 0.5) ** 2 + (y - 0.5) ** 2) / math.sqrt(0.5)
        return 1.0 - strength * r**falloff

    return _gain(img, _coarse(img.shape[:2], fn))


def illumination(img: np.ndarray, angle_deg: float, strength: float) -> np.ndarray:
    """Uneven light: a linear ramp across the page along direction `angle_deg`,
    v' = v * (1 - strength * t), t in [0, 1] the projection of the pixel on that direction."""
    if strength <= 0:
        return img.copy()
    a = math.radians(angle_deg)
    dx, dy = math.cos(a), math.sin(a)
    lo = min(0.0, dx) + min(0.0, dy)
    hi = max(0.0, dx) + max(0.0, dy)

    def fn(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        t = (x * dx + y * dy - lo) / max(hi - lo, 1e-9)
        return 1.0 - strength * t

    return _gain(img, _coarse(img.shape[:2], fn))


def shadow(img: np.ndarray, side: str, width: float, depth: float, softness: float) -> np.ndarray:
    """Shadowed copying (a lid not closed, a bound spine): a dark band along one edge.

    With d the distance from that edge as a fraction of the page, v' = v * (1 - depth * s(d)),
    s(d) = 1 for d <= width * (1 - softness), falling as a smoothstep to 0 at d = width.
    """
    hgt, wid = img.shape[:2]
    n = wid if side in ("left", "right") else hgt
    d = (np.arange(n, dtype=np.float64) + 0.5) / n
    if side in ("right", "bottom"):
        d = 1.0 - d
    start = width * (1.0 - softness)
    t = np.clip((width - d) / max(width - start, 1e-9), 0.0, 1.0)
    s = t * t * (3 - 2 * t)
    g = _u8((1.0 - depth * s) * 255.0)
    if side in ("left", "right"):
        gain = np.ascontiguousarray(np.broadcast_to(g[None, :], (hgt, wid)))
    else:
        gain = np.ascontiguousarray(np.broadcast_to(g[:, None], (hgt, wid)))
    if img.ndim == 3:
        gain = cv2.merge([gain, gain, gain])
    return cv2.multiply(img, gain, scale=1.0 / 255.0)


def bleed_through(img: np.ndarray, alpha: float, blur_px: float, offset_x: float, offset_y: float) -> np.ndarray:
    """Ink from the back of the sheet showing through: the page mirrored left-right, shifted by
    (offset_x, offset_y) pixels, blurred, and darkening v' = v * (1 - alpha * (255 - ghost) / 255).

    The ghost is blurred anyway, so it is built at half resolution and resized up.
    """
    g = _gray(img)
    hgt, wid = g.shape
    f = 0.5
    small = cv2.resize(g, (max(1, round(wid * f)), max(1, round(hgt * f))), interpolation=cv2.INTER_AREA)
    ghost = cv2.flip(small, 1)
    if offset_x or offset_y:
        m = np.array([[1.0, 0.0, offset_x * f], [0.0, 1.0, offset_y * f]])
        ghost = cv2.warpAffine(ghost, m, (ghost.shape[1], ghost.shape[0]), borderMode=cv2.BORDER_CONSTANT,
                               borderValue=255)
    if blur_px > 0:
        ghost = cv2.GaussianBlur(ghost, (0, 0), max(blur_px * f, 0.3))
    lut = _u8(255.0 * (1.0 - alpha * (255.0 - np.arange(256)) / 255.0))
    gain = cv2.resize(cv2.LUT(ghost, lut), (wid, hgt), interpolation=cv2.INTER_LINEAR)
    return _gain(img, gain)


# --- encoding -----------------------------------------------------------------------------------------------------


def is_bilevel(img: np.ndarray) -> bool:
    """True when a gray image holds only the values 0 and 255."""
    if img.ndim != 2:
        return False
    hist = cv2.calcHist([img], [0], None, [256], [0, 256]).ravel()
    return float(hist[1:255].sum()) == 0.0


def encode(img: np.ndarray, fmt: str, quality: int = 90) -> tuple[str, bytes]:
    """Deterministic encoding: ('png', bytes) with default zlib settings (1 bit per pixel for a bilevel gray
    image), or ('jpeg', bytes) baseline, non-optimized, at `quality`."""
    if fmt == "jpeg":
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality), cv2.IMWRITE_JPEG_OPTIMIZE, 0])
        kind = "jpeg"
    else:
        params = [cv2.IMWRITE_PNG_BILEVEL, 1] if is_bilevel(img) else []
        ok, buf = cv2.imencode(".png", img, params)
        kind = "png"
    if not ok:  # pragma: no cover
        raise RuntimeError(f"{fmt} encoding failed")
    return kind, buf.tobytes()
