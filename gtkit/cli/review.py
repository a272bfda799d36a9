"""The review verb: a local web page to settle a consensus output's queue, or to correct any dataset."""

from __future__ import annotations

from pathlib import Path

import typer

from gtkit.cli.root import app


@app.command()
def review(
    dataset: Path = typer.Argument(...,
                                   help="A consensus output (queue.jsonl), or any dataset or bundle (every cell)."),
    port: int = typer.Option(8765, "--port", help="Port on 127.0.0.1 (0: any free port)."),
    who: str = typer.Option(None, "--who", help="Who decides (default: the login name)."),
    every_cell: bool = typer.Option(False, "--all", help="Also list every settled cell, to correct any of them."),
) -> None:
    """Settle the queue (or correct any cell) in a browser: decisions go to DATASET/decisions.jsonl."""
    from gtkit.review.serve import serve

    serve(dataset, port=port, who=who, every_cell=every_cell, announce=typer.echo)
