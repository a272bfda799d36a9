"""Verbs of the synth pipeline: synth, families."""

from __future__ import annotations

from pathlib import Path

import typer

from gtkit.cli.progress import progress_bar
from gtkit.cli.root import app
from gtkit.workers import DEFAULT_WORKERS, Pool


@app.command()
def synth(
    family: str = typer.Option(..., "--family", help="A family folder under families/ (see `gtkit families`)."),
    out: Path = typer.Option(..., "--out", help="Output bundle folder (or dataset folder with --docs)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the records and layout choices (0 or more)."),
    records: int = typer.Option(None, "--records", help="Records per document (default: the family's)."),
    docs: int = typer.Option(None, "--docs", help="Make a dataset of this many documents with derived seeds."),
    data: Path = typer.Option(None, "--data", help="Render your own records (.jsonl or .csv) instead."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output folder."),
    workers: int = typer.Option(DEFAULT_WORKERS, "--workers", "-j",
                                help="Worker processes beside this one for long documents (1: none; output bytes do "
                                "not depend on it)."),
) -> None:
    """Synthetic long lists: records first, then the PDF, then every value's page and word boxes read back."""
    from gtkit.synth.pipeline import PRELOAD
    from gtkit.synth.pipeline import synth as run

    with Pool(workers, preload=PRELOAD) as pool, progress_bar("synth", terminal_only=True) as progress:
        made = run(family, out=out, seed=seed, records=records, docs=docs, data=data, force=force, pool=pool,
                   progress=progress)
    pages = sum(m.pages for m in made)
    cells = sum(m.cells for m in made)
    what = f"{len(made)} document(s)" if docs is not None else made[0].doc_id
    typer.echo(f"{what}: {pages} page(s), {cells} field(s), all checks passed -> {out}")


@app.command()
def families() -> None:
    """List the synth families: name, description, tags, default size."""
    from gtkit.synth.family import all_families

    for f in all_families():
        tags = [*f.tags.get("task", []), *f.tags.get("perception", []), *f.tags.get("structure", [])]
        if f.tags.get("domain"):
            tags.append(f.tags["domain"])
        typer.echo(f"{f.name}: {f.description} [{' '.join(tags)}] default {f.default_records} records")
