"""Moving the ground truth's boxes by each page's homography, in closed form (pure functions)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

import numpy as np

from gtkit.format.models import Evidence
from gtkit.geometry import clamp_box, transform_boxes, transform_quad

COORD_DECIMALS = 6
"""Decimals of every coordinate degrade writes (as synth reads boxes back): 1e-6 of the page is 0.0008 pt on a
letter page, 0.003 px at 300 dpi, and moves the IoU of a word box 0.01 of the page tall by at most 1e-4, so
drawing and grounding at IoU 0.5 read the same as from the unrounded float (a third of the bytes of gt.json)."""


T = TypeVar("T")


def _valid(box: Sequence[float]) -> bool:
    return box[0] < box[2] and box[1] < box[3]


def _four(items: Iterable[T]) -> tuple[T, T, T, T]:
    """The four coordinates of a box, or the four corners of a quad, as the format's 4-tuple."""
    a, b, c, d = items
    return (a, b, c, d)


def transform_evidence(ev: Evidence, h: np.ndarray) -> Evidence:
    """One evidence entry under the page homography H (normalized coordinates).

    quad_k = H · c_k for the corners c_k (tl, tr, br, bl) of `box` (or of the entry's existing `quad`, when
    the parent was itself degraded, so transforms compose: H2 · (H1 · c_k), exactly but for the parent's
    stored rounding, `COORD_DECIMALS`);
    box = clamp((min x, min y, max x, max y) over the quad) to [0, 1];
    every word w becomes clamp(bbox(H · corners(w))). A page-only entry (no box) is unchanged.
    A box or word pushed wholly off the page (empty after clamping) is dropped rather than made invalid.
    `verified` carries over: the move is exact.
    """
    if ev.quad is not None:
        quad, box = transform_quad(h, np.asarray(ev.quad, dtype=float))
    elif ev.box is not None:
        quads, boxes = transform_boxes(h, [ev.box])
        quad, box = quads[0], _four(map(float, boxes[0]))
    else:
        words = ev.words
        if words:
            _, wb = transform_boxes(h, words)
            words = [_four(map(float, b)) for b in wb if _valid(b)] or None
        return Evidence(page=ev.page, box=None, words=words, quad=None, quote=ev.quote, verified=ev.verified)
    words = None
    if ev.words:
        _, wb = transform_boxes(h, ev.words)
        words = [_four(map(float, b)) for b in wb if _valid(b)] or None
    if not _valid(box):
        return Evidence(page=ev.page, box=None, words=words, quad=None, quote=ev.quote, verified=ev.verified)
    return Evidence(
        page=ev.page,
        box=box,
        words=words,
        quad=_four((float(x), float(y)) for x, y in quad),
        quote=ev.quote,
        verified=ev.verified,  # moved in closed form: as verified as the parent's box
    )


def _rounded(v: float) -> float:
    return round(float(v), COORD_DECIMALS)


def stored_evidence(ev: Evidence) -> Evidence:
    """`ev` at the stored precision (`COORD_DECIMALS`): quad corners and words rounded, and the box the clamped
    axis-aligned box around the rounded quad (so it stays exactly the box around its quad). A box or word that
    rounding leaves empty is dropped, as one pushed off the page is."""
    words = ev.words
    if words:
        words = [w for w in (_four(map(_rounded, w)) for w in words) if _valid(w)] or None
    if ev.quad is None:
        box = _four(map(_rounded, ev.box)) if ev.box is not None else None
        return Evidence(page=ev.page, box=box if box is None or _valid(box) else None, words=words, quad=None,
                        quote=ev.quote, verified=ev.verified)
    quad = _four((_rounded(x), _rounded(y)) for x, y in ev.quad)
    box = clamp_box((min(x for x, _ in quad), min(y for _, y in quad),
                     max(x for x, _ in quad), max(y for _, y in quad)))
    if not _valid(box):
        return Evidence(page=ev.page, box=None, words=words, quad=None, quote=ev.quote, verified=ev.verified)
    return Evidence(page=ev.page, box=box, words=words, quad=quad, quote=ev.quote, verified=ev.verified)


def transform_field_dict(f: dict[str, Any], homographies: Sequence[np.ndarray]) -> dict[str, Any]:
    """A field entry (as parsed JSON) with every evidence entry moved by the homography of its page and stored
    at `COORD_DECIMALS`: entry e of page p becomes `stored_evidence(transform_evidence(e, H_p))` (quad =
    H_p · corners, box = clamp(bbox(quad)), words likewise); values, leniencies and trust are unchanged. Key
    order is the format's."""
    readings = []
    for r in f["readings"]:
        moved = [stored_evidence(transform_evidence(Evidence.model_validate(e), homographies[e["page"] - 1]))
                 .model_dump(mode="json") for e in r.get("evidence") or ()]
        readings.append({"value": r["value"], "evidence": moved})
    return {"path": f["path"], "readings": readings, "leniencies": list(f.get("leniencies") or ()), "trust": f["trust"]}
