"""The main job on a built-in default: `gtkit demo`."""

from __future__ import annotations

from pathlib import Path

import typer

from gtkit.cli.examine import print_report
from gtkit.cli.root import app


@app.command()
def demo(
    out: Path = typer.Option(Path("out/demo"), "--out", help="Output folder (a small dataset)."),
    family: str = typer.Option("creditor_matrix", "--family", help="Synth family."),
    records: int = typer.Option(600, "--records", min=1, help="Records in the synthetic document."),
    recipe: str = typer.Option("fax", "--recipe", help="Scan recipe of the re-capture."),
    seed: int = typer.Option(7, "--seed", min=0, help="Seed of every draw."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output folder."),
) -> None:
    """Synthesize a creditor matrix, degrade it, check both, draw page 1, and score (self and a simulated system)."""
    from gtkit.demo import run_demo

    typer.echo(f"synth {family} ({records} records, seed {seed}) -> degrade {recipe} -> check -> show -> score")
    result = run_demo(out, family=family, records=records, recipe=recipe, seed=seed, force=force)
    typer.echo(f"wrote {result.out}: {', '.join(result.bundles)} ({result.pages} pages each), both pass gtkit check")
    print_report(result.self_score, "ground truth scored against itself")
    print_report(result.system_score,
                 "a simulated extraction system (2% records dropped, 3% cells misread, boxes jittered)")
    typer.echo(f"pictures: {result.out}/clean-page1.png {result.out}/{recipe}-page1.png; "
               f"scores: {result.out}/scores.json")
