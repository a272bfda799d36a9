"""Evidence from the one citing system: its citations of a document, checked against the page.

Boxes come from the citing system only, and only for a reading its own vote equals; a cited page
outside the document is dropped, and a box is kept only where it is well formed and the page shows
the value under it (`checks.box_problem`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, TypeGuard

from gtkit.consensus.cells import Cell
from gtkit.consensus.checks import box_problem
from gtkit.consensus.votes import NULL
from gtkit.format.writer import evidence_entry
from gtkit.pdf import DocumentWords

Citations = dict[str, list[dict[str, Any]]]   # the system's own JSON Pointer -> [{page, box}]


def _valid_box(box: Any) -> TypeGuard[list[Any]]:
    if type(box) is not list or len(box) != 4:
        return False
    x0, y0, x1, y1 = box
    return 0.0 <= x0 < x1 <= 1.0 and 0.0 <= y0 < y1 <= 1.0


class CitedEvidence:
    """The citing system's citations of one document (none without a citing system)."""

    def __init__(self, citing: str | None, citations: Citations, pages: int, words: DocumentWords):
        self.citing = citing
        self.citations = citations
        self.pages = pages
        self.words = words
        self._pages_under: dict[str, set[int]] | None = None

    def for_reading(self, cell: Cell, key: tuple, value: Any) -> list[dict[str, Any]]:
        """Evidence entries for the reading `value` (vote key `key`), where the citing system voted for it."""
        s = self.citing
        if s is None or key == NULL or cell.keys.get(s) != key:
            return []
        own = cell.own(s)
        entries = self.citations.get(own) if own is not None else None
        out = []
        for e in entries or ():
            page = e["page"]
            if not 1 <= page <= self.pages:
                continue
            box = e.get("box")
            if _valid_box(box) and box_problem(self.words, page, box, value) is None:
                out.append(evidence_entry(page, [float(v) for v in box]))
            else:
                out.append(evidence_entry(page, None))
        return out

    def cited_pages(self, cell: Cell) -> list[int]:
        """Pages the citing system cites for its own pointer of `cell`."""
        own = cell.own(self.citing) if self.citing is not None else None
        return sorted({e["page"] for e in self.citations.get(own, [])}) if own is not None else []

    def pages_under(self, own: str) -> list[int]:
        """Pages the citing system cites anywhere under its own pointer `own` (a row, for instance)."""
        if self._pages_under is None:
            index: dict[str, set[int]] = defaultdict(set)
            for pointer, entries in self.citations.items():
                pages = {e["page"] for e in entries}
                parts = pointer.split("/")
                for i in range(1, len(parts) + 1):
                    index["/".join(parts[:i])] |= pages
            self._pages_under = index
        return sorted(self._pages_under.get(own, ()))
