"""The consensus pipeline's check for `gtkit check`, and the rule that a cited box must show its value.

A consensus bundle's boxes come from one extraction system's citations, so nothing guarantees them
but the page itself. Where the page has a text layer, a box is kept only if the words under it (each
word whose centre lies inside the box) show the reading's value; on a page without text (a scan)
boxes cannot be verified here and are taken as cited. The same rule serves the build (a box that
fails it is dropped and the cell goes to the drawing queue) and the check (a box that fails it in a
written bundle was moved or edited afterwards).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from gtkit.errors import Problem
from gtkit.format import GT_NAME, PDF_NAME, Bundle
from gtkit.scoring.normalize import comparator_key, value_key

TRUSTS = {"agreed", "pending", "adjudicated", "human"}
CITED = {"agreed", "pending"}  # boxes a system cited; a person's boxes are theirs to answer for
_NOT_ALNUM = re.compile(r"[\W_]+")


class PageWords:
    """The words of a PDF's pages as normalized boxes (viewed page, origin top-left), read on demand."""

    def __init__(self, pdf: Path):
        import pymupdf

        self._doc = pymupdf.open(pdf)
        self._pages: dict[int, tuple[np.ndarray, list[str]]] = {}

    def close(self) -> None:
        self._doc.close()

    def page(self, number: int) -> tuple[np.ndarray, list[str]]:
        """(N x 4 normalized word boxes, N texts) of 1-based page `number`."""
        import pymupdf

        if number not in self._pages:
            page = self._doc[number - 1]
            words = page.get_text("words", sort=False)
            rect, m = page.rect, page.rotation_matrix
            boxes = np.zeros((len(words), 4))
            for i, w in enumerate(words):
                # unrotated -> viewed page coordinates
                a, b = pymupdf.Point(w[0], w[1]) * m, pymupdf.Point(w[2], w[3]) * m
                boxes[i] = (min(a.x, b.x) / rect.width, min(a.y, b.y) / rect.height,
                            max(a.x, b.x) / rect.width, max(a.y, b.y) / rect.height)
            self._pages[number] = (boxes, [w[4] for w in words])
        return self._pages[number]

    def text_under(self, number: int, box: list[float]) -> str | None:
        """The words whose centre lies inside `box`, joined by spaces; None when the page has no text layer."""
        boxes, texts = self.page(number)
        if not texts:
            return None
        cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
        inside = (cx >= box[0]) & (cx <= box[2]) & (cy >= box[1]) & (cy <= box[3])
        return " ".join(texts[i] for i in np.nonzero(inside)[0])


def _alnum(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return _NOT_ALNUM.sub("", str(value)).casefold()


def shows_value(text: str, value: Any) -> bool:
    """Whether `text` (the words under a box) shows `value`: equal once normalized (dates canonical, numbers
    parsed, whitespace collapsed), or the value's letters and digits appear in the text's in order."""
    if value is None or isinstance(value, bool):
        return True  # a null has no box; a checkbox's mark is not text
    if isinstance(value, list):
        return all(shows_value(text, v) for v in value)
    if value_key(value) == value_key(text):
        return True
    if isinstance(value, (int, float)) and comparator_key(value, "number") == comparator_key(text, "number"):
        return True
    want = _alnum(value)
    return bool(want) and want in _alnum(text)


def box_problem(words: PageWords, page: int, box: list[float] | None, value: Any) -> str | None:
    """Why a cited box does not back `value` (None when it does, or when the page cannot tell)."""
    if box is None:
        return None
    text = words.text_under(page, box)
    if text is None or shows_value(text, value):
        return None
    return f"the box on page {page} shows {text[:60]!r}, not {str(value)[:60]!r}"


def check_consensus_bundle(bundle: Bundle) -> list[Problem]:
    """Trust levels a consensus run or a person gives, and every cited box showing its reading's value."""
    g = str(bundle.path / GT_NAME)
    problems: list[Problem] = []
    words = PageWords(bundle.path / PDF_NAME)
    try:
        for i, entry in enumerate(bundle.field_entries()):
            if entry.trust not in TRUSTS:
                problems.append(Problem(g, f"/fields/{i}/trust", f"{entry.trust!r} is not a consensus trust level"))
            if entry.trust not in CITED:
                continue
            for r, reading in enumerate(entry.readings):
                for e, ev in enumerate(reading.evidence):
                    why = box_problem(words, ev.page, None if ev.box is None else list(ev.box), reading.value)
                    if why:
                        problems.append(Problem(g, f"/fields/{i}/readings/{r}/evidence/{e}/box", why))
    finally:
        words.close()
    return problems
