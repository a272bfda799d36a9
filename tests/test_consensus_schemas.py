"""Consensus on schemas with required, non-nullable fields, `$defs`, `anyOf`, enums and nested arrays: every
bundle it writes passes `gtkit check`, and the report counts what was left out of `expected` and why.

A property over generated schemas and generated runs (omitted keys, wrong types, plain strings where records
are wanted), and three realistic schemas of tests/data/consensus (a 10-K balance sheet, a resume, a credit
agreement) with runs holding the errors real systems make.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_consensus import make_pdf

from gtkit.check import check_path
from gtkit.consensus.adjudicate import adjudicate
from gtkit.consensus.run import run_consensus
from gtkit.consensus.votes import type_problem
from gtkit.consensus.writable import enclosing_row, field_of, renumber
from gtkit.errors import GtkitError
from gtkit.files.read import canonical_sha256
from gtkit.pipelines import CHECKS
from gtkit.schema import compile_schema, errors_at, nullable, validation_errors

DATA = Path(__file__).parent / "data" / "consensus"
DRAFT = "https://json-schema.org/draft/2020-12/schema"

# --- the workspace --------------------------------------------------------------------------------


def write_workspace(root: Path, schema: dict[str, Any], families: dict[str, str],
                    runs: dict[str, dict[str, Any]], pdf: Path) -> dict[str, Path]:
    """docs/, runs/, schema.json and systems.toml for `runs` (doc -> system -> output)."""
    (root / "docs").mkdir(parents=True)
    for doc in runs:
        shutil.copyfile(pdf, root / "docs" / f"{doc}.pdf")
    (root / "schema.json").write_text(json.dumps(schema))
    toml = [f'schema_sha256 = "{canonical_sha256(schema)}"', ""]
    for s, f in families.items():
        toml += [f"[systems.{s}]", f'family = "{f}"', ""]
    (root / "systems.toml").write_text("\n".join(toml))
    for doc, outputs in runs.items():
        for s, out in outputs.items():
            (root / "runs" / s).mkdir(parents=True, exist_ok=True)
            (root / "runs" / s / f"{doc}.json").write_text(json.dumps(out))
    return {"schema": root / "schema.json", "docs": root / "docs", "runs": root / "runs",
            "systems": root / "systems.toml", "out": root / "gt"}


def consensus_and_check(root: Path, schema: dict[str, Any], families: dict[str, str],
                        runs: dict[str, dict[str, Any]], pdf: Path, rescore: bool = False) -> dict[str, Any]:
    """Run consensus; assert every bundle written passes `gtkit check`; return the report."""
    ws = write_workspace(root, schema, families, runs, pdf)
    rep = run_consensus(ws["schema"], ws["docs"], ws["runs"], ws["systems"], ws["out"], do_rescore=rescore)
    withheld = {d["doc"] for d in rep["left_out"]["documents"]}
    n, problems = check_path(ws["out"], CHECKS)
    assert problems == [], [str(p) for p in problems[:5]]
    assert n == len(runs) - len(withheld)
    written = {json.loads(x)["doc_id"] for x in (ws["out"] / "dataset.jsonl").read_text().splitlines()}
    assert written == set(runs) - withheld
    for q in (json.loads(x) for x in (ws["out"] / "queue.jsonl").read_text().splitlines()):
        assert q["doc"] in written
    return rep


@pytest.fixture(scope="module")
def pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pdf") / "doc.pdf"
    make_pdf(path, ["Acme Corp", "Total 1,234", "2024-12-31"])
    return path


# --- generated schemas -------------------------------------------------------------------------------

SCALARS = [
    {"type": "string"}, {"type": "number"}, {"type": "integer"}, {"type": "boolean"},
    {"type": ["string", "null"]}, {"type": ["number", "null"]},
    {"enum": ["a", "b"]}, {"enum": ["a", "b", None]}, {"type": "string", "enum": ["x", "y"]},
    {"anyOf": [{"type": "string"}, {"type": "null"}]},
    {"anyOf": [{"type": "string"}, {"type": "number"}]},          # two real branches: a structured leaf
    {"oneOf": [{"type": "integer"}, {"type": "string", "enum": ["n/a"]}]},
    {"$ref": "#/$defs/code"}, {"anyOf": [{"$ref": "#/$defs/code"}, {"type": "null"}]},
    {"type": "string", "format": "date"},
    {"type": "array", "items": {"type": "string"}},
    {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},   # an array of arrays
]
DEFS = {"code": {"type": "string", "enum": ["USD", "EUR"]}}
NAMES = ["a", "b", "c"]


@st.composite
def object_schemas(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True))
    props = {}
    for name in names:
        kind = draw(st.sampled_from(["scalar", "scalar", "scalar", "object", "records"] if depth < 2 else ["scalar"]))
        if kind == "scalar":
            props[name] = draw(st.sampled_from(SCALARS))
        elif kind == "object":
            props[name] = draw(object_schemas(depth + 1))
        else:
            records: dict[str, Any] = {"type": "array", "items": draw(object_schemas(depth + 1))}
            if draw(st.booleans()):
                records = {"anyOf": [records, {"type": "null"}]}
            if draw(st.integers(0, 5)) == 0:
                records["minItems"] = 1
            props[name] = records
    schema: dict[str, Any] = {"type": "object", "properties": props,
                              "required": draw(st.lists(st.sampled_from(names), unique=True))}
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    return schema


@st.composite
def task_schemas(draw: st.DrawFn) -> dict[str, Any]:
    root = draw(object_schemas())
    defs = dict(DEFS)
    if draw(st.booleans()):   # move one record schema into $defs, referenced by $ref
        for sub in root["properties"].values():
            if sub.get("type") == "array" and "properties" in sub.get("items", {}):
                defs["row"], sub["items"] = sub["items"], {"$ref": "#/$defs/row"}
                break
    return {"$schema": DRAFT, "$defs": defs, **root}


# --- generated runs: values near the schema, often agreeing, often wrong -----------------------------

GOOD = {"string": ["Acme", "x"], "number": [1.5, 2], "integer": [3, 4], "boolean": [True, False]}
WRONG = ["n/a", 7, True, {"k": 1}, [1], "Smith 2020"]


def value(draw: st.DrawFn, schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """A system's answer for `schema`: mostly a value that fits, sometimes null or one of the wrong type."""
    if "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[1]]
    mood = draw(st.integers(0, 9))
    if mood == 0:
        return None
    if mood == 1:
        return draw(st.sampled_from(WRONG))
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return value(draw, draw(st.sampled_from(schema[key])), defs)
    if "enum" in schema:
        return draw(st.sampled_from(schema["enum"]))
    types = schema.get("type", "string")
    t = draw(st.sampled_from(types)) if isinstance(types, list) else types
    if t == "null":
        return None
    if t == "object":
        return obj(draw, schema, defs)
    if t == "array":
        n = draw(st.integers(0, 2))
        return [value(draw, schema.get("items", {}), defs) for _ in range(n)]
    if schema.get("format") == "date":
        return draw(st.sampled_from(["2024-12-31", "31/12/2024"]))
    return draw(st.sampled_from(GOOD[t]))


def obj(draw: st.DrawFn, schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """An object for `schema` with some keys omitted."""
    out = {}
    for name, sub in schema.get("properties", {}).items():
        if draw(st.integers(0, 3)):   # a quarter of the keys omitted
            out[name] = value(draw, sub, defs)
    return out


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
          database=None)
@given(schema=task_schemas(), data=st.data(), n_systems=st.integers(2, 4))
def test_every_bundle_consensus_writes_passes_check(pdf: Path, schema: dict[str, Any], data: st.DataObject,
                                                    n_systems: int) -> None:
    families = {f"s{i}": f"F{i % 3}" for i in range(n_systems)}
    runs = {doc: {s: obj(data.draw, schema, schema["$defs"]) for s in families} for doc in ("d1", "d2")}
    with tempfile.TemporaryDirectory() as tmp:
        consensus_and_check(Path(tmp), schema, families, runs, pdf)


# --- realistic schemas -----------------------------------------------------------------------------------


def fixture(name: str) -> tuple[dict[str, Any], dict[str, str], dict[str, dict[str, Any]]]:
    """(schema, systems' families, doc -> system -> output) of tests/data/consensus/<name>*.json."""
    schema = json.loads((DATA / f"{name}.schema.json").read_text())
    runs = json.loads((DATA / f"{name}.runs.json").read_text())
    return schema, runs["families"], runs["documents"]


@pytest.mark.parametrize("name", ["balance_sheet", "resume", "credit_agreement"])
def test_realistic_schemas_give_bundles_that_pass_check(pdf: Path, tmp_path: Path, name: str) -> None:
    schema, families, runs = fixture(name)
    # the fixtures break the schema the way real systems do: without the rules, expected would not validate
    assert any(validation_errors(schema, out) for outputs in runs.values() for out in outputs.values())
    rep = consensus_and_check(tmp_path, schema, families, runs, pdf, rescore=True)
    out = rep["left_out"]
    assert rep["vote_failures"], "the fixtures hold values of the wrong type"
    for v in rep["vote_failures"].values():
        assert v["count"] == sum(f["count"] for f in v["fields"].values())
        assert all(e["field"] and e["type"] for e in v["examples"])
    assert out["blank_keys_left_out"] or out["withheld_records"] or out["documents"]
    assert rep["rescore"] is not None


def test_balance_sheet_rules(pdf: Path, tmp_path: Path) -> None:
    """The rule on blanks, case by case: an optional key the schema forbids to be null is left out; a required
    one with a candidate keeps it, pending and queued as a schema problem; one without any valid value
    withholds its record, queued; a list of plain strings where records are wanted is left out and queued."""
    schema, families, runs = fixture("balance_sheet")
    consensus_and_check(tmp_path, schema, families, runs, pdf)
    out = tmp_path / "gt"
    gt = json.loads((out / "bs-1" / "gt.json").read_text())
    expected, fields = gt["expected"], {f["path"]: f for f in gt["fields"]}
    queue = {q["id"]: q for q in map(json.loads, (out / "queue.jsonl").read_text().splitlines())}
    rep = json.loads((out / "report.json").read_text())
    root = compile_schema(schema)
    # /auditor: optional, a string, and every system left it blank: the key is absent, its entry null
    assert "auditor" not in expected and fields["/auditor"]["readings"][0]["value"] is None
    assert not nullable(root.props["auditor"])
    # /current_assets/0/data_period: required string; two families omit it, one gives "FY2024"
    row0 = expected["current_assets"][0]
    assert row0["data_period"] == "FY2024"
    item = queue["bs-1#/current_assets/0/data_period"]
    assert item["cause"] == "schema_ambiguity" and item["fix"] == "make nullable or not required"
    assert item["blank_required"] and fields["/current_assets/0/data_period"]["trust"] == "pending"
    # the "Inventories" row: nobody gave its required data_period: withheld, queued with the reason
    assert all(r["label"] != "Inventories" for r in expected["current_assets"])
    withheld = [q for q in queue.values() if q["kind"] == "withheld_record" and q["doc"] == "bs-1"]
    assert any(q["fix"] == "make nullable or not required" and "data_period" in q["reasons"][0]["path"]
               for q in withheld)
    # /notes: plain strings where records are wanted, by every family: no record of nulls, queued
    assert expected["notes"] == []
    assert any(q["field"] == "/notes/*" and q["fix"] == "format requirement" for q in withheld)
    assert rep["left_out"]["records_not_objects"]["/notes/*"] >= 1
    # every value kept in expected validates where it stands
    assert errors_at(root, expected) == []


def test_withheld_records_are_adjudicated_like_extra_records(pdf: Path, tmp_path: Path) -> None:
    """A withheld record is settled by a person: accepted as a system gave it only when the schema then holds
    (a row without its required value is refused, naming the line), edited into a full row, or rejected."""
    schema, families, runs = fixture("balance_sheet")
    consensus_and_check(tmp_path, schema, families, runs, pdf)
    out = tmp_path / "gt"
    decisions = tmp_path / "decisions.jsonl"
    decisions.write_text(json.dumps({"id": "bs-1#/current_assets/-0", "action": "accept", "system": "a1",
                                     "who": "ana"}) + "\n")
    with pytest.raises(GtkitError, match=r"line 1: .*data_period"):
        adjudicate(out, decisions)
    row = {"label": "Inventories", "value": 300, "data_period": "FY2024"}
    lines = [{"id": "bs-1#/current_assets/-0", "action": "edit", "value": row},
             {"id": "bs-1#/notes/-0", "action": "reject"}, {"id": "bs-1#/notes/-1", "action": "reject"},
             {"id": "bs-1#/current_assets/0/data_period", "action": "accept"},
             {"doc": "bs-1", "path": "/units", "action": "null"}]   # optional, not nullable: left out
    decisions.write_text("".join(json.dumps({**x, "who": "ana"}) + "\n" for x in lines))
    applied, left = adjudicate(out, decisions)
    assert applied == 5
    queue = [json.loads(x) for x in (out / "queue.jsonl").read_text().splitlines()]
    assert left == len(queue) and not any(q["kind"] == "withheld_record" for q in queue)
    gt = json.loads((out / "bs-1" / "gt.json").read_text())
    assert gt["expected"]["current_assets"][-1] == {**row, "currency": None}
    assert "units" not in gt["expected"]
    assert check_path(out, CHECKS)[1] == []


def test_votes_are_judged_by_the_validator_of_check() -> None:
    """Patterns behind `$ref`s, formats, enums (where `True` is not `1`), `oneOf` branches, arrays of arrays:
    a vote is a failure exactly when `gtkit check`'s validator refuses it at the field's spot."""
    schema = {"$schema": DRAFT, "$defs": {"year": {"type": "string", "pattern": "^[0-9]{4}$"}}, "type": "object",
              "properties": {"y": {"$ref": "#/$defs/year"}, "d": {"type": "string", "format": "date"},
                             "e": {"enum": [1, "a"]}, "o": {"oneOf": [{"type": "integer"}, {"const": "n/a"}]},
                             "aa": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
                             "n": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}}}
    root = compile_schema(schema)
    bad = {"y": "March", "d": "31/12/2024", "e": True, "o": "x", "aa": [1, 2], "n": -1}
    good = {"y": "2024", "d": "2024-12-31", "e": 1, "o": "n/a", "aa": [[1], []], "n": 0}
    for name, node in root.props.items():
        assert type_problem(bad[name], node), name
        assert type_problem(good[name], node) is None, name
        assert validation_errors(schema, {name: bad[name]}) and not validation_errors(schema, {name: good[name]})
    assert nullable(root.props["n"]) and not nullable(root.props["y"]) and not nullable(root.props["e"])


def test_withholding_a_row_moves_the_rows_after_it_up() -> None:
    removed = {"/a": [1, 3], "/a/4/b": [0]}
    assert renumber("/a/0/x", removed) == "/a/0/x"
    assert renumber("/a/1/x", removed) is None
    assert renumber("/a/2/x", removed) == "/a/1/x"
    assert renumber("/a/4/b/0/y", removed) is None
    assert renumber("/a/4/b/2/y", removed) == "/a/2/b/1/y"
    assert renumber("/a/4/b/+0", removed) == "/a/2/b/+0"
    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "object", "properties": {
        "b": {"type": "array", "items": {"type": "object", "properties": {"y": {"type": "string"}}}}}}}}}
    root = compile_schema(schema)
    assert enclosing_row(root, "/a/4/b/2/y") == "/a/4/b/2"
    assert enclosing_row(root, "/a/4/b") == "/a/4"
    assert enclosing_row(root, "/a") is None
    assert field_of(root, "/a/4/b/2/y") == "/a/*/b/*/y"
