"""Typed consensus inputs: systems.toml and decisions.jsonl refused in one line naming file, line and key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli
from test_consensus import consensus_args, workspace

FAMILIES = {"a": "A", "b": "B", "c": "C"}
OUTPUTS = {"a": {"name": "Acme", "po": "PO-1"}, "b": {"name": "Apex", "po": "PO-1"},
           "c": {"name": "Acne", "po": "PO-1"}}


def assert_refused(code: int, err: str, *names: str) -> None:
    """Exit status 2 and exactly one line on stderr, no traceback, naming every one of `names`."""
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gtkit: error: "), err
    assert "Traceback" not in err
    for name in names:
        assert name in lines[0], (name, lines[0])


# --- systems.toml -----------------------------------------------------------------------------------------------


def _edit_system_a(ws: dict[str, Path], old: str, new: str) -> None:
    text = ws["systems"].read_text()
    head, rest = text.split("[systems.b]", 1)
    assert old in head
    ws["systems"].write_text(head.replace(old, new, 1) + "[systems.b]" + rest)


@pytest.mark.parametrize("case, old, new, pointer, message", [
    ("unknown key", 'family = "A"', 'family = "A"\ncolour = "red"', "/systems/a/colour", "unknown key"),
    ("wrong type", "cites = false", 'cites = "no"', "/systems/a/cites", "valid boolean"),
    ("missing key", 'family = "A"\n', "", "/systems/a/family", "required key is missing"),
])
def test_systems_toml_refused_by_key(tmp_path, capsys, case, old, new, pointer, message):
    ws = workspace(tmp_path, OUTPUTS, FAMILIES)
    _edit_system_a(ws, old, new)
    code, _, err = run_cli(consensus_args(ws), capsys)
    assert_refused(code, err, str(ws["systems"]), pointer, message)
    assert not ws["out"].exists()


def test_systems_toml_without_a_systems_table(tmp_path, capsys):
    ws = workspace(tmp_path, OUTPUTS, FAMILIES)
    ws["systems"].write_text(ws["systems"].read_text().replace("[systems.", "["))
    code, _, err = run_cli(consensus_args(ws), capsys)
    assert code == 0, err
    report = json.loads((ws["out"] / "report.json").read_text())
    assert report["systems"] == {s: {"family": f, "cites": False} for s, f in FAMILIES.items()}  # the top-level tables
    [cell] = [json.loads(x) for x in (ws["out"] / "queue.jsonl").read_text().splitlines()]
    assert [(v["system"], v["family"], v["vote"]) for v in cell["votes"]] == \
        [(s, f, OUTPUTS[s]["name"]) for s, f in FAMILIES.items()]  # and each voted
    # there, a key that is not a table is no system
    ws["systems"].write_text('citng = "a"\n' + ws["systems"].read_text())
    code, _, err = run_cli(consensus_args(ws, "--force"), capsys)
    assert_refused(code, err, str(ws["systems"]), "/citng", "unknown key")


# --- decisions.jsonl --------------------------------------------------------------------------------------------

GOOD = {"id": "doc1#/name", "action": "accept", "system": "a", "who": "ana"}


@pytest.mark.parametrize("case, line, pointer, message", [
    ("unknown key", {"id": "doc1#/po", "action": "null", "colour": "red"}, "/colour", "unknown key"),
    ("wrong type", {"id": "doc1#/name", "action": "accept", "candidate": "1"}, "/candidate", "valid integer"),
    ("missing key", {"id": "doc1#/po", "action": "edit"}, "/value", "required key is missing"),
    ("missing action", {"id": "doc1#/po", "value": "x"}, "/action", "required key is missing"),
    ("key of another action", {"id": "doc1#/po", "action": "reject", "accept_box": True}, "/accept_box", "unknown key"),
    ("wrong type in a box", {"id": "doc1#/po", "action": "edit", "value": "PO-1", "box": {"page": "1"}},
     "/box/page", "valid integer"),
])
def test_decisions_refused_by_line_and_key_before_anything_is_applied(tmp_path, capsys, case, line, pointer, message):
    ws = workspace(tmp_path, OUTPUTS, FAMILIES)
    assert run_cli(consensus_args(ws), capsys)[0] == 0
    before = {p: p.read_bytes() for p in ws["out"].rglob("*") if p.is_file()}
    decisions = tmp_path / "decisions.jsonl"
    decisions.write_text(json.dumps(GOOD) + "\n" + json.dumps(line) + "\n")
    code, _, err = run_cli(["adjudicate", ws["out"], "--decisions", decisions, "--who", "bo"], capsys)
    assert_refused(code, err, f"{decisions}: line 2: {pointer}", message)
    assert {p: p.read_bytes() for p in ws["out"].rglob("*") if p.is_file()} == before


def test_every_action_with_its_keys_is_accepted(tmp_path, capsys):
    outputs = {"a": {"name": "Acme", "po": "PO-1", "total": 5, "items": [{"id": "I1"}]},
               "b": {"name": "Apex", "po": "PO-1", "total": 5, "items": [{"id": "I1"}, {"id": "I8"}, {"id": "I9"}]},
               "c": {"name": "Acne", "po": "PO-1", "total": 5, "items": [{"id": "I1"}]}}
    ws = workspace(tmp_path, outputs, FAMILIES)
    assert run_cli(consensus_args(ws), capsys)[0] == 0
    queue = {json.loads(x)["id"] for x in (ws["out"] / "queue.jsonl").read_text().splitlines()}
    assert {"doc1#/name", "doc1#/items/+0", "doc1#/items/+1"} <= queue
    box = {"page": 1, "box": [0.1, 0.1, 0.3, 0.13]}
    lines = [
        {"id": "doc1#/name", "action": "accept", "candidate": 1, "note": "the second", "when": "2026-11-29T10:00:00Z"},
        {"doc": "doc1", "path": "/po", "action": "edit", "value": "PO-2", "evidence": [box, {"page": 1}]},
        {"id": "doc1#/date", "action": "null", "trust": "adjudicated"},
        {"id": "doc1#/total", "action": "box", "box": box},
        {"id": "doc1#/items/+0", "action": "accept", "system": "b"},
        {"id": "doc1#/items/+1", "action": "reject"},
    ]
    decisions = tmp_path / "decisions.jsonl"
    decisions.write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, out, err = run_cli(["adjudicate", ws["out"], "--decisions", decisions, "--who", "bo"], capsys)
    assert code == 0, err
    assert "6 decision(s) applied" in out
    assert run_cli(["check", ws["out"]], capsys)[0] == 0
    audit = [json.loads(x) for x in (ws["out"] / "audit.jsonl").read_text().splitlines()]
    assert [a["action"] for a in audit] == ["accept", "edit", "null", "box", "accept", "reject"]
    assert audit[0]["note"] == "the second" and audit[1]["when"] is None
    # evidence a person gives is written as the format writes evidence, before and after alike
    assert audit[1]["after"]["readings"][0]["evidence"][1] == {"page": 1, "box": None, "words": None, "quad": None,
                                                                 "quote": None, "verified": False}
