"""A document's ground truth as the scorer holds it: per field entry, only what scoring needs (`TruthCell`),
read from a bundle the fast way where the fast decoder takes it (`Truth.read`). Only verified evidence
counts for grounding (docs/scoring.md)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TypedDict

from gtkit.format.bundle import read_bundle
from gtkit.format.decode import FieldRecord, no_gc
from gtkit.format.models import FieldEntry, GroundTruth, Tags
from gtkit.workers import Pool, Task


class TruthCell(NamedTuple):
    """What scoring needs of one field entry (lighter than the pydantic model, so big truths fit in memory)."""

    values: tuple[Any, ...]
    leniencies: tuple[str, ...]
    pending: bool
    boxes: tuple[tuple[int, tuple[float, float, float, float]], ...]
    pages: frozenset[int]

    @classmethod
    def of(cls, f: FieldEntry) -> TruthCell:
        return cls(
            values=tuple(r.value for r in f.readings),
            leniencies=tuple(f.leniencies),
            pending=f.trust == "pending",
            boxes=tuple((ev.page, ev.box) for r in f.readings for ev in r.evidence
                        if ev.box is not None and ev.verified),
            pages=frozenset(ev.page for r in f.readings for ev in r.evidence if ev.verified),
        )

    @classmethod
    def of_dict(cls, f: dict[str, Any]) -> TruthCell:
        """The same from a field entry as parsed JSON (validated separately, see `Truth.read`); only verified
        evidence counts for grounding."""
        readings = f["readings"]
        lens = f.get("leniencies")
        lens = tuple(lens) if lens else ()
        pending = f["trust"] == "pending"
        if len(readings) == 1 and not readings[0].get("evidence"):  # the common case, kept cheap
            return cls((readings[0]["value"],), lens, pending, (), _NO_PAGES)
        evidence = [ev for r in readings for ev in r.get("evidence") or () if ev.get("verified")]
        return cls(
            values=tuple(r["value"] for r in readings),
            leniencies=lens,
            pending=pending,
            boxes=tuple((ev["page"], tuple(ev["box"])) for ev in evidence if ev.get("box") is not None),
            pages=frozenset(ev["page"] for ev in evidence),
        )

    @classmethod
    def of_record(cls, f: FieldRecord) -> TruthCell:
        """The same from a field entry decoded by `gtkit.format.decode` (validated as it was decoded)."""
        readings = f.readings
        declared = f.leniencies
        lens = tuple(declared) if declared else ()
        pending = f.trust == "pending"
        if len(readings) == 1:
            reading = readings[0]
            if not reading.evidence:  # the common cases, kept cheap
                return cls((reading.value,), lens, pending, (), _NO_PAGES)
            if len(reading.evidence) == 1:
                ev = reading.evidence[0]
                if not ev.verified:
                    return cls((reading.value,), lens, pending, (), _NO_PAGES)
                return cls((reading.value,), lens, pending, ((ev.page, ev.box),) if ev.box is not None else (),
                           _page_set(ev.page))
        evidence = [ev for r in readings for ev in r.evidence if ev.verified]
        return cls(
            values=tuple(r.value for r in readings),
            leniencies=lens,
            pending=pending,
            boxes=tuple((ev.page, ev.box) for ev in evidence if ev.box is not None),
            pages=frozenset(ev.page for ev in evidence),
        )


_NO_PAGES: frozenset[int] = frozenset()


@functools.lru_cache(maxsize=4096)
def _page_set(page: int) -> frozenset[int]:
    """{page}, one shared set per page (most cells cite one page)."""
    return frozenset((page,))


@dataclass
class Truth:
    """One document's ground truth as the scorer holds it."""

    doc_id: str
    tags: Tags
    schema: dict[str, Any]
    expected: Any
    cells: dict[str, TruthCell]
    pages: int = 1_000_000  # the document's page count (citations beyond it ground nothing)
    parent: str | None = None  # provenance: a degraded document's parent and recipe
    recipe: str | None = None
    field_check: Task | None = None
    # truth-side keys of each records array, kept so that scoring several systems against one truth
    # (consensus re-score) computes them once
    rows_cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_gt(cls, gt: GroundTruth, schema: dict[str, Any]) -> Truth:
        cells = {f.path: TruthCell.of(f) for f in gt.fields}
        return cls(doc_id=gt.doc_id, tags=gt.tags, schema=schema, expected=gt.expected, cells=cells,
                   pages=gt.document.pages, **_lineage(gt))

    @classmethod
    def read(cls, folder: Path, pool: Pool | None = None) -> Truth:
        """Load a bundle's truth for scoring. Its field entries are decoded straight into validated records
        (`gtkit.format.decode`) where the fast decoder takes the file; otherwise they are read as parsed JSON
        while the format models validate them beside it (in the `pool`, for a long document). Either way,
        call `confirm()` before trusting a score computed from it."""
        cells: dict[str, TruthCell] = {}
        with no_gc():  # nothing read holds a cycle: a collection on the way would only walk it all again
            bundle = read_bundle(folder, raw_fields=True, records=True, pool=pool)
            if bundle.records is not None:  # validated as they were decoded
                records, bundle.records = bundle.records, None
                records.reverse()  # popped from the end, in file order
                of_record = TruthCell.of_record
                while records:
                    r = records.pop()  # freed as we go: the records and the cells never all coexist
                    cells[r.path] = of_record(r)
            else:
                assert bundle.raw_fields is not None and bundle.field_check is not None
                raw = bundle.raw_fields
                try:
                    for i, f in enumerate(raw):
                        cells[f["path"]] = TruthCell.of_dict(f)
                        raw[i] = None  # freed as we go: the parsed entries and the cells never all coexist
                except (KeyError, TypeError, AttributeError, ValueError):
                    bundle.field_check.result()  # raises the models' precise complaint
                    raise
        return cls(doc_id=bundle.doc_id, tags=bundle.gt.tags, schema=bundle.schema, expected=bundle.gt.expected,
                   cells=cells, pages=bundle.gt.document.pages, field_check=bundle.field_check, **_lineage(bundle.gt))

    def confirm(self) -> None:
        """Raise if the field entries this truth was read from fail the format models."""
        if self.field_check is not None:
            self.field_check.result()

    @property
    def has_boxes(self) -> bool:
        return any(c.boxes for c in self.cells.values() if not c.pending)


class _Lineage(TypedDict):
    parent: str | None
    recipe: str | None


def _lineage(gt: GroundTruth) -> _Lineage:
    prov = gt.provenance
    return {"parent": prov.parent.doc_id if prov.parent else None, "recipe": prov.recipe}
