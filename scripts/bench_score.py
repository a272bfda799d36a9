"""Benchmark `gtkit score` on a 26,725-row array against a dense Hungarian baseline, in the same run.

The truth is one bundle whose `expected` holds 26,725 records of 8 sub-fields; the
prediction drops 2% of the rows, inserts 1% new ones, perturbs 3% of the cells and
shuffles the rows. Printed: wall time and peak RSS of the `gtkit score` process, the
same for a dense `linear_sum_assignment` over the full mismatch matrix (skipped with
a message where it would not fit in memory), their ratios, and whether both reach the
same number of correct cells (exactness).

    python scripts/bench_score.py [--rows 26725] [--seed 0] [--no-baseline]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pymupdf

from gtkit import __version__
from gtkit.format import FORMAT_VERSION, DocumentInfo, FieldEntry, GroundTruth, Provenance, Reading, SchemaInfo, Tags, write_bundle
from gtkit.fileio import canonical_sha256, sha256_bytes

FIELDS = ["owner", "address", "city", "state", "property_type", "amount", "holder", "year"]
SCHEMA = {
    "type": "object",
    "properties": {"properties": {"type": "array", "items": {"type": "object", "properties": {
        "owner": {"type": "string"}, "address": {"type": ["string", "null"]}, "city": {"type": ["string", "null"]},
        "state": {"type": ["string", "null"]}, "property_type": {"type": "string"}, "amount": {"type": "number"},
        "holder": {"type": "string"}, "year": {"type": "integer"}}}}},
}
FIRST = ["JAMES", "MARY", "ROBERT", "PATRICIA", "JOHN", "JENNIFER", "MICHAEL", "LINDA", "DAVID", "ELIZABETH", "MARIA"]
LAST = ["SMITH", "JOHNSON", "WILLIAMS", "BROWN", "JONES", "GARCIA", "MILLER", "DAVIS", "RODRIGUEZ", "MARTINEZ", "LEE"]
STREETS = ["MAIN ST", "OAK AVE", "PINE RD", "MAPLE DR", "CEDAR LN", "ELM ST", "PARK BLVD", "LAKE VIEW CT"]
CITIES = ["AUSTIN", "DALLAS", "HOUSTON", "EL PASO", "WACO", "TYLER", "PLANO", "IRVING", "FRISCO", "LUBBOCK"]
TYPES = ["CHECKING", "SAVINGS", "WAGES", "VENDOR CHECK", "REFUND", "DIVIDEND", "INSURANCE"]
HOLDERS = ["FIRST NATIONAL BANK", "LONE STAR UTILITIES", "ACME INSURANCE CO", "STATE PAYROLL", "GULF ENERGY LLC"]


def make_rows(rng: np.random.Generator, n: int) -> list[dict]:
    def pick(pool, k):
        return [pool[i] for i in rng.integers(0, len(pool), k)]

    owners = [f"{a} {b} {chr(65 + int(c))}" for a, b, c in zip(pick(LAST, n), pick(FIRST, n), rng.integers(0, 26, n))]
    nums = rng.integers(1, 9999, n)
    return [
        {"owner": o, "address": f"{num} {st}" if rng.random() > 0.05 else None, "city": c, "state": "TX",
         "property_type": t, "amount": round(float(a), 2), "holder": h, "year": int(y)}
        for o, num, st, c, t, a, h, y in zip(owners, nums, pick(STREETS, n), pick(CITIES, n), pick(TYPES, n),
                                             rng.gamma(2.0, 80.0, n), pick(HOLDERS, n), rng.integers(2000, 2025, n))
    ]


def make_prediction(rng: np.random.Generator, rows: list[dict]) -> list[dict]:
    n = len(rows)
    keep = rng.random(n) >= 0.02
    pred = [dict(r) for r, k in zip(rows, keep) if k]
    pred += make_rows(rng, int(0.01 * n))
    for r in pred:
        for f in FIELDS:
            if rng.random() < 0.03:
                r[f] = (r[f] + 1) if isinstance(r[f], (int, float)) else f"{r[f] or ''}X"
    order = rng.permutation(len(pred))
    return [pred[i] for i in order]


def write_case(root: Path, rows: list[dict], pred: list[dict]) -> None:
    doc = pymupdf.open()
    doc.new_page()
    pdf = doc.tobytes(no_new_id=True)
    fields = [FieldEntry(path=f"/properties/{i}/{f}", readings=[Reading(value=r[f])], trust="constructed")
              for i, r in enumerate(rows) for f in FIELDS]
    gt = GroundTruth(
        format=FORMAT_VERSION,
        doc_id="bench", document=DocumentInfo(sha256=sha256_bytes(pdf), pages=1, page_sizes=[(612, 792)]),
        schema=SchemaInfo(sha256=canonical_sha256(SCHEMA)), provenance=Provenance(pipeline="manual", gtkit=__version__),
        tags=Tags(task=["T1.a"], structure=["S4"]), expected={"properties": rows}, fields=fields)
    write_bundle(root / "gt", pdf=pdf, schema=SCHEMA, gt=gt)
    (root / "pred").mkdir()
    (root / "pred" / "bench.json").write_text(json.dumps({"properties": pred}))


BASELINE = r"""
import json, sys
import numpy as np
from scipy.optimize import linear_sum_assignment
from gtkit.normalize import value_key
root = sys.argv[1]
truth = json.load(open(f"{root}/gt/gt.json"))["expected"]["properties"]
pred = json.load(open(f"{root}/pred/bench.json"))["properties"]
fields = list(truth[0])
mismatch = np.zeros((len(truth), len(pred)), dtype=np.uint8)
for f in fields:
    table = {}
    t = np.array([table.setdefault(value_key(r.get(f)), len(table)) for r in truth])
    p = np.array([table.setdefault(value_key(r.get(f)), len(table)) for r in pred])
    for s in range(0, len(t), 2048):
        mismatch[s:s + 2048] += t[s:s + 2048, None] != p[None, :]
rows, cols = linear_sum_assignment(mismatch)
print(json.dumps({"correct": int(len(fields) * len(rows) - mismatch[rows, cols].sum())}))
"""


def run(cmd: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB, stdout) of one child process; rusage from wait4 is that child's own."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode:
            raise SystemExit(f"{' '.join(cmd[:4])} failed: {err.read().strip()}")
        return wall, usage.ru_maxrss / 1024, out.read()


def mem_available_mb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024
    return float("inf")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=26725)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-baseline", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    rows = make_rows(rng, args.rows)
    pred = make_prediction(rng, rows)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_case(root, rows, pred)
        print(f"case: {len(rows)} expected rows, {len(pred)} predicted rows, {len(FIELDS)} sub-fields")
        wall, rss, out = run([sys.executable, "-m", "gtkit", "score", "--gt", str(root / "gt"), "--pred",
                              str(root / "pred"), "--json"])
        doc = json.loads(out)["documents"][0]
        print(f"gtkit score      wall {wall:6.2f} s   peak RSS {rss:7.0f} MB   correct cells {doc['value']['correct']}"
              f"   value F1 {doc['value']['f1']:.4f}   approximate={doc['approximate']}")
        need_mb = len(rows) * len(pred) * (1 + 8 + 8) / 2**20 + 500
        if args.no_baseline:
            print("dense baseline   skipped (--no-baseline)")
        elif need_mb > 0.8 * mem_available_mb():
            print(f"dense baseline   skipped: needs about {need_mb:,.0f} MB, {mem_available_mb():,.0f} MB available")
        else:
            bwall, brss, bout = run([sys.executable, "-c", BASELINE, str(root)])
            correct = json.loads(bout)["correct"]
            print(f"dense Hungarian  wall {bwall:6.2f} s   peak RSS {brss:7.0f} MB   correct cells {correct}")
            print(f"ratio gtkit/baseline: time {wall / bwall:.3f}x   memory {rss / brss:.3f}x   "
                  f"exact: {'yes' if correct == doc['value']['correct'] else 'NO'}")
        print("targets: gtkit score under 5 s and under 1,024 MB, exact")


if __name__ == "__main__":
    main()
