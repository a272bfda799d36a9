"""The one error type the CLI turns into a one-line message and exit status 2, the `Problem` a check reports
(`gtkit check` lists them all), and notes about what gtkit did on the user's behalf (the CLI prints them as
`gtkit: note: ...` on stderr)."""

from __future__ import annotations

import errno
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

LOGGER = logging.getLogger("gtkit")
# Write errors that mean the disk (or the process's share of it) is full: the user's to fix, not a bug.
DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


class GtkitError(Exception):
    """A problem with the user's input: names the file (when there is one) and what is wrong."""

    def __init__(self, message: str, path: str | Path | None = None):
        self.path = str(path) if path is not None else None
        self.message = message
        super().__init__(f"{self.path}: {message}" if self.path else message)

    def __reduce__(self):  # pickled as (message, path): a worker's error reaches the caller unchanged
        return type(self), (self.message, self.path)


class DiskFull(GtkitError):
    """A write refused for want of space (`disk_full`): nothing was written, and the same command may work once
    space is freed (the review server answers 507 rather than 400)."""


@dataclass(frozen=True)
class Problem:
    """One thing a check found wrong in a bundle: the file, where in it (a JSON Pointer, or "" for the whole
    file) and what. The core check (`gtkit.check`) and every pipeline's check report these."""

    file: str
    pointer: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}#{self.pointer}" if self.pointer else self.file
        return f"{where}: {self.message}"


def note(message: str, path: str | Path | None = None) -> None:
    """Tell the user of something done on their behalf (a leftover removed, a lock taken over): one line."""
    LOGGER.warning(f"{path}: {message}" if path is not None else message)


def disk_full(error: BaseException) -> TypeGuard[OSError]:
    """Whether `error` is a write refused for want of space (`DISK_FULL`)."""
    return isinstance(error, OSError) and error.errno in DISK_FULL
