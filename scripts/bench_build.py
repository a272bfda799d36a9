"""`gtkit build` of a 200-document plan (4 families, 3 recipes) on one worker and on two: the ratio of the
wall times, both measured in this run (the machine may be shared), and the two datasets compared byte
for byte. With `--kills N` a third build on two workers is killed with SIGKILL (its whole process group)
N times at random moments and resumed; it must end byte-identical to the clean build.

The plan: 50 synth documents (13 creditor matrices and 13 property lists of 10 to 130 records, 12
deviation logs and 12 schedules E/F of 4 to 15 records), each re-captured by fax, photocopier and
phone_camera (150 more). `--docs 40` builds a plan of the same shape with 10 synth documents.

    python scripts/bench_build.py [--docs 200] [--kills 3] [--seed 1] [--keep DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

FAMILIES = (("creditor_matrix", 10, 10), ("unclaimed_property", 10, 10), ("deviation_log", 4, 1), ("schedule_ef", 4, 1))
RECIPES = ("fax", "photocopier", "phone_camera")


def plan_text(docs: int, seed: int) -> str:
    """A plan of `docs` documents: docs/4 synth documents spread over the families, 3 re-captures of each."""
    n_synth = docs // (1 + len(RECIPES))
    per = [n_synth // len(FAMILIES) + (i < n_synth % len(FAMILIES)) for i in range(len(FAMILIES))]
    lines = [f"seed = {seed}", ""]
    for (family, lo, step), n in zip(FAMILIES, per):
        records = f"records = {{ min = {lo}, max = {lo + step * (n - 1)}, step = {step} }}"
        lines += ["[[families]]", f'family = "{family}"', records, ""]
    for recipe in RECIPES:
        lines += ["[[recipes]]", f'recipe = "{recipe}"', ""]
    lines += ["[[splits]]", 'name = "clean"', "perception = []", "", "[[splits]]", 'name = "scanned"']
    return "\n".join(lines) + "\n"


def tree_hash(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(folder)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def command(plan: Path, out: Path, workers: int) -> list[str]:
    return [sys.executable, "-m", "gtkit", "build", str(plan), "--out", str(out), "--workers", str(workers)]


def timed_build(plan: Path, out: Path, workers: int) -> float:
    t0 = time.perf_counter()
    subprocess.run(command(plan, out, workers), check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def bundles(out: Path) -> int:
    return sum(1 for p in out.iterdir() if p.is_dir() and not p.name.startswith(".")) if out.is_dir() else 0


def killed_and_resumed(plan: Path, out: Path, kills: int, clean_s: float, rng: np.random.Generator) -> list[int]:
    """Kill the build `kills` times, each after a random share of a clean build's time; then finish it.
    Returns the number of bundles present at each kill."""
    seen = []
    for _ in range(kills):
        p = subprocess.Popen(command(plan, out, 2), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        time.sleep(float(rng.uniform(0.1, 0.4)) * clean_s)
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        seen.append(bundles(out))
    subprocess.run(command(plan, out, 2), check=True, stdout=subprocess.DEVNULL)
    return seen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=200)
    ap.add_argument("--kills", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1, help="plan seed, and the seed of the kill moments")
    ap.add_argument("--keep", type=Path, help="build in this folder and keep the datasets")
    args = ap.parse_args()
    if args.docs < 16:
        ap.error("--docs must be at least 16 (one synth document per family, 3 re-captures of each)")
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        plan = root / "plan.toml"
        plan.write_text(plan_text(args.docs, args.seed))
        one = timed_build(plan, root / "w1", 1)
        two = timed_build(plan, root / "w2", 2)
        docs = len((root / "w1" / "dataset.jsonl").read_text().splitlines())
        same = tree_hash(root / "w1") == tree_hash(root / "w2")
        print(f"{docs} documents: 1 worker {one:.1f} s, 2 workers {two:.1f} s, ratio (2 workers / 1) {two / one:.2f}; "
              f"byte-identical: {same}")
        if args.kills:
            seen = killed_and_resumed(plan, root / "killed", args.kills, two, np.random.default_rng(args.seed))
            resumed = tree_hash(root / "killed") == tree_hash(root / "w1")
            print(f"killed {args.kills} times (bundles present at each kill: {seen}), "
                  f"resumed: byte-identical: {resumed}")


if __name__ == "__main__":
    main()
