"""A decision is settled once across every place it can be made: a consensus bundle of a `gtkit build` dataset
can be corrected at the dataset's top level or adjudicated in its consensus folder, and neither may silently
undo the other. A cell a person decided is not open in any queue; a later decision that would change a `human`
cell is refused unless it names the value it replaces (`supersedes`) or `--force` is given; the corrections log
always says the final value, and `gtkit check` reports a log that does not."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import run_cli

from gtkit.format.bundle import read_bundle

DOC, CELL, OTHER = "sim-3-000", "/customer", "/po_number"
ID = f"{DOC}#{CELL}"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A build dataset made of one consensus entry (one simulated document, three queued cells)."""
    from gtkit.testing.simulate import simulate

    root = tmp_path_factory.mktemp("decided")
    simulate(root / "inv", seed=3, n_docs=1, n_rows=4)
    plan = root / "plan.toml"
    # the majority rule keeps the queue to the three cells the systems contest for a reason other than one
    # family's slip (the default, unanimous, would queue those too)
    plan.write_text('seed = 1\n[[consensus]]\nname = "invoices"\nfolder = "inv"\npromote = "majority"\n')
    from gtkit.builder.run import build

    build(plan, root / "ds", workers=1)
    return root / "ds"


def cli(args: list, capsys) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    code, out, err = run_cli(args, capsys)
    return code, out + err


def write(path: Path, *lines: dict) -> Path:
    path.write_text("".join(json.dumps({"who": "ana", "when": "2026-01-01T00:00:00Z", **x}) + "\n" for x in lines))
    return path


def cell(ds: Path) -> tuple[object, str, list]:
    """(value, trust) of the cell and the bundle's corrections log."""
    b = read_bundle(ds / "consensus" / "invoices" / DOC)
    f = {x["path"]: x for x in b.field_dicts()}[CELL]
    return f["readings"][0]["value"], f["trust"], (b.gt.provenance.parameters or {}).get("corrections", [])


def queue_ids(sub: Path) -> list[str]:
    return [json.loads(x)["id"] for x in (sub / "queue.jsonl").read_text().splitlines()]


@pytest.fixture()
def edited(built, tmp_path, capsys) -> Path:
    """The dataset after a person's edit of a queued cell at its top level."""
    ds = tmp_path / "ds"
    shutil.copytree(built, ds)
    assert ID in queue_ids(ds / "consensus" / "invoices")
    code, text = cli(["adjudicate", ds, "--decisions", write(tmp_path / "top.jsonl", {"id": ID, "action": "edit",
                                                                                      "value": "PERSON"})], capsys)
    assert code == 0, text
    assert cell(ds)[:2] == ("PERSON", "human")
    return ds


def vote(sub: Path, system: str) -> str:
    q = next(json.loads(x) for x in (sub / "queue.jsonl").read_text().splitlines() if json.loads(x)["id"] == ID)
    return next(v["value"] for v in q["votes"] if v["system"] == system)


def test_a_cell_decided_at_the_top_level_is_settled_in_the_consensus_queue(edited, tmp_path, capsys):
    from gtkit.review.state import Review

    sub = edited / "consensus" / "invoices"
    assert ID not in [it.id for it in Review(sub, "bo").items]            # not offered for review
    gt = (sub / DOC / "gt.json").read_bytes()
    dec = write(tmp_path / "sub.jsonl", {"id": ID, "action": "accept", "system": "google-a", "who": "bo"})
    code, text = cli(["adjudicate", sub, "--decisions", dec], capsys)
    assert code == 2 and len(text.strip().splitlines()) == 1, text
    assert text.startswith(f"gtkit: error: {dec}: line 1: {ID} ") and "supersedes" in text and "--force" in text
    assert (sub / DOC / "gt.json").read_bytes() == gt                      # nothing written
    code, text = cli(["adjudicate", sub, "--decisions",
                      write(tmp_path / "other.jsonl", {"id": f"{DOC}#{OTHER}", "action": "null", "who": "bo"})], capsys)
    assert code == 0 and "1 item(s) left in the queue" in text, text        # the settled item leaves the file too
    assert ID not in queue_ids(sub) and cell(edited)[:2] == ("PERSON", "human")
    assert cli(["check", edited], capsys)[0] == 0


def test_a_later_decision_names_the_value_it_replaces_or_is_forced(edited, tmp_path, capsys):
    sub = edited / "consensus" / "invoices"
    wanted = vote(sub, "google-a")
    wrong = write(tmp_path / "wrong.jsonl", {"id": ID, "action": "accept", "system": "google-a", "supersedes": "X"})
    code, text = cli(["adjudicate", sub, "--decisions", wrong, "--force"], capsys)
    assert code == 2 and text.startswith(f"gtkit: error: {wrong}: line 1: {ID}: ") and "'PERSON'" in text, text
    for name, extra, args in (("named", {"supersedes": "PERSON"}, []), ("forced", {}, ["--force"])):
        ds = tmp_path / name
        shutil.copytree(edited, ds)
        dec = write(tmp_path / f"{name}.jsonl", {"id": ID, "action": "accept", "system": "google-a", **extra})
        code, text = cli(["adjudicate", ds / "consensus" / "invoices", "--decisions", dec, *args], capsys)
        assert code == 0, text
        value, trust, log = cell(ds)
        assert (value, trust) == (wanted, "adjudicated")
        assert [(r["before"], r["after"]) for r in log] == [("Acme Holdings 0", "PERSON"), ("PERSON", wanted)]
        assert cli(["check", ds], capsys)[0] == 0


def test_a_second_correction_at_the_top_level_names_the_first(edited, tmp_path, capsys):
    again = write(tmp_path / "again.jsonl", {"id": ID, "action": "edit", "value": "OTHER"})
    code, text = cli(["adjudicate", edited, "--decisions", again], capsys)
    assert code == 2 and text.startswith(f"gtkit: error: {again}: line 1: {ID} "), text
    code, text = cli(["adjudicate", edited, "--decisions", write(again, {"id": ID, "action": "edit", "value": "OTHER",
                                                                          "supersedes": "PERSON"})], capsys)
    assert code == 0, text
    assert [r["after"] for r in cell(edited)[2]] == ["PERSON", "OTHER"] and cell(edited)[:2] == ("OTHER", "human")
    confirm = write(tmp_path / "confirm.jsonl", {"id": ID, "action": "accept"})   # a confirmation changes nothing
    assert cli(["adjudicate", edited, "--decisions", confirm], capsys)[0] == 0


def test_check_reports_a_corrections_log_that_disagrees_with_the_truth(edited, capsys):
    gt_path = edited / "consensus" / "invoices" / DOC / "gt.json"
    gt = json.loads(gt_path.read_bytes())
    gt["provenance"]["parameters"]["corrections"][0]["after"] = "STALE"
    gt_path.write_text(json.dumps(gt))
    code, text = cli(["check", edited], capsys)
    assert code == 1
    assert f"{gt_path}#/provenance/parameters/corrections/0/after: " in text and CELL in text and "'PERSON'" in text
