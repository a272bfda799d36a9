"""Run consensus over the simulated ensemble and print the figures the issue asks for.

    python scripts/simulate_consensus.py [--seeds 1 2 3] [--docs 8] [--rows 60] [--promote unanimous|majority]
    python scripts/simulate_consensus.py --schema strict [--seeds 1 2 3] [--docs 12] [--rows 12] [--omit 0.03]
        [--family-omit 0.01] [--wrong-type 0.03] [--promote unanimous|majority]

For each seed: simulate (gtkit.testing.simulate: 5 systems from 3 families, random
and family-correlated errors, dropped/duplicated rows, shuffled rows, a misread
identity key per document, three ambiguous fields), run `run_consensus`, and measure
against the known truth:
- promoted cells correct: share of `agreed` cells whose value equals the truth;
- wrong values handled: share of wrong system values (and duplicated rows) that end up
  queued (pending cell / extra-record line) or outvoted (agreed on the true value);
- ambiguity fields: share of the designed-ambiguous fields the report classifies as
  schema ambiguity (and the fix kind it suggests);
- coverage (truth cells promoted) and the queue size.

`--promote` chooses the promotion rule (`gtkit consensus --promote`, default unanimous).

With `--schema strict` the ensemble is gtkit.testing.simulate_strict's: balance sheets on a schema with
required, non-nullable fields, `$defs`, `anyOf` and sections holding tables of lines, the systems also
omitting keys and giving wrong types (`--rows` lines per section). It prints the precision of promoted
cells, coverage, what was left out of `expected` and queued, and how many bundles `gtkit check` refuses
(measure_strict.evaluate_strict).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from gtkit.consensus.run import run_consensus
from gtkit.testing.measure import evaluate
from gtkit.testing.simulate import Rates, simulate


def run_strict(args: argparse.Namespace) -> None:
    """The strict-schema simulation: per seed, then the sums over all seeds."""
    from gtkit.testing.measure_strict import evaluate_strict
    from gtkit.testing.simulate_strict import StrictRates, simulate_strict

    rates = StrictRates(random=args.random, family=args.family, omit=args.omit, family_omit=args.family_omit,
                        wrong_type=args.wrong_type)
    keys = ("documents", "bundles_written", "bundles_failing_check", "truth_cells", "promoted_cells",
            "promoted_correct", "queued", "queued_withheld_records", "queued_blank_required", "documents_left_out",
            "cells_in_withheld_records", "records_not_objects", "cells_without_valid_vote", "blank_keys_left_out",
            "vote_failures")
    totals = dict.fromkeys(keys, 0)
    for seed in args.seeds:
        root = Path(tempfile.mkdtemp(prefix="sim-strict-"))
        try:
            ws = root / "ws"
            truth = simulate_strict(ws, seed=seed, n_docs=args.docs, n_lines=args.rows or 12, rates=rates)
            run_consensus(ws / "schema.json", ws / "docs", ws / "runs", ws / "systems.toml", root / "gt",
                          do_rescore=False, promote=args.promote)
            m = evaluate_strict(truth, root / "gt")
        finally:
            shutil.rmtree(root, ignore_errors=True)
        for k in keys:
            totals[k] += m[k]
        if args.json:
            print(json.dumps({"seed": seed, **m}))
            continue
        print(f"seed {seed}: {m['truth_cells']} truth cells in {m['documents']} docs; bundles written "
              f"{m['bundles_written']}, failing gtkit check {m['bundles_failing_check']} {m['check_examples']}; "
              f"promoted {m['promoted_cells']} ({100 * m['coverage']:.1f}% coverage), precision "
              f"{m['promoted_correct']}/{m['promoted_cells']} = {100 * (m['precision'] or 0):.2f}%; "
              f"queued {m['queued']} (withheld records {m['queued_withheld_records']}, blank required keys "
              f"{m['queued_blank_required']}); left out: documents "
              f"{m['documents_left_out']}, cells in withheld records {m['cells_in_withheld_records']}, records not "
              f"objects {m['records_not_objects']}, cells without a valid vote {m['cells_without_valid_vote']}, "
              f"blank keys {m['blank_keys_left_out']}; vote failures {m['vote_failures']}")
    t = totals
    if not args.json:
        print(f"all seeds: precision {t['promoted_correct']}/{t['promoted_cells']} = "
              f"{100 * t['promoted_correct'] / max(t['promoted_cells'], 1):.2f}%; coverage "
              f"{100 * t['promoted_cells'] / t['truth_cells']:.1f}%; bundles failing gtkit check "
              f"{t['bundles_failing_check']}/{t['bundles_written']} (of {t['documents']} documents); "
              f"queued {t['queued']} "
              f"(withheld records {t['queued_withheld_records']}, blank required keys {t['queued_blank_required']}); "
              f"left out: documents {t['documents_left_out']}, cells in withheld records "
              f"{t['cells_in_withheld_records']}, records not objects {t['records_not_objects']}, cells without "
              f"a valid vote {t['cells_without_valid_vote']}, blank keys {t['blank_keys_left_out']} "
              f"(rule {args.promote})")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--schema", choices=["invoice", "strict"], default="invoice")
    ap.add_argument("--docs", type=int, default=8)
    ap.add_argument("--rows", type=int, default=None,
                    help="rows per document (invoice: 60), lines per section (strict: 12)")
    ap.add_argument("--omit", type=float, default=0.03, help="strict: per system per cell, a key left out")
    ap.add_argument("--family-omit", type=float, default=0.01, help="strict: per family per cell, a key left out")
    ap.add_argument("--wrong-type", type=float, default=0.03, help="strict: per system per cell, a wrong type")
    ap.add_argument("--random", type=float, default=Rates.random)
    ap.add_argument("--family", type=float, default=Rates.family)
    ap.add_argument("--json", action="store_true", help="print one JSON object per seed")
    ap.add_argument("--promote", choices=["unanimous", "majority"], default="unanimous",
                    help="the promotion rule (gtkit consensus --promote)")
    args = ap.parse_args()
    if args.schema == "strict":
        run_strict(args)
        return
    args.rows = args.rows or 60
    rates = Rates(random=args.random, family=args.family)
    totals = {"promoted": 0, "correct": 0, "wrong": 0, "handled": 0, "amb": 0, "amb_ok": 0, "cells": 0, "queued": 0}
    for seed in args.seeds:
        root = Path(tempfile.mkdtemp(prefix="sim-consensus-"))
        try:
            truth = simulate(root / "ws", seed=seed, n_docs=args.docs, n_rows=args.rows, rates=rates)
            ws = root / "ws"
            run_consensus(ws / "schema.json", ws / "docs", ws / "runs", ws / "systems.toml", root / "gt",
                          promote=args.promote)
            m = evaluate(truth, root / "gt")
        finally:
            shutil.rmtree(root, ignore_errors=True)
        if args.json:
            print(json.dumps({"seed": seed, **m}))
        else:
            print(f"seed {seed}: {m['truth_cells']} truth cells in {m['documents']} docs; "
                  f"promoted {m['promoted_cells']} ({100 * m['coverage']:.1f}% coverage), "
                  f"correct {100 * m['promoted_correct_share']:.2f}%; "
                  f"wrong values {m['wrong_votes']}, queued or outvoted "
                  f"{100 * m['wrong_votes_queued_or_outvoted_share']:.2f}%; "
                  f"ambiguity fields {m['ambiguity_fields_classified']}/{m['ambiguity_fields']} "
                  f"{m['ambiguity_fixes']}; queued {m['queued']}, boxes to draw {m['to_draw']}")
        totals["promoted"] += m["promoted_cells"]
        totals["correct"] += m["promoted_correct"]
        totals["wrong"] += m["wrong_votes"]
        totals["handled"] += m["wrong_votes_queued_or_outvoted"]
        totals["amb"] += m["ambiguity_fields"]
        totals["amb_ok"] += m["ambiguity_fields_classified"]
        totals["cells"] += m["truth_cells"]
        totals["queued"] += m["queued"]
    if not args.json:
        t = totals
        print(f"all seeds: promoted cells correct {t['correct']}/{t['promoted']} "
              f"= {100 * t['correct'] / t['promoted']:.2f}%; "
              f"wrong values queued or outvoted {t['handled']}/{t['wrong']} = {100 * t['handled'] / t['wrong']:.2f}%; "
              f"ambiguity fields classified schema ambiguity {t['amb_ok']}/{t['amb']} "
              f"= {100 * t['amb_ok'] / t['amb']:.1f}%; "
              f"coverage {100 * t['promoted'] / t['cells']:.1f}%; queued {t['queued']} (rule {args.promote})")


if __name__ == "__main__":
    main()
