"""A bundle's field entries flattened once into lists and arrays, for checks that look at every entry.

A long truth is hundreds of thousands of entry, reading and evidence objects; each pass over them in Python
costs about as much as a page of the PDF. `FlatEntries` makes the passes a check needs once, with C-level
`map`s, and keeps what they give (paths, first readings' values and evidence, every word box as one array),
so the core check and a pipeline's check share them instead of walking the objects again each.

Only first readings are flattened: `more_readings` says whether any entry has others (the core check then
looks at those the slow way).
"""

from __future__ import annotations

from itertools import chain, repeat
from operator import attrgetter, is_, itemgetter
from typing import Any

import numpy as np

_NO_BOX = (np.nan,) * 4  # a missing box: equal to no box at all (NaN compares unequal)


class FlatEntries:
    """Field entries (records or models, in file order) and their first readings' evidence, flattened.

    - `paths[i]`, `values[i]`: entry i's path and first reading's value; `index`: path -> entry (the last of
      that path);
    - `evidence`: the first readings' evidence entries, entry after entry; entry i's are
      `evidence[ev_at[i]:ev_at[i + 1]]`;
    - per evidence entry e: `pages[e]`, `boxes[e]` (NaN where none), `quotes[e]`, `verified[e]`, `has_quad[e]`,
      and its word boxes `word_boxes[word_at[e]:word_at[e + 1]]` (none where `words` is null or empty).
    """

    def __init__(self, entries: list[Any]):
        self.entries = entries
        self.paths: list[str] = list(map(attrgetter("path"), entries))
        self.index: dict[str, int] = dict(zip(self.paths, range(len(self.paths))))
        readings = list(map(attrgetter("readings"), entries))
        self.more_readings = max(map(len, readings), default=1) > 1
        first = list(map(itemgetter(0), readings))
        del readings
        self.values: list[Any] = list(map(attrgetter("value"), first))
        per_entry = list(map(attrgetter("evidence"), first))
        del first
        self.ev_at = _offsets(map(len, per_entry), len(per_entry))
        self.evidence: list[Any] = list(chain.from_iterable(per_entry))
        del per_entry
        evidence, n = self.evidence, len(self.evidence)
        self.pages = np.fromiter(map(attrgetter("page"), evidence), np.int64, n)
        words = [w or () for w in map(attrgetter("words"), evidence)]
        self.word_at = _offsets(map(len, words), n)
        n_words = int(self.word_at[-1])
        self.word_boxes = np.fromiter(chain.from_iterable(chain.from_iterable(words)), float,
                                      4 * n_words).reshape(-1, 4)
        del words
        boxes = list(map(attrgetter("box"), evidence))
        if None in boxes:
            boxes = [_NO_BOX if b is None else b for b in boxes]
        self.boxes = np.fromiter(chain.from_iterable(boxes), float, 4 * n).reshape(-1, 4)
        del boxes
        self.quotes: list[str | None] = list(map(attrgetter("quote"), evidence))
        self.verified = np.fromiter(map(is_, map(attrgetter("verified"), evidence), repeat(True)), bool, n)
        self.has_quad = np.fromiter(map(bool, map(attrgetter("quad"), evidence)), bool, n)


def _offsets(counts: Any, n: int) -> np.ndarray:
    """[0, c0, c0 + c1, ...]: where each of `n` runs of `counts` items begins, and the end."""
    out = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.fromiter(counts, np.int64, n), out=out[1:])
    return out
