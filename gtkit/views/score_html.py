"""`gtkit score --html OUT/`: the score report as a static folder of HTML pages (see `gtkit.views.html_pages`).

- `index.html`: the overall row and the slices (`ScoreReport.table`), the clean/degraded pairs when the run
  has any, and every document, worst first (value F1, then word and page grounding F1, then doc id);
- `docs/doc-NNNN.html` (NNNN: the document's place in the run): its numbers, then its cells, the ones that
  cost something first (truth, prediction, outcome, the rule that matched, grounding; `gtkit.scoring.explain`), then
  its pages with the truth's evidence boxes coloured by their cell's outcome and the predicted citation boxes
  dashed over them; a problem cell links to its box on the page;
- `img/doc-NNNN-pPPP.png`: the page pictures, drawn by PyMuPDF in the worker pool.

Only pages that show a box are drawn, those with the most problem boxes first, at most `max_pages` per
document; at most `max_cells` cells are listed per document (problems first): a long list stays a page a
browser opens at once (the `--explain` file has every cell).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gtkit.format.bundle import read_bundle
from gtkit.scoring.engine import DocumentScore
from gtkit.scoring.predictions import bad_citation, load_prediction
from gtkit.scoring.report import METRICS, ScoreReport, parse_axes
from gtkit.views.html_pages import PageJob, box_style, draw_pages, render, write_view
from gtkit.views.page_png import Mark, evidence_marks
from gtkit.workers import Pool

OUTCOME_COLORS = {
    "correct": (0.0, 0.6, 0.25),
    "wrong": (0.85, 0.1, 0.1),
    "missing_record": (0.9, 0.5, 0.0),
    "no_prediction": (0.9, 0.5, 0.0),
    "pending": (0.5, 0.5, 0.5),
}
CITED_COLOR = (0.1, 0.3, 0.95)
OK_OUTCOMES = ("correct", "pending")
DEFAULT_MAX_PAGES = 10
DEFAULT_MAX_CELLS = 2000


@dataclass
class ScoredDocument:
    """A scored document (with its explained cells) and the bundle folder it was scored against."""

    score: DocumentScore
    folder: Path


def worst_first(docs: list[ScoredDocument]) -> list[ScoredDocument]:
    """Lowest value F1 first, then lowest word and page grounding F1 (none counts as best), then doc id."""
    def key(d: ScoredDocument) -> tuple[float, float, float, str]:
        s = d.score
        return (s.value.f1, s.word.f1 if s.word else 2.0, s.page.f1 if s.page else 2.0, s.doc_id)
    return sorted(docs, key=key)


def _rule(cell: dict[str, Any]) -> str:
    """The rule behind a cell's outcome, in words."""
    outcome = cell["outcome"]
    if outcome == "correct":
        return cell["matched"] or "accepted"
    return {"wrong": "no reading or leniency accepts it",
            "missing_record": "truth record paired with no predicted record",
            "extra_record": "predicted record paired with no truth record",
            "pending": "contested truth cell: not counted",
            "no_prediction": "no usable prediction"}.get(outcome, outcome)


def _grounding(g: dict[str, Any] | None) -> str:
    if g is None:
        return ""
    if not g["cited"]:
        return "not cited"
    parts = ["page ✓" if g["page"] else "page ✗"]
    if g["iou"] is not None:
        parts.append(f"IoU {g['iou']:.2f}")
    parts.append("word ✓" if g["word"] else "word ✗")
    return ", ".join(parts)


def _marks(cells: list[dict[str, Any]], entries: dict[str, Any], citations: dict[str, list[dict[str, Any]]],
           pages_total: int) -> tuple[list[Mark], list[tuple[int, Mark, str]]]:
    """Every box to draw for a document's cells, and the problem cells' first boxes (cell index, mark, title)."""
    marks: list[Mark] = []
    targets: list[tuple[int, Mark, str]] = []
    for k, cell in enumerate(cells):
        outcome = cell["outcome"]
        entry = entries.get(cell["truth"]) if cell["truth"] is not None else None
        if entry is not None:
            problem = outcome not in OK_OUTCOMES
            color = OUTCOME_COLORS.get(outcome, OUTCOME_COLORS["pending"])
            own = list(evidence_marks(entry, color, labels=problem, words=False))  # the value's box is enough here
            marks += own
            if problem and own:
                targets.append((k, own[0], f"{cell['truth']}: {outcome}"))
        cites = citations.get(cell["pred"], []) if cell["pred"] is not None else []
        marks += [Mark(c["page"], tuple(c["box"]), CITED_COLOR, None, True)
                  for c in cites if c.get("box") is not None and not bad_citation(c, pages_total)]
    return marks, targets


def _document_view(doc: ScoredDocument, stem: str, pred_dir: Path, *, dpi: int, max_pages: int,
                   max_cells: int) -> tuple[dict[str, Any], list[PageJob]]:
    """The template context of one document's page and the pictures it needs."""
    score = doc.score
    bundle = read_bundle(doc.folder, verify=False)
    cells = score.cells or []
    citations = load_prediction(pred_dir, score.doc_id).citations if score.prediction == "ok" else {}
    pages_total = bundle.gt.document.pages
    marks, targets = _marks(cells, {e.path: e for e in bundle.gt.fields}, citations, pages_total)
    problems = Counter(m.page for _, m, _ in targets)
    with_boxes = {m.page for m in marks}
    shown = sorted(sorted(with_boxes, key=lambda p: (-problems[p], p))[:max_pages])
    jobs = [PageJob(bundle.pdf_path, p, tuple(m for m in marks if m.page == p), dpi) for p in shown]
    overlays: dict[int, list[dict[str, str]]] = {p: [] for p in shown}
    anchor_of: dict[int, str] = {}  # cell index -> the id of its box over a drawn page
    for k, mark, title in targets:
        if mark.page in overlays:
            anchor_of[k] = f"c{k}"
            overlays[mark.page].append({"id": f"c{k}", "style": box_style(mark.box), "title": title})
    order = sorted(range(len(cells)), key=lambda k: (cells[k]["outcome"] in OK_OUTCOMES, k))[:max_cells]
    rows = [_row(k, cells[k], anchor_of.get(k)) for k in order]
    context = {
        "doc": score, "stem": stem, "counts": dict(sorted(Counter(c["outcome"] for c in cells).items())),
        "problem_rows": [r for r in rows if r["outcome"] not in OK_OUTCOMES],
        "ok_rows": [r for r in rows if r["outcome"] in OK_OUTCOMES],
        "hidden_cells": len(cells) - len(rows), "pages_total": pages_total,
        "pages": [{"number": p, "src": f"../img/{stem}-p{p:03d}.png", "overlays": overlays[p]} for p in shown],
        "hidden_pages": len(with_boxes) - len(shown),
    }
    return context, jobs


def _row(k: int, cell: dict[str, Any], anchor: str | None) -> dict[str, Any]:
    """One line of a document's cell table."""
    return {"n": k + 1, "truth": cell["truth"], "pred": cell["pred"], "readings": cell["readings"],
            "predicted": cell["predicted"], "outcome": cell["outcome"], "rule": _rule(cell),
            "grounding": _grounding(cell["grounding"]), "anchor": anchor}


def _index_context(report: ScoreReport, ranked: list[ScoredDocument], stems: dict[str, str],
                   title: str) -> dict[str, Any]:
    axes = list(parse_axes(report.by))
    frame = report.table()
    rows = [{"names": [str(r[a]) for a in axes] or ["overall"], "docs": int(r["docs"]),
             "metrics": [None if r[m] is None else float(r[m]) for m in METRICS]}
            for r in frame.to_dict(orient="records")]
    pairs = report.pairs()
    documents = []
    for rank, d in enumerate(ranked, 1):
        s = d.score
        counts = Counter(c["outcome"] for c in s.cells or ())
        documents.append({"rank": rank, "doc": s, "href": f"docs/{stems[s.doc_id]}.html",
                          "problems": {k: counts.get(k, 0) for k in ("wrong", "missing_record", "extra_record")}})
    return {"title": title, "axes": axes or ["slice"], "rows": rows, "documents": documents,
            "pairs": pairs["groups"] if pairs["documents"] else {}, "unknown": report.unknown,
            "bad_citations": sum(d.bad_citations for d in report.documents)}


def report_files(report: ScoreReport, docs: list[ScoredDocument], pred_dir: Path, pool: Pool, *, title: str,
                 dpi: int = 110, max_pages: int = DEFAULT_MAX_PAGES,
                 max_cells: int = DEFAULT_MAX_CELLS) -> Iterator[tuple[str, bytes]]:
    """Every file of the report, as (relative path, bytes)."""
    stems = {d.score.doc_id: f"doc-{k:04d}" for k, d in enumerate(docs, 1)}
    ranked = worst_first(docs)
    yield "index.html", render("score_index.html.j2", **_index_context(report, ranked, stems, title))
    jobs: list[tuple[str, PageJob]] = []
    for k, d in enumerate(ranked):
        stem = stems[d.score.doc_id]
        context, doc_jobs = _document_view(d, stem, pred_dir, dpi=dpi, max_pages=max_pages, max_cells=max_cells)
        nav = {"worse": stems[ranked[k - 1].score.doc_id] if k > 0 else None,
               "better": stems[ranked[k + 1].score.doc_id] if k + 1 < len(ranked) else None}
        yield f"docs/{stem}.html", render("score_doc.html.j2", title=title, rank=k + 1, nav=nav, **context)
        jobs += [(f"img/{stem}-p{job.page:03d}.png", job) for job in doc_jobs]
    for (name, _), (png, _) in zip(jobs, draw_pages([job for _, job in jobs], pool)):
        yield name, png


def write_score_html(out: Path, report: ScoreReport, docs: list[ScoredDocument], gt: Path, pred_dir: Path, *,
                     pool: Pool, force: bool = False, dpi: int = 110, max_pages: int = DEFAULT_MAX_PAGES,
                     max_cells: int = DEFAULT_MAX_CELLS) -> None:
    """Write the report folder `out` (atomically; `force` replaces an earlier HTML view, never an input)."""
    title = f"gtkit score: {Path(gt).resolve().name} vs {Path(pred_dir).resolve().name}"  # no absolute path
    files = report_files(report, docs, Path(pred_dir), pool, title=title, dpi=dpi, max_pages=max_pages,
                         max_cells=max_cells)
    write_view(out, "score", files, force=force, inputs=[gt, pred_dir])
