"""A forked worker for the two-core machine this runs on: work beside the main process.

Long documents validate `expected` against the schema while the layout and the
rendering run, and read back the second half of the pages while the first half is
read in the main process.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from typing import Any


class Background:
    """Run `fn` in a forked child (POSIX) while the caller goes on; `result()` waits for it.

    The child shares the parent's memory copy-on-write, computes, sends the pickled result
    through a pipe and exits with `os._exit`, so it runs no cleanup of the parent's state.
    Without fork (or when `fork` is false) `fn` simply runs inline.
    """

    def __init__(self, fn: Callable[[], Any], *, fork: bool = True):
        self._pid = None
        self._value: Any = None
        self._error: str | None = None
        if not (fork and hasattr(os, "fork")):
            self._value = fn()
            return
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            code = 0
            try:
                os.close(r)
                try:
                    payload = pickle.dumps((True, fn()))
                except BaseException as e:  # noqa: BLE001 - reported to the parent
                    payload = pickle.dumps((False, f"{type(e).__name__}: {e}"))
                with os.fdopen(w, "wb") as f:
                    f.write(payload)
            except BaseException:  # noqa: BLE001
                code = 1
            finally:
                os._exit(code)
        os.close(w)
        self._pid, self._r = pid, r

    def result(self) -> Any:
        if self._pid is not None:
            with os.fdopen(self._r, "rb") as f:
                payload = f.read()
            os.waitpid(self._pid, 0)
            self._pid = None
            if not payload:
                raise RuntimeError("the background worker died without an answer")
            ok, value = pickle.loads(payload)
            if ok:
                self._value = value
            else:
                self._error = value
        if self._error is not None:
            raise RuntimeError(f"background worker failed: {self._error}")
        return self._value


