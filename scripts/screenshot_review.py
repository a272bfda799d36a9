"""Take docs/img/review.png: the review page over a small simulated consensus output, in headless Chromium.

    .venv/bin/python scripts/screenshot_review.py [--chromium /usr/bin/chromium] [--out docs/img/review.png]

Needs Playwright (the dev extra) and a Chromium (Debian's package); no browser is downloaded.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from gtkit.cli import main as gtkit_main
from gtkit.consensus.simulate import simulate

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def consensus_output(root: Path, *, seed: int = 5, n_docs: int = 2, n_rows: int = 6) -> Path:
    """A small consensus output under `root` (simulated runs of five systems): its folder."""
    ws = root / "ws"
    simulate(ws, seed=seed, n_docs=n_docs, n_rows=n_rows)
    out = root / "gt"
    try:
        gtkit_main(["consensus", "--schema", str(ws / "schema.json"), "--docs", str(ws / "docs"), "--runs",
                    str(ws / "runs"), "--systems", str(ws / "systems.toml"), "--out", str(out), "--no-rescore"])
    except SystemExit as e:
        if e.code:
            raise
    return out


def start_server(dataset: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    """`gtkit review DATASET --port 0` in a child process, and the URL it prints."""
    proc = subprocess.Popen([sys.executable, "-m", "gtkit", "review", str(dataset), "--port", "0", "--who", "ana",
                             *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        m = re.search(r"(http://127\.0\.0\.1:\d+/\?token=\S+)", line)
        if m:
            return proc, m.group(1)
    raise RuntimeError(f"gtkit review did not start (exit {proc.wait()})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--out", type=Path, default=Path("docs/img/review.png"))
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        dataset = consensus_output(Path(tmp))
        proc, url = start_server(dataset)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.goto(url)
                page.wait_for_selector("#candidates tbody tr")
                page.wait_for_function("document.getElementById('page').complete")
                box = page.locator("#overlay").bounding_box()
                page.mouse.move(box["x"] + box["width"] * 0.25, box["y"] + box["height"] * 0.2)
                page.mouse.down()
                page.mouse.move(box["x"] + box["width"] * 0.45, box["y"] + box["height"] * 0.23, steps=4)
                page.mouse.up()
                args.out.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(args.out))
                browser.close()
        finally:
            proc.terminate()
            proc.wait()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
