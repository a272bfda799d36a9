"""Draw a page's ground-truth evidence over its rendering, as a PNG."""

from __future__ import annotations

import pymupdf

from gtkit.errors import GtkitError
from gtkit.format import Bundle

TRUST_COLORS = {
    "constructed": (0.0, 0.45, 0.85),
    "agreed": (0.0, 0.6, 0.25),
    "adjudicated": (0.55, 0.2, 0.75),
    "human": (0.85, 0.45, 0.0),
    "pending": (0.85, 0.1, 0.1),
}


def render_evidence_png(bundle: Bundle, page_number: int, *, dpi: int = 110, labels: bool = True) -> bytes:
    """PNG bytes of page `page_number` (1-based) with every evidence box (or quad) on it drawn and labelled."""
    pages = bundle.gt.document.pages
    if not 1 <= page_number <= pages:
        raise GtkitError(f"page {page_number} is out of range (the document has {pages} pages)", bundle.pdf_path)
    try:
        doc = pymupdf.open(bundle.pdf_path)
    except Exception as e:  # noqa: BLE001 - report any parse failure as the file's problem
        raise GtkitError(f"not a readable PDF ({e})", bundle.pdf_path) from None
    with doc:
        page = doc[page_number - 1]
        w, h = page.rect.width, page.rect.height
        for entry in bundle.gt.fields:
            color = TRUST_COLORS[entry.trust]
            for reading_index, reading in enumerate(entry.readings):
                for ev in reading.evidence:
                    if ev.page != page_number or ev.box is None:
                        continue
                    dashes = None if reading_index == 0 else "[2] 0"
                    if ev.quad is not None:
                        tl, tr, br, bl = (pymupdf.Point(x * w, y * h) for x, y in ev.quad)
                        quad = pymupdf.Quad(tl, tr, bl, br)  # PyMuPDF orders ul, ur, ll, lr
                        page.draw_quad(quad, color=color, width=0.8, dashes=dashes)
                    else:
                        for word in ev.words or []:
                            page.draw_rect(pymupdf.Rect(word[0] * w, word[1] * h, word[2] * w, word[3] * h),
                                           color=color, width=0.25, dashes=dashes)
                        rect = pymupdf.Rect(ev.box[0] * w, ev.box[1] * h, ev.box[2] * w, ev.box[3] * h)
                        page.draw_rect(rect, color=color, width=0.8, dashes=dashes)
                    if labels:
                        page.insert_text((ev.box[0] * w, max(ev.box[1] * h - 1.0, 4.0)), entry.path,
                                         fontsize=4, fontname="helv", color=color)
        return page.get_pixmap(dpi=dpi).tobytes("png")
