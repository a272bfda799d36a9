"""Ctrl-C during a parallel run: exit 130 quietly (no worker tracebacks) and leave nothing behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from gtkit.synth.pipeline import synth


def test_ctrl_c_with_workers_exits_130_and_leaves_nothing(tmp_path):  # type: ignore[no-untyped-def]
    synth("unclaimed_property", out=tmp_path / "src", seed=1, records=2500)
    out = tmp_path / "deg"
    p = subprocess.Popen([sys.executable, "-m", "gtkit", "degrade", str(tmp_path / "src"), "--recipe", "fax",
                          "--dpi", "150", "--out", str(out), "--workers", "2"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 60
    while not any(n.endswith(".partial") for n in os.listdir(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.05)  # the run is under way once its staging folder exists
    time.sleep(0.5)
    os.killpg(p.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole process group
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert b"Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == ["src"]
