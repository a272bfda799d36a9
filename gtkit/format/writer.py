"""The one way to make a bundle or a dataset.

A pipeline hands the writer three things: the PDF, an `Envelope` (doc id, page sizes, task schema,
provenance, tags, `expected`) and its field entries (plain JSON objects, any iterable). The writer
owns everything else: the format version, the hashes of the PDF and of the schema, the gtkit version
in the provenance, validation of the envelope and of every field entry by the format models, the
layout of gt.json on disk, staging in a temporary folder renamed into place, and the dataset index.

    with write_bundle_output(out, force=force) as bundle:        # one bundle at `out`
        bundle.write_pdf(pdf_bytes)
        bundle.write(envelope, fields)

    with write_dataset(out, force=force) as dataset:             # bundles + dataset.jsonl at `out`
        for ...:
            bundle = dataset.bundle(doc_id)
            bundle.write_pdf(path_or_bytes)
            bundle.write(envelope, fields)
        dataset.write_file("queue.jsonl", data)                  # a pipeline's side outputs

Field entries are streamed: validated and written in chunks as the iterable yields them, so a
200,000-entry document is never held twice. They are written as given (key order included) once the
models accept them; `evidence_entry` and `field_entry` build them in the models' key order.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, cast

from pydantic import TypeAdapter, ValidationError

from gtkit import __version__
from gtkit.errors import GtkitError
from gtkit.files.outputs import staged_dir
from gtkit.files.read import canonical_sha256, sha256_file
from gtkit.files.write import dumps_json, new_temp_file, write_bytes_atomic
from gtkit.format.models import FORMAT_VERSION, DatasetEntry, FieldEntry, GroundTruth, Tags
from gtkit.typed import pointer_of, validation_message

PDF_NAME = "document.pdf"
SCHEMA_NAME = "schema.json"
GT_NAME = "gt.json"
INDEX_NAME = "dataset.jsonl"

FIELD_ENTRIES = TypeAdapter(list[FieldEntry])
FIELD_CHUNK = 4096


@dataclass
class Envelope:
    """Everything gt.json says besides its field entries that only the pipeline knows."""

    doc_id: str
    page_sizes: list[tuple[float, float]]
    schema: dict[str, Any]
    provenance: dict[str, Any]  # pipeline, family, seed, recipe, parent, parameters (gtkit and created: the writer's)
    expected: Any
    tags: Tags | dict[str, Any] | None = None
    schema_version: str | None = None

    @classmethod
    def of(cls, gt: GroundTruth, schema: dict[str, Any]) -> Envelope:
        """The envelope of a ground-truth model (its hashes and versions are the writer's to recompute)."""
        return cls(doc_id=gt.doc_id, page_sizes=list(gt.document.page_sizes), schema=schema,
                   provenance=gt.provenance.model_dump(mode="json", exclude={"gtkit", "created"}),
                   expected=gt.expected, tags=gt.tags, schema_version=gt.schema_.version)


def evidence_entry(page: int, box: Any = None, words: Any = None, quad: Any = None, quote: str | None = None,
                   verified: bool = False) -> dict[str, Any]:
    """One evidence object in the format's key order (`verified`: the box is known to show the value)."""
    return {"page": page, "box": box, "words": words, "quad": quad, "quote": quote, "verified": verified}


def field_entry(path: str, readings: list[dict[str, Any]], leniencies: list[str], trust: str) -> dict[str, Any]:
    """One field entry in the format's key order; `readings` are {"value", "evidence"} objects."""
    return {"path": path, "readings": readings, "leniencies": leniencies, "trust": trust}


def field_entry_errors(fields: list[Any], start: int = 0) -> Iterator[tuple[str, str]]:
    """(JSON Pointer into gt.json, message) for every way field entries fail the format models, validated in
    chunks that are dropped at once (a long document's entries never all exist as models); `start` is the
    index of the first entry in the document."""
    for lo in range(0, len(fields), FIELD_CHUNK):
        try:
            FIELD_ENTRIES.validate_python(fields[lo : lo + FIELD_CHUNK])
        except ValidationError as e:
            for err in e.errors():
                index = cast(int, err["loc"][0])  # the entry's index: what was validated is a list
                yield pointer_of(("fields", start + lo + index, *err["loc"][1:])), err["msg"]


def validate_field_dicts(fields: list[Any], path: Path | str, start: int = 0) -> None:
    """Raise the first complaint of the format models about field entries given as plain JSON objects."""
    for pointer, message in field_entry_errors(fields, start):
        raise GtkitError(f"invalid gt.json: {pointer}: {message}", path)


def ground_truth_envelope(envelope: Envelope, pdf_sha256: str, where: Path | str) -> GroundTruth:
    """The validated gt.json model of an envelope, without field entries."""
    data = {
        "format": FORMAT_VERSION,
        "doc_id": envelope.doc_id,
        "document": {"sha256": pdf_sha256, "pages": len(envelope.page_sizes),
                     "page_sizes": [list(s) for s in envelope.page_sizes]},
        "schema": {"sha256": canonical_sha256(envelope.schema), "version": envelope.schema_version},
        "provenance": {**envelope.provenance, "gtkit": __version__, "created": None},
        "tags": envelope.tags if envelope.tags is not None else {},
        "expected": envelope.expected,
        "fields": [],
    }
    try:
        return GroundTruth.model_validate(data)
    except ValidationError as e:
        raise GtkitError(f"invalid gt.json: {validation_message(e)}", where) from None


# --- gt.json on disk ---------------------------------------------------------------------------------------------


_dump = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


def _rows(values: Iterable[Any], indent: str) -> Iterator[str]:
    """`values` one per line, comma-separated, in batches of text (the last line ends with a newline)."""
    batch: list[str] = []
    first = True
    for v in values:
        batch.append(indent + _dump(v))
        if len(batch) == FIELD_CHUNK:
            yield ("" if first else ",\n") + ",\n".join(batch)
            first, batch = False, []
    if batch:
        yield ("" if first else ",\n") + ",\n".join(batch)
    yield "\n"


def _expected_text(value: Any) -> Iterator[str]:
    if not (isinstance(value, dict) and value):
        yield _dump(value)
        return
    yield "{\n"
    names = list(value)
    for j, name in enumerate(names):
        v = value[name]
        sep = "," if j < len(names) - 1 else ""
        if isinstance(v, list) and v:
            yield f"  {_dump(name)}: [\n"
            yield from _rows(v, "   ")
            yield f"  ]{sep}\n"
        else:
            yield f"  {_dump(name)}: {_dump(v)}{sep}\n"
    yield " }"


def gt_json_chunks(header: dict[str, Any], fields: Iterable[Any]) -> Iterator[str]:
    """gt.json text: an indented envelope with one record of `expected` and one field entry per line.

    `header` holds every key but `fields`, in order, `expected` last. Compact enough for a 200,000-field
    document, still readable and diffable line by line, and produced in batches so the whole text never
    has to sit in memory.
    """
    yield "{\n"
    for key, value in header.items():
        if key == "expected":
            yield ' "expected": '
            yield from _expected_text(value)
            yield ",\n"
        else:
            yield f" {_dump(key)}: {_dump(value)},\n"
    it = iter(fields)
    first = next(it, _END)
    if first is _END:
        yield ' "fields": []\n}\n'
        return
    yield ' "fields": [\n'

    def all_fields() -> Iterator[Any]:
        yield first
        yield from it

    yield from _rows(all_fields(), "  ")
    yield " ]\n}\n"


_END = object()


def _validated(fields: Iterable[dict[str, Any]], where: Path | str, counter: list[int]) -> Iterator[dict[str, Any]]:
    """The entries unchanged, each chunk validated by the format models before any of it is yielded."""
    chunk: list[dict[str, Any]] = []
    for entry in fields:
        chunk.append(entry)
        if len(chunk) == FIELD_CHUNK:
            validate_field_dicts(chunk, where, counter[0])
            counter[0] += len(chunk)
            yield from chunk
            chunk = []
    validate_field_dicts(chunk, where, counter[0])
    counter[0] += len(chunk)
    yield from chunk


def _header(gt: GroundTruth) -> dict[str, Any]:
    header = gt.model_dump(mode="json", by_alias=True, exclude={"expected", "fields"})
    header["expected"] = gt.expected
    return header


def _write_text(path: Path, chunks: Iterable[str]) -> None:
    """Write text chunks to `path` via a temporary file renamed into place."""
    fd, tmp = new_temp_file(path.parent, path.name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            _writelines(f, chunks)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _writelines(f: TextIO, chunks: Iterable[str]) -> None:
    for chunk in chunks:
        f.write(chunk)


def gt_bytes(gt: GroundTruth) -> bytes:
    """gt.json of a model, as the writer lays it out."""
    return "".join(gt_json_chunks(_header(gt), gt.model_dump(mode="json")["fields"])).encode("utf-8")


# --- bundles and datasets ----------------------------------------------------------------------------------------


def index_entry(doc_id: str, rel_path: str, gt: GroundTruth, cells: int | None = None) -> DatasetEntry:
    return DatasetEntry(
        doc_id=doc_id,
        path=rel_path,
        family=gt.provenance.family,
        pipeline=gt.provenance.pipeline,
        tags=gt.tags,
        pages=gt.document.pages,
        cells=cells if cells is not None else len(gt.fields),
    )


def index_bytes(entries: list[DatasetEntry]) -> bytes:
    return "".join(
        json.dumps(e.model_dump(mode="json", exclude_none=True), ensure_ascii=False) + "\n" for e in entries
    ).encode("utf-8")


class BundleWriter:
    """Writes the three files of one bundle into a (staging) folder: the PDF first, then `write`."""

    def __init__(self, folder: Path, rel_path: str = "."):
        self.folder = Path(folder)
        self.rel_path = rel_path
        self.entry: DatasetEntry | None = None
        self.folder.mkdir(parents=True, exist_ok=True)

    @property
    def pdf_path(self) -> Path:
        """Where the PDF goes; a pipeline that streams its PDF (page by page) writes this file itself."""
        return self.folder / PDF_NAME

    def write_pdf(self, pdf: bytes | Path) -> None:
        """The document: its bytes, or a file copied as is."""
        if isinstance(pdf, bytes):
            write_bytes_atomic(self.pdf_path, pdf, force=True)
        else:
            shutil.copyfile(pdf, self.pdf_path)

    def write(self, envelope: Envelope, fields: Iterable[dict[str, Any]]) -> DatasetEntry:
        """schema.json and gt.json (every field entry validated as it is written); returns the index entry."""
        if not self.pdf_path.is_file():
            raise RuntimeError("write the PDF before the ground truth")
        where = f"{envelope.doc_id}/{GT_NAME}"
        gt = ground_truth_envelope(envelope, sha256_file(self.pdf_path), where)
        write_bytes_atomic(self.folder / SCHEMA_NAME, dumps_json(envelope.schema, indent=2), force=True)
        counter = [0]
        _write_text(self.folder / GT_NAME, gt_json_chunks(_header(gt), _validated(fields, where, counter)))
        self.entry = index_entry(gt.doc_id, self.rel_path, gt, cells=counter[0])
        return self.entry


class DatasetWriter:
    """Bundles in sub-folders of a staging folder, and the dataset index written when the dataset closes."""

    def __init__(self, stage: Path):
        self.stage = stage
        self._bundles: list[BundleWriter | DatasetEntry] = []

    def bundle(self, doc_id: str, rel_path: str | None = None) -> BundleWriter:
        """A writer for the bundle `doc_id` in the folder `rel_path` (default: the doc id); indexed in the order
        asked. The folder may already hold the bundle's PDF (a dataset being revised)."""
        writer = BundleWriter(self.stage / (rel_path or doc_id), rel_path or doc_id)
        self._bundles.append(writer)
        return writer

    def adopt(self, rel_path: str, entry: DatasetEntry | None = None) -> DatasetEntry:
        """Index a bundle already in the staging folder (written by another call of the writer)."""
        if entry is None:
            gt = GroundTruth.model_validate_json((self.stage / rel_path / GT_NAME).read_bytes())
            entry = index_entry(gt.doc_id, rel_path, gt)
        self._bundles.append(entry)
        return entry

    def write_file(self, name: str, data: bytes) -> None:
        """A side output of the pipeline (queue, report, ...) beside the bundles."""
        write_bytes_atomic(self.stage / name, data, force=True)

    def write_index(self) -> None:
        """dataset.jsonl of the bundles so far (written again when the dataset closes), for a caller that
        reads the dataset before it is complete."""
        write_bytes_atomic(self.stage / INDEX_NAME, index_bytes(self.entries()), force=True)

    def entries(self) -> list[DatasetEntry]:
        out = []
        for b in self._bundles:
            if isinstance(b, BundleWriter):
                if b.entry is None:
                    raise RuntimeError(f"bundle {b.rel_path} was opened and never written")
                out.append(b.entry)
            else:
                out.append(b)
        return out


def is_gtkit_output(path: Path) -> bool:
    """A folder gtkit wrote, a bundle (gt.json of this format family) or a dataset (dataset.jsonl), or an empty
    folder (nothing to lose): what `--force` may replace with a bundle or a dataset."""
    path = Path(path)
    if not path.is_dir() or path.is_symlink():
        return False
    if (path / INDEX_NAME).is_file() or not any(path.iterdir()):
        return True
    try:
        with open(path / GT_NAME, "rb") as f:
            head = f.read(64)
    except OSError:
        return False
    return head.startswith(b'{\n "format": "gtkit.gt/')


@contextlib.contextmanager
def write_bundle_output(target: Path, *, force: bool = False) -> Iterator[BundleWriter]:
    """One bundle at `target`, staged and renamed into place when the body finishes (nothing if it fails).
    With `force` it replaces only a bundle or dataset gtkit wrote (`is_gtkit_output`)."""
    with staged_dir(Path(target), force=force, replaceable=is_gtkit_output) as stage:
        writer = BundleWriter(stage)
        yield writer
        if writer.entry is None:
            raise RuntimeError("the bundle was never written")


@contextlib.contextmanager
def write_dataset(target: Path, *, force: bool = False) -> Iterator[DatasetWriter]:
    """A dataset at `target`: bundles, side outputs and dataset.jsonl, staged and renamed into place.
    With `force` it replaces only a bundle or dataset gtkit wrote (`is_gtkit_output`)."""
    with staged_dir(Path(target), force=force, replaceable=is_gtkit_output) as stage:
        dataset = DatasetWriter(stage)
        yield dataset
        dataset.write_index()


def write_bundle(target: Path, *, pdf: bytes | Path, schema: dict[str, Any], gt: GroundTruth,
                 force: bool = False) -> None:
    """Write a bundle from a ground-truth model (tests, benchmarks, manual truth): the writer does the rest.

    The hashes, format version and gtkit version of `gt` are recomputed by the writer."""
    with write_bundle_output(target, force=force) as bundle:
        bundle.write_pdf(pdf)
        bundle.write(Envelope.of(gt, schema), (f.model_dump(mode="json") for f in gt.fields))
