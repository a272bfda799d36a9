"""`gtkit export --format extractbench`: a gtkit dataset in ExtractBench's layout, so its harness runs on it.

    OUT/
      EXPORT.json                          what was exported (gtkit's marker: --force replaces only this)
      short/<doc_id>.pdf                   the sidecar layout ExtractBench's loader reads
      short/<doc_id>.test.json             tags, data_schema, expected_output, _field_rules, _eval_row_identity
      medium/...  long/...                 (a split folder only when it has documents)
      hub/{short,medium,long}.jsonl        the rows of ExtractBench's published splits ...
      hub/docs/<split>/<doc_id>.pdf        ... and their documents (hard links to the PDFs above)

Splits are ExtractBench's, by page count: short up to 10 pages, medium 11 to 50, long above 50. The
mapping of each field entry to its rule is in docs/card-export.md.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from gtkit.dataset.extractbench import dotted_path, flat_tags, with_null_defaults, xywh
from gtkit.dataset.inventory import SPLITS, iter_documents, length_split
from gtkit.errors import GtkitError
from gtkit.files.outputs import check_output, staged_dir
from gtkit.files.write import dumps_json, write_bytes_atomic
from gtkit.format.bundle import Bundle
from gtkit.format.writer import GT_NAME
from gtkit.schema import compile_schema, iter_leaves, record_arrays

EXPORT_NAME = "EXPORT.json"
HUB = "hub"


def is_export(path: Path) -> bool:
    """A folder gtkit export wrote (its EXPORT.json says so), or an empty folder: what `--force` may replace."""
    path = Path(path)
    if not path.is_dir() or path.is_symlink():
        return False
    if not any(path.iterdir()):
        return True
    try:
        return json.loads((path / EXPORT_NAME).read_text(encoding="utf-8")).get("exported_by") == "gtkit"
    except (OSError, ValueError, AttributeError, RecursionError):
        return False


def field_rule(entry: dict[str, Any], lens: tuple[str, ...]) -> dict[str, Any]:
    """One `_field_rules` body from a field entry: every reading an evidence value (OR-accepted), with a place
    per verified evidence (page, COCO bbox, quote); a reading without one is a value-only entry. Unverified
    evidence (a system's citation) is not exported as a place: gtkit grounds only on verified boxes."""
    evidence = []
    verified = entry["trust"] != "pending"
    for reading in entry["readings"]:
        places = [ev for ev in reading.get("evidence") or () if ev.get("verified")]
        verified = verified and len(places) == len(reading.get("evidence") or ())
        if not places:
            evidence.append({"value": reading["value"]})
        for ev in places:
            box = ev.get("box")
            evidence.append({"page": ev["page"], "bbox": xywh(box) if box is not None else None,
                             "quote": ev.get("quote"), "value": reading["value"]})
    return {"evidence": evidence, "normalizers": sorted({*(entry.get("leniencies") or ()), *lens}),
            "verified": verified}


def row_identity(schema: dict[str, Any]) -> dict[str, Any]:
    """`_eval_row_identity` from `x-identity`, for arrays of records reached through objects only (ExtractBench
    keys the block by one array path; an array inside records has one per parent record)."""
    out = {}
    for pattern, node in record_arrays(compile_schema(schema)):
        if node.identity and "*" not in pattern:
            out[dotted_path(pattern, {})] = {"identity_key": list(node.identity)}
    return out


def test_case(bundle: Bundle) -> dict[str, Any]:
    """The `<stem>.test.json` of a bundle."""
    gt = bundle.gt
    if not isinstance(gt.expected, dict):
        raise GtkitError(f"expected is a {type(gt.expected).__name__}: ExtractBench's expected_output is an object",
                         bundle.path / GT_NAME)
    lens = {p: node.leniencies for p, node, _ in iter_leaves(compile_schema(bundle.schema), gt.expected)}
    rules: dict[str, Any] = {}
    pointers: dict[str, str] = {}
    for f in bundle.field_dicts():
        key = dotted_path(f["path"], gt.expected)
        if key in pointers:
            raise GtkitError(f"fields {pointers[key]} and {f['path']} would both be ExtractBench rule {key!r} "
                             "(its dotted paths cannot tell them apart): rename a key", bundle.path)
        pointers[key] = f["path"]
        rules[key] = field_rule(f, lens.get(f["path"], ()))
    case: dict[str, Any] = {"tags": flat_tags(gt.tags), "data_schema": with_null_defaults(bundle.schema),
                            "expected_output": gt.expected, "_field_rules": rules}
    identity = row_identity(bundle.schema)
    if identity:
        case["_eval_row_identity"] = identity
    return case


def hub_row(stem: str, split: str, case: dict[str, Any]) -> dict[str, Any]:
    """A row of ExtractBench's published split files (JSON columns as strings, as on the Hub)."""
    return {"id": stem, "pdf": f"docs/{split}/{stem}.pdf", "category": split, "tags": case["tags"],
            "data_schema": json.dumps(case["data_schema"], ensure_ascii=False),
            "expected_output": json.dumps(case["expected_output"], ensure_ascii=False),
            "field_rules": json.dumps(case["_field_rules"], ensure_ascii=False),
            "repeated_structure": json.dumps(case.get("_eval_row_identity") or {}, ensure_ascii=False)}


def _link_or_copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def export_extractbench(dataset: Path, out: Path, *, force: bool = False) -> dict[str, int]:
    """Write the dataset (or one bundle) in ExtractBench's layout at `out`; returns documents per split."""
    dataset, out = Path(dataset), Path(out)
    check_output(out, force=force, inputs=[dataset], replaceable=is_export)
    rows: dict[str, list[str]] = {s: [] for s in SPLITS}
    with staged_dir(out, force=force, replaceable=is_export) as stage:
        for summary, bundle in iter_documents(dataset):
            split, stem = length_split(summary.pages), summary.doc_id
            case = test_case(bundle)
            (stage / split).mkdir(exist_ok=True)
            shutil.copyfile(bundle.pdf_path, stage / split / f"{stem}.pdf")
            write_bytes_atomic(stage / split / f"{stem}.test.json", dumps_json(case, indent=None))
            _link_or_copy(stage / split / f"{stem}.pdf", stage / HUB / "docs" / split / f"{stem}.pdf")
            rows[split].append(json.dumps(hub_row(stem, split, case), ensure_ascii=False))
        for split, lines in rows.items():
            write_bytes_atomic(stage / HUB / f"{split}.jsonl", "".join(line + "\n" for line in lines).encode("utf-8"))
        counts = {s: len(v) for s, v in rows.items()}
        write_bytes_atomic(stage / EXPORT_NAME, dumps_json({"exported_by": "gtkit", "format": "extractbench",
                                                            "source": dataset.resolve().name, "per_split": counts}))
    return counts
