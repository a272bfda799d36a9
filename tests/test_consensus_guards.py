"""consensus refuses inputs that would make agreement meaningless: a listed system without runs, one family."""

from __future__ import annotations

import shutil

import pytest

from gtkit.cli import main
from gtkit.testing.simulate import simulate


@pytest.fixture(scope="module")
def ws(tmp_path_factory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("ws")
    simulate(root, seed=2, n_docs=1, n_rows=4)
    return root


def run(ws, systems, runs, capsys):  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exc:
        main(["consensus", "--schema", str(ws / "schema.json"), "--docs", str(ws / "docs"), "--runs", str(runs),
              "--systems", str(systems), "--out", str(ws / "out")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and len(err.strip().splitlines()) == 1, err
    assert not (ws / "out").exists()
    return err


def test_a_listed_system_without_runs_is_refused(ws, tmp_path, capsys):  # type: ignore[no-untyped-def]
    systems = tmp_path / "systems.toml"
    systems.write_text((ws / "systems.toml").read_text() + '\n[systems.typo]\nfamily = "mistral"\ncites = false\n')
    assert "system 'typo' is listed but has no runs folder" in run(ws, systems, ws / "runs", capsys)


def test_systems_of_one_family_are_refused(ws, tmp_path, capsys):  # type: ignore[no-untyped-def]
    runs = tmp_path / "runs"
    for s in ("google-a", "google-b"):
        shutil.copytree(ws / "runs" / s, runs / s)
    head = (ws / "systems.toml").read_text().split("[systems.")[0].replace('citing = "openai-a"', "")
    systems = tmp_path / "systems.toml"
    systems.write_text(head + '[systems.google-a]\nfamily = "google"\n\n[systems.google-b]\nfamily = "google"\n')
    assert "at least two model families" in run(ws, systems, runs, capsys)


STRICT = {"title": "t", "version": "1", "type": "object", "required": ["name", "total"],
          "properties": {"name": {"type": "string"}, "total": {"type": "number", "x-comparator": "number"}}}


@pytest.mark.parametrize("decision, needle", [
    ({"id": "doc1#/name", "action": "null"}, "line 1: doc1#/name: the schema refuses the decided value"),
    ({"id": "doc1#/name", "action": "edit", "value": None}, "line 1: doc1#/name: the schema refuses"),
    ({"id": "doc1#/name", "action": "edit", "value": "  "}, "line 1: doc1#/name: an empty value is not a value"),
    ({"id": "doc1#/total", "action": "edit", "value": "lots"}, "line 1: doc1#/total"),
    ({"id": "doc1#/name", "action": "edit", "value": "Acme", "trust": "constructed"}, "line 1: /trust"),
])
def test_a_decision_the_schema_refuses_changes_nothing(tmp_path, capsys, decision, needle):  # type: ignore[no-untyped-def]
    import json

    from test_consensus import cli, consensus_args, workspace

    outputs = {"a": {"name": "Acme", "total": 5}, "b": {"name": "Acme Inc", "total": 5},
               "c": {"name": "Acme", "total": 6}}
    ws = workspace(tmp_path, outputs, {"a": "A", "b": "B", "c": "C"}, schema=STRICT)
    code, out = cli(consensus_args(ws), capsys)
    assert code == 0, out
    before = (ws["out"] / "doc1" / "gt.json").read_bytes()
    dec = tmp_path / "decisions.jsonl"
    dec.write_text(json.dumps({**decision, "who": "ana"}) + "\n")
    code, out = cli(["adjudicate", ws["out"], "--decisions", dec], capsys)
    assert code == 2 and needle in out and len(out.strip().splitlines()) == 1, out
    assert (ws["out"] / "doc1" / "gt.json").read_bytes() == before
    assert cli(["check", ws["out"]], capsys)[0] == 0


STRUCTURED = {"title": "t", "version": "1", "type": "object", "properties": {
    "pay": {"oneOf": [
        {"type": "object", "properties": {"iban": {"type": "string"}}, "required": ["iban"],
         "additionalProperties": False},
        {"type": "object", "properties": {"card": {"type": "string"}}, "required": ["card"],
         "additionalProperties": False}]},
    "grid": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
    "name": {"type": "string"}}}


def test_unanimous_structured_leaves_are_agreed_not_vote_failures(tmp_path, capsys):  # type: ignore[no-untyped-def]
    import json

    from test_consensus import cli, consensus_args, workspace

    out = {"pay": {"iban": "DE12"}, "grid": [[1, 2], [3, 4]], "name": "Acme"}
    bad = {"pay": {"iban": "DE12", "card": "4111"}, "grid": [[1, "x"]], "name": "Acme"}
    ws = workspace(tmp_path, {"a": out, "b": out, "c": out, "d": bad}, {"a": "A", "b": "B", "c": "C", "d": "D"},
                   schema=STRUCTURED)
    assert cli(consensus_args(ws, "--promote", "majority"), capsys)[0] == 0   # d's failures outvoted
    assert cli(["check", ws["out"]], capsys)[0] == 0
    gt = json.loads((ws["out"] / "doc1" / "gt.json").read_text())
    assert gt["expected"] == out and all(f["trust"] == "agreed" for f in gt["fields"])
    report = json.loads((ws["out"] / "report.json").read_text())
    assert report["vote_failures"]["d"]["count"] == 2  # the invalid structures are failures, the valid ones are not
    assert "a" not in report["vote_failures"] and report["rescore"]["a"]["value_f1"] == 1.0


def test_accepting_a_vote_again_after_an_earlier_adjudication_says_already_decided(tmp_path, capsys):  # type: ignore[no-untyped-def]
    import json

    from test_consensus import cli, consensus_args, workspace

    outputs = {"a": {"name": "Acme", "total": 5}, "b": {"name": "Acme Inc", "total": 5},
               "c": {"name": "ACME", "total": 5}}
    ws = workspace(tmp_path, outputs, {"a": "A", "b": "B", "c": "C"}, schema=STRICT)
    assert cli(consensus_args(ws), capsys)[0] == 0
    dec = tmp_path / "decisions.jsonl"
    dec.write_text(json.dumps({"id": "doc1#/name", "action": "accept", "system": "a", "who": "ana"}) + "\n")
    assert cli(["adjudicate", ws["out"], "--decisions", dec], capsys)[0] == 0
    code, out = cli(["adjudicate", ws["out"], "--decisions", dec], capsys)
    assert code == 2 and "doc1#/name is already decided" in out, out
