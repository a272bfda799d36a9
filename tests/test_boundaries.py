"""Boundary cases written by hand, one per mutant that survived the suite (issue 29): each runs without the
ExtractBench venv and fails when its rule is moved by one step.

- the two-digit-year pivot (docs/scoring.md: 69-99 are 1900s, 00-68 are 2000s);
- every terminal punctuation mark `optional_terminal_punctuation` strips (`.`, `,`, `;`, `:`);
- word grounding at IoU >= 0.5 (exactly 0.5 grounds, just under does not), in the score and in `--explain`;
- an alignment over the memory budget flagged end to end (`gtkit score --memory-budget-mb`);
- the synth read-back's clipping check in both directions (a word sticking out of the top or the bottom of
  its cell, or of the page margins).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import make_bundle, make_gt, run_cli

from gtkit.format.bundle import Bundle
from gtkit.scoring.engine import score_prediction
from gtkit.scoring.explain import grounding
from gtkit.scoring.normalize import accepts, value_key

# --- two-digit years -------------------------------------------------------------------


@pytest.mark.parametrize(("yy", "year"), [(68, 2068), (69, 1969), (70, 1970), (75, 1975), (99, 1999), (0, 2000)])
def test_two_digit_year_pivot_is_69(yy, year):
    for text in (f"3/28/{yy:02d}", f"3-28-{yy:02d}"):
        assert value_key(text) == ("s", f"{year}-03-28"), text
    assert accepts([f"{year}-03-28"], f"3/28/{yy:02d}")


SCORING_MD = Path(__file__).parents[1] / "docs" / "scoring.md"


@pytest.mark.skipif(not SCORING_MD.is_file(), reason="docs/ is not beside the tests (testing an installed wheel)")
def test_the_pivot_is_where_the_docs_put_it():
    doc = SCORING_MD.read_text()
    assert "1969\N{EN DASH}1999 for 69\N{EN DASH}99 and 2000\N{EN DASH}2068 for 00\N{EN DASH}68" in doc


# --- optional terminal punctuation ---------------------------------------------------------

LENIENT = ["optional_terminal_punctuation"]


@pytest.mark.parametrize("mark", [".", ",", ";", ":"])
def test_each_terminal_punctuation_mark_is_optional(mark):
    for predicted in (f"Acme{mark}", f"Acme {mark}", f"Acme{mark} "):
        assert accepts(["Acme"], predicted, LENIENT), predicted
        assert accepts([predicted], "Acme", LENIENT), predicted  # either side may carry it
        assert not accepts(["Acme"], predicted), predicted  # only under the leniency


@pytest.mark.parametrize("mark", ["!", "?", "-", ")"])
def test_other_marks_are_not_terminal_punctuation(mark):
    assert not accepts(["Acme"], f"Acme{mark}", LENIENT)


def test_only_one_mark_is_stripped_and_punctuation_alone_matches_nothing():
    assert not accepts(["Acme"], "Acme;;", LENIENT)
    assert not accepts(["."], ";", LENIENT)


# --- word grounding at IoU 0.5 ---------------------------------------------------------------

SCHEMA = {"type": "object", "properties": {"name": {"type": ["string", "null"]}}}
TRUTH_BOX = (0.25, 0.25, 0.75, 0.75)  # area 0.25, every number exact in binary
HALF = [0.25, 0.25, 0.75, 0.5]  # the top half: intersection 0.125, union 0.25, IoU exactly 0.5
UNDER = [0.25, 0.25, 0.75, 0.4999]


def _boxed_bundle() -> Bundle:
    _, gt = make_gt(SCHEMA, {"name": "Acme"})
    ev = gt.fields[0].readings[0].evidence[0]
    gt.fields[0].readings[0].evidence[0] = ev.model_copy(update={"box": TRUTH_BOX, "words": None})
    return Bundle(path=Path("."), gt=gt, schema=SCHEMA)


def test_the_boxes_are_at_the_boundary():
    from gtkit.geometry import iou

    assert iou(HALF, TRUTH_BOX) == 0.5
    assert 0.49 < iou(UNDER, TRUTH_BOX) < 0.5


def test_a_citation_at_iou_exactly_half_is_word_grounded_and_just_under_is_not():
    b = _boxed_bundle()
    at = score_prediction(b, {"name": "Acme"}, {"/name": [{"page": 1, "box": HALF}]})
    assert (at.word.correct, at.word.n_pred, at.word.n_truth) == (1, 1, 1)
    under = score_prediction(b, {"name": "Acme"}, {"/name": [{"page": 1, "box": UNDER}]})
    assert (under.word.correct, under.word.n_pred, under.word.n_truth) == (0, 1, 1)
    assert at.page.correct == under.page.correct == 1  # the page is right either way


def test_explain_says_the_same_at_the_boundary():
    boxes = [(1, TRUTH_BOX)]
    at = grounding(boxes, frozenset({1}), [{"page": 1, "box": HALF}], True)
    assert at["iou"] == 0.5 and at["word"] is True
    under = grounding(boxes, frozenset({1}), [{"page": 1, "box": UNDER}], True)
    assert under["iou"] < 0.5 and under["word"] is False


def test_explain_file_through_the_cli_at_the_boundary(tmp_path, capsys):
    pdf, gt = make_gt(SCHEMA, {"name": "Acme"}, doc_id="d")
    ev = gt.fields[0].readings[0].evidence[0]
    gt.fields[0].readings[0].evidence[0] = ev.model_copy(update={"box": TRUTH_BOX, "words": None})
    from gtkit.format.writer import write_bundle

    write_bundle(tmp_path / "gt", pdf=pdf, schema=SCHEMA, gt=gt)
    for name, box, word in (("at", HALF, True), ("under", UNDER, False)):
        pred = tmp_path / name
        pred.mkdir()
        (pred / "d.json").write_text(json.dumps({"name": "Acme"}))
        (pred / "d.citations.json").write_text(json.dumps({"/name": [{"page": 1, "box": box}]}))
        code, out, err = run_cli(["score", "--gt", tmp_path / "gt", "--pred", pred, "--json", "--workers", "1",
                                  "--explain", tmp_path / f"{name}.jsonl"], capsys)
        assert code == 0, err
        doc = json.loads(out)["documents"][0]
        assert doc["word"]["correct"] == int(word), name
        [cell] = [json.loads(x) for x in (tmp_path / f"{name}.jsonl").read_text().splitlines()]
        assert cell["truth"] == "/name" and cell["outcome"] == "correct"
        assert cell["grounding"]["word"] is word and (cell["grounding"]["iou"] == 0.5) is word, cell


# --- an alignment over the memory budget, end to end -----------------------------------------

ROWS_SCHEMA = {"type": "object", "properties": {"rows": {"type": "array", "items": {"type": "object", "properties": {
    "id": {"type": "string"}, "city": {"type": ["string", "null"]}}}}}}
N_ROWS = 1000  # one block of 1000 x 1000 pairs: over the 16 MiB the option allows at least (838,860 pairs)


@pytest.fixture(scope="module")
def big_block(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("approx")
    truth = {"rows": [{"id": f"t{i}", "city": "Same"} for i in range(N_ROWS)]}
    make_bundle(root / "gt", ROWS_SCHEMA, truth, doc_id="big", boxes=False)
    pred = root / "pred"
    pred.mkdir()
    # every row shares the city with every other (one block), none is identical to a truth row (nothing peeled)
    (pred / "big.json").write_text(json.dumps({"rows": [{"id": f"p{i}", "city": "Same"} for i in range(N_ROWS)]}))
    return root / "gt", pred


def test_an_alignment_over_the_memory_budget_is_flagged_through_the_cli(big_block, capsys):
    gt, pred = big_block
    code, out, err = run_cli(["score", "--gt", gt, "--pred", pred, "--json", "--workers", "1",
                              "--memory-budget-mb", "16"], capsys)
    assert code == 0, err
    report = json.loads(out)
    assert report["documents"][0]["approximate"] is True
    assert report["overall"]["approximate_docs"] == 1
    code, out, err = run_cli(["score", "--gt", gt, "--pred", pred, "--workers", "1", "--memory-budget-mb", "16"],
                             capsys)
    assert code == 0, err
    assert "1 document(s) aligned approximately (over the memory budget): big" in " ".join(out.split())


def test_the_same_alignment_within_the_budget_is_not_flagged(big_block, capsys):
    gt, pred = big_block
    code, out, err = run_cli(["score", "--gt", gt, "--pred", pred, "--json", "--workers", "1",
                              "--memory-budget-mb", "64"], capsys)
    assert code == 0, err
    report = json.loads(out)
    assert report["documents"][0]["approximate"] is False and report["overall"]["approximate_docs"] == 0


# --- the read-back's clipping check, vertically ----------------------------------------------


@pytest.fixture(scope="module")
def table_plan():
    from gtkit.synth.family import get_family
    from gtkit.synth.layout import plan_document
    from gtkit.synth.pipeline import generate_expected
    from gtkit.synth.render import render_pdf

    family = get_family("unclaimed_property")
    plan = plan_document(family, generate_expected(family, 30, 3))
    return plan, render_pdf(plan)


def _clipped(plan, pdf, item, region) -> list:
    from gtkit.synth.readback import locate

    saved = item.region
    item.region = region
    try:
        return locate(plan, pdf).problems
    finally:
        item.region = saved


@pytest.mark.parametrize("side", ["top", "bottom"])
def test_a_value_clipped_at_the_top_or_bottom_of_its_cell_is_reported(table_plan, side):
    from gtkit.synth.readback import locate

    plan, pdf = table_plan
    assert locate(plan, pdf).problems == []
    item = plan.body_items[7]
    x0, y0, x1, y1 = item.region
    # the cell keeps its width and loses all but 1 pt of its height, from the top or from the bottom
    region = (x0, y1 - 1.0, x1, y1) if side == "top" else (x0, y0, x1, y0 + 1.0)
    problems = _clipped(plan, pdf, item, region)
    assert problems and all("clipped" in p.message for p in problems), problems
    assert {p.pointer for p in problems} == {item.pointer}


def _drawing(coords, region, content=(0.0, 0.0, 100.0, 100.0)) -> list:
    from gtkit.synth.plan import Item
    from gtkit.synth.readback import drawing_problems

    item = Item("/rows/0/a", "x", 0, region, 0)
    return drawing_problems(0, ["x"], np.array([coords], dtype=float), [region], [0], content, lambda j: item)


@pytest.mark.parametrize(("coords", "clipped"), [
    ((20, 20, 30, 30), False),
    ((20, 20 - 0.75, 30, 30 + 0.75), False),  # within the tolerance on both sides
    ((20, 18, 30, 30), True),  # above the cell's top
    ((20, 20, 30, 32), True),  # below the cell's bottom
    ((18, 20, 30, 30), True),  # left of it
    ((20, 20, 32, 30), True),  # right of it
])
def test_drawing_problems_clip_a_word_on_every_side_of_its_cell(coords, clipped):
    problems = _drawing(coords, (20, 20, 30, 30))
    assert bool(problems) is clipped and all("clipped" in p.message for p in problems)


@pytest.mark.parametrize(("coords", "clipped"), [
    ((20, 20, 30, 30), False),
    ((20, 5, 30, 15), True),  # above the top margin
    ((20, 85, 30, 95), True),  # below the bottom margin
    ((5, 20, 15, 30), True),  # left of the left margin
    ((85, 20, 95, 30), True),  # right of the right margin
])
def test_drawing_problems_clip_a_word_outside_the_page_margins(coords, clipped):
    problems = _drawing(coords, (0, 0, 100, 100), content=(10, 10, 90, 90))
    assert bool(problems) is clipped and all("clipped" in p.message for p in problems)
