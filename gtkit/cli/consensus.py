"""Verbs of the consensus pipeline: consensus, adjudicate, audit."""

from __future__ import annotations

from pathlib import Path

import typer

from gtkit.cli.progress import progress_bar
from gtkit.cli.root import app


@app.command()
def consensus(
    schema: Path = typer.Option(..., "--schema", help="The task JSON Schema (frozen: runs declare its sha256)."),
    docs: Path = typer.Option(..., "--docs", help="Folder of <doc_id>.pdf."),
    runs: Path = typer.Option(..., "--runs", help="Folder of <system>/<doc_id>.json (+ .citations.json)."),
    systems: Path = typer.Option(..., "--systems", help="systems.toml: family, cites, schema_sha256 per system."),
    out: Path = typer.Option(..., "--out", help="Output dataset folder."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output folder."),
    citing: str = typer.Option(None, "--citing", help="The one system whose boxes are used."),
    family: str = typer.Option(None, "--family", help="Document family recorded in provenance."),
    no_rescore: bool = typer.Option(False, "--no-rescore",
                                    help="Skip re-scoring the systems against the candidate truth."),
    promote: str = typer.Option("unanimous", "--promote",
                                help="Which cells become truth without review: unanimous (only cells every "
                                "voting system agrees on; every disagreement is queued) or majority (a clear "
                                "majority too, unless schema ambiguity or null over a value)."),
) -> None:
    """Candidate ground truth from several systems' outputs: agreed cells, a queue of contested ones, a report."""
    from gtkit.consensus.run import run_consensus

    with progress_bar("consensus") as progress:
        rep = run_consensus(schema, docs, runs, systems, out, force=force, citing=citing, family=family,
                            do_rescore=not no_rescore, promote=promote, progress=progress)
    t = rep["totals"]
    typer.echo(f"{rep['documents']} document(s), {t['cells']} cells: {t['agreed']} agreed ({promote} rule), "
               f"{t['pending']} pending; "
               f"{t['queued']} queued, {t['to_draw']} boxes to draw -> {out}")


@app.command()
def adjudicate(
    dataset: Path = typer.Argument(..., help="A consensus output folder, or any dataset or bundle to correct."),
    decisions: Path = typer.Option(..., "--decisions", help="decisions.jsonl: one decision per line."),
    who: str = typer.Option(None, "--who", help="Who decided, for lines that do not say."),
    now: bool = typer.Option(False, "--now", help="Stamp lines that carry no 'when' with the current UTC time."),
    force: bool = typer.Option(False, "--force", help="Let a decision change a cell a person decided (trust "
                               "human) without naming the value it replaces (\"supersedes\")."),
) -> None:
    """Apply a person's decisions (accept a vote, edit, null, redraw or accept a box) with an audit trail."""
    from gtkit.consensus.adjudicate import adjudicate as run

    n, left = run(dataset, decisions, who=who, now=now, force=force)
    typer.echo(f"{n} decision(s) applied; {left} item(s) left in the queue" if left is not None else
               f"{n} decision(s) applied; each corrected bundle records them in provenance.parameters.corrections")


@app.command()
def audit(
    gt: Path = typer.Option(..., "--gt", help="An existing dataset (or bundle)."),
    runs: Path = typer.Option(..., "--runs", help="Folder of <system>/<doc_id>.json."),
    systems: Path = typer.Option(None, "--systems", help="systems.toml (families; schema hashes are checked)."),
    out: Path = typer.Option(Path("audit-queue.jsonl"), "--out", help="Where to write the review queue."),
    min_miss: float = typer.Option(0.5, "--min-miss", help="Queue cells missed by at least this share of families."),
    force: bool = typer.Option(False, "--force", help="Replace an existing queue file."),
) -> None:
    """Hunt cells of an existing truth that many systems miss, and queue them for review."""
    from gtkit.consensus.audit import audit as run

    n_cells, n_queued = run(gt, runs, out, systems=systems, min_miss=min_miss, force=force)
    typer.echo(f"{n_cells} cells audited, {n_queued} queued -> {out}")
