"""Score gtkit-shaped cases with ExtractBench's reference scorer (a differential-test bridge).

Runs in a Python >= 3.12 venv that has `llama-extract-bench` installed (`make extractbench`
builds `.venv-eb312`); it imports nothing from gtkit. Reads JSON Lines, one case a line:

    {"id": "...", "schema": {...}, "expected": {...},
     "fields": [{"path": "/rows/0/city", "readings": [{"value": "Austin",
                 "evidence": [{"page": 1, "box": [x0, y0, x1, y1]}]}], "leniencies": ["case_insensitive"]}],
     "prediction": {...}, "citations": {"/rows/3/city": [{"page": 1, "box": [x0, y0, x1, y1]}]}}

(`fields` and `citations` as gtkit stores them in gt.json and `<doc_id>.citations.json`), scores each
with `compute_unified_evidence_metrics` and writes one JSON line per case:

    {"id": "...", "value": {"precision", "recall", "f1", "correct", "n_pred", "n_truth"} | null,
     "page": {...} | null, "word": {...} | null}

null where ExtractBench emits no metric (no cells at all; no evidence page or box in the truth).

The mapping to ExtractBench's input: JSON Pointers become its dotted paths (`rows[0].city`); each
reading becomes one evidence entry per evidence place (or one value-only entry), so alternate
readings are OR-accepted; a field's leniencies plus its schema node's `x-leniency` become the rule's
`normalizers`; boxes go from [x0, y0, x1, y1] to COCO [x, y, w, h]. Fuzzy fields are switched off
(`fuzzy_field_thresholds={}`), as gtkit has none. With `--absent null` (the default) every schema
property gets `"default": null`, so that ExtractBench reads an omitted key as an explicit null,
gtkit's rule and the paper's (Table 9); `--absent absent` leaves the schema as it is.

    .venv-eb312/bin/python scripts/extractbench_bridge.py [cases.jsonl] [--absent null|absent] > scores.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any

from extract_bench.evaluation.metrics.extract.unified_evidence_metric import compute_unified_evidence_metrics
from extract_bench.inference.providers.extract.table_codegen.schema_utils import (
    resolve_refs,
    schema_items,
    schema_properties,
)
from extract_bench.test_cases.schema import ExtractFieldTestRule, FieldEvidence


def _tokens(pointer: str) -> list[str]:
    if pointer == "":
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def dotted_path(pointer: str, doc: Any) -> str:
    """`/rows/0/city` -> `rows[0].city`, walking `doc` to tell list indexes from keys."""
    out = ""
    cur = doc
    for tok in _tokens(pointer):
        if isinstance(cur, list) or (not isinstance(cur, dict) and tok.isdigit()):
            out += f"[{int(tok)}]"
            cur = cur[int(tok)] if isinstance(cur, list) and int(tok) < len(cur) else None
        else:
            out += f".{tok}" if out else tok
            cur = cur.get(tok) if isinstance(cur, dict) else None
    return out


def _xywh(box: Iterable[float]) -> list[float]:
    x0, y0, x1, y1 = box
    return [x0, y0, x1 - x0, y1 - y0]


def schema_leniencies(schema: Any, pointer: str) -> list[str]:
    """The `x-leniency` of the schema node a pointer's leaf sits under (list indexes follow `items`)."""
    node = schema
    for tok in _tokens(pointer):
        if not isinstance(node, dict):
            return []
        props = schema_properties(node)
        if tok in props:
            node = props[tok]
        elif tok.isdigit():
            node = schema_items(node)
        else:
            return []
    if not isinstance(node, dict):
        return []
    lens = node.get("x-leniency", [])
    if not lens:
        for key in ("anyOf", "oneOf"):
            for alt in node.get(key) or []:
                if isinstance(alt, dict) and alt.get("x-leniency"):
                    lens = alt["x-leniency"]
    return [lens] if isinstance(lens, str) else list(lens)


def with_null_defaults(schema: Any) -> Any:
    """Every property schema gets `"default": null` (unless it declares a default)."""
    if isinstance(schema, list):
        return [with_null_defaults(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: with_null_defaults(v) for k, v in schema.items()}
    props = out.get("properties")
    if isinstance(props, dict):
        out["properties"] = {k: ({"default": None, **v} if isinstance(v, dict) else v) for k, v in props.items()}
    return out


def field_rules(case: dict[str, Any], schema: Any) -> list[ExtractFieldTestRule]:
    rules = []
    for entry in case["fields"]:
        evidence = []
        for reading in entry["readings"]:
            places = reading.get("evidence") or []
            if not places:
                evidence.append(FieldEvidence(value=reading["value"]))
            for ev in places:
                box = ev.get("box")
                evidence.append(FieldEvidence(page=ev["page"], bbox=_xywh(box) if box is not None else None,
                                              value=reading["value"]))
        lens = sorted({*(entry.get("leniencies") or []), *schema_leniencies(schema, entry["path"])})
        rules.append(ExtractFieldTestRule(field_path=dotted_path(entry["path"], case["expected"]),
                                          evidence=evidence, normalizers=lens))
    return rules


def citations(case: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for pointer, cites in (case.get("citations") or {}).items():
        path = dotted_path(pointer, case["prediction"])
        for c in cites:
            box = c.get("box")
            out.append({"field_path": path, "page": c["page"], "bbox": _xywh(box) if box is not None else None})
    return out


def score_case(case: dict[str, Any], *, absent: str = "null") -> dict[str, Any]:
    schema = resolve_refs(case["schema"])
    if absent == "null":
        schema = with_null_defaults(schema)
    metrics = compute_unified_evidence_metrics(
        case["expected"],
        case["prediction"],
        field_rules(case, schema),
        citations(case),
        schema,
        fuzzy_field_thresholds={},
    )
    by_name = {m.metric_name: m for m in metrics}
    out: dict[str, Any] = {"id": case.get("id")}
    for name, stem, keys in (
        ("value", "value", ("v_correct", "predicted_cells", "expected_cells")),
        ("page", "page", ("p_correct", "page_pred_claims", "page_expected_cells")),
        ("word", "grounded", ("g_correct", "grounded_pred_claims", "grounded_expected_cells")),
    ):
        f1 = by_name.get(f"extract_unified_{stem}_f1")
        if f1 is None:
            out[name] = None
            continue
        meta = f1.metadata or {}
        out[name] = {
            "precision": by_name[f"extract_unified_{stem}_precision"].value,
            "recall": by_name[f"extract_unified_{stem}_recall"].value,
            "f1": f1.value,
            "correct": meta.get(keys[0]),
            "n_pred": meta.get(keys[1]),
            "n_truth": meta.get(keys[2]),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="?", help="a JSON Lines file (default: standard input)")
    parser.add_argument("--absent", choices=("null", "absent"), default="null",
                        help="null: an omitted key reads as null (gtkit's rule); absent: ExtractBench's own reading")
    args = parser.parse_args()
    with (open(args.cases, encoding="utf-8") if args.cases else sys.stdin) as source:
        for line in source:
            if line.strip():
                sys.stdout.write(json.dumps(score_case(json.loads(line), absent=args.absent)) + "\n")


if __name__ == "__main__":
    main()
