"""Drawing a plan with the reportlab canvas: one text object per page, fixed metadata.

`invariant=1` removes the creation date and the random document id, so the same
plan gives the same bytes. The canvas starts in the family's own font, so no
unembedded standard font is ever referenced.
"""

from __future__ import annotations

import io
from collections.abc import Callable

from reportlab.pdfgen import canvas

from gtkit.synth.plan import Plan, chrome_and_header


def render_pdf(plan: Plan, *, title: str, on_page: Callable[[int], None] | None = None,
               initial_font: str | None = None) -> bytes:
    """The PDF bytes of `plan` (`initial_font` exists for tests: a standard font is never embedded)."""
    width, height = plan.page_size
    buf = io.BytesIO()
    c = canvas.Canvas(
        buf,
        pagesize=(width, height),
        invariant=1,
        initialFontName=initial_font or plan.fonts["regular"],
        initialFontSize=8,
    )
    c.setTitle(title)
    c.setAuthor("gtkit synth")
    c.setCreator("gtkit synth")
    c.setSubject("synthetic document, ground truth constructed")
    for p, pp in enumerate(plan.pages):
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
