"""Helpers of the review tests and of scripts/screenshot_review.py: a small consensus output, the server in a
child process, the Chromium flags."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from gtkit.cli import main as gtkit_main
from gtkit.testing.simulate import simulate

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def consensus_output(root: Path, *, seed: int = 5, n_docs: int = 2, n_rows: int = 8) -> Path:
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
