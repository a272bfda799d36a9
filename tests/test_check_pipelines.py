"""`gtkit.check` applies each pipeline's own check from a fresh interpreter that imported nothing else.

A bundle of each pipeline gets one box moved by hand; `check_bundle`, called from a new Python process
that imports only `gtkit.check`, must report that box (the synth check re-finds the value in the PDF,
the degrade check compares the box with its quad, the consensus check reads the words under the box).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gtkit.consensus.run import run_consensus
from gtkit.consensus.simulate import simulate
from gtkit.degrade import degrade
from gtkit.synth.pipeline import synth

CHECK = """
import json, sys
from gtkit.check import check_bundle
print(json.dumps([[p.pointer, p.message] for p in check_bundle(sys.argv[1])]))
"""


def fresh_check(folder: Path) -> list[list[str]]:
    out = subprocess.run([sys.executable, "-c", CHECK, str(folder)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def move_box(gt_file: Path, want: callable) -> str:  # type: ignore[valid-type]
    """Shift the first box whose field entry satisfies `want` to the next such entry's box (or right by 0.01);
    returns the JSON Pointer of the moved box."""
    data = json.loads(gt_file.read_text())
    found = [(i, e) for i, e in enumerate(data["fields"]) if want(e) and e["readings"][0]["evidence"]
             and e["readings"][0]["evidence"][0].get("box")]
    (i, entry), (_, other) = found[0], found[1]
    ev = entry["readings"][0]["evidence"][0]
    if want.__name__ == "by_neighbour":
        ev["box"] = other["readings"][0]["evidence"][0]["box"]
    else:
        ev["box"] = [ev["box"][0] + 0.01, ev["box"][1], ev["box"][2] + 0.01, ev["box"][3]]
    gt_file.write_text(json.dumps(data))
    return f"/fields/{i}/readings/0/evidence/0"


@pytest.fixture(scope="module")
def bundles(tmp_path_factory) -> dict[str, Path]:  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("pipelines")
    synth("creditor_matrix", out=root / "synth", seed=3, records=60)
    degrade(root / "synth", root / "degrade", recipe="fax", seed=1, dpi=100)
    ws = root / "ws"
    simulate(ws, seed=5, n_docs=1, n_rows=8)
    run_consensus(ws / "schema.json", ws / "docs", ws / "runs", ws / "systems.toml", root / "consensus", do_rescore=False)
    [doc] = [p for p in (root / "consensus").iterdir() if p.is_dir()]
    return {"synth": root / "synth", "degrade": root / "degrade", "consensus": doc}


def any_entry(entry: dict) -> bool:
    return True


def by_neighbour(entry: dict) -> bool:
    """Agreed string cells: moving one's box onto another's puts other words under it."""
    return entry["trust"] == "agreed" and isinstance(entry["readings"][0]["value"], str)


@pytest.mark.parametrize("pipeline", ["synth", "degrade", "consensus"])
def test_a_moved_box_is_reported_from_a_fresh_interpreter(bundles, pipeline, tmp_path):  # type: ignore[no-untyped-def]
    import shutil

    folder = tmp_path / pipeline
    shutil.copytree(bundles[pipeline], folder)
    assert fresh_check(folder) == []
    moved = move_box(folder / "gt.json", by_neighbour if pipeline == "consensus" else any_entry)
    problems = fresh_check(folder)
    assert problems, f"the moved box at {moved} went unnoticed"
    # the problem names the moved box or its field entry
    assert any(p.startswith(moved) or moved.startswith(p + "/") for p, _ in problems), problems
