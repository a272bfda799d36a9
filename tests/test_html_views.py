"""The static HTML views: `gtkit score --html` (the report) and `gtkit show --html` (a bundle), end to end on a
small synth bundle and its fax re-capture, in a real headless browser where Debian's chromium is installed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import run_cli as run

from gtkit.cli import main
from gtkit.degrade.pipeline import degrade
from gtkit.errors import GtkitError
from gtkit.format.bundle import read_bundle
from gtkit.scoring.engine import Counts, DocumentScore
from gtkit.synth.pipeline import synth
from gtkit.views.html_pages import MARKER, box_style, is_html_view, show_value, write_view
from gtkit.views.score_html import ScoredDocument, worst_first

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _citations(gt, drop: int | None = None, nudge: str | None = None) -> dict:  # type: ignore[no-untyped-def]
    """The truth's first evidence box of every field as citations, renumbered after record `drop` is removed;
    the box of field `nudge` moved off its words."""
    cites = {}
    for f in gt.fields:
        if not f.readings[0].evidence:
            continue
        parts = f.path.split("/")
        if drop is not None and len(parts) > 2 and parts[1] == "creditors":
            i = int(parts[2])
            if i == drop:
                continue
            parts[2] = str(i - (i > drop))
        ev = f.readings[0].evidence[0]
        box = list(ev.box)
        if f.path == nudge:
            box = [box[0] + 0.2, box[1], box[2] + 0.2, box[3]]
        cites["/".join(parts)] = [{"page": ev.page, "box": box}]
    return cites


@pytest.fixture(scope="module")
def case(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    """A dataset (clean + fax) and a prediction folder: the clean document extracted perfectly, the fax with one
    name misread, one record dropped and one box cited off its words."""
    root = tmp_path_factory.mktemp("html")
    ds, pred = root / "ds", root / "pred"
    synth("creditor_matrix", out=ds / "clean", seed=5, records=25)
    degrade(ds / "clean", ds / "fax", recipe="fax", seed=1)
    pred.mkdir()
    lines = []
    for name in ("clean", "fax"):
        b = read_bundle(ds / name)
        lines.append(json.dumps({"doc_id": b.doc_id, "path": name}))
        expected = json.loads(json.dumps(b.gt.expected))
        cites = _citations(b.gt)
        if name == "fax":
            expected["creditors"][3]["name"] = "WRONG NAME"
            del expected["creditors"][7]
            cites = _citations(b.gt, drop=7, nudge="/creditors/1/name")
        (pred / f"{b.doc_id}.json").write_text(json.dumps(expected))
        (pred / f"{b.doc_id}.citations.json").write_text(json.dumps(cites))
    (ds / "dataset.jsonl").write_text("\n".join(lines) + "\n")
    return root


@pytest.fixture(scope="module")
def report(case, tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    out = case / "report"
    argv = ["score", "--gt", case / "ds", "--pred", case / "pred", "--by", "perception", "--html", out, "--workers", 2]
    with pytest.raises(SystemExit) as done:
        main([str(a) for a in argv])
    assert done.value.code in (0, None)
    return out


def _links(html: str) -> list[str]:
    return re.findall(r'(?:href|src)="([^"#][^"]*)"', html)


def test_score_report_tables_documents_worst_first(case, report) -> None:  # type: ignore[no-untyped-def]
    index = (report / "index.html").read_text()
    assert json.loads((report / MARKER).read_text()) == {"generator": "gtkit", "view": "score"}
    assert 'id="summary"' in index and 'id="documents"' in index and 'id="pairs"' in index
    summary = index.split('id="summary"')[1].split("</table>")[0]
    assert "(all)" in summary and "P1" in summary  # the overall row and the perception slice
    docs = read_bundle(case / "ds" / "clean").doc_id, read_bundle(case / "ds" / "fax").doc_id
    table = index.split('id="documents"')[1]
    assert table.index(f">{docs[1]}<") < table.index(f">{docs[0]}<")  # the fax document scores worse: listed first
    first = re.search(r'<a href="(docs/doc-\d+\.html)">([^<]+)</a>', table)
    assert first and first.group(2) == docs[1]
    page = (report / first.group(1)).read_text()
    problems = page.split('id="cells-problems"')[1].split("</table>")[0]
    assert "&#34;WRONG NAME&#34;" in problems and "no reading or leniency accepts it" in problems
    assert problems.count("missing_record") >= 5  # the dropped record's cells
    assert "IoU 0.00" not in problems  # only problem cells here; the nudged box is a correct value cited off its words
    ok = page.split('id="cells-ok"')[1]
    assert "exact" in ok and "word ✗" in ok and "word ✓" in ok
    # every link and picture is relative and exists; pictures are PNG files; no absolute path anywhere
    for html_file in report.rglob("*.html"):
        text = html_file.read_text()
        assert str(case) not in text and "http" not in text.replace('lang="en"', "")
        for link in _links(text):
            target = (html_file.parent / link).resolve()
            assert target.is_file() and report.resolve() in target.parents, (html_file, link)
            if link.endswith(".png"):
                assert target.read_bytes()[:8] == PNG_MAGIC
    # a problem cell links to its box over the page picture
    assert re.search(r'<a href="#(c\d+)">', problems) and 'class="mark" id="c' in page


def test_score_report_is_deterministic_and_follows_force(case, report, capsys) -> None:  # type: ignore[no-untyped-def]
    base = ["score", "--gt", case / "ds", "--pred", case / "pred", "--by", "perception", "--html"]
    before = tree(report)
    assert run([*base, report], capsys)[0] == 2  # exists: refused without --force
    assert tree(report) == before
    code, out, _ = run([*base, report, "--force", "--workers", 1, "--html-pages", 1], capsys)
    assert code == 0 and f"report: {report / 'index.html'}" in out
    capped = tree(report)
    assert len([k for k in capped if k.startswith("img/")]) == 2  # one picture per document
    assert run([*base, report, "--force", "--workers", 1], capsys)[0] == 0
    assert tree(report) == before  # same bytes whatever the workers
    mine = case / "mine"
    mine.mkdir(exist_ok=True)
    (mine / "notes.txt").write_text("keep")
    code, _, err = run([*base, mine, "--force"], capsys)
    assert code == 2 and "not an output gtkit wrote" in err and (mine / "notes.txt").read_text() == "keep"
    code, _, err = run([*base, case / "ds" / "report", "--force"], capsys)
    assert code == 2 and "must not be, contain or lie inside the input" in err
    assert not (case / "ds" / "report").exists() and not list(case.rglob("*.partial"))


def test_score_report_shows_an_unusable_prediction(case, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    pred = tmp_path / "pred"
    pred.mkdir()
    clean = read_bundle(case / "ds" / "clean").doc_id
    for f in (case / "pred").glob(f"{clean}.*"):
        (pred / f.name).write_bytes(f.read_bytes())
    code, _, _ = run(["score", "--gt", case / "ds", "--pred", pred, "--html", tmp_path / "r"], capsys)
    assert code == 0
    worst = (tmp_path / "r" / "docs" / "doc-0002.html").read_text()  # the fax document: no prediction at all
    assert "No usable prediction (missing)" in worst and "no_prediction" in worst


def test_show_html_every_page_with_its_boxes(case, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    bundle = case / "ds" / "fax"
    gt = read_bundle(bundle).gt
    out = tmp_path / "view"
    code, stdout, _ = run(["show", bundle, "--html", out, "--dpi", 60, "-j", 2], capsys)
    assert code == 0 and "index.html" in stdout and is_html_view(out)
    pages = gt.document.pages
    assert sorted(p.name for p in (out / "img").iterdir()) == [f"p{p:03d}.png" for p in range(1, pages + 1)]
    assert len(list((out / "thumbs").iterdir())) == pages
    index = (out / "index.html").read_text()
    assert index.count('<img src="thumbs/') == pages and gt.doc_id in index and "recipe fax" in index
    page1 = (out / "pages" / "p001.html").read_text()
    on_page1 = {f.path for f in gt.fields for r in f.readings for e in r.evidence if e.page == 1 and e.box}
    assert on_page1 and all(f">{p}</a>" in page1 for p in on_page1)  # every field cited on the page is listed
    assert page1.count('class="mark"') >= len(on_page1)
    for html_file in out.rglob("*.html"):
        for link in _links(html_file.read_text()):
            assert (html_file.parent / link).resolve().is_file(), (html_file, link)
    again = tmp_path / "again"
    assert run(["show", bundle, "--html", again, "--dpi", 60], capsys)[0] == 0
    assert tree(again) == tree(out)  # deterministic, whatever the workers
    assert run(["show", bundle, "--html", out, "--dpi", 60], capsys)[0] == 2
    assert run(["show", bundle, "--html", out, "--dpi", 60, "--force"], capsys)[0] == 0
    code, _, err = run(["show", bundle, "--html", out, "--out", tmp_path / "p.png"], capsys)
    assert code == 2 and "not both" in err
    code, _, err = run(["show", bundle, "--html", bundle / "view"], capsys)
    assert code == 2 and "input" in err and not (bundle / "view").exists()


def test_a_failed_view_leaves_nothing(tmp_path) -> None:
    def files():  # type: ignore[no-untyped-def]
        yield "index.html", b"<p>one</p>"
        raise GtkitError("drawing failed")

    with pytest.raises(GtkitError, match="drawing failed"):
        write_view(tmp_path / "v", "score", files(), force=False, inputs=[])
    assert list(tmp_path.iterdir()) == []
    write_view(tmp_path / "v", "score", [("index.html", b"1")], force=False, inputs=[])
    with pytest.raises(GtkitError, match="outside the view folder"):
        write_view(tmp_path / "v", "score", [("../x.html", b"2")], force=True, inputs=[])
    assert tree(tmp_path) == {"v/index.html": b"1", f"v/{MARKER}": (tmp_path / "v" / MARKER).read_bytes()}


def test_view_helpers() -> None:
    assert box_style([-0.1, 0.25, 0.5, 1.2]) == "left:0.000%;top:25.000%;width:50.000%;height:75.000%"
    assert show_value(None) == "null" and show_value("1") == '"1"' and show_value(1) == "1"
    assert len(show_value("x" * 500)) == 160 and show_value("x" * 500).endswith("…")

    def doc(name: str, value: float, word: float | None) -> ScoredDocument:
        counts = Counts(round(100 * value), 100, 100)
        wc = None if word is None else Counts(round(100 * word), 100, 100)
        return ScoredDocument(DocumentScore(name, counts, wc, wc), Path(name))

    ranked = worst_first([doc("a", 0.9, None), doc("b", 0.5, 0.9), doc("c", 0.9, 0.2), doc("d", 0.5, 0.9)])
    assert [d.score.doc_id for d in ranked] == ["b", "d", "c", "a"]


def test_report_opens_from_file_in_a_browser(report, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto((report / "index.html").resolve().as_uri())
    assert page.locator("#summary tbody tr").count() >= 2  # overall and at least one slice
    rows = page.locator("#documents tbody tr")
    assert rows.count() == 2
    first = rows.nth(0).locator("a")
    worst = first.inner_text()
    first.click()
    page.wait_for_load_state("load")
    assert page.locator("h1").inner_text().startswith(worst)
    assert page.locator("#cells-problems tbody tr").count() >= 10
    images = page.locator(".page img")
    assert images.count() >= 1
    widths = page.eval_on_selector_all(".page img", "imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)")
    assert widths and all(w > 0 for w in widths)
    page.locator("#cells-problems a[href^='#c']").first.click()  # a problem cell jumps to its box
    assert page.evaluate("location.hash").startswith("#c")
    assert page.locator(":target").count() == 1
    assert all(u.startswith("file://") for u in requests)  # nothing fetched from anywhere else


def test_score_report_of_a_truth_without_boxes(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from helpers import INVOICE, INVOICE_SCHEMA, make_bundle

    make_bundle(tmp_path / "inv", INVOICE_SCHEMA, INVOICE, boxes=False)
    pred = tmp_path / "pred"
    pred.mkdir()
    (pred / "doc-1.json").write_text(json.dumps({**INVOICE, "total": 99, "lines": INVOICE["lines"] + [
        {"sku": "Z-9", "description": "Extra", "qty": 1}]}))
    assert run(["score", "--gt", tmp_path / "inv", "--pred", pred, "--html", tmp_path / "r", "-j", 1], capsys)[0] == 0
    index = (tmp_path / "r" / "index.html").read_text()
    summary = index.split('id="summary"')[1].split("</table>")[0]
    assert summary.count('<td class="num">-</td>') == 2  # no grounding score: page and word F1 are "-"
    page = (tmp_path / "r" / "docs" / "doc-0001.html").read_text()
    assert "No page shows a box" in page and not (tmp_path / "r" / "img").exists()
    problems = page.split('id="cells-problems"')[1].split("</table>")[0]
    assert "extra_record" in problems and "predicted record paired with no truth record" in problems
    assert "1250.5" in problems and ">99<" in problems
