"""Verbs that examine bundles and datasets: check (validate them), show (draw their evidence), score
(predictions against them); and the score table, which `gtkit demo` prints too."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from gtkit.cli.progress import progress_bar
from gtkit.cli.root import app
from gtkit.workers import DEFAULT_WORKERS, Pool

if TYPE_CHECKING:  # the scorer is imported when a verb runs, not when the command starts
    from gtkit.scoring.report import ScoreReport


@app.command()
def check(
    path: Path = typer.Argument(..., help="A bundle folder or a dataset folder."),
    workers: int = typer.Option(1, "--workers", "-j", help="Worker processes checking bundles in parallel (the "
                                "problems are printed in dataset order whatever the number)."),
) -> None:
    """Validate bundles: format, hashes, schema, one entry per leaf, pages and boxes in range."""
    from gtkit.check import check_path
    from gtkit.pipelines import CHECK_PRELOAD, CHECKS

    with Pool(workers, preload=CHECK_PRELOAD) as pool, progress_bar("check") as progress:
        checked, problems = check_path(path, CHECKS, progress, pool=pool)
    for problem in problems:
        typer.echo(str(problem))
    if problems:
        typer.echo(f"{len(problems)} problem(s) in {checked} bundle(s)", err=True)
        raise typer.Exit(1)
    typer.echo(f"ok: {checked} bundle(s) checked, no problems")


@app.command()
def show(
    bundle: Path = typer.Argument(..., help="A bundle folder."),
    page: int = typer.Option(1, "--page", min=1, help="1-based page number (with --out)."),
    out: Path = typer.Option(None, "--out", help="PNG file to write: one page."),
    html: Path = typer.Option(None, "--html", help="Folder to write: every page with its boxes, an index of "
                              "thumbnails; opens from file://."),
    dpi: int = typer.Option(110, "--dpi", min=36, max=600, help="Rendering resolution."),
    labels: bool = typer.Option(True, "--labels/--no-labels", help="Write each box's JSON Pointer above it."),
    workers: int = typer.Option(1, "--workers", "-j", help="Worker processes drawing pages (with --html)."),
    force: bool = typer.Option(False, "--force",
                               help="Replace an existing PNG or --html folder (never any other file)."),
) -> None:
    """Draw the ground-truth evidence boxes (and labels) over a rendered page, as a PNG, or every page as HTML."""
    from gtkit.errors import GtkitError

    if (out is None) == (html is None):
        raise GtkitError("give --out PAGE.png (one page) or --html FOLDER (every page), not both")
    if html is not None:
        from gtkit.views.bundle_html import write_bundle_html

        with Pool(workers) as pool:
            write_bundle_html(bundle, html, pool=pool, dpi=dpi, labels=labels, force=force)
        typer.echo(f"wrote {html / 'index.html'}")
        return
    from gtkit.views.page_png import write_evidence_png

    write_evidence_png(bundle, page, out, dpi=dpi, labels=labels, force=force)
    typer.echo(f"wrote {out}")


def pairs_views(pairs: dict) -> list:
    """The paired measurement: per recipe, each F1 clean, degraded and the difference (points)."""
    from rich.table import Table

    table = Table(title="clean vs degraded (paired by provenance.parent)")
    for col in ("recipe", "pairs", "value F1", "page F1", "word F1"):
        table.add_column(col, justify="left" if col == "recipe" else "right")
    for name, g in pairs["groups"].items():
        cells = [f"{_pct(g[f'{m}_clean'])} -> {_pct(g[f'{m}_degraded'])} ({_delta(g[f'{m}_delta'])})"
                 for m in ("value_f1", "page_f1", "word_f1")]
        table.add_row(name, str(g["pairs"]), *cells)
    views: list = [table]
    if pairs["without_parent"]:
        views.append(f"{len(pairs['without_parent'])} degraded document(s) without their parent in this run: "
                     f"{', '.join(pairs['without_parent'][:10])}")
    return views


def _delta(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.1f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


@app.command()
def score(
    gt: Path = typer.Option(..., "--gt", help="The ground truth: a dataset folder or one bundle."),
    pred: Path = typer.Option(..., "--pred", help="Folder of <doc_id>.json predictions (+ optional .citations.json)."),
    by: str = typer.Option(None, "--by", help="Slice by task | task.sub | perception | structure | length | domain | "
                           "grounding, or two of them crossed: --by task,length."),
    as_json: bool = typer.Option(False, "--json", help="Print the machine-readable result, one entry per document."),
    memory_budget_mb: int = typer.Option(1024, "--memory-budget-mb", min=16,
                                          help="Largest dense assignment block; larger blocks are approximated "
                                               "and flagged."),
    workers: int = typer.Option(DEFAULT_WORKERS, "--workers", "-j",
                                help="Worker processes beside this one: a long truth the fast reader declines (an "
                                "older format) is validated by one while it is scored (1: none)."),
    explain: Path = typer.Option(None, "--explain", help="Write one JSON line per cell: its outcome and why."),
    pairs: bool = typer.Option(False, "--pairs", help="Pair each degraded document with its parent: F1 of both "
                               "and the difference, per recipe."),
    html: Path = typer.Option(None, "--html", help="Also write the report as a static HTML folder: tables, one page "
                              "per document (worst first) with its cells and page pictures; opens from file://."),
    html_pages: int = typer.Option(10, "--html-pages", min=1, help="Most page pictures drawn per document in the "
                                   "--html report (the pages with the most problem boxes first)."),
    force: bool = typer.Option(False, "--force", help="Replace an earlier --explain file or --html folder "
                               "(never any other file)."),
) -> None:
    """Score predictions: value P/R/F1 and word/page grounding F1, overall and per slice."""
    import json

    from rich.console import Console

    from gtkit.scoring.run import PRELOAD, score_path

    views: list = []

    def render(report: ScoreReport) -> None:
        """What is printed, made before any output is written (a failure here leaves nothing behind)."""
        if as_json:
            views.append(json.dumps(report.to_dict(pairs=pairs), indent=1))
            return
        views.extend(report_views(report, f"gtkit score: {gt} vs {pred}"))
        if pairs:
            views.extend(pairs_views(report.pairs()))

    with Pool(workers, preload=PRELOAD) as pool, progress_bar("score") as progress:
        score_path(gt, pred, by=by, memory_budget=memory_budget_mb << 20, pool=pool, explain=explain, force=force,
                   progress=progress, html=html, html_pages=html_pages, before_writing=render)
    if as_json:
        typer.echo(views[0])
        return
    console = Console()
    for view in views:
        console.print(view)
    if explain is not None:
        typer.echo(f"every cell explained: {explain}")
    if html is not None:
        typer.echo(f"report: {html / 'index.html'}")


def print_report(report: ScoreReport, title: str) -> None:
    """Print the score table and its notes (`report_views`)."""
    from rich.console import Console

    console = Console()
    for view in report_views(report, title):
        console.print(view)


def report_views(report: ScoreReport, title: str) -> list:
    """The score table (overall and per slice: value P/R/F1, page and word grounding F1, docs) and the notes
    under it, as things to print."""
    from rich.table import Table

    from gtkit.scoring.report import METRICS

    frame = report.table()
    axes = [c for c in frame.columns if c not in ("docs", *METRICS)]
    table = Table(title=title)
    for col in (*(axes or ["slice"]), "docs", "value P", "value R", "value F1", "page F1", "word F1"):
        table.add_column(col, justify="left" if col in (*axes, "slice") else "right")
    for r in frame.to_dict(orient="records"):  # by column name: an axis such as task.sub is no identifier
        names = [str(r[a]) for a in axes] or ["overall"]
        table.add_row(*names, str(r["docs"]), *(_pct(None if r[m] != r[m] else r[m]) for m in METRICS))
    views: list = [table]
    unusable = [f"{d.doc_id} ({d.prediction})" for d in report.documents if d.prediction != "ok"]
    approx = [d.doc_id for d in report.documents if d.approximate]
    bad = sum(d.bad_citations for d in report.documents)
    if unusable:
        views.append(f"{len(unusable)} document(s) had no usable prediction and score 0: {', '.join(unusable[:10])}")
    if report.unknown:
        views.append(f"{len(report.unknown)} prediction file(s) name no document of the truth: "
                     f"{', '.join(report.unknown[:10])}")
    if bad:
        views.append(f"{bad} citation(s) named a page the document lacks or an invalid box: they ground nothing")
    if approx:
        views.append(f"{len(approx)} document(s) aligned approximately (over the memory budget): "
                     f"{', '.join(approx[:10])}")
    return views
