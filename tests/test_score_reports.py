"""Scoring reports: --explain (one line per cell), --pairs (clean vs degraded), sub-tag and crossed slices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli as run

from gtkit.degrade.pipeline import degrade
from gtkit.format.bundle import read_bundle
from gtkit.synth.pipeline import synth


@pytest.fixture(scope="module")
def case(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("reports")
    ds = root / "ds"
    synth("creditor_matrix", out=ds / "clean", seed=5, records=25)
    degrade(ds / "clean", ds / "fax", recipe="fax", seed=1)
    lines = []
    pred = root / "pred"
    pred.mkdir()
    for name in ("clean", "fax"):
        b = read_bundle(ds / name)
        lines.append(json.dumps({"doc_id": b.doc_id, "path": name}))
        expected = json.loads(json.dumps(b.gt.expected))
        if name == "fax":  # the system misreads one name on the scan
            expected["creditors"][3]["name"] = "WRONG NAME"
        cites = {f.path: [{"page": e.page, "box": list(e.box)} for e in f.readings[0].evidence[:1]]
                 for f in b.gt.fields if f.readings[0].evidence}
        (pred / f"{b.doc_id}.json").write_text(json.dumps(expected))
        (pred / f"{b.doc_id}.citations.json").write_text(json.dumps(cites))
    (ds / "dataset.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_explain_says_why_each_cell_scored(case, capsys):  # type: ignore[no-untyped-def]
    out = case / "why.jsonl"
    code, stdout, _ = run(["score", "--gt", case / "ds", "--pred", case / "pred", "--explain", out, "--json"], capsys)
    assert code == 0
    report = json.loads(stdout)
    cells = [json.loads(line) for line in out.read_text().splitlines()]
    for d in report["documents"]:
        mine = [c for c in cells if c["doc"] == d["doc_id"]]
        assert len(mine) == d["value"]["n_truth"]
        assert sum(c["outcome"] == "correct" for c in mine) == d["value"]["correct"]
        assert sum(bool(c["grounding"] and c["grounding"]["word"]) for c in mine) == d["word"]["correct"]
    wrong = [c for c in cells if c["outcome"] == "wrong"]
    assert len(wrong) == 1 and wrong[0]["predicted"] == "WRONG NAME" and wrong[0]["truth"] == "/creditors/3/name"
    right = next(c for c in cells if c["outcome"] == "correct" and c["grounding"])
    assert right["matched"] == "exact" and right["grounding"]["iou"] == 1.0 and right["grounding"]["page"]
    # an existing file is refused without --force, and --force replaces only an explain file
    assert run(["score", "--gt", case / "ds", "--pred", case / "pred", "--explain", out], capsys)[0] == 2
    assert run(["score", "--gt", case / "ds", "--pred", case / "pred", "--explain", out, "--force"], capsys)[0] == 0
    other = case / "other.jsonl"
    other.write_text('{"mine": 1}\n')
    assert run(["score", "--gt", case / "ds", "--pred", case / "pred", "--explain", other, "--force"], capsys)[0] == 2
    assert other.read_text() == '{"mine": 1}\n'


def test_pairs_report_clean_against_degraded(case, capsys):  # type: ignore[no-untyped-def]
    code, stdout, _ = run(["score", "--gt", case / "ds", "--pred", case / "pred", "--pairs", "--json"], capsys)
    pairs = json.loads(stdout)["pairs"]
    assert code == 0 and set(pairs["groups"]) == {"(all)", "fax"} and pairs["without_parent"] == []
    fax = pairs["groups"]["fax"]
    assert fax["pairs"] == 1 and fax["value_f1_clean"] == 1.0 and fax["value_f1_degraded"] < 1.0
    assert fax["value_f1_delta"] == pytest.approx(fax["value_f1_degraded"] - 1.0)
    code, stdout, _ = run(["score", "--gt", case / "ds", "--pred", case / "pred", "--pairs"], capsys)
    assert code == 0 and "clean vs degraded" in stdout and "fax" in stdout


def test_sub_tag_grounding_and_crossed_slices(case, capsys):  # type: ignore[no-untyped-def]
    code, stdout, _ = run(["score", "--gt", case / "ds", "--pred", case / "pred", "--by", "task.sub,perception",
                           "--json"], capsys)
    slices = json.loads(stdout)["slices"]
    assert code == 0 and "T1.c x P1" in slices and "T1.e x P1" in slices and slices["T1.c x P1"]["docs"] == 1
    assert any(k.endswith(" x (none)") for k in slices)  # the clean document carries no perception tag
    code, _, err = run(["score", "--gt", case / "ds", "--pred", case / "pred", "--by", "colour"], capsys)
    assert code == 2 and "--by takes one axis or two" in err


def test_the_table_is_a_dataframe(case):  # type: ignore[no-untyped-def]
    from gtkit.scoring.run import score_path

    frame = score_path(case / "ds", case / "pred", by="length").table()
    assert list(frame.columns) == ["length", "docs", "value_precision", "value_recall", "value_f1", "page_f1",
                                   "word_f1"]
    assert frame.iloc[0]["length"] == "(all)" and frame.iloc[0]["docs"] == 2


def test_the_readme_command_with_sub_tags_crossed_prints_and_writes(case, tmp_path, capsys):  # type: ignore[no-untyped-def]
    why, html = tmp_path / "why.jsonl", tmp_path / "report"
    code, stdout, err = run(["score", "--gt", case / "ds", "--pred", case / "pred", "--pairs",
                             "--by", "task.sub,length", "--explain", why, "--html", html], capsys)
    assert code == 0, err
    assert "task.sub" in stdout and "T1.c" in stdout and "clean vs degraded" in stdout
    assert why.read_text().count("\n") > 0 and (html / "index.html").is_file()


def test_a_run_that_fails_on_its_table_writes_nothing(case, tmp_path, capsys, monkeypatch):  # type: ignore[no-untyped-def]
    from gtkit.errors import GtkitError
    from gtkit.scoring.report import ScoreReport

    def broken(self):  # type: ignore[no-untyped-def]
        raise GtkitError("the table cannot be made")

    monkeypatch.setattr(ScoreReport, "table", broken)
    why = tmp_path / "why.jsonl"
    code, _, err = run(["score", "--gt", case / "ds", "--pred", case / "pred", "--by", "length", "--explain", why],
                       capsys)
    assert code == 2 and "the table cannot be made" in err
    assert list(tmp_path.iterdir()) == []


def test_by_refuses_an_axis_named_twice(case, capsys):  # type: ignore[no-untyped-def]
    code, _, err = run(["score", "--gt", case / "ds", "--pred", case / "pred", "--by", "length,length"], capsys)
    assert code == 2 and err.strip() == "gtkit: error: --by names 'length' twice: give two different axes", err
