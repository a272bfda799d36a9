"""End-to-end CLI tests of check, show and score on small real bundles, including bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gtkit.cli import main
from helpers import INVOICE, INVOICE_SCHEMA, make_bundle, pool_workers_alive


def run(argv, capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return exc.value.code or 0, out, err


@pytest.fixture
def case(tmp_path):
    make_bundle(tmp_path / "ds" / "inv", INVOICE_SCHEMA, INVOICE, doc_id="inv")
    (tmp_path / "ds" / "dataset.jsonl").write_text('{"doc_id": "inv", "path": "inv"}\n')
    (tmp_path / "pred").mkdir()
    (tmp_path / "pred" / "inv.json").write_text(json.dumps(INVOICE))
    return tmp_path


def assert_one_line_error(code, err, *needles):
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_check_passes_a_good_dataset(case, capsys):
    code, out, _ = run(["check", str(case / "ds")], capsys)
    assert code == 0 and "1 bundle(s) checked, no problems" in out


def test_check_reports_each_problem_with_file_and_pointer(case, capsys):
    gt_path = case / "ds" / "inv" / "gt.json"
    gt = json.loads(gt_path.read_text())
    gt["fields"][0]["readings"][0]["evidence"][0]["page"] = 7
    gt["fields"].pop()  # a leaf without an entry
    gt["fields"].append(dict(gt["fields"][1]))  # a duplicate entry
    gt["expected"]["total"] = "a string"  # breaks the schema and the first-reading rule
    gt_path.write_text(json.dumps(gt))
    code, out, _ = run(["check", str(case / "ds")], capsys)
    assert code == 1
    assert f"{gt_path}#/fields/0/readings/0/evidence/0/page: page 7 of a 1-page document" in out
    assert "/expected/lines/2/qty: leaf has no field entry" in out
    assert "has 2 field entries" in out
    assert "/expected/total: expected does not satisfy the schema" in out


def test_check_rejects_boxes_outside_the_page(case, capsys):
    gt_path = case / "ds" / "inv" / "gt.json"
    gt = json.loads(gt_path.read_text())
    gt["fields"][0]["readings"][0]["evidence"][0]["box"] = [0.5, 0.5, 0.4, 1.2]
    gt_path.write_text(json.dumps(gt))
    code, out, _ = run(["check", str(case / "ds" / "inv")], capsys)
    assert code == 1 and "/fields/0/readings/0/evidence/0/box" in out


def test_score_prints_a_table(case, capsys):
    code, out, _ = run(["score", "--gt", str(case / "ds"), "--pred", str(case / "pred"), "--by", "domain"], capsys)
    assert code == 0 and "overall" in out and "domain=D3" in out and "100.0" in out


def test_show_draws_a_png(case, capsys):
    out_png = case / "page.png"
    code, _, _ = run(["show", str(case / "ds" / "inv"), "--page", "1", "--out", str(out_png)], capsys)
    assert code == 0 and out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = run(["show", str(case / "ds" / "inv"), "--out", str(out_png)], capsys)
    assert_one_line_error(code, err, "already exists")
    code, _, err = run(["show", str(case / "ds" / "inv"), "--page", "9", "--out", str(case / "x.png")], capsys)
    assert_one_line_error(code, err, "page 9 is out of range")
    assert not (case / "x.png").exists()


@pytest.mark.parametrize(
    "breakage, needle",
    [
        (lambda c: (c / "pred" / "inv.json").write_text("{oops"), "inv.json: malformed JSON"),
        (lambda c: (c / "pred" / "inv.json").write_text("[1, 2]"), "a prediction must be a JSON object"),
        (lambda c: (c / "pred" / "inv.citations.json").write_text('{"/date": [{"page": 0}]}'), "page must be an integer >= 1"),
        (lambda c: _edit_gt(c, lambda g: g.update(format="gtkit.gt/2")), "unknown format version"),
        (lambda c: (c / "ds" / "inv" / "schema.json").write_text('{"type": 12}'), "not a valid JSON Schema"),
        (lambda c: (c / "ds" / "inv" / "document.pdf").write_bytes(b"%PDF-1.7 tampered"), "hash mismatch"),
        (lambda c: (c / "ds" / "inv" / "gt.json").unlink(), "gt.json is missing"),
        (lambda c: (c / "ds" / "dataset.jsonl").write_text('{"doc_id": "inv", "path": "../../etc"}\n'), "escapes the dataset folder"),
        (lambda c: (c / "ds" / "dataset.jsonl").write_text('{"doc_id": "../inv", "path": "inv"}\n'), "dataset.jsonl: line 1"),
    ],
)
def test_score_bad_input_is_one_line_and_exit_2(case, capsys, breakage, needle):
    breakage(case)
    code, out, err = run(["score", "--gt", str(case / "ds"), "--pred", str(case / "pred")], capsys)
    assert_one_line_error(code, err, needle)
    assert out == ""


def test_debug_shows_the_traceback(case, capsys):
    (case / "pred" / "inv.json").write_text("{oops")
    from gtkit.errors import GtkitError

    with pytest.raises(GtkitError):
        main(["--debug", "score", "--gt", str(case / "ds"), "--pred", str(case / "pred")])


def _edit_gt(case: Path, change) -> None:
    path = case / "ds" / "inv" / "gt.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("workers", ["1", "2"])
def test_invalid_field_entry_is_caught_inline_and_in_a_worker(case, capsys, monkeypatch, workers):
    import gtkit.format.bundle as bundle_module

    monkeypatch.setattr(bundle_module, "PARALLEL_CHECK_MIN", 1)  # with 2 workers, a worker validates the entries
    _edit_gt(case, lambda g: g["fields"][3]["readings"][0].update(evidence=[{"page": 1, "box": [0.2, 0.2, 0.1, 0.3]}]))
    code, out, err = run(["score", "--gt", str(case / "ds"), "--pred", str(case / "pred"), "--workers", workers],
                         capsys)
    gt_file = case / "ds" / "inv" / "gt.json"
    assert_one_line_error(code, err, f"{gt_file}: invalid gt.json: /fields/3/readings/0/evidence/0/box")
    assert out == ""


def test_field_check_worker_is_stopped_when_the_run_fails_first(case, capsys, monkeypatch):
    import gtkit.format.bundle as bundle_module

    monkeypatch.setattr(bundle_module, "PARALLEL_CHECK_MIN", 1)
    (case / "pred" / "inv.json").write_text("{oops")
    code, _, err = run(["score", "--gt", str(case / "ds"), "--pred", str(case / "pred"), "--workers", "2"], capsys)
    assert_one_line_error(code, err, "malformed JSON")
    assert pool_workers_alive() == []  # no worker left behind


def test_check_reports_every_invalid_field_entry(case, capsys):
    def break_two(g):
        g["fields"][0]["readings"][0]["evidence"][0]["box"] = [0.5, 0.5, 0.4, 0.6]
        g["fields"][5]["trust"] = "guessed"

    _edit_gt(case, break_two)
    code, out, _ = run(["check", str(case / "ds")], capsys)
    assert code == 1
    assert "#/fields/0/readings/0/evidence/0/box:" in out
    assert "#/fields/5/trust:" in out
