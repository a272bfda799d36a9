"""The strict-schema simulation (required, non-nullable fields, `$defs`, `anyOf`, nested arrays; systems that
omit keys and give wrong types): its truth is valid for its schema, every bundle consensus writes passes
`gtkit check`, and the cells consensus promotes are right."""

from __future__ import annotations

import json
from pathlib import Path

from gtkit.consensus.run import run_consensus
from gtkit.schema import validation_errors
from gtkit.testing.measure_strict import evaluate_strict
from gtkit.testing.simulate_strict import SCHEMA, StrictRates, simulate_strict, wrong_type


def test_truth_is_valid_and_runs_hold_the_errors(tmp_path: Path) -> None:
    truth = simulate_strict(tmp_path / "ws", seed=5, n_docs=6, n_lines=4,
                            rates=StrictRates(omit=0.2, wrong_type=0.2))
    for doc in truth.docs.values():
        assert list(validation_errors(SCHEMA, doc)) == []
    # the runs omit required keys and give values the schema refuses: they are not all valid
    runs = [p.read_text() for p in (tmp_path / "ws" / "runs").glob("*/*.json")]
    assert len(runs) == 6 * 5
    invalid = sum(1 for r in runs if list(validation_errors(SCHEMA, json.loads(r))))
    assert invalid > len(runs) // 2
    assert wrong_type(1234.5, "value") == "1,234.50" and wrong_type("USD", "currency") == "usd."
    assert wrong_type("2024-12-31", "fiscal_year_end") == "31/12/2024"


def test_strict_simulation_writes_checked_bundles_with_precise_promoted_cells(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    truth = simulate_strict(ws, seed=1, n_docs=4, n_lines=4, rates=StrictRates(omit=0.1, wrong_type=0.1))
    run_consensus(ws / "schema.json", ws / "docs", ws / "runs", ws / "systems.toml", tmp_path / "gt",
                  do_rescore=False)
    m = evaluate_strict(truth, tmp_path / "gt")
    assert m["bundles_failing_check"] == 0, m["check_examples"]
    assert m["bundles_written"] == m["documents"] - m["documents_left_out"] > 0
    assert m["promoted_cells"] > 0.5 * m["truth_cells"]
    assert m["precision"] >= 0.99
    assert m["vote_failures"] > 0 and m["queued"] > 0


def test_the_measure_counts_a_wrong_truth_and_a_broken_bundle(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    truth = simulate_strict(ws, seed=2, n_docs=2, n_lines=3)
    run_consensus(ws / "schema.json", ws / "docs", ws / "runs", ws / "systems.toml", tmp_path / "gt",
                  do_rescore=False)
    before = evaluate_strict(truth, tmp_path / "gt")
    for doc in truth.docs.values():     # every line's value moved: the promoted values no longer match
        for section in doc["sections"]:
            for line in section["lines"]:
                line["value"] += 1
    n_lines = sum(len(s["lines"]) for d in truth.docs.values() for s in d["sections"])
    after = evaluate_strict(truth, tmp_path / "gt")
    assert before["promoted_correct"] - after["promoted_correct"] >= n_lines // 2
    (tmp_path / "gt" / sorted(truth.docs)[0] / "document.pdf").write_bytes(b"%PDF-1.4 broken")
    assert evaluate_strict(truth, tmp_path / "gt")["bundles_failing_check"] == 1
