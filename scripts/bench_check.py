"""Benchmark `gtkit check` against the cost of reading the bundle once.

Three inputs, made once under --work (default out/bench-check) and reused:
- the 600-page synth bundle: unclaimed_property, 26,725 records (213,800 field entries);
- its fax re-capture (`gtkit degrade --recipe fax`);
- a dataset of 200 small synth bundles (unclaimed_property, 60 records each).

Each is measured in a fresh process, from its start (imports included: the cost of the command): the floor
(reading every page's words with PyMuPDF and decoding gt.json with the fast decoder, nothing else, bundle after
bundle) and `gtkit check` (the library call behind the CLI, `--workers 1`, and for the dataset `--workers 2`
too, the pool's start included). Printed: seconds, peak RSS, and the ratio to the floor measured in the same
run. Targets (issue 16): the 600-page bundle and its degraded copy under 5 s, under 1 GB and under 2x the floor
on the reference machine; the dataset faster with two workers than with one.

    .venv/bin/python scripts/bench_check.py [--work DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

FLOOR = """
import time
t = time.perf_counter()
import json, resource, sys
import pymupdf
from gtkit.format import iter_bundle_dirs
from gtkit.format.decode import decode_ground_truth
for _, folder in iter_bundle_dirs(sys.argv[1]):
    with pymupdf.open(folder / "document.pdf") as doc:
        for page in doc:
            page.get_text("words", sort=False)
    assert decode_ground_truth((folder / "gt.json").read_bytes()) is not None
print(json.dumps([time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss]))
"""

CHECK = """
import time
t = time.perf_counter()
import json, resource, sys
from gtkit.check import check_path
from gtkit.pipelines import CHECK_PRELOAD, CHECKS
from gtkit.workers import Pool
workers = int(sys.argv[2])
with Pool(workers, preload=CHECK_PRELOAD) as pool:
    n, problems = check_path(sys.argv[1], CHECKS, pool=pool)
    elapsed = time.perf_counter() - t
assert n >= 1 and not problems, problems[:3]
rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(json.dumps([elapsed, rss]))
"""


def run(code: str, *args: str) -> tuple[float, float]:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr)
    seconds, rss_kb = json.loads(out.stdout.strip().splitlines()[-1])
    return seconds, rss_kb / 1024


def gtkit(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "gtkit", *args], check=True, capture_output=True)


def make_inputs(work: Path) -> dict[str, Path]:
    inputs = {"600-page synth": work / "up", "600-page fax": work / "up-fax", "200-bundle dataset": work / "ds"}
    if not inputs["600-page synth"].exists():
        gtkit("synth", "--family", "unclaimed_property", "--records", "26725", "--seed", "1",
              "--out", str(inputs["600-page synth"]))
    if not inputs["600-page fax"].exists():
        gtkit("degrade", str(inputs["600-page synth"]), "--recipe", "fax", "--seed", "1",
              "--out", str(inputs["600-page fax"]))
    if not inputs["200-bundle dataset"].exists():
        gtkit("synth", "--family", "unclaimed_property", "--records", "60", "--docs", "200", "--seed", "2",
              "--out", str(inputs["200-bundle dataset"]))
    return inputs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("out/bench-check"))
    ap.add_argument("--repeat", type=int, default=1, help="runs of each measurement; the fastest is kept")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    inputs = make_inputs(args.work)

    def best(code: str, *a: str) -> tuple[float, float]:
        runs = [run(code, *a) for _ in range(args.repeat)]
        return min(r[0] for r in runs), max(r[1] for r in runs)

    print(f"{'input':<20} {'what':<22} {'seconds':>8} {'peak MB':>8} {'x floor':>8}")
    for name, path in inputs.items():
        floor_s, floor_mb = best(FLOOR, str(path))
        print(f"{name:<20} {'floor (words+decode)':<22} {floor_s:8.2f} {floor_mb:8.0f} {1.0:8.2f}")
        for workers in ((1, 2) if name.endswith("dataset") else (1,)):
            s, mb = best(CHECK, str(path), str(workers))
            print(f"{name:<20} {f'check --workers {workers}':<22} {s:8.2f} {mb:8.0f} {s / floor_s:8.2f}")


if __name__ == "__main__":
    main()
