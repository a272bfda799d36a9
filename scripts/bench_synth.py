#!/usr/bin/env python
"""Benchmark of `gtkit synth` against a floor measured in the same run.

For each case (unclaimed_property at 26,725 rows, creditor_matrix at 8,624 records, and the
template families schedule_ef at 300 claims and deviation_log at 120 deviations, their default
sizes, county_audit at 400 line items, election_pivot at its default 150 precincts (eight contests
of tens of pages), and the long tables holdings_13f at 3,200 rows (two-level header) and
adverse_events at 3,600 events (rotated pages, split rows), their default sizes) it runs, each in
its own subprocess:

- floor: generate the same records, lay them out and render the PDF to disk, nothing
  else (no read-back, no checks, no gt.json): `gtkit.synth.pipeline.render_only`; for a
  template family, the same template rendered by weasyprint alone (no anchors, read-back
  or checks);
- full:  `gtkit synth --family F --records N --seed S --out DIR --force`, the real CLI.

Wall time is measured around each subprocess; peak RSS is that child's maximum resident
set size from `os.wait4` (Linux reports the largest of the process and its waited-for
children). The synth run's pool workers (a long document's schema check, and the words
of about half its pages; see `gtkit.workers`) are started by a fork server, not waited
for by the synth process, so their memory is not in this figure; each is smaller than
the synth process and exits once its task is done.
The benchmark process itself stays small (about 30 MB), because Linux carries the
parent's peak into a child's ru_maxrss across fork and exec.
Each measurement is repeated (--repeat, default 3) and the median is printed, with the
ratios full/floor and the targets: full <= 3x floor, peak RSS < 1 GB.

    python scripts/bench_synth.py                 # the two full-size cases
    python scripts/bench_synth.py --quick         # 2,000 records each, for a smoke run
    python scripts/bench_synth.py --case unclaimed_property:26725 --repeat 5
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_CASES = ["unclaimed_property:26725", "creditor_matrix:8624", "schedule_ef:300", "deviation_log:120",
                 "county_audit:400", "election_pivot:150", "holdings_13f:3200", "adverse_events:3600"]
RSS_LIMIT_MB = 1024.0
RATIO_LIMIT = 3.0

FLOOR_CODE = """
import sys
from pathlib import Path
from gtkit.synth.pipeline import render_only
pdf = render_only(sys.argv[1], records=int(sys.argv[2]), seed=int(sys.argv[3]))
Path(sys.argv[4]).write_bytes(pdf)
"""


def run_measured(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one subprocess, which must succeed."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    out = proc.stdout.read().decode() if proc.stdout else ""
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{out}{err}")
    return wall, usage.ru_maxrss / 1024.0  # ru_maxrss is in KiB on Linux


def gt_summary(path: Path) -> tuple[int, int]:
    """Pages and field count of a synth gt.json, streamed line by line.

    The benchmark process must stay small: Linux carries a process's peak RSS across
    fork and exec into its children's ru_maxrss, so parsing a 76 MB gt.json here would
    inflate every later measurement.
    """
    pages = fields = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith(' "document":'):
                pages = int(re.search(r'"pages": (\d+)', line).group(1))
            elif line.startswith('  {"path":'):
                fields += 1
    return pages, fields


def bench_case(family: str, records: int, seed: int, repeat: int, tmp: Path) -> dict[str, float]:
    floor_pdf = tmp / f"{family}-floor.pdf"
    out = tmp / f"{family}-bundle"
    floors, fulls = [], []
    for _ in range(repeat):  # interleaved, so slow moments of a shared machine hit both
        floors.append(run_measured([sys.executable, "-c", FLOOR_CODE, family, str(records), str(seed), str(floor_pdf)]))
        fulls.append(run_measured([sys.executable, "-m", "gtkit", "synth", "--family", family,
                                   "--records", str(records), "--seed", str(seed), "--out", str(out), "--force"]))
    same_pdf = floor_pdf.read_bytes() == (out / "document.pdf").read_bytes()
    pages, fields = gt_summary(out / "gt.json")
    return {
        "pages": pages,
        "fields": fields,
        "floor_s": statistics.median(w for w, _ in floors),
        "floor_mb": statistics.median(m for _, m in floors),
        "full_s": statistics.median(w for w, _ in fulls),
        "full_mb": statistics.median(m for _, m in fulls),
        "full_max_mb": max(m for _, m in fulls),
        "same_pdf": same_pdf,
        "gt_mb": (out / "gt.json").stat().st_size / 1e6,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", action="append", help="family:records (repeatable)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="2,000 records per family")
    args = ap.parse_args()
    cases = args.case or (["unclaimed_property:2000", "creditor_matrix:2000", "schedule_ef:60", "deviation_log:30",
                           "county_audit:80", "election_pivot:30", "holdings_13f:2000", "adverse_events:2000"]
                          if args.quick else DEFAULT_CASES)
    ok = True
    with tempfile.TemporaryDirectory(prefix="bench_synth.") as tmp:
        print(f"{'case':<28} {'pages':>5} {'fields':>7} {'floor s':>8} {'full s':>7} {'ratio':>6} "
              f"{'floor MB':>9} {'full MB':>8} {'MB ratio':>8}  targets")
        for case in cases:
            family, _, n = case.partition(":")
            r = bench_case(family, int(n), args.seed, args.repeat, Path(tmp))
            ratio = r["full_s"] / r["floor_s"]
            mb_ratio = r["full_mb"] / r["floor_mb"]
            passed = ratio <= RATIO_LIMIT and r["full_max_mb"] < RSS_LIMIT_MB and r["same_pdf"]
            ok &= passed
            print(f"{case:<28} {r['pages']:>5} {r['fields']:>7} {r['floor_s']:>8.2f} {r['full_s']:>7.2f} "
                  f"{ratio:>5.2f}x "
                  f"{r['floor_mb']:>9.0f} {r['full_mb']:>8.0f} {mb_ratio:>7.2f}x  "
                  f"{'ok' if passed else 'MISSED'} (time <= {RATIO_LIMIT:g}x floor, peak RSS {r['full_max_mb']:.0f} MB "
                  f"< {RSS_LIMIT_MB:.0f} MB, same PDF as the floor: {r['same_pdf']}, gt.json {r['gt_mb']:.0f} MB)")
    print(f"median of {args.repeat} run(s) each, floor and full interleaved; machine: {os.cpu_count()} cores")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
