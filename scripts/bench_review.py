"""The review server's costs on a queue of over a thousand items, next to a baseline measured in the same run.

    .venv/bin/python scripts/bench_review.py [--docs 8] [--rows 120] [--decided 900]

Builds a simulated consensus output (5 systems, 3 families, raised error rates so that the queue and the
drawing list are long), writes `--decided` box decisions by hand, then times, without a browser or a
socket: the start (every decision replayed through adjudication's checks), the item list, opening items,
a page image (first render, then cached) and one decision checked and appended. The baseline is reading
the queue and drawing list as JSON Lines (what any reviewer must do once).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from gtkit.cli import main as gtkit_main
from gtkit.files.read import read_jsonl
from gtkit.review.state import Review
from gtkit.testing.simulate import Rates, simulate


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=8)
    ap.add_argument("--rows", type=int, default=120)
    ap.add_argument("--decided", type=int, default=900)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws, ds = Path(tmp) / "ws", Path(tmp) / "gt"
        simulate(ws, seed=3, n_docs=args.docs, n_rows=args.rows, rates=Rates(random=0.05, family=0.04))
        try:
            gtkit_main(["consensus", "--schema", str(ws / "schema.json"), "--docs", str(ws / "docs"), "--runs",
                        str(ws / "runs"), "--systems", str(ws / "systems.toml"), "--out", str(ds), "--no-rescore"])
        except SystemExit as e:
            if e.code:
                raise
        draw = [x for _, x in read_jsonl(ds / "draw.jsonl")]
        lines = [{"doc": x["doc"], "path": x["path"], "action": "box", "who": "bench",
                  "box": {"page": 1, "box": [0.1, 0.1, 0.2, 0.12]}} for x in draw[:args.decided]]
        (ds / "decisions.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines))

        t = time.perf_counter()
        queue = read_jsonl(ds / "queue.jsonl") + read_jsonl(ds / "draw.jsonl")
        baseline = time.perf_counter() - t
        t = time.perf_counter()
        review = Review(ds, "bench")
        start = time.perf_counter() - t
        t = time.perf_counter()
        state = json.dumps(review.state())
        listing = time.perf_counter() - t
        opened = []
        for i in range(0, len(review.items), max(1, len(review.items) // 20)):
            t = time.perf_counter()
            review.detail(i)
            opened.append(time.perf_counter() - t)
        doc = review.items[0].doc
        t = time.perf_counter()
        review.page_png(doc, 1)
        first_png = time.perf_counter() - t
        t = time.perf_counter()
        review.page_png(doc, 1)
        cached_png = time.perf_counter() - t
        todo = next(k for k, it in enumerate(review.items)
                    if it.kind == "draw" and it.id not in review.decisions.decided)
        t = time.perf_counter()
        review.decide({"item": todo, "action": "box", "box": {"page": 1, "box": [0.1, 0.1, 0.2, 0.12]}})
        decide = time.perf_counter() - t

        print(f"{len(review.items)} items ({len(queue)} queue and drawing lines), {len(lines)} decisions in the file")
        print(f"baseline: read queue.jsonl + draw.jsonl       {_ms(baseline)}")
        print(f"start (decisions replayed)                     {_ms(start)}  ({start / baseline:.0f}x baseline)")
        print(f"item list                                      {_ms(listing)}  ({len(state) // 1000} kB)")
        print(f"open an item: median / max of {len(opened)}           {_ms(sorted(opened)[len(opened) // 2])} / "
              f"{_ms(max(opened))}")
        print(f"page image: first / cached                     {_ms(first_png)} / {_ms(cached_png)}")
        print(f"one decision checked, appended, fsynced        {_ms(decide)}  ({decide / baseline:.1f}x baseline)")


if __name__ == "__main__":
    main()
