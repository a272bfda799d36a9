"""Mechanical checks of a degraded bundle, run by `gtkit.check` for provenance pipeline 'degrade'."""

from __future__ import annotations

from itertools import chain

import numpy as np

from gtkit.check import Problem
from gtkit.degrade.fit import EDGE_TOL
from gtkit.format import GT_NAME, PDF_NAME, Bundle

TOLERANCE = 1e-9


def check_degraded(bundle: Bundle) -> list[Problem]:
    """A recorded homography per page; every box the clamped axis-aligned box of its quad, every quad on the page
    (`keeps_inside` of `gtkit.degrade.fit`, applied to all quads at once); P1 tagged; a parent recorded; and a PDF
    without a text layer."""
    import pymupdf

    gt = bundle.gt
    g = str(bundle.path / GT_NAME)
    problems: list[Problem] = []
    prov = gt.provenance
    if prov.parent is None:
        problems.append(Problem(g, "/provenance/parent", "a degraded bundle records its parent"))
    if "P1" not in gt.tags.perception:
        problems.append(Problem(g, "/tags/perception", "a degraded bundle carries the perception tag P1"))
    pages = (prov.parameters or {}).get("pages")
    if not isinstance(pages, list) or len(pages) != gt.document.pages:
        problems.append(Problem(g, "/provenance/parameters/pages", "needs one recorded plan per page"))
    else:
        for i, page in enumerate(pages):
            try:
                h = np.asarray(page["geometry"]["homography"], dtype=float)
                ok = h.shape == (3, 3) and np.isfinite(h).all()
            except (KeyError, TypeError, ValueError):
                ok = False
            if not ok:
                problems.append(Problem(g, f"/provenance/parameters/pages/{i}/geometry/homography", "not a 3x3 matrix"))
    problems.extend(_box_problems(bundle, g))
    with pymupdf.open(bundle.path / PDF_NAME) as doc:
        for page in doc:
            if page.get_text("words"):
                problems.append(Problem(str(bundle.path / PDF_NAME), "", f"page {page.number + 1} has a text layer"))
                break
    return problems


def _box_problems(bundle: Bundle, g: str) -> list[Problem]:
    """Every box with its quad, every quad on the page, every box the clamped axis-aligned box of its quad:
    the evidence gathered in one pass, then checked as arrays, problems in evidence order."""
    where: list[tuple[int, int, int]] = []  # (entry, reading, evidence) of each evidence with a quad
    quads: list[object] = []
    boxes: list[object] = []
    no_quad: list[tuple[int, int, int]] = []
    nan_box = (np.nan,) * 4
    for i, f in enumerate(bundle.field_entries()):
        for r, reading in enumerate(f.readings):
            for e, ev in enumerate(reading.evidence):
                if ev.quad is not None:
                    where.append((i, r, e))
                    quads.append(ev.quad)
                    boxes.append(nan_box if ev.box is None else ev.box)
                elif ev.box is not None:
                    no_quad.append((i, r, e))
    found: list[tuple[tuple[int, int, int], int, str, str]] = [(at, 0, "/quad", "a degraded box needs its quad")
                                                              for at in no_quad]
    if quads:
        q = np.fromiter(chain.from_iterable(chain.from_iterable(quads)), float, 8 * len(quads)).reshape(-1, 4, 2)
        b = np.fromiter(chain.from_iterable(boxes), float, 4 * len(boxes)).reshape(-1, 4)
        off_page = ~(np.isfinite(q).all(axis=(1, 2)) & (q >= -EDGE_TOL).all(axis=(1, 2))
                     & (q <= 1 + EDGE_TOL).all(axis=(1, 2)))
        want = np.clip(np.concatenate([q.min(axis=1), q.max(axis=1)], axis=1), 0.0, 1.0)
        with np.errstate(invalid="ignore"):
            not_aabb = ~np.isnan(b[:, 0]) & (np.abs(b - want).max(axis=1) > TOLERANCE)
        found += [(where[k], 1, "/quad", "leaves the page: the degraded page no longer shows all of this value")
                  for k in np.nonzero(off_page)[0]]
        found += [(where[k], 2, "/box", "is not the axis-aligned box around its quad") for k in np.nonzero(not_aabb)[0]]
    found.sort(key=lambda x: (x[0], x[1]))
    return [Problem(g, f"/fields/{i}/readings/{r}/evidence/{e}{key}", message) for (i, r, e), _, key, message in found]
