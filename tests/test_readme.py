"""The README's "Using it" commands, run as written, in order, in an empty folder, by the installed `gtkit`.

Under `make wheel-test` that is the wheel installed outside the checkout. The inputs a line names that gtkit does
not make are put in place first (records for `--data`, consensus inputs from the simulator, the decisions a
person would have made in review). Lines that start a server (`gtkit review`) or need a cluster (`--executor
dask`) are the only ones not run; the test says which.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
NOT_RUN = {"review": "starts a web server", "--executor dask": "needs a Dask scheduler"}
TIMEOUT_S = 300


def using_it_commands() -> list[str]:
    """The `gtkit ...` lines of the README's "Using it" block, comments and optional [words] removed."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## Using it\n.*?```sh\n(.*?)```", text, re.S)
    assert block, "README.md has no 'Using it' block"
    lines = []
    for line in block.group(1).splitlines():
        line = re.sub(r"\s+#.*$", "", line.split("   #")[0]).strip()
        if line.startswith("gtkit "):
            lines.append(re.sub(r"\s*\[[^\]]*\]", "", line))
    return lines


def _skipped(command: str) -> str | None:
    words = shlex.split(command)
    if words[1] == "review":
        return NOT_RUN["review"]
    return NOT_RUN["--executor dask"] if "--executor" in words and "dask" in words else None


def _inputs(folder: Path, cm: Path) -> None:
    """What the user brings: records of their own, and consensus inputs (schema, PDFs, runs, systems)."""
    from gtkit.testing.simulate import simulate

    records = json.loads((cm / "gt.json").read_text())["expected"]["creditors"][:25]
    (folder / "my_records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    simulate(folder, seed=5, n_docs=2, n_rows=12)


def _decide(gt: Path) -> None:
    """One decision per queued cell, as review writes them: the first candidate reading accepted."""
    lines = []
    for line in (gt / "queue.jsonl").read_text().splitlines():
        item = json.loads(line)
        if item.get("candidates"):
            lines.append({"id": item["id"], "action": "accept", "candidate": 0, "who": "readme"})
    (gt / "decisions.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines))


@pytest.mark.skipif(not README.is_file(), reason="needs the README beside the tests (make wheel-test copies it)")
def test_the_readme_commands_run_as_written(tmp_path: Path) -> None:
    gtkit = shutil.which("gtkit", path=str(Path(sys.executable).parent))
    assert gtkit, "the gtkit command is installed beside this Python"
    env = {**os.environ, "GTKIT_FAMILIES_PATH": "", "GTKIT_RECIPES_PATH": ""}
    ran, skipped = [], []
    for command in using_it_commands():
        reason = _skipped(command)
        if reason:
            skipped.append((command, reason))
            continue
        words = shlex.split(command)
        if words[1] == "synth" and "--data" in words:
            _inputs(tmp_path, tmp_path / "out" / "cm")
        if words[1] == "adjudicate":
            _decide(tmp_path / "gt")
        done = subprocess.run([gtkit, *words[1:]], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT_S)
        assert done.returncode == 0, f"{command}\n{done.stderr}"
        assert "Traceback" not in done.stderr
        ran.append(command)
    assert [c for c, _ in skipped] == [c for c in using_it_commands() if _skipped(c)]
    assert len(ran) >= 20
    assert (tmp_path / "out" / "small" / "dataset.jsonl").is_file()
    assert (tmp_path / "why.jsonl").is_file() and (tmp_path / "report" / "index.html").is_file()
