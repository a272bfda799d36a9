"""`gtkit.check` applies each pipeline's own check from the table it is given (`gtkit.pipelines.CHECKS`), in a
fresh interpreter that imported nothing else, and catches a bundle tampered with; it imports no pipeline itself.

A bundle of each pipeline gets one box moved by hand; `check_bundle`, called from a new Python process
that imports only `gtkit.check` and that table, must report that box (the synth check re-finds the value in the PDF,
the degrade check compares the box with its quad, the consensus check reads the words under the box).
Then each bundle (synth in both renderers, without a layout) gets one value changed, one page of its PDF
changed, or one record dropped, and the check must say so. A degraded page has no text layer and a consensus
truth is what the systems agreed on: a value changed or a record dropped in both `expected` and the field entries
alike is beyond their checks (nothing in the bundle says otherwise), so for them the change is made in `expected`
alone and the core check catches the disagreement; the synth check catches it made in both, from the PDF.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gtkit.consensus.run import run_consensus
from gtkit.degrade.pipeline import degrade
from gtkit.synth.pipeline import synth
from gtkit.testing.simulate import simulate

CHECK = """
import json, sys
from gtkit.check import check_bundle
from gtkit.pipelines import CHECKS
print(json.dumps([[p.pointer, p.message] for p in check_bundle(sys.argv[1], CHECKS)]))
"""


def fresh_check(folder: Path) -> list[list[str]]:
    out = subprocess.run([sys.executable, "-c", CHECK, str(folder)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def move_box(gt_file: Path, want: Callable[[dict[str, Any]], bool]) -> str:
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
    run_consensus(ws / "schema.json", ws / "docs", ws / "runs", ws / "systems.toml", root / "consensus",
                  do_rescore=False)
    [doc] = [p for p in (root / "consensus").iterdir() if p.is_dir()]
    synth("unclaimed_property", out=root / "synth-table", seed=4, records=70)
    return {"synth": root / "synth", "synth-table": root / "synth-table", "degrade": root / "degrade", "consensus": doc}


def any_entry(entry: dict) -> bool:
    return True


def by_neighbour(entry: dict) -> bool:
    """Agreed string cells: moving one's box onto another's puts other words under it."""
    return entry["trust"] == "agreed" and isinstance(entry["readings"][0]["value"], str)


def test_the_core_check_imports_no_pipeline(bundles):  # type: ignore[no-untyped-def]
    """Given no pipeline checks, `gtkit.check` checks a bundle of each pipeline without importing any pipeline."""
    code = ("import sys\nfrom gtkit.check import check_bundle\n"
            "problems = [check_bundle(folder, {}) for folder in sys.argv[1:]]\n"
            "print([m for m in sys.modules if m.split('.')[:2] in (['gtkit', 'synth'], ['gtkit', 'degrade'], "
            "['gtkit', 'consensus'], ['gtkit', 'pipelines'])] or problems)")
    out = subprocess.run([sys.executable, "-c", code, *map(str, bundles.values())], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == str([[]] * len(bundles))


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


def _records_field(expected: dict) -> str:
    return next(k for k, v in expected.items() if isinstance(v, list) and v and isinstance(v[0], dict))


def change_value(gt: dict, *, both: bool) -> None:
    """Append "X" to the first string value with a box in a record (in `expected`, and with `both` its entry too)."""
    entry = next(f for f in gt["fields"] if f["path"].count("/") == 3 and isinstance(f["readings"][0]["value"], str)
                 and f["readings"][0]["evidence"] and f["readings"][0]["evidence"][0].get("box")
                 and f["trust"] in ("constructed", "agreed"))
    _, field, row, name = entry["path"].split("/")
    gt["expected"][field][int(row)][name] += "X"
    if both:
        entry["readings"][0]["value"] += "X"


def drop_record(gt: dict, *, both: bool) -> None:
    """Drop the last record from `expected` (and with `both` its field entries too)."""
    field = _records_field(gt["expected"])
    last = len(gt["expected"][field]) - 1
    gt["expected"][field].pop()
    if both:
        gt["fields"] = [f for f in gt["fields"] if not f["path"].startswith(f"/{field}/{last}/")]


def change_page(folder: Path) -> None:
    """Write a word on the last page of the PDF (its recorded hash then no longer matches)."""
    import pymupdf

    with pymupdf.open(folder / "document.pdf") as doc:
        doc[-1].insert_text((40, 40), "tampered")
        data = doc.tobytes()
    (folder / "document.pdf").write_bytes(data)


@pytest.mark.parametrize("pipeline", ["synth", "synth-table", "degrade", "consensus"])
@pytest.mark.parametrize("tamper", ["value", "page", "record"])
def test_a_tampered_bundle_is_caught(bundles, pipeline, tamper, tmp_path):  # type: ignore[no-untyped-def]
    import shutil

    from gtkit.check import check_bundle
    from gtkit.pipelines import CHECKS

    folder = tmp_path / pipeline
    shutil.copytree(bundles[pipeline], folder)
    assert check_bundle(folder, CHECKS) == []
    both = pipeline.startswith("synth")
    gt = json.loads((folder / "gt.json").read_text())
    if tamper == "page":
        change_page(folder)
    else:
        (change_value if tamper == "value" else drop_record)(gt, both=both)
        (folder / "gt.json").write_text(json.dumps(gt))
    problems = [str(p) for p in check_bundle(folder, CHECKS)]
    assert problems, f"{tamper} tampering went unnoticed"
    if tamper == "page":
        assert any("/document/sha256: does not match document.pdf" in p for p in problems), problems
    elif both and tamper == "record":
        assert any("unexpected text" in p for p in problems), problems  # the dropped record's words are unclaimed


def test_a_changed_value_in_the_pdf_is_named(bundles, tmp_path):  # type: ignore[no-untyped-def]
    """The synth table check reports a value changed in the truth with the value's JSON Pointer."""
    import shutil

    from gtkit.check import check_bundle
    from gtkit.pipelines import CHECKS

    folder = tmp_path / "b"
    shutil.copytree(bundles["synth-table"], folder)
    gt = json.loads((folder / "gt.json").read_text())
    gt["expected"]["properties"][40]["holder"] += "X"
    entry = next(f for f in gt["fields"] if f["path"] == "/properties/40/holder")
    entry["readings"][0]["value"] += "X"
    (folder / "gt.json").write_text(json.dumps(gt))
    problems = check_bundle(folder, CHECKS)
    assert problems and problems[0].pointer == "/expected/properties/40/holder", problems
    assert "not found" in problems[0].message


def test_records_drawn_over_each_other_are_caught():
    """The row order check of the layout-free synth check: a record that begins above the end of the one before."""
    import numpy as np

    from gtkit.synth.layout import Item
    from gtkit.synth.verify import _row_order

    values = [("/r/0/a", 0, 0, "x", "x"), ("/r/1/a", 1, 0, "y", "y")]
    region = (0.0, 0.0, 100.0, 100.0)
    chrome = Item(None, "head", None, region, 0)
    good = np.array([[0, 0, 10, 5], [0, 10, 10, 15], [0, 20, 10, 25]], dtype=float)
    bad = np.array([[0, 0, 10, 5], [0, 10, 10, 15], [20, 8, 30, 13]], dtype=float)
    for coords, n_problems in ((good, 0), (bad, 1)):
        found = _row_order(0, coords, [chrome, 0, 1], values, np.array([0, 1]), [region] * 3, [0, 1, 2], 1, 3,
                           by_column=False)
        assert len(found) == n_problems
    assert "record 1 is drawn over or above record 0" in found[0].message


@pytest.mark.parametrize("shuffled", [False, True])
def test_the_check_takes_field_entries_in_any_order(bundles, shuffled, tmp_path):  # type: ignore[no-untyped-def]
    """The check takes the entries in the order the pipelines write them (leaf order, record after record) as a
    shortcut, never as a premise: shuffled, a truth is as good, and a value or a box changed in it is named
    with its own entry."""
    import random
    import shutil

    from gtkit.check import check_bundle
    from gtkit.pipelines import CHECKS

    folder = tmp_path / "b"
    shutil.copytree(bundles["synth-table"], folder)
    gt = json.loads((folder / "gt.json").read_text())
    if shuffled:
        random.Random(7).shuffle(gt["fields"])
    (folder / "gt.json").write_text(json.dumps(gt))
    assert check_bundle(folder, CHECKS) == []

    i, entry = next((i, f) for i, f in enumerate(gt["fields"]) if f["path"] == "/properties/40/holder")
    box = entry["readings"][0]["evidence"][0]["box"]
    entry["readings"][0]["evidence"][0]["box"] = [box[0] + 0.01, box[1], box[2] + 0.01, box[3]]
    (folder / "gt.json").write_text(json.dumps(gt))
    assert [(p.pointer, p.message.split(" (")[0]) for p in check_bundle(folder, CHECKS)] == [
        (f"/fields/{i}", "evidence of /properties/40/holder differs from what the PDF shows")]

    entry["readings"][0]["evidence"][0]["box"] = box
    gt["expected"]["properties"][40]["holder"] += "X"
    entry["readings"][0]["value"] += "X"
    (folder / "gt.json").write_text(json.dumps(gt))
    problems = check_bundle(folder, CHECKS)
    assert problems and problems[0].pointer == "/expected/properties/40/holder", problems


def test_quotes_shifted_between_neighbours_are_caught(bundles, tmp_path):  # type: ignore[no-untyped-def]
    """Two neighbouring values' recorded quotes with a word moved from one to the other (the page's text, joined,
    unchanged) are each reported: the synth check compares every quote with its own value's words."""
    import shutil

    from gtkit.check import check_bundle
    from gtkit.pipelines import CHECKS

    folder = tmp_path / "b"
    shutil.copytree(bundles["synth-table"], folder)
    gt = json.loads((folder / "gt.json").read_text())
    at = {f["path"]: i for i, f in enumerate(gt["fields"]) if f["readings"][0]["evidence"]}
    multi = next(p for p, i in at.items() if p.endswith("/owner_name") and p.replace("/owner_name", "/address") in at
                 and " " in gt["fields"][i]["readings"][0]["evidence"][0]["quote"])
    i, j = at[multi], at[multi.replace("/owner_name", "/address")]
    first, second = (gt["fields"][k]["readings"][0]["evidence"][0] for k in (i, j))
    *head, last = first["quote"].split(" ")
    first["quote"], second["quote"] = " ".join(head), f"{last} {second['quote']}"
    (folder / "gt.json").write_text(json.dumps(gt))
    assert [p.pointer for p in check_bundle(folder, CHECKS)] == [f"/fields/{i}", f"/fields/{j}"]


@pytest.mark.parametrize("alternates", [False, True])
def test_a_degraded_box_without_its_quad_is_named(bundles, alternates, tmp_path):  # type: ignore[no-untyped-def]
    """The degrade check names the evidence whose quad was dropped, whether every entry has one reading (read
    from the flattened entries) or some has alternates too (every reading's evidence gathered)."""
    import shutil

    from gtkit.check import check_bundle
    from gtkit.pipelines import CHECKS

    folder = tmp_path / "b"
    shutil.copytree(bundles["degrade"], folder)
    gt = json.loads((folder / "gt.json").read_text())
    with_box = [i for i, f in enumerate(gt["fields"]) if f["readings"][0]["evidence"]]
    i = with_box[len(with_box) // 2]
    if alternates:
        first = gt["fields"][with_box[0]]
        first["readings"].append({"value": first["readings"][0]["value"],
                                  "evidence": first["readings"][0]["evidence"]})
    gt["fields"][i]["readings"][0]["evidence"][0]["quad"] = None
    (folder / "gt.json").write_text(json.dumps(gt))
    assert [(p.pointer, p.message) for p in check_bundle(folder, CHECKS)] == [
        (f"/fields/{i}/readings/0/evidence/0/quad", "a degraded box needs its quad")]
