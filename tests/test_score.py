"""Every scoring rule of docs/scoring.md, one test per rule."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from helpers import INVOICE, INVOICE_SCHEMA, make_bundle, make_gt

from gtkit.format.bundle import Bundle
from gtkit.scoring.engine import missing_prediction, score_prediction
from gtkit.scoring.run import score_path

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": ["string", "null"]},
        "amount": {"type": ["number", "null"]},
        "rows": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "string"}, "city": {"type": ["string", "null"]}}}},
    },
}


def bundle(expected, schema=SCHEMA, **kw) -> Bundle:
    _, gt = make_gt(schema, expected, **kw)
    return Bundle(path=Path("."), gt=gt, schema=schema)


def value(b, pred, **kw):
    return score_prediction(b, pred, **kw).value


ROWS = [{"id": "1", "city": "Austin"}, {"id": "2", "city": "Boston"}]


# --- the outcome table -----------------------------------------------------------------

def test_matching_value_is_correct_in_p_and_r():
    v = value(bundle({"name": "Acme", "amount": 5, "rows": []}), {"name": "Acme", "amount": 5})
    assert (v.correct, v.n_pred, v.n_truth) == (2, 2, 2)


def test_wrong_value_misses_in_both():
    v = value(bundle({"name": "Acme", "amount": 5}), {"name": "Acme", "amount": 6})
    assert (v.correct, v.n_pred, v.n_truth) == (1, 2, 2)


def test_null_or_omitted_for_a_value_misses_in_both():
    b = bundle({"name": "Acme", "amount": 5})
    for pred in ({"name": "Acme", "amount": None}, {"name": "Acme"}):
        v = value(b, pred)
        assert (v.correct, v.n_pred, v.n_truth) == (1, 2, 2)


def test_null_matched_by_null_or_omission_is_credited():
    b = bundle({"name": None, "amount": 5})
    assert value(b, {"amount": 5}).correct == 2
    assert value(b, {"name": None, "amount": 5}).correct == 2


def test_value_for_a_null_is_a_hallucination_missing_in_both():
    v = value(bundle({"name": None, "amount": 5}), {"name": "Acme", "amount": 5})
    assert (v.correct, v.n_pred, v.n_truth) == (1, 2, 2)


def test_missing_records_miss_in_recall_only():
    v = value(bundle({"name": "A", "amount": 1, "rows": ROWS}), {"name": "A", "amount": 1, "rows": ROWS[:1]})
    assert (v.correct, v.n_pred, v.n_truth) == (4, 4, 6)
    assert v.precision == 1.0


def test_extra_and_duplicated_records_miss_in_precision_only():
    v = value(bundle({"name": "A", "amount": 1, "rows": ROWS}),
              {"name": "A", "amount": 1, "rows": [*ROWS, ROWS[0], {"id": "9", "city": "Nowhere"}]})
    assert (v.correct, v.n_pred, v.n_truth) == (6, 10, 6)
    assert v.recall == 1.0


def test_null_versus_empty_list_gives_no_cells():
    for truth, pred in ((None, []), ([], None), (None, None), ([], [])):
        v = value(bundle({"name": "A", "amount": 1, "rows": truth}), {"name": "A", "amount": 1, "rows": pred})
        assert (v.correct, v.n_pred, v.n_truth) == (2, 2, 2)


def test_record_order_does_not_matter_and_pairs_are_optimal():
    rows = [{"id": str(i), "city": c} for i, c in enumerate(["Austin", "Austin", "Boston", "Denver"])]
    pred = copy.deepcopy(rows)[::-1]
    pred[0]["city"] = "Dallas"  # one wrong cell
    v = value(bundle({"name": "A", "amount": 1, "rows": rows}), {"name": "A", "amount": 1, "rows": pred})
    assert (v.correct, v.n_pred, v.n_truth) == (9, 10, 10)


def test_nested_arrays_recurse_per_matched_pair():
    schema = {"type": "object", "properties": {"orders": {"type": "array", "items": {"type": "object", "properties": {
        "no": {"type": "string"},
        "items": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}}}}}}}}}
    truth = {"orders": [{"no": "1", "items": [{"sku": "a"}, {"sku": "b"}]}, {"no": "2", "items": [{"sku": "c"}]}]}
    pred = {"orders": [{"no": "2", "items": [{"sku": "c"}, {"sku": "x"}]}, {"no": "1", "items": [{"sku": "b"}]}]}
    v = value(bundle(truth, schema), pred)
    # orders: no x2 correct; order 1 items: b correct, a missing; order 2 items: c correct, x extra
    assert (v.correct, v.n_pred, v.n_truth) == (4, 5, 5)


def test_lists_of_scalars_compare_as_one_ordered_value():
    b = bundle(INVOICE, INVOICE_SCHEMA)
    swapped = dict(INVOICE, notes=list(reversed(INVOICE["notes"])))
    assert value(b, INVOICE).correct - value(b, swapped).correct == 1


def test_dates_are_canonicalized_before_comparison():
    b = bundle(INVOICE, INVOICE_SCHEMA)
    assert value(b, dict(INVOICE, date="March 28, 2019")).f1 == 1.0


def test_or_acceptance_over_alternate_readings():
    b = bundle({"name": "Acme Inc", "amount": 1}, alternates={"/name": ["ACME INCORPORATED"]})
    assert value(b, {"name": "ACME INCORPORATED", "amount": 1}).f1 == 1.0
    assert value(b, {"name": "Acme", "amount": 1}).f1 == 0.5


def test_declared_leniency_applies_only_to_its_field():
    b = bundle({"name": "ACME", "amount": 1, "rows": [{"id": "X1", "city": "AUSTIN"}]},
               leniencies={"/name": ["case_insensitive"]})
    v = value(b, {"name": "acme", "amount": 1, "rows": [{"id": "X1", "city": "austin"}]})
    assert (v.correct, v.n_truth) == (3, 4)


def test_x_leniency_in_the_schema_is_a_default():
    schema = copy.deepcopy(SCHEMA)
    schema["properties"]["name"]["x-leniency"] = ["case_insensitive"]
    assert value(bundle({"name": "ACME", "amount": 1}, schema), {"name": "acme", "amount": 1}).f1 == 1.0


def test_pending_cells_are_left_out():
    b = bundle({"name": "Acme", "amount": 5}, pending={"/amount"})
    v = value(b, {"name": "Acme", "amount": 999})
    assert (v.correct, v.n_pred, v.n_truth) == (1, 1, 1)


def test_a_document_with_no_prediction_scores_zero(tmp_path):
    b = make_bundle(tmp_path / "gt", SCHEMA, {"name": None, "amount": None})
    (tmp_path / "pred").mkdir()
    doc = score_path(b, tmp_path / "pred").documents[0]
    assert doc.prediction == "missing" and doc.value.f1 == 0.0
    assert missing_prediction(bundle({"name": "A", "amount": 1})).value.f1 == 0.0


# --- grounding -------------------------------------------------------------------------

def cites_for(b: Bundle, shift: float = 0.0, page_only: bool = False):
    out = {}
    for f in b.gt.fields:
        for ev in f.readings[0].evidence:
            box = None if page_only else [ev.box[0] + shift, ev.box[1], ev.box[2] + shift, ev.box[3]]
            out[f.path] = [{"page": ev.page, "box": box}]
    return out


def test_grounding_word_and_page_levels():
    b = bundle({"name": "Acme", "amount": 5, "rows": ROWS})
    s = score_prediction(b, b.gt.expected, cites_for(b))
    assert s.word.f1 == s.page.f1 == 1.0
    s = score_prediction(b, b.gt.expected, cites_for(b, shift=0.3))
    assert s.page.f1 == 1.0 and s.word.f1 == 0.0
    s = score_prediction(b, b.gt.expected, cites_for(b, page_only=True))
    assert s.page.f1 == 1.0 and s.word.f1 == 0.0


def test_grounding_needs_the_value_right():
    b = bundle({"name": "Acme", "amount": 5})
    s = score_prediction(b, {"name": "Wrong", "amount": 5}, cites_for(b))
    assert (s.word.correct, s.word.n_pred, s.word.n_truth) == (1, 2, 2)


def test_grounding_denominators():
    # truth: name and amount carry boxes, the null city of row 2 none
    truth = {"name": "Acme", "amount": 5, "rows": [{"id": "1", "city": None}]}
    b = bundle(truth)
    pred = {"name": "Acme", "amount": 5, "rows": [{"id": "1", "city": None}, {"id": "7", "city": "Extra"}]}
    cites = cites_for(b)
    del cites["/amount"]  # a box-bearing cell predicted without citation: in recall only
    cites["/rows/0/city"] = [{"page": 1, "box": [0.1, 0.1, 0.2, 0.2]}]  # truth has no box: left out
    cites["/rows/1/id"] = [{"page": 1, "box": [0.1, 0.1, 0.2, 0.2]}]  # extra record: left out
    s = score_prediction(b, pred, cites)
    assert (s.word.correct, s.word.n_pred, s.word.n_truth) == (2, 2, 3)


def test_a_page_only_citation_claims_a_page_not_a_box():
    b = bundle({"name": "Acme", "amount": 5})
    cites = cites_for(b)
    cites["/amount"] = [{"page": cites["/amount"][0]["page"]}]
    s = score_prediction(b, b.gt.expected, cites)
    assert (s.page.correct, s.page.n_pred, s.page.n_truth) == (2, 2, 2)
    assert (s.word.correct, s.word.n_pred, s.word.n_truth) == (1, 1, 2)  # out of word precision's denominator


def test_no_boxes_means_no_grounding_score_and_no_citations_scores_zero():
    assert score_prediction(bundle({"name": "A", "amount": 1}, boxes=False), {"name": "A"}).word is None
    s = score_prediction(bundle({"name": "A", "amount": 1}), {"name": "A", "amount": 1})
    assert s.word.f1 == 0.0 and s.page.f1 == 0.0


def test_grounded_counts_nest_even_when_f1_does_not():
    rows = [{"id": str(i), "city": "C"} for i in range(20)]
    b = bundle({"name": "A", "amount": 1, "rows": rows})
    pred = {"name": "A", "amount": 1, "rows": rows + [{"id": f"x{i}", "city": "Q"} for i in range(5)]}
    s = score_prediction(b, pred, cites_for(b))
    assert s.word.correct <= s.page.correct <= s.value.correct
    assert s.word.f1 > s.value.f1  # extra records that cite nothing lower value precision only


def test_score_cli_json_has_one_entry_per_document(tmp_path):
    from typer.testing import CliRunner

    from gtkit.cli import app

    for doc in ("a", "b"):
        make_bundle(tmp_path / "ds" / doc, INVOICE_SCHEMA, INVOICE, doc_id=doc)
    (tmp_path / "ds" / "dataset.jsonl").write_text('{"doc_id":"a","path":"a"}\n{"doc_id":"b","path":"b"}\n')
    (tmp_path / "pred").mkdir()
    (tmp_path / "pred" / "a.json").write_text(json.dumps(INVOICE))
    result = CliRunner().invoke(app, ["score", "--gt", str(tmp_path / "ds"), "--pred", str(tmp_path / "pred"),
                                      "--by", "task", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert [d["doc_id"] for d in out["documents"]] == ["a", "b"]
    assert out["documents"][0]["value"]["f1"] == 1.0 and out["documents"][1]["prediction"] == "missing"
    assert out["overall"]["value_f1"] == pytest.approx(0.5)
    assert out["slices"]["T1"]["docs"] == 2


def test_records_the_schema_does_not_describe_still_pair_by_their_keys():
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {"type": "object"}}}}
    rows = [{"id": "1", "city": "Austin"}, {"id": "2", "city": "Boston"}, {"id": "3"}]
    b = bundle({"rows": rows}, schema)
    assert value(b, {"rows": rows}).f1 == 1.0
    v = value(b, {"rows": [{"id": "3"}, {"id": "2", "city": "Boston"}, {"id": "1", "city": "Dallas"}]})
    assert (v.correct, v.n_pred, v.n_truth) == (5, 6, 6)
