"""The `gtkit` command: a typer app with one thin module per group of verbs.

Every command parses its options, makes one library call, and writes. Input
problems raise `GtkitError`, which `main` prints as one line naming the file and
the problem, exiting with status 2; `--debug` shows the traceback instead.
"""

from __future__ import annotations

import logging
import os
import sys

from gtkit.errors import LOGGER, GtkitError, disk_full

# Command modules register their verbs on `app` (gtkit.cli.root) when imported; the order of these imports is
# the order of `gtkit --help`, so they are not sorted.
# isort: off
from gtkit.cli.root import app
from gtkit.cli import examine as _examine  # noqa: F401 - imported to register its verbs
from gtkit.cli import synth as _synth  # noqa: F401 - imported to register its verbs
from gtkit.cli import degrade as _degrade  # noqa: F401 - imported to register its verbs
from gtkit.cli import consensus as _consensus  # noqa: F401 - imported to register its verbs
from gtkit.cli import demo as _demo  # noqa: F401 - imported to register its verbs
from gtkit.cli import dataset as _dataset  # noqa: F401 - imported to register its verbs
from gtkit.cli import build as _build  # noqa: F401 - imported to register its verbs
from gtkit.cli import review as _review  # noqa: F401 - imported to register its verbs
# isort: on


def _exit_interrupted() -> None:
    """Exit 130 at once. Every staging folder was removed and every worker killed while the Ctrl-C unwound
    the run; the interpreter's exit hooks would only wait on the thread of a worker pool that was just
    abandoned (concurrent.futures joins it), which can hang, so they are skipped."""
    print("gtkit: interrupted", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


def _interrupted(error: BaseException) -> bool:
    """Whether `error` was raised while a KeyboardInterrupt was being handled."""
    seen = set()
    cause = error.__context__
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__context__
    return False


class _NoteHandler(logging.Handler):
    """Notes as `gtkit: note: ...` on whatever stderr is when they are made (a test's capture included)."""

    def emit(self, record: logging.LogRecord) -> None:
        print(f"gtkit: note: {record.getMessage()}", file=sys.stderr)


def _show_notes() -> None:
    if not any(isinstance(h, _NoteHandler) for h in LOGGER.handlers):
        LOGGER.addHandler(_NoteHandler())
        LOGGER.propagate = False


def main(argv: list[str] | None = None) -> None:
    """Entry point: usage errors exit 2 (typer), input problems one line and exit 2, nothing else escapes."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    if debug:  # accepted anywhere on the line, before or after the verb
        args = ["--debug", *(a for a in args if a != "--debug")]
    _show_notes()
    try:
        app(args=args, prog_name="gtkit")
    except GtkitError as e:
        if debug:
            raise
        print(f"gtkit: error: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        _exit_interrupted()
    except SystemExit as e:  # typer turns a Ctrl-C inside a command into exit 130: the same quick exit
        if e.code == 130 and _interrupted(e):
            _exit_interrupted()
        raise
    except Exception as e:  # an unexpected failure is still one line without --debug
        if _interrupted(e):  # an error met while a Ctrl-C unwound the run (stopping its workers) is the Ctrl-C
            _exit_interrupted()
        if debug:
            raise
        if disk_full(e):  # the machine's to fix, not gtkit's: one line and the status of an input problem
            where = f"{e.filename}: " if e.filename else ""
            print(f"gtkit: error: {where}cannot write: {e.strerror} (free some space and run the "
                  "command again; nothing was written)", file=sys.stderr)
            sys.exit(2)
        print(f"gtkit: internal error: {type(e).__name__}: {e} (rerun with --debug for the traceback)", file=sys.stderr)
        sys.exit(1)
