"""Opening a bundle's PDF: every way it can be unusable is one line naming the file.

A PDF that needs a password, is not a PDF, has no pages, has an empty page box, or is damaged (MuPDF
had to repair it: truncated, a broken cross-reference table) is refused before anything reads it, so
no command prints MuPDF's own complaints or a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gtkit.errors import GtkitError


def open_pdf(path: Path) -> Any:
    """The opened `pymupdf.Document` (close it, or use it as a context manager), or a GtkitError."""
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    try:
        doc = pymupdf.open(path)
    except Exception as e:  # noqa: BLE001 - any parse failure is the file's problem
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
