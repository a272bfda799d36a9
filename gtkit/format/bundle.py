"""Reading bundles (document.pdf + schema.json + gt.json) and datasets (bundles + dataset.jsonl).

Reading validates the gt.json against the format models and verifies the recorded
hashes of the PDF and the schema. Writing is `gtkit.format.writer`'s job.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gtkit.errors import GtkitError
from gtkit.files.read import canonical_sha256, read_json, read_json_bytes, read_jsonl, sha256_file
from gtkit.format.decode import FieldRecord, decode_ground_truth, records_of
from gtkit.format.models import READABLE_VERSIONS, DatasetEntry, FieldEntry, GroundTruth, upgrade_fields
from gtkit.format.writer import FIELD_ENTRIES, GT_NAME, INDEX_NAME, PDF_NAME, SCHEMA_NAME, validate_field_dicts
from gtkit.schema import check_schema
from gtkit.typed import validation_message
from gtkit.workers import Pool, Task, run_inline


def parse_ground_truth(data: Any, path: Path) -> GroundTruth:
    """Validate a parsed gt.json; one-line errors name the file and the JSON Pointer."""
    if not isinstance(data, dict):
        raise GtkitError(f"expected a JSON object, got {type(data).__name__}", path)
    fmt = data.get("format")
    if fmt not in READABLE_VERSIONS:
        raise GtkitError(f"unknown format version {fmt!r} (this gtkit reads {', '.join(map(repr, READABLE_VERSIONS))})",
                         path)
    try:
        return GroundTruth.model_validate(data)
    except ValidationError as e:
        raise GtkitError(f"invalid gt.json: {validation_message(e)}", path) from None


PARALLEL_CHECK_MIN = 20_000  # field entries from which a pool's worker validates them beside the caller
MIN_ENTRY_BYTES = 50  # no field entry takes fewer bytes of gt.json: a smaller file never needs the worker


def check_field_entries(file: str, path: str) -> None:
    """Validate the field entries of the gt.json `file` (absolute) by the format models, raising the first
    complaint about `path` (as the caller names it). A pool task: the worker reads the file itself
    rather than being sent the entries."""
    data = read_json(Path(file))
    fields = data.get("fields") if isinstance(data, dict) else None
    if not isinstance(fields, list):
        raise GtkitError("invalid gt.json: /fields: changed while it was read", path)
    validate_field_dicts(fields, path)


def load_ground_truth(path: Path, *, raw_fields: bool = False,
                      pool: Pool | None = None) -> tuple[GroundTruth, list[Any] | None, Task | None]:
    """Read and validate a gt.json file: (model, None, None).

    With `raw_fields`, the field entries come back as parsed JSON with their validation by the format
    models as a `Task`, and the model holds none: a long document's entries never all exist as models.
    With a `pool` of workers, a long document's entries are validated by a worker, which reads the file
    again, while the caller goes on with them (scoring a 200,000-cell truth); else right away. Either
    way the task's `result()` raises the models' first complaint.
    """
    if not raw_fields:
        raw = read_json_bytes(path)
        try:
            return GroundTruth.model_validate_json(raw), None, None
        except ValidationError:
            return parse_ground_truth(read_json(path), path), None, None
    parallel = pool if pool is not None and not pool.inline else None
    if parallel is not None and Path(path).stat().st_size >= PARALLEL_CHECK_MIN * MIN_ENTRY_BYTES:
        parallel.warm()  # the workers' server starts while this process parses the file
    data = read_json(path)
    fields = data.get("fields") if isinstance(data, dict) else None
    if not isinstance(fields, list):
        return parse_ground_truth(data, path), None, None  # raises the precise error
    gt = parse_ground_truth({**data, "fields": []}, path)
    upgrade_fields(fields, data.get("format"))
    if parallel is not None and len(fields) >= PARALLEL_CHECK_MIN:
        return gt, fields, parallel.submit(check_field_entries, str(Path(path).absolute()), str(path))
    return gt, fields, run_inline(validate_field_dicts, fields, path)


def load_field_records(path: Path) -> tuple[GroundTruth, list[FieldRecord]] | None:
    """A gt.json read fast, for scoring: (the model without field entries, the field entries as validated
    `FieldRecord`s), or None where the fast decoder is stricter than the format models (see
    `gtkit.format.decode`): then read it with `load_ground_truth`, which accepts it or names the problem."""
    raw = read_json_bytes(path)
    decoded = decode_ground_truth(raw)
    del raw
    if decoded is None:
        return None
    envelope, records = decoded
    return parse_ground_truth(envelope, path), records


@dataclass
class Bundle:
    """A bundle on disk, its ground truth parsed and its task schema loaded."""

    path: Path
    gt: GroundTruth
    schema: dict[str, Any]
    raw_fields: list[Any] | None = None  # with read_bundle(raw_fields=True): gt.fields is empty, these are
    field_check: Task | None = None  # unvalidated until field_check.result() returns
    records: list[FieldRecord] | None = None  # with read_bundle(records=True), when the fast decoder took the
    # file: the field entries, validated (gt.fields is empty, raw_fields None)
    _flat: Any = field(default=None, init=False, repr=False, compare=False)

    @property
    def pdf_path(self) -> Path:
        return self.path / PDF_NAME

    def field_dicts(self) -> list[dict[str, Any]]:
        """The field entries as JSON objects: the parsed ones when the bundle was read raw, else dumped."""
        if self.raw_fields is not None:
            return self.raw_fields
        return [f.model_dump(mode="json") for f in self.gt.fields]

    def field_entries(self) -> list[FieldRecord] | list[FieldEntry]:
        """The field entries, validated, read by attribute (`entry.readings[0].evidence[0].page`): the decoded
        records, else the models (of `gt.fields`, or made from `raw_fields`, as records where the fast records
        take them)."""
        if self.records is not None:
            return self.records
        if self.raw_fields is not None:
            records = records_of(self.raw_fields)
            return records if records is not None else FIELD_ENTRIES.validate_python(self.raw_fields)
        return self.gt.fields

    def flat_entries(self) -> Any:
        """The field entries flattened once (`gtkit.format.flat.FlatEntries`), shared by every check of the bundle;
        its `entries` are `field_entries()`."""
        if self._flat is None:
            from gtkit.format.flat import FlatEntries

            self._flat = FlatEntries(self.field_entries())
        return self._flat

    @property
    def doc_id(self) -> str:
        return self.gt.doc_id


def read_bundle(path: Path, *, verify: bool = True, raw_fields: bool = False, records: bool = False,
                pool: Pool | None = None) -> Bundle:
    """Load a bundle folder; with `verify`, check the PDF and schema hashes recorded in gt.json.

    `raw_fields` leaves the field entries as parsed JSON under a check, running in the `pool` for a long
    document (see `load_ground_truth`). `records` (with `raw_fields`) first tries the fast decoder: the field
    entries then come back validated, as `records` (see `load_field_records`)."""
    path = Path(path)
    if not path.is_dir():
        raise GtkitError("not a bundle folder (expected document.pdf, schema.json, gt.json)", path)
    for name in (GT_NAME, SCHEMA_NAME, PDF_NAME):
        if not (path / name).is_file():
            raise GtkitError(f"not a bundle: {name} is missing", path)
    fast = load_field_records(path / GT_NAME) if records and raw_fields else None
    if fast is not None:
        gt, recs = fast
        return Bundle(path=path, gt=gt, schema=_verified_schema(path, gt, verify), records=recs)
    gt, fields, field_check = load_ground_truth(path / GT_NAME, raw_fields=raw_fields, pool=pool)
    try:
        schema = _verified_schema(path, gt, verify)
    except BaseException:
        if field_check is not None:
            field_check.cancel()
        raise
    return Bundle(path=path, gt=gt, schema=schema, raw_fields=fields, field_check=field_check)


def _verified_schema(path: Path, gt: GroundTruth, verify: bool) -> dict[str, Any]:
    """The bundle's task schema, checked as a JSON Schema; with `verify`, both recorded hashes checked."""
    schema = check_schema(read_json(path / SCHEMA_NAME), path / SCHEMA_NAME)
    if verify:
        pdf_hash = sha256_file(path / PDF_NAME)
        if pdf_hash != gt.document.sha256:
            raise GtkitError(
                f"hash mismatch: gt.json records {gt.document.sha256[:12]}…, the file is {pdf_hash[:12]}…",
                path / PDF_NAME,
            )
        schema_hash = canonical_sha256(schema)
        if schema_hash != gt.schema_.sha256:
            raise GtkitError(
                f"hash mismatch: gt.json records {gt.schema_.sha256[:12]}…, the schema is {schema_hash[:12]}…",
                path / SCHEMA_NAME,
            )
    return schema


def safe_child(root: Path, rel: str, *, where: Path) -> Path:
    """Resolve `rel` under `root`, refusing absolute paths and anything that escapes `root`."""
    if not rel or Path(rel).is_absolute():
        raise GtkitError(f"path {rel!r} must be relative to the dataset folder", where)
    resolved = (root / rel).resolve()
    if root.resolve() not in (resolved, *resolved.parents) or resolved == root.resolve():
        raise GtkitError(f"path {rel!r} escapes the dataset folder", where)
    return resolved


def read_index(dataset: Path) -> list[DatasetEntry]:
    """Parse dataset.jsonl: one JSON object per line, doc ids unique, paths inside the dataset."""
    index = Path(dataset) / INDEX_NAME
    entries: list[DatasetEntry] = []
    seen: set[str] = set()
    for lineno, raw in read_jsonl(index):
        try:
            entry = DatasetEntry.model_validate(raw)
        except ValidationError as e:
            raise GtkitError(f"line {lineno}: {validation_message(e)}", index) from None
        safe_child(Path(dataset), entry.path, where=index)
        if entry.doc_id in seen:
            raise GtkitError(f"line {lineno}: duplicate doc_id {entry.doc_id!r}", index)
        seen.add(entry.doc_id)
        entries.append(entry)
    return entries


def is_dataset(path: Path) -> bool:
    return (Path(path) / INDEX_NAME).is_file()


def iter_bundle_dirs(path: Path) -> Iterator[tuple[str | None, Path]]:
    """(doc_id from the index or None, folder) for a bundle folder or each bundle of a dataset."""
    path = Path(path)
    if is_dataset(path):
        for entry in read_index(path):
            yield entry.doc_id, safe_child(path, entry.path, where=path / INDEX_NAME)
    elif (path / GT_NAME).exists():
        yield None, path
    elif not path.exists():
        raise GtkitError("not found", path)
    elif path.is_file():
        raise GtkitError(f"is a file: give the bundle or dataset folder ({path.parent})", path)
    else:
        raise GtkitError("neither a bundle (no gt.json) nor a dataset (no dataset.jsonl)", path)


def read_bundles(path: Path, *, verify: bool = True) -> list[Bundle]:
    """Every bundle of a dataset (or the one bundle), checking that index doc ids match gt.json."""
    bundles = []
    for doc_id, folder in iter_bundle_dirs(path):
        b = read_bundle(folder, verify=verify)
        if doc_id is not None and b.doc_id != doc_id:
            raise GtkitError(f"dataset.jsonl says doc_id {doc_id!r}, gt.json says {b.doc_id!r}", folder / GT_NAME)
        bundles.append(b)
    return bundles
