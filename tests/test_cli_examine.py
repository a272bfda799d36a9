"""End-to-end CLI tests of check, show and score on small real bundles, including bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import INVOICE, INVOICE_SCHEMA, make_bundle, pool_workers_alive

from gtkit.cli import main


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
    assert code == 0 and "(all)" in out and "D3" in out and "domain" in out and "100.0" in out


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
        (lambda c: _edit_gt(c, lambda g: g.update(format="gtkit.gt/9")), "unknown format version"),
        (lambda c: (c / "ds" / "inv" / "schema.json").write_text('{"type": 12}'), "not a valid JSON Schema"),
        (lambda c: (c / "ds" / "inv" / "document.pdf").write_bytes(b"%PDF-1.7 tampered"), "hash mismatch"),
        (lambda c: (c / "ds" / "inv" / "gt.json").unlink(), "gt.json is missing"),
        (lambda c: (c / "ds" / "dataset.jsonl").write_text('{"doc_id": "inv", "path": "../../etc"}\n'),
         "escapes the dataset folder"),
        (lambda c: (c / "ds" / "dataset.jsonl").write_text('{"doc_id": "../inv", "path": "inv"}\n'),
         "dataset.jsonl: line 1"),
    ],
)
def test_score_bad_input_is_one_line_and_exit_2(case, capsys, breakage, needle):
    breakage(case)
    code, out, err = run(["score", "--gt", str(case / "ds"), "--pred", str(case / "pred")], capsys)
    assert_one_line_error(code, err, needle)
    assert out == ""


def test_debug_shows_the_traceback(case, capsys):
    (case / "ds" / "inv" / "schema.json").write_text('{"type": 12}')
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
    monkeypatch.setattr(bundle_module, "decode_ground_truth", lambda raw: None)  # the careful path, with its worker
    (case / "ds" / "dataset.jsonl").write_text('{"doc_id": "other", "path": "inv"}\n')  # fails after the truth is read
    code, _, err = run(["score", "--gt", str(case / "ds"), "--pred", str(case / "pred"), "--workers", "2"], capsys)
    assert_one_line_error(code, err, "dataset.jsonl says doc_id 'other'")
    assert pool_workers_alive() == []  # no worker left behind


@pytest.mark.parametrize("breakage, reason, detail", [
    (lambda c: (c / "pred" / "inv.json").write_text("{oops"), "not JSON", "inv.json"),
    (lambda c: (c / "pred" / "inv.json").write_text("[1, 2]"), "not an object", "a list, not an object"),
    (lambda c: (c / "pred" / "inv.citations.json").write_text('{"/date": [{"page": 0}]}'), "citations invalid",
     "inv.citations.json: /~1date/0/page: Input should be greater than or equal to 1"),
    (lambda c: (c / "pred" / "inv.json").unlink(), "missing", "no such file"),
])
def test_an_unusable_prediction_scores_zero_and_the_run_goes_on(case, capsys, breakage, reason, detail):
    make_bundle(case / "ds" / "inv2", INVOICE_SCHEMA, INVOICE, doc_id="inv2")
    (case / "ds" / "dataset.jsonl").write_text('{"doc_id": "inv", "path": "inv"}\n{"doc_id": "inv2", "path": "inv2"}\n')
    (case / "pred" / "inv2.json").write_text(json.dumps(INVOICE))
    (case / "pred" / "stray.json").write_text("{}")
    breakage(case)
    code, out, _ = run(["score", "--gt", str(case / "ds"), "--pred", str(case / "pred"), "--json"], capsys)
    assert code == 0
    report = json.loads(out)
    docs = {d["doc_id"]: d for d in report["documents"]}
    assert docs["inv"]["prediction"] == reason and detail in docs["inv"]["detail"]
    assert docs["inv"]["value"]["f1"] == 0.0 and docs["inv2"]["value"]["f1"] == 1.0
    assert report["unusable_predictions"] == {"inv": reason} and report["unknown_predictions"] == ["stray.json"]
    code, out, _ = run(["score", "--gt", str(case / "ds"), "--pred", str(case / "pred")], capsys)
    assert code == 0 and f"inv ({reason})" in out and "stray.json" in out


def test_citations_that_ground_nothing_are_claims_and_counted(case, capsys):
    cites = {"/invoice_number": [{"page": 9, "box": [0.1, 0.1, 0.2, 0.2]}],
             "/date": [{"page": 1, "box": [0.5, 0.1, 0.4, 0.2]}],
             "/total": [{"page": 1, "box": [0.9, 0.1, 1.3, 0.2]}]}
    (case / "pred" / "inv.citations.json").write_text(json.dumps(cites))
    code, out, _ = run(["score", "--gt", str(case / "ds"), "--pred", str(case / "pred"), "--json"], capsys)
    doc = json.loads(out)["documents"][0]
    assert code == 0 and doc["bad_citations"] == 3 and doc["value"]["f1"] == 1.0
    assert doc["word"]["n_pred"] == 3 and doc["word"]["correct"] == 0  # claims, grounding nothing
    assert doc["page"]["n_pred"] == 3 and doc["page"]["correct"] == 2  # page 9 matches no evidence page


def test_nan_in_a_prediction_is_a_wrong_value(case, capsys):
    (case / "pred" / "inv.json").write_text(json.dumps({**INVOICE, "total": float("nan")}))
    code, out, _ = run(["score", "--gt", str(case / "ds"), "--pred", str(case / "pred"), "--json"], capsys)
    doc = json.loads(out)["documents"][0]
    assert code == 0 and doc["value"]["correct"] == doc["value"]["n_truth"] - 1


def test_check_reports_every_invalid_field_entry(case, capsys):
    def break_two(g):
        g["fields"][0]["readings"][0]["evidence"][0]["box"] = [0.5, 0.5, 0.4, 0.6]
        g["fields"][5]["trust"] = "guessed"

    _edit_gt(case, break_two)
    code, out, _ = run(["check", str(case / "ds")], capsys)
    assert code == 1
    assert "#/fields/0/readings/0/evidence/0/box:" in out
    assert "#/fields/5/trust:" in out


def test_check_on_a_gt_json_file_names_the_folder_to_give(case, capsys):
    code, out, err = run(["check", str(case / "ds" / "inv" / "gt.json")], capsys)
    assert code == 1 and "is a file: give the bundle or dataset folder" in out + err


def test_debug_is_accepted_after_the_verb(case, capsys):
    with pytest.raises(Exception) as exc:  # --debug lets the error through with its traceback
        main(["check", str(case / "missing"), "--debug"])
    assert "not found" in str(exc.value)
    code, _, err = run(["check", str(case / "missing")], capsys)
    assert_one_line_error(code, err, "not found")


@pytest.mark.parametrize("damage, needle", [
    ("encrypted", "encrypted"), ("truncated", "damaged"), ("garbage", "not a readable PDF"),
])
def test_check_and_show_on_an_unusable_pdf_are_one_line(tmp_path, capsys, damage, needle):
    import pymupdf
    from helpers import make_gt

    from gtkit.files.read import sha256_bytes
    from gtkit.format.writer import write_bundle

    pdf, gt = make_gt(INVOICE_SCHEMA, INVOICE)
    bad = {"encrypted": pymupdf.open(stream=pdf, filetype="pdf").tobytes(
               encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="u"),
           "truncated": pdf[: len(pdf) // 2], "garbage": b"%PDF-1.4\nhello"}[damage]
    gt = gt.model_copy(update={"document": gt.document.model_copy(update={"sha256": sha256_bytes(bad)})})
    write_bundle(tmp_path / "b", pdf=bad, schema=INVOICE_SCHEMA, gt=gt)
    code, out, err = run(["check", str(tmp_path / "b")], capsys)
    assert code == 1 and needle in out and "Traceback" not in out + err and "MuPDF" not in out + err
    code, _, err = run(["show", str(tmp_path / "b"), "--out", str(tmp_path / "p.png")], capsys)
    assert_one_line_error(code, err, needle)
    assert not (tmp_path / "p.png").exists()
