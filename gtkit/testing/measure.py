"""Measuring a consensus output against the truth of a simulated ensemble (`simulate.simulate`).

`evaluate(truth, out)` measures what the issue asks: the share of promoted cells that are correct, the
share of wrong system values that end up queued or outvoted, and the share of ambiguity fields
classified schema ambiguity.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gtkit.format.bundle import read_bundles
from gtkit.schema import compile_schema
from gtkit.scoring.normalize import comparator_key
from gtkit.testing.simulate import ROW_FIELDS, SCHEMA, TOP_FIELDS, Truth


def evaluate(truth: Truth, out: Path) -> dict[str, Any]:
    """What the issue asks of a consensus output: promoted cells correct, wrong votes caught, ambiguity found."""
    promoted, correct, cell_state = _cell_states(truth, out)
    queue = [json.loads(x) for x in (Path(out) / "queue.jsonl").read_text().splitlines() if x.strip()]
    handled = 0
    for _, doc, lid, name in truth.wrong_votes:
        st = cell_state.get((doc, lid, name))
        handled += st in ("pending", "agreed-correct")
    extra_queued = 0
    for s, doc, lid in truth.dup_rows:
        extra_queued += any(q["kind"] == "extra_record" and q["doc"] == doc and any(
            v["system"] == s and v["present"] and (v["row"] or {}).get("line_id") == lid for v in q["votes"])
            for q in queue)
    report = json.loads((Path(out) / "report.json").read_text())
    fields = {f["field"]: f for f in report["fields"]}
    amb_ok = sum(1 for a in truth.ambiguous if fields.get(a, {}).get("cause") == "schema_ambiguity")
    n_wrong = len(truth.wrong_votes) + len(truth.dup_rows)
    total_truth_cells = sum(len(TOP_FIELDS) + len(ROW_FIELDS) * len(d["lines"]) for d in truth.docs.values())
    return {
        "documents": len(truth.docs),
        "truth_cells": total_truth_cells,
        "promoted_cells": promoted,
        "promoted_correct": correct,
        "promoted_correct_share": correct / promoted if promoted else None,
        "coverage": promoted / total_truth_cells,
        "wrong_votes": n_wrong,
        "wrong_votes_queued_or_outvoted": handled + extra_queued,
        "wrong_votes_queued_or_outvoted_share": (handled + extra_queued) / n_wrong if n_wrong else None,
        "ambiguity_fields": len(truth.ambiguous),
        "ambiguity_fields_classified": amb_ok,
        "ambiguity_share": amb_ok / len(truth.ambiguous),
        "ambiguity_fixes": {a: fields.get(a, {}).get("fix") for a in truth.ambiguous},
        "queued": report["totals"]["queued"],
        "to_draw": report["totals"]["to_draw"],
    }


def _cell_states(truth: Truth, out: Path) -> tuple[int, int, dict[tuple[str, str, str], str]]:
    """(promoted cells, promoted and correct, (doc, line_id, field) -> agreed-correct | agreed-wrong | pending)."""
    node = compile_schema(SCHEMA)
    comps = {f"/{n}": node.props[n].comparator for n in TOP_FIELDS}
    assert node.props["lines"].item is not None
    comps.update({n: node.props["lines"].item.props[n].comparator for n in ROW_FIELDS})
    promoted = correct = 0
    cell_state: dict[tuple[str, str, str], str] = {}
    for b in read_bundles(Path(out), verify=False):
        doc = truth.docs[b.doc_id]
        by_id = {r["line_id"]: r for r in doc["lines"]}
        rows = b.gt.expected.get("lines") or []
        for f in b.gt.fields:
            parts = f.path.split("/")
            if len(parts) == 2:
                name, lid, tv, comp = parts[1], "", doc.get(parts[1]), comps[f.path]
            else:
                i, name = int(parts[2]), parts[3]
                lid = str(rows[i].get("line_id"))
                tr = by_id.get(lid)
                tv, comp = (tr[name] if tr else "<no such row>"), comps[name]
            if f.trust == "pending":
                cell_state[(b.doc_id, lid, name)] = "pending"
                continue
            promoted += 1
            ok = comparator_key(f.readings[0].value, comp) == comparator_key(tv, comp)
            correct += ok
            cell_state[(b.doc_id, lid, name)] = "agreed-correct" if ok else "agreed-wrong"
    return promoted, correct, cell_state
