"""Read-back: locate every value in the PDF that was written, and check what was drawn.

The PDF's words are read per page by `gtkit.pdf.page_words`, in content-stream
(drawing) order and in the space of the page as a viewer shows it (after its /Rotate),
so every size and box synth records is in viewer space; the pages are walked by
`gtkit.pdf.PageWalk` (sizes, /Rotate, fonts), as in the template read-back and the
fast verify. Each page holds its chrome first and then a run of record values; the matcher
walks the page's words and the plan's items side by side, consuming for each item
the words whose characters (whitespace removed) spell the item's text exactly.
So every word of the page is claimed by exactly one item and every item by its
own words: a value that is missing, doubled, merged with a neighbour or spilled
onto the next page fails the match, naming the record and field.

Page numbers, boxes, per-word boxes and quotes come from the PDF words alone.
The plan supplies only the text and order of what must be there, and the region
(column or cell) each value must stay inside, for the clipping check.

A split record's continuation marker (family `allow_split`) is an item without a
pointer: its words are consumed in order like chrome and never become evidence.

Mechanical checks made here, all from the PDF: every value found exactly once and
on the page the records say (a record on one page unless the plan split it); no word outside
the page margins or outside its column/cell; no two words overlapping; every font embedded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gtkit.pdf import PageWalk, PageWords, open_document, page_words, read_pages
from gtkit.synth.plan import Item, Plan, chrome_and_header
from gtkit.workers import Pool

TOL = 0.75  # points a word may stick out of its region (glyph overshoot, rounding)
OVERLAP_TOL = 0.05  # points of overlap in both directions that count as overlapping words


@dataclass
class SynthProblem:
    pointer: str  # JSON Pointer into expected ("" for the document)
    message: str

    def __str__(self) -> str:
        return f"{self.pointer}: {self.message}" if self.pointer else self.message


@dataclass
class Located:
    pages: int
    page_sizes: list[tuple[float, float]]
    evidence: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    problems: list[SynthProblem] = field(default_factory=list)
    words: int = 0
    rotated_pages: int = 0  # pages with /Rotate (each checked against the layout's)


def describe(item: Item) -> str:
    if item.pointer is None:
        if item.record is not None:
            return f"continuation marker of record {item.record} ({item.text!r})"
        return f"chrome text {item.text!r}"
    parts = item.pointer.strip("/").split("/")
    if item.record is not None and len(parts) >= 3:
        return f"record {item.record} field {parts[-1]} ({item.text!r})"
    return f"field {parts[-1]} ({item.text!r})"


def overlapping_pairs(boxes: np.ndarray, tol: float = OVERLAP_TOL) -> list[tuple[int, int]]:
    """Index pairs of boxes (x0, y0, x1, y1) that overlap by more than `tol` in both directions."""
    n = len(boxes)
    if n < 2:
        return []
    order = np.argsort(boxes[:, 1], kind="stable")
    b = boxes[order]
    hi = np.searchsorted(b[:, 1], b[:, 3] - tol, side="left")
    counts = np.maximum(hi - np.arange(n) - 1, 0)
    total = int(counts.sum())
    if total == 0:
        return []
    i_idx = np.repeat(np.arange(n), counts)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    j_idx = i_idx + 1 + (np.arange(total) - starts)
    bi, bj = b[i_idx], b[j_idx]
    ix = np.minimum(bi[:, 2], bj[:, 2]) - np.maximum(bi[:, 0], bj[:, 0])
    iy = np.minimum(bi[:, 3], bj[:, 3]) - np.maximum(bi[:, 1], bj[:, 1])
    hit = np.nonzero((ix > tol) & (iy > tol))[0]
    return [(int(order[i_idx[k]]), int(order[j_idx[k]])) for k in hit]


def locate(plan: Plan, pdf: bytes | str | Path, *, on_page: Callable[[int], None] | None = None,
           pool: Pool | None = None) -> Located:
    """Read every page's words from `pdf` (its bytes or its file) and locate every item of `plan`
    (see the module docstring).

    With a `pool` that has worker processes, a worker reads the words of the last pages from the PDF
    file (`WORKER_SHARE` of them) while this process reads and matches the first ones; the matching
    is one pass over all pages here, so the answer is the one read inline.
    """
    walk = PageWalk(plan.rotate, "the layout made")
    with open_document(pdf) as doc:
        n_pages = doc.page_count
        wrong = walk.page_count_problem(n_pages, len(plan.pages))
        if wrong:
            return Located(pages=n_pages, page_sizes=[], problems=[SynthProblem("", wrong)])
        here, rest = n_pages, None
        if pool is not None and not pool.inline and n_pages >= 8:
            here = n_pages - round(n_pages * WORKER_SHARE)
            if here < n_pages:
                rest = pool.submit(read_pages, pdf if isinstance(pdf, bytes) else str(Path(pdf).absolute()), here,
                                   n_pages)

        def pages() -> Iterator[PageWords]:
            for p in range(here):
                yield page_words(doc, p)
            if rest is not None:
                yield from rest.result()

        try:
            return _locate(plan, walk, pages(), n_pages, on_page)
        finally:
            if rest is not None:
                rest.cancel()  # when the matching stopped early; a no-op once the worker has answered


WORKER_SHARE = 0.55
"""The share of the pages whose words a worker reads: reading words is about two thirds of a page's
read-back and the matching the rest, all of it done here, so the worker gets a little more than half."""


def _locate(plan: Plan, walk: PageWalk, pages: Iterable[PageWords], n_pages: int,
            on_page: Callable[[int], None] | None) -> Located:
    out = Located(pages=n_pages, page_sizes=walk.page_sizes)
    problems = out.problems
    items = plan.body_items
    cursor = plan.pages[0].first_item if plan.pages else 0
    record_page: dict[int, int] = {}
    for p, page in walk(pages):
        cursor, page_items, starts = _match_page(plan, p, page, cursor, record_page, out)
        if page_items is None:
            break
        problems.extend(drawing_problems(p, page.texts, page.coords, [it.region for it in page_items], starts,
                                         plan.content, page_items.__getitem__))
        if on_page is not None:
            on_page(p)
    out.words, out.rotated_pages = walk.words, walk.rotated_pages
    if walk.problem:
        problems.append(SynthProblem("", walk.problem))
    if not problems and cursor < len(items):
        item = items[cursor]
        problems.append(SynthProblem(item.pointer or "", f"{len(items) - cursor} values never found in the PDF, "
                                                       f"the first {describe(item)}"))
    problems.extend(SynthProblem("", message) for message in walk.font_problems())
    return out


def _match_page(plan: Plan, p: int, page: PageWords, cursor: int, record_page: dict[int, int],
                out: Located) -> tuple[int, list[Item] | None, list[int]]:
    """Match page `p`'s words to its chrome and then the plan's body items from `cursor` on, each item
    consuming the words that spell it, adding problems and evidence to `out`: (the cursor after the page, the
    page's items, each one's first word), the items None when a word does not match."""
    problems, evidence = out.problems, out.evidence
    items = plan.body_items
    n_items = len(items)
    texts = page.texts
    n = len(texts)
    norm = page.evidence_boxes().tolist()
    page_items: list[Item] = []
    starts: list[int] = []
    k = 0
    _, chrome_items = chrome_and_header(plan.pages[p], p)
    chrome_left = len(chrome_items)
    ci = 0
    while k < n or ci < chrome_left:
        if ci < chrome_left:
            item = chrome_items[ci]
            ci += 1
        elif cursor < n_items:
            item = items[cursor]
        else:
            problems.append(SynthProblem("", f"page {p + 1}: unexpected text {' '.join(texts[k:k + 6])!r} "
                                             "where no more values were expected"))
            return cursor, None, starts
        # consume the words spelling the item (whitespace removed, characters compared exactly)
        end = spelled_end(texts, k, item.chars)
        if end is None:
            problems.append(not_found(p, texts, k, item))
            return cursor, None, starts
        page_items.append(item)
        starts.append(k)
        if item.record is not None:
            cursor += 1
            if item.page != p:
                problems.append(SynthProblem(item.pointer or "", f"{describe(item)} is on page {p + 1}, "
                                                                 f"the layout put it on page {item.page + 1}"))
            seen = record_page.setdefault(item.record, p)
            if seen != p and item.record not in plan.split_records:  # a split record: each item's page is checked
                problems.append(SynthProblem(item.pointer or "",
                                             f"record {item.record} is split across pages {seen + 1} and {p + 1}"))
        if item.pointer is not None:
            ev = _evidence(texts, norm, k, end, p)
            if item.record is not None:
                if item.pointer in evidence:  # a record value is drawn once, never in two pieces
                    problems.append(SynthProblem(item.pointer,
                                                 f"page {p + 1}: {describe(item)} is printed more than once"))
                evidence[item.pointer] = [ev]
            else:
                evidence.setdefault(item.pointer, []).append(ev)
        k = end
    return cursor, page_items, starts


def _evidence(texts: list[str], norm: list[list[float]], k: int, end: int, p: int) -> dict[str, Any]:
    """The evidence of the value spelled by words `k` to `end` of page `p` (0-based): their boxes, the box
    around them, their text."""
    if end == k + 1:
        wl = [norm[k]]
        box = wl[0]
        quote = texts[k]
    else:
        wl = norm[k:end]
        box = [min(w[0] for w in wl), min(w[1] for w in wl), max(w[2] for w in wl), max(w[3] for w in wl)]
        quote = " ".join(texts[k:end])
    return {"page": p + 1, "box": box, "words": wl, "quad": None, "quote": quote, "verified": True}


def spelled_end(texts: list[str], k: int, target: str) -> int | None:
    """Where the words from `k` on that spell `target` end (whitespace removed, characters compared exactly),
    or None when they do not spell it."""
    n = len(texts)
    if k < n and texts[k] == target:
        return k + 1
    acc = ""
    end = k
    while end < n and len(acc) < len(target):
        acc += texts[end]
        end += 1
        if not target.startswith(acc):
            break
    return end if acc == target else None


def not_found(p: int, texts: list[str], k: int, item: Item) -> SynthProblem:
    found = " ".join(texts[k : k + 6]) if k < len(texts) else "the end of the page"
    return SynthProblem(item.pointer or "", f"page {p + 1}: {describe(item)} not found, found {found!r}")


def drawing_problems(p: int, texts: list[str], coords: np.ndarray, regions: list[tuple[float, float, float, float]],
                     starts: list[int], content: tuple[float, float, float, float],
                     item_at: Callable[[int], Item]) -> list[SynthProblem]:
    """What is wrong with how page `p` (0-based) is drawn, its words (texts, boxes in points) owned by items
    of `regions` from `starts` on (`item_at(j)`: the j-th item, to name it): a word outside its item's region
    or the page margins (`content`) is clipped; two words must not overlap."""
    problems: list[SynthProblem] = []
    n = len(texts)
    if not n:
        return problems
    cl, ct, cr, cb = content
    counts: np.ndarray = np.diff(np.array([*starts, n], dtype=np.int64))  # numpy's stubs make it timedelta64
    own = np.repeat(np.array(regions, dtype=float).reshape(-1, 4), counts, axis=0)  # each word's region
    owner = np.repeat(np.arange(len(counts)), counts)
    # clipping: each word inside its own column/cell region and inside the page margins
    bad = (
        (coords[:, 0] < own[:, 0] - TOL) | (coords[:, 2] > own[:, 2] + TOL)
        | (coords[:, 1] < own[:, 1] - TOL) | (coords[:, 3] > own[:, 3] + TOL)
        | (coords[:, 0] < cl - TOL) | (coords[:, 2] > cr + TOL)
        | (coords[:, 1] < ct - TOL) | (coords[:, 3] > cb + TOL)
    )
    for w in np.nonzero(bad)[0][:20]:
        it = item_at(int(owner[w]))
        problems.append(SynthProblem(it.pointer or "", f"page {p + 1}: word {texts[w]!r} of {describe(it)} is clipped: "
                                     f"box {[round(v, 1) for v in coords[w]]} "
                                     f"outside its region {[round(v, 1) for v in it.region]}"))
    for a, b in overlapping_pairs(coords)[:20]:
        ia, ib = item_at(int(owner[a])), item_at(int(owner[b]))
        problems.append(SynthProblem(ia.pointer or ib.pointer or "",
                                     f"page {p + 1}: word {texts[a]!r} ({describe(ia)}) "
                                     f"overlaps word {texts[b]!r} ({describe(ib)})"))
    return problems
