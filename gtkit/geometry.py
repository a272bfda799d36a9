"""Boxes and homographies: pure functions on normalized coordinates.

A box is (x0, y0, x1, y1) normalized to its page, origin top-left; a quad is the
four corners (top-left, top-right, bottom-right, bottom-left).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

BoxT = Sequence[float]


def iou(a: BoxT, b: BoxT) -> float:
    """Intersection over union: |a ∩ b| / (|a| + |b| - |a ∩ b|); 0 when either box is empty."""
    ix = min(a[2], b[2]) - max(a[0], b[0])
    iy = min(a[3], b[3]) - max(a[1], b[1])
    inter = max(ix, 0.0) * max(iy, 0.0)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def box_corners(box: BoxT) -> np.ndarray:
    """The four corners of a box as a (4, 2) array: tl, tr, br, bl."""
    x0, y0, x1, y1 = box
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)


def apply_homography(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map (n, 2) points by the 3x3 homography H: [x', y', w]^T = H [x, y, 1]^T, result (x'/w, y'/w)."""
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    homog = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(h, dtype=float).T
    return homog[:, :2] / homog[:, 2:3]


def homography_from_points(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The 3x3 homography H (H[2, 2] = 1) with H · src_k = dst_k for four point pairs, solved in float64.

    For each pair (x, y) -> (u, v): u = (h0 x + h1 y + h2) / (h6 x + h7 y + 1) and
    v = (h3 x + h4 y + h5) / (h6 x + h7 y + 1); the eight linear equations in h0..h7 are solved exactly.
    """
    src = np.asarray(src, dtype=float).reshape(4, 2)
    dst = np.asarray(dst, dtype=float).reshape(4, 2)
    a = np.zeros((8, 8))
    b = np.zeros(8)
    for k, ((x, y), (u, v)) in enumerate(zip(src, dst, strict=True)):
        a[2 * k] = [x, y, 1, 0, 0, 0, -u * x, -u * y]
        a[2 * k + 1] = [0, 0, 0, x, y, 1, -v * x, -v * y]
        b[2 * k], b[2 * k + 1] = u, v
    h = np.linalg.solve(a, b)
    return np.append(h, 1.0).reshape(3, 3)


def page_homography(
    width: float,
    height: float,
    rotation_deg: float = 0.0,
    corner_shift: Sequence[Sequence[float]] | None = None,
    scale: float = 1.0,
) -> np.ndarray:
    """The normalized-page homography of a re-capture: rotation and scale about the centre, then corner shifts.

    Works on normalized coordinates u in [0, 1]^2 (origin top-left, y down). With the page size
    D = diag(width, height) and centre c = (width/2, height/2), each page corner q_k (tl, tr, br, bl of
    the unit square) goes to
        q'_k = D^-1 (s R(theta) (D q_k - c) + c) + (dx_k, dy_k),
    R(theta) = [[cos, -sin], [sin, cos]] (positive theta turns the page clockwise as displayed, since y
    points down), s = `scale`, and (dx_k, dy_k) = `corner_shift[k]` as fractions of the page width and
    height. H is the unique homography with H q_k = q'_k (`homography_from_points`); the rotation is
    done in physical units so the angle is a true angle on a non-square page.
    """
    d = np.array([float(width), float(height)])
    c = d / 2.0
    t = np.deg2rad(float(rotation_deg))
    r = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    src = box_corners((0.0, 0.0, 1.0, 1.0))
    dst = ((float(scale) * (src * d - c) @ r.T) + c) / d
    if corner_shift is not None:
        dst = dst + np.asarray(corner_shift, dtype=float).reshape(4, 2)
    return homography_from_points(src, dst)


def pixel_homography(h_norm: np.ndarray, width_px: int, height_px: int) -> np.ndarray:
    """The homography of pixel indices (OpenCV convention: pixel (i, j) has its centre at index (i, j)).

    A pixel index p relates to normalized coordinates u by p = A u with
    A = [[W, 0, -1/2], [0, H, -1/2], [0, 0, 1]] (pixel i covers [i, i+1) / W, its centre is (i + 1/2) / W);
    so H_px = A · H_norm · A^-1, for an image of W x H pixels covering the whole page.
    """
    a = np.array([[float(width_px), 0.0, -0.5], [0.0, float(height_px), -0.5], [0.0, 0.0, 1.0]])
    return a @ np.asarray(h_norm, dtype=float) @ np.linalg.inv(a)


def clamp_box(box: BoxT) -> tuple[float, float, float, float]:
    """A box with every coordinate clamped to [0, 1]: (min(max(v, 0), 1) for v in box)."""
    x0, y0, x1, y1 = (min(max(float(v), 0.0), 1.0) for v in box)
    return (x0, y0, x1, y1)


def transform_boxes(h: np.ndarray, boxes: Sequence[BoxT]) -> tuple[np.ndarray, np.ndarray]:
    """Quads and axis-aligned boxes of many boxes under H, vectorized.

    For box b with corners c_k (tl, tr, br, bl): quad_k = H · c_k with projective division
    ([x', y', w]^T = H [x, y, 1]^T, point (x'/w, y'/w)); box' = (min x, min y, max x, max y) over the
    quad's corners, clamped to [0, 1]. Returns (n, 4, 2) quads (not clamped) and (n, 4) boxes.
    """
    arr = np.asarray(boxes, dtype=float).reshape(-1, 4)
    if len(arr) == 0:
        return np.zeros((0, 4, 2)), np.zeros((0, 4))
    corners = arr[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 2)
    quads = apply_homography(h, corners).reshape(-1, 4, 2)
    out = np.concatenate([quads.min(axis=1), quads.max(axis=1)], axis=1)
    return quads, np.clip(out, 0.0, 1.0)


def transform_quad(h: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A quad under H and the axis-aligned box around the result, clamped to [0, 1].

    quad'_k = H · quad_k (projective division included); box' = clamp((min x, min y, max x, max y)).
    Composes exactly: transforming a quad that is already H1 · corners by H2 gives (H2 H1) · corners.
    """
    q = apply_homography(h, np.asarray(quad, dtype=float).reshape(4, 2))
    return q, clamp_box((q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()))
