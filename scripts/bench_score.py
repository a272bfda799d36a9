"""Benchmark `gtkit score` on a 26,725-row array against a dense Hungarian baseline, in the same run.

The truth is one bundle whose `expected` holds 26,725 records of 8 sub-fields; the
prediction drops 2% of the rows, inserts 1% new ones (sharing no value with the truth), perturbs
3% of the cells and shuffles the rows. Two modes, on the same rows:

- **plain**: field entries without evidence, no citations;
- **boxed**: the document has 45 rows a page, and every non-null truth cell carries verified
  evidence as synth writes it (box, one box per word, quote); every predicted cell carries a
  citation (its source row's box, slightly shifted; an inserted row cites a random place).

Printed per mode: wall time and peak RSS of the `gtkit score` process (with its workers: the peak of their
sum, sampled every 50 ms, or the exact peak of the largest process if that is more) and its counts; once, the
same for a dense `linear_sum_assignment` over the full mismatch matrix (skipped with a message
where it would not fit in memory), which also counts grounding over its own pairing by the rules
of docs/scoring.md; their ratios, and whether gtkit reaches the same counts (exactness: correct
values, and in the boxed mode page and word grounding with their denominators).

    python scripts/bench_score.py [--rows 26725] [--seed 0] [--no-baseline] [--mode plain|boxed|both]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pymupdf

from gtkit import __version__
from gtkit.files.read import canonical_sha256, sha256_bytes
from gtkit.format.models import (
    FORMAT_VERSION,
    DocumentInfo,
    FieldEntry,
    GroundTruth,
    Provenance,
    Reading,
    SchemaInfo,
    Tags,
)
from gtkit.format.writer import write_bundle

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


def new_row(row: dict) -> dict:
    """An inserted row shares no value with any truth row, so it pairs with none: the optimal pairing is then
    unique in practice, and so are the grounding counts an independent scorer finds over its own pairing."""
    return {f: (v + 100_000 if isinstance(v, (int, float)) else f"NEW {v or 'NONE'}") for f, v in row.items()}


def make_prediction(rng: np.random.Generator, rows: list[dict]) -> tuple[list[dict], list[int | None]]:
    """The predicted rows and, for each, the truth row it was copied from (None: inserted)."""
    n = len(rows)
    keep = rng.random(n) >= 0.02
    pred = [dict(r) for r, k in zip(rows, keep) if k]
    sources: list[int | None] = [i for i, k in enumerate(keep) if k]
    inserted = [new_row(r) for r in make_rows(rng, int(0.01 * n))]
    pred += inserted
    sources += [None] * len(inserted)
    for r in pred:
        for f in FIELDS:
            if rng.random() < 0.03:
                r[f] = (r[f] + 1) if isinstance(r[f], (int, float)) else f"{r[f] or ''}X"
    order = rng.permutation(len(pred))
    return [pred[i] for i in order], [sources[i] for i in order]


ROWS_PER_PAGE = 45


def cell_place(row: int, field: int) -> tuple[int, list[float]]:
    """(page, box) of truth row `row`, column `field` in the boxed layout: 45 rows a page, 8 columns."""
    page, slot = divmod(row, ROWS_PER_PAGE)
    y0 = 0.06 + slot * 0.019
    x0 = 0.04 + field * 0.117
    return page + 1, [round(x0, 6), round(y0, 6), round(x0 + 0.1, 6), round(y0 + 0.012, 6)]


def evidence(row: int, field: int, value) -> list[dict]:
    """Verified evidence as synth writes it: the union box, one box per word, the quote."""
    if value is None:
        return []
    page, (x0, y0, x1, y1) = cell_place(row, field)
    quote = str(value)
    parts = quote.split(" ")
    step = (x1 - x0) / len(parts)
    words = [[round(x0 + k * step, 6), y0, round(x0 + (k + 1) * step - 0.002, 6), y1] for k in range(len(parts))]
    return [{"page": page, "box": [x0, y0, x1, y1], "words": words, "quad": None, "quote": quote, "verified": True}]


def citations(rng: np.random.Generator, sources: list[int | None], pages: int) -> dict[str, list[dict]]:
    """A citation on every predicted cell: its source row's box shifted by up to 1/10 of its size, or a
    random place for an inserted row (source None)."""
    out = {}
    for j, src in enumerate(sources):
        for c, f in enumerate(FIELDS):
            if src is None:
                page, box = cell_place(int(rng.integers(0, pages * ROWS_PER_PAGE)), c)
            else:
                page, box = cell_place(src, c)
            dx, dy = rng.uniform(-0.01, 0.01), rng.uniform(-0.0012, 0.0012)
            out[f"/properties/{j}/{f}"] = [{"page": page, "box": [round(box[0] + dx, 6), round(box[1] + dy, 6),
                                                                   round(box[2] + dx, 6), round(box[3] + dy, 6)]}]
    return out


def write_case(root: Path, rows: list[dict], pred: list[dict], cites: dict | None) -> None:
    """A bundle at root/gt and a prediction at root/pred; with `cites`, the boxed mode."""
    pages = -(-len(rows) // ROWS_PER_PAGE) if cites is not None else 1
    doc = pymupdf.open()
    for _ in range(pages):
        doc.new_page()
    pdf = doc.tobytes(no_new_id=True)
    fields = [FieldEntry(path=f"/properties/{i}/{f}", trust="constructed", readings=[
                  Reading(value=r[f], evidence=evidence(i, c, r[f]) if cites is not None else [])])
              for i, r in enumerate(rows) for c, f in enumerate(FIELDS)]
    gt = GroundTruth(
        format=FORMAT_VERSION,
        doc_id="bench", document=DocumentInfo(sha256=sha256_bytes(pdf), pages=pages, page_sizes=[(612, 792)] * pages),
        schema=SchemaInfo(sha256=canonical_sha256(SCHEMA)), provenance=Provenance(pipeline="manual", gtkit=__version__),
        tags=Tags(task=["T1.a"], structure=["S4"]), expected={"properties": rows}, fields=fields)
    write_bundle(root / "gt", pdf=pdf, schema=SCHEMA, gt=gt)
    (root / "pred").mkdir()
    (root / "pred" / "bench.json").write_text(json.dumps({"properties": pred}))
    if cites is not None:
        (root / "pred" / "bench.citations.json").write_text(json.dumps(cites))


BASELINE = r"""
import json, sys
import numpy as np
from scipy.optimize import linear_sum_assignment
from gtkit.geometry import iou
from gtkit.scoring.normalize import value_key
root = sys.argv[1]
gt = json.load(open(f"{root}/gt/gt.json"))
truth = gt["expected"]["properties"]
pred = json.load(open(f"{root}/pred/bench.json"))["properties"]
fields = list(truth[0])
mismatch = np.zeros((len(truth), len(pred)), dtype=np.uint8)
t_keys, p_keys = [], []
for f in fields:
    table = {}
    t = np.array([table.setdefault(value_key(r.get(f)), len(table)) for r in truth])
    p = np.array([table.setdefault(value_key(r.get(f)), len(table)) for r in pred])
    t_keys.append(t)
    p_keys.append(p)
    for s in range(0, len(t), 2048):
        mismatch[s:s + 2048] += t[s:s + 2048, None] != p[None, :]
rows, cols = linear_sum_assignment(mismatch)
out = {"correct": int(len(fields) * len(rows) - mismatch[rows, cols].sum())}
if len(sys.argv) > 2:  # boxed: grounding over this pairing (pairs with no matching cell are no pairs)
    cites = json.load(open(f"{root}/pred/bench.citations.json"))
    ev = {f["path"]: [e for r in f["readings"] for e in r["evidence"] if e["verified"]] for f in gt["fields"]}
    del gt
    page = dict(correct=0, n_pred=0, n_truth=sum(1 for e in ev.values() if any(x["box"] for x in e)))
    word = dict(page)
    for i, j in zip(rows, cols):
        if mismatch[i, j] == len(fields):
            continue
        for c, f in enumerate(fields):
            e = ev.get(f"/properties/{i}/{f}") or []
            if not any(x["box"] for x in e):
                continue
            cs = cites.get(f"/properties/{j}/{f}") or []
            if not cs:
                continue
            page["n_pred"] += 1
            boxed = any(x.get("box") is not None for x in cs)
            word["n_pred"] += boxed
            if t_keys[c][i] != p_keys[c][j] or not any(x["page"] in {y["page"] for y in e} for x in cs):
                continue
            page["correct"] += 1
            word["correct"] += any(x.get("box") is not None and y["box"] is not None and x["page"] == y["page"]
                                   and iou(x["box"], y["box"]) >= 0.5 for x in cs for y in e)
    out.update(page=page, word=word)
print(json.dumps(out))
"""


LAUNCHER = r"""
import os, resource, subprocess, sys, time
from pathlib import Path

PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024

def tree_rss_kb(root):
    # resident memory of `root` and every process below it (a worker pool), from /proc
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_KB
            for tid in os.listdir(f"/proc/{pid}/task"):
                todo += map(int, Path(f"/proc/{pid}/task/{tid}/children").read_text().split())
        except (OSError, ValueError):
            pass
    return total

start = time.perf_counter()
proc = subprocess.Popen(sys.argv[2:])
tree_peak = 0
while proc.poll() is None:
    tree_peak = max(tree_peak, tree_rss_kb(proc.pid))
    time.sleep(0.05)
wall = time.perf_counter() - start
with open(sys.argv[1], "w") as f:
    f.write(f"{wall} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss} {tree_peak}")
sys.exit(proc.returncode)
"""


def run(cmd: list[str]) -> tuple[float, float, float, str]:
    """(wall seconds, peak RSS of its largest process in MB, peak RSS of its process tree in MB, stdout) of one
    command. A small launcher process starts it: its own rusage gives the largest process's exact peak, and it
    samples the whole tree (a worker pool included) every 50 ms. A child started straight from this process
    would report this process's peak as its own (Linux keeps the high-water mark of the memory a vfork'ed child
    shared before its exec)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err, \
            tempfile.NamedTemporaryFile("r") as usage:
        code = subprocess.call([sys.executable, "-c", LAUNCHER, usage.name, *cmd], stdout=out, stderr=err, text=True)
        out.seek(0)
        err.seek(0)
        if code:
            raise SystemExit(f"{' '.join(cmd[:4])} failed: {err.read().strip()}")
        wall, maxrss_kb, tree_kb = usage.read().split()
        return float(wall), int(maxrss_kb) / 1024, max(int(tree_kb), int(maxrss_kb)) / 1024, out.read()


def mem_available_mb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024
    return float("inf")


def counts(d: dict | None) -> str:
    return "-" if d is None else f"{d['correct']}/{d['n_pred']}/{d['n_truth']}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=26725)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--mode", choices=("plain", "boxed", "both"), default="both")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    rows = make_rows(rng, args.rows)
    pred, sources = make_prediction(rng, rows)
    cites = citations(rng, sources, -(-len(rows) // ROWS_PER_PAGE))
    modes = ("plain", "boxed") if args.mode == "both" else (args.mode,)
    print(f"case: {len(rows)} expected rows, {len(pred)} predicted rows, {len(FIELDS)} sub-fields")
    print("counts are correct/n_pred/n_truth")
    with tempfile.TemporaryDirectory() as tmp:
        results = {}
        for mode in modes:
            root = Path(tmp) / mode
            root.mkdir()
            write_case(root, rows, pred, cites if mode == "boxed" else None)
            size = (root / "gt" / "gt.json").stat().st_size / 2**20
            wall, _, rss, out = run([sys.executable, "-m", "gtkit", "score", "--gt", str(root / "gt"), "--pred",
                                     str(root / "pred"), "--json"])
            doc = json.loads(out)["documents"][0]
            results[mode] = (wall, rss, doc)
            print(f"gtkit score {mode:5}  wall {wall:6.2f} s   peak RSS {rss:7.0f} MB   gt.json {size:5.1f} MB   "
                  f"value {counts(doc['value'])}   page {counts(doc['page'])}   word {counts(doc['word'])}   "
                  f"approximate={doc['approximate']}")
        need_mb = len(rows) * len(pred) * (1 + 8 + 8) / 2**20 + 500
        if args.no_baseline:
            print("dense baseline   skipped (--no-baseline)")
        elif need_mb > 0.8 * mem_available_mb():
            print(f"dense baseline   skipped: needs about {need_mb:,.0f} MB, {mem_available_mb():,.0f} MB available")
        else:
            mode = modes[-1]  # the values are the same in both modes; the boxed case also has the grounding
            bwall, _, brss, bout = run([sys.executable, "-c", BASELINE, str(Path(tmp) / mode),
                                     *(["boxed"] if mode == "boxed" else [])])
            base = json.loads(bout)
            print(f"dense Hungarian   wall {bwall:6.2f} s   peak RSS {brss:7.0f} MB   value correct {base['correct']}"
                  f"   page {counts(base.get('page'))}   word {counts(base.get('word'))}")
            for mode, (wall, rss, doc) in results.items():
                same = doc["value"]["correct"] == base["correct"]
                if mode == "boxed":
                    same = same and all(doc[k][x] == base[k][x] for k in ("page", "word")
                                        for x in ("correct", "n_pred", "n_truth"))
                print(f"ratio gtkit {mode}/baseline: time {wall / bwall:.3f}x   memory {rss / brss:.3f}x   "
                      f"exact: {'yes' if same else 'NO'}")
        print("targets: gtkit score under 5 s and under 1,024 MB in both modes, exact")


if __name__ == "__main__":
    main()
