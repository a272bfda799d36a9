"""Property tests of scoring and alignment (hypothesis)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from helpers import make_gt
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from gtkit.format.bundle import Bundle
from gtkit.scoring.engine import score_prediction
from gtkit.scoring.pairing import align_rows

SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": ["string", "null"]},
        "flag": {"type": ["boolean", "null"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "rows": {"type": "array", "items": {"type": "object", "properties": {
            "a": {"type": ["string", "null"]}, "b": {"type": ["integer", "null"]},
            "c": {"type": ["string", "null"]}}}},
    },
}
text = st.sampled_from(["x", "y", "Elm St", "3/28/2019", "2019-03-28", "A-1", " z  "]) | st.none()
row = st.fixed_dictionaries({"a": text, "b": st.integers(0, 3) | st.none(), "c": text})
doc = st.fixed_dictionaries({
    "title": text, "flag": st.booleans() | st.none(), "tags": st.lists(st.sampled_from(["p", "q"]), max_size=2),
    "rows": st.lists(row, max_size=7),
})
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _bundle(expected) -> Bundle:
    _, gt = make_gt(SCHEMA, expected)
    return Bundle(path=Path("."), gt=gt, schema=SCHEMA)


def _cites(b):
    return {f.path: [{"page": ev.page, "box": list(ev.box)}] for f in b.gt.fields for ev in f.readings[0].evidence}


@SETTINGS
@given(doc)
def test_truth_scores_one_against_itself(expected):
    b = _bundle(expected)
    s = score_prediction(b, expected, _cites(b))
    assert s.value.f1 == 1.0
    if s.word is not None:
        assert s.word.f1 == 1.0 and s.page.f1 == 1.0


@SETTINGS
@given(doc, doc, st.randoms(use_true_random=False))
def test_record_order_never_changes_the_score(expected, pred, rnd):
    b = _bundle(expected)
    shuffled = dict(pred, rows=rnd.sample(pred["rows"], len(pred["rows"])))
    a, c = score_prediction(b, pred), score_prediction(b, shuffled)
    assert (a.value.correct, a.value.n_pred, a.value.n_truth) == (c.value.correct, c.value.n_pred, c.value.n_truth)


@SETTINGS
@given(doc, doc)
def test_grounded_counts_nest(expected, pred):
    b = _bundle(expected)
    s = score_prediction(b, pred, _cites(b))
    if s.word is not None:
        assert s.word.correct <= s.page.correct <= s.value.correct


@SETTINGS
@given(doc, doc, st.sampled_from(["case_insensitive", "punctuation_spacing", "lenient_date", "null_equals_false",
                                   "optional_terminal_punctuation", "phone_digits"]))
def test_a_leniency_never_lowers_a_document_score(expected, pred, leniency):
    strict = _bundle(expected)
    _, lenient_gt = make_gt(SCHEMA, expected, leniencies={f.path: [leniency] for f in strict.gt.fields})
    lenient = Bundle(path=Path("."), gt=lenient_gt, schema=SCHEMA)
    assert score_prediction(lenient, pred).value.correct >= score_prediction(strict, pred).value.correct


def _dense_optimum(t, p):
    w = np.array([[sum(x == y for x, y in zip(tr, pr)) for pr in p] for tr in t])
    r, c = linear_sum_assignment(w, maximize=True)
    return int(w[r, c].sum())


def _cols(rows, ncols):
    return [[frozenset({("v", r[c])}) for r in rows] for c in range(ncols)]


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 4).flatmap(lambda k: st.tuples(
    st.just(k), st.lists(st.tuples(*[st.integers(0, 2)] * k), max_size=9),
    st.lists(st.tuples(*[st.integers(0, 2)] * k), max_size=9))))
def test_peel_and_blocks_reach_the_dense_optimum(case):
    k, t, p = case
    al = align_rows(_cols(t, k), _cols(p, k), len(t), len(p))
    got = sum(sum(x == y for x, y in zip(t[i], p[j])) for i, j in al.pairs)
    assert not al.approximate
    assert got == (_dense_optimum(t, p) if t and p else 0)
    assert len({i for i, _ in al.pairs}) == len(al.pairs) == len({j for _, j in al.pairs})


def test_alternate_readings_align_by_set_intersection():
    truth = [[frozenset({("v", "a"), ("v", "A")})], [frozenset({("v", "b")})]]
    t_cols = [[truth[0][0], truth[1][0]]]
    p_cols = [[frozenset({("v", "b")}), frozenset({("v", "A")})]]
    assert align_rows(t_cols, p_cols, 2, 2).pairs == [(0, 1), (1, 0)]


def test_over_budget_blocks_are_approximated_and_flagged():
    rng = np.random.default_rng(0)
    rows = [tuple(int(v) for v in rng.integers(0, 50, 3)) for _ in range(300)]
    shifted = [(r[0], r[1], rows[(i + 1) % len(rows)][2]) for i, r in enumerate(rows)]  # a shifted column
    al = align_rows(_cols(rows, 3), _cols(shifted, 3), 300, 300, memory_budget=16 * 5000)
    assert al.approximate
    got = sum(sum(x == y for x, y in zip(rows[i], shifted[j])) for i, j in al.pairs)
    assert got >= 0.9 * _dense_optimum(rows, shifted)
    exact = align_rows(_cols(rows, 3), _cols(shifted, 3), 300, 300)
    assert not exact.approximate
    matched = sum(sum(x == y for x, y in zip(rows[i], shifted[j])) for i, j in exact.pairs)
    assert matched == _dense_optimum(rows, shifted)


def test_peel_pairs_identical_rows_once_each():
    t = [(1, 1), (1, 1), (2, 2)]
    p = [(1, 1), (1, 1), (1, 1)]
    al = align_rows(_cols(t, 2), _cols(p, 2), 3, 3)
    assert al.peeled == 2
    assert al.pairs == [(0, 0), (1, 1)]  # in reading order; the third copy stays unpaired, as does (2, 2)


@SETTINGS
@given(doc, doc, doc)
def test_scoring_several_predictions_against_one_truth_is_independent(expected, pred_a, pred_b):
    from gtkit.scoring.engine import score_truth
    from gtkit.scoring.truth import Truth

    b = _bundle(expected)
    shared = Truth.from_gt(b.gt, b.schema)
    for pred in (pred_a, pred_b, pred_a):
        fresh = score_prediction(b, pred)
        again = score_truth(shared, pred)
        assert (again.value.correct, again.value.n_pred, again.value.n_truth) == \
            (fresh.value.correct, fresh.value.n_pred, fresh.value.n_truth)
