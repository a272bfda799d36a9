"""Measuring a consensus output against the truth of the strict simulation (`simulate_strict`).

`evaluate_strict(truth, out)` gives:
- precision of promoted cells: of the field entries consensus promoted (trust `agreed`, or `constructed`),
  the share whose value equals the truth's under the field's comparator. A cell is matched to the truth by
  the identity keys of its rows (section `name`, line `label`, note `number`), never by list position; a
  row the truth lacks makes its cells wrong. A key absent from the truth is a null cell, as in scoring;
- coverage: promoted cells over the truth's cells;
- what was left out of `expected` and queued (from report.json; zero where an older report lacks a count);
- the bundles `gtkit check` refuses (by document, with one example problem each).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from gtkit.check import check_path
from gtkit.consensus.checks import check_consensus_bundle
from gtkit.format.bundle import read_bundles
from gtkit.scoring.normalize import comparator_key
from gtkit.testing.simulate_strict import COMPARATORS, StrictTruth, truth_cells

PROMOTED = ("agreed", "constructed")


def evaluate_strict(truth: StrictTruth, out: Path) -> dict[str, Any]:
    """Precision and coverage of the promoted cells, what was left out and queued, and the check's verdict."""
    out = Path(out)
    promoted = correct = 0
    trust: Counter = Counter()
    for b in read_bundles(out, verify=False):
        cells = {_norm_key(k): v for k, _, v in truth_cells(truth.docs[b.doc_id])}
        for f in b.gt.fields:
            trust[f.trust] += 1
            if f.trust not in PROMOTED:
                continue
            promoted += 1
            name = f.path.rsplit("/", 1)[-1]
            comp = COMPARATORS.get(name, "string")
            key = _truth_key(b.gt.expected, f.path)
            tv = cells.get(key, "<no such cell>") if key is not None else "<no such row>"
            correct += comparator_key(f.readings[0].value, comp) == comparator_key(tv, comp)
    report = json.loads((out / "report.json").read_text())
    queue = [json.loads(x) for x in (out / "queue.jsonl").read_text().splitlines() if x.strip()]
    left = report.get("left_out") or {}
    n_checked, problems = check_path(out, {"consensus": check_consensus_bundle})
    failing: dict[str, str] = {}
    for p in problems:      # by bundle folder (a problem of the dataset's index counts under its file name)
        where = Path(p.file).resolve()
        doc = where.relative_to(out.resolve()).parts[0] if where.is_relative_to(out.resolve()) else str(where)
        failing.setdefault(doc, str(p.message))
    n_truth = sum(len(truth_cells(d)) for d in truth.docs.values())
    return {
        "documents": len(truth.docs),
        "bundles_written": n_checked,
        "bundles_failing_check": len(failing),
        "check_examples": dict(sorted(failing.items())[:3]),
        "truth_cells": n_truth,
        "promoted_cells": promoted,
        "promoted_correct": correct,
        "precision": correct / promoted if promoted else None,
        "coverage": promoted / n_truth,
        "trust": dict(sorted(trust.items())),
        "queued": report["totals"]["queued"],
        "queued_withheld_records": report["totals"].get("withheld_records", 0),
        "queued_blank_required": sum(1 for q in queue if q.get("blank_required")),
        "queued_extra_records": report["totals"].get("extra_records", 0),
        "documents_left_out": len(left.get("documents", [])),
        "cells_in_withheld_records": left.get("cells_in_withheld_records", 0),
        "records_not_objects": sum(left.get("records_not_objects", {}).values()),
        "cells_without_valid_vote": sum(left.get("cells_without_valid_vote", {}).values()),
        "blank_keys_left_out": sum(left.get("blank_keys_left_out", {}).values()),
        "vote_failures": sum(v["count"] for v in report.get("vote_failures", {}).values()),
    }


def _norm_key(key: tuple) -> tuple:
    """A truth cell's key with its identity values normalized as consensus aligns them."""
    if key[0] == "s":
        return ("s", comparator_key(key[1]), key[2])
    if key[0] == "l":
        return ("l", comparator_key(key[1]), comparator_key(key[2]), key[3])
    if key[0] == "n":
        return ("n", comparator_key(key[1], "number"), key[2])
    return key


def _truth_key(expected: dict[str, Any], pointer: str) -> tuple | None:
    """The truth key of the cell at `pointer` in `expected`: its rows named by their identity values."""
    parts = pointer.split("/")[1:]
    try:
        if parts[0] == "sections":
            section = expected["sections"][int(parts[1])]
            name = comparator_key(section["name"])
            if parts[2] == "lines":
                line = section["lines"][int(parts[3])]
                return ("l", name, comparator_key(line["label"]), parts[4])
            return ("s", name, parts[2])
        if parts[0] == "notes":
            return ("n", comparator_key(expected["notes"][int(parts[1])]["number"], "number"), parts[2])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return (parts[0],)
