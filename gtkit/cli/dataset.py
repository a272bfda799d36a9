"""Verbs over whole datasets: card, export, import."""

from __future__ import annotations

from pathlib import Path

import typer

from gtkit.cli.root import app
from gtkit.errors import GtkitError

EXPORT_FORMATS = ("extractbench", "parquet")
IMPORT_FORMATS = ("extractbench",)


@app.command()
def card(
    dataset: Path = typer.Argument(..., help="A dataset folder (or one bundle)."),
    out: Path = typer.Option(None, "--out", help="Write the card into this folder instead of into the dataset."),
    force: bool = typer.Option(False, "--force", help="Replace a card gtkit wrote before (never anything else)."),
) -> None:
    """Write CARD.md and its figures: families and splits, sizes, tag coverage, recipes, trust of cells."""
    from gtkit.dataset.card import write_card

    typer.echo(f"wrote {write_card(dataset, out, force=force)}")


@app.command()
def export(
    dataset: Path = typer.Argument(..., help="A dataset folder (or one bundle)."),
    fmt: str = typer.Option(..., "--format", help="extractbench | parquet"),
    out: Path = typer.Option(..., "--out", help="The folder to write."),
    force: bool = typer.Option(False, "--force", help="Replace an earlier export (never anything else)."),
) -> None:
    """Export a dataset: ExtractBench's layout (sidecars and split rows), or parquet tables with the PDFs."""
    if fmt == "extractbench":
        from gtkit.dataset.export_eb import export_extractbench

        counts = export_extractbench(dataset, out, force=force)
        typer.echo(f"{sum(counts.values())} document(s) ({', '.join(f'{k} {v}' for k, v in counts.items())}) -> {out}")
    elif fmt == "parquet":
        from gtkit.dataset.export_parquet import export_parquet

        docs, cells = export_parquet(dataset, out, force=force)
        typer.echo(f"{docs} document(s), {cells} cell(s) -> {out}")
    else:
        raise GtkitError(f"unknown export format {fmt!r} (known: {', '.join(EXPORT_FORMATS)})")


@app.command("import")
def import_(
    source: Path = typer.Argument(..., help="A folder of ExtractBench test cases (<stem>.pdf + <stem>.test.json)."),
    fmt: str = typer.Option(..., "--format", help="extractbench"),
    out: Path = typer.Option(..., "--out", help="The dataset folder to write."),
    force: bool = typer.Option(False, "--force", help="Replace a dataset gtkit wrote (never anything else)."),
) -> None:
    """Import test cases of another benchmark as gtkit bundles (gold taken as published: `gtkit check` it)."""
    if fmt not in IMPORT_FORMATS:
        raise GtkitError(f"unknown import format {fmt!r} (known: {', '.join(IMPORT_FORMATS)})")
    from gtkit.dataset.import_eb import import_extractbench

    typer.echo(f"{import_extractbench(source, out, force=force)} document(s) -> {out}")
