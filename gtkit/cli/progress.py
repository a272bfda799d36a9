"""One progress bar for long commands, on stderr, shown only when there is more than one step.

Every pipeline reports through the same callback, `progress(done, total)`; rich lives here only."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def progress_bar(label: str, *, terminal_only: bool = False) -> Iterator[Callable[[int, int], None]]:
    """Yield `update(done, total)`; the bar appears on the first update with total > 1 and stops on exit.

    When stderr is not a terminal the final bar is printed once at the end, or, with `terminal_only`,
    nothing at all."""
    state: dict = {}

    def update(done: int, total: int) -> None:
        if total <= 1 or state.get("off"):
            return
        if "bar" not in state:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            console = Console(stderr=True)
            if terminal_only and not console.is_terminal:
                state["off"] = True
                return
            state["bar"] = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                    console=console, transient=False)
            state["bar"].start()
            state["task"] = state["bar"].add_task(label, total=total)
        state["bar"].update(state["task"], completed=done, total=total)

    try:
        yield update
    finally:
        if "bar" in state:
            state["bar"].stop()


@contextlib.contextmanager
def progress_bars() -> Iterator[Callable[[str, int, int], None]]:
    """Yield `update(kind, done, total)`: one bar per kind of work (synth, degrade, ...), each with its ETA,
    made on the kind's first update. Drawn live on a terminal, printed once at the end otherwise."""
    state: dict = {"tasks": {}}

    def update(kind: str, done: int, total: int) -> None:
        if "bar" not in state:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            state["bar"] = Progress(TextColumn("{task.description:<9}"), BarColumn(), MofNCompleteColumn(),
                                    TimeRemainingColumn(), console=Console(stderr=True), transient=False)
            state["bar"].start()
        tasks = state["tasks"]
        if kind not in tasks:
            tasks[kind] = state["bar"].add_task(kind, total=total, completed=done)
        state["bar"].update(tasks[kind], completed=done, total=total)

    try:
        yield update
    finally:
        if "bar" in state:
            state["bar"].stop()
