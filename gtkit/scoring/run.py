"""`score_path`: a prediction folder scored against a bundle or a dataset, the report made, and on request
the explain lines and the HTML view written (`gtkit score`). The one scoring module that imports a view."""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path

from gtkit.errors import GtkitError
from gtkit.files.outputs import check_output
from gtkit.format.bundle import iter_bundle_dirs
from gtkit.format.decode import no_gc
from gtkit.scoring.engine import DocumentScore, missing_prediction, score_truth
from gtkit.scoring.explain import explain_lines, is_explain_file, write_explain
from gtkit.scoring.pairing import DEFAULT_MEMORY_BUDGET
from gtkit.scoring.predictions import MISSING, load_prediction, unknown_predictions
from gtkit.scoring.report import ScoreReport, parse_axes
from gtkit.scoring.truth import Truth
from gtkit.workers import DEFAULT_WORKERS, Pool, pool_for


def score_path(gt: Path, pred_dir: Path, *, by: str | None = None, memory_budget: int = DEFAULT_MEMORY_BUDGET,
               workers: int = DEFAULT_WORKERS, pool: Pool | None = None, explain: Path | None = None,
               force: bool = False, progress: Callable[[int, int], None] | None = None, html: Path | None = None,
               html_pages: int = 10, before_writing: Callable[[ScoreReport], None] | None = None) -> ScoreReport:
    """Score a prediction folder against a bundle or a dataset; `progress(done, total)` after each document.

    A long truth the fast reader declines (an older format) has its field entries validated in the `pool`
    (or one of `workers` made for this call) while it is scored. With `explain`, every cell's outcome is written
    there as JSON Lines (`gtkit.scoring.explain`; `force` replaces an earlier explain file, never anything else).
    With `html`, the report is also written there as a static folder of pages (`gtkit.views.score_html`, at most
    `html_pages` page pictures per document); `force` replaces an earlier HTML view. `before_writing(report)` runs
    once everything is scored and before either is written (the CLI renders its tables there): a run that fails
    on the way writes nothing, and the explain lines are made before the HTML folder is written, so what is left
    to fail after it is the disk.

    The cyclic garbage collector is paused meanwhile: reading and scoring a long document build millions of
    objects that hold no reference cycles, and each collection on the way would walk all of them again (a
    fifth of the time of scoring a 26,725-row list); what they leave is freed by reference counting."""
    parse_axes(by)
    if not Path(pred_dir).is_dir():
        raise GtkitError("prediction folder not found", pred_dir)
    if explain is not None:
        check_output(Path(explain), force=force, inputs=[gt, pred_dir], replaceable=is_explain_file)
    if html is not None:
        from gtkit.views.html_pages import is_html_view

        check_output(Path(html), force=force, inputs=[gt, pred_dir], replaceable=is_html_view)
    explain_cells = explain is not None or html is not None
    docs = []
    doc_folders = []
    folders = list(iter_bundle_dirs(gt))
    with pool_for(pool, workers, preload=PRELOAD) as pool, no_gc():  # see `score_path`'s docstring
        for index_doc_id, folder in folders:
            docs.append(_score_document(folder, index_doc_id, pred_dir, pool, memory_budget, explain_cells))
            doc_folders.append(folder)
            gc.collect(0)  # whatever reference cycles the document left (none known): a dataset never piles them up
            if progress is not None:
                progress(len(docs), len(folders))
        report = ScoreReport(documents=docs, by=by, unknown=unknown_predictions(pred_dir, {d.doc_id for d in docs}))
        if before_writing is not None:
            before_writing(report)
        lines = explain_lines(docs) if explain is not None else b""
        if html is not None:
            from gtkit.views.score_html import ScoredDocument, write_score_html

            write_score_html(Path(html), report, [ScoredDocument(d, f) for d, f in zip(docs, doc_folders)], gt,
                             pred_dir, pool=pool, force=force, max_pages=html_pages)
    if explain is not None:
        write_explain(Path(explain), lines, force=force, inputs=[gt, pred_dir])
    return report


def _score_document(folder: Path, index_doc_id: str | None, pred_dir: Path, pool: Pool, memory_budget: int,
                    explain: bool) -> DocumentScore:
    """One document of `score_path`: its truth read (a long one's entries validated in the `pool` meanwhile), its
    prediction loaded and scored, the truth confirmed. The truth and the prediction are freed on return, before
    the next document is read: the collector, back on after the run, would walk them."""
    truth = Truth.read(folder, pool)
    try:
        if index_doc_id is not None and truth.doc_id != index_doc_id:
            raise GtkitError(f"dataset.jsonl says doc_id {index_doc_id!r}, gt.json says {truth.doc_id!r}", folder)
        loaded = load_prediction(pred_dir, truth.doc_id)
    except BaseException:
        if truth.field_check is not None:
            truth.field_check.cancel()
        raise
    if not loaded.usable:
        doc = missing_prediction(truth, loaded.failure or MISSING, loaded.detail, explain=explain)
    else:
        doc = score_truth(truth, loaded.predicted, loaded.citations, memory_budget=memory_budget, explain=explain)
    truth.confirm()
    return doc


PRELOAD = ("gtkit.format",)  # what the workers import once, in the fork server
