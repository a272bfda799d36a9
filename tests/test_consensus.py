"""Consensus: votes, tiers, families, alignment, causes, boxes, adjudication, audit, bad input."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from helpers import run_cli

from gtkit.consensus.causes import classify_document
from gtkit.consensus.cells import (
    ALL_NULL,
    MAJORITY,
    MODEL_FAILURE,
    PROMOTE_MAJORITY,
    PROMOTE_UNANIMOUS,
    SCHEMA_AMBIGUITY,
    SPLIT,
    UNANIMOUS,
    UNRESOLVABLE,
)
from gtkit.consensus.tiers import settle
from gtkit.consensus.votes import Voters
from gtkit.consensus.walk import walk_document
from gtkit.files.read import canonical_sha256
from gtkit.format.bundle import read_bundles
from gtkit.schema import compile_schema

SCHEMA: dict[str, Any] = {
    "title": "t", "version": "1", "type": "object",
    "properties": {
        "name": {"type": ["string", "null"]},
        "po": {"type": ["string", "null"]},
        "date": {"type": ["string", "null"]},
        "total": {"type": ["number", "null"], "x-comparator": "number"},
        "items": {"type": "array", "x-identity": ["id"], "items": {"type": "object", "properties": {
            "id": {"type": ["string", "null"]},
            "desc": {"type": ["string", "null"]},
            "qty": {"type": ["integer", "null"], "x-comparator": "number"},
            "color": {"type": ["string", "null"]},
        }}},
    },
}
FAM5 = {"a1": "A", "a2": "A", "b1": "B", "b2": "B", "c": "C"}


def run(outputs: dict[str, Any], families: dict[str, str], schema: dict = SCHEMA, text: str = "",
        promote: str = PROMOTE_UNANIMOUS):
    voters = Voters(systems=sorted(outputs), family={s: families[s] for s in outputs})
    r = walk_document("d", compile_schema(schema), outputs, voters)
    classify_document(r, lambda: text)
    for c in r.cells:
        settle(c, promote)
    return r


def cell(r, pointer):
    return next(c for c in r.cells if c.pointer == pointer)


# --- tiers and families -------------------------------------------------------------------


def test_tiers_and_null_over_value():
    fam = {"a": "A", "b": "B", "c": "C"}
    r = run({"a": {"name": "Acme", "total": 5, "po": "X1"},
             "b": {"name": " Acme ", "total": "5", "po": None},
             "c": {"name": "Acme", "total": 5.0}}, fam, promote=PROMOTE_MAJORITY)
    assert cell(r, "/name").tier == UNANIMOUS and not cell(r, "/name").pending
    assert cell(r, "/date").tier == ALL_NULL and not cell(r, "/date").pending   # omitted everywhere: null votes
    # "5" (a string for a number) is a vote failure: it backs nothing, 5 and 5.0 agree
    t = cell(r, "/total")
    assert t.tier == MAJORITY and t.value == 5 and not t.pending
    assert any(f.system == "b" and f.pointer == "/total" for f in r.failures)
    po = cell(r, "/po")
    assert po.tier == MAJORITY and po.null_over_value and po.pending and po.value is None
    assert [raw for _, raw in po.candidates] == [None, "X1"]
    r = run({"a": {"name": "x1"}, "b": {"name": "y2"}, "c": {"name": "z3"}}, fam)
    n = cell(r, "/name")
    assert n.tier == SPLIT and n.pending and n.cause == UNRESOLVABLE


def test_family_deduplication():
    # two copies of one model cannot outvote a third
    r = run({"a1": {"name": "Acme"}, "a2": {"name": "Acme"}, "b": {"name": "Apex"}}, {"a1": "A", "a2": "A", "b": "B"})
    assert cell(r, "/name").tier == SPLIT and cell(r, "/name").pending
    # independent families do outvote one family
    r = run({"a1": {"name": "Acme"}, "a2": {"name": "Acme"}, "b": {"name": "Apex"}, "c": {"name": "Apex"}},
            {"a1": "A", "a2": "A", "b": "B", "c": "C"}, promote=PROMOTE_MAJORITY)
    c = cell(r, "/name")
    assert c.tier == MAJORITY and c.value == "Apex" and c.cause == MODEL_FAILURE and not c.pending
    # a family that splits splits its weight
    r = run({"a1": {"name": "Acme"}, "a2": {"name": "Acmx"}, "b1": {"name": "Acme"}, "b2": {"name": "Acme"},
             "c": {"name": "Acme"}}, FAM5)
    c = cell(r, "/name")
    assert c.tier == MAJORITY and c.weights[("s", "Acme")] == pytest.approx(2.5) and c.cause == MODEL_FAILURE


# --- alignment ----------------------------------------------------------------------------


def _rows(n: int) -> list[dict[str, Any]]:
    return [{"id": f"ID-{i:04d}", "desc": f"widget {i}", "qty": i, "color": ["red", "blue", "green"][i % 3]}
            for i in range(n)]


def test_alignment_by_key_with_shuffled_rows_and_a_misread_key():
    rows = _rows(40)
    outs = {}
    for k, s in enumerate(["a", "b", "c"]):
        mine = [dict(r) for r in rows]
        random.Random(k).shuffle(mine)
        outs[s] = {"items": mine}
    bad = next(r for r in outs["c"]["items"] if r["id"] == "ID-0007")
    bad["id"] = "ID-OO07"     # misread key
    r = run(outs, {"a": "A", "b": "B", "c": "C"})
    items = r.expected["items"]
    assert len(items) == 40 and not r.extras
    assert sorted(x["id"] for x in items) == [x["id"] for x in rows]
    assert r.rows_fallback == 1
    by_id = {x["id"]: x for x in items}
    assert all(by_id[x["id"]] == x for x in rows)
    key_cells = [c for c in r.cells if c.field == "/items/*/id" and c.tier != UNANIMOUS]
    assert len(key_cells) == 1 and key_cells[0].tier == MAJORITY and key_cells[0].cause == MODEL_FAILURE
    # every other cell of every row is unanimous: rows were never paired by position
    assert sum(c.tier in (UNANIMOUS, ALL_NULL) for c in r.cells) == len(r.cells) - 1


def test_rows_no_one_else_has_are_extra_record_votes_and_dropped_rows_are_null_votes():
    rows = _rows(6)
    outs = {"a": {"items": [*rows, {"id": "ID-9999", "desc": "ghost", "qty": 1, "color": "red"}]},
            "b": {"items": list(reversed(rows))}, "c": {"items": rows[:5]}}
    r = run(outs, {"a": "A", "b": "B", "c": "C"})
    assert len(r.expected["items"]) == 6
    assert len(r.extras) == 1 and r.extras[0].members["a"][0]["id"] == "ID-9999"
    k = next(i for i, x in enumerate(r.expected["items"]) if x["id"] == "ID-0005")
    dropped = [c for c in r.cells if c.pointer.startswith(f"/items/{k}/")]
    assert len(dropped) == 4 and all(c.tier == MAJORITY and not c.null_over_value for c in dropped)


# --- causes -------------------------------------------------------------------------------


def test_causes():
    fam = {"a": "A", "b": "B", "c": "C"}
    # values differing only in format
    r = run({"a": {"po": "PO-1234"}, "b": {"po": "po 1234"}, "c": {"po": "PO-1234"}}, fam)
    c = cell(r, "/po")
    assert c.cause == SCHEMA_AMBIGUITY and c.fix == "format requirement" and c.pending
    # day/month-ambiguous dates
    r = run({"a": {"date": "03/04/2021"}, "b": {"date": "2021-04-03"}, "c": {"date": "03/04/2021"}}, fam)
    c = cell(r, "/date")
    assert c.cause == SCHEMA_AMBIGUITY and c.fix == "format requirement" and c.pending
    # scope
    r = run({"a": {"name": "Acme"}, "b": {"name": "Acme Corp, 1 Main St"}, "c": {"name": "Acme"}}, fam)
    assert cell(r, "/name").cause == SCHEMA_AMBIGUITY
    # which occurrence: both candidates are printed
    r = run({"a": {"name": "Globex"}, "b": {"name": "Initech"}, "c": {"name": "Globex"}}, fam,
            text="billed by globex, shipped by initech")
    c = cell(r, "/name")
    assert (c.cause, c.fix) == (SCHEMA_AMBIGUITY, "location hint")
    # do-not-confuse: the dissenting value is a sibling field's value
    r = run({"a": {"name": "Globex", "po": "PO-77"}, "b": {"name": "PO-77", "po": "PO-77"},
             "c": {"name": "Globex", "po": "PO-77"}}, fam)
    assert (cell(r, "/name").cause, cell(r, "/name").fix) == (SCHEMA_AMBIGUITY, "do-not-confuse")
    # distinct values each backed by independent families
    five = {"a": "A", "b": "B", "c": "C", "d": "D", "e": "E"}
    r = run({"a": {"name": "Globex"}, "b": {"name": "Globex"}, "c": {"name": "Globex"}, "d": {"name": "Hooli"},
             "e": {"name": "Hooli"}}, five)
    c = cell(r, "/name")
    assert c.tier == MAJORITY and (c.cause, c.fix) == (SCHEMA_AMBIGUITY, "alias") and c.pending
    # model failure: one family against the other systems, which agree
    r = run({"a": {"name": "Globex"}, "b": {"name": "Glbx"}, "c": {"name": "Globex"}}, fam, promote=PROMOTE_MAJORITY)
    c = cell(r, "/name")
    assert c.cause == MODEL_FAILURE and not c.pending and c.value == "Globex"
    # ... promoted only under the majority rule: by default (unanimous) it is queued, classed by the same cause
    r = run({"a": {"name": "Globex"}, "b": {"name": "Glbx"}, "c": {"name": "Globex"}}, fam)
    c = cell(r, "/name")
    assert c.cause == MODEL_FAILURE and c.pending and c.value == "Globex"
    # unresolvable
    r = run({"a": {"name": "Globex"}, "b": {"name": "Hooli"}}, {"a": "A", "b": "B"})
    assert cell(r, "/name").cause == UNRESOLVABLE and cell(r, "/name").pending


# --- end to end through the CLI -----------------------------------------------------------


def make_pdf(path: Path, lines: list[str]) -> dict[str, list[float]]:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    boxes = {}
    for i, text in enumerate(lines):
        y = 60 + 20 * i
        page.insert_text((40, y), text, fontsize=11, fontname="helv")
        w = pymupdf.get_text_length(text, fontname="helv", fontsize=11)
        boxes[text] = [40 / 612, (y - 10) / 792, (40 + w) / 612, (y + 3) / 792]
    path.write_bytes(doc.tobytes(no_new_id=True))
    return boxes


def workspace(tmp: Path, outputs: dict[str, dict[str, Any]], families: dict[str, str], *,
              citations: dict[str, dict[str, Any]] | None = None, schema: dict = SCHEMA,
              hashes: dict[str, str] | None = None, doc_id: str = "doc1") -> dict[str, Path]:
    (tmp / "docs").mkdir(parents=True, exist_ok=True)
    make_pdf(tmp / "docs" / f"{doc_id}.pdf", ["Acme", "PO-1234", "Total 5"])
    (tmp / "schema.json").write_text(json.dumps(schema))
    h = canonical_sha256(schema)
    toml = []
    for s, f in families.items():
        toml += [f"[systems.{s}]", f'family = "{f}"', f"cites = {'true' if citations and s in citations else 'false'}",
                 f'schema_sha256 = "{(hashes or {}).get(s, h)}"', ""]
    (tmp / "systems.toml").write_text("\n".join(toml))
    for s, out in outputs.items():
        d = tmp / "runs" / s
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{doc_id}.json").write_text(out if isinstance(out, str) else json.dumps(out))
        if citations and s in citations:
            (d / f"{doc_id}.citations.json").write_text(json.dumps(citations[s]))
    return {"schema": tmp / "schema.json", "docs": tmp / "docs", "runs": tmp / "runs",
            "systems": tmp / "systems.toml", "out": tmp / "gt"}


def cli(args: list, capsys) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    """Run the CLI in this process: (exit status, stdout and stderr together)."""
    code, out, err = run_cli(args, capsys)
    return code, out + err


def consensus_args(ws: dict[str, Path], *extra: str) -> list[str]:
    return ["consensus", "--schema", ws["schema"], "--docs", ws["docs"], "--runs", ws["runs"],
            "--systems", ws["systems"], "--out", ws["out"], *extra]


BOX = [0.1, 0.1, 0.3, 0.13]
LINES = ["Acme", "PO-1234", "Total 5"]


def test_end_to_end_one_source_boxes_and_queue(tmp_path, capsys):
    where = make_pdf(tmp_path / "layout.pdf", LINES)  # the boxes of the workspace's document
    outputs = {
        "a": {"name": "Acme", "po": "PO-1234", "total": 5, "items": [{"id": "I1", "desc": "bolt", "qty": 2}]},
        "b": {"name": "Acme", "po": "PO-1234", "total": 6, "items": [{"id": "I1", "desc": "bolt", "qty": 2}]},
        "c": {"name": "Acme", "po": "po 1234", "total": 5, "items": [{"id": "I1", "desc": "bolt", "qty": 2}]},
    }
    cites = {"b": {"/name": [{"page": 1, "box": where["Acme"]}], "/total": [{"page": 1, "box": where["Total 5"]}],
                   "/items/0/desc": [{"page": 7, "box": BOX}],
                   "/items/0/qty": [{"page": 1, "box": [0.5, 0.5, 0.4, 0.6]}],
                   "/items/0/id": [{"page": 1, "box": where["Acme"]}],
                   "/po": [{"page": 1, "box": where["PO-1234"]}]}}
    ws = workspace(tmp_path, outputs, {"a": "A", "b": "B", "c": "C"}, citations=cites)
    code, out = cli(consensus_args(ws, "--promote", "majority"), capsys)   # b's total outvoted, promoted
    assert code == 0, out
    code, out = cli(["check", ws["out"]], capsys)
    assert code == 0, out
    [b] = read_bundles(ws["out"])
    assert b.gt.provenance.pipeline == "consensus"
    f = {x.path: x for x in b.gt.fields}
    assert f["/name"].trust == "agreed" and f["/name"].readings[0].evidence[0].box == tuple(where["Acme"])
    # a box over words that do not show the value ("Acme" for the id "I1") is not kept: the cell waits for a drawing
    assert f["/items/0/id"].readings[0].evidence[0].box is None
    # b disagrees on the total: its box is not used for the consensus value
    assert f["/total"].trust == "agreed" and b.gt.expected["total"] == 5 and f["/total"].readings[0].evidence == []
    assert f["/items/0/desc"].readings[0].evidence == []          # page out of range: not valid
    assert f["/items/0/qty"].readings[0].evidence[0].box is None  # bad box: page only
    assert f["/po"].trust == "pending" and len(f["/po"].readings) == 2
    assert f["/po"].readings[0].value == "PO-1234" and f["/po"].readings[0].evidence[0].page == 1
    queue = [json.loads(x) for x in (ws["out"] / "queue.jsonl").read_text().splitlines()]
    assert [q["path"] for q in queue] == ["/po"]
    q = queue[0]
    assert q["cause"] == "schema_ambiguity" and q["pages"] == [1]
    assert {v["system"]: v["vote"] for v in q["votes"]} == {"a": "PO-1234", "b": "PO-1234", "c": "po 1234"}
    draw = {json.loads(x)["path"] for x in (ws["out"] / "draw.jsonl").read_text().splitlines()}
    assert {"/total", "/items/0/desc", "/items/0/qty", "/items/0/id"} <= draw and "/name" not in draw
    rep = json.loads((ws["out"] / "report.json").read_text())
    assert {f["field"] for f in rep["fields"]} >= {"/po", "/items/*/qty"}
    assert set(rep["rescore"]) == {"a", "b", "c"} and rep["rescore"]["a"]["value_f1"] == 1.0
    assert (ws["out"] / "report.md").read_text().startswith("# Consensus report")
    # same inputs, same bytes
    first = (ws["out"] / "doc1" / "gt.json").read_bytes()
    code, _ = cli(consensus_args(ws, "--force", "--promote", "majority"), capsys)
    assert code == 0 and (ws["out"] / "doc1" / "gt.json").read_bytes() == first
    # a person accepts the proposed box of one cell and draws another
    dec = tmp_path / "boxes.jsonl"
    dec.write_text(json.dumps({"id": "doc1#/name", "action": "box", "accept_box": True, "who": "ana"}) + "\n"
                   + json.dumps({"id": "doc1#/total", "action": "box", "box": {"page": 1, "box": BOX}, "who": "ana"})
                   + "\n")
    assert cli(["adjudicate", ws["out"], "--decisions", dec], capsys)[0] == 0
    [b] = read_bundles(ws["out"])
    f = {x.path: x for x in b.gt.fields}
    assert f["/name"].trust == "human" and f["/name"].readings[0].evidence[0].box == tuple(where["Acme"])
    assert f["/total"].trust == "human" and f["/total"].readings[0].evidence[0].box == tuple(BOX)
    draw = {json.loads(x)["path"] for x in (ws["out"] / "draw.jsonl").read_text().splitlines()}
    assert "/total" not in draw and "/items/0/desc" in draw
    # a box for a contested cell must wait for its value
    dec.write_text(json.dumps({"id": "doc1#/po", "action": "box", "accept_box": True, "who": "ana"}) + "\n")
    code, out = cli(["adjudicate", ws["out"], "--decisions", dec], capsys)
    assert code == 2 and "still contested" in out


def test_adjudication_round_trip_with_audit_trail(tmp_path, capsys):
    outputs = {"a": {"name": "Acme", "po": "PO-1", "date": None, "items": [{"id": "I1", "qty": 1}]},
               "b": {"name": "Apex", "po": "PO-1", "date": "2021-01-02", "items": [{"id": "I1", "qty": 1},
                                                                               {"id": "I9", "qty": 4}]},
               "c": {"name": "Acne", "po": "PO-1", "items": [{"id": "I1", "qty": 1}]}}
    ws = workspace(tmp_path, outputs, {"a": "A", "b": "B", "c": "C"})
    assert cli(consensus_args(ws), capsys)[0] == 0
    queue = {json.loads(x)["id"] for x in (ws["out"] / "queue.jsonl").read_text().splitlines()}
    assert queue == {"doc1#/name", "doc1#/date", "doc1#/items/+0"}   # /date: null over a value
    decisions = tmp_path / "decisions.jsonl"
    lines = [
        {"id": "doc1#/name", "action": "accept", "system": "a", "who": "ana", "when": "2026-11-29T10:00:00Z",
         "box": {"page": 1, "box": BOX}},
        {"doc": "doc1", "path": "/po", "action": "edit", "value": "PO-0001", "who": "ana",
         "when": "2026-11-29T10:01:00Z"},
        {"id": "doc1#/date", "action": "null"},
        {"id": "doc1#/items/+0", "action": "accept", "system": "b"},
    ]
    decisions.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    code, out = cli(["adjudicate", ws["out"], "--decisions", decisions, "--who", "bo"], capsys)
    assert code == 0, out
    assert cli(["check", ws["out"]], capsys)[0] == 0
    [b] = read_bundles(ws["out"])
    f = {x.path: x for x in b.gt.fields}
    assert b.gt.expected["name"] == "Acme" and f["/name"].trust == "adjudicated"
    assert f["/name"].readings[0].evidence[0].box == tuple(BOX)
    assert b.gt.expected["po"] == "PO-0001" and f["/po"].trust == "human"
    assert f["/date"].trust == "human" and b.gt.expected["date"] is None
    assert b.gt.expected["items"][1]["id"] == "I9" and f["/items/1/qty"].trust == "adjudicated"
    assert (ws["out"] / "queue.jsonl").read_text() == ""
    audit = [json.loads(x) for x in (ws["out"] / "audit.jsonl").read_text().splitlines()]
    assert [a["seq"] for a in audit] == [1, 2, 3, 4]
    assert audit[0]["who"] == "ana" and audit[0]["when"] == "2026-11-29T10:00:00Z"
    assert audit[0]["before"]["trust"] == "pending" and audit[0]["after"]["readings"][0]["value"] == "Acme"
    assert audit[2]["who"] == "bo" and audit[2]["when"] is None      # no timestamp unless asked for
    # append-only: a second round adds lines, keeps the old ones
    decisions.write_text(json.dumps({"id": "doc1#/po", "action": "box", "box": {"page": 1, "box": BOX},
                                     "who": "cy", "when": "2026-11-30T09:00:00Z"}) + "\n")
    assert cli(["adjudicate", ws["out"], "--decisions", decisions], capsys)[0] == 0
    audit2 = [json.loads(x) for x in (ws["out"] / "audit.jsonl").read_text().splitlines()]
    assert audit2[:4] == audit and audit2[4]["seq"] == 5 and audit2[4]["action"] == "box"
    # a decision naming an unknown cell: one line, exit 2, nothing changed
    before = {p: p.read_bytes() for p in ws["out"].rglob("*") if p.is_file()}
    decisions.write_text(json.dumps({"id": "doc1#/nope", "action": "null", "who": "x"}) + "\n")
    code, out = cli(["adjudicate", ws["out"], "--decisions", decisions], capsys)
    assert code == 2 and "unknown cell doc1#/nope" in out and len(out.strip().splitlines()) == 1
    assert {p: p.read_bytes() for p in ws["out"].rglob("*") if p.is_file()} == before


def test_schema_hash_refusal(tmp_path, capsys):
    outputs = {"a": {"name": "x"}, "b": {"name": "x"}}
    ws = workspace(tmp_path, outputs, {"a": "A", "b": "B"}, hashes={"b": "0" * 64})
    code, out = cli(consensus_args(ws), capsys)
    assert code == 2 and ": b (declares 000000000000" in out and " a (declares" not in out
    assert not ws["out"].exists()
    # the same version number with another hash: the schema was revised without a version bump
    ws["systems"].write_text('schema_version = "1"\n' + ws["systems"].read_text())
    code, out = cli(consensus_args(ws), capsys)
    assert code == 2 and "same version 1" in out and "without a version bump" in out


@pytest.mark.parametrize("case", ["not_json", "not_object", "unknown_system", "no_pdf", "no_runs_for_pdf"])
def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, case):
    outputs: dict[str, Any] = {"a": {"name": "x"}, "b": {"name": "x"}}
    if case == "not_json":
        outputs["b"] = "{not json"
    if case == "not_object":
        outputs["b"] = "[1, 2]"
    ws = workspace(tmp_path, outputs, {"a": "A", "b": "B"})
    if case == "unknown_system":
        (ws["runs"] / "zed").mkdir()
        (ws["runs"] / "zed" / "doc1.json").write_text("{}")
    if case == "no_pdf":
        (ws["runs"] / "a" / "doc2.json").write_text("{}")
    if case == "no_runs_for_pdf":
        make_pdf(ws["docs"] / "doc3.pdf", ["x"])
    code, out = cli(consensus_args(ws), capsys)
    assert code == 2, out
    assert len(out.strip().splitlines()) == 1 and out.startswith("gtkit: error:")
    assert {"not_json": "malformed JSON", "not_object": "must be a JSON object",
            "unknown_system": "missing from systems.toml", "no_pdf": "no ",
            "no_runs_for_pdf": "no system has a run"}[case] in out
    assert not ws["out"].exists() and not list(tmp_path.glob(".gt*"))


def test_wrong_type_values_are_vote_failures_not_crashes(tmp_path, capsys):
    outputs = {"a": '{"name": "x", "total": NaN, "items": [{"id": "I1", "qty": "two"}]}',
               "b": {"name": {"oops": 1}, "total": 3, "items": {"id": "I1"}},
               "c": {"name": "x", "total": [3], "items": [{"id": "I1", "qty": 2}, "junk"]}}
    ws = workspace(tmp_path, outputs, {"a": "A", "b": "B", "c": "C"})
    code, out = cli(consensus_args(ws), capsys)
    assert code == 0, out
    rep = json.loads((ws["out"] / "report.json").read_text())
    assert set(rep["vote_failures"]) == {"a", "b", "c"}
    assert rep["vote_failures"]["b"]["count"] == 2 and rep["vote_failures"]["a"]["count"] == 2
    [b] = read_bundles(ws["out"])
    assert b.gt.expected["name"] == "x" and b.gt.expected["total"] == 3


def test_audit_queues_cells_many_systems_miss(tmp_path, capsys):
    outputs = {"a": {"name": "Acme", "po": "PO-1", "items": [{"id": "I1", "qty": 1}]},
               "b": {"name": "Acme", "po": "PO-1", "items": [{"id": "I1", "qty": 1}]},
               "c": {"name": "Acme", "po": "PO-1", "items": [{"id": "I1", "qty": 1}]}}
    ws = workspace(tmp_path, outputs, {"a": "A", "b": "B", "c": "C"})
    assert cli(consensus_args(ws), capsys)[0] == 0
    # systems now say otherwise about po and qty: the truth is suspect there
    for s in "ab":
        (ws["runs"] / s / "doc1.json").write_text(json.dumps(
            {"name": "Acme", "po": "PO-7", "items": [{"id": "I1", "qty": 9}, {"id": "I2", "qty": 1}]}))
    q = tmp_path / "audit.jsonl"
    code, out = cli(["audit", "--gt", ws["out"], "--runs", ws["runs"], "--systems", ws["systems"], "--out", q], capsys)
    assert code == 0, out
    items = [json.loads(x) for x in q.read_text().splitlines()]
    assert {(i["kind"], i["path"]) for i in items} == {("cell", "/po"), ("cell", "/items/0/qty"),
                                                        ("missing_record", "/items/-")}
    # a truth row that every system misses
    for s in "abc":
        (ws["runs"] / s / "doc1.json").write_text(json.dumps({"name": "Acme", "po": "PO-1", "items": []}))
    code, out = cli(["audit", "--gt", ws["out"], "--runs", ws["runs"], "--out", q, "--force"], capsys)
    assert code == 0, out
    items = [json.loads(x) for x in q.read_text().splitlines()]
    assert [(i["kind"], i["path"], i["miss_share"]) for i in items] == [("missed_record", "/items/0", 1.0)]


@pytest.mark.parametrize("promote, coverage", [("majority", 0.9), ("unanimous", 0.7)])
def test_simulated_ensemble_promotes_only_correct_cells(tmp_path, promote, coverage):
    from gtkit.consensus.run import run_consensus
    from gtkit.testing.measure import evaluate
    from gtkit.testing.simulate import simulate

    truth = simulate(tmp_path / "ws", seed=11, n_docs=3, n_rows=25)
    ws = tmp_path / "ws"
    run_consensus(ws / "schema.json", ws / "docs", ws / "runs", ws / "systems.toml", tmp_path / "gt",
                  promote=promote)
    m = evaluate(truth, tmp_path / "gt")
    assert m["promoted_correct_share"] == 1.0
    assert m["wrong_votes"] > 50 and m["wrong_votes_queued_or_outvoted_share"] == 1.0
    assert m["ambiguity_share"] == 1.0 and m["coverage"] > coverage


def test_nested_records_and_free_form_objects(tmp_path, capsys):
    schema = {"type": "object", "properties": {
        "orders": {"type": "array", "x-identity": ["no"], "items": {"type": "object", "properties": {
            "no": {"type": "string"},
            "lines": {"type": "array", "x-identity": ["sku"], "items": {"type": "object", "properties": {
                "sku": {"type": "string"}, "qty": {"type": ["integer", "null"]}}}}}}},
        "extra": {"type": ["object", "null"]},
    }}
    o1 = {"orders": [{"no": "A", "lines": [{"sku": "x", "qty": 1}, {"sku": "y", "qty": 2}]},
                     {"no": "B", "lines": [{"sku": "z", "qty": 3}]}], "extra": {"note": "hi", "n": 2}}
    o2 = {"orders": [{"no": "B", "lines": [{"sku": "z", "qty": 3}]},
                     {"no": "A", "lines": [{"sku": "y", "qty": 2}, {"sku": "x", "qty": 1}]}], "extra": {"note": "hi"}}
    ws = workspace(tmp_path, {"a": o1, "b": o2, "c": o1}, {"a": "A", "b": "B", "c": "C"}, schema=schema)
    code, out = cli(consensus_args(ws, "--promote", "majority"), capsys)   # b's /extra is outvoted
    assert code == 0, out
    assert cli(["check", ws["out"]], capsys)[0] == 0
    [b] = read_bundles(ws["out"])
    exp = b.gt.expected
    assert {o["no"]: sorted((x["sku"], x["qty"]) for x in o["lines"]) for o in exp["orders"]} == \
        {"A": [("x", 1), ("y", 2)], "B": [("z", 3)]}
    assert exp["extra"] == {"note": "hi", "n": 2}
    assert all(f.trust == "agreed" for f in b.gt.fields)


def test_alignment_without_identity_and_a_family_wide_misread_key():
    schema = {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}, "d": {"type": "string"}}}}}}
    rows = [{"a": f"a{i}", "b": f"b{i}", "c": f"c{i}", "d": f"d{i}"} for i in range(30)]
    outs = {}
    for k, s in enumerate(["x1", "x2", "y", "z"]):
        mine = [dict(r) for r in rows]
        random.Random(k).shuffle(mine)
        outs[s] = {"items": mine}
    next(r for r in outs["y"]["items"] if r["a"] == "a3")["b"] = "WRONG"     # one field off in two families
    next(r for r in outs["z"]["items"] if r["a"] == "a3")["c"] = "WRONG"
    r = run(outs, {"x1": "X", "x2": "X", "y": "Y", "z": "Z"}, schema=schema)
    assert not r.extras and sorted(x["a"] for x in r.expected["items"]) == sorted(x["a"] for x in rows)
    assert all(x == rows[int(x["a"][1:])] for x in r.expected["items"])
    # both systems of one family misread the same key: still one row, the family outvoted
    rows2 = _rows(10)
    outs = {s: {"items": [dict(x) for x in rows2]} for s in ["a1", "a2", "b", "c"]}
    for s in ["a1", "a2"]:
        outs[s]["items"][4]["id"] = "ID-OOO4"
    r = run(outs, {"a1": "A", "a2": "A", "b": "B", "c": "C"})
    assert not r.extras and len(r.expected["items"]) == 10 and r.rows_fallback == 2
    c = next(c for c in r.cells if c.field == "/items/*/id" and c.tier != UNANIMOUS)
    assert c.value == "ID-0004" and c.tier == MAJORITY and c.cause == MODEL_FAILURE


def test_schema_problems_of_expected_are_counted_once_per_kind():
    from gtkit.consensus.expected_check import schema_problems

    schema = {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "string", "pattern": "^x"}}}}}}
    root = compile_schema(schema)
    rows = [{"a": f"v{i}", "b": "x1"} for i in range(100)]
    assert schema_problems(schema, root, {"items": rows}) == 0
    rows[5]["a"] = None          # a null where the schema has no null
    rows[7]["b"] = "y"           # a pattern the value breaks
    rows[8]["b"] = "z"
    assert schema_problems(schema, root, {"items": rows}) == 3
