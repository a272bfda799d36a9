"""Verbs over bundles and datasets: check, show, score."""

from __future__ import annotations

from pathlib import Path

import typer

from gtkit.cli import app
from gtkit.errors import GtkitError


@app.command()
def check(path: Path = typer.Argument(..., help="A bundle folder or a dataset folder.")) -> None:
    """Validate bundles: format, hashes, schema, one entry per leaf, pages and boxes in range."""
    from gtkit.check import check_path

    checked, problems = check_path(path)
    for problem in problems:
        typer.echo(str(problem))
    if problems:
        typer.echo(f"{len(problems)} problem(s) in {checked} bundle(s)", err=True)
        raise typer.Exit(1)
    typer.echo(f"ok: {checked} bundle(s) checked, no problems")
