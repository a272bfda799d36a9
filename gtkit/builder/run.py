"""`gtkit build`: make every bundle a plan lists, resumably, on the local worker pool or a Dask cluster.

The dataset folder is the journal. `build-plan.json` (the plan as read) is written first; each task
then writes its bundle (or consensus dataset) staged beside its place and renamed into it when complete,
so a folder present is a finished piece of work and `kill -9` at any moment loses only the work in
flight. A rerun with the same plan removes the staging folders a killed run left, skips what is there
and makes the rest; `dataset.jsonl`, the index, is written last (and removed while anything is missing),
from the bundles themselves in plan order, so it is byte-identical however the build was interrupted,
ordered or spread.

Scheduling: synth and consensus tasks first, then the degrade tasks, whose parent synth bundle must be
finished (on Dask a degrade task depends on its parent's future instead, and may start earlier).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gtkit.builder.plan import (
    CONSENSUS_DIR,
    KINDS,
    BuildTask,
    ConsensusTask,
    DegradeTask,
    Expanded,
    SynthTask,
    read_plan,
    split_of,
)
from gtkit.errors import GtkitError
from gtkit.files.outputs import check_output, claim
from gtkit.files.write import dumps_json, write_bytes_atomic
from gtkit.workers import DEFAULT_WORKERS, KindProgress

PLAN_NAME = "build-plan.json"
CONNECT_TIMEOUT_S = 3
EXECUTORS = ("local", "dask")



@dataclass
class BuildReport:
    """What a build made this run, what it found already made, and the dataset's documents per split."""

    made: dict[str, int] = field(default_factory=dict)
    present: dict[str, int] = field(default_factory=dict)
    documents: int = 0
    splits: dict[str, int] = field(default_factory=dict)


class _Counts:
    """Tasks done per kind, reported through `progress(kind, done, total)`."""

    def __init__(self, tasks: list[BuildTask], todo: list[BuildTask], progress: KindProgress | None):
        self.total = {k: sum(t.kind == k for t in tasks) for k in KINDS}
        self.done = {k: self.total[k] - sum(t.kind == k for t in todo) for k in KINDS}
        self.present = dict(self.done)
        self.progress = progress
        for k in KINDS:
            self._tell(k)

    def _tell(self, kind: str) -> None:
        if self.progress is not None and self.total[kind]:
            self.progress(kind, self.done[kind], self.total[kind])

    def __call__(self, kind: str) -> None:
        self.done[kind] += 1
        self._tell(kind)


def _plan_bytes(expanded: Expanded) -> bytes:
    return dumps_json(expanded.plan.model_dump(mode="json", by_alias=True))


def _same_work(marker: Path, plan: bytes) -> bool:
    """Whether the build recorded in `marker` makes the same bundles as `plan` (the splits may differ)."""
    import json

    try:
        old = json.loads(marker.read_bytes())
    except (OSError, ValueError):
        return False
    new = json.loads(plan)
    return isinstance(old, dict) and {**old, "splits": None} == {**new, "splits": None}


def _ours(path: Path) -> bool:
    from gtkit.format.writer import is_gtkit_output

    return is_gtkit_output(path) or (path / PLAN_NAME).is_file()


def _inputs(expanded: Expanded) -> list[Path]:
    paths = [expanded.path]
    for t in expanded.tasks:
        if isinstance(t, ConsensusTask):
            paths += [Path(t.schema), Path(t.docs), Path(t.runs), Path(t.systems)]
    return paths


def _open_output(out: Path, expanded: Expanded, *, force: bool) -> None:
    """Resume the build in `out` (same plan), or start it there: a new or empty folder, or with `force` one
    gtkit wrote (a dataset, or a build of another plan). Refuses everything else, and an output that is,
    holds or lies inside an input of the plan."""
    plan = _plan_bytes(expanded)
    marker = out / PLAN_NAME
    check_output(out, force=True, inputs=_inputs(expanded), replaceable=lambda _: True)  # the input checks only
    if out.is_dir() and marker.is_file() and not force:
        if not _same_work(marker, plan):
            raise GtkitError(f"was built from another plan ({PLAN_NAME} differs): use --force to start over", out)
        if marker.read_bytes() != plan:  # only the splits changed: the index is rewritten, nothing rebuilt
            write_bytes_atomic(marker, plan, force=True)
        return
    if out.is_dir() and not out.is_symlink() and not any(out.iterdir()):  # a fresh mount point, say: used as is
        write_bytes_atomic(marker, plan)
        return
    check_output(out, force=force, replaceable=_ours)
    if out.exists():  # moved aside first, so a failure never leaves half of the old build in place
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        os.replace(out, old)
        shutil.rmtree(old)
    try:
        out.mkdir(parents=True)
    except OSError as e:
        raise GtkitError(f"cannot create the output folder ({e.strerror})", out) from None
    write_bytes_atomic(marker, plan)


def _remove_leftovers(out: Path) -> None:
    """Staging folders, temporary files and lock files a killed run left (`.<name>.<random>.partial` / `.tmp`,
    `.<name>.lock`): no task of this build runs yet, and no other build can, so none of them is in use."""
    for folder in (out, out / CONSENSUS_DIR):
        if not folder.is_dir():
            continue
        for p in folder.iterdir():
            if p.name.startswith(".") and (p.name.endswith((".partial", ".tmp", ".lock")) or ".old-" in p.name):
                shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()


def _facts(gt: Any) -> dict[str, Any]:
    """What a split may ask of a bundle: its family, pipeline, recipe and tags."""
    return {"family": gt.provenance.family, "pipeline": gt.provenance.pipeline, "recipe": gt.provenance.recipe,
            **gt.tags.model_dump(mode="json")}


def write_index(out: Path, expanded: Expanded) -> BuildReport:
    """dataset.jsonl from the bundles on disk, in plan order, each line with its split."""
    from gtkit.format.bundle import load_field_records, load_ground_truth
    from gtkit.format.writer import GT_NAME, DatasetWriter, index_entry

    report = BuildReport()
    dataset = DatasetWriter(out)
    for rel, _task in expanded.bundles():
        path = out / rel / GT_NAME
        fast = load_field_records(path)  # msgspec, strict; the models read what it declines
        gt, cells = fast if fast is not None else (load_ground_truth(path)[0], None)
        entry = index_entry(gt.doc_id, rel, gt, cells=len(cells) if cells is not None else None)
        entry.split = split_of(expanded.plan.splits, _facts(gt))
        dataset.adopt(rel, entry)
        report.splits[entry.split or ""] = report.splits.get(entry.split or "", 0) + 1
        report.documents += 1
    dataset.write_index()
    return report


def _template(task: BuildTask) -> bool:
    """A synth task of a family rendered by weasyprint (whose import the workers then share)."""
    from gtkit.synth.family import get_family

    return isinstance(task, SynthTask) and get_family(task.family).renderer == "template"


def _run_local(todo: list[BuildTask], out: Path, workers: int, counts: _Counts) -> None:
    from gtkit.builder.tasks import PRELOAD, run_task
    from gtkit.workers import Pool

    first = [t for t in todo if not isinstance(t, DegradeTask)]
    then = [t for t in todo if isinstance(t, DegradeTask)]
    preload = [*PRELOAD, *(["gtkit.synth.template", "weasyprint"] if any(_template(t) for t in first) else [])]
    with Pool(workers, preload=preload) as pool:
        pool.warm()
        for batch in (first, then):
            for task, _ in zip(batch, pool.map(run_task, [(t, str(out)) for t in batch])):
                counts(task.kind)


def build(plan_path: Path, out: Path, *, workers: int = DEFAULT_WORKERS, executor: str = "local",
          scheduler: str | None = None, force: bool = False, progress: KindProgress | None = None) -> BuildReport:
    """Build (or finish building) the dataset `out` from the plan at `plan_path`; see the module docstring.

    Every input problem is reported before anything is written: the plan, its families, recipes and
    consensus inputs, the output folder and (with `executor="dask"`) the scheduler."""
    if executor not in EXECUTORS:
        raise GtkitError(f"--executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    if executor == "dask" and not scheduler:
        raise GtkitError("--executor dask needs --scheduler ADDRESS (tcp://host:8786)")
    if executor != "dask" and scheduler:
        raise GtkitError("--scheduler is for --executor dask")
    if not isinstance(workers, int) or workers < 1:
        raise GtkitError(f"--workers must be at least 1, got {workers}")
    out = Path(out).absolute()
    expanded = read_plan(Path(plan_path))
    client = None
    if executor == "dask":
        from gtkit.builder.dask import connect

        client = connect(scheduler or "", CONNECT_TIMEOUT_S)
    try:
        with claim(out):  # one build per output folder; refused in one line while another runs
            return _build_claimed(expanded, out, force=force, workers=workers, client=client, progress=progress)
    finally:
        if client is not None:
            client.close()


def _build_claimed(expanded: Expanded, out: Path, *, force: bool, workers: int, client: Any,
                   progress: KindProgress | None) -> BuildReport:
    """The build itself, once `out` is this command's."""
    _open_output(out, expanded, force=force)
    _remove_leftovers(out)
    todo = [t for t in expanded.tasks if not (out / t.rel_path).exists()]
    if todo:
        (out / "dataset.jsonl").unlink(missing_ok=True)  # the index says the dataset is complete
    counts = _Counts(expanded.tasks, todo, progress)
    if client is not None:
        from gtkit.builder.dask import run_dask

        run_dask(client, todo, out, counts)
    else:
        _run_local(todo, out, workers, counts)
    report = write_index(out, expanded)
    report.present = counts.present
    report.made = {k: counts.done[k] - counts.present[k] for k in KINDS}
    return report
