"""The typer app every command module registers its verbs on, and its root options (--debug, --version).

It imports no command module, so each of them imports it and the package `gtkit.cli` imports them all,
one way."""

from __future__ import annotations

import typer

from gtkit import __version__

app = typer.Typer(
    name="gtkit",
    help="Ground truth for document-extraction benchmarks: synth, degrade, consensus; check, show, score.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"gtkit {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show full tracebacks instead of one-line errors."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """gtkit: build, check and score ground truth for schema-guided extraction."""
