"""Mechanical checks of a degraded bundle, run by `gtkit.check` for provenance pipeline 'degrade'."""

from __future__ import annotations

import numpy as np

from gtkit.check import Problem
from gtkit.corrections import HUMAN, original_expected
from gtkit.degrade.fit import keeps_inside
from gtkit.format import GT_NAME, PDF_NAME, Bundle

TOLERANCE = 1e-9


def check_degraded(bundle: Bundle) -> list[Problem]:
    """A recorded homography per page; every box the clamped axis-aligned box of its quad; P1 tagged;
    a parent recorded; and a PDF without a text layer. A cell a person corrected (trust `human`, see
    `gtkit.corrections`) is their word: a box they drew on the degraded page has no quad."""
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
    for i, f in enumerate(bundle.field_dicts()):
        if f["trust"] == HUMAN:
            continue
        for r, reading in enumerate(f["readings"]):
            for e, ev in enumerate(reading.get("evidence") or ()):
                at = f"/fields/{i}/readings/{r}/evidence/{e}"
                box, quad = ev.get("box"), ev.get("quad")
                if box is not None and quad is None:
                    problems.append(Problem(g, at + "/quad", "a degraded box needs its quad"))
                if quad is not None and not keeps_inside(np.eye(3), np.asarray(quad, dtype=float)):
                    problems.append(Problem(g, at + "/quad", "leaves the page: the degraded page no longer shows "
                                                             "all of this value"))
                if box is not None and quad is not None:
                    q = np.asarray(quad, dtype=float)
                    want = np.clip([q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()], 0.0, 1.0)
                    if np.abs(np.asarray(box) - want).max() > TOLERANCE:
                        problems.append(Problem(g, at + "/box", "is not the axis-aligned box around its quad"))
    trust = {f["path"]: f["trust"] for f in bundle.field_dicts()}
    problems += [Problem(g, pointer, message)
                 for pointer, message in original_expected(gt.expected, prov.parameters, trust)[1]]
    with pymupdf.open(bundle.path / PDF_NAME) as doc:
        for page in doc:
            if page.get_text("words"):
                problems.append(Problem(str(bundle.path / PDF_NAME), "", f"page {page.number + 1} has a text layer"))
                break
    return problems
