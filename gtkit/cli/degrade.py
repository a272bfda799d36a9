"""Verbs of the degrade pipeline: degrade, recipes."""

from __future__ import annotations

from pathlib import Path

import typer

from gtkit.cli.progress import progress_bar
from gtkit.cli.root import app
from gtkit.workers import Pool


@app.command()
def degrade(
    source: Path = typer.Argument(..., help="A bundle folder, or a dataset folder (every bundle is degraded)."),
    recipe: str = typer.Option(None, "--recipe", "-r", help="A recipe name (see `gtkit recipes`) or a TOML file."),
    seed: int = typer.Option(None, "--seed", "-s", help="Seed of every draw (default 0)."),
    out: Path = typer.Option(..., "--out", "-o", help="Output bundle folder (a dataset folder for a dataset)."),
    dpi: int = typer.Option(None, "--dpi", help="Raster resolution of the degraded pages (default 200)."),
    replay: Path = typer.Option(None, "--replay", help="Redo a recorded run: a degraded bundle, its gt.json, or a "
                                "dataset of them; draws nothing."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output."),
    workers: int = typer.Option(1, "--workers", "-j", help="Worker processes (output bytes do not depend on it)."),
) -> None:
    """Re-capture bundles as scans: image-only PDF, boxes moved by each page's homography."""
    from gtkit.degrade.pipeline import PRELOAD
    from gtkit.degrade.pipeline import degrade as run

    with Pool(workers, preload=PRELOAD) as pool, progress_bar("degrade") as progress:
        folders = run(source, out, recipe=recipe, seed=seed, dpi=dpi, replay=replay, force=force, pool=pool,
                      progress=progress)
    typer.echo(f"wrote {len(folders)} bundle(s): {out}")


@app.command()
def recipes() -> None:
    """List the scan recipes with a one-line description."""
    from gtkit.degrade.recipe import list_recipes

    rows = list_recipes()
    width = max((len(n) for n, _ in rows), default=0)
    for name, desc in rows:
        typer.echo(f"{name:<{width}}  {desc}")
