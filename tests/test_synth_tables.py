"""Long-table layouts of the reportlab renderer: two-level headers, rows split across pages, rotated pages,
and the families that use them (holdings_13f, adverse_events), checked against poppler's pdftotext."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from helpers import run_cli as run
from test_degrade_ink import _shares

from gtkit.cli import main
from gtkit.degrade import ops
from gtkit.degrade.boxes import transform_evidence
from gtkit.degrade.pipeline import plan_page, rasterize
from gtkit.degrade.recipe import load_recipe
from gtkit.format.bundle import read_bundle
from gtkit.format.models import Evidence
from gtkit.paths import FAMILIES_DIR
from gtkit.pdf import page_words
from gtkit.synth import family as family_mod
from gtkit.synth.fake import cusip_check_digit
from gtkit.synth.family import get_family
from gtkit.synth.pipeline import generate_expected

HAS_PDFTOTEXT = shutil.which("pdftotext") is not None
needs_pdftotext = pytest.mark.skipif(not HAS_PDFTOTEXT, reason="pdftotext (poppler-utils) is not installed")
XHTML = "{http://www.w3.org/1999/xhtml}"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


pytestmark = pytest.mark.usefixtures("fresh_family_cache")


@pytest.fixture(scope="module")
def bundles(tmp_path_factory) -> dict[str, Path]:  # type: ignore[no-untyped-def]
    """A small bundle of each family, made through the CLI (checked by synth itself)."""
    root = tmp_path_factory.mktemp("tables")
    out = {}
    for fam, records in (("holdings_13f", 150), ("adverse_events", 130)):
        try:
            main(["synth", "--family", fam, "--records", str(records), "--seed", "5", "--out", str(root / fam)])
        except SystemExit as e:
            assert not e.code
        out[fam] = root / fam
    return out


def pdftotext_pages(pdf: Path, sizes: list[list[float]]) -> list[list[tuple[float, float, float, float, str]]]:
    """Every page's words from `pdftotext -bbox-layout`, normalized to the page as a viewer shows it.

    poppler writes word positions on the page as viewed (after /Rotate) but the page's width and height
    unrotated, so the viewer size (the bundle's page size) must be its width and height, in either order."""
    import xml.etree.ElementTree as ET

    xml = subprocess.run(["pdftotext", "-bbox-layout", str(pdf), "-"], capture_output=True, check=True).stdout
    pages = []
    for page, (vw, vh) in zip(ET.fromstring(xml).iter(XHTML + "page"), sizes, strict=True):
        assert sorted([float(page.get("width")), float(page.get("height"))]) == pytest.approx(sorted([vw, vh]))
        pages.append([(float(w.get("xMin")) / vw, float(w.get("yMin")) / vh, float(w.get("xMax")) / vw,
                       float(w.get("yMax")) / vh, w.text or "") for w in page.iter(XHTML + "word")])
    return pages


@needs_pdftotext
@pytest.mark.parametrize("fam", ["holdings_13f", "adverse_events"])
def test_pdftotext_finds_every_value_inside_its_evidence_box(bundles, fam):  # type: ignore[no-untyped-def]
    bundle = read_bundle(bundles[fam])
    pages = pdftotext_pages(bundle.pdf_path, bundle.gt.document.page_sizes)
    family = get_family(fam)
    n = 0
    for f in bundle.gt.fields:
        value = f.readings[0].value
        for ev in f.readings[0].evidence:
            x0, y0, x1, y1 = ev.box
            tol = 0.003
            inside = [w[4] for w in pages[ev.page - 1]
                      if x0 - tol < (w[0] + w[2]) / 2 < x1 + tol and y0 - tol < (w[1] + w[3]) / 2 < y1 + tol]
            text = " ".join(family.display(f.path.rsplit("/", 1)[-1], value).split())
            assert "".join(inside) == "".join(text.split()), (f.path, ev.page, inside, text)
            n += 1
    assert n > 1000


def test_two_level_header_on_every_page(bundles):  # type: ignore[no-untyped-def]
    """VOTING AUTHORITY spans SOLE / SHARED / NONE on every page, above them; S1 is measured."""
    bundle = read_bundle(bundles["holdings_13f"])
    assert "S1" in bundle.gt.tags.structure and {"S3", "T1.a"} <= set(bundle.gt.tags.structure + bundle.gt.tags.task)
    with pymupdf.open(bundle.pdf_path) as doc:
        assert doc.page_count >= 3
        for page in doc:
            words = {w[4]: w for w in page.get_text("words")}
            group = words["AUTHORITY"]
            left, right = words["8:"], group  # "COLUMN 8: VOTING AUTHORITY", centred over the three columns
            for title in ("SOLE", "SHARED", "NONE"):
                w = words[title]
                assert w[1] > group[3]  # below the group title
            assert words["SOLE"][0] < left[0] and words["NONE"][2] > right[2]


def test_holdings_13f_values(bundles):  # type: ignore[no-untyped-def]
    gt = read_bundle(bundles["holdings_13f"]).gt
    rows = gt.expected["holdings"]
    assert len(rows) == 150 == gt.expected["entry_total"]
    assert gt.expected["value_total"] == sum(r["value"] for r in rows)
    assert all(cusip_check_digit(r["cusip"][:8]) == r["cusip"][8] for r in rows)
    assert [r["name_of_issuer"] for r in rows] == sorted(r["name_of_issuer"] for r in rows)
    by_class: dict[tuple[str, str], set[str]] = {}
    for r in rows:
        by_class.setdefault((r["name_of_issuer"], r["title_of_class"]), set()).add(r["cusip"])
        if r["sh_prn"] == "SH" and r["put_call"] is None:
            assert r["voting_sole"] + r["voting_shared"] + r["voting_none"] == r["shares_or_principal_amount"]
    assert all(len(c) == 1 for c in by_class.values())
    assert gt.tags.domain == "D1"


def test_cusip_check_digit_of_known_cusips():  # type: ignore[no-untyped-def]
    for c in ("037833100", "594918104", "38259P508", "084670702", "17275R102", "88579Y101"):
        assert cusip_check_digit(c[:8]) == c[8]


def test_rotated_pages_and_split_rows(bundles, capsys):  # type: ignore[no-untyped-def]
    """adverse_events: portrait sheets with /Rotate 90 showing landscape pages; rows split under (continued)."""
    folder = bundles["adverse_events"]
    gt = read_bundle(folder).gt
    assert all(list(s) == [792.0, 612.0] for s in gt.document.page_sizes)
    with pymupdf.open(folder / "document.pdf") as doc:
        for page in doc:
            assert page.rotation == 90 and page.mediabox.width < page.mediabox.height
    assert "P1" in gt.tags.perception and "T1.b" in gt.tags.task
    pages_of: dict[int, set[int]] = {}
    for f in gt.fields:
        for ev in f.readings[0].evidence:
            if f.path.startswith("/adverse_events/"):
                pages_of.setdefault(int(f.path.split("/")[2]), set()).add(ev.page)
        assert len(f.readings[0].evidence) <= 1 or not f.path.startswith("/adverse_events/")
    split = sorted(r for r, p in pages_of.items() if len(p) > 1)
    assert split and gt.provenance.parameters["split_records"] == len(split)
    with pymupdf.open(folder / "document.pdf") as doc:
        for r in split:
            nxt = max(pages_of[r])
            top = sorted((w for w in doc[nxt - 1].get_text("words") if w[4] == "(continued)"), key=lambda w: w[1])
            assert top, (r, nxt)
    # gtkit check verifies the recorded count against the layout
    g = json.loads((folder / "gt.json").read_text())
    g["provenance"]["parameters"]["split_records"] += 1
    bad = folder.parent / "bad-split"
    shutil.copytree(folder, bad)
    (bad / "gt.json").write_text(json.dumps(g))
    code, out, err = run(["check", bad], capsys)
    assert code != 0 and "/provenance/parameters/split_records" in out + err


def test_same_bytes_twice_and_data(bundles, tmp_path, capsys):  # type: ignore[no-untyped-def]
    for fam, records in (("holdings_13f", 150), ("adverse_events", 130)):
        again = tmp_path / fam
        assert run(["synth", "--family", fam, "--records", records, "--seed", 5, "--out", again], capsys)[0] == 0
        for name in ("document.pdf", "gt.json"):
            assert sha(again / name) == sha(bundles[fam] / name), (fam, name)
    # --data: the user's rows, the totals derived from them
    family = get_family("holdings_13f")
    rows = generate_expected(family, 12, 9)["holdings"]
    rows[0]["value"] = 7
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert run(["synth", "--family", "holdings_13f", "--data", data, "--out", tmp_path / "mine"], capsys)[0] == 0
    assert run(["check", tmp_path / "mine"], capsys)[0] == 0
    gt = read_bundle(tmp_path / "mine").gt
    assert gt.expected["value_total"] == sum(r["value"] for r in rows) and gt.expected["entry_total"] == 12
    events = generate_expected(get_family("adverse_events"), 10, 9)["adverse_events"]
    data = tmp_path / "events.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in events))
    assert run(["synth", "--family", "adverse_events", "--data", data, "--out", tmp_path / "ev"], capsys)[0] == 0
    assert read_bundle(tmp_path / "ev").gt.expected["adverse_events"] == events


def test_degrade_keeps_boxes_on_the_words_of_a_rotated_page(bundles, tmp_path, capsys):  # type: ignore[no-untyped-def]
    """The degrade suite's ink test on a rotated page: the page raster (as viewed) has every word's ink inside
    its box, and after a recipe's warp inside its moved box; `gtkit degrade` of the bundle checks clean."""
    b = read_bundle(bundles["adverse_events"])
    dpi = 150  # as the degrade suite
    size_pt = tuple(b.gt.document.page_sizes[0])
    words = [w for f in b.gt.fields for r in f.readings for e in r.evidence if e.page == 1 for w in (e.words or [])]
    w_px, h_px = round(size_pt[0] * dpi / 72), round(size_pt[1] * dpi / 72)
    gray = rasterize(str(b.pdf_path), 0, (w_px, h_px))
    assert gray.shape == (h_px, w_px)  # landscape, as viewed
    labels = np.zeros(gray.shape, dtype=np.float32)
    ink = gray < 160
    with pymupdf.open(b.pdf_path) as doc:  # the chrome's words (as viewed) claim their own ink first
        page = page_words(doc, 0)
    normalized = page.coords / np.array(size_pt * 2)
    is_value = (np.abs(normalized[:, None, :] - np.array(words)[None, :, :]).max(axis=2) < 1e-5).any(axis=1)
    chrome = [tuple(c) for c in normalized[~is_value]]
    assert len(chrome) == len(normalized) - len(words)
    ids = list(range(len(words) + 1, len(words) + 1 + len(chrome))) + list(range(1, len(words) + 1))
    for k, (x0, y0, x1, y1) in zip(ids, chrome + words):  # grown 2 px across, 1 px down (rules run below lines)
        a0, a1 = int(x0 * w_px) - 2, int(np.ceil(x1 * w_px)) + 2
        b0, b1 = int(y0 * h_px) - 1, int(np.ceil(y1 * h_px)) + 1
        sub = ink[b0:b1, a0:a1] & (labels[b0:b1, a0:a1] == 0)
        labels[b0:b1, a0:a1][sub] = k
    clean = _shares(labels, words, w_px, h_px)  # a real font's glyphs overshoot their advance by a hair
    assert clean.min() >= 0.98 and np.mean(clean == 1.0) > 0.95
    for recipe in ("clean_scan", "phone_camera"):
        plan = plan_page(load_recipe(recipe), 3, b.doc_id, 1, size_pt, dpi)
        hm = np.asarray(plan["geometry"]["homography"])
        moved = [transform_evidence(Evidence(page=1, box=w, words=[w]), hm).words[0] for w in words]
        warped = _shares(ops.warp(labels, hm, 0, nearest=True), moved, w_px, h_px)
        # 7 pt words are a few dozen pixels: one resampled edge pixel is a few percent of a word
        assert warped.min() >= 0.95 and warped.mean() >= 0.995, (recipe, float(warped.min()), float(warped.mean()))
    out = tmp_path / "fax"
    assert run(["degrade", bundles["adverse_events"], "--recipe", "fax", "--seed", 3, "--out", out], capsys)[0] == 0
    assert run(["check", out], capsys)[0] == 0
    assert [list(s) for s in read_bundle(out).gt.document.page_sizes] == [list(s) for s in b.gt.document.page_sizes]


def copy_family(tmp_path: Path, monkeypatch, source: str, name: str) -> Path:  # type: ignore[no-untyped-def]
    folder = tmp_path / "fams" / name
    shutil.copytree(FAMILIES_DIR / source, folder)
    toml = (folder / "family.toml").read_text().replace(f'name = "{source}"', f'name = "{name}"', 1)
    (folder / "family.toml").write_text(toml)
    monkeypatch.setenv("GTKIT_FAMILIES_PATH", str(folder.parent))
    return folder


ISSUER_COLUMN = '{ field = "name_of_issuer", title = "NAME OF ISSUER", width = 150 }'


@pytest.mark.parametrize("file,old,new,where", [
    ("layout.toml", 'first = "voting_sole"\nspan = 3', 'first = "voting_sole"\nspan = 4', "/table/groups/7/span"),
    ("layout.toml", 'first = "voting_sole"', 'first = "voting"', "/table/groups/7/first"),
    ("layout.toml", ISSUER_COLUMN, ISSUER_COLUMN.replace("150", "2000"),
     "/table/columns/0/width: column 'name_of_issuer' is 2000 pt"),
    ("layout.toml", ISSUER_COLUMN, ISSUER_COLUMN.replace("150", "400"), "/table/columns/7/width"),
    ("family.toml", 'orientation = "landscape"', 'orientation = "portrait"\nrotate = 90', "/page/rotate"),
])
def test_bad_layout_is_named_and_nothing_written(tmp_path, monkeypatch, capsys, file, old, new, where):  # type: ignore[no-untyped-def]
    folder = copy_family(tmp_path, monkeypatch, "holdings_13f", "h13_bad")
    text = (folder / file).read_text()
    assert old in text
    text = text.replace(old, new, 1)
    if "columns/" in where:  # widths in points: one column wider than the body, or the columns together
        text = text.replace("[table]\n", '[table]\nwidth_unit = "points"\n', 1)
    (folder / file).write_text(text)
    out = tmp_path / "out"
    code, _, err = run(["synth", "--family", "h13_bad", "--records", 20, "--out", out], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert where in err and file in err, err
    assert not out.exists()


def test_value_taller_than_any_row_is_named(tmp_path, capsys):  # type: ignore[no-untyped-def]
    events = generate_expected(get_family("adverse_events"), 3, 2)["adverse_events"]
    events[1]["reported_term"] = " ".join(["persistent"] * 170)  # under the 2,000 characters of a value
    data = tmp_path / "tall.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in events))
    out = tmp_path / "out"
    code, _, err = run(["synth", "--family", "adverse_events", "--data", data, "--out", out], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "layout.toml" in err and "/table/columns/2/width" in err and "record 1" in err, err
    assert not out.exists()


def test_show_draws_boxes_where_the_viewer_sees_the_words(bundles):  # type: ignore[no-untyped-def]
    """gtkit show on a rotated page: each box's outline lands on the page as viewed (landscape)."""
    from gtkit.views.page_png import render_evidence_png

    b = read_bundle(bundles["adverse_events"])
    png = render_evidence_png(b, 1, dpi=72, labels=False)
    pix = pymupdf.Pixmap(png)
    assert (pix.width, pix.height) == (792, 612)
    samples = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)
    blue = (samples[:, :, 2].astype(int) - samples[:, :, 0] > 80)
    boxes = [e.box for f in b.gt.fields for e in f.readings[0].evidence if e.page == 1]
    hits = [blue[int(y0 * 612) - 1 : int(y0 * 612) + 2, int(x0 * 792) : int(x1 * 792) + 1].any()
            for x0, y0, x1, _ in boxes]
    assert len(boxes) > 100 and all(hits)


def test_template_family_refuses_rotate(tmp_path, monkeypatch, capsys):  # type: ignore[no-untyped-def]
    folder = copy_family(tmp_path, monkeypatch, "schedule_ef", "ef_rotated")
    toml = (folder / "family.toml").read_text()
    (folder / "family.toml").write_text(toml.replace('orientation = "portrait"',
                                                     'orientation = "landscape"\nrotate = 90'))
    code, _, err = run(["synth", "--family", "ef_rotated", "--records", 5, "--out", tmp_path / "out"], capsys)
    assert code == 2 and "family.toml" in err and "/page/rotate" in err, err
    assert not (tmp_path / "out").exists()


@needs_pdftotext
def test_rotate_270_agrees_with_pdftotext(tmp_path, monkeypatch, capsys):  # type: ignore[no-untyped-def]
    """The other quarter turn: /Rotate 270, boxes still on the words pdftotext sees, check clean."""
    folder = copy_family(tmp_path, monkeypatch, "adverse_events", "ae_270")
    toml = (folder / "family.toml").read_text()
    (folder / "family.toml").write_text(toml.replace("rotate = 90", "rotate = 270"))
    out = tmp_path / "b"
    assert run(["synth", "--family", "ae_270", "--records", 40, "--out", out], capsys)[0] == 0
    assert run(["check", out], capsys)[0] == 0
    b = read_bundle(out)
    with pymupdf.open(b.pdf_path) as doc:
        assert {p.rotation for p in doc} == {270}
    pages = pdftotext_pages(b.pdf_path, b.gt.document.page_sizes)
    family = get_family("ae_270")
    for f in b.gt.fields:
        for ev in f.readings[0].evidence:
            x0, y0, x1, y1 = ev.box
            inside = [w[4] for w in pages[ev.page - 1]
                      if x0 - 0.003 < (w[0] + w[2]) / 2 < x1 + 0.003 and y0 - 0.003 < (w[1] + w[3]) / 2 < y1 + 0.003]
            text = family.display(f.path.rsplit("/", 1)[-1], f.readings[0].value)
            assert "".join(inside) == "".join(text.split()), (f.path, inside)


# gtkit check of the table families: without split rows the layout-free check (`gtkit.synth.verify`), with them the
# layout's; either way a tampered bundle is caught.

def _no_layout(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Make laying the document out again an error: the check must not need it."""
    import gtkit.synth.layout as layout

    def refuse(*a, **k):  # type: ignore[no-untyped-def]
        raise AssertionError("the check laid the document out again")

    monkeypatch.setattr(layout, "plan_document", refuse)


def _no_verify(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import gtkit.synth.check as synth_check

    def refuse(*a, **k):  # type: ignore[no-untyped-def]
        raise AssertionError("a family that splits rows was checked without its layout")

    monkeypatch.setattr(synth_check, "verify_synth_bundle", refuse)


@pytest.mark.parametrize("fam", ["holdings_13f", "adverse_events"])
@pytest.mark.parametrize("tamper", ["box", "value", "record"])
def test_check_of_a_table_family_catches_tampering(bundles, fam, tamper, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    from test_check_pipelines import change_value, drop_record, move_box

    from gtkit.check import check_bundle
    from gtkit.pipelines import CHECKS

    (_no_layout if fam == "holdings_13f" else _no_verify)(monkeypatch)  # two-level header / split rows, rotated
    folder = tmp_path / fam
    shutil.copytree(bundles[fam], folder)
    assert check_bundle(folder, CHECKS) == []
    if tamper == "box":
        moved = move_box(folder / "gt.json", lambda e: e["path"].count("/") == 3)
        problems = check_bundle(folder, CHECKS)
        assert problems and all(moved.startswith(p.pointer + "/") for p in problems), problems
        return
    gt = json.loads((folder / "gt.json").read_text())
    (change_value if tamper == "value" else drop_record)(gt, both=True)
    (folder / "gt.json").write_text(json.dumps(gt))
    problems = [str(p) for p in check_bundle(folder, CHECKS)]
    assert problems, f"{tamper} tampering went unnoticed"
    said = ("unexpected text" if tamper == "record" else "not found", "pages, the layout made")
    assert any(s in p for p in problems for s in said), problems


def test_check_reads_the_group_titles(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """The layout-free check expects the header's group titles on every page: one the PDF does not show is named."""
    from gtkit.check import check_bundle
    from gtkit.pipelines import CHECKS

    folder = copy_family(tmp_path, monkeypatch, "holdings_13f", "h13_groups")
    assert run_synth("h13_groups", 12, tmp_path / "b") == 0
    _no_layout(monkeypatch)
    assert check_bundle(tmp_path / "b", CHECKS) == []
    toml = (folder / "layout.toml").read_text()
    (folder / "layout.toml").write_text(toml.replace('title = "COLUMN 2"', 'title = "COLUMN TWO"', 1))
    family_mod._cached.cache_clear()
    problems = [str(p) for p in check_bundle(tmp_path / "b", CHECKS)]
    assert any("chrome text 'COLUMN TWO' not found" in p for p in problems), problems


def test_check_of_a_rotated_family_without_split_rows(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """/Rotate 90 and no split rows: the layout-free check maps the words to the page as viewed, as synth does."""
    from test_check_pipelines import move_box

    from gtkit.check import check_bundle
    from gtkit.pipelines import CHECKS

    folder = copy_family(tmp_path, monkeypatch, "adverse_events", "ae_whole")
    toml = (folder / "family.toml").read_text()
    (folder / "family.toml").write_text(toml.replace("allow_split = true", "allow_split = false"))
    out = tmp_path / "b"
    assert run_synth("ae_whole", 40, out) == 0
    with pymupdf.open(out / "document.pdf") as doc:
        assert {p.rotation for p in doc} == {90} and doc.page_count > 1
    _no_layout(monkeypatch)
    assert check_bundle(out, CHECKS) == []
    moved = move_box(out / "gt.json", lambda e: e["path"].count("/") == 3)
    problems = check_bundle(out, CHECKS)
    assert problems and all(moved.startswith(p.pointer + "/") for p in problems), problems


def run_synth(family: str, records: int, out: Path) -> int:
    try:
        main(["synth", "--family", family, "--records", str(records), "--seed", "2", "--out", str(out)])
    except SystemExit as e:
        return int(e.code or 0)
    return 0
