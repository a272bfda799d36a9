"""`gtkit build --executor dask`: the same tasks on a Dask distributed cluster.

Each task runs on a worker and writes its bundle itself into the dataset folder, which must be on
storage every worker and the client share (the same absolute path everywhere); only the doc id
comes back. A degrade task takes its parent synth task's future as an argument, so Dask runs it once
the parent bundle is written. dask and distributed are an optional extra: `pip install 'gtkit[dask]'`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gtkit.builder.plan import BuildTask, DegradeTask
from gtkit.errors import GtkitError

INSTALL = "pip install 'gtkit[dask]'"


def connect(address: str, timeout_s: float) -> Any:
    """A `distributed.Client` of the scheduler at `address`, or one line saying why not."""
    try:
        from distributed import Client
    except ImportError:
        raise GtkitError(f"--executor dask needs the packages dask and distributed: {INSTALL}") from None
    try:
        return Client(address, timeout=f"{timeout_s}s", set_as_default=False)
    except Exception as e:  # unreachable, refused, malformed address: one line
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise GtkitError(f"cannot reach a Dask scheduler within {timeout_s:g} s ({reason})",
                         f"--scheduler {address}") from None


def run_dask(client: Any, todo: list[BuildTask], out: Path, counts: Any) -> None:
    """Submit every task (degrade tasks after their parent's future), count them as they finish."""
    from distributed import as_completed

    from gtkit.builder.tasks import RUNNERS, make_degrade

    where = str(out)
    futures: dict[Any, BuildTask] = {}
    by_doc: dict[str, Any] = {}
    for t in todo:
        if not isinstance(t, DegradeTask):
            f = client.submit(RUNNERS[t.kind], t, where, pure=False)
            futures[f] = t
            by_doc[t.rel_path] = f
    for t in todo:
        if isinstance(t, DegradeTask):
            f = client.submit(make_degrade, t, where, by_doc.get(t.parent), pure=False)
            futures[f] = t
    try:
        for f in as_completed(list(futures), loop=client.loop):
            task = futures[f]
            try:
                f.result()
            except GtkitError:
                raise
            except Exception as e:  # one line; the cause is kept for --debug
                reason = str(e).splitlines()[0] if str(e) else ""
                raise GtkitError(f"{task.kind} task {task.rel_path} failed on a Dask worker: {type(e).__name__}"
                                 + (f": {reason}" if reason else "")) from e
            counts(task.kind)
    finally:
        client.cancel([f for f in futures if not f.done()])
