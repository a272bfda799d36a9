"""The fast decoders (gtkit.format.decode, the citations decoder) never accept what the models refuse.

Each case starts from valid field entries (or citations, or any JSON) and applies random mutations: a value
replaced by an edge case or any JSON value, a key removed, an unknown key added. Whatever the fast decoder
accepts, the models accept too, with the same values (the truth cells built from either are equal); where
it declines, the careful path decides, so scores and error messages stay the models'.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gtkit.errors import GtkitError
from gtkit.format.bundle import load_field_records, load_ground_truth
from gtkit.format.decode import (
    NOT_DECODED,
    EvidenceRecord,
    FieldRecord,
    ReadingRecord,
    decode_json,
)
from gtkit.format.models import FORMAT_VERSION, Evidence, FieldEntry, Reading
from gtkit.scoring.predictions import Citation, Citations, _CitationRecord, _fast_citations, bad_citation
from gtkit.scoring.truth import TruthCell

EDGE = [0, 1, -1, 2, 2.0, 1.0, 0.5, -0.0, 1.5, 10**30, 10**400, 1e308, "1", "", "/", "/a", "/a\n", "/a\nb", "a",
        "/a\r", "pending", "human", "case_insensitive", "bogus", None, True, False, [], {}, [0.1, 0.1, 0.2, 0.2],
        [0.2, 0.1, 0.1, 0.2], [0, 0, 1, 1], [0.1, 0.2], [[0.1, 0.1], [0.2, 0.1], [0.2, 0.2], [0.1, 0.2]],
        [[0.1, 0.1, 0.2, 0.2]], [1, "a"], {"a": [1]}, float("nan"), float("inf")]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=True) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
ANY = (st.sampled_from(EDGE) | JSON).map(copy.deepcopy)
FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

ENTRIES = [
    {"path": "/a", "readings": [{"value": "ACME", "evidence": [
        {"page": 1, "box": [0.1, 0.1, 0.3, 0.12], "words": [[0.1, 0.1, 0.2, 0.12], [0.21, 0.1, 0.3, 0.12]],
         "quad": [[0.1, 0.1], [0.3, 0.1], [0.3, 0.12], [0.1, 0.12]], "quote": "ACME", "verified": True}]}],
     "leniencies": [], "trust": "constructed"},
    {"path": "/b/0/c", "readings": [{"value": 12.5, "evidence": [
        {"page": 2, "box": [0, 0, 1, 1], "quad": [[0, 0], [1, 0], [1, 1], [0, 1]], "verified": False},
        {"page": 3}]}, {"value": "12.50"}], "leniencies": ["case_insensitive", "lenient_date"], "trust": "agreed"},
    {"path": "", "readings": [{"value": None}], "trust": "pending"},
    {"path": "/d", "readings": [{"value": [1, "x", None]}, {"value": {"k": [[2]]}}], "trust": "human",
     "leniencies": []},
]


def gt_text(fields: Any, **envelope: Any) -> str:
    doc = {"format": FORMAT_VERSION, "doc_id": "d", "document": {"sha256": "0" * 64, "pages": 3,
           "page_sizes": [[612, 792]] * 3}, "schema": {"sha256": "1" * 64}, "provenance": {"pipeline": "manual",
           "gtkit": "0"}, "expected": {"a": "ACME"}, "fields": fields, **envelope}
    return json.dumps(doc)


def _locations(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _locations(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _locations(v, (*prefix, i))
    return out


@st.composite
def mutated(draw, value: Any, times: int = 3) -> Any:  # type: ignore[no-untyped-def]
    """`value` with one to `times` random changes (never its root replaced)."""
    value = json.loads(json.dumps(value))
    for _ in range(draw(st.integers(1, times))):
        path = draw(st.sampled_from(_locations(value)[1:]))
        parent = value
        for token in path[:-1]:
            parent = parent[token]
        kind = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if kind == "replace":
            parent[path[-1]] = draw(ANY)
        elif kind == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "Page", "verified", "box", "value"]))] = draw(ANY)
        else:
            parent.append(draw(ANY))
    return value


def nested(depth: int) -> Any:
    value: Any = 1
    for k in range(depth - 1):
        value = [value] if k % 2 else {"k": value}
    return value


COORDS = [0, 0.0, -0.0, 0.1, 0.25, 0.5, 0.9, 1, 1.0]
BAD_COORDS = [-0.1, 1.0000001, 2, True, False, "0.1", None, 10**30, [], 1e308]
BAD_BOXES = [[0.5, 0.1, 0.5, 0.2], [0.5, 0.1, 0.4, 0.2], [0.1, 0.2, 0.2, 0.2], [0.1, 0.1, 1.5, 0.2], [0.1, 0.1, 0.2],
             [0.1, 0.1, 0.2, 0.2, 0.3], [True, 0, 1, 1], [0, 0, 1, 1.0000001], [-0.0, 0, 1, 1], {}, 1, "box"]
MODELS_MAX_DEPTH = 255  # the deepest value pydantic's recursion guard lets through (1: a scalar, [[1]]: 3)
VALUES = ["ACME", "", 1, -7, 2.5, True, False, [1, "a"], [], {"a": [None]}, nested(3), nested(MODELS_MAX_DEPTH)]
BAD_VALUES = [nested(MODELS_MAX_DEPTH + 1), nested(MODELS_MAX_DEPTH + 5)]


FLAWS = ("page", "box", "words", "word", "quad", "quote", "verified", "value", "null", "evidence", "path",
         "readings", "trust", "leniency", "key")
EVIDENCE_FLAWS = ("page", "box", "words", "word", "quad", "quote", "verified", "null", "key")


class _OneFlaw:
    """Draws field entries with at most one flaw, of kind `flaw` (one of FLAWS, or None for none): the first
    choice of that kind comes from the invalid side (or is any JSON value); every other choice is valid. A flaw
    alone in an otherwise valid file is what tells a decoder that misses it."""

    def __init__(self, draw, flaw: str | None) -> None:  # type: ignore[no-untyped-def]
        self.draw, self.flaw = draw, flaw

    def flawed(self, kind: str) -> bool:
        if self.flaw == kind:
            self.flaw = None
            return True
        return False

    def pending(self, *kinds: str) -> bool:
        """Whether a flaw of one of these kinds is still to be placed."""
        return self.flaw in kinds

    def pick(self, kind: str, valid: list, invalid: list) -> Any:
        if self.flawed(kind):
            return copy.deepcopy(self.draw(st.sampled_from(invalid) if self.draw(st.integers(0, 3)) else ANY))
        return copy.deepcopy(self.draw(st.sampled_from(valid)))

    def put(self, out: dict, key: str, make, optional: bool = False) -> None:  # type: ignore[no-untyped-def]
        if self.flawed("key"):
            if self.draw(st.booleans()) and not optional:
                return  # a required key left out
            out[self.draw(st.sampled_from(["extra", "Page", "Value", "readings", "box"]))] = self.draw(ANY)
        if optional and not self.pending(key.rstrip("s")) and not self.pending(key) and not self.draw(st.booleans()):
            return
        out[key] = make()

    def many(self, make, lo: int, hi: int) -> list:  # type: ignore[no-untyped-def]
        return [make() for _ in range(self.draw(st.integers(lo, hi)))]

    def box(self, kind: str, ordered: bool) -> Any:
        if self.flawed(kind):
            return copy.deepcopy(self.draw(st.sampled_from(BAD_BOXES) if self.draw(st.integers(0, 3)) else st.lists(
                st.sampled_from(COORDS + BAD_COORDS), min_size=3, max_size=5)))
        if not ordered:
            return self.draw(st.lists(st.sampled_from(COORDS), min_size=4, max_size=4))
        xs = sorted(self.draw(st.lists(st.sampled_from(COORDS), min_size=2, max_size=2, unique=True)))
        ys = sorted(self.draw(st.lists(st.sampled_from(COORDS), min_size=2, max_size=2, unique=True)))
        return [xs[0], ys[0], xs[1], ys[1]]

    def evidence(self) -> dict:
        ev: dict[str, Any] = {}
        self.put(ev, "page", lambda: self.pick("page", [1, 2, 3, 10**30], [0, -1, 1.0, 2.0, True, "1", None]))
        self.put(ev, "box", lambda: None if not self.pending("box") and self.draw(st.booleans())
                 else self.box("box", ordered=True), optional=True)
        self.put(ev, "words", lambda: self.pick("words", [None], [1, {}, [1]]) if self.pending("words")
                 or self.draw(st.booleans()) else self.many(lambda: self.box("word", ordered=False), 1, 3),
                 optional=True)
        self.put(ev, "quad", lambda: [[self.pick("quad", [0, 0.5, 1.0, -3.5, 1e300], BAD_COORDS) for _ in range(2)]
                                      for _ in range(4)] if self.pending("quad") or self.draw(st.booleans())
                 else self.pick("quad", [None], [1, [], [[0, 0]] * 3, [[0, 0]] * 5]), optional=True)
        self.put(ev, "quote", lambda: self.pick("quote", [None, "", "ACME", "\u2028"], [1, True, [], 0.5]),
                 optional=True)
        self.put(ev, "verified", lambda: self.pick("verified", [True, False], [None, "true", [], 2]), optional=True)
        return ev

    def reading(self) -> dict:
        r: dict[str, Any] = {}
        null = self.flawed("null") or (not self.pending(*EVIDENCE_FLAWS) and self.draw(st.booleans()))
        self.put(r, "value", lambda: None if null else self.pick("value", VALUES, BAD_VALUES))
        if null and self.flaw is None:  # a null value with evidence
            r["evidence"] = self.many(self.evidence, 1, 2)
        elif not null:
            self.put(r, "evidence", lambda: self.pick("evidence", [[]], [None, {}, 1])
                     if self.pending("evidence") or (not self.pending(*EVIDENCE_FLAWS) and self.draw(st.booleans()))
                     else self.many(self.evidence, 1, 2), optional=True)
        return r

    def entry(self) -> dict:
        f: dict[str, Any] = {}
        self.put(f, "path", lambda: self.pick("path", ["", "/", "/a", "/a/0/b", "/~0~1", "/a\r", "/a\u2028"],
                                              ["a", "/a\n", "/a\nb", "\n", "\n/a", None, 1]))
        self.put(f, "readings", lambda: [] if self.flawed("readings") else self.many(self.reading, 1, 3))
        self.put(f, "trust", lambda: self.pick("trust", ["constructed", "agreed", "adjudicated", "human", "pending"],
                                               ["Pending", "", None]))
        self.put(f, "leniencies", lambda: self.many(lambda: self.pick(
            "leniency", ["case_insensitive", "lenient_date", "phone_digits"], ["bogus", None, 1]),
            1 if self.pending("leniency") else 0, 2), optional=True)
        return f


@st.composite
def entries(draw) -> list:  # type: ignore[no-untyped-def]
    """One to three field entries with at most one flaw among them."""
    gen = _OneFlaw(draw, draw(st.sampled_from((None, *FLAWS))))
    return gen.many(gen.entry, 1, 3)


def careful(path: Path) -> tuple[Any, list[Any]] | str:
    """The models' verdict on a gt.json: (model, parsed field entries) or the one-line error."""
    try:
        gt, fields, check = load_ground_truth(path, raw_fields=True)
        check.result()
        return gt, fields
    except GtkitError as e:
        return str(e)


def same_cell(fast: TruthCell, slow: TruthCell) -> bool:
    """Equal, with values compared by type as well (1 and 1.0 differ; boxes compare as numbers)."""
    return (json.dumps(fast.values) == json.dumps(slow.values) and fast.leniencies == slow.leniencies
            and fast.pending == slow.pending and fast.pages == slow.pages
            and [(p, tuple(b)) for p, b in fast.boxes] == [(p, tuple(map(float, b))) for p, b in slow.boxes])


def check_file(path: Path) -> bool:
    """Compare the fast and careful readings of one gt.json; True when the fast decoder took it."""
    try:
        fast = load_field_records(path)
    except GtkitError as e:  # the envelope refused: the careful path says the same
        assert careful(path) == str(e)
        return False
    if fast is None:
        return False
    slow = careful(path)
    assert not isinstance(slow, str), f"the fast decoder accepted what the models refuse: {slow}"
    gt, records = fast
    assert gt.model_dump() == slow[0].model_dump()
    assert len(records) == len(slow[1])
    for rec, raw in zip(records, slow[1]):
        assert rec.path == raw["path"]
        assert same_cell(TruthCell.of_record(rec), TruthCell.of_dict(raw)), (rec, raw)
    return True


def test_records_mirror_the_models():
    """Same keys and defaults as the pydantic models, so a field added to the format is not silently dropped."""
    for record, model in ((EvidenceRecord, Evidence), (ReadingRecord, Reading), (FieldRecord, FieldEntry),
                          (_CitationRecord, Citation)):
        info = msgspec.inspect.type_info(record)
        assert {f.encode_name for f in info.fields} == {f.alias or k for k, f in model.model_fields.items()}
        for f in info.fields:
            mf = model.model_fields[f.name]
            default = mf.default_factory() if mf.default_factory else mf.default
            assert (f.required, f.default if f.default is not msgspec.NODEFAULT else default) == \
                (mf.is_required(), default), (model.__name__, f.name)


def test_valid_entries_take_the_fast_path(tmp_path):
    (tmp_path / "gt.json").write_text(gt_text(ENTRIES))
    assert check_file(tmp_path / "gt.json")


@FUZZ
@given(fields=mutated(ENTRIES))
def test_mutated_entries(tmp_path_factory, fields):  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("gt") / "gt.json"
    path.write_text(gt_text(fields))
    check_file(path)


@FUZZ
@given(fields=entries())
def test_generated_entries(tmp_path_factory, fields):  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("gt") / "gt.json"
    path.write_text(gt_text(fields))
    check_file(path)


@FUZZ
@given(envelope=st.fixed_dictionaries({}, optional={"format": ANY, "doc_id": ANY, "tags": ANY, "extra": ANY,
                                                     "expected": ANY, "document": ANY}))
def test_mutated_envelope(tmp_path_factory, envelope):  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("gt") / "gt.json"
    path.write_text(gt_text(ENTRIES[:2], **envelope))
    check_file(path)


EV = ("readings", 0, "evidence", 0)
ONE_FLAW = [  # (where in ENTRIES[0], what goes there): each alone in an otherwise valid entry
    *[(("path",), v) for v in ["a", "/a\n", "/a\nb", "\n", "\n/a", None, 1, ["/a"]]],
    *[(("trust",), v) for v in ["Pending", "", None, 1, ["human"]]],
    *[(("leniencies",), v) for v in [["bogus"], [None], "case_insensitive", None, {}]],
    *[(("readings",), v) for v in [[], None, {}, [None], [1]]],
    *[(("readings", 0, "value"), v) for v in BAD_VALUES],
    *[(("readings", 0), v) for v in [{"value": None, "evidence": [{"page": 1}]}, {"evidence": []}, {}, None]],
    *[(("readings", 0, "evidence"), v) for v in [None, {}, 1, [1], [None], [[]]]],
    *[((*EV, "page"), v) for v in [0, -1, 1.0, 2.0, True, False, "1", None, 1.5]],
    *[((*EV, "box"), v) for v in BAD_BOXES],
    *[((*EV, "words"), v) for v in [1, {}, [1], [None], *[[b] for b in BAD_BOXES[3:]]]],
    *[((*EV, "words", 0, 0), v) for v in BAD_COORDS],
    *[((*EV, "quad"), v) for v in [1, [], [[0, 0]] * 3, [[0, 0]] * 5, [[0, 0, 0]] * 4, [[0]] * 4]],
    *[((*EV, "quad", 0, 1), v) for v in [True, None, "1", [], 10**400]],
    *[((*EV, "quote"), v) for v in [1, True, [], 0.5, {}]],
    *[((*EV, "verified"), v) for v in [None, "true", [], 2, 1, 0, 1.0, "yes"]],
    *[((*key[:-1], "extra"), 1) for key in [("path",), ("readings", 0, "value"), (*EV, "page")]],
    *[((*key[:-1], "Page"), 1) for key in [(*EV, "page")]],
]


@pytest.mark.parametrize("where, what", ONE_FLAW)
def test_one_flaw(tmp_path, where, what):
    """Whatever the fast decoder takes with one flaw put in a valid entry, the models take too, with the same
    cells (the flaws of the models' own choosing, such as a page written `2.0`, take the careful path)."""
    entry = copy.deepcopy(ENTRIES[0])
    parent = entry
    for token in where[:-1]:
        parent = parent[token]
    parent[where[-1]] = copy.deepcopy(what)
    (tmp_path / "gt.json").write_text(gt_text([entry]))
    check_file(tmp_path / "gt.json")


@pytest.mark.parametrize("text", [
    gt_text([{**ENTRIES[0], "readings": [{"value": nested(MODELS_MAX_DEPTH)}]}]),
    gt_text([{**ENTRIES[0], "readings": [{"value": [[]] * 2}]}]),
    gt_text([{**ENTRIES[0], "path": "/a\r\u2028"}]),
    gt_text([{**ENTRIES[0], "readings": [{"value": "x", "evidence": [{"page": 10**30}]}]}]),
    gt_text(ENTRIES).replace('"trust": "pending"', '"trust": "human", "trust": "pending"'),  # the last one counts
])
def test_accepted_by_both(tmp_path, text):
    (tmp_path / "gt.json").write_text(text)
    assert check_file(tmp_path / "gt.json")


@pytest.mark.parametrize("text", [
    gt_text(ENTRIES, format="gtkit.gt/1"),  # upgraded by the careful path
    gt_text([{**ENTRIES[0], "readings": [{"value": "x", "evidence": [{"page": 2.0}]}]}]),  # lax int
    gt_text([{**ENTRIES[0], "readings": [{"value": "x", "evidence": [{"page": 1, "verified": 1}]}]}]),  # lax bool
    gt_text([{**ENTRIES[0], "readings": [{"value": float("nan")}]}]),
    gt_text([{**ENTRIES[0], "readings": [{"value": "\ud800"}]}]),
    "\ufeff" + gt_text(ENTRIES),
])
def test_left_to_the_models(tmp_path, text):
    """Where the models are laxer than the fast decoder, the file takes the careful path (and is accepted)."""
    (tmp_path / "gt.json").write_text(text, encoding="utf-8", errors="surrogatepass")
    assert load_field_records(tmp_path / "gt.json") is None
    assert not isinstance(careful(tmp_path / "gt.json"), str)


# --- citations and predictions --------------------------------------------------------------------------------

CITES = {"/a": [{"page": 1, "box": [0.1, 0.1, 0.2, 0.2]}, {"page": 2}], "": [{"page": 3, "box": None}],
         "/b/0": [{"page": 1, "box": [0, 0, 1, 1]}], "/c": []}


def models_citations(raw: bytes) -> dict[str, Any] | None:
    try:
        return Citations.model_validate(json.loads(raw)).as_dicts()
    except Exception:  # any refusal
        return None


@FUZZ
@given(cites=mutated(CITES) | JSON)
def test_mutated_citations(cites):  # type: ignore[no-untyped-def]
    raw = json.dumps(cites).encode()
    fast = _fast_citations(raw)
    if fast is not None:
        slow = models_citations(raw)
        assert slow is not None, "the fast decoder accepted citations the models refuse"
        assert json.dumps(fast) == json.dumps(slow)  # same values, same types


CITE_FLAWS = [
    *[(("/a", 0, "page"), v) for v in [0, -1, 1.0, True, "1", None, 10**30]],
    *[(("/a", 0, "box"), v) for v in [[0.1, 0.1, 0.2], [0.1, 0.1, 0.2, 0.2, 0.3], [True, 0, 1, 1], ["0", 0, 1, 1],
                                      [None, 0, 1, 1], {}, 1, [0.5, 0.1, 0.4, 0.2], [2, -1, 10**30, 0]]],
    *[(("/a", 0, "extra"), 1), (("/a", 0), {"box": [0, 0, 1, 1]}), (("/a", 0), [1, [0, 0, 1, 1]]), (("/a",), {}),
      (("/a",), None), (("a",), []), (("\n",), []), (("/a",), [None])],
]


@pytest.mark.parametrize("where, what", CITE_FLAWS)
def test_citations_with_one_flaw(where, what):
    cites = copy.deepcopy(CITES)
    parent = cites
    for token in where[:-1]:
        parent = parent[token]
    parent[where[-1]] = copy.deepcopy(what)
    raw = json.dumps(cites).encode()
    fast = _fast_citations(raw)
    if fast is not None:
        assert json.dumps(fast) == json.dumps(models_citations(raw))


def test_valid_citations_take_the_fast_path():
    assert _fast_citations(json.dumps(CITES).encode()) == models_citations(json.dumps(CITES).encode())


FLOAT_TEXT = st.from_regex(r"\A-?(0|[1-9][0-9]{0,20})(\.[0-9]{1,25})?([eE][-+]?[0-9]{1,3})?\Z")


@settings(max_examples=300, deadline=None)
@given(value=JSON, number=FLOAT_TEXT, indent=st.none() | st.integers(0, 2))
def test_decode_json_is_json_loads(value, number, indent):  # type: ignore[no-untyped-def]
    for text in (json.dumps(value, indent=indent), number, f'{{"n": [{number}]}}'):
        fast = decode_json(text.encode())
        if fast is not NOT_DECODED:
            slow = json.loads(text)
            assert json.dumps(fast) == json.dumps(slow) and repr(fast) == repr(slow)
    assert decode_json(json.dumps(value, allow_nan=True).encode()) is NOT_DECODED or not any(
        isinstance(v, float) and not math.isfinite(v) for v in _leaves(value))


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in _leaves(v)]
    return [value]


@pytest.mark.parametrize("raw", [b"NaN", b"1E400", b'"\\ud800"', b"\xef\xbb\xbf{}", b'"\xed\xa0\x80"',
                                 "{}".encode("utf-16"), b"[" * 5000 + b"]" * 5000, b"{} x", b"\xff"])
def test_decode_json_leaves_the_rest_to_json_loads(raw):
    assert decode_json(raw) is NOT_DECODED


@settings(max_examples=500, deadline=None)
@given(box=st.lists(st.sampled_from([0.0, -0.0, 0.1, 0.5, 1.0, -0.1, 1.5, math.nan, math.inf, -math.inf]) |
                    st.floats(allow_nan=True), min_size=4, max_size=4), page=st.integers(1, 4))
def test_bad_citation_is_the_documented_rule(box, page):
    """Outside [0, 1], not finite or inverted (x0 >= x1 or y0 >= y1), or a page beyond the document's 3."""
    x0, y0, x1, y1 = box
    want = page > 3 or not (all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in box) and x0 < x1 and y0 < y1)
    assert bad_citation({"page": page, "box": tuple(box)}, 3) == want


@FUZZ
@given(fields=mutated(ENTRIES))
def test_records_of_parsed_entries_is_never_laxer(fields):  # type: ignore[no-untyped-def]
    """`records_of` (the entries of a bundle read as parsed JSON, as records) accepts only what the models accept,
    with the same values."""
    from pydantic import ValidationError

    from gtkit.format.decode import records_of
    from gtkit.format.writer import FIELD_ENTRIES

    records = records_of(copy.deepcopy(fields))
    if records is None:
        return
    try:
        models = FIELD_ENTRIES.validate_python(copy.deepcopy(fields))
    except ValidationError as e:
        raise AssertionError(f"records_of accepted what the models refuse: {e}") from None
    for rec, model, raw in zip(records, models, fields):
        assert rec.path == model.path
        assert same_cell(TruthCell.of_record(rec), TruthCell.of_dict(raw)), (rec, raw)
