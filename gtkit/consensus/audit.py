"""`gtkit audit`: hunt the cells of an existing truth that many systems miss.

Each bundle's truth is walked together with every system's cached output (rows
aligned by `x-identity`, as in consensus; the truth takes part in the alignment
but never in the miss count). A truth cell is missed by a system when its vote,
normalized by the field's comparator, matches none of the cell's readings. A cell
missed by at least `min_miss` of the families (each family weighs 1, shared by its
systems) is queued for review, with every vote; so is a row the truth lacks that
that share of families reports. Nothing in the dataset is changed: the queue is a
separate file, and fixes go through a copy of the dataset (`gtkit adjudicate`).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from gtkit.consensus.cells import ExtraRecord
from gtkit.consensus.filenames import jsonl
from gtkit.consensus.inputs import CITATIONS_SUFFIX, Systems, load_systems, read_run
from gtkit.consensus.votes import NULL, Voters
from gtkit.consensus.walk import walk_document
from gtkit.errors import GtkitError
from gtkit.files.outputs import check_output, write_output_file
from gtkit.files.read import read_jsonl
from gtkit.format.bundle import Bundle, read_bundles
from gtkit.schema import compile_schema
from gtkit.scoring.normalize import comparator_key

TRUTH = "\x00truth"
EPS = 1e-9


def is_review_queue(path: Path) -> bool:
    """A review queue gtkit wrote (JSON Lines of items with an id and a kind): what --force may replace."""
    if path.suffix != ".jsonl" or not path.is_file():
        return False
    try:
        return all({"id", "kind"} <= set(item) for _, item in read_jsonl(path))
    except GtkitError:
        return False


def audit(gt: Path, runs: Path, out: Path, *, systems: Path | None = None, min_miss: float = 0.5,
          force: bool = False) -> tuple[int, int]:
    """Write the review queue of a dataset's suspect cells and rows; returns (cells audited, items queued)."""
    check_output(Path(out), force=force, inputs=[gt, runs, systems], replaceable=is_review_queue)
    if not 0 < min_miss <= 1:
        raise GtkitError(f"--min-miss must be in (0, 1], got {min_miss}")
    runs = Path(runs)
    if not runs.is_dir():
        raise GtkitError("not a folder (expected runs/<system>/<doc_id>.json)", runs)
    names = sorted(p.name for p in runs.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not names:
        raise GtkitError("no system folders (expected runs/<system>/<doc_id>.json)", runs)
    sysinfo = load_systems(systems) if systems is not None else None
    if sysinfo is not None:
        for s in names:
            if s not in sysinfo.systems:
                raise GtkitError(f"system {s!r} has runs but is missing from systems.toml", systems)
    family = {s: (sysinfo.family(s) if sysinfo else s) for s in names}
    queue: list[dict[str, Any]] = []
    n_cells = 0
    for b in read_bundles(gt):
        if sysinfo is not None:
            _check_schema_hash(b, runs, names, sysinfo)
        outputs: dict[str, Any] = {TRUTH: b.gt.expected}
        for s in names:
            p = runs / s / f"{b.doc_id}.json"
            if p.is_file() and not p.name.endswith(CITATIONS_SUFFIX):
                outputs[s] = read_run(p)
        if len(outputs) > 1:
            n, items = _audit_document(b, outputs, family, min_miss)
            n_cells += n
            queue += items
    write_output_file(Path(out), jsonl(queue), force=force, inputs=[gt, runs, systems], replaceable=is_review_queue)
    return n_cells, len(queue)


def _check_schema_hash(b: Bundle, runs: Path, names: list[str], sysinfo: Systems) -> None:
    """Refuse systems with a run for the document whose declared schema hash is not the bundle's."""
    bad = []
    for s in names:
        declared = sysinfo.systems[s].schema_sha256
        if (runs / s / f"{b.doc_id}.json").is_file() and not (declared and b.gt.schema_.sha256.startswith(declared)):
            bad.append(s)
    if bad:
        raise GtkitError(f"runs not produced for the schema of {b.doc_id} (sha256 {b.gt.schema_.sha256}): "
                         f"{', '.join(bad)}", sysinfo.path)


class _Shares:
    """The share of the families' weight a set of systems holds (each family weighs 1, shared by its systems)."""

    def __init__(self, present: list[str], family: dict[str, str]):
        fams = Counter(family[s] for s in present)
        self.weight = {s: 1.0 / fams[family[s]] for s in present}
        self.n_families = len(fams)

    def of(self, systems: Any) -> float:
        return sum(self.weight[s] for s in systems) / self.n_families

    def of_the_rest(self, systems: Any) -> float:
        """The share the systems not in `systems` hold."""
        return (self.n_families - sum(self.weight[s] for s in systems)) / self.n_families


def _audit_document(b: Bundle, outputs: dict[str, Any], family: dict[str, str],
                    min_miss: float) -> tuple[int, list[dict[str, Any]]]:
    """(truth cells audited, queue items) of one document: the truth walked as one more voter."""
    present = [s for s in outputs if s != TRUTH]
    voters = Voters(systems=[TRUTH, *present], family={TRUTH: TRUTH, **family})
    result = walk_document(b.doc_id, compile_schema(b.schema), outputs, voters)
    shares = _Shares(present, family)
    entries = {f.path: f for f in b.gt.fields}
    queue: list[dict[str, Any]] = []
    missing_rows: dict[str, set[str]] = {}
    n_cells = 0
    for cell in result.cells:
        tptr = cell.own(TRUTH)
        if tptr is None:  # a row the truth lacks
            hits = [s for s in present if cell.keys[s] != NULL]
            if hits:
                missing_rows.setdefault(cell.pointer.rsplit("/", 1)[0], set()).update(hits)
            continue
        n_cells += 1
        entry = entries.get(tptr)
        accepted = ({comparator_key(r.value, cell.node.comparator) for r in entry.readings} if entry
                    else {cell.keys[TRUTH]})
        missed = [s for s in present if cell.keys[s] not in accepted]
        share = shares.of(missed)
        if missed and share >= min_miss - EPS:
            queue.append({
                "id": f"{b.doc_id}#{tptr}", "kind": "cell", "doc": b.doc_id, "path": tptr, "field": cell.field,
                "truth": cell.raws[TRUTH], "trust": entry.trust if entry else None,
                "miss_share": round(share, 4),
                "votes": [{"system": s, "family": family[s], "value": cell.votes[s][0], "missed": s in missed}
                          for s in present],
            })
    queue += _record_items(b.doc_id, result.extras, missing_rows, shares, min_miss)
    return n_cells, queue


def _record_items(doc_id: str, extras: list[ExtraRecord], missing_rows: dict[str, set[str]], shares: _Shares,
                  min_miss: float) -> list[dict[str, Any]]:
    """Rows only a minority has: a truth row most systems miss, a row the truth lacks that many report."""
    out: list[dict[str, Any]] = []
    for x in extras:
        others = [s for s in x.members if s != TRUTH]
        if TRUTH in x.members:
            share = shares.of_the_rest(others)
            if share >= min_miss - EPS:
                tptr = x.members[TRUTH][1]
                out.append({"id": f"{doc_id}#{tptr}", "kind": "missed_record", "doc": doc_id,
                            "path": tptr, "truth": x.members[TRUTH][0], "miss_share": round(share, 4),
                            "systems_with_it": sorted(others)})
        elif others:
            share = shares.of(x.members)
            if share >= min_miss - EPS:
                out.append({"id": f"{doc_id}#{x.pointer}", "kind": "missing_record", "doc": doc_id,
                            "path": x.pointer.rsplit("/", 1)[0] + "/-", "miss_share": round(share, 4),
                            "systems": sorted(x.members)})
    for row, systems in missing_rows.items():
        share = shares.of(systems)
        if share >= min_miss - EPS:
            out.append({"id": f"{doc_id}#{row}", "kind": "missing_record", "doc": doc_id,
                        "path": row.rsplit("/", 1)[0] + "/-", "miss_share": round(share, 4),
                        "systems": sorted(systems)})
    return out
