"""The JSON Schema of `gt.json` and `dataset.jsonl` lines, generated from the pydantic models.

The generated files ship in the package (`gtkit/format/gt.schema.json`,
`gtkit/format/dataset-entry.schema.json`); `python scripts/export_format_schema.py`
rewrites them and a test fails when they drift from the models.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gtkit.format.models import DatasetEntry, GroundTruth

HERE = Path(__file__).resolve().parent
GT_SCHEMA_PATH = HERE / "gt.schema.json"
ENTRY_SCHEMA_PATH = HERE / "dataset-entry.schema.json"


def _with_header(schema: dict[str, Any], schema_id: str, title: str) -> dict[str, Any]:
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": schema_id, **schema, "title": title}


def gt_json_schema() -> dict[str, Any]:
    schema = GroundTruth.model_json_schema(by_alias=True, mode="validation")
    return _with_header(schema, "https://gtkit.dev/schemas/gtkit.gt-2.json", "gtkit ground truth (gtkit.gt/2)")


def dataset_entry_json_schema() -> dict[str, Any]:
    schema = DatasetEntry.model_json_schema(by_alias=True, mode="validation")
    return _with_header(schema, "https://gtkit.dev/schemas/dataset-entry-1.json", "gtkit dataset.jsonl line")


def rendered() -> dict[Path, str]:
    """The shipped schema files as they should read, keyed by path."""
    return {
        GT_SCHEMA_PATH: json.dumps(gt_json_schema(), indent=2, ensure_ascii=False) + "\n",
        ENTRY_SCHEMA_PATH: json.dumps(dataset_entry_json_schema(), indent=2, ensure_ascii=False) + "\n",
    }
