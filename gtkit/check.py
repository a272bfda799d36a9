"""Mechanical validation of bundles and datasets.

`check_path` returns every problem it finds (file, JSON Pointer, message) instead
of stopping at the first: the format of gt.json, the recorded hashes, the task
schema's validity, `expected` against the schema, exactly one field entry per
leaf, first readings equal to `expected`, pages in range, boxes inside the page, a
corrections log whose last record of each cell says its value.
Then the check of the pipeline that made the bundle, from the table of pipeline checks the caller
passes (`gtkit.pipelines.CHECKS` holds every pipeline's: the synth check re-finds every value in the
PDF, for instance). This module imports no pipeline, by name or otherwise: the answer depends only on
the table given, never on what was imported before.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from itertools import repeat
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gtkit.corrections import log_problems, recorded
from gtkit.errors import GtkitError, Problem
from gtkit.files.read import canonical_sha256, read_json, read_json_bytes, sha256_file
from gtkit.format.bundle import Bundle, iter_bundle_dirs
from gtkit.format.decode import FieldRecord, decode_ground_truth
from gtkit.format.flat import FlatEntries
from gtkit.format.models import READABLE_VERSIONS, GroundTruth, upgrade_fields
from gtkit.format.writer import GT_NAME, INDEX_NAME, PDF_NAME, SCHEMA_NAME, field_entry_errors
from gtkit.pdf import open_pdf
from gtkit.schema import (
    check_schema,
    compile_schema,
    fast_validation_errors,
    leaf_values,
    resolve_pointer,
    undescribed_key,
)
from gtkit.scoring.normalize import value_key
from gtkit.typed import pointer_of
from gtkit.workers import Pool, Progress, no_gc, pool_for

PipelineCheck = Callable[[Bundle], list[Problem]]
"""A pipeline's check gets the bundle with its field entries validated, read through `bundle.field_entries()`
(records decoded by `gtkit.format.decode`, or models where that reader declined the file; `gt.fields` is empty).
It runs only on a bundle the core check found nothing wrong with."""

PipelineChecks = Mapping[str, PipelineCheck]
"""provenance.pipeline -> the check that applies; a bundle of a pipeline not in the table gets the core check
alone. The caller passes it (every pipeline's: `gtkit.pipelines.CHECKS`); a pool's workers get the functions
by reference, so they must be module-level."""


MAX_FIELD_PROBLEMS = 200


def _read_truth(gt_path: Path) -> tuple[GroundTruth | None, list[Any], list[Problem]]:
    """(envelope without fields, field entries, problems). One pass where it can: the fast decoder
    (`gtkit.format.decode`) decodes and validates the field entries into records, never laxer than the
    format models; a file it declines is read the careful way (`_parse_gt`), every complaint reported."""
    try:
        raw = read_json_bytes(gt_path)
    except GtkitError as e:
        return None, [], [Problem(str(gt_path), "", e.message)]
    decoded = decode_ground_truth(raw)
    del raw
    if decoded is None:
        return _parse_gt(gt_path)
    envelope, records = decoded
    try:
        return GroundTruth.model_validate(envelope), records, []
    except ValidationError as e:
        return None, [], [Problem(str(gt_path), pointer_of(tuple(err["loc"])), err["msg"]) for err in e.errors()]


def _parse_gt(gt_path: Path) -> tuple[GroundTruth | None, list[Any], list[Problem]]:
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
        return None, [], [*problems, Problem(f, "/fields", "must be a list of field entries")]
    upgrade_fields(fields, data["format"])
    for pointer, message in field_entry_errors(fields):
        problems.append(Problem(f, pointer, message))
        if len(problems) >= MAX_FIELD_PROBLEMS:
            break
    return (None if problems else gt), fields, problems


def content_problems(bundle: Bundle) -> list[Problem]:
    """What a read bundle's truth says wrongly, whatever made it: `expected` against the schema, one field entry
    per leaf, first readings equal to `expected`, evidence pages in range, word boxes well formed. (The
    bundle's field entries are read through `Bundle.field_entries`.)"""
    gt, g = bundle.gt, str(bundle.path / GT_NAME)
    flat = bundle.flat_entries()
    entries = flat.entries
    problems: list[Problem] = []
    for pointer, message in fast_validation_errors(bundle.schema, gt.expected):
        problems.append(Problem(g, "/expected" + pointer, f"expected does not satisfy the schema: {message}"))
    if recorded(gt.provenance.parameters):  # a person's corrections: the log's last word is the cell's value
        problems += [Problem(g, pointer, message) for pointer, message in
                     log_problems(gt.provenance.parameters, dict(zip(flat.paths, flat.values)))]

    root = compile_schema(bundle.schema)
    leaves = leaf_values(root, gt.expected)
    paths = flat.paths
    in_order = list(leaves) == paths  # entries in the leaves' order (as the pipelines write them): distinct
    repeated = not in_order and len(flat.index) < len(paths)
    counts = Counter(paths) if repeated else {}
    n_pages = gt.document.pages
    all_well = not repeated and _all_well(flat, leaves, in_order, n_pages)
    if all_well:
        entries = []  # nothing to report entry by entry
    suspect: list[int] = []  # entries with an evidence page or word box to look at closely
    at = len(problems)
    for i, entry in enumerate(entries):
        path_ = entry.path
        if repeated and counts[path_] > 1:
            problems.append(Problem(g, f"/fields/{i}", f"{path_} has {counts[path_]} field entries"))
        readings = entry.readings
        want = leaves.get(path_, _NO_LEAF)
        have = readings[0].value
        if want is _NO_LEAF:
            extra = undescribed_key(root, path_)
            problems.append(Problem(g, f"/fields/{i}", f"{extra} is a key of expected that the schema does not describe"
                                    if extra else f"{path_} is not a leaf of expected"))
        elif not (have.__class__ is want.__class__ and have.__class__ in _PLAIN and have == want) \
                and value_key(have) != value_key(want):  # equal scalars of one type need no keys
            problems.append(Problem(g, f"/fields/{i}", f"first reading differs from expected at {path_}"))
        for reading in readings:
            for ev in reading.evidence:
                if ev.page > n_pages:
                    suspect.append(i)
                for x0, y0, x1, y1 in ev.words or ():
                    if x0 >= x1 or y0 >= y1:
                        suspect.append(i)
    problems += _evidence_problems(g, entries, dict.fromkeys(suspect), n_pages)
    problems[at:] = sorted(problems[at:], key=lambda pr: _entry_of(pr.pointer))  # in entry order, as found
    if in_order or (all_well and len(flat.index) == len(leaves)):
        return problems  # as many distinct entries as leaves, each naming a leaf: every leaf has its entry
    named = flat.index
    for pointer in leaves:
        if pointer not in named:
            problems.append(Problem(g, "/expected" + pointer, "leaf has no field entry"))

    return problems


def _evidence_problems(g: str, entries: Any, suspect: Iterable[int], n_pages: int) -> list[Problem]:
    """The evidence pages out of range and the malformed word boxes of the `suspect` entries, each named by its
    JSON Pointer."""
    problems = []
    for i in suspect:
        for r, reading in enumerate(entries[i].readings):
            for e, ev in enumerate(reading.evidence):
                if ev.page > n_pages:
                    problems.append(Problem(g, f"/fields/{i}/readings/{r}/evidence/{e}/page",
                                            f"page {ev.page} of a {n_pages}-page document"))
                for w, word in enumerate(ev.words or ()):
                    if not (word[0] < word[2] and word[1] < word[3]):
                        problems.append(Problem(g, f"/fields/{i}/readings/{r}/evidence/{e}/words/{w}",
                                                "word box needs x0 < x1 and y0 < y1"))
    return problems


def _all_well(flat: FlatEntries, leaves: dict[str, Any], in_order: bool, n_pages: int) -> bool:
    """Whether every entry names a leaf, its first reading equals the leaf's value, its evidence pages are in range
    and its word boxes well formed: the loop of `content_problems` answered with whole-list operations on the
    flattened entries (equal lists of equal types compare as `value_key` does for scalars; lists and objects
    are keyed one by one). An entry with more than one reading is left to the loop. `in_order`: the entries'
    paths are the leaves' pointers, in order."""
    have = flat.values
    want = list(leaves.values()) if in_order else list(map(leaves.get, flat.paths, repeat(_NO_LEAF)))
    if flat.more_readings or have != want:
        return False
    types = list(map(type, have))
    if types != list(map(type, want)):
        return False
    if not set(types) <= _PLAIN_TYPES and any(value_key(h) != value_key(w) for h, w in zip(have, want)
                                              if h.__class__ not in _PLAIN):
        return False
    if len(flat.pages) and int(flat.pages.max()) > n_pages:
        return False
    boxes = flat.word_boxes
    return bool(((boxes[:, 0] < boxes[:, 2]) & (boxes[:, 1] < boxes[:, 3])).all())


def _entry_of(pointer: str) -> int:
    return int(pointer.split("/")[2])


_PLAIN = (str, int, float, type(None))
_PLAIN_TYPES = frozenset(_PLAIN)
_NO_LEAF = object()


def check_bundle(path: Path, checks: PipelineChecks, *, doc_id: str | None = None) -> list[Problem]:
    """Every problem of one bundle folder: the core check, then its pipeline's from `checks` (`doc_id`: what the
    dataset index calls it).

    The cyclic garbage collector is paused meanwhile: a long truth is hundreds of thousands of objects without
    cycles, which each collection would walk again; a young-generation collection follows."""
    with no_gc():
        problems = _check_bundle(Path(path), checks, doc_id)
    gc.collect(0)
    return problems


def _check_bundle(path: Path, checks: PipelineChecks, doc_id: str | None) -> list[Problem]:
    gt_file, schema_file, pdf_file = path / GT_NAME, path / SCHEMA_NAME, path / PDF_NAME
    problems: list[Problem] = []
    for f in (gt_file, schema_file, pdf_file):
        if not f.is_file():
            problems.append(Problem(str(f), "", "missing"))
    if problems:
        return problems
    gt, fields, problems = _read_truth(gt_file)
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
                problems.append(Problem(g, "/document/pages",
                                        f"says {gt.document.pages}, the PDF has {doc.page_count}"))
    except GtkitError as e:
        return [*problems, Problem(str(pdf_file), "", e.message)]

    bundle = Bundle(path=path, gt=gt, schema=schema, **_entries_as(fields))
    problems.extend(content_problems(bundle))

    check = checks.get(gt.provenance.pipeline)
    if check is not None and not problems:
        problems.extend(check(bundle))
    return problems


def _entries_as(fields: list[Any]) -> dict[str, Any]:
    """How a `Bundle` holds the field entries `_read_truth` gave: decoded records, or validated parsed JSON."""
    return {"records": fields} if all(isinstance(f, FieldRecord) for f in fields[:1]) else {"raw_fields": fields}


def _check_one(where: tuple[str | None, Path], checks: PipelineChecks) -> list[Problem]:
    doc_id, folder = where
    return check_bundle(folder, checks, doc_id=doc_id)


def check_path(path: Path, checks: PipelineChecks, progress: Progress | None = None, *,
               workers: int = 1, pool: Pool | None = None) -> tuple[int, list[Problem]]:
    """(number of bundles checked, problems) for a bundle or a whole dataset, each bundle with its pipeline's check
    from `checks`; `progress(done, total)` per bundle.

    The bundles are checked on the `pool` (or one of `workers` made for this call), several at a time;
    their problems come back in dataset order. A pool made by the caller should preload the checks' modules
    (`gtkit.pipelines.CHECK_PRELOAD`)."""
    path = Path(path)
    if not path.exists():
        raise GtkitError("not found", path)
    try:
        dirs = list(iter_bundle_dirs(path))
    except GtkitError as e:
        return 0, [Problem(e.path or str(path / INDEX_NAME), "", e.message)]
    problems: list[Problem] = []
    preload = ("gtkit.check", *dict.fromkeys(check.__module__ for check in checks.values()))  # for a pool made here
    with pool_for(pool, workers, preload=preload) as pool:
        for done, found in enumerate(pool.map(partial(_check_one, checks=dict(checks)), dirs), 1):
            problems.extend(found)
            if progress is not None:
                progress(done, len(dirs))
    return len(dirs), problems


__all__ = ["PipelineCheck", "PipelineChecks", "check_bundle", "check_path", "content_problems", "resolve_pointer"]
