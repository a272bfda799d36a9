"""Read-back: locate every value in the PDF that was written, and check what was drawn.

The PDF is opened with PyMuPDF and its words are read per page with
`get_text("words", sort=False)`, which keeps the content-stream (drawing) order.
Each page holds its chrome first and then a run of record values; the matcher
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
on the page the records say (a record on one page unless the plan split it); no word outside the page margins or outside its
column/cell; no two words overlapping; every font embedded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf

from gtkit.synth.layout import Item, PagePlan, Plan, chrome_and_header
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

    With a `pool` that has worker processes, a worker reads the second half of the pages from the
    PDF file while this process reads the first; the worker gets only that half's part of the plan.
    The halves meet at the first item the plan puts on the middle page, and the first half must end
    exactly there.
    """
    with _open(pdf) as doc:
        n_pages = doc.page_count
    if n_pages != len(plan.pages):
        out = Located(pages=n_pages, page_sizes=[])
        out.problems.append(SynthProblem("", f"the PDF has {n_pages} pages, the layout made {len(plan.pages)}"))
        return out
    if pool is None or pool.inline or n_pages < 8:
        return _locate_range(plan, pdf, 0, n_pages, on_page)
    half = n_pages // 2
    worker = pool.submit(_locate_part, _PlanPart(plan, half), pdf if isinstance(pdf, bytes) else str(Path(pdf).absolute()))
    try:
        first = _locate_range(plan, pdf, 0, half, on_page)
    except BaseException:
        worker.cancel()
        raise
    second = worker.result()
    if on_page is not None:
        for p in range(half, n_pages):
            on_page(p)
    for pointer, evs in second.evidence.items():
        have = first.evidence.get(pointer)
        if have is None:
            first.evidence[pointer] = evs
        else:
            have.extend(evs)
    first.page_sizes.extend(second.page_sizes)
    first.words += second.words
    first.problems.extend(p for p in second.problems if p not in first.problems)
    first.pages = n_pages
    return first


def _open(pdf: bytes | str | Path) -> pymupdf.Document:
    return pymupdf.open(stream=pdf, filetype="pdf") if isinstance(pdf, bytes) else pymupdf.open(pdf)


class _PlanPart:
    """What reading back the pages from p0 to the end needs of a plan, sent to a worker: the body items of
    those pages as plain lists (cheap to pickle; a long document has hundreds of thousands), each
    page's chrome and item range, the margin box and the split records. `plan()` rebuilds a plan
    `_locate` reads."""

    def __init__(self, plan: Plan, p0: int):
        self.p0, self.p1 = p0, len(plan.pages)
        self.first = plan.pages[p0].first_item
        items = plan.body_items[self.first:]
        columns = {name: [getattr(it, name) for it in items] for name in _ITEM_SLOTS}
        shared: dict[Any, Any] = {}  # equal regions pickled once: a long table's cells have a few thousand
        columns["region"] = [shared.setdefault(r, r) for r in columns["region"]]
        self.columns = tuple(columns[name] for name in _ITEM_SLOTS)
        self.pages = [(pp.chrome_items, pp.header_items, pp.first_item, pp.end_item) for pp in plan.pages[p0:]]
        self.content, self.split_records = plan.content, plan.split_records

    def plan(self) -> Plan:
        pages = [PagePlan() for _ in range(self.p0)]
        for chrome_items, header_items, first_item, end_item in self.pages:
            pages.append(PagePlan(chrome_items=chrome_items, header_items=header_items, first_item=first_item,
                                  end_item=end_item))
        items: list[Any] = [None] * self.first  # the first half's items: never read here
        new = Item.__new__
        for row in zip(*self.columns):
            it = new(Item)
            for name, value in zip(_ITEM_SLOTS, row):
                setattr(it, name, value)
            items.append(it)
        return Plan(page_size=(0.0, 0.0), content=self.content, pages=pages, body_items=items, record_pages=[],
                    record_heights=[], body_box=self.content, fonts={}, split_records=self.split_records)


_ITEM_SLOTS = Item.__slots__


def _locate_part(part: _PlanPart, pdf: bytes | str) -> Located:
    """A worker's half of `locate`: the pages of `part`, read from the PDF file (or bytes)."""
    return _locate_range(part.plan(), pdf, part.p0, part.p1, None)


def _locate_range(plan: Plan, pdf: bytes | str | Path, p0: int, p1: int, on_page) -> Located:
    doc = _open(pdf)
    try:
        return _locate(plan, doc, p0, p1, on_page)
    finally:
        doc.close()


def _locate(plan: Plan, doc: pymupdf.Document, p0: int, p1: int, on_page) -> Located:
    n_pages = doc.page_count
    out = Located(pages=n_pages, page_sizes=[])
    problems = out.problems
    evidence = out.evidence
    items = plan.body_items
    n_items = len(items)
    cursor = plan.pages[p0].first_item
    record_page: dict[int, int] = {}
    cl, ct, cr, cb = plan.content
    fonts_seen: set[tuple[str, str]] = set()

    for p in range(p0, p1):
        page = doc[p]
        rect = page.rect
        pw, ph = float(rect.width), float(rect.height)
        out.page_sizes.append((pw, ph))
        for f in doc.get_page_fonts(p):
            fonts_seen.add((f[3], f[1]))
        words = page.get_text("words", sort=False)
        n = len(words)
        out.words += n
        texts = [w[4] for w in words]
        coords = np.array([w[:4] for w in words], dtype=float).reshape(-1, 4)
        norm = np.round(np.clip(coords / (pw, ph, pw, ph), 0.0, 1.0), 6).tolist()
        page_items: list[Item] = []
        starts: list[int] = []
        k = 0
        _, chrome_items = chrome_and_header(plan.pages[p], p)
        failed = False
        chrome_left = len(chrome_items)
        ci = 0
        while k < n or ci < chrome_left:
            if ci < chrome_left:
                item = chrome_items[ci]
                ci += 1
            elif cursor < (n_items if p1 == n_pages else plan.pages[p1].first_item):
                item = items[cursor]
            else:
                problems.append(SynthProblem("", f"page {p + 1}: unexpected text {' '.join(texts[k:k + 6])!r} where no more values were expected"))
                failed = True
                break
            # consume the words spelling the item (whitespace removed, characters compared exactly)
            target = item.chars
            if k < n and texts[k] == target:
                end = k + 1
            else:
                acc = ""
                end = k
                while end < n and len(acc) < len(target):
                    acc += texts[end]
                    end += 1
                    if not target.startswith(acc):
                        break
                if acc != target:
                    found = " ".join(texts[k : k + 6]) if k < n else "the end of the page"
                    problems.append(SynthProblem(item.pointer or "", f"page {p + 1}: {describe(item)} not found, found {found!r}"))
                    failed = True
                    break
            page_items.append(item)
            starts.append(k)
            if item.record is not None:
                cursor += 1
                if item.page != p:
                    problems.append(SynthProblem(item.pointer or "", f"{describe(item)} is on page {p + 1}, the layout put it on page {item.page + 1}"))
                seen = record_page.setdefault(item.record, p)
                if seen != p and item.record not in plan.split_records:  # a split record: each item's page is checked
                    problems.append(SynthProblem(item.pointer or "", f"record {item.record} is split across pages {seen + 1} and {p + 1}"))
            if item.pointer is not None:
                if end == k + 1:
                    wl = [norm[k]]
                    box = wl[0]
                    quote = texts[k]
                else:
                    wl = norm[k:end]
                    box = [min(w[0] for w in wl), min(w[1] for w in wl), max(w[2] for w in wl), max(w[3] for w in wl)]
                    quote = " ".join(texts[k:end])
                ev = {"page": p + 1, "box": box, "words": wl, "quad": None, "quote": quote, "verified": True}
                if item.record is not None:
                    if item.pointer in evidence:  # a record value is drawn once, never in two pieces
                        problems.append(SynthProblem(item.pointer, f"page {p + 1}: {describe(item)} is printed more than once"))
                    evidence[item.pointer] = [ev]
                else:
                    evidence.setdefault(item.pointer, []).append(ev)
            k = end
        if failed:
            break
        counts = np.diff(np.array(starts + [n], dtype=np.int64))
        regions = np.repeat(np.array([it.region for it in page_items], dtype=float).reshape(-1, 4), counts, axis=0)
        owner = np.repeat(np.arange(len(page_items)), counts)

        if n:
            # clipping: each word inside its own column/cell region and inside the page margins
            bad = (
                (coords[:, 0] < regions[:, 0] - TOL) | (coords[:, 2] > regions[:, 2] + TOL)
                | (coords[:, 1] < regions[:, 1] - TOL) | (coords[:, 3] > regions[:, 3] + TOL)
                | (coords[:, 0] < cl - TOL) | (coords[:, 2] > cr + TOL)
                | (coords[:, 1] < ct - TOL) | (coords[:, 3] > cb + TOL)
            )
            for w in np.nonzero(bad)[0][:20]:
                it = page_items[owner[w]]
                problems.append(SynthProblem(it.pointer or "", f"page {p + 1}: word {texts[w]!r} of {describe(it)} is clipped: "
                                             f"box {[round(v, 1) for v in coords[w]]} outside its region {[round(v, 1) for v in it.region]}"))
            for a, b in overlapping_pairs(coords)[:20]:
                ia, ib = page_items[owner[a]], page_items[owner[b]]
                problems.append(SynthProblem(ia.pointer or ib.pointer or "", f"page {p + 1}: word {texts[a]!r} ({describe(ia)}) overlaps word {texts[b]!r} ({describe(ib)})"))
        if on_page is not None:
            on_page(p)

    end = n_items if p1 == n_pages else plan.pages[p1].first_item
    if not problems and cursor < end:
        item = items[cursor]
        problems.append(SynthProblem(item.pointer or "", f"{end - cursor} values never found in the PDF, the first {describe(item)}"))
    for name, ext in sorted(fonts_seen):
        if ext in ("n/a", ""):
            problems.append(SynthProblem("", f"font {name!r} is not embedded"))
    return out
