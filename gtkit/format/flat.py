"""A bundle's field entries flattened once into lists and arrays, for checks that look at every entry.

A long truth is hundreds of thousands of entry, reading and evidence objects; each pass over them in Python
costs about as much as a page of the PDF. `FlatEntries` makes the passes a check needs once, with C-level
`map`s, and keeps what they give (paths, first readings' values and evidence, every word box as one array),
so the core check and a pipeline's check share them instead of walking the objects again each.

Only first readings are flattened: `more_readings` says whether any entry has others (the core check then
looks at those the slow way).
"""

from __future__ import annotations

from functools import cached_property
from itertools import chain
from typing import Any

import numpy as np

_NO_BOX = (np.nan,) * 4  # a missing box: equal to no box at all (NaN compares unequal)


class FlatEntries:
    """Field entries (records or models, in file order) and their first readings' evidence, flattened.

    - `paths[i]`, `values[i]`: entry i's path and first reading's value; `index`: path -> entry;
    - the first readings' evidence entries, entry after entry (entry i's are numbers `ev_at[i]` to
      `ev_at[i + 1]`), each e as `pages[e]`, `boxes[e]` (NaN where none), `quotes[e]`, `quads[e]`, `plain[e]`
      (verified and without a quad) and its word boxes `word_boxes[word_at[e]:word_at[e + 1]]` (none where `words` is
      null or empty).
    """

    def __init__(self, entries: list[Any]):
        self.entries = entries
        # one loop over the entries and their evidence: each pass over a long truth's objects costs more than
        # the work done in it
        paths: list[str] = []
        values: list[Any] = []
        n_evidence: list[int] = []
        pages: list[int] = []
        counts: list[int] = []
        words: list[Any] = []
        boxes: list[Any] = []
        quotes: list[str | None] = []
        plain: list[bool] = []
        quads: list[Any] = []
        add_path, add_value, add_n = paths.append, values.append, n_evidence.append
        add_page, add_count, add_words, add_box = pages.append, counts.append, words.append, boxes.append
        add_quote, add_plain, add_quad = quotes.append, plain.append, quads.append
        more = False
        for entry in entries:
            add_path(entry.path)
            readings = entry.readings
            first = readings[0]
            add_value(first.value)
            if len(readings) > 1:
                more = True
            evidence = first.evidence
            add_n(len(evidence))
            for ev in evidence:
                add_page(ev.page)
                w = ev.words
                if w:
                    add_count(len(w))
                    add_words(w)
                else:
                    add_count(0)
                box = ev.box
                add_box(_NO_BOX if box is None else box)
                add_quote(ev.quote)
                quad = ev.quad
                add_quad(quad)
                add_plain(ev.verified is True and quad is None)
        self.paths, self.values, self.more_readings = paths, values, more
        self.ev_at = _offsets(n_evidence, len(n_evidence))
        n = len(pages)
        self.pages = np.array(pages, dtype=np.int64).reshape(n)
        self.word_at = _offsets(counts, n)
        self.word_boxes = np.fromiter(chain.from_iterable(chain.from_iterable(words)), float,
                                      4 * int(self.word_at[-1])).reshape(-1, 4)
        self.boxes = np.fromiter(chain.from_iterable(boxes), float, 4 * n).reshape(-1, 4)
        self.quotes = quotes
        self.plain = np.array(plain, dtype=bool).reshape(n)
        self.quads = quads

    @cached_property
    def index(self) -> dict[str, int]:
        """Field path -> its entry (the last, where several have it); made when first asked for."""
        return dict(zip(self.paths, range(len(self.paths))))


def _offsets(counts: Any, n: int) -> np.ndarray:
    """[0, c0, c0 + c1, ...]: where each of `n` runs of `counts` items begins, and the end."""
    out = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.fromiter(counts, np.int64, n), out=out[1:])
    return out
