"""Fuzzing that knows the answer: mutations every reader must refuse, with a one-line GtkitError.

tests/test_fuzz_readers.py asserts only that a random change never ends in a traceback. Here each draw makes
one change that must be refused, and the test asserts the refusal: a required key removed, a value of a type
its field cannot hold (never one the models would coerce: no digit strings for integers, no booleans, no
integral floats), or the text cut short (a strict prefix of a JSON object is never JSON). Every draw changes
the input (asserted). The unchanged inputs are read first, so a refusal is the mutation's doing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import INVOICE, INVOICE_SCHEMA, make_bundle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gtkit.errors import GtkitError
from gtkit.format.bundle import read_bundle, read_index
from gtkit.scoring.predictions import CITATIONS_INVALID, NOT_JSON, NOT_OBJECT, load_prediction
from gtkit.scoring.truth import Truth

FUZZ = settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

WORD = st.text(alphabet="abcxyz", min_size=1, max_size=4)  # never a number, a boolean or null in any reader
NOT_STR = st.one_of(st.integers(), st.lists(st.integers(), max_size=2),
                    st.dictionaries(WORD, st.integers(), max_size=2))
NOT_INT = st.one_of(WORD, st.floats(0.01, 0.99), st.lists(st.integers(), max_size=2),
                    st.dictionaries(WORD, st.integers(), max_size=2))
NOT_LIST = st.one_of(st.integers(), WORD, st.dictionaries(WORD, st.integers(), min_size=1, max_size=2))
NOT_OBJ = st.one_of(st.integers(), WORD, st.lists(st.integers(), max_size=2))
NOT_BOOL = st.one_of(st.integers(2, 9), WORD, st.lists(st.integers(), max_size=2))
NULL = st.none()


def _at(value: Any, path: tuple) -> tuple[Any, Any]:
    """A deep copy of `value` and the parent of `path` in it."""
    value = json.loads(json.dumps(value))
    parent = value
    for token in path[:-1]:
        parent = parent[token]
    return value, parent


@st.composite
def refused(draw, good: Any, required: list[tuple], wrong: list[tuple[tuple, Any]], truncate: bool = True):  # type: ignore[no-untyped-def]
    """(what was done, the changed value or text): `good` with one required key removed, one value of a wrong
    type, or (`truncate`) its JSON text cut short."""
    kinds = [k for k, ok in (("delete", required), ("wrong type", wrong), ("truncate", truncate)) if ok]
    kind = draw(st.sampled_from(kinds))
    text = json.dumps(good)
    if kind == "truncate":
        out: Any = text[: draw(st.integers(1, len(text) - 1))]
        assert out != text
        return f"cut to {len(out)} characters", out
    if kind == "delete":
        path = draw(st.sampled_from(required))
        out, parent = _at(good, path)
        del parent[path[-1]]
        what = f"removed {'/'.join(map(str, path))}"
    else:
        path, values = draw(st.sampled_from(wrong))
        out, parent = _at(good, path)
        parent[path[-1]] = draw(values)
        what = f"{'/'.join(map(str, path))} = {parent[path[-1]]!r}"
    assert json.dumps(out) != text, what  # every draw changes the input
    return what, out


def refuses(what: str, call) -> None:  # type: ignore[no-untyped-def]
    """`call()` raises a GtkitError of one line."""
    try:
        call()
    except GtkitError as e:
        assert "\n" not in str(e), str(e)
    else:
        pytest.fail(f"accepted an input with {what}")


# --- gt.json, by each of its readers -----------------------------------------------------------

@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    return make_bundle(tmp_path_factory.mktemp("fr") / "b", INVOICE_SCHEMA, INVOICE, doc_id="inv")


def gt_readers(folder: Path) -> list:
    return [lambda: read_bundle(folder),
            lambda: read_bundle(folder, raw_fields=True).field_check.result(),
            lambda: Truth.read(folder).confirm()]  # the fast decoder first, as `gtkit score` reads


def _gt_cases(good: dict) -> tuple[list[tuple], list[tuple[tuple, Any]]]:
    last = len(good["fields"]) - 1
    assert good["fields"][0]["readings"][0]["evidence"] and good["fields"][last]["readings"][0]["evidence"]
    required = [("format",), ("doc_id",), ("document",), ("document", "sha256"), ("document", "pages"),
                ("document", "page_sizes"), ("schema",), ("schema", "sha256"), ("provenance",),
                ("provenance", "pipeline"), ("provenance", "gtkit"), ("expected",), ("fields",)]
    wrong = [(("format",), NOT_STR), (("doc_id",), NOT_STR | NULL), (("document",), NOT_OBJ | NULL),
             (("document", "sha256"), NOT_STR | NULL), (("document", "pages"), NOT_INT | NULL),
             (("document", "page_sizes"), NOT_LIST | NULL), (("schema",), NOT_OBJ | NULL),
             (("provenance",), NOT_OBJ | NULL), (("provenance", "pipeline"), NOT_STR | NULL),
             (("provenance", "gtkit"), NOT_STR | NULL), (("tags",), NOT_OBJ), (("fields",), NOT_LIST | NULL)]
    for i in (0, last):  # the first field entry and the last (a fast decoder may stop looking early)
        entry = ("fields", i)
        required += [(*entry, "path"), (*entry, "readings"), (*entry, "trust"), (*entry, "readings", 0, "value"),
                     (*entry, "readings", 0, "evidence", 0, "page")]
        wrong += [((*entry,), NOT_OBJ | NULL), ((*entry, "path"), NOT_STR | NULL),
                  ((*entry, "readings"), NOT_LIST | NULL), ((*entry, "trust"), NOT_STR | NULL),
                  ((*entry, "leniencies"), NOT_LIST), ((*entry, "readings", 0), NOT_OBJ | NULL),
                  ((*entry, "readings", 0, "evidence"), NOT_LIST), ((*entry, "readings", 0, "evidence", 0), NOT_OBJ),
                  ((*entry, "readings", 0, "evidence", 0, "page"), NOT_INT | NULL),
                  ((*entry, "readings", 0, "evidence", 0, "box"), NOT_LIST),
                  ((*entry, "readings", 0, "evidence", 0, "verified"), NOT_BOOL)]
    return required, wrong


def test_the_unchanged_gt_json_is_read_by_every_reader(bundle):
    for read in gt_readers(bundle):
        read()


@FUZZ
@given(data=st.data())
def test_gt_json_refusals(bundle, tmp_path_factory, data):  # type: ignore[no-untyped-def]
    good = json.loads((bundle / "gt.json").read_text())
    required, wrong = _gt_cases(good)
    what, changed = data.draw(refused(good, required, wrong))
    folder = tmp_path_factory.mktemp("gt") / "b"
    shutil.copytree(bundle, folder)
    (folder / "gt.json").write_text(changed if isinstance(changed, str) else json.dumps(changed))
    for read in gt_readers(folder):
        refuses(what, read)


# --- dataset.jsonl ------------------------------------------------------------------------------

LINE = {"doc_id": "inv", "path": "b", "pages": 1, "cells": 3}


def test_the_unchanged_dataset_line_is_read(tmp_path):
    (tmp_path / "dataset.jsonl").write_text(json.dumps(LINE) + "\n")
    assert [e.doc_id for e in read_index(tmp_path)] == ["inv"]


@FUZZ
@given(change=refused(LINE, [("doc_id",), ("path",)],
                      [(("doc_id",), NOT_STR | NULL), (("path",), NOT_STR | NULL), (("pages",), NOT_INT),
                       (("cells",), NOT_INT), (("tags",), NOT_OBJ)]))
def test_dataset_jsonl_refusals(tmp_path_factory, change):  # type: ignore[no-untyped-def]
    what, changed = change
    folder = tmp_path_factory.mktemp("ds")
    (folder / "dataset.jsonl").write_text((changed if isinstance(changed, str) else json.dumps(changed)) + "\n")
    refuses(what, lambda: read_index(folder))


# --- predictions and citations -----------------------------------------------------------------

CITES = {"/invoice_number": [{"page": 1, "box": [0.1, 0.1, 0.2, 0.2]}], "/total": [{"page": 2}]}


def test_the_unchanged_prediction_and_citations_are_usable(tmp_path):
    (tmp_path / "inv.json").write_text(json.dumps(INVOICE))
    (tmp_path / "inv.citations.json").write_text(json.dumps(CITES))
    p = load_prediction(tmp_path, "inv")
    assert p.usable and p.citations["/total"] == [{"page": 2, "box": None}]


@FUZZ
@given(change=refused(CITES, [("/invoice_number", 0, "page"), ("/total", 0, "page")],
                      [(("/invoice_number",), NOT_LIST | NULL), (("/invoice_number", 0), NOT_OBJ | NULL),
                       (("/invoice_number", 0, "page"), NOT_INT | NULL), (("/total", 0, "page"), NOT_INT | NULL),
                       (("/invoice_number", 0, "box"), NOT_LIST)]))
def test_citations_refusals(tmp_path_factory, change):  # type: ignore[no-untyped-def]
    what, changed = change
    folder = tmp_path_factory.mktemp("pred")
    (folder / "inv.json").write_text(json.dumps(INVOICE))
    (folder / "inv.citations.json").write_text(changed if isinstance(changed, str) else json.dumps(changed))
    p = load_prediction(folder, "inv")
    assert p.failure == CITATIONS_INVALID, f"accepted citations with {what}"
    assert p.detail and "\n" not in p.detail and "inv.citations.json" in p.detail


@FUZZ
@given(n=st.integers(1, len(json.dumps(INVOICE)) - 1), not_object=NOT_OBJ)
def test_prediction_refusals(tmp_path_factory, n, not_object):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("pred")
    (folder / "inv.json").write_text(json.dumps(INVOICE)[:n])
    assert load_prediction(folder, "inv").failure == NOT_JSON
    (folder / "inv.json").write_text(json.dumps(not_object))
    assert load_prediction(folder, "inv").failure == NOT_OBJECT


# --- systems.toml and decisions.jsonl (consensus) ------------------------------------------------

SYSTEMS = {"schema_sha256": "0" * 64, "citing": "a",
           "systems": {"a": {"family": "openai", "cites": True}, "b": {"family": "google", "cites": False}}}
TOML_NOT_STR = st.one_of(st.integers(), st.lists(st.integers(), max_size=2))  # TOML has no null


def _write_toml(path: Path, value: dict) -> None:
    import tomli_w

    path.write_text(tomli_w.dumps(value))


def test_the_unchanged_systems_toml_is_read(tmp_path):
    from gtkit.consensus.inputs import load_systems

    _write_toml(tmp_path / "systems.toml", SYSTEMS)
    assert sorted(load_systems(tmp_path / "systems.toml").systems) == ["a", "b"]


@FUZZ
@given(change=refused(SYSTEMS, [("systems",), ("systems", "a", "family"), ("systems", "b", "family")],
                      [(("systems",), TOML_NOT_STR | WORD), (("systems", "a"), TOML_NOT_STR | WORD),
                       (("systems", "a", "family"), TOML_NOT_STR), (("systems", "b", "cites"), NOT_BOOL),
                       (("schema_sha256",), TOML_NOT_STR), (("citing",), TOML_NOT_STR),
                       (("systems", "a", "schema_sha256"), TOML_NOT_STR)],
                      truncate=False))  # a TOML file cut at a line's end is still TOML
def test_systems_toml_refusals(tmp_path_factory, change):  # type: ignore[no-untyped-def]
    from gtkit.consensus.inputs import load_systems

    what, changed = change
    path = tmp_path_factory.mktemp("sys") / "systems.toml"
    _write_toml(path, changed)
    refuses(what, lambda: load_systems(path))


DECISIONS = [{"id": "doc1#/name", "action": "accept", "system": "a", "who": "ana"},
             {"id": "doc1#/total", "action": "edit", "value": 5, "who": "ana", "note": "page 2"},
             {"doc": "doc1", "path": "/po", "action": "box", "box": {"page": 1, "box": [0.1, 0.1, 0.2, 0.2]},
              "who": "bo"}]
DECISION_CASES = [
    ([("action",)], [(("action",), NOT_STR | NULL), (("who",), NOT_STR), (("system",), NOT_STR), (("id",), NOT_STR)]),
    ([("action",), ("value",)], [(("action",), NOT_STR | NULL), (("note",), NOT_STR), (("who",), NOT_STR)]),
    ([("action",), ("box", "page")], [(("box",), NOT_OBJ), (("box", "page"), NOT_INT | NULL),
                                      (("box", "box"), NOT_LIST), (("doc",), NOT_STR), (("path",), NOT_STR)]),
]


def test_the_unchanged_decisions_are_read(tmp_path):
    from gtkit.consensus.decisions import read_decisions

    (tmp_path / "d.jsonl").write_text("".join(json.dumps(d) + "\n" for d in DECISIONS))
    assert len(read_decisions(tmp_path / "d.jsonl")) == 3


@FUZZ
@given(data=st.data(), k=st.integers(0, len(DECISIONS) - 1))
def test_decisions_jsonl_refusals(tmp_path_factory, data, k):  # type: ignore[no-untyped-def]
    from gtkit.consensus.decisions import read_decisions

    what, changed = data.draw(refused(DECISIONS[k], *DECISION_CASES[k]))
    lines = [json.dumps(d) for d in DECISIONS]
    lines[k] = changed if isinstance(changed, str) else json.dumps(changed)
    path = tmp_path_factory.mktemp("dec") / "decisions.jsonl"
    path.write_text("".join(x + "\n" for x in lines))
    refuses(f"line {k + 1}: {what}", lambda: read_decisions(path))
