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


def union_box(boxes: Sequence[BoxT]) -> tuple[float, float, float, float]:
    """The smallest box holding every box: (min x0, min y0, max x1, max y1)."""
    arr = np.asarray(boxes, dtype=float)
    return (float(arr[:, 0].min()), float(arr[:, 1].min()), float(arr[:, 2].max()), float(arr[:, 3].max()))


def normalize_box(box: BoxT, width: float, height: float, ndigits: int = 6) -> tuple[float, float, float, float]:
    """A box in page units (top-left origin) divided by the page size, clamped to [0, 1] and rounded."""
    x0, y0, x1, y1 = box
    vals = (x0 / width, y0 / height, x1 / width, y1 / height)
    return tuple(round(min(max(v, 0.0), 1.0), ndigits) for v in vals)  # type: ignore[return-value]


def box_corners(box: BoxT) -> np.ndarray:
    """The four corners of a box as a (4, 2) array: tl, tr, br, bl."""
    x0, y0, x1, y1 = box
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)


def apply_homography(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map (n, 2) points by the 3x3 homography H: [x', y', w]^T = H [x, y, 1]^T, result (x'/w, y'/w)."""
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    homog = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(h, dtype=float).T
    return homog[:, :2] / homog[:, 2:3]


def transform_box(h: np.ndarray, box: BoxT) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A box's quad under H (H applied to its four corners) and the axis-aligned box around that quad.

    quad_k = H · corner_k (projective division included); box' = (min x, min y, max x, max y) of the quad.
    Because a homography maps straight edges to straight edges, the quad is exactly the image of the
    box's outline, and box' is the tightest axis-aligned box containing the transformed box.
    """
    quad = apply_homography(h, box_corners(box))
    return quad, (float(quad[:, 0].min()), float(quad[:, 1].min()), float(quad[:, 0].max()), float(quad[:, 1].max()))
