"""The work of a build, one module-level function per kind of task, run in a worker process (or a Dask
worker) as well as inline.

Each task writes its own output straight into the dataset folder, staged beside it and renamed into
place when complete (`gtkit.format.writer`), so a folder present is a finished bundle and a task killed
midway leaves only a staging folder the next run removes. A task whose output is already there does
nothing: a rerun, or Dask running a task twice, makes the same bytes once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gtkit.builder.plan import ConsensusTask, DegradeTask, SynthTask


def make_synth(task: SynthTask, out: str) -> str:
    """The synth bundle `out/<doc_id>` (records from the task's seed, rendered, read back, checked)."""
    from gtkit.format.writer import write_bundle_output
    from gtkit.synth.family import get_family
    from gtkit.synth.pipeline import build_document, generate_expected

    target = Path(out) / task.rel_path
    if not target.exists():
        family = get_family(task.family)
        expected = generate_expected(family, task.records, task.seed)
        with write_bundle_output(target) as bundle:
            built = build_document(family, expected, doc_id=task.doc_id, seed=task.seed,
                                   parameters=dict(task.parameters), bundle=bundle)
            bundle.write(built.envelope, built.fields)
    return task.doc_id


def make_degrade(task: DegradeTask, out: str, _parent_done: object = None) -> str:
    """The re-capture `out/<doc_id>` of the synth bundle `out/<parent>` (which must be finished: the
    scheduler runs this after the parent's task; `_parent_done` is that task's result under Dask)."""
    from gtkit.degrade.pipeline import prepare, write_jobs

    target = Path(out) / task.rel_path
    if not target.exists():
        jobs, _ = prepare(Path(out) / task.parent, recipe=task.recipe, seed=task.seed, dpi=task.dpi)
        write_jobs(jobs, target, dataset=False, workers=1)
    return task.doc_id


def make_consensus(task: ConsensusTask, out: str) -> str:
    """The consensus dataset `out/consensus/<name>` (bundles, queue, drawing list, report)."""
    from gtkit.consensus.run import run_consensus

    target = Path(out) / task.rel_path
    if not target.exists():
        run_consensus(Path(task.schema), Path(task.docs), Path(task.runs), Path(task.systems), target,
                      family=task.family, citing=task.citing, promote=task.promote)
    return task.name


# kind -> its runner, called with a task of that kind and the dataset folder
RUNNERS: dict[str, Callable[..., str]] = {"synth": make_synth, "degrade": make_degrade, "consensus": make_consensus}
PRELOAD = ("gtkit.builder.tasks", "gtkit.synth.pipeline", "gtkit.degrade.pipeline", "gtkit.degrade.stages")


def run_task(item: tuple[SynthTask | DegradeTask | ConsensusTask, str]) -> str:
    """One task given as (task, dataset folder): the form the local pool's `map` hands over."""
    task, out = item
    return RUNNERS[task.kind](task, out)
