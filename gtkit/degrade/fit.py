"""Keep every value on the page: a page's geometry is drawn until every evidence box stays inside it.

A recipe's ranges allow strong geometry (15 degrees, scale 1.2, corner shifts of 8%); some draws push a
value's box partly off the page, where the degraded page no longer shows it. Rather than clamp or drop
such boxes (the value would stay expected from a region the page does not show), the page's geometry is
drawn again from its own generator, `generator(seed, doc, page, "geometry", attempt)`, until the
homography keeps every box's four corners inside [0, 1]. The first draw is attempt 0 (the generator of
a run without redraws); the attempt that fitted is recorded in the plan when it is not 0, so a replay
needs nothing but the record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gtkit.errors import GtkitError
from gtkit.geometry import apply_homography, page_homography

MAX_ATTEMPTS = 64
EDGE_TOL = 1e-9


def corners_of(boxes: np.ndarray) -> np.ndarray:
    """(4n, 2) corner points of (n, 4) boxes (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = boxes.T
    return np.stack([np.c_[x0, y0], np.c_[x1, y0], np.c_[x1, y1], np.c_[x0, y1]], axis=1).reshape(-1, 2)


def keeps_inside(h: np.ndarray, corners: np.ndarray) -> bool:
    """Whether the homography maps every point into the unit square (the page as it will be shown)."""
    if len(corners) == 0:
        return True
    moved = apply_homography(h, corners)
    return bool(np.isfinite(moved).all() and (moved >= -EDGE_TOL).all() and (moved <= 1 + EDGE_TOL).all())


def fitting_geometry(draw: Callable[[int], dict[str, Any]], size_pt: tuple[float, float], boxes: np.ndarray,
                     where: str) -> dict[str, Any]:
    """The first drawn geometry (attempt 0, 1, ...) whose homography keeps every box on the page, with its
    homography; `draw(attempt)` samples one geometry from that attempt's generator."""
    corners = corners_of(np.asarray(boxes, dtype=float).reshape(-1, 4))
    for attempt in range(MAX_ATTEMPTS):
        g = draw(attempt)
        h = page_homography(size_pt[0], size_pt[1], g["rotation_deg"], g["corner_shift"], g["scale"])
        if keeps_inside(h, corners):
            g["homography"] = [[float(v) for v in row] for row in h]
            if attempt:
                g["attempt"] = attempt
            return g
    raise GtkitError(f"{where}: in {MAX_ATTEMPTS} draws the recipe's geometry always moved a value's box off the "
                     "page; narrow its rotation, scale or corner_shift")
