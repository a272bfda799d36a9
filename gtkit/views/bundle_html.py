"""`gtkit show BUNDLE --html OUT/`: every page of a bundle with its evidence boxes, as a static folder a person
opens from `file://` to look at a document before trusting it (see `gtkit.views.html_pages`).

- `index.html`: the bundle's provenance, tags and counts, and a thumbnail of every page linking to it;
- `pages/pNNN.html`: the page picture with every evidence box drawn in its trust's colour (labelled by the
  field's JSON Pointer with `labels`), each box also a hover target naming the field and its value, and the
  table of the fields cited on the page;
- `img/pNNN.png`, `thumbs/pNNN.png`: the pictures, drawn by PyMuPDF in the worker pool, once per page (the
  thumbnail is the same drawing scaled down).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gtkit.format.bundle import Bundle, read_bundle
from gtkit.views.html_pages import (
    PageJob,
    box_style,
    draw_pages,
    render,
    show_value,
    write_view,
)
from gtkit.views.page_png import TRUST_COLORS, Mark, evidence_marks
from gtkit.workers import Pool

THUMB_SHRINK = 2  # thumbnails are a quarter of the page picture's width


def _color_css(color: tuple[float, float, float]) -> str:
    return "rgb({},{},{})".format(*(round(255 * c) for c in color))


def _page_context(bundle: Bundle, page: int, marks: list[tuple[int, Mark]]) -> dict[str, Any]:
    """One page's picture overlays and field rows; `marks` are (field index, mark) on this page."""
    fields = bundle.gt.fields
    overlays, rows, seen = [], [], set()
    for k, (f, m) in enumerate(marks):
        entry = fields[f]
        value = show_value(entry.readings[0].value)
        overlays.append({"id": f"b{k}", "style": box_style(m.box), "title": f"{entry.path} = {value}"})
        if f not in seen:
            seen.add(f)
            rows.append({"anchor": f"b{k}", "path": entry.path, "trust": entry.trust,
                         "values": [r.value for r in entry.readings]})
    return {"overlays": overlays, "rows": rows}


def bundle_view_files(bundle: Bundle, pool: Pool, *, dpi: int = 110,
                      labels: bool = True) -> Iterator[tuple[str, bytes]]:
    """Every file of the bundle view, as (relative path, bytes)."""
    gt = bundle.gt
    pages = gt.document.pages
    on_page: dict[int, list[tuple[int, Mark]]] = {p: [] for p in range(1, pages + 1)}
    for f, entry in enumerate(gt.fields):
        for m in evidence_marks(entry, TRUST_COLORS[entry.trust], labels=labels):
            if m.page in on_page:
                on_page[m.page].append((f, m))
    trusts: Counter[str] = Counter(e.trust for e in gt.fields)
    legend = [{"trust": t, "color": _color_css(TRUST_COLORS[t])} for t in TRUST_COLORS if trusts[t]]
    common = {"title": f"gtkit show: {gt.doc_id}", "doc_id": gt.doc_id, "pages_total": pages, "legend": legend}
    prov = gt.provenance
    yield "index.html", render(
        "show_index.html.j2", **common, provenance=prov, tags=gt.tags.model_dump(exclude_defaults=True),
        fields=len(gt.fields), trusts=dict(sorted(trusts.items())),
        boxes=sum(len(v) for v in on_page.values()),
        pages=[{"number": p, "href": f"pages/p{p:03d}.html", "thumb": f"thumbs/p{p:03d}.png", "boxes": len(on_page[p])}
               for p in range(1, pages + 1)])
    for p in range(1, pages + 1):
        yield f"pages/p{p:03d}.html", render(
            "show_page.html.j2", **common, number=p, src=f"../img/p{p:03d}.png",
            prev=f"p{p - 1:03d}.html" if p > 1 else None, next=f"p{p + 1:03d}.html" if p < pages else None,
            **_page_context(bundle, p, on_page[p]))
    jobs = [PageJob(bundle.pdf_path, p, tuple(m for _, m in on_page[p]), dpi, THUMB_SHRINK)
            for p in range(1, pages + 1)]
    for job, (png, thumb) in zip(jobs, draw_pages(jobs, pool)):
        yield f"img/p{job.page:03d}.png", png
        assert thumb is not None
        yield f"thumbs/p{job.page:03d}.png", thumb


def write_bundle_html(bundle: Path, out: Path, *, pool: Pool, dpi: int = 110, labels: bool = True,
                      force: bool = False) -> None:
    """Write the view of the bundle folder `bundle` to the folder `out` (atomically; `force` replaces an earlier
    HTML view, never an input)."""
    from gtkit.files.outputs import check_output
    from gtkit.views.html_pages import is_html_view

    check_output(Path(out), force=force, inputs=[bundle], replaceable=is_html_view)  # before reading anything
    files = bundle_view_files(read_bundle(bundle), pool, dpi=dpi, labels=labels)
    write_view(out, "bundle", files, force=force, inputs=[bundle])
