"""Differential run: score a large batch of random cases with gtkit and with ExtractBench's reference
scorer and print how often they disagree, and the first disagreements.

Cases come from `tests/diffcases.py` (a pure function of the seed); ExtractBench's scores come from
`scripts/extractbench_bridge.py` run by a Python >= 3.12 interpreter that has `llama-extract-bench`
installed (`make extractbench` builds `.venv-eb312`; or `--eb-python`, or GTKIT_EXTRACTBENCH_PYTHON).

By default the cases stay off the shapes where gtkit deliberately differs (docs/scoring.md, "Where
gtkit differs from ExtractBench"), so every disagreement is a bug on one side. `--include CLASS`
(repeatable, or `all`) draws those shapes as well, to measure each difference.

    python scripts/diff_extractbench.py [--n 2000] [--seed 0] [--show 10] [--include CLASS] [--dump FILE]
    python scripts/diff_extractbench.py --cases FILE   # re-score saved or dumped cases
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from diffcases import (  # noqa: E402 - importable once tests/ is on sys.path, above
    DEFAULT_EB_PYTHON,
    DELIBERATE,
    disagreements,
    gtkit_scores,
    make_case,
    run_bridge,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="number of cases (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="first seed; case k uses seed + k (default 0)")
    parser.add_argument("--show", type=int, default=10, help="disagreements to print in full (default 10)")
    parser.add_argument("--include", action="append", default=[], metavar="CLASS",
                        help=f"also draw a deliberate-difference shape class (or 'all'): {', '.join(DELIBERATE)}")
    parser.add_argument("--eb-python", default=os.environ.get("GTKIT_EXTRACTBENCH_PYTHON", str(DEFAULT_EB_PYTHON)),
                        help="the Python >= 3.12 interpreter with llama-extract-bench installed")
    parser.add_argument("--dump", type=Path, help="write the disagreeing cases to this JSON Lines file")
    parser.add_argument("--save", type=Path, help="write every generated case to this JSON Lines file")
    parser.add_argument("--absent", choices=("null", "absent"), default="null",
                        help="how ExtractBench reads an omitted key: null (gtkit's rule, default) or absent (its own)")
    parser.add_argument("--cases", type=Path, help="score the cases of this JSON Lines file instead of generating")
    args = parser.parse_args()
    include = list(DELIBERATE) if "all" in args.include else args.include
    if not Path(args.eb_python).exists():
        print(f"no ExtractBench interpreter at {args.eb_python} (run `make extractbench`)", file=sys.stderr)
        return 2

    t0 = time.perf_counter()
    if args.cases:
        cases = [json.loads(line) for line in args.cases.read_text(encoding="utf-8").splitlines() if line.strip()]
        args.n = len(cases)
    else:
        cases = [make_case(args.seed + k, include) for k in range(args.n)]
    if args.save:
        args.save.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    t1 = time.perf_counter()
    ours = [gtkit_scores(c) for c in cases]
    t2 = time.perf_counter()
    theirs = run_bridge(args.eb_python, cases, absent=args.absent, timeout=3600)
    t3 = time.perf_counter()

    bad = []
    for case, g, e in zip(cases, ours, theirs):
        diff = disagreements(g, e)
        if diff:
            bad.append((case, diff))
    kinds: dict[str, int] = {}
    for _, diff in bad:
        for d in diff:
            kind = d.split(":")[0].split(" ")[0]
            kinds[kind] = kinds.get(kind, 0) + 1
    print(f"{len(bad)} of {args.n} cases disagree ({100 * len(bad) / max(args.n, 1):.2f}%)"
          f"{' with ' + ', '.join(include) if include else ''}"
          f"{' (ExtractBench reading omitted keys as absent)' if args.absent == 'absent' else ''}; by metric: "
          + (", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) or "none"))
    print(f"generate {t1 - t0:.1f} s, gtkit {t2 - t1:.1f} s, ExtractBench {t3 - t2:.1f} s")
    for case, diff in bad[: args.show]:
        print(f"\nseed {case['id']}:")
        for d in diff:
            print(f"  {d}")
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as f:
            for case, _ in bad:
                f.write(json.dumps(case) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
