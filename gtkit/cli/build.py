"""The build verb: a whole dataset from a plan."""

from __future__ import annotations

from pathlib import Path

import typer

from gtkit.cli.progress import progress_bars
from gtkit.cli.root import app
from gtkit.workers import DEFAULT_WORKERS


@app.command()
def build(
    plan: Path = typer.Argument(..., help="The plan (TOML): families, recipes, consensus inputs, splits; or the "
                                "name of a plan shipped with gtkit (small-plan)."),
    out: Path = typer.Option(..., "--out", "-o", help="The dataset folder (a build resumes in it)."),
    workers: int = typer.Option(DEFAULT_WORKERS, "--workers", "-j", help="Local worker processes."),
    executor: str = typer.Option("local", "--executor", help="local (the worker pool) or dask (a cluster)."),
    scheduler: str = typer.Option(None, "--scheduler", help="Address of the Dask scheduler (tcp://host:8786)."),
    force: bool = typer.Option(False, "--force", help="Start over in a folder gtkit wrote (another plan's build)."),
) -> None:
    """Build a dataset from a plan: resumable (a rerun makes only what is missing), parallel, same bytes."""
    from gtkit.builder.run import build as run

    with progress_bars() as progress:
        report = run(plan, out, workers=workers, executor=executor, scheduler=scheduler, force=force,
                     progress=progress)
    made = ", ".join(f"{n} {k}" for k, n in report.made.items() if n) or "nothing"
    present = sum(report.present.values())
    splits = ", ".join(f"{name or '(no split)'} {n}" for name, n in report.splits.items()) if any(report.splits) else ""
    typer.echo(f"made {made}" + (f" ({present} task(s) already done)" if present else "")
               + f"; {report.documents} document(s) in {out}" + (f": {splits}" if splits else ""))
