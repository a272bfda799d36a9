"""Read-back: locate every value in the PDF that was written, and check what was drawn.

The PDF is opened with PyMuPDF and its words are read per page with
`get_text("words", sort=False)`, which keeps the content-stream (drawing) order.
On a page with /Rotate those words are in the unrotated page's coordinates; they
are mapped through `page.rotation_matrix` to the page as a viewer shows it (the
space of `page.rect`), so every size and box synth records is in viewer space.
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

from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf

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
    with _open(pdf) as doc:
        n_pages = doc.page_count
        if n_pages != len(plan.pages):
            out = Located(pages=n_pages, page_sizes=[])
            out.problems.append(SynthProblem("", f"the PDF has {n_pages} pages, the layout made {len(plan.pages)}"))
            return out
        here = n_pages
        if pool is not None and not pool.inline and n_pages >= 8:
            here = n_pages - round(n_pages * WORKER_SHARE)
        rest = None
        if here < n_pages:
            rest = pool.submit(read_pages, pdf if isinstance(pdf, bytes) else str(Path(pdf).absolute()), here, n_pages)

        def pages() -> Iterator[PageWords]:
            for p in range(here):
                yield page_words(doc, p)
            if rest is not None:
                yield from rest.result()

        try:
            return _locate(plan, pages(), n_pages, on_page)
        finally:
            if rest is not None:
                rest.cancel()  # when the matching stopped early; a no-op once the worker has answered


WORKER_SHARE = 0.55
"""The share of the pages whose words a worker reads: reading words is about two thirds of a page's
read-back and the matching the rest, all of it done here, so the worker gets a little more than half."""


@dataclass
class PageWords:
    """What the read-back takes from one page of the PDF: its size (points), its /Rotate, its fonts (name,
    extension), and its words in content-stream order, as texts and (x0, y0, x1, y1) boxes in points. Size
    and boxes are the page as a viewer shows it, after its /Rotate."""

    size: tuple[float, float]
    fonts: list[tuple[str, str]]
    texts: list[str]
    coords: np.ndarray
    rotation: int = 0


def viewer_boxes(coords: np.ndarray, matrix: pymupdf.Matrix) -> np.ndarray:
    """Boxes (x0, y0, x1, y1) of the unrotated page mapped by the page's `rotation_matrix` to the page as a
    viewer shows it (PyMuPDF's words are in unrotated coordinates; its `page.rect` is rotated)."""
    a, b, c, d, e, f = matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f
    xs = coords[:, [0, 2, 0, 2]]
    ys = coords[:, [1, 1, 3, 3]]
    tx, ty = a * xs + c * ys + e, b * xs + d * ys + f
    return np.stack([tx.min(axis=1), ty.min(axis=1), tx.max(axis=1), ty.max(axis=1)], axis=1)


def page_words(doc: pymupdf.Document, p: int) -> PageWords:
    page = doc[p]
    rect = page.rect
    words = page.get_text("words", sort=False)
    coords = np.fromiter(chain.from_iterable(w[:4] for w in words), float, 4 * len(words)).reshape(-1, 4)
    if page.rotation:
        coords = viewer_boxes(coords, page.rotation_matrix)
    return PageWords(size=(float(rect.width), float(rect.height)),
                     fonts=[(f[3], f[1]) for f in doc.get_page_fonts(p)],
                     texts=[w[4] for w in words], coords=coords, rotation=page.rotation)


def read_pages(pdf: bytes | str, p0: int, p1: int) -> list[PageWords]:
    """The words of pages p0..p1 of a PDF file (or its bytes): a pool task, small to send back."""
    with _open(pdf) as doc:
        return [page_words(doc, p) for p in range(p0, p1)]


def _open(pdf: bytes | str | Path) -> pymupdf.Document:
    return pymupdf.open(stream=pdf, filetype="pdf") if isinstance(pdf, bytes) else pymupdf.open(pdf)


def _locate(plan: Plan, pages: Iterable[PageWords], n_pages: int, on_page) -> Located:
    out = Located(pages=n_pages, page_sizes=[])
    problems = out.problems
    evidence = out.evidence
    items = plan.body_items
    n_items = len(items)
    cursor = plan.pages[0].first_item if plan.pages else 0
    record_page: dict[int, int] = {}
    fonts_seen: set[tuple[str, str]] = set()

    for p, page in enumerate(pages):
        pw, ph = page.size
        out.page_sizes.append((pw, ph))
        out.rotated_pages += page.rotation != 0
        if page.rotation != plan.rotate:
            problems.append(SynthProblem("", f"page {p + 1} has /Rotate {page.rotation}, the layout made {plan.rotate}"))
            break
        fonts_seen.update(page.fonts)
        texts, coords = page.texts, page.coords
        n = len(texts)
        out.words += n
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
            elif cursor < n_items:
                item = items[cursor]
            else:
                problems.append(SynthProblem("", f"page {p + 1}: unexpected text {' '.join(texts[k:k + 6])!r} where no more values were expected"))
                failed = True
                break
            # consume the words spelling the item (whitespace removed, characters compared exactly)
            end = spelled_end(texts, k, item.chars)
            if end is None:
                problems.append(not_found(p, texts, k, item))
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
        problems.extend(drawing_problems(p, texts, coords, [it.region for it in page_items], starts, plan.content,
                                         page_items.__getitem__))
        if on_page is not None:
            on_page(p)

    if not problems and cursor < n_items:
        item = items[cursor]
        problems.append(SynthProblem(item.pointer or "", f"{n_items - cursor} values never found in the PDF, "
                                                       f"the first {describe(item)}"))
    for name, ext in sorted(fonts_seen):
        if ext in ("n/a", ""):
            problems.append(SynthProblem("", f"font {name!r} is not embedded"))
    return out


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
    counts = np.diff(np.array(starts + [n], dtype=np.int64))
    regions = np.repeat(np.array(regions, dtype=float).reshape(-1, 4), counts, axis=0)
    owner = np.repeat(np.arange(len(counts)), counts)
    # clipping: each word inside its own column/cell region and inside the page margins
    bad = (
        (coords[:, 0] < regions[:, 0] - TOL) | (coords[:, 2] > regions[:, 2] + TOL)
        | (coords[:, 1] < regions[:, 1] - TOL) | (coords[:, 3] > regions[:, 3] + TOL)
        | (coords[:, 0] < cl - TOL) | (coords[:, 2] > cr + TOL)
        | (coords[:, 1] < ct - TOL) | (coords[:, 3] > cb + TOL)
    )
    for w in np.nonzero(bad)[0][:20]:
        it = item_at(int(owner[w]))
        problems.append(SynthProblem(it.pointer or "", f"page {p + 1}: word {texts[w]!r} of {describe(it)} is clipped: "
                                     f"box {[round(v, 1) for v in coords[w]]} outside its region {[round(v, 1) for v in it.region]}"))
    for a, b in overlapping_pairs(coords)[:20]:
        ia, ib = item_at(int(owner[a])), item_at(int(owner[b]))
        problems.append(SynthProblem(ia.pointer or ib.pointer or "", f"page {p + 1}: word {texts[a]!r} ({describe(ia)}) overlaps word {texts[b]!r} ({describe(ib)})"))
    return problems
