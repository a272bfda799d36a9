"""Drawing a plan with the reportlab canvas: one text object per page, the family's metadata.

`invariant=1` removes the clock and the random document id, so the same plan gives the
same bytes. The info dictionary holds what the family's real documents carry (family.toml
`[pdf]`, `gtkit.synth.pdfinfo`) and nothing else: no key is written with reportlab's
placeholders ("untitled", "anonymous"), and the creation date is the document's own. The canvas
starts in the family's own font, so no unembedded standard font is ever referenced.

A rotated plan (`Plan.rotate` 90 or 270) is landscape content on a portrait sheet:
the sheet's MediaBox is the plan's page turned a quarter, the page carries /Rotate,
and the content is drawn through the matrix that undoes the viewer's turn, so a
viewer shows the plan's page upright. With /Rotate 90 (the viewer turns the sheet
clockwise) a point (X, Y) of the landscape page, y up, sits at (H - Y, X) on the
sheet, H the landscape height; with /Rotate 270 at (Y, W - X), W its width.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from reportlab.pdfbase import pdfdoc  # type: ignore[import-untyped]  # types-reportlab is not a dependency
from reportlab.pdfgen import canvas  # type: ignore[import-untyped]  # as above

from gtkit.synth.pdfinfo import DocInfo
from gtkit.synth.plan import Plan, chrome_and_header


class _Info(pdfdoc.PDFInfo):
    """reportlab's info dictionary with only the keys `info` sets (reportlab writes every key, with
    placeholders for the unset ones), the creation date as modification date too."""

    def __init__(self, info: DocInfo):
        super().__init__()
        self.doc_info = info
        for key in ("title", "author", "subject", "creator"):
            setattr(self, key, getattr(info, key) or "")
        if info.producer:
            self.producer = info.producer

    def format(self, document: Any) -> Any:  # reportlab's signature
        i = self.doc_info
        d = {key.capitalize(): pdfdoc.PDFString(value) for key, value in
             (("title", i.title), ("author", i.author), ("subject", i.subject), ("creator", i.creator)) if value}
        d["Producer"] = pdfdoc.PDFString(self.producer)
        if i.created:
            d["CreationDate"] = d["ModDate"] = pdfdoc.PDFString(i.created)
        return pdfdoc.PDFDictionary(d).format(document)


def render_pdf(plan: Plan, *, info: DocInfo | None = None, on_page: Callable[[int], None] | None = None,
               initial_font: str | None = None) -> bytes:
    """The PDF bytes of `plan` (`initial_font` exists for tests: a standard font is never embedded)."""
    width, height = plan.page_size
    buf = io.BytesIO()
    c = canvas.Canvas(
        buf,
        pagesize=(width, height),  # with /Rotate 90 or 270, reportlab writes the MediaBox turned (the sheet)
        invariant=1,
        initialFontName=initial_font or plan.fonts["regular"],
        initialFontSize=8,
    )
    c._doc.info = _Info(info or DocInfo())  # read when the file is written (reportlab's canvas has no setter)
    for p, pp in enumerate(plan.pages):
        if plan.rotate:
            c.setPageRotation(plan.rotate)
            c.transform(*_UNTURN[plan.rotate](width, height))
        for x0, y0, x1, y1, lw in pp.rules:
            c.setLineWidth(lw)
            c.line(x0, height - y0, x1, height - y1)
        chrome_runs, _ = chrome_and_header(pp, p)
        t = c.beginText()
        current = None
        for runs in (chrome_runs, pp.body_runs):
            for run in runs:
                key = (run.font, run.size)
                if key != current:
                    t.setFont(run.font, run.size)
                    current = key
                t.setTextOrigin(run.x, height - run.y)
                t.textOut(run.text)
        c.drawText(t)
        c.showPage()
        if on_page is not None:
            on_page(p)
    c.save()
    return buf.getvalue()


_UNTURN = {  # the matrix (a, b, c, d, e, f) from the landscape page (w x h, y up) to the sheet under /Rotate
    90: lambda w, h: (0, 1, -1, 0, h, 0),
    270: lambda w, h: (0, -1, 1, 0, 0, w),
}
