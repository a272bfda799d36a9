"""The one worker pool: every command that works in parallel (synth, degrade, check, score) uses it.

A `Pool` is made once per command and handed down to the code that has work for it. With
`workers=1` everything runs inline, in this process, and no process is ever started. Otherwise
it runs `concurrent.futures.ProcessPoolExecutor`s whose processes come from a `forkserver`
context (`spawn` where there is none): a worker starts from a small server process, never by
forking this one, so a thread running here (rich's progress refresh, the executor's own) is
never copied mid-flight. Processes start on first use.

Rules for the work handed over:
- a task is a module-level function (it travels by name) and its arguments are pickled: keep
  them small; where the worker can read a file itself (a PDF, a gt.json), pass its path;
- results come back in order (`map`) or when asked for (`submit(...).result()`);
- a `GtkitError` raised in a worker reaches the caller as the same error (message and path);
  any other failure in a worker, or a worker that dies, becomes a one-line `GtkitError`
  (its cause, with the worker's traceback, is kept for `--debug`);
- leaving the pool's `with` block by an exception (Ctrl-C included) kills its workers, so
  nothing is left running; workers ignore SIGINT themselves, the caller handles it.

It also holds what long work shares whether or not it runs in workers: the `Progress` callback's type and
`no_gc`, the cyclic garbage collector paused.

This module imports nothing from gtkit but `gtkit.errors`, so every layer can use it, and it
imports `multiprocessing` and `concurrent.futures` only when a pool first starts a process.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import os
import signal
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from gtkit.errors import GtkitError

if TYPE_CHECKING:
    import concurrent.futures as cf
    import multiprocessing.context

_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
DEFAULT_WORKERS = min(2, _CORES)
"""What the commands that overlap work by default (synth, score) use: the cores this process may run on,
at most two."""

Progress = Callable[[int, int], None]
"""How long work reports how far it is: `progress(done, total)`, called in the caller's process (the progress
bars live in the CLI)."""

KindProgress = Callable[[str, int, int], None]
"""`progress(kind of work, done, total)`: the same for work of several kinds at once (a build's synth, degrade and
consensus tasks), one count per kind."""

_IN_WORKER = False


def in_worker() -> bool:
    """True inside a pool's worker process (not in a pool running inline)."""
    return _IN_WORKER


@contextlib.contextmanager
def no_gc() -> Iterator[None]:
    """The cyclic garbage collector paused for the block: for work that builds many small objects and no
    reference cycles (decoding a large file, a long truth checked or scored, a document's millions of words
    laid out), where each collection on the way would only walk everything built so far again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _init_worker(one_shot: bool, owner: int) -> None:
    global _IN_WORKER
    _IN_WORKER = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the caller, which then stops the workers
    if one_shot:  # it exits after its one task, and what the task built goes with it
        gc.disable()
    import threading

    threading.Thread(target=_exit_with, args=(owner,), name="gtkit-owner-watch", daemon=True).start()


def _exit_with(owner: int) -> None:
    """End this worker within a second of the process that made the pool: killed with `kill -9` it stops
    nothing itself, and its workers (children of the fork server, not of it) would wait for work forever."""
    import time

    while True:
        time.sleep(1.0)
        if not _alive(owner):
            os._exit(1)


def _alive(pid: int) -> bool:
    """Whether `pid` is a running process. A process that has ended but whose parent has not yet waited for it
    (a zombie) still answers `kill(pid, 0)`, so on Linux its state is read too: a caller that reads the
    command's output to the end before waiting would otherwise keep the workers (and the output pipe they
    share) alive forever."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):  # gone, or the pid now belongs to another user's process
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rpartition(b")")[2].split()[0]
    except (OSError, IndexError):  # no /proc here: kill() is all there is to go by
        return True
    return state not in (b"Z", b"X")


def _name(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)


def _worker_error(fn: Callable[..., Any], exc: Exception) -> Exception:
    """What the caller sees of a task that failed in a worker process."""
    from concurrent.futures import BrokenExecutor, CancelledError

    if isinstance(exc, GtkitError):
        return exc
    if isinstance(exc, BrokenExecutor):
        return GtkitError(f"a worker process died while running {_name(fn)} (out of memory or killed?)")
    if isinstance(exc, CancelledError):
        return GtkitError(f"{_name(fn)} was cancelled")
    message = str(exc).splitlines()[0] if str(exc) else ""
    return GtkitError(f"{_name(fn)} failed in a worker: {type(exc).__name__}" + (f": {message}" if message else ""))


class Task:
    """The result of one `Pool.submit`: `result()` waits for it and returns it or raises."""

    def __init__(self, fn: Callable[..., Any], future: cf.Future | None = None, *, value: Any = None,
                 error: Exception | None = None):
        self._fn, self._future, self._value, self._error = fn, future, value, error

    def done(self) -> bool:
        return self._future is None or self._future.done()

    def result(self) -> Any:
        if self._future is None:  # ran inline: its own exception, as raised
            if self._error is not None:
                raise self._error
            return self._value
        try:
            return self._future.result()
        except Exception as e:  # one line for the CLI, the cause kept for --debug
            err = _worker_error(self._fn, e)
            if err is e:
                raise
            raise err from e

    def cancel(self) -> None:
        """Drop the task if it has not started; a running one finishes in its worker and is ignored."""
        if self._future is not None:
            self._future.cancel()


def run_inline(fn: Callable[..., Any], *args: Any) -> Task:
    """`fn(*args)` run now, in this process, its result or exception kept for `result()`."""
    try:
        return Task(fn, value=fn(*args))
    except Exception as e:  # raised again by result()
        return Task(fn, error=e)


class Pool:
    """`workers` processes (or none with `workers=1`) for a command's whole run.

    Two kinds of work, two lifetimes of worker: `submit` hands one big task (a document's schema
    check, the words of half its pages, a gt.json's validation) to a worker that exits once it has answered,
    so what the task built goes back to the system at once (it runs without the cyclic garbage
    collector, which would only cost time); `map` streams many small tasks (pages, bundles) through
    workers that live until the pool closes. Both kinds come from the same fork server.
    `preload` names modules the fork server imports once, before the first worker starts, so that
    starting a worker costs a fork, not a round of imports; `warm()` starts the server early."""

    def __init__(self, workers: int = 1, *, preload: Sequence[str] = ()):
        if not isinstance(workers, int) or workers < 1:
            raise GtkitError(f"--workers must be at least 1, got {workers}")
        self.workers = workers
        self._preload = list(preload)
        self._executors: dict[bool, cf.ProcessPoolExecutor] = {}  # one_shot -> executor, made on first use
        self._closed = False

    @property
    def inline(self) -> bool:
        return self.workers == 1

    def _context(self) -> multiprocessing.context.BaseContext:
        import multiprocessing

        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        if ctx.get_start_method() == "forkserver" and self._preload:
            ctx.set_forkserver_preload(["__main__", *self._preload])  # no effect once the server runs
        return ctx

    def _executor(self, one_shot: bool) -> cf.ProcessPoolExecutor:
        import concurrent.futures as cf

        if self._closed:
            raise RuntimeError("the worker pool is closed")
        executor = self._executors.get(one_shot)
        if executor is None:
            self.warm()  # the server starts shielded from Ctrl-C, before any worker needs it
            executor = self._executors[one_shot] = cf.ProcessPoolExecutor(
                max_workers=self.workers, mp_context=self._context(), initializer=_init_worker,
                initargs=(one_shot, os.getpid()), max_tasks_per_child=1 if one_shot else None)
        return executor

    def warm(self) -> None:
        """Start the fork server now, without waiting for it, when work for the workers is sure to come:
        it imports `preload` meanwhile, which the first task would otherwise wait for."""
        if self.inline or self._closed:
            return
        if self._context().get_start_method() == "forkserver":
            _start_server()

    def submit(self, fn: Callable[..., Any], *args: Any) -> Task:
        """Start `fn(*args)` in a worker of its own, or (inline) run it right now."""
        if self.inline:
            return run_inline(fn, *args)
        return Task(fn, self._executor(True).submit(fn, *args))

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any], *,
            ahead: int | None = None) -> Generator[Any, None, None]:
        """`fn(item)` for every item, in order. At most `ahead` tasks (default 4 per worker) are queued or
        done-but-not-taken at a time, so a long run's results do not pile up. Closing the iterator early
        cancels what has not started."""
        if self.inline:
            for item in items:
                yield fn(item)
            return
        executor = self._executor(False)
        window = max(1, ahead if ahead is not None else 4 * self.workers)
        pending: collections.deque[Task] = collections.deque()
        try:
            for item in items:
                pending.append(Task(fn, executor.submit(fn, item)))
                if len(pending) >= window:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for task in pending:
                task.cancel()

    def close(self, *, kill: bool = False) -> None:
        """Stop the workers: let them finish (the normal end) or, with `kill`, end them at once."""
        self._closed = True
        executors, self._executors = list(self._executors.values()), {}
        for executor in executors:
            if not kill:
                executor.shutdown(wait=True)
                continue
            processes = _running_workers(executor)
            for p in processes:
                with contextlib.suppress(Exception):
                    p.kill()
            # the executor's own bookkeeping may trip over the killed workers (a KeyError for a work item):
            # the run is being abandoned anyway, and that must not replace the error (or Ctrl-C) that ended it
            with contextlib.suppress(Exception):
                executor.shutdown(wait=False, cancel_futures=True)  # its threads would wait for the dead
            for p in processes:
                with contextlib.suppress(Exception):
                    p.join(5)

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.close(kill=exc_type is not None)


def _running_workers(executor: cf.ProcessPoolExecutor) -> list[Any]:
    """The worker processes `executor` still holds, to kill them. ProcessPoolExecutor has no public way to stop
    a running task before Python 3.14 (`kill_workers`), so this reads its process table, `_processes`, and
    nothing else does. (Recording the processes through the executor's `mp_context`
    instead would also catch a one-shot worker the executor has already let go; killing that one races with
    the executor replacing it.)"""
    return list((getattr(executor, "_processes", None) or {}).values())


def _start_server() -> None:
    """Start the fork server with SIGINT blocked in this thread. The server inherits the mask across its exec,
    so a Ctrl-C while it imports its preload cannot kill it with a traceback (it ignores SIGINT once it serves,
    which drops the pending one; its workers inherit the mask). A Ctrl-C meant for this process in that window
    stays pending and arrives the moment the mask is restored, where ignoring SIGINT instead would lose it.
    The resource tracker is started first, because starting it unblocks SIGINT for a moment."""
    from multiprocessing import forkserver, resource_tracker

    resource_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextlib.contextmanager
def pool_for(pool: Pool | None, workers: int, *, preload: Sequence[str] = ()) -> Iterator[Pool]:
    """The caller's pool, or a new one of `workers` for the duration of the block (library calls without one)."""
    if pool is not None:
        yield pool
        return
    with Pool(workers, preload=preload) as own:
        yield own


__all__ = ["DEFAULT_WORKERS", "KindProgress", "Pool", "Progress", "Task", "in_worker", "no_gc", "pool_for",
           "run_inline"]
