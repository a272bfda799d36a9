"""Grounding is scored only over verified evidence (format gtkit.gt/2); version-1 files are read and upgraded."""

from __future__ import annotations

import json

from helpers import INVOICE, INVOICE_SCHEMA, make_bundle

from gtkit.format.bundle import read_bundle
from gtkit.scoring.run import score_path


def test_a_consensus_citing_system_no_longer_grounds_against_its_own_boxes(tmp_path, capsys):  # type: ignore[no-untyped-def]
    from test_consensus import LINES, cli, consensus_args, make_pdf, workspace

    where = make_pdf(tmp_path / "layout.pdf", LINES)
    out = {"name": "Acme", "po": "PO-1234", "total": 5, "items": []}
    cites = {"b": {"/name": [{"page": 1, "box": where["Acme"]}], "/po": [{"page": 1, "box": where["PO-1234"]}]}}
    ws = workspace(tmp_path, {"a": out, "b": out, "c": out}, {"a": "A", "b": "B", "c": "C"}, citations=cites)
    assert cli(consensus_args(ws), capsys)[0] == 0
    [entry] = [f for f in json.loads((ws["out"] / "doc1" / "gt.json").read_text())["fields"] if f["path"] == "/name"]
    assert entry["readings"][0]["evidence"][0]["box"] == where["Acme"]
    assert entry["readings"][0]["evidence"][0]["verified"] is False
    report = json.loads((ws["out"] / "report.json").read_text())
    assert report["rescore"]["b"]["value_f1"] == 1.0 and report["rescore"]["b"]["word_f1"] is None
    # a person accepts the cited box: now it is verified, and grounding counts it
    dec = tmp_path / "d.jsonl"
    dec.write_text(json.dumps({"id": "doc1#/name", "action": "box", "accept_box": True, "who": "ana"}) + "\n")
    assert cli(["adjudicate", ws["out"], "--decisions", dec], capsys)[0] == 0
    pred = tmp_path / "pred"
    pred.mkdir()
    (pred / "doc1.json").write_text(json.dumps(out))
    (pred / "doc1.citations.json").write_text(json.dumps(cites["b"]))
    doc = score_path(ws["out"], pred).documents[0]
    assert (doc.word.correct, doc.word.n_truth) == (1, 1)  # only /name is verified


def test_a_version_1_file_is_read_with_verification_from_trust(tmp_path):  # type: ignore[no-untyped-def]
    b = make_bundle(tmp_path / "b", INVOICE_SCHEMA, INVOICE, pending=set())
    data = json.loads((b / "gt.json").read_text())
    data["format"] = "gtkit.gt/1"
    for i, f in enumerate(data["fields"]):
        for r in f["readings"]:
            for ev in r["evidence"]:
                del ev["verified"]
        f["trust"] = "constructed" if i % 2 == 0 else "agreed"
    (b / "gt.json").write_text(json.dumps(data))
    for gt_fields in (read_bundle(b).gt.fields, ):
        for i, f in enumerate(gt_fields):
            assert all(ev.verified == (i % 2 == 0) for r in f.readings for ev in r.evidence)
    raw = read_bundle(b, raw_fields=True)
    raw.field_check.result()
    assert raw.gt.format == "gtkit.gt/2"
    assert all(ev["verified"] == (i % 2 == 0) for i, f in enumerate(raw.raw_fields)
               for r in f["readings"] for ev in r["evidence"])
