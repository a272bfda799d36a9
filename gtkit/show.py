"""Draw a page's ground-truth evidence over its rendering, as a PNG."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from gtkit.errors import GtkitError
from gtkit.fileio import check_output, write_bytes_atomic
from gtkit.format import Bundle, read_bundle
from gtkit.pdf import open_pdf

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

TRUST_COLORS = {
    "constructed": (0.0, 0.45, 0.85),
    "agreed": (0.0, 0.6, 0.25),
    "adjudicated": (0.55, 0.2, 0.75),
    "human": (0.85, 0.45, 0.0),
    "pending": (0.85, 0.1, 0.1),
}


def render_evidence_png(bundle: Bundle, page_number: int, *, dpi: int = 110, labels: bool = True) -> bytes:
    """PNG bytes of page `page_number` (1-based) with every evidence box (or quad) on it drawn and labelled.

    Boxes are normalized to the page as a viewer shows it (`page.rect`, after /Rotate); PyMuPDF draws in the
    unrotated page's coordinates, so every point goes through `page.derotation_matrix` (identity when the page
    has no /Rotate), and labels are turned with the page so they read upright."""
    pages = bundle.gt.document.pages
    if not 1 <= page_number <= pages:
        raise GtkitError(f"page {page_number} is out of range (the document has {pages} pages)", bundle.pdf_path)
    with open_pdf(bundle.pdf_path) as doc:
        page = doc[page_number - 1]
        w, h = page.rect.width, page.rect.height
        unturn = page.derotation_matrix
        for entry in bundle.gt.fields:
            color = TRUST_COLORS[entry.trust]
            for reading_index, reading in enumerate(entry.readings):
                for ev in reading.evidence:
                    if ev.page != page_number or ev.box is None:
                        continue
                    dashes = None if reading_index == 0 else "[2] 0"
                    if ev.quad is not None:
                        tl, tr, br, bl = (pymupdf.Point(x * w, y * h) * unturn for x, y in ev.quad)
                        quad = pymupdf.Quad(tl, tr, bl, br)  # PyMuPDF orders ul, ur, ll, lr
                        page.draw_quad(quad, color=color, width=0.8, dashes=dashes)
                    else:
                        for word in ev.words or []:
                            page.draw_rect(pymupdf.Rect(word[0] * w, word[1] * h, word[2] * w, word[3] * h) * unturn,
                                           color=color, width=0.25, dashes=dashes)
                        rect = pymupdf.Rect(ev.box[0] * w, ev.box[1] * h, ev.box[2] * w, ev.box[3] * h) * unturn
                        page.draw_rect(rect, color=color, width=0.8, dashes=dashes)
                    if labels:
                        at = pymupdf.Point(ev.box[0] * w, max(ev.box[1] * h - 1.0, 4.0)) * unturn
                        page.insert_text(at, entry.path, fontsize=4, fontname="helv", color=color,
                                         rotate=page.rotation)
        return page.get_pixmap(dpi=dpi).tobytes("png")


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
    write_bytes_atomic(out, png, force=True)
