"""Take docs/img/review.png: the review page over a small simulated consensus output, in headless Chromium.

    .venv/bin/python scripts/screenshot_review.py [--chromium /usr/bin/chromium] [--out docs/img/review.png]

Needs Playwright (the dev extra) and a Chromium (Debian's package); no browser is downloaded.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from review_helpers import CHROMIUM_ARGS, consensus_output, start_server


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
                page.keyboard.press("j")   # the second item: a split cell with three candidates
                page.wait_for_function("() => document.getElementById('item-title').textContent.endsWith('/po_number')")
                page.wait_for_function("() => document.getElementById('page').complete")
                args.out.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(args.out))
                browser.close()
        finally:
            proc.terminate()
            proc.wait()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
