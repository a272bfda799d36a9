"""Run consensus over the simulated ensemble and print the figures the issue asks for.

    python scripts/simulate_consensus.py [--seeds 1 2 3] [--docs 8] [--rows 60]

For each seed: simulate (gtkit.consensus.simulate: 5 systems from 3 families, random
and family-correlated errors, dropped/duplicated rows, shuffled rows, a misread
identity key per document, three ambiguous fields), run `run_consensus`, and measure
against the known truth:
- promoted cells correct: share of `agreed` cells whose value equals the truth;
- wrong values handled: share of wrong system values (and duplicated rows) that end up
  queued (pending cell / extra-record line) or outvoted (agreed on the true value);
- ambiguity fields: share of the designed-ambiguous fields the report classifies as
  schema ambiguity (and the fix kind it suggests).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from gtkit.consensus.run import run_consensus
from gtkit.consensus.measure import evaluate
from gtkit.consensus.simulate import Rates, simulate


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--docs", type=int, default=8)
    ap.add_argument("--rows", type=int, default=60)
    ap.add_argument("--random", type=float, default=Rates.random)
    ap.add_argument("--family", type=float, default=Rates.family)
    ap.add_argument("--json", action="store_true", help="print one JSON object per seed")
    args = ap.parse_args()
    rates = Rates(random=args.random, family=args.family)
    totals = {"promoted": 0, "correct": 0, "wrong": 0, "handled": 0, "amb": 0, "amb_ok": 0, "cells": 0}
    for seed in args.seeds:
        root = Path(tempfile.mkdtemp(prefix="sim-consensus-"))
        try:
            truth = simulate(root / "ws", seed=seed, n_docs=args.docs, n_rows=args.rows, rates=rates)
            ws = root / "ws"
            run_consensus(ws / "schema.json", ws / "docs", ws / "runs", ws / "systems.toml", root / "gt")
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
    if not args.json:
        t = totals
        print(f"all seeds: promoted cells correct {t['correct']}/{t['promoted']} = {100 * t['correct'] / t['promoted']:.2f}%; "
              f"wrong values queued or outvoted {t['handled']}/{t['wrong']} = {100 * t['handled'] / t['wrong']:.2f}%; "
              f"ambiguity fields classified schema ambiguity {t['amb_ok']}/{t['amb']} = {100 * t['amb_ok'] / t['amb']:.1f}%; "
              f"coverage {100 * t['promoted'] / t['cells']:.1f}%")


if __name__ == "__main__":
    main()
