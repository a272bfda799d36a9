"""gtkit review and gtkit adjudicate over a dataset that is not a consensus output (synth, degrade): every cell
an item, confirmed or corrected in a real browser (Debian's Chromium driven by Playwright), the corrections
applied through the bundle writer, recorded in the provenance, and accepted by gtkit check as the person's
word, never weaker for the cells nobody touched."""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import pytest
from review_helpers import start_server

from gtkit.check import check_path
from gtkit.cli import main
from gtkit.format.bundle import read_bundle
from gtkit.pipelines import CHECKS


def _run(*args: str) -> None:
    try:
        main(list(args))
    except SystemExit as e:
        assert e.code in (0, None), args


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """A one-bundle synth output and a two-document synth dataset."""
    root = tmp_path_factory.mktemp("review-any")
    _run("synth", "--family", "creditor_matrix", "--records", "3", "--seed", "1", "--workers", "1",
         "--out", str(root / "bundle"))
    _run("synth", "--family", "creditor_matrix", "--records", "3", "--docs", "2", "--seed", "2", "--workers", "1",
         "--out", str(root / "dataset"))
    return root


def _copy(made: Path, name: str, tmp_path: Path) -> Path:
    out = tmp_path / name
    shutil.copytree(made / name, out)
    return out


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _fields(folder: Path) -> dict:
    return {f.path: f for f in read_bundle(folder).gt.fields}


def _problems(path: Path) -> list[str]:
    return [str(p) for p in check_path(path, CHECKS, workers=1)[1]]


def _write(path: Path, *lines: dict) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_adjudicate_corrects_a_synth_dataset(made, tmp_path, capsys):
    ds = _copy(made, "dataset", tmp_path)
    doc = "creditor_matrix-s2-0001"
    before = _fields(ds / doc)
    untouched = {k: v for k, v in before.items()
                 if k not in ("/debtor_name", "/case_number", "/court", "/creditors/0/notice_name")}
    decisions = _write(
        tmp_path / "decisions.jsonl",
        {"id": f"{doc}#/debtor_name", "action": "edit", "value": "CORRECTED NAME LLC",
         "box": {"page": 1, "box": [0.1, 0.06, 0.3, 0.07]}, "who": "ana", "when": "2026-11-30T15:00:00Z"},
        {"doc": doc, "path": "/case_number", "action": "accept", "who": "ana"},
        {"id": f"{doc}#/creditors/0/notice_name", "action": "null", "who": "ana"},
        {"id": f"{doc}#/court", "action": "box", "box": {"page": 1, "box": [0.2, 0.2, 0.4, 0.22]}, "who": "bo"},
    )
    other = (ds / "creditor_matrix-s2-0000" / "gt.json").read_bytes()
    _run("adjudicate", str(ds), "--decisions", str(decisions))
    assert "4 decision(s) applied" in capsys.readouterr().out
    assert (ds / "creditor_matrix-s2-0000" / "gt.json").read_bytes() == other     # an untouched bundle stays

    b = read_bundle(ds / doc)
    f = {x.path: x for x in b.gt.fields}
    assert b.gt.expected["debtor_name"] == "CORRECTED NAME LLC" and f["/debtor_name"].trust == "human"
    ev = f["/debtor_name"].readings[0].evidence
    assert len(ev) == 1 and ev[0].verified and list(ev[0].box) == [0.1, 0.06, 0.3, 0.07]
    assert f["/case_number"] == before["/case_number"]                              # confirmed: unchanged
    assert f["/creditors/0/notice_name"].readings[0].value is None and f["/creditors/0/notice_name"].trust == "human"
    assert f["/court"].readings[0].value == before["/court"].readings[0].value and f["/court"].trust == "human"
    assert {k: f[k] for k in untouched} == untouched
    records = b.gt.provenance.parameters["corrections"]
    assert [(r["path"], r["action"], r["who"]) for r in records] == [
        ("/debtor_name", "edit", "ana"), ("/case_number", "accept", "ana"),
        ("/creditors/0/notice_name", "null", "ana"), ("/court", "box", "bo")]
    assert records[0]["before"] == before["/debtor_name"].readings[0].value
    assert records[0]["when"] == "2026-11-30T15:00:00Z"
    assert b.gt.provenance.parameters["records"] == 3                                # the run's own record kept
    assert _problems(ds) == []

    # the synth check is no weaker for the cells nobody corrected: an untouched value changed in expected and
    # in its entry is caught by re-reading the PDF; so is a recorded "correction" of a cell left constructed
    gt = json.loads((ds / doc / "gt.json").read_text())
    gt["expected"]["creditors"][1]["city"] = "NOWHERE"
    next(x for x in gt["fields"] if x["path"] == "/creditors/1/city")["readings"][0]["value"] = "NOWHERE"
    (ds / doc / "gt.json").write_text(json.dumps(gt))
    assert any("/expected/creditors/1/city" in p and "not found" in p for p in _problems(ds / doc))
    gt["provenance"]["parameters"]["corrections"].append(
        {"path": "/creditors/1/city", "action": "edit", "who": "x", "when": None, "note": None,
         "before": before["/creditors/1/city"].readings[0].value, "after": "NOWHERE"})
    (ds / doc / "gt.json").write_text(json.dumps(gt))
    assert any("corrections/4" in p and "not 'human'" in p for p in _problems(ds / doc))


def test_adjudicate_corrects_a_degraded_bundle_and_refuses_bad_lines(made, tmp_path, capsys):
    fax = tmp_path / "fax"
    _run("degrade", str(made / "bundle"), "--recipe", "fax", "--seed", "3", "--dpi", "100", "--workers", "1",
         "--out", str(fax))
    doc = read_bundle(fax).doc_id
    bad = [({"id": f"{doc}#/court", "action": "box", "accept_box": True, "who": "ana"}, "accept_box"),
           ({"id": f"{doc}#/court", "action": "edit", "value": "X", "trust": "agreed", "who": "ana"}, "'human'"),
           ({"id": f"{doc}#/nope", "action": "null", "who": "ana"}, "unknown cell"),
           ({"id": f"{doc}#/court", "action": "reject", "who": "ana"}, "reject is for extra records")]
    gt_before = (fax / "gt.json").read_bytes()
    for line, message in bad:
        with pytest.raises(SystemExit) as e:
            main(["adjudicate", str(fax), "--decisions", str(_write(tmp_path / "bad.jsonl", line))])
        err = capsys.readouterr().err.strip()
        assert e.value.code == 2 and message in err and len(err.splitlines()) == 1, err
    assert (fax / "gt.json").read_bytes() == gt_before
    decisions = _write(tmp_path / "d.jsonl", {"id": f"{doc}#/court", "action": "edit", "value": "A COURT",
                                              "box": {"page": 1, "box": [0.3, 0.3, 0.5, 0.33]}, "who": "ana"})
    _run("adjudicate", str(fax), "--decisions", str(decisions))
    f = _fields(fax)["/court"]
    assert f.trust == "human" and f.readings[0].value == "A COURT" and f.readings[0].evidence[0].quad is None
    assert _problems(fax) == []   # a box drawn on the degraded page has no quad: the person's word
    replay = tmp_path / "replay"  # the corrected bundle still replays (its corrections are not part of the draws)
    _run("degrade", str(made / "bundle"), "--replay", str(fax), "--workers", "1", "--out", str(replay))
    assert _problems(replay) == []
    plain = tmp_path / "plain"
    plain.mkdir()
    for verb in (["adjudicate", str(plain), "--decisions", str(decisions)], ["review", str(plain), "--port", "0"]):
        with pytest.raises(SystemExit) as e:
            main(verb)
        err = capsys.readouterr().err.strip()
        assert e.value.code == 2 and "not a consensus output, a dataset or a bundle" in err
        assert len(err.splitlines()) == 1


def _wait_item(page, item_id: str) -> None:
    page.wait_for_function("id => document.getElementById('item-title').textContent === id"
                           " || document.getElementById('message').className === 'error'", arg=item_id)
    assert page.locator("#item-title").inner_text() == item_id, page.locator("#message").inner_text()


def _drag(page, fx0: float, fy0: float, fx1: float, fy1: float) -> None:
    page.wait_for_function("() => document.getElementById('page').complete")
    box = page.locator("#overlay").bounding_box()
    page.mouse.move(box["x"] + box["width"] * fx0, box["y"] + box["height"] * fy0)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * fx1, box["y"] + box["height"] * fy1, steps=5)
    page.mouse.up()


def test_review_a_synth_bundle_in_a_browser_then_adjudicate_and_check(made, tmp_path, browser):
    bundle = _copy(made, "bundle", tmp_path)
    before = _fields(bundle)
    doc = read_bundle(bundle).doc_id
    paths = list(before)
    ids = [f"{doc}#{p}" for p in paths]
    proc, url = start_server(bundle)
    try:
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(url)
        _wait_item(page, ids[0])
        assert page.locator("#counter").inner_text().startswith(f"0 corrected, 0 confirmed, {len(ids)} left of")
        assert page.locator("#candidates tbody tr").count() == 1                 # the cell's value, with its boxes
        assert page.locator("#overlay rect").count() >= 1
        # 1. edit the first value: e, type, Enter
        page.keyboard.press("e")
        page.keyboard.type("EDITED DEBTOR INC.")
        page.keyboard.press("Enter")
        _wait_item(page, ids[1])
        # 2. confirm the second by key
        page.keyboard.press("1")
        _wait_item(page, ids[2])
        # 3. draw a box for the third and take it with a
        _drag(page, 0.30, 0.20, 0.45, 0.23)
        assert page.locator("#overlay rect.drawn").count() == 1
        page.keyboard.press("a")
        _wait_item(page, ids[3])
        # 4. a field filter: the city of every creditor; null the first
        page.select_option("#filter-field", "/creditors/*/city")
        city = ids[paths.index("/creditors/0/city")]
        _wait_item(page, city)
        page.keyboard.press("n")
        _wait_item(page, ids[paths.index("/creditors/1/city")])
        page.wait_for_function("() => document.getElementById('message').className === 'ok'")
        # 5. reload: resumes at the first undecided cell, the counter tells corrected and confirmed apart
        page.goto(url)
        _wait_item(page, ids[3])
        assert page.locator("#counter").inner_text().startswith(f"3 corrected, 1 confirmed, {len(ids) - 4} left of")
        assert not errors, errors
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    lines = _lines(bundle / "decisions.jsonl")
    assert [(x["id"], x["action"]) for x in lines] == [(ids[0], "edit"), (ids[1], "accept"), (ids[2], "box"),
                                                       (city, "null")]
    drawn = lines[2]["box"]["box"]
    assert drawn[0] == pytest.approx(0.30, abs=0.01) and drawn[3] == pytest.approx(0.23, abs=0.01)
    _run("adjudicate", str(bundle), "--decisions", str(bundle / "decisions.jsonl"))
    after = _fields(bundle)
    assert after[paths[0]].readings[0].value == "EDITED DEBTOR INC." and after[paths[0]].trust == "human"
    assert after[paths[1]] == before[paths[1]]
    ev = after[paths[2]].readings[0].evidence
    assert after[paths[2]].trust == "human" and len(ev) == 1 and ev[0].verified
    assert list(ev[0].box) == pytest.approx(drawn)
    assert after["/creditors/0/city"].readings[0].value is None
    assert read_bundle(bundle).gt.expected["debtor_name"] == "EDITED DEBTOR INC."
    assert _problems(bundle) == []


def test_original_expected_undoes_human_corrections_latest_first():
    from gtkit.corrections import correction_record, original_expected

    expected = {"a": "third", "rows": [{"b": 2}], "c": "kept"}
    records = [correction_record("/a", "edit", "ana", None, None, "first", "second"),
               correction_record("/a", "edit", "bo", None, None, "second", "third"),
               correction_record("/rows/0/d", "null", "ana", None, None, "gone", None),   # a key left out
               correction_record("/c", "accept", "ana", None, None, "kept", "kept")]      # a confirmation
    trust = {"/a": "human", "/rows/0/b": "constructed", "/rows/0/d": "human", "/c": "constructed"}
    original, problems = original_expected(expected, {"corrections": records}, trust)
    assert problems == [] and original == {"a": "first", "rows": [{"b": 2, "d": "gone"}], "c": "kept"}
    assert expected == {"a": "third", "rows": [{"b": 2}], "c": "kept"}                      # the input is untouched
    bad = [correction_record("/rows/0/b", "edit", "x", None, None, 1, 2), {"path": "/a"},
           correction_record("/zz", "edit", "x", None, None, 1, 2)]
    _, problems = original_expected(expected, {"corrections": bad}, trust)
    assert [p for p, _ in problems] == ["/provenance/parameters/corrections/2/path",
                                        "/provenance/parameters/corrections/1",
                                        "/provenance/parameters/corrections/0"]
    assert original_expected(expected, {"corrections": "x"}, trust)[1][0][0] == "/provenance/parameters/corrections"


def _corrected(bundle: Path, tmp_path: Path, path: str, value: str, **extra: str) -> None:
    """`gtkit adjudicate` of one edit, as another person (or a top-level correction) would make it."""
    doc = read_bundle(bundle).doc_id
    _run("adjudicate", str(bundle), "--decisions", str(_write(tmp_path / "other.jsonl", {
        "id": f"{doc}#{path}", "action": "edit", "value": value, "who": "bo", **extra})))


def _log(bundle: Path, path: str) -> list[tuple]:
    return [(r["before"], r["after"], r["who"]) for r in read_bundle(bundle).gt.provenance.parameters["corrections"]
            if r["path"] == path]


def test_a_cell_a_person_corrected_is_corrected_again_in_the_browser(made, tmp_path, browser):
    """The page shows the person's value and sends it as `supersedes` with the new decision: apply now takes it,
    and the corrections log ends on the new value."""
    bundle = _copy(made, "bundle", tmp_path)
    first = _fields(bundle)["/debtor_name"].readings[0].value
    _corrected(bundle, tmp_path, "/debtor_name", "FIRST NAME LLC")
    ids = [f"{read_bundle(bundle).doc_id}#{p}" for p in _fields(bundle)]
    proc, url = start_server(bundle)
    try:
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.on("dialog", lambda d: d.accept())
        page.goto(url)
        _wait_item(page, ids[0])
        assert "FIRST NAME LLC" in page.locator("#item-facts").inner_text()
        page.keyboard.press("e")
        page.keyboard.type("SECOND NAME LLC")
        page.keyboard.press("Enter")
        _wait_item(page, ids[1])
        assert _lines(bundle / "decisions.jsonl")[0]["supersedes"] == "FIRST NAME LLC"
        with page.expect_navigation():
            page.click("#apply")
        _wait_item(page, ids[0])
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    entry = _fields(bundle)["/debtor_name"]
    assert (entry.readings[0].value, entry.trust) == ("SECOND NAME LLC", "human")
    assert _log(bundle, "/debtor_name") == [(first, "FIRST NAME LLC", "bo"),
                                            ("FIRST NAME LLC", "SECOND NAME LLC", "ana")]
    assert (bundle / "decisions.jsonl").read_bytes() == b"" and _problems(bundle) == []


def test_a_value_changed_on_disk_since_the_page_showed_it_is_409(made, tmp_path):
    """The review server never lets a decision replace a value the reviewer did not see: `supersedes` (what the page
    showed) must be the cell's value on disk, and a document changed under the server's own reading is refused
    too (409, nothing written); the page, reloaded, shows the value now."""
    from test_review import _asgi_post

    from gtkit.review.app import create_app
    from gtkit.review.state import Review

    bundle = _copy(made, "bundle", tmp_path)
    _corrected(bundle, tmp_path, "/court", "FIRST")
    review = Review(bundle, "ana")
    ids = [it.id for it in review.items]
    court, case = (next(k for k, i in enumerate(ids) if i.endswith(p)) for p in ("#/court", "#/case_number"))

    def post(review: Review, body: dict) -> tuple[int, str]:
        status, answer = _asgi_post(create_app(review, "t"), "/api/decide", [json.dumps(body).encode()],
                                    {"X-Gtkit-Token": "t"})
        return status, json.loads(answer).get("error", "")

    shown = review.detail(court)
    assert (shown["trust"], shown["value"]) == ("human", "FIRST")
    _corrected(bundle, tmp_path, "/court", "SECOND", supersedes="FIRST")          # while the page shows FIRST
    status, error = post(review, {"item": court, "action": "edit", "text": "THIRD", "supersedes": "FIRST"})
    assert status == 409 and "'SECOND'" in error and "'FIRST'" in error and len(error.splitlines()) == 1, error
    assert not (bundle / "decisions.jsonl").exists()
    assert review.detail(court)["value"] == "SECOND"                               # the page reloaded
    assert post(review, {"item": case, "action": "accept"})[0] == 200
    _corrected(bundle, tmp_path, "/debtor_name", "ELSEWHERE")                      # the server's reading is stale
    lines = (bundle / "decisions.jsonl").read_bytes()
    status, error = post(review, {"item": court, "action": "edit", "text": "THIRD", "supersedes": "SECOND"})
    assert status == 409 and "gt.json: changed since" in error and "restart gtkit review" in error, error
    assert (bundle / "decisions.jsonl").read_bytes() == lines
    review = Review(bundle, "ana")                                                  # restarted
    assert post(review, {"item": court, "action": "edit", "text": "THIRD", "supersedes": "SECOND"})[0] == 200
    review.apply()
    assert [after for _, after, _ in _log(bundle, "/court")] == ["FIRST", "SECOND", "THIRD"]
