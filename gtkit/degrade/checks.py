"""Mechanical checks of a degraded bundle, run by `gtkit.check` for provenance pipeline 'degrade'."""

from __future__ import annotations

from itertools import chain, repeat
from operator import attrgetter, is_not

import numpy as np

from gtkit.corrections import HUMAN, original_expected, recorded
from gtkit.degrade.fit import EDGE_TOL
from gtkit.errors import Problem
from gtkit.format.bundle import Bundle
from gtkit.format.writer import GT_NAME, PDF_NAME
from gtkit.pdf import open_document, page_words

TOLERANCE = 1e-9


def check_degraded(bundle: Bundle) -> list[Problem]:
    """A recorded homography per page; every box the clamped axis-aligned box of its quad, every quad on the page
    (`keeps_inside` of `gtkit.degrade.fit`, applied to all quads at once); P1 tagged; a parent recorded; and a PDF
    without a text layer. A cell a person corrected (trust `human`, see `gtkit.corrections`) is their
    word: a box they drew on the degraded page has no quad."""
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
    # each field's trust, where corrections are recorded (else none to look up)
    trust: dict[str, str] = {f.path: f.trust for f in bundle.field_entries()} if recorded(prov.parameters) else {}
    problems += [Problem(g, pointer, message)
                 for pointer, message in original_expected(gt.expected, prov.parameters, trust)[1]]
    with open_document(bundle.path / PDF_NAME) as doc:
        for p in range(doc.page_count):
            if page_words(doc, p, fonts=False).texts:
                problems.append(Problem(str(bundle.path / PDF_NAME), "", f"page {p + 1} has a text layer"))
                break
    return problems


def _box_problems(bundle: Bundle, g: str) -> list[Problem]:
    """Every box with its quad, every quad on the page, every box the clamped axis-aligned box of its quad:
    the evidence gathered in one pass (the bundle's flattened entries where every entry has one reading), then
    checked as arrays, problems in evidence order."""
    flat = bundle.flat_entries()
    entries = flat.entries
    if flat.more_readings:
        evidence = [ev for f in entries for reading in f.readings for ev in reading.evidence]
        quads = list(map(attrgetter("quad"), evidence))
        boxes = [_NAN_BOX if b is None else b for b in map(attrgetter("box"), evidence)]
        all_boxes = np.fromiter(chain.from_iterable(boxes), float, 4 * len(boxes)).reshape(-1, 4)
        where = [(i, r, e) for i, f in enumerate(entries) for r, reading in enumerate(f.readings)
                 for e in range(len(reading.evidence))]  # (entry, reading, evidence) of each evidence, to name it

        def place(k: int) -> tuple[int, int, int]:
            return where[k]
    else:
        quads, all_boxes = flat.quads, flat.boxes  # a missing box is NaN (a box's corners are in [0, 1])

        def place(k: int) -> tuple[int, int, int]:
            i = int(np.searchsorted(flat.ev_at, k, side="right")) - 1
            return i, 0, k - int(flat.ev_at[i])
    has_quad = np.fromiter(map(is_not, quads, repeat(None)), bool, len(quads))
    bad = {int(k): [(0, "/quad", "a degraded box needs its quad")]
           for k in np.nonzero(~has_quad & ~np.isnan(all_boxes[:, 0]))[0]}
    if has_quad.any():
        at = np.nonzero(has_quad)[0]
        with_quad = [quads[k] for k in at] if len(at) < len(quads) else quads
        q = np.fromiter(chain.from_iterable(chain.from_iterable(with_quad)), float, 8 * len(at)).reshape(-1, 4, 2)
        b = all_boxes[at]
        off_page = ~(np.isfinite(q).all(axis=(1, 2)) & (q >= -EDGE_TOL).all(axis=(1, 2))
                     & (q <= 1 + EDGE_TOL).all(axis=(1, 2)))
        want = np.clip(np.concatenate([q.min(axis=1), q.max(axis=1)], axis=1), 0.0, 1.0)
        with np.errstate(invalid="ignore"):
            not_aabb = ~np.isnan(b[:, 0]) & (np.abs(b - want).max(axis=1) > TOLERANCE)
        for k in np.nonzero(off_page)[0]:
            bad.setdefault(int(at[k]), []).append(
                (1, "/quad", "leaves the page: the degraded page no longer shows all of this value"))
        for k in np.nonzero(not_aabb)[0]:
            bad.setdefault(int(at[k]), []).append((2, "/box", "is not the axis-aligned box around its quad"))
    if not bad:
        return []
    return [Problem(g, "/fields/{}/readings/{}/evidence/{}".format(*place(k)) + key, message)
            for k in sorted(bad) if entries[place(k)[0]].trust != HUMAN for _, key, message in sorted(bad[k])]


_NAN_BOX = (np.nan,) * 4
