"""A PDF's pages: opening a bundle's PDF, reading a page's words, and walking the pages.

Opening (`open_pdf`): every way a PDF can be unusable is one line naming the file. A PDF that needs a
password, is not a PDF, has no pages, has an empty page box, or is damaged (MuPDF had to repair it:
truncated, a broken cross-reference table) is refused before anything reads it, so no command prints
MuPDF's own complaints or a traceback.

A page's words (`page_words`, a `PageWords`): the one reader of the words on a page, for the synth
read-backs and check, the consensus box rule and the degrade check. Words come in content-stream (drawing)
order; on a page with /Rotate they are mapped to the page as a viewer shows it (the space of `page.rect`),
so every size and box is in viewer space. `DocumentWords` reads a document's pages on demand.

The page walk (`PageWalk`): what the synth read-backs share around their matching: page sizes, /Rotate,
word counts and fonts, with the checks on them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from gtkit.errors import GtkitError


def open_pdf(path: Path) -> Any:
    """The opened `pymupdf.Document` (close it, or use it as a context manager), or a GtkitError."""
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    try:
        doc = pymupdf.open(path)
    except Exception as e:  # any parse failure is the file's problem
        raise GtkitError(f"not a readable PDF ({type(e).__name__}: {e})", path) from None
    problem = _problem(doc)
    if problem:
        doc.close()
        raise GtkitError(problem, path)
    return doc


def _problem(doc: Any) -> str | None:
    if doc.needs_pass or doc.is_encrypted or (doc.metadata or {}).get("encryption"):
        return "the PDF is encrypted (needs a password); gtkit needs an unencrypted document"
    if not doc.is_pdf:
        return "not a PDF"
    if doc.page_count == 0:
        return "the PDF has no pages"
    if doc.is_repaired:
        return "the PDF is damaged (truncated or a broken cross-reference table)"
    for page in doc:
        r = page.rect
        if r.width <= 0 or r.height <= 0:
            return f"page {page.number + 1} has an empty page box"
    return None


def page_sizes(path: Path) -> list[tuple[float, float]]:
    """(width, height) in points of every page, as viewed, of a usable PDF."""
    with open_pdf(Path(path)) as doc:
        return [(float(p.rect.width), float(p.rect.height)) for p in doc]


# --- a page's words: the one reader -------------------------------------------------------------------------


@dataclass
class PageWords:
    """One page's words as every gtkit reader takes them: the page's size in points, its /Rotate, its fonts
    (name, extension: "n/a" or "" when not embedded), and its words in content-stream (drawing) order, as
    texts and (x0, y0, x1, y1) boxes in points. Size and boxes are the page as a viewer shows it, after its
    /Rotate, origin top-left."""

    size: tuple[float, float]
    fonts: list[tuple[str, str]]
    texts: list[str]
    coords: np.ndarray
    rotation: int = 0

    def fractions(self) -> np.ndarray:
        """The word boxes as fractions of the page: x over its width, y over its height."""
        pw, ph = self.size
        return self.coords / (pw, ph, pw, ph)

    def evidence_boxes(self) -> np.ndarray:
        """The word boxes as evidence records them: fractions of the page clipped to [0, 1] and rounded to
        6 decimals."""
        return np.round(np.clip(self.fractions(), 0.0, 1.0), 6)


def viewer_boxes(coords: np.ndarray, matrix: Any) -> np.ndarray:
    """Boxes (x0, y0, x1, y1) of the unrotated page mapped by the page's `rotation_matrix` (a, b, c, d, e, f:
    x' = a x + c y + e, y' = b x + d y + f) to the page as a viewer shows it, each the span of its four mapped
    corners (PyMuPDF's words are in unrotated coordinates; its `page.rect` is rotated)."""
    a, b, c, d, e, f = matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f
    xs = coords[:, [0, 2, 0, 2]]
    ys = coords[:, [1, 1, 3, 3]]
    tx, ty = a * xs + c * ys + e, b * xs + d * ys + f
    return np.stack([tx.min(axis=1), ty.min(axis=1), tx.max(axis=1), ty.max(axis=1)], axis=1)


def page_words(doc: Any, p: int, *, fonts: bool = True) -> PageWords:
    """The words of page `p` (0-based) of an open `pymupdf.Document`: `get_text("words", sort=False)`, which
    keeps the drawing order, mapped to the page as viewed. Without `fonts` its font list is left empty."""
    page = doc[p]
    rect = page.rect
    words = page.get_text("words", sort=False)
    coords = np.fromiter(chain.from_iterable(w[:4] for w in words), float, 4 * len(words)).reshape(-1, 4)
    if page.rotation:
        coords = viewer_boxes(coords, page.rotation_matrix)
    return PageWords(size=(float(rect.width), float(rect.height)),
                     fonts=[(f[3], f[1]) for f in doc.get_page_fonts(p)] if fonts else [],
                     texts=[w[4] for w in words], coords=coords, rotation=page.rotation)


def each_page(doc: Any) -> Iterator[PageWords]:
    """`page_words` of every page of an open document, in order."""
    for p in range(doc.page_count):
        yield page_words(doc, p)


def open_document(pdf: bytes | str | Path) -> Any:
    """A PDF (its bytes or its file) opened as it is, unchecked: for a PDF gtkit wrote or was given to read
    (`open_pdf` refuses an unusable one first)."""
    import pymupdf

    return pymupdf.open(stream=pdf, filetype="pdf") if isinstance(pdf, bytes) else pymupdf.open(pdf)


def read_pages(pdf: bytes | str, p0: int, p1: int) -> list[PageWords]:
    """The words of pages p0..p1 of a PDF file (or its bytes): a pool task, small to send back."""
    with open_document(pdf) as doc:
        return [page_words(doc, p) for p in range(p0, p1)]


def centred_in(boxes: np.ndarray, box: Sequence[float]) -> np.ndarray:
    """Indices of the `boxes` whose centre lies inside `box` (edges included), both in one space."""
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    return np.nonzero((cx >= box[0]) & (cx <= box[2]) & (cy >= box[1]) & (cy <= box[3]))[0]


class DocumentWords:
    """The words of a PDF's pages (`page_words`, without fonts), each page read once when first asked for."""

    def __init__(self, pdf: Path):
        self._doc = open_document(pdf)
        self._pages: dict[int, tuple[np.ndarray, list[str]]] = {}

    def close(self) -> None:
        self._doc.close()

    def page(self, number: int) -> tuple[np.ndarray, list[str]]:
        """(N x 4 word boxes as fractions of the page, N texts) of 1-based page `number`."""
        if number not in self._pages:
            words = page_words(self._doc, number - 1, fonts=False)
            self._pages[number] = (words.fractions(), words.texts)
        return self._pages[number]

    def text_under(self, number: int, box: Sequence[float]) -> str | None:
        """The words whose centre lies inside `box` (fractions of the page), joined by spaces; None when the
        page has no text layer."""
        boxes, texts = self.page(number)
        if not texts:
            return None
        return " ".join(texts[i] for i in centred_in(boxes, box))


# --- the page walk the synth read-backs share ---------------------------------------------------------------


class PageWalk:
    """One pass over a PDF's pages in order, the part the synth read-backs (reportlab, template) and the fast
    verify share: `walk(pages)` yields (0-based page, its words), recording each page's size and counting its
    words, every font seen, and the pages with a /Rotate. Every page must carry `rotate`: the walk stops at the
    first that does not (`problem` says so); `made` names what made that rotation ("the layout made")."""

    def __init__(self, rotate: int, made: str):
        self.rotate, self.made = rotate, made
        self.page_sizes: list[tuple[float, float]] = []
        self.fonts: set[tuple[str, str]] = set()
        self.words = 0
        self.rotated_pages = 0
        self.problem: str | None = None

    def __call__(self, pages: Iterable[PageWords]) -> Iterator[tuple[int, PageWords]]:
        for p, page in enumerate(pages):
            self.page_sizes.append(page.size)
            self.rotated_pages += page.rotation != 0
            if page.rotation != self.rotate:
                self.problem = f"page {p + 1} has /Rotate {page.rotation}, {self.made} {self.rotate}"
                return
            self.fonts.update(page.fonts)
            self.words += len(page.texts)
            yield p, page

    def page_count_problem(self, n_pages: int, made: int) -> str | None:
        """Why a PDF of `n_pages` pages is not the one `made` pages were drawn for (None when it is)."""
        return None if n_pages == made else f"the PDF has {n_pages} pages, {self.made} {made}"

    def font_problems(self, foreign: Callable[[str], str | None] | None = None) -> list[str]:
        """Every font seen (in name order) that is not embedded, or that `foreign` has a complaint about."""
        out = []
        for name, ext in sorted(self.fonts):
            why = "is not embedded" if ext in ("n/a", "") else foreign(name) if foreign is not None else None
            if why:
                out.append(f"font {name!r} {why}")
        return out
