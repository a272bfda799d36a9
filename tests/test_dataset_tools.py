"""End-to-end tests of the dataset tools: `gtkit card`, `gtkit export` (ExtractBench, parquet), `gtkit import`.

A tiny real dataset (synth, plus degrade re-captures of it, merged through the writer) goes through each
verb by the CLI. With ExtractBench installed (GTKIT_EXTRACTBENCH_PYTHON, as in the differential test), the
ExtractBench export is loaded, linted, rebuilt from its published rows and scored by ExtractBench's own code
(`scripts/extractbench_harness.py`): the truth scores 1.0 against itself, and a perturbed prediction gets the
numbers `gtkit score` gives.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from diffcases import DEFAULT_EB_PYTHON, ROOT
from hypothesis import given
from hypothesis import strategies as st

from gtkit.cli import main
from gtkit.dataset.extractbench import TAG_AXES, dotted_path, flat_tags, tags_by_axis, xywh, xyxy
from gtkit.format.bundle import read_bundle, read_index
from gtkit.format.models import Tags
from gtkit.format.writer import Envelope, write_dataset

HARNESS = ROOT / "scripts" / "extractbench_harness.py"


def run(argv, capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return exc.value.code or 0, out, err


def ok(argv, capsys) -> str:
    code, out, err = run(argv, capsys)
    assert code == 0, err
    return out


def one_line_error(argv, capsys, *needles) -> None:
    code, _, err = run(argv, capsys)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in lines[0], lines[0]


def merge(sources: list[Path], out: Path) -> None:
    """One dataset of the bundles of several, rewritten through the writer."""
    with write_dataset(out) as dataset:
        for src in sources:
            for entry in read_index(src):
                b = read_bundle(src / entry.path)
                w = dataset.bundle(b.doc_id)
                w.write_pdf(b.pdf_path)
                w.write(Envelope.of(b.gt, b.schema), b.field_dicts())


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    """3 creditor matrices, 2 of them re-captured as a fax, 1 Schedule E/F: 6 documents."""
    tmp = tmp_path_factory.mktemp("ds")
    for argv in (["synth", "--family", "creditor_matrix", "--docs", "2", "--records", "5", "--seed", "3",
                  "--workers", "1", "--out", tmp / "cm"],
                 ["synth", "--family", "schedule_ef", "--docs", "1", "--records", "4", "--seed", "4",
                  "--workers", "1", "--out", tmp / "ef"],
                 ["degrade", tmp / "cm", "--recipe", "fax", "--seed", "5", "--dpi", "100", "--out", tmp / "fax"]):
        with pytest.raises(SystemExit) as exc:
            main([str(a) for a in argv])
        assert not exc.value.code
    merge([tmp / "cm", tmp / "fax", tmp / "ef"], tmp / "all")
    return tmp / "all"


# --- card --------------------------------------------------------------------------------------------------------


def test_card_writes_markdown_and_figures_that_open_and_repeat_byte_for_byte(dataset, tmp_path, capsys):
    import cv2

    ok(["card", dataset, "--out", tmp_path / "c1"], capsys)
    ok(["card", dataset, "--out", tmp_path / "c2"], capsys)
    text = (tmp_path / "c1" / "CARD.md").read_text(encoding="utf-8")
    assert "5 documents" in text and "| creditor_matrix | short | 4 | 4 |" in text
    assert "| task | T1 | 5 | 100.0% |" in text and "| perception | P1 | 2 | 40.0% |" in text
    assert "| creditor_matrix | 2 | 2 |" in text  # clean and fax re-captures
    figures = sorted(p.name for p in (tmp_path / "c1" / "card").iterdir())
    assert figures == ["families.png", "sizes.png", "tags.png", "trust.png"]
    for name in figures:
        png = tmp_path / "c1" / "card" / name
        image = cv2.imread(str(png))
        assert image is not None and image.shape[0] > 100 and image.std() > 0
        assert png.read_bytes() == (tmp_path / "c2" / "card" / name).read_bytes()
        assert f"(card/{name})" in text
    assert text == (tmp_path / "c2" / "CARD.md").read_text(encoding="utf-8")


def test_card_counts_trust_and_refuses_to_overwrite_without_force(dataset, tmp_path, capsys):
    ok(["card", dataset, "--out", tmp_path / "c"], capsys)
    text = (tmp_path / "c" / "CARD.md").read_text(encoding="utf-8")
    cells = sum(e.cells for e in read_index(dataset))
    assert f"| all | {cells} | 0 | 0 | 0 | 0 |" in text
    one_line_error(["card", dataset, "--out", tmp_path / "c"], capsys, "already exists")
    ok(["card", dataset, "--out", tmp_path / "c", "--force"], capsys)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    one_line_error(["card", dataset, "--out", tmp_path / "mine", "--force"], capsys, "not an output gtkit wrote")
    one_line_error(["card", dataset, "--out", dataset / "card-here"], capsys, "must not be, contain or lie inside")
    one_line_error(["card", tmp_path / "nothing"], capsys, "nothing")


# --- parquet -----------------------------------------------------------------------------------------------------


def test_parquet_export_has_a_row_per_document_and_per_cell_and_stable_bytes(dataset, tmp_path, capsys):
    import pandas as pd

    ok(["export", dataset, "--format", "parquet", "--out", tmp_path / "p1"], capsys)
    ok(["export", dataset, "--format", "parquet", "--out", tmp_path / "p2"], capsys)
    for name in ("documents.parquet", "cells.parquet"):
        assert (tmp_path / "p1" / name).read_bytes() == (tmp_path / "p2" / name).read_bytes()
    docs = pd.read_parquet(tmp_path / "p1" / "documents.parquet")
    cells = pd.read_parquet(tmp_path / "p1" / "cells.parquet")
    index = read_index(dataset)
    assert list(docs["doc_id"]) == [e.doc_id for e in index]
    assert len(cells) == sum(e.cells for e in index) == docs["cells"].sum()
    for row in docs.itertuples():
        assert (tmp_path / "p1" / row.pdf).read_bytes() == read_bundle(dataset / row.doc_id).pdf_path.read_bytes()
        assert json.loads(row.expected) == read_bundle(dataset / row.doc_id).gt.expected
    assert set(docs["recipe"]) == {"clean", "fax"} and set(cells["trust"]) == {"constructed"}
    first = cells.iloc[0]
    b = read_bundle(dataset / first.doc_id)
    entry = b.field_dicts()[0]
    assert first.path == entry["path"] and json.loads(first.value) == entry["readings"][0]["value"]
    assert list(first.box) == pytest.approx(entry["readings"][0]["evidence"][0]["box"])


# --- ExtractBench export and import ------------------------------------------------------------------------------


def test_extractbench_export_layout_and_round_trip_through_import(dataset, tmp_path, capsys):
    ok(["export", dataset, "--format", "extractbench", "--out", tmp_path / "eb"], capsys)
    ok(["export", dataset, "--format", "extractbench", "--out", tmp_path / "eb2"], capsys)
    files = sorted(p.relative_to(tmp_path / "eb") for p in (tmp_path / "eb").rglob("*") if p.is_file())
    for f in files:
        assert (tmp_path / "eb" / f).read_bytes() == (tmp_path / "eb2" / f).read_bytes(), f
    index = read_index(dataset)
    case = json.loads((tmp_path / "eb" / "short" / f"{index[0].doc_id}.test.json").read_text())
    assert list(case) == ["tags", "data_schema", "expected_output", "_field_rules", "_eval_row_identity"]
    rule = case["_field_rules"]["creditors[0].name"]
    place = rule["evidence"][0]
    assert set(place) == {"page", "bbox", "quote", "value"} and len(place["bbox"]) == 4
    assert rows(tmp_path / "eb" / "hub" / "short.jsonl")[0]["pdf"] == f"docs/short/{index[0].doc_id}.pdf"
    assert rows(tmp_path / "eb" / "hub" / "long.jsonl") == []
    ef = json.loads((tmp_path / "eb" / "short" / f"{index[-1].doc_id}.test.json").read_text())
    assert ef["_eval_row_identity"] == {"claims": {"identity_key": ["creditor_name", "account_last4", "total_claim"]}}

    ok(["import", tmp_path / "eb", "--format", "extractbench", "--out", tmp_path / "back"], capsys)
    assert "no problems" in ok(["check", tmp_path / "back"], capsys)
    back = {e.doc_id: e for e in read_index(tmp_path / "back")}
    assert set(back) == {e.doc_id for e in index}
    for e in index:
        original, imported = read_bundle(dataset / e.path), read_bundle(tmp_path / "back" / back[e.doc_id].path)
        assert imported.gt.expected == original.gt.expected
        assert imported.gt.tags == original.gt.tags
        assert imported.pdf_path.read_bytes() == original.pdf_path.read_bytes()
        assert imported.gt.document.page_sizes == original.gt.document.page_sizes
        got = {f["path"]: f for f in imported.field_dicts()}
        for f in original.field_dicts():
            g = got[f["path"]]
            assert [r["value"] for r in g["readings"]] == [r["value"] for r in f["readings"]]
            for r_g, r_f in zip(g["readings"], f["readings"]):
                assert [(ev["page"], pytest.approx(ev["box"])) for ev in r_g["evidence"]] == \
                    [(ev["page"], ev["box"]) for ev in r_f["evidence"]]
    # the imported truth is usable by the other verbs
    pred = tmp_path / "pred"
    pred.mkdir()
    for e in index:
        (pred / f"{e.doc_id}.json").write_text(json.dumps(read_bundle(dataset / e.path).gt.expected))
    out = ok(["score", "--gt", tmp_path / "back", "--pred", pred, "--json", "--workers", "1"], capsys)
    assert json.loads(out)["overall"]["value_f1"] == 1.0
    ok(["show", tmp_path / "back" / back[index[0].doc_id].path, "--out", tmp_path / "p.png"], capsys)
    ok(["degrade", tmp_path / "back" / back[index[0].doc_id].path, "--recipe", "fax", "--seed", "1", "--dpi", "100",
        "--out", tmp_path / "deg"], capsys)
    assert "no problems" in ok(["check", tmp_path / "deg"], capsys)


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_check_reports_broken_public_gold_after_import(dataset, tmp_path, capsys):
    ok(["export", dataset, "--format", "extractbench", "--out", tmp_path / "eb"], capsys)
    doc = read_index(dataset)[-1].doc_id  # the Schedule E/F
    bad = tmp_path / "public" / "short"
    bad.mkdir(parents=True)
    (bad / f"{doc}.pdf").write_bytes((tmp_path / "eb" / "short" / f"{doc}.pdf").read_bytes())
    case = json.loads((tmp_path / "eb" / "short" / f"{doc}.test.json").read_text())
    case["expected_output"]["claims"][0]["total_claim"] = "2029"  # a number shipped as a string
    case["expected_output"]["filing_note"] = "see attached"  # a key the schema never declared
    case["expected_output"]["claims"][1]["memo"] = "x"
    (bad / f"{doc}.test.json").write_text(json.dumps(case))
    ok(["import", tmp_path / "public", "--format", "extractbench", "--out", tmp_path / "imp"], capsys)
    code, out, _ = run(["check", tmp_path / "imp"], capsys)
    assert code == 1
    assert "/expected/claims/0/total_claim: expected does not satisfy the schema: '2029' is not of type 'number'" in out
    assert "/filing_note is a key of expected that the schema does not describe" in out
    assert "/claims/1/memo is a key of expected that the schema does not describe" in out
    assert "not a leaf" not in out


def test_import_takes_alternates_and_legacy_rules_and_refuses_bad_test_cases(dataset, tmp_path, capsys):
    ok(["export", dataset, "--format", "extractbench", "--out", tmp_path / "eb"], capsys)
    doc = read_index(dataset)[0].doc_id
    src = tmp_path / "src" / "g"
    src.mkdir(parents=True)
    pdf = (tmp_path / "eb" / "short" / f"{doc}.pdf").read_bytes()
    (src / "a.pdf").write_bytes(pdf)
    case = json.loads((tmp_path / "eb" / "short" / f"{doc}.test.json").read_text())
    rule = case["_field_rules"]["debtor_name"]
    rule["evidence"].append({"page": 1, "bbox": None, "value": "Other Reading"})
    rule["verified"] = False
    (src / "a.test.json").write_text(json.dumps(case))
    ok(["import", tmp_path / "src", "--format", "extractbench", "--out", tmp_path / "imp"], capsys)
    entry = next(f for f in read_bundle(tmp_path / "imp" / "g" / "a").field_dicts() if f["path"] == "/debtor_name")
    assert [r["value"] for r in entry["readings"]][1:] == ["Other Reading"]
    assert entry["readings"][1]["evidence"][0]["box"] is None
    assert not entry["readings"][0]["evidence"][0]["verified"]

    legacy = {k: v for k, v in case.items() if k != "_field_rules"}
    legacy["test_rules"] = [{"type": "extract_field", "field_path": "court",
                             "expected_value": case["expected_output"]["court"],
                             "bboxes": [{"page": 1, "bbox": [0.1, 0.1, 0.2, 0.05]}]}]
    (src / "a.test.json").write_text(json.dumps(legacy))
    ok(["import", tmp_path / "src", "--format", "extractbench", "--out", tmp_path / "imp", "--force"], capsys)
    court = next(f for f in read_bundle(tmp_path / "imp" / "g" / "a").field_dicts() if f["path"] == "/court")
    assert court["readings"][0]["evidence"][0]["box"] == pytest.approx([0.1, 0.1, 0.3, 0.15])

    del case["expected_output"]
    (src / "a.test.json").write_text(json.dumps(case))
    one_line_error(["import", tmp_path / "src", "--format", "extractbench", "--out", tmp_path / "x"], capsys,
                   "a.test.json", "/expected_output: required key is missing")
    case["expected_output"] = {}
    case["_field_rules"] = {"court": {"evidence": [{"page": 0}]}}
    (src / "a.test.json").write_text(json.dumps(case))
    one_line_error(["import", tmp_path / "src", "--format", "extractbench", "--out", tmp_path / "x"], capsys,
                   "/_field_rules/court/evidence/0/page")
    case["_field_rules"] = {"court": {"normalizers": ["fuzzy"]}}
    (src / "a.test.json").write_text(json.dumps(case))
    one_line_error(["import", tmp_path / "src", "--format", "extractbench", "--out", tmp_path / "x"], capsys,
                   "/_field_rules/court/normalizers/0")
    (src / "a.pdf").unlink()
    one_line_error(["import", tmp_path / "src", "--format", "extractbench", "--out", tmp_path / "x"], capsys,
                   "no a.pdf beside it")
    assert not (tmp_path / "x").exists()
    one_line_error(["import", tmp_path / "src", "--format", "csv", "--out", tmp_path / "x"], capsys,
                   "unknown import format 'csv'")
    one_line_error(["export", dataset, "--format", "zip", "--out", tmp_path / "x"], capsys, "unknown export format")
    one_line_error(["export", tmp_path / "src", "--format", "parquet", "--out", tmp_path / "x"], capsys,
                   "not a gtkit dataset")
    one_line_error(["export", dataset, "--format", "parquet", "--out", dataset / "x"], capsys, "lie inside")
    assert not (tmp_path / "x").exists()


# --- ExtractBench's own loader and scorer ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def eb_python() -> Path:
    python = Path(os.environ.get("GTKIT_EXTRACTBENCH_PYTHON") or DEFAULT_EB_PYTHON)
    if not python.exists():
        pytest.skip(f"no ExtractBench interpreter at {python}: `make extractbench` builds one, or set "
                    "GTKIT_EXTRACTBENCH_PYTHON")
    if not HARNESS.exists():
        pytest.skip(f"the harness {HARNESS} is not beside these tests (an installed-wheel run)")
    return python


def harness(python: Path, export: Path, pred: Path | None = None) -> dict:
    argv = [str(python), str(HARNESS), str(export), *(["--pred", str(pred)] if pred else [])]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def perturb(doc_id: str, expected: dict, fields: list[dict], k: int) -> tuple[dict, dict]:
    """A prediction off the shapes where gtkit and ExtractBench deliberately differ (docs/scoring.md): string
    values of records changed or nulled, one record dropped, no booleans or dates respelled, no undeclared
    keys, the free-text fields ExtractBench compares fuzzily (court, description) kept; citations on the
    truth's box, page only, or on a wrong page."""
    pred = json.loads(json.dumps(expected))
    arrays = [name for name, v in pred.items() if isinstance(v, list) and v and isinstance(v[0], dict)]
    for name in arrays:
        records = pred[name]
        for i, rec in enumerate(records):
            strings = sorted(key for key, v in rec.items() if isinstance(v, str))
            if strings and (i + k) % 3 == 0:
                rec[strings[(i + k) % len(strings)]] = "WRONG VALUE"
            if strings and (i + k) % 4 == 1:
                rec[strings[(i + 2 * k) % len(strings)]] = None
        del records[(k + 1) % len(records)]
    cites = {}
    for j, f in enumerate(fields):
        ev = next((e for r in f["readings"] for e in r["evidence"] if e["box"]), None)
        if ev is None or j % 5 == 4:
            continue
        cites[f["path"]] = [{"page": ev["page"], "box": ev["box"]}] if j % 5 < 2 else \
            [{"page": ev["page"]}] if j % 5 == 2 else [{"page": ev["page"] + 1, "box": ev["box"]}]
    return pred, cites


def test_extractbench_loads_the_export_and_scores_it_as_gtkit_does(dataset, tmp_path, eb_python, capsys):
    ok(["export", dataset, "--format", "extractbench", "--out", tmp_path / "eb"], capsys)
    index = read_index(dataset)
    selfscore = harness(eb_python, tmp_path / "eb")
    assert selfscore["cases"] == sorted(f"short/{e.doc_id}" for e in index)
    assert selfscore["lint"] == [] and selfscore["rebuilt_differs"] == []
    for test_id, s in selfscore["scores"].items():
        for metric in ("value", "page", "word"):
            assert s[metric] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}, (test_id, metric, s)

    pred = tmp_path / "pred"
    pred.mkdir()
    for k, e in enumerate(index):
        b = read_bundle(dataset / e.path)
        prediction, cites = perturb(e.doc_id, b.gt.expected, b.field_dicts(), k)
        (pred / f"{e.doc_id}.json").write_text(json.dumps(prediction))
        (pred / f"{e.doc_id}.citations.json").write_text(json.dumps(cites))
    theirs = harness(eb_python, tmp_path / "eb", pred)["scores"]
    ours = json.loads(ok(["score", "--gt", dataset, "--pred", pred, "--json", "--workers", "1"], capsys))
    for doc in ours["documents"]:
        eb = theirs[f"short/{doc['doc_id']}"]
        assert 0 < doc["value"]["f1"] < 1 and 0 < doc["word"]["f1"] < 1
        for metric in ("value", "page", "word"):
            for key in ("precision", "recall", "f1"):
                assert doc[metric][key] == pytest.approx(eb[metric][key], abs=1e-9), (doc["doc_id"], metric, key)


# --- the mapping, property by property ---------------------------------------------------------------------------

_unit = st.integers(0, 10**6).map(lambda n: n / 10**6)


@given(st.tuples(_unit, _unit, _unit, _unit).filter(lambda b: b[0] < b[2] and b[1] < b[3]))
def test_a_six_decimal_box_survives_coco_and_back(box):
    assert xyxy(xywh(box)) == box


@given(st.lists(st.sampled_from(["T1.a", "T1.c", "T2.b", "P1", "P2", "S3", "S5", "G1", "G4"]), unique=True),
       st.sampled_from([None, "L1", "L2", "L3"]), st.sampled_from([None, "D3", "D7"]))
def test_tags_survive_the_flat_list(some, length, domain):
    axes = {axis: [t for t in some if t.startswith(letter)] for axis, letter in TAG_AXES if axis not in
            ("length", "domain")}
    tags = Tags(**axes, length=length, domain=domain)
    back, other = tags_by_axis(flat_tags(tags))
    assert Tags(**back) == tags and other == []


def test_dotted_paths_tell_indexes_from_keys():
    doc = {"claims": [{"city": "X"}], "map": {"0": {"a": 1}}}
    assert dotted_path("/claims/0/city", doc) == "claims[0].city"
    assert dotted_path("/map/0/a", doc) == "map.0.a"


def test_field_rules_ground_on_verified_boxes_only_and_flag_pending_cells():
    from gtkit.dataset.export_eb import field_rule

    cited = {"page": 2, "box": [0.1, 0.2, 0.3, 0.25], "words": None, "quad": None, "quote": "ACME", "verified": False}
    entry = {"path": "/name", "trust": "pending", "leniencies": ["case_insensitive"],
             "readings": [{"value": "ACME", "evidence": [cited]}, {"value": "ACME INC", "evidence": []}]}
    rule = field_rule(entry, ("optional_terminal_punctuation",))
    assert rule == {"evidence": [{"value": "ACME"}, {"value": "ACME INC"}],
                    "normalizers": ["case_insensitive", "optional_terminal_punctuation"], "verified": False}
    entry["trust"], cited["verified"] = "human", True
    rule = field_rule(entry, ())
    assert rule["verified"] and rule["evidence"][0] == {"page": 2, "bbox": [0.1, 0.2, 0.2, 0.05], "quote": "ACME",
                                                        "value": "ACME"}


def test_card_of_a_lone_bundle(dataset, tmp_path, capsys):
    bundle = dataset / read_index(dataset)[0].path
    ok(["card", bundle, "--out", tmp_path / "c"], capsys)
    assert "1 documents, 1 pages" in (tmp_path / "c" / "CARD.md").read_text(encoding="utf-8")


def test_extractbench_export_refuses_fields_whose_dotted_paths_collide(tmp_path, capsys):
    from helpers import make_bundle

    schema = {"type": "object", "properties": {"a.b": {"type": "string"},
                                               "a": {"type": "object", "properties": {"b": {"type": "string"}}}}}
    bundle = make_bundle(tmp_path / "clash", schema, {"a.b": "one", "a": {"b": "two"}})
    one_line_error(["export", bundle, "--format", "extractbench", "--out", tmp_path / "eb"], capsys,
                   str(bundle), "/a.b", "/a/b", "'a.b'")
    assert not (tmp_path / "eb").exists()
