"""Benchmark `gtkit consensus`: 5 systems from 3 families over one document with 86,242 cells.

The document is the simulated invoice (gtkit.testing.simulate): 10 header fields and
10,779 line items of 8 fields (identity key `line_id`), each system's rows shuffled,
with random and family-correlated errors, dropped and duplicated rows and a misread
key; the citing system cites every cell. The command runs in a child process, timed
from start to exit (reading, aligning, voting, writing the bundle, queue and report,
and re-scoring all five systems); peak RSS is the larger of the child's own maximum and
its RSS sampled every 50 ms. Target: < 10 s, < 1 GB.

    python scripts/bench_consensus.py [--rows 10779] [--phases] [--keep DIR]

It runs the command twice: as is, then with --no-rescore, so the share of the
re-score (gtkit.scoring over 5 systems) shows.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from gtkit.testing.simulate import ROW_FIELDS, TOP_FIELDS, simulate


def tree_rss_kb(root: int) -> int:
    """Sum of VmRSS over `root` and its descendants (from /proc)."""
    parent: dict[int, int] = {}
    rss: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            status = (d / "status").read_text()
        except OSError:
            continue
        pid = int(d.name)
        for line in status.splitlines():
            if line.startswith("PPid:"):
                parent[pid] = int(line.split()[1])
            elif line.startswith("VmRSS:"):
                rss[pid] = int(line.split()[1])
    total, todo = 0, [root]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo += [c for c, pp in parent.items() if pp == p]
    return total


def phases(ws: Path, root: Path) -> None:
    from gtkit.consensus import report, run
    from gtkit.format.bundle import read_bundles
    from gtkit.scoring.truth import Truth

    gc.disable()  # as run_consensus does
    t0 = time.perf_counter()
    c = run.compute(ws / "schema.json", ws / "docs", ws / "runs", ws / "systems.toml")
    t1 = time.perf_counter()
    run.write_consensus(c, root / "gt2", do_rescore=False)
    t2 = time.perf_counter()
    truths = {b.doc_id: Truth.from_gt(b.gt, b.schema) for b in read_bundles(root / "gt2", verify=False)}
    t3 = time.perf_counter()
    report.rescore(c, truths)
    t4 = time.perf_counter()
    print(f"phases: read+align+vote+classify {t1 - t0:.2f} s, build+validate+write {t2 - t1:.2f} s, "
          f"re-score of 5 systems (gtkit.scoring) {t4 - t3:.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_779)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--phases", action="store_true", help="also time the phases in-process")
    ap.add_argument("--keep", type=Path, default=None, help="keep the workspace and output here")
    args = ap.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-consensus-"))
    if args.keep and root.exists():
        shutil.rmtree(root)
    ws = root / "ws"
    t0 = time.perf_counter()
    simulate(ws, seed=args.seed, n_docs=1, n_rows=args.rows, render=False)
    gen = time.perf_counter() - t0
    cells = len(TOP_FIELDS) + len(ROW_FIELDS) * args.rows
    gtkit = [sys.executable, "-m", "gtkit"]
    cmd = [*gtkit, "consensus", "--schema", str(ws / "schema.json"), "--docs", str(ws / "docs"),
           "--runs", str(ws / "runs"), "--systems", str(ws / "systems.toml"), "--out", str(root / "gt")]
    wall, rss_mb, cpu = run(cmd)
    rep = json.loads((root / "gt" / "report.json").read_text())
    t = rep["totals"]
    print(f"input: 1 document, 5 systems / 3 families, {cells:,} cells ({args.rows:,} rows x {len(ROW_FIELDS)} "
          f"+ {len(TOP_FIELDS)}), generated in {gen:.1f} s")
    print(f"output: {t['cells']:,} cells, {t['agreed']:,} agreed, {t['pending']:,} pending, {t['queued']:,} queued, "
          f"{t['rows_aligned_by_fallback']} rows aligned by fallback")
    print(f"gtkit consensus: wall time {wall:.2f} s, cpu {cpu:.2f} s, peak RSS {rss_mb:.0f} MB "
          f"(target < 10 s, < 1024 MB): {'OK' if wall < 10 and rss_mb < 1024 else 'OVER'}")
    wall2, rss2, cpu2 = run([*cmd, "--force", "--no-rescore"])
    print(f"gtkit consensus --no-rescore: wall time {wall2:.2f} s, cpu {cpu2:.2f} s, peak RSS {rss2:.0f} MB "
          f"(so the re-score of 5 systems through gtkit.scoring takes about {wall - wall2:.1f} s)")
    if args.phases:
        phases(ws, root)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


def run(cmd: list[str]) -> tuple[float, float, float]:
    """Wall time, peak RSS (MB) and CPU time of one command."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak = [0]
    done = threading.Event()

    def sample() -> None:  # RSS of the command and any child processes, summed
        while not done.is_set():
            peak[0] = max(peak[0], tree_rss_kb(proc.pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    done.set()
    sampler.join()
    out, err = proc.stdout.read().decode(), proc.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        print(out, err, file=sys.stderr)
        raise SystemExit(f"gtkit consensus failed with status {os.waitstatus_to_exitcode(status)}")
    rss_mb = max(usage.ru_maxrss, peak[0]) / 1024
    return wall, rss_mb, usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
