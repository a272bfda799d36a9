"""The promotion rule: `unanimous` (the default) promotes only cells every voting system agrees on, and queues
every disagreement classed by cause; `majority` also promotes a clear majority that is neither schema ambiguity nor
null over a value. The rule is recorded in report.json, report.md and each bundle's provenance, and a build plan's
[[consensus]] entry chooses it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli

from gtkit.consensus.causes import classify_document
from gtkit.consensus.cells import (
    ALL_NULL,
    MAJORITY,
    MODEL_FAILURE,
    PROMOTE_MAJORITY,
    PROMOTE_UNANIMOUS,
    SPLIT,
    UNANIMOUS,
    UNRESOLVABLE,
)
from gtkit.consensus.tiers import settle
from gtkit.consensus.votes import INVALID, Voters
from gtkit.consensus.walk import walk_document
from gtkit.errors import GtkitError
from gtkit.format.bundle import read_bundles
from gtkit.schema import compile_schema
from gtkit.scoring.normalize import comparator_key

SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "name": {"type": ["string", "null"]},
    "total": {"type": ["number", "null"], "x-comparator": "number"},
    "note": {"type": ["string", "null"]},
    "items": {"type": "array", "x-identity": ["id"], "items": {"type": "object", "properties": {
        "id": {"type": ["string", "null"]}, "qty": {"type": ["integer", "null"]}}}},
}}
FAM = {"a": "A", "b": "B", "c": "C"}


def decide(outputs: dict[str, Any], promote: str | None = None) -> dict[str, Any]:
    voters = Voters(systems=sorted(outputs), family={s: FAM[s] for s in outputs})
    r = walk_document("d", compile_schema(SCHEMA), outputs, voters)
    classify_document(r, lambda: "")
    for c in r.cells:
        if promote is None:
            settle(c)
        else:
            settle(c, promote)
    return {c.pointer: c for c in r.cells}


def test_unanimous_promotes_only_what_every_voting_system_agrees_on():
    outputs = {
        "a": {"name": "Acme", "total": 5, "note": None, "items": [{"id": "I1", "qty": 2}, {"id": "I2", "qty": 1}]},
        "b": {"name": " Acme ", "total": "5", "items": [{"id": "I2", "qty": 1}, {"id": "I1", "qty": 3}]},
        "c": {"name": "Acme", "total": 5.0, "note": "x", "items": [{"id": "I1", "qty": 2}]},
    }
    for promote in (None, PROMOTE_UNANIMOUS, PROMOTE_MAJORITY):   # None: the default
        cells = decide(outputs, promote)
        # every system agrees (whitespace collapsed), or every system voted null: promoted under both rules
        assert cells["/name"].tier == UNANIMOUS and not cells["/name"].pending
        assert cells["/items/0/id"].tier == UNANIMOUS and not cells["/items/0/id"].pending
        rule = promote or PROMOTE_UNANIMOUS
        # a vote failure ("5" for a number) is a dissent, not an abstention: a majority, one family against
        total = cells["/total"]
        assert total.tier == MAJORITY and total.keys["b"] == INVALID and total.cause == MODEL_FAILURE
        assert total.pending == (rule == PROMOTE_UNANIMOUS) and total.value == 5
        # a different value from one family: a model failure, queued unless the rule is majority
        qty = cells["/items/0/qty"]
        assert (qty.tier, qty.cause, qty.value) == (MAJORITY, MODEL_FAILURE, 2)
        assert qty.pending == (rule == PROMOTE_UNANIMOUS)
        # an omitted key and a null are null votes, which disagree with a value: null over a value, always queued
        assert cells["/note"].tier == MAJORITY and cells["/note"].null_over_value and cells["/note"].pending
        # a row one system lacks: that system's null votes disagree with the others' values
        row = [c for p, c in cells.items() if p.startswith("/items/1/")]
        assert row and all(c.tier == MAJORITY for c in row)
        assert all(c.pending == (rule == PROMOTE_UNANIMOUS) for c in row)


def test_a_system_without_a_run_abstains_and_a_tied_row_is_queued_under_both_rules():
    # c has no run for the document: it does not vote, so a and b agreeing is unanimous
    cells = decide({"a": {"name": "Acme", "items": []}, "b": {"name": "Acme", "items": []}})
    assert cells["/name"].tier == UNANIMOUS and not cells["/name"].pending
    assert cells["/total"].tier == ALL_NULL and not cells["/total"].pending
    # two families, each its own value: a split, never promoted
    for promote in (PROMOTE_UNANIMOUS, PROMOTE_MAJORITY):
        cells = decide({"a": {"name": "Acme"}, "b": {"name": "Apex"}}, promote)
        assert (cells["/name"].tier, cells["/name"].cause, cells["/name"].pending) == (SPLIT, UNRESOLVABLE, True)
    # a row present in exactly half of the family weight: its unanimous cells are forced to split and queued
    for promote in (PROMOTE_UNANIMOUS, PROMOTE_MAJORITY):
        cells = decide({"a": {"items": [{"id": "I1", "qty": 2}]}, "b": {"items": []}}, promote)
        assert all(c.tier == SPLIT and c.pending for p, c in cells.items() if p.startswith("/items/0/"))


# --- end to end on the simulated ensemble ---------------------------------------------------------------------------


def _key(value: Any, comparator: str) -> Any:
    return None if value is None else comparator_key(value, comparator)


@pytest.fixture(scope="module")
def sim(tmp_path_factory) -> tuple[Path, Any]:
    from gtkit.testing.simulate import simulate

    root = tmp_path_factory.mktemp("promote")
    return root, simulate(root / "ws", seed=5, n_docs=2, n_rows=20)


def _consensus(sim: tuple[Path, Any], out: str, capsys, *extra: str) -> Path:  # type: ignore[no-untyped-def]
    root, _ = sim
    ws = root / "ws"
    code, stdout, stderr = run_cli(["consensus", "--schema", ws / "schema.json", "--docs", ws / "docs", "--runs",
                                    ws / "runs", "--systems", ws / "systems.toml", "--out", root / out,
                                    "--no-rescore", *extra], capsys)
    assert code == 0, stdout + stderr
    return root / out


def test_by_default_every_promoted_cell_has_every_system_agreeing(sim, capsys):
    """Checked against the systems' own runs, not the consensus's votes: a top-level field's value, and a row
    field's value in every row of every system with that line_id (a misread key counts as the row, disagreeing
    on line_id; a system without the row disagrees)."""
    from gtkit.testing.simulate import SCHEMA as SIM_SCHEMA
    from gtkit.testing.simulate import _misread

    root, truth = sim
    out = _consensus(sim, "gt", capsys)
    node = compile_schema(SIM_SCHEMA)
    assert node.props["lines"].item is not None
    comps = {**{n: p.comparator for n, p in node.props.items() if n != "lines"},
             **{n: p.comparator for n, p in node.props["lines"].item.props.items()}}
    runs = {s.name: s for s in (root / "ws" / "runs").iterdir()}
    checked = 0
    for b in read_bundles(out, verify=False):
        assert b.gt.provenance.parameters["promote"] == "unanimous"
        outputs = {s: json.loads((p / f"{b.doc_id}.json").read_text()) for s, p in runs.items()
                   if (p / f"{b.doc_id}.json").is_file()}
        assert len(outputs) == 5
        for f in b.gt.fields:
            if f.trust != "agreed":
                continue
            parts = f.path.split("/")
            name = parts[-1]
            want = _key(f.readings[0].value, comps[name])
            if len(parts) == 2:
                got = [_key(o.get(name), comps[name]) for o in outputs.values()]
            else:
                lid = b.gt.expected["lines"][int(parts[2])]["line_id"]
                got = []
                for o in outputs.values():
                    rows = [r for r in o["lines"] if r["line_id"] in (lid, _misread(lid))]
                    got += [_key(r[name], comps[name]) for r in rows] or ["<no row>"]
            assert all(g == want for g in got), (b.doc_id, f.path, want, got)
            checked += 1
    assert checked > 100
    # every wrong value a system gave is queued, none outvoted and promoted
    from gtkit.testing.measure import evaluate

    m = evaluate(truth, out)
    assert m["promoted_correct_share"] == 1.0 and m["wrong_votes_queued_or_outvoted_share"] == 1.0
    rep = json.loads((out / "report.json").read_text())
    t = rep["totals"]
    # every field is nullable here, so every unanimous and all-null cell is promoted, and nothing else
    assert rep["promote"] == "unanimous" and t["agreed"] == t["tiers"]["unanimous"] + t["tiers"]["all_null"]
    assert "- promotion rule: unanimous" in (out / "report.md").read_text()
    assert any(json.loads(x)["tier"] == "majority" and json.loads(x)["cause"] == "model_failure"
               for x in (out / "queue.jsonl").read_text().splitlines())


def test_majority_rule_by_choice_promotes_more_and_says_so(sim, capsys):
    unanimous = json.loads((_consensus(sim, "gt-u", capsys) / "report.json").read_text())
    out = _consensus(sim, "gt-m", capsys, "--promote", "majority")
    majority = json.loads((out / "report.json").read_text())
    assert majority["promote"] == "majority"
    assert all(b.gt.provenance.parameters["promote"] == "majority" for b in read_bundles(out, verify=False))
    assert majority["totals"]["agreed"] > unanimous["totals"]["agreed"]
    assert majority["totals"]["queued"] < unanimous["totals"]["queued"]
    assert majority["totals"]["tiers"] == unanimous["totals"]["tiers"]   # the votes are the same, only the rule
    code, stdout, stderr = run_cli(["consensus", "--schema", "s.json", "--docs", "d", "--runs", "r", "--systems",
                                    "s.toml", "--out", str(sim[0] / "x"), "--promote", "most"], capsys)
    assert code == 2 and "unknown promotion rule 'most'" in stdout + stderr


def test_a_build_plan_chooses_the_rule(sim, tmp_path):
    from gtkit.builder.plan import read_plan
    from gtkit.builder.tasks import make_consensus

    root, _ = sim
    plan = tmp_path / "plan.toml"
    entry = f'seed = 1\n[[consensus]]\nname = "inv"\nfolder = "{root / "ws"}"\n'
    [task] = read_plan(_write(plan, entry)).tasks
    assert task.promote == "unanimous"    # type: ignore[union-attr]
    [task] = read_plan(_write(plan, entry + 'promote = "majority"\n')).tasks
    assert task.promote == "majority"     # type: ignore[union-attr]
    make_consensus(task, str(tmp_path / "ds"))   # type: ignore[arg-type]
    out = tmp_path / "ds" / "consensus" / "inv"
    assert json.loads((out / "report.json").read_text())["promote"] == "majority"
    with pytest.raises(GtkitError, match="promote"):
        read_plan(_write(plan, entry + 'promote = "most"\n'))


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path
