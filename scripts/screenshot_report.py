"""Take docs/img/score-report.png: one page of a `gtkit score --html` report, in headless chromium.

The report scores the demo's simulated extraction system (records dropped, cells misread, boxes jittered)
against a small synthetic creditor matrix and its fax re-capture; the picture is the worst document's page.
Needs Debian's chromium (/usr/bin/chromium, or --chromium PATH) and the playwright package (the dev extra);
no browser is downloaded.

    .venv/bin/python scripts/screenshot_report.py [--out docs/img/score-report.png]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from gtkit.demo import run_demo
from gtkit.scoring.run import score_path
from gtkit.workers import Pool

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "score-report.png")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--records", type=int, default=40)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        demo = Path(tmp) / "demo"
        run_demo(demo, records=args.records, workers=1)
        with Pool(1) as pool:
            score_path(demo, demo / "system", by="perception", html=Path(tmp) / "report", pool=pool)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=ARGS)
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.goto((Path(tmp) / "report" / "index.html").as_uri())
            page.locator("#documents tbody tr a").first.click()
            page.wait_for_load_state("load")
            page.locator("#cells-problems a[href^='#c']").first.click()  # its box lights up on the page picture
            page.evaluate("window.scrollTo(0, 0)")
            args.out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.out))
            browser.close()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
