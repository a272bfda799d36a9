"""Load a `gtkit export --format extractbench` folder with ExtractBench's own code and score it.

Runs in a Python >= 3.12 venv with `llama-extract-bench` installed (`make extractbench` builds
`.venv-eb312`); it imports nothing from gtkit. For the export folder EXPORT it

1. loads every test case with ExtractBench's loader (`load_test_cases(EXPORT, product_type="EXTRACT")`);
2. lints every sidecar with ExtractBench's ground-truth lint (`lint_extract_sidecar`);
3. rebuilds every sidecar from the published rows (`hub/<split>.jsonl`) with ExtractBench's own download
   reconstruction and compares it with the exported one;
4. scores each test case with `compute_unified_evidence_metrics`, called as ExtractBench's extract evaluator
   calls it, against the predictions in PRED (gtkit's form: `<doc_id>.json` and `<doc_id>.citations.json`,
   converted to ExtractBench's dotted paths and COCO boxes), or against its own expected output citing
   each field's first evidence box.

It prints one JSON object: {"cases": [...test ids], "lint": [...findings], "rebuilt_differs": [...],
"scores": {test_id: {"value": {...}, "page": {...} | null, "word": {...} | null}}}.

    .venv-eb312/bin/python scripts/extractbench_harness.py EXPORT [--pred PRED]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from extract_bench.data.download import SPLITS, _write_sidecar
from extract_bench.evaluation.metrics.extract.unified_evidence_metric import compute_unified_evidence_metrics
from extract_bench.test_cases.extract_gt_lint import lint_extract_sidecar
from extract_bench.test_cases.loader import load_test_cases


def _tokens(pointer: str) -> list[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")] if pointer else []


def dotted_path(pointer: str, doc: Any) -> str:
    out, cur = "", doc
    for tok in _tokens(pointer):
        if isinstance(cur, list) or (not isinstance(cur, dict) and tok.isdigit()):
            out += f"[{int(tok)}]"
            cur = cur[int(tok)] if isinstance(cur, list) and int(tok) < len(cur) else None
        else:
            out += f".{tok}" if out else tok
            cur = cur.get(tok) if isinstance(cur, dict) else None
    return out


def citations(cites: dict[str, Any], prediction: Any) -> list[dict[str, Any]]:
    out = []
    for pointer, places in cites.items():
        for c in places:
            box = c.get("box")
            out.append({"field_path": dotted_path(pointer, prediction), "page": c["page"],
                        "bbox": [box[0], box[1], box[2] - box[0], box[3] - box[1]] if box is not None else None})
    return out


def self_citations(case: Any) -> list[dict[str, Any]]:
    """The truth citing itself: each rule's first evidence place with a box."""
    out = []
    for rule in case.get_extract_field_rules():
        place = next((e for e in rule.evidence or () if e.page is not None and e.bbox is not None), None)
        if place is not None:
            out.append({"field_path": rule.field_path, "page": place.page, "bbox": list(place.bbox)})
    return out


def scores(metrics: list[Any]) -> dict[str, Any]:
    by_name = {m.metric_name: m for m in metrics}
    out: dict[str, Any] = {}
    for name, stem in (("value", "value"), ("page", "page"), ("word", "grounded")):
        f1 = by_name.get(f"extract_unified_{stem}_f1")
        out[name] = None if f1 is None else {
            "precision": by_name[f"extract_unified_{stem}_precision"].value,
            "recall": by_name[f"extract_unified_{stem}_recall"].value, "f1": f1.value}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("export")
    parser.add_argument("--pred", help="a folder of gtkit-style predictions (default: each case's expected output)")
    args = parser.parse_args()
    root = Path(args.export)
    cases = load_test_cases(root, product_type="EXTRACT")
    lint = []
    for sidecar in sorted(root.rglob("*.test.json")):
        if "hub" in sidecar.relative_to(root).parts:
            continue
        for finding in lint_extract_sidecar(json.loads(sidecar.read_text(encoding="utf-8"))):
            lint.append(f"{sidecar.relative_to(root)}: {finding.render()}")
    differs = []
    with tempfile.TemporaryDirectory() as tmp:
        for split in SPLITS:
            for line in (root / "hub" / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
                rebuilt = _write_sidecar(json.loads(line), Path(tmp) / split, root / "hub")
                ours = root / split / rebuilt.name
                if json.loads(rebuilt.read_text(encoding="utf-8")) != json.loads(ours.read_text(encoding="utf-8")):
                    differs.append(f"{split}/{rebuilt.name}")
                rebuilt_pdf, ours_pdf = (p.with_suffix("").with_suffix(".pdf") for p in (rebuilt, ours))
                if rebuilt_pdf.read_bytes() != ours_pdf.read_bytes():
                    differs.append(f"{split}/{rebuilt.name} (pdf)")
    out: dict[str, Any] = {"cases": [c.test_id for c in cases], "lint": lint, "rebuilt_differs": differs, "scores": {}}
    for case in cases:
        stem = Path(case.file_path).stem
        prediction, field_citations = case.expected_output, self_citations(case)
        if args.pred:
            pred_file = Path(args.pred) / f"{stem}.json"
            prediction = json.loads(pred_file.read_text(encoding="utf-8"))
            cite_file = Path(args.pred) / f"{stem}.citations.json"
            cites = json.loads(cite_file.read_text(encoding="utf-8")) if cite_file.exists() else {}
            field_citations = citations(cites, prediction)
        metrics = compute_unified_evidence_metrics(
            expected_output=case.expected_output, extracted_data=prediction,
            field_rules=case.get_extract_field_rules(), field_citations=field_citations,
            data_schema=case.data_schema)
        out["scores"][case.test_id] = scores(metrics)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
