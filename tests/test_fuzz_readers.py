"""Fuzzing every reader of a user file: any input gives a result or a one-line GtkitError, never a traceback.

Each case starts from a valid file and applies one random mutation (a value replaced by any JSON value,
a key removed, an unknown key added, the text cut short, random bytes), then reads it the way the verb
does.
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

from gtkit.degrade.recipe import load_recipe
from gtkit.errors import GtkitError
from gtkit.format.bundle import read_bundle, read_index
from gtkit.paths import FAMILIES_DIR, RECIPES_DIR
from gtkit.scoring.predictions import load_prediction
from gtkit.scoring.truth import Truth
from gtkit.synth import family as family_mod

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
FUZZ = settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:4]):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated(draw, value: Any) -> Any:  # type: ignore[no-untyped-def]
    """`value` (a parsed JSON or TOML document) with one random change (never none: asserted)."""
    original = json.dumps(value)
    value = json.loads(original)
    path = draw(st.sampled_from(_paths(value)))
    kind = draw(st.sampled_from(["replace", "delete", "add"]))
    if not path:  # the whole document: replaced, whatever the kind
        value = draw(JSON.filter(lambda v: json.dumps(v) != original))
    else:
        parent = value
        for token in path[:-1]:
            parent = parent[token]
        if kind == "replace":
            old = json.dumps(parent[path[-1]])
            parent[path[-1]] = draw(JSON.filter(lambda v: json.dumps(v) != old))
        elif kind == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=6).filter(lambda k: k not in parent))] = draw(JSON)
        else:
            parent.append(draw(JSON))
    assert json.dumps(value) != original
    return value


def one_line(call) -> None:  # type: ignore[no-untyped-def]
    """`call()` returns, or raises a GtkitError of one line; anything else fails the test."""
    try:
        call()
    except GtkitError as e:
        assert "\n" not in str(e), str(e)


def toml_text(value: Any) -> str:
    import tomli_w

    return tomli_w.dumps(value)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    return make_bundle(tmp_path_factory.mktemp("fz") / "b", INVOICE_SCHEMA, INVOICE, doc_id="inv")


@FUZZ
@given(data=st.data())
def test_gt_json(bundle, tmp_path_factory, data):  # type: ignore[no-untyped-def]
    good = json.loads((bundle / "gt.json").read_text())
    folder = tmp_path_factory.mktemp("gt")
    shutil.copytree(bundle, folder / "b")
    text = data.draw(st.one_of(mutated(good).map(json.dumps),
                               st.integers(0, 400).map(lambda n: json.dumps(good)[:n]), st.text(max_size=50)))
    (folder / "b" / "gt.json").write_text(text)
    one_line(lambda: read_bundle(folder / "b"))
    one_line(lambda: read_bundle(folder / "b", raw_fields=True).field_check.result())
    one_line(lambda: Truth.read(folder / "b").confirm())  # the fast decoder first, as `gtkit score` reads


@FUZZ
@given(line=mutated({"doc_id": "inv", "path": "b", "pages": 1, "cells": 3}))
def test_dataset_jsonl(bundle, tmp_path_factory, line):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("ds")
    (folder / "dataset.jsonl").write_text(json.dumps(line) + "\n")
    one_line(lambda: read_index(folder))


@FUZZ
@given(cites=mutated({"/invoice_number": [{"page": 1, "box": [0.1, 0.1, 0.2, 0.2]}], "/total": [{"page": 2}]}),
       prediction=mutated(INVOICE))
def test_prediction_and_citations(tmp_path_factory, cites, prediction):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("pred")
    (folder / "inv.json").write_text(json.dumps(prediction))
    (folder / "inv.citations.json").write_text(json.dumps(cites))
    one_line(lambda: load_prediction(folder, "inv"))


@FUZZ
@given(data=st.data())
def test_recipe_toml(tmp_path_factory, data):  # type: ignore[no-untyped-def]
    import tomllib

    good = tomllib.loads((RECIPES_DIR / "fax.toml").read_text())
    value = data.draw(mutated(good))
    path = tmp_path_factory.mktemp("rc") / "mine.toml"
    try:
        path.write_text(toml_text(value) if isinstance(value, dict) else str(value))
    except (TypeError, ValueError):  # not expressible in TOML (null, mixed arrays): write its JSON, also a bad file
        path.write_text(json.dumps(value))
    one_line(lambda: load_recipe(path))


@FUZZ
@given(data=st.data(), which=st.sampled_from(["family.toml", "layout.toml"]))
def test_family_and_layout_toml(tmp_path_factory, data, which):  # type: ignore[no-untyped-def]
    import tomllib

    root = tmp_path_factory.mktemp("fam")
    shutil.copytree(FAMILIES_DIR / "creditor_matrix", root / "creditor_matrix")
    good = tomllib.loads((root / "creditor_matrix" / which).read_text())
    value = data.draw(mutated(good))
    try:
        text = toml_text(value) if isinstance(value, dict) else str(value)
    except (TypeError, ValueError):
        text = json.dumps(value)
    (root / "creditor_matrix" / which).write_text(text)
    family_mod._cached.cache_clear()
    try:
        one_line(lambda: family_mod.get_family("creditor_matrix", root))
    finally:
        family_mod._cached.cache_clear()


@pytest.fixture(scope="module")
def degraded(tmp_path_factory) -> tuple[Path, Path]:  # type: ignore[no-untyped-def]
    from test_degrade_support import make_clean_bundle

    from gtkit.degrade.pipeline import degrade

    root = tmp_path_factory.mktemp("rp")
    clean = make_clean_bundle(root / "clean", n_lines=3)
    degrade(clean, root / "fax", recipe="fax", seed=1, dpi=100)
    return clean, root / "fax"


@FUZZ
@given(data=st.data())
def test_replay_record(degraded, tmp_path_factory, data):  # type: ignore[no-untyped-def]
    from gtkit.degrade.pipeline import prepare

    clean, fax = degraded
    prov = json.loads((fax / "gt.json").read_text())["provenance"]
    record = tmp_path_factory.mktemp("rec") / "record.json"
    record.write_text(json.dumps(data.draw(mutated(prov)), allow_nan=True))
    one_line(lambda: prepare(clean, replay=record))


@FUZZ
@given(rows=st.lists(st.one_of(mutated({"owner_name": "X", "address": None, "city": None, "state": None,
                                        "property_type": "WAGES", "amount": 1.5, "holder": "H",
                                        "year_reported": 2020}), JSON), min_size=1, max_size=3))
def test_synth_data_writes_nothing_but_its_output(tmp_path_factory, rows):  # type: ignore[no-untyped-def]
    from gtkit.synth.pipeline import synth

    root = tmp_path_factory.mktemp("data")
    data = root / "d.jsonl"
    data.write_text("".join(json.dumps(r, allow_nan=True) + "\n" for r in rows))
    one_line(lambda: synth("unclaimed_property", out=root / "out", seed=1, data=data))
    assert {p.name for p in root.iterdir()} <= {"d.jsonl", "out"}


SYSTEMS = {"schema_sha256": "0" * 64, "citing": "a",
           "systems": {"a": {"family": "openai", "cites": True}, "b": {"family": "google", "cites": False}}}
DECISIONS = [{"id": "doc1#/name", "action": "accept", "system": "a", "who": "ana"},
             {"id": "doc1#/total", "action": "edit", "value": 5, "who": "ana", "note": "page 2"},
             {"doc": "doc1", "path": "/po", "action": "box", "box": {"page": 1, "box": [0.1, 0.1, 0.2, 0.2]},
              "who": "bo"}]


@FUZZ
@given(data=st.data())
def test_systems_toml(tmp_path_factory, data):  # type: ignore[no-untyped-def]
    from gtkit.consensus.inputs import load_systems

    value = data.draw(mutated(SYSTEMS))
    path = tmp_path_factory.mktemp("sys") / "systems.toml"
    try:
        path.write_text(toml_text(value) if isinstance(value, dict) else str(value))
    except (TypeError, ValueError):
        path.write_text(json.dumps(value))
    one_line(lambda: load_systems(path))


@FUZZ
@given(lines=st.lists(st.one_of(*(mutated(d) for d in DECISIONS), JSON), min_size=1, max_size=3))
def test_decisions_jsonl(tmp_path_factory, lines):  # type: ignore[no-untyped-def]
    from gtkit.consensus.decisions import read_decisions

    path = tmp_path_factory.mktemp("dec") / "decisions.jsonl"
    path.write_text("".join(json.dumps(x, allow_nan=True) + "\n" for x in lines))
    one_line(lambda: read_decisions(path))
