"""Mechanical validation of bundles and datasets.

`check_path` returns every problem it finds (file, JSON Pointer, message) instead
of stopping at the first: the format of gt.json, the recorded hashes, the task
schema's validity, `expected` against the schema, exactly one field entry per
leaf, first readings equal to `expected`, pages in range, boxes inside the page.
Then the check of the pipeline that made the bundle, from the table `PIPELINE_CHECKS`
(the synth check re-finds every value in the PDF, for instance): the same answer from the
library, the CLI or a test, whatever was imported before.
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from gtkit.errors import GtkitError
from gtkit.format import (
    READABLE_VERSIONS,
    GT_NAME,
    INDEX_NAME,
    PDF_NAME,
    SCHEMA_NAME,
    Bundle,
    GroundTruth,
    iter_bundle_dirs,
)
from gtkit.format.models import upgrade_fields
from gtkit.format.writer import field_entry_errors
from gtkit.typed import pointer_of
from gtkit.fileio import canonical_sha256, read_json, sha256_file
from gtkit.normalize import value_key
from gtkit.pdf import open_pdf
from gtkit.schema import check_schema, compile_schema, iter_leaves, resolve_pointer, undescribed_key, validation_errors
from gtkit.workers import Pool, pool_for


@dataclass(frozen=True)
class Problem:
    file: str
    pointer: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}#{self.pointer}" if self.pointer else self.file
        return f"{where}: {self.message}"


PipelineCheck = Callable[[Bundle], list[Problem]]
"""A pipeline's check gets the bundle with its field entries as validated, parsed JSON in `raw_fields`
(`gt.fields` is empty: a long document's entries are never all built as models)."""

PIPELINE_CHECKS: dict[str, str] = {
    "synth": "gtkit.synth.check:check_synth_bundle",
    "degrade": "gtkit.degrade.checks:check_degraded",
    "consensus": "gtkit.consensus.checks:check_consensus_bundle",
}
"""provenance.pipeline -> the check that applies, as module:function (imported when a bundle needs it,
so `import gtkit.check` stays cheap and the core never imports a pipeline at import time)."""


def pipeline_check(pipeline: str) -> PipelineCheck | None:
    target = PIPELINE_CHECKS.get(pipeline)
    if target is None:
        return None
    module, name = target.split(":")
    return getattr(importlib.import_module(module), name)


MAX_FIELD_PROBLEMS = 200


def _parse_gt(gt_path: Path) -> tuple[GroundTruth | None, list[dict], list[Problem]]:
    """(envelope without fields, field entries as parsed JSON, problems). Entries are validated by the
    format models in chunks, every complaint reported, and never all kept as models at once."""
    f = str(gt_path)
    try:
        data = read_json(gt_path)
    except GtkitError as e:
        return None, [], [Problem(f, "", e.message)]
    if not isinstance(data, dict):
        return None, [], [Problem(f, "", "expected a JSON object")]
    if data.get("format") not in READABLE_VERSIONS:
        return None, [], [Problem(f, "/format", f"unknown format version {data.get('format')!r}")]
    fields = data.get("fields")
    problems: list[Problem] = []
    try:
        gt = GroundTruth.model_validate({**data, "fields": []})
    except ValidationError as e:
        gt = None
        problems += [Problem(f, pointer_of(tuple(err["loc"])), err["msg"]) for err in e.errors()]
    if not isinstance(fields, list):
        return None, [], problems + [Problem(f, "/fields", "must be a list of field entries")]
    upgrade_fields(fields, data["format"])
    for pointer, message in field_entry_errors(fields):
        problems.append(Problem(f, pointer, message))
        if len(problems) >= MAX_FIELD_PROBLEMS:
            break
    return (None if problems else gt), fields, problems


def content_problems(bundle: Bundle) -> list[Problem]:
    """What a read bundle's truth says wrongly, whatever made it: `expected` against the schema, one field entry
    per leaf, first readings equal to `expected`, evidence pages in range, word boxes well formed. (The
    bundle's field entries are its validated `raw_fields`, or its models'.)"""
    gt, g = bundle.gt, str(bundle.path / GT_NAME)
    fields = bundle.field_dicts()
    problems: list[Problem] = []
    for pointer, message in validation_errors(bundle.schema, gt.expected):
        problems.append(Problem(g, "/expected" + pointer, f"expected does not satisfy the schema: {message}"))

    root = compile_schema(bundle.schema)
    leaves = {p: v for p, _, v in iter_leaves(root, gt.expected)}
    counts = Counter(f["path"] for f in fields)
    for i, entry in enumerate(fields):
        where, path_ = f"/fields/{i}", entry["path"]
        if counts[path_] > 1:
            problems.append(Problem(g, where, f"{path_} has {counts[path_]} field entries"))
        if path_ not in leaves:
            extra = undescribed_key(root, path_)
            problems.append(Problem(g, where, f"{extra} is a key of expected that the schema does not describe"
                                    if extra else f"{path_} is not a leaf of expected"))
        elif value_key(entry["readings"][0]["value"]) != value_key(leaves[path_]):
            problems.append(Problem(g, where, f"first reading differs from expected at {path_}"))
        for r, reading in enumerate(entry["readings"]):
            for e, ev in enumerate(reading.get("evidence") or ()):
                at = f"{where}/readings/{r}/evidence/{e}"
                if ev["page"] > gt.document.pages:
                    problems.append(Problem(g, at + "/page", f"page {ev['page']} of a {gt.document.pages}-page document"))
                for w, word in enumerate(ev.get("words") or ()):
                    if not (word[0] < word[2] and word[1] < word[3]):
                        problems.append(Problem(g, f"{at}/words/{w}", "word box needs x0 < x1 and y0 < y1"))
    for pointer in leaves:
        if pointer not in counts:
            problems.append(Problem(g, "/expected" + pointer, "leaf has no field entry"))

    return problems


def check_bundle(path: Path, *, doc_id: str | None = None) -> list[Problem]:
    """Every problem of one bundle folder (`doc_id`: what the dataset index calls it)."""
    path = Path(path)
    gt_file, schema_file, pdf_file = path / GT_NAME, path / SCHEMA_NAME, path / PDF_NAME
    problems: list[Problem] = []
    for f in (gt_file, schema_file, pdf_file):
        if not f.is_file():
            problems.append(Problem(str(f), "", "missing"))
    if problems:
        return problems
    gt, fields, problems = _parse_gt(gt_file)
    if gt is None:
        return problems
    g = str(gt_file)
    if doc_id is not None and gt.doc_id != doc_id:
        problems.append(Problem(g, "/doc_id", f"{gt.doc_id!r}, dataset.jsonl says {doc_id!r}"))

    try:
        schema = check_schema(read_json(schema_file), schema_file)
    except GtkitError as e:
        return [Problem(str(schema_file), "", e.message)]
    if canonical_sha256(schema) != gt.schema_.sha256:
        problems.append(Problem(g, "/schema/sha256", "does not match schema.json"))
    if sha256_file(pdf_file) != gt.document.sha256:
        problems.append(Problem(g, "/document/sha256", "does not match document.pdf"))
    try:
        with open_pdf(pdf_file) as doc:
            if doc.page_count != gt.document.pages:
                problems.append(Problem(g, "/document/pages", f"says {gt.document.pages}, the PDF has {doc.page_count}"))
    except GtkitError as e:
        return [*problems, Problem(str(pdf_file), "", e.message)]

    problems.extend(content_problems(Bundle(path=path, gt=gt, schema=schema, raw_fields=fields)))

    check = pipeline_check(gt.provenance.pipeline)
    if check is not None and not problems:
        problems.extend(check(Bundle(path=path, gt=gt, schema=schema, raw_fields=fields)))
    return problems


def _check_one(where: tuple[str | None, Path]) -> list[Problem]:
    doc_id, folder = where
    return check_bundle(folder, doc_id=doc_id)


PRELOAD = ("gtkit.check",)  # what the workers import once, in the fork server


def check_path(path: Path, progress: Callable[[int, int], None] | None = None, *, workers: int = 1,
               pool: Pool | None = None) -> tuple[int, list[Problem]]:
    """(number of bundles checked, problems) for a bundle or a whole dataset; `progress(done, total)` per bundle.

    The bundles are checked on the `pool` (or one of `workers` made for this call), several at a time;
    their problems come back in dataset order."""
    path = Path(path)
    if not path.exists():
        raise GtkitError("not found", path)
    try:
        dirs = list(iter_bundle_dirs(path))
    except GtkitError as e:
        return 0, [Problem(e.path or str(path / INDEX_NAME), "", e.message)]
    problems: list[Problem] = []
    with pool_for(pool, workers, preload=PRELOAD) as pool:
        for done, found in enumerate(pool.map(_check_one, dirs), 1):
            problems.extend(found)
            if progress is not None:
                progress(done, len(dirs))
    return len(dirs), problems


__all__ = ["Problem", "check_bundle", "check_path", "PIPELINE_CHECKS", "pipeline_check", "resolve_pointer"]
