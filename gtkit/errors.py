"""The one error type the CLI turns into a one-line message and exit status 2."""

from __future__ import annotations

from pathlib import Path


class GtkitError(Exception):
    """A problem with the user's input: names the file (when there is one) and what is wrong."""

    def __init__(self, message: str, path: str | Path | None = None):
        self.path = str(path) if path is not None else None
        self.message = message
        super().__init__(f"{self.path}: {message}" if self.path else message)

    def __reduce__(self):  # pickled as (message, path): a worker's error reaches the caller unchanged
        return type(self), (self.message, self.path)
