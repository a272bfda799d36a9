"""What a dataset holds, one summary per document: the common input of the card and the exports.

A dataset is a folder with `dataset.jsonl` (or one bundle folder). Each bundle is read and checked by
`gtkit.format` (hashes verified, field entries validated); its summary says where it sits (family,
pipeline, recipe, split), how big it is (pages, records, cells) and what backs its cells (trust).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gtkit.errors import GtkitError
from gtkit.format.bundle import Bundle, is_dataset, read_bundle, read_index, safe_child
from gtkit.format.models import GroundTruth, Tags
from gtkit.format.writer import GT_NAME, INDEX_NAME

TRUST_LEVELS = ("constructed", "agreed", "adjudicated", "human", "pending")
SPLITS = ("short", "medium", "long")


def length_split(pages: int) -> str:
    """ExtractBench's published splits by page count: short up to 10 pages, medium 11 to 50, long above."""
    return "short" if pages <= 10 else "medium" if pages <= 50 else "long"


@dataclass(frozen=True)
class DocSummary:
    """One document of a dataset, as the card and the exports see it."""

    doc_id: str
    path: str  # the bundle folder, relative to the dataset ("." for a lone bundle)
    family: str
    pipeline: str
    recipe: str  # the scan recipe of a degraded bundle, "clean" otherwise
    split: str  # the index line's `split` when it has one, else the length split
    pages: int
    records: int  # items of every array of records in `expected`
    cells: int  # field entries
    trust: dict[str, int] = field(default_factory=dict)  # field entries per trust level
    tags: Tags = field(default_factory=Tags)


def count_records(value: Any) -> int:
    """Objects inside arrays anywhere in a JSON value (the records of every list, nested ones included)."""
    total, stack = 0, [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            total += sum(isinstance(x, dict) for x in v)
            stack.extend(v)
    return total


def bundle_folders(path: Path) -> Iterator[tuple[str, str | None, Path]]:
    """(path relative to the dataset, split named by the index or None, bundle folder) for a dataset's
    bundles in index order, or the one bundle."""
    path = Path(path)
    if is_dataset(path):
        for entry in read_index(path):
            yield entry.path, entry.split, safe_child(path, entry.path, where=path / INDEX_NAME)
    elif (path / GT_NAME).is_file():
        yield ".", None, path
    elif not path.exists():
        raise GtkitError("not found", path)
    else:
        raise GtkitError("not a gtkit dataset (no dataset.jsonl) nor a bundle (no gt.json)", path)


def read_checked(folder: Path) -> Bundle:
    """A bundle with its field entries as parsed JSON, validated by the format models."""
    bundle = read_bundle(folder, raw_fields=True)
    if bundle.field_check is not None:
        bundle.field_check.result()
    return bundle


def summarize(gt: GroundTruth, fields: list[dict[str, Any]], rel_path: str, split: str | None) -> DocSummary:
    prov = gt.provenance
    return DocSummary(
        doc_id=gt.doc_id, path=rel_path, family=prov.family or "(none)", pipeline=prov.pipeline,
        recipe=prov.recipe or "clean", split=split or length_split(gt.document.pages), pages=gt.document.pages,
        records=count_records(gt.expected), cells=len(fields),
        trust=dict(Counter(f["trust"] for f in fields)), tags=gt.tags)


def iter_documents(path: Path) -> Iterator[tuple[DocSummary, Bundle]]:
    """Every document of a dataset (or the one bundle) in index order: its summary and the bundle read."""
    for rel, split, folder in bundle_folders(path):
        bundle = read_checked(folder)
        yield summarize(bundle.gt, bundle.field_dicts(), rel, split), bundle


def summaries(path: Path) -> list[DocSummary]:
    return [s for s, _ in iter_documents(path)]
