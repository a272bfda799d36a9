"""`gtkit export --format parquet`: a dataset as two plain tables and its PDFs.

    OUT/
      EXPORT.json          what was exported (gtkit's marker: --force replaces only this)
      documents.parquet    one row per document
      cells.parquet        one row per cell (field entry)
      pdfs/<doc_id>.pdf    the documents

Columns hold plain types only (strings, integers, floats, booleans, lists of strings or floats), so pandas,
pyarrow and `datasets.load_dataset("parquet", data_files=...)` read them as they are; JSON values whose
type varies from row to row (a schema, an answer, a cell's value) are JSON text. The same dataset gives
the same bytes (no pandas metadata, no timestamps; pyarrow records only its own version).
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

from gtkit.dataset.export_eb import EXPORT_NAME, is_export
from gtkit.dataset.inventory import TRUST_LEVELS, iter_documents
from gtkit.errors import GtkitError
from gtkit.files.outputs import check_output, staged_dir
from gtkit.files.write import dumps_json, write_bytes_atomic

DOCUMENTS = "documents.parquet"
CELLS = "cells.parquet"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _pyarrow() -> Any:
    try:
        import pyarrow  # type: ignore[import-untyped]  # pyarrow has no type hints (an optional extra)
        import pyarrow.parquet  # type: ignore[import-untyped]  # as pyarrow above
    except ImportError:
        raise GtkitError("the parquet export needs pyarrow, which is not installed: pip install 'gtkit[parquet]'") \
            from None
    return pyarrow


def document_schema(pa: Any) -> Any:
    strings = pa.list_(pa.string())
    return pa.schema([
        ("doc_id", pa.string()), ("pdf", pa.string()), ("family", pa.string()), ("pipeline", pa.string()),
        ("recipe", pa.string()), ("split", pa.string()), ("pages", pa.int64()), ("records", pa.int64()),
        ("cells", pa.int64()), *((f"trust_{t}", pa.int64()) for t in TRUST_LEVELS),
        ("task", strings), ("perception", strings), ("structure", strings), ("length", pa.string()),
        ("domain", pa.string()), ("grounding", strings), ("page_widths", pa.list_(pa.float64())),
        ("page_heights", pa.list_(pa.float64())), ("parent", pa.string()), ("schema", pa.string()),
        ("expected", pa.string()),
    ])


def cell_schema(pa: Any) -> Any:
    return pa.schema([
        ("doc_id", pa.string()), ("path", pa.string()), ("value", pa.string()), ("trust", pa.string()),
        ("leniencies", pa.list_(pa.string())), ("alternates", pa.list_(pa.string())), ("page", pa.int64()),
        ("box", pa.list_(pa.float64())), ("quote", pa.string()), ("verified", pa.bool_()),
        ("evidence", pa.int64()), ("readings", pa.string()),
    ])


def cell_row(doc_id: str, entry: dict[str, Any]) -> dict[str, Any]:
    """A cell: its value and alternates as JSON text, the first place its value is evidenced (page, box
    [x0, y0, x1, y1] normalized, quote), how many places there are, and every reading as JSON text."""
    readings = entry["readings"]
    places = [ev for r in readings[:1] for ev in r.get("evidence") or ()]
    first = places[0] if places else {}
    return {
        "doc_id": doc_id, "path": entry["path"], "value": _json(readings[0]["value"]), "trust": entry["trust"],
        "leniencies": list(entry.get("leniencies") or ()), "alternates": [_json(r["value"]) for r in readings[1:]],
        "page": first.get("page"), "box": list(first["box"]) if first.get("box") is not None else None,
        "quote": first.get("quote"), "verified": bool(first.get("verified", False)),
        "evidence": sum(len(r.get("evidence") or ()) for r in readings), "readings": _json(readings),
    }


def _table_bytes(pa: Any, rows: list[dict[str, Any]], schema: Any) -> bytes:
    table = pa.Table.from_pylist(rows, schema=schema)
    buf = io.BytesIO()
    pa.parquet.write_table(table, buf, compression="zstd")
    return buf.getvalue()


def export_parquet(dataset: Path, out: Path, *, force: bool = False) -> tuple[int, int]:
    """Write the dataset (or one bundle) as parquet tables and PDFs at `out`; returns (documents, cells)."""
    pa = _pyarrow()
    dataset, out = Path(dataset), Path(out)
    check_output(out, force=force, inputs=[dataset], replaceable=is_export)
    documents: list[dict[str, Any]] = []
    cells: list[dict[str, Any]] = []
    with staged_dir(out, force=force, replaceable=is_export) as stage:
        (stage / "pdfs").mkdir()
        for d, bundle in iter_documents(dataset):
            gt = bundle.gt
            pdf = f"pdfs/{d.doc_id}.pdf"
            shutil.copyfile(bundle.pdf_path, stage / pdf)
            documents.append({
                "doc_id": d.doc_id, "pdf": pdf, "family": d.family, "pipeline": d.pipeline, "recipe": d.recipe,
                "split": d.split, "pages": d.pages, "records": d.records, "cells": d.cells,
                **{f"trust_{t}": d.trust.get(t, 0) for t in TRUST_LEVELS},
                "task": list(gt.tags.task), "perception": list(gt.tags.perception),
                "structure": list(gt.tags.structure), "length": gt.tags.length, "domain": gt.tags.domain,
                "grounding": list(gt.tags.grounding),
                "page_widths": [w for w, _ in gt.document.page_sizes],
                "page_heights": [h for _, h in gt.document.page_sizes],
                "parent": gt.provenance.parent.doc_id if gt.provenance.parent else None,
                "schema": _json(bundle.schema), "expected": _json(gt.expected),
            })
            cells.extend(cell_row(d.doc_id, f) for f in bundle.field_dicts())
        write_bytes_atomic(stage / DOCUMENTS, _table_bytes(pa, documents, document_schema(pa)))
        write_bytes_atomic(stage / CELLS, _table_bytes(pa, cells, cell_schema(pa)))
        write_bytes_atomic(stage / EXPORT_NAME, dumps_json({"exported_by": "gtkit", "format": "parquet",
                                                            "source": dataset.resolve().name,
                                                            "documents": len(documents), "cells": len(cells)}))
    return len(documents), len(cells)
