"""Draw boxes over a rendered page, as a PNG: a page's ground-truth evidence (`gtkit show`), and any set of
marks (the HTML views: `gtkit.html_pages`, for `gtkit.show_html` and `gtkit.report_html`).

A `Mark` is one box (or quad) to draw, in page-normalized coordinates with the origin top-left: plain data,
so that pages can be drawn in worker processes from the PDF's path and their marks alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from gtkit.errors import GtkitError
from gtkit.files.outputs import check_output, write_output_file
from gtkit.format.bundle import Bundle, read_bundle
from gtkit.format.models import FieldEntry
from gtkit.pdf import open_pdf

if TYPE_CHECKING:
    import pymupdf

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

Color = tuple[float, float, float]

TRUST_COLORS: dict[str, Color] = {
    "constructed": (0.0, 0.45, 0.85),
    "agreed": (0.0, 0.6, 0.25),
    "adjudicated": (0.55, 0.2, 0.75),
    "human": (0.85, 0.45, 0.0),
    "pending": (0.85, 0.1, 0.1),
}


class Mark(NamedTuple):
    """One box to draw on a page: `box` [x0, y0, x1, y1] (or the four corners `quad`, tl tr br bl), its word
    boxes, a colour, dashed or solid, and an optional label written above it."""

    page: int
    box: tuple[float, float, float, float]
    color: Color
    label: str | None = None
    dashed: bool = False
    quad: tuple[tuple[float, float], ...] | None = None
    words: tuple[tuple[float, float, float, float], ...] = ()


def evidence_marks(entry: FieldEntry, color: Color, *, labels: bool = True, words: bool = True) -> Iterator[Mark]:
    """The marks of a field entry's boxed evidence: the first reading's solid, alternates' dashed; with `words`,
    each word's box too."""
    for reading_index, reading in enumerate(entry.readings):
        for ev in reading.evidence:
            if ev.box is None:
                continue
            yield Mark(ev.page, ev.box, color, entry.path if labels else None, reading_index > 0, ev.quad,
                       tuple(ev.words or ()) if words else ())


def draw_marks(page: pymupdf.Page, marks: Iterable[Mark]) -> None:
    """Draw `marks` on a PyMuPDF page (in place), as one shape committed once: a commit per box would re-read the
    page's whole content stream each time (a page of a thousand boxes took seconds).

    Boxes are normalized to the page as a viewer shows it (`page.rect`, after /Rotate); PyMuPDF draws in the
    unrotated page's coordinates, so every point goes through `page.derotation_matrix` (identity when the page
    has no /Rotate), and labels are turned with the page so they read upright."""
    import pymupdf

    w, h = page.rect.width, page.rect.height
    unturn = page.derotation_matrix
    shape = page.new_shape()
    for m in marks:
        dashes = "[2] 0" if m.dashed else None
        if m.quad is not None:
            tl, tr, br, bl = (pymupdf.Point(x * w, y * h) * unturn for x, y in m.quad)
            shape.draw_quad(pymupdf.Quad(tl, tr, bl, br))  # PyMuPDF orders ul, ur, ll, lr
        else:
            if m.words:
                for word in m.words:
                    shape.draw_rect(pymupdf.Rect(word[0] * w, word[1] * h, word[2] * w, word[3] * h) * unturn)
                shape.finish(color=m.color, width=0.25, dashes=dashes)
            shape.draw_rect(pymupdf.Rect(m.box[0] * w, m.box[1] * h, m.box[2] * w, m.box[3] * h) * unturn)
        shape.finish(color=m.color, width=0.8, dashes=dashes)
        if m.label:
            at = pymupdf.Point(m.box[0] * w, max(m.box[1] * h - 1.0, 4.0)) * unturn
            shape.insert_text(at, m.label, fontsize=4, fontname="helv", color=m.color,
                              rotate=page.rotation)
    shape.commit()


def render_marks_png(pdf_path: Path, page_number: int, marks: Iterable[Mark], *, dpi: int = 110,
                     thumb_shrink: int = 0) -> tuple[bytes, bytes | None]:
    """PNG bytes of page `page_number` (1-based) of the PDF with `marks` drawn, and (with `thumb_shrink` n)
    a thumbnail of the same drawing scaled down by 2**n (else None)."""
    with open_pdf(pdf_path) as doc:
        if not 1 <= page_number <= doc.page_count:
            raise GtkitError(f"page {page_number} is out of range (the document has {doc.page_count} pages)", pdf_path)
        page = doc[page_number - 1]
        draw_marks(page, marks)
        pix = page.get_pixmap(dpi=dpi)
        png = pix.tobytes("png")
        if not thumb_shrink:
            return png, None
        pix.shrink(thumb_shrink)
        return png, pix.tobytes("png")


def render_evidence_png(bundle: Bundle, page_number: int, *, dpi: int = 110, labels: bool = True) -> bytes:
    """PNG bytes of page `page_number` (1-based) with every evidence box (or quad) on it drawn and labelled."""
    pages = bundle.gt.document.pages
    if not 1 <= page_number <= pages:
        raise GtkitError(f"page {page_number} is out of range (the document has {pages} pages)", bundle.pdf_path)
    marks = [m for entry in bundle.gt.fields for m in evidence_marks(entry, TRUST_COLORS[entry.trust], labels=labels)
             if m.page == page_number]
    return render_marks_png(bundle.pdf_path, page_number, marks, dpi=dpi)[0]


def is_png(path: Path) -> bool:
    """A PNG file (what `--force` may replace)."""
    try:
        with open(path, "rb") as f:
            return path.is_file() and f.read(8) == PNG_MAGIC
    except OSError:
        return False


def write_evidence_png(bundle: Path, page_number: int, out: Path, *, dpi: int = 110, labels: bool = True,
                       force: bool = False) -> None:
    """Render a bundle's page with its evidence to the PNG file `out` (a `.png` name; never over an input)."""
    out = Path(out)
    if out.suffix.lower() != ".png":
        raise GtkitError("the picture is a PNG: give the output a .png name", out)
    check_output(out, force=force, inputs=[bundle], replaceable=is_png)
    png = render_evidence_png(read_bundle(bundle), page_number, dpi=dpi, labels=labels)
    write_output_file(out, png, force=force, inputs=[bundle], replaceable=is_png)
