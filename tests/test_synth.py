"""The synth pipeline end to end on small documents: read-back, determinism, pagination, checks, CLI."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from gtkit.check import check_path
from gtkit.cli import main
from gtkit.errors import GtkitError
from gtkit.format.bundle import read_bundle, read_index
from gtkit.pipelines import CHECKS
from gtkit.synth.family import family_names, get_family
from gtkit.synth.layout import plan_document
from gtkit.synth.pipeline import synth
from gtkit.synth.readback import overlapping_pairs

FAMILIES = ["creditor_matrix", "unclaimed_property"]
SMALL = {"creditor_matrix": 260, "unclaimed_property": 160}


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def bundles(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("synth")
    out = {}
    for fam in FAMILIES:
        synth(fam, out=root / fam, seed=11, records=SMALL[fam])
        out[fam] = root / fam
    return out


def pdf_words(pdf: Path) -> list[list[tuple]]:
    with pymupdf.open(pdf) as doc:
        return [
            [(w[0] / p.rect.width, w[1] / p.rect.height, w[2] / p.rect.width, w[3] / p.rect.height, w[4])
             for w in p.get_text("words", sort=False)]
            for p in doc
        ]


def test_registry_lists_both_families():
    assert {"creditor_matrix", "unclaimed_property"} <= set(family_names())
    cm = get_family("creditor_matrix")
    assert cm.renderer == "columns" and cm.default_records == 8624
    assert set(cm.tags["task"]) == {"T1.c", "T1.e"} and cm.tags["domain"] == "D7"
    up = get_family("unclaimed_property")
    assert up.renderer == "table" and up.page_size == (792.0, 612.0)
    for fam in (cm, up):  # a description on every field, as a user would write it
        props = fam.schema["properties"]
        assert all(p.get("description") for p in props.values())
        assert all(p.get("description") for p in fam.record_schema["properties"].values())


@pytest.mark.parametrize("fam", FAMILIES)
def test_every_value_found_under_its_box_with_its_text(bundles, fam):
    bundle = read_bundle(bundles[fam])
    family = get_family(fam)
    words = pdf_words(bundle.pdf_path)
    gt = bundle.gt
    assert gt.document.pages == len(words) > 1
    claimed: set[tuple[int, tuple]] = set()
    n_values = n_nulls = 0
    for entry in gt.fields:
        assert entry.trust == "constructed"
        reading = entry.readings[0]
        name = entry.path.rsplit("/", 1)[-1]
        if reading.value is None:
            assert reading.evidence == []
            n_nulls += 1
            continue
        n_values += 1
        is_record = entry.path.count("/") >= 3
        # a record value is printed exactly once; a caption value as often on every page as the template says
        per_page = sum(f"{c.left} {c.center} {c.right}".count("{" + name + "}") for c in family.layout.chrome)
        assert len(reading.evidence) == (1 if is_record else per_page * gt.document.pages), entry.path
        if not is_record:
            assert sorted({e.page for e in reading.evidence}) == list(range(1, gt.document.pages + 1))
        text = " ".join(family.display(name, reading.value).split())
        for ev in reading.evidence:
            assert ev.quote == text, entry.path
            page_words = words[ev.page - 1]
            found = []
            for wb in ev.words:
                hits = [w for w in page_words if all(abs(a - b) < 2e-6 for a, b in zip(w[:4], wb))]
                assert len(hits) == 1, (entry.path, wb)
                found.append(hits[0][4])
                key = (ev.page, tuple(round(v, 5) for v in wb))
                assert key not in claimed, f"word claimed twice: {entry.path}"
                claimed.add(key)
            assert " ".join(found) == text
            xs0, ys0, xs1, ys1 = zip(*ev.words)
            assert list(ev.box) == [min(xs0), min(ys0), max(xs1), max(ys1)]
            assert all(0 <= v <= 1 for v in ev.box)
    assert n_values > 500 and n_nulls > 10  # nulls exist where the schema allows them


@pytest.mark.parametrize("fam", FAMILIES)
def test_same_arguments_same_bytes(tmp_path, fam):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    synth(fam, out=a, seed=5, records=60)
    synth(fam, out=b, seed=5, records=60)
    synth(fam, out=c, seed=6, records=60)
    for name in ("document.pdf", "gt.json", "schema.json"):
        assert sha(a / name) == sha(b / name)
    assert sha(a / "document.pdf") != sha(c / "document.pdf")
    gt = json.loads((a / "gt.json").read_text())
    assert gt["provenance"]["created"] is None and gt["provenance"]["seed"] == 5
    assert gt["provenance"]["parameters"]["records"] == 60
    created = get_family(fam).info(gt["expected"]).created  # from the document's data, never the clock
    assert created is not None
    assert pymupdf.open(a / "document.pdf").metadata["creationDate"] == created


def _records_by_page(gt, field: str) -> dict[int, set[int]]:
    pages: dict[int, set[int]] = {}
    for entry in gt.fields:
        parts = entry.path.split("/")
        if len(parts) == 4 and parts[1] == field and entry.readings[0].evidence:
            pages.setdefault(int(parts[2]), set()).update(ev.page for ev in entry.readings[0].evidence)
    return pages


@pytest.mark.parametrize("fam", FAMILIES)
def test_pagination_no_split_no_early_end_chrome_everywhere(bundles, fam):
    bundle = read_bundle(bundles[fam])
    family = get_family(fam)
    gt = bundle.gt
    records = gt.expected[family.records_field]
    by_record = _records_by_page(gt, family.records_field)
    assert set(by_record) == set(range(len(records)))
    # no split record: every field of a record is on one page, and records run in order
    assert all(len(p) == 1 for p in by_record.values())
    seq = [next(iter(by_record[i])) for i in range(len(records))]
    assert seq == sorted(seq) and seq[0] == 1 and seq[-1] == gt.document.pages

    # no early page end: the first record of the next page did not fit where the page ended
    plan = plan_document(family, gt.expected)
    assert [p + 1 for p in plan.record_pages] == seq  # the plan agrees with what the PDF shows
    bottom = plan.body_box[3]
    if family.renderer == "columns":
        gap = family.layout.columns.gap
        last_col_x = max(it.region[0] for it in plan.body_items)
        for r in range(1, len(records)):
            if seq[r] != seq[r - 1]:
                last = next(it for it in plan.body_items if it.record == r - 1)
                assert last.region[0] == last_col_x, "a page ended before its last column"
                assert last.region[3] + gap + plan.record_heights[r] > bottom
    else:
        gap = family.layout.table.row_gap
        for r in range(1, len(records)):
            if seq[r] != seq[r - 1]:
                last = next(it for it in plan.body_items if it.record == r - 1)
                assert last.region[3] + gap + plan.record_heights[r] > bottom

    # chrome on every page, read from the PDF
    words = pdf_words(bundle.pdf_path)
    n = gt.document.pages
    for i, page in enumerate(words, 1):
        text = " ".join(w[4] for w in page)
        assert f"Page {i} of {n}" in text
        if fam == "creditor_matrix":
            assert "UNITED STATES BANKRUPTCY COURT" in text
            assert f"Case No. {gt.expected['case_number']}" in text
        else:
            assert "Owner Name Last Known Address City St Property Type Amount Holder" in text


def test_six_line_address_and_wrapping_value(tmp_path):
    long_name = "WILMINGTON SAVINGS FUND SOCIETY, FSB, AS ADMINISTRATIVE AND COLLATERAL AGENT FOR THE LENDERS"
    recs = [
        {"name": "ACME SUPPLY CO", "notice_name": "ATTN: GENERAL COUNSEL", "address_1": "100 MAIN ST",
         "address_2": "SUITE 400", "address_3": "MAIL STOP 12", "city": "DOVER", "state": "DE",
         "postal_code": "19901", "country": None},
        {"name": long_name, "notice_name": None, "address_1": "500 DELAWARE AVE", "address_2": None,
         "address_3": None, "city": "WILMINGTON", "state": "DE", "postal_code": "19801-1234", "country": None},
        {"name": "JANE Q DOE", "notice_name": None, "address_1": None, "address_2": None, "address_3": None,
         "city": "TORONTO", "state": "ON", "postal_code": "M5V 2T6", "country": "CANADA"},
    ]
    data = tmp_path / "recs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in recs))
    synth("creditor_matrix", out=tmp_path / "b", seed=1, data=data)
    bundle = read_bundle(tmp_path / "b")
    assert bundle.gt.expected["creditors"] == recs
    ev = {f.path: f.readings[0].evidence for f in bundle.gt.fields}
    # the 6-line block: six distinct lines, top to bottom, in one column
    tops = [ev[f"/creditors/0/{k}"][0].box[1]
            for k in ("name", "notice_name", "address_1", "address_2", "address_3", "city")]
    assert tops == sorted(tops) and len(set(tops)) == 6
    assert ev["/creditors/0/state"][0].box[1] == ev["/creditors/0/city"][0].box[1]  # city line: city ST ZIP
    # the long name wraps: its words sit on two lines, all of them carried, quote equal to the value
    name_ev = ev["/creditors/1/name"][0]
    assert len({round(w[1], 4) for w in name_ev.words}) >= 2
    assert len(name_ev.words) == len(long_name.split()) and name_ev.quote == long_name
    # a 2-line foreign block with its country line; null leaves carry no evidence
    assert ev["/creditors/2/country"][0].quote == "CANADA"
    assert ev["/creditors/2/address_1"] == []
    assert bundle.gt.provenance.parameters["records"] == 3
    assert check_path(tmp_path / "b", CHECKS) == (1, [])


def test_data_csv_good_and_bad(tmp_path):
    good = tmp_path / "up.csv"
    good.write_text(
        "owner_name,address,city,state,property_type,amount,holder,year_reported\n"
        "SMITH JOHN A,12 ELM ST,DOVER,DE,WAGES,1234.5,ACME INC,2019\n"
        "DOE JANE,,,,SECURITIES,0.07,BANK OF AMERICA NA,2021\n"
    )
    synth("unclaimed_property", out=tmp_path / "g", seed=2, data=good)
    bundle = read_bundle(tmp_path / "g")
    rows = bundle.gt.expected["properties"]
    assert rows[0]["amount"] == 1234.5 and rows[0]["year_reported"] == 2019 and rows[1]["city"] is None
    ev = {f.path: f.readings[0].evidence for f in bundle.gt.fields}
    assert ev["/properties/0/amount"][0].quote == "$1,234.50"

    bad = tmp_path / "bad.csv"
    bad.write_text(
        "owner_name,address,city,state,property_type,amount,holder,year_reported\n"
        "SMITH JOHN A,12 ELM ST,DOVER,DE,WAGES,1234.5,ACME INC,2019\n"
        "DOE JANE,,,,SECURITIES,lots,BANK OF AMERICA NA,2021\n"
    )
    with pytest.raises(GtkitError, match=r"line 3: field 'amount': 'lots' is not a number"):
        synth("unclaimed_property", out=tmp_path / "x", seed=2, data=bad)
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    "line, pattern",
    [
        ({"name": "A CO", "notice_name": None, "address_1": None, "address_2": None, "address_3": None,
          "city": "X", "state": None, "postal_code": None}, r"line 2: 'country' is a required property"),
        ({"name": 42, "notice_name": None, "address_1": None, "address_2": None, "address_3": None,
          "city": "X", "state": None, "postal_code": None, "country": None},
         r"line 2: field 'name': 42 is not of type 'string'"),
        ({"name": "  ", "notice_name": None, "address_1": None, "address_2": None, "address_3": None,
          "city": "X", "state": None, "postal_code": None, "country": None}, r"line 2: field 'name' is blank"),
        ({"name": "\u4e2d\u6587 CO", "notice_name": None, "address_1": None, "address_2": None, "address_3": None,
          "city": "X", "state": None, "postal_code": None, "country": None},
         r"line 2: field 'name': the family's font has no glyph"),
    ],
)
def test_data_jsonl_bad_record_names_its_line(tmp_path, line, pattern):
    ok = {"name": "B CO", "notice_name": None, "address_1": "1 A ST", "address_2": None, "address_3": None,
          "city": "X", "state": "NY", "postal_code": "10001", "country": None}
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ok) + "\n" + json.dumps(line) + "\n")
    with pytest.raises(GtkitError, match=pattern):
        synth("creditor_matrix", out=tmp_path / "o", seed=1, data=data)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("fam", FAMILIES)
def test_bundle_passes_check_and_scores_one_against_itself(bundles, fam):
    from gtkit.scoring.engine import score_prediction

    assert check_path(bundles[fam], CHECKS) == (1, [])
    bundle = read_bundle(bundles[fam])
    citations = {f.path: [{"page": e.page, "box": list(e.box)} for e in f.readings[0].evidence[:1]]
                 for f in bundle.gt.fields if f.readings[0].evidence}
    s = score_prediction(bundle, bundle.gt.expected, citations)
    assert s.value.f1 == 1.0 and s.page.f1 == 1.0 and s.word.f1 == 1.0
    assert s.value.n_truth == len(bundle.gt.fields)


def test_check_catches_a_moved_box(bundles, tmp_path):
    src = bundles["unclaimed_property"]
    dst = tmp_path / "tampered"
    dst.mkdir()
    for name in ("document.pdf", "schema.json"):
        (dst / name).write_bytes((src / name).read_bytes())
    gt = json.loads((src / "gt.json").read_text())
    entry = next(f for f in gt["fields"] if f["path"] == "/properties/3/holder")
    ev = entry["readings"][0]["evidence"][0]
    ev["words"][0][0] = round(ev["words"][0][0] + 0.01, 6)
    (dst / "gt.json").write_text(json.dumps(gt))
    n, problems = check_path(dst, CHECKS)
    assert n == 1 and problems
    assert any("/properties/3/holder" in p.message for p in problems)


def test_dataset_of_bundles(tmp_path):
    synth("creditor_matrix", out=tmp_path / "ds", seed=7, records=40, docs=2)
    entries = read_index(tmp_path / "ds")
    assert [e.doc_id for e in entries] == ["creditor_matrix-s7-0000", "creditor_matrix-s7-0001"]
    assert all(e.family == "creditor_matrix" and e.pipeline == "synth" and e.pages >= 1 for e in entries)
    gts = [read_bundle(tmp_path / "ds" / e.path).gt for e in entries]
    assert gts[0].provenance.seed != gts[1].provenance.seed
    assert gts[0].expected != gts[1].expected
    assert check_path(tmp_path / "ds", CHECKS) == (2, [])


def test_overlap_detection():
    boxes = np.array([[0, 0, 10, 5], [11, 0, 20, 5], [0, 6, 10, 11], [5, 3, 15, 8]], dtype=float)
    pairs = {tuple(sorted(p)) for p in overlapping_pairs(boxes)}
    assert pairs == {(0, 3), (1, 3), (2, 3)}


def run_cli(args: list[str], capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exc:
        main(args)
    return exc.value.code, capsys.readouterr().err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--family", "no_such_family"], "unknown family 'no_such_family'"),
        (["--family", "creditor_matrix", "--records", "0"], "--records must be a positive number"),
        (["--family", "creditor_matrix", "--records", "-5"], "--records must be a positive number"),
        (["--family", "creditor_matrix", "--docs", "0"], "--docs must be a positive number"),
    ],
)
def test_cli_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, args, message):
    out = tmp_path / "out"
    code, err = run_cli(["synth", *args, "--out", str(out)], capsys)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_cli_refuses_existing_output_unless_forced(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    code, err = run_cli(["synth", "--family", "creditor_matrix", "--records", "5", "--out", str(out)], capsys)
    assert code == 2 and "already exists" in err and len(err.strip().splitlines()) == 1
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging folder left behind
    code, err = run_cli(["synth", "--family", "creditor_matrix", "--records", "5", "--out", str(out), "--force"],
                        capsys)
    assert code == 2 and "not an output gtkit wrote" in err  # --force never replaces the user's folder
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    (out / "keep.txt").unlink()
    for _ in range(2):  # a bundle gtkit wrote is replaced with --force
        with pytest.raises(SystemExit) as exc:
            main(["synth", "--family", "creditor_matrix", "--records", "5", "--out", str(out), "--force"])
        assert exc.value.code in (0, None)
    assert sorted(p.name for p in out.iterdir()) == ["document.pdf", "gt.json", "schema.json"]


def test_cli_bad_data_line_exits_2(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text('{"owner_name": "X"}\n')
    code, err = run_cli(["synth", "--family", "unclaimed_property", "--data", str(data), "--out", str(tmp_path / "o")],
                        capsys)
    assert code == 2 and "line 1:" in err and "required property" in err
    assert not (tmp_path / "o").exists()


def test_cli_families_lists_tags_and_sizes(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["families"])
    assert exc.value.code in (0, None)
    out = capsys.readouterr().out
    assert "creditor_matrix:" in out and "T1.c T1.e S3 S5 D7" in out and "8624" in out
    assert "unclaimed_property:" in out and "T1.a T1.b S3 S4 D3" in out and "26725" in out


def _small_plan(fam: str = "creditor_matrix", n: int = 40):
    from gtkit.synth.pipeline import generate_expected
    from gtkit.synth.render import render_pdf

    family = get_family(fam)
    expected = generate_expected(family, n, 3)
    plan = plan_document(family, expected)
    return family, expected, plan, render_pdf(plan)


def test_locate_reports_clipping_missing_values_and_unembedded_fonts():
    from gtkit.synth.readback import locate
    from gtkit.synth.render import render_pdf

    _, _, plan, pdf = _small_plan()
    assert locate(plan, pdf).problems == []
    # a word outside its column
    item = plan.body_items[7]
    x0, y0, x1, y1 = item.region
    item.region = (x0, y0, x0 + 2.0, y1)
    problems = locate(plan, pdf).problems
    assert problems and "clipped" in problems[0].message and problems[0].pointer == item.pointer
    item.region = (x0, y0, x1, y1)
    # a value the PDF does not hold is named with its record and field
    other = plan.body_items[12]
    saved = other.chars
    other.chars = "NOTPRINTED"
    problems = locate(plan, pdf).problems
    assert problems and problems[0].pointer == other.pointer and "not found" in problems[0].message
    other.chars = saved
    # a standard font referenced but not embedded
    bad_pdf = render_pdf(plan, initial_font="Helvetica")
    messages = [p.message for p in locate(plan, bad_pdf).problems]
    assert any("'Helvetica' is not embedded" in m for m in messages)


def test_same_bytes_across_processes_and_hash_seeds(tmp_path):
    import os
    import subprocess
    import sys

    outs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"o{hash_seed}"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run([sys.executable, "-m", "gtkit", "synth", "--family", "unclaimed_property", "--records", "50",
                        "--seed", "9", "--out", str(out)], check=True, env=env, capture_output=True)
        outs.append(out)
    for name in ("document.pdf", "gt.json"):
        assert sha(outs[0] / name) == sha(outs[1] / name)


def test_split_read_back_equals_single_process(tmp_path):
    from gtkit.synth.readback import locate
    from gtkit.workers import Pool

    _, _, plan, pdf = _small_plan("unclaimed_property", 500)
    assert len(plan.pages) >= 8
    pdf_file = tmp_path / "document.pdf"
    pdf_file.write_bytes(pdf)
    one = locate(plan, pdf)
    with Pool(2) as pool:
        two = locate(plan, pdf_file, pool=pool)  # the worker reads the second half from the file
        assert one.problems == [] and two.problems == []
        assert one.evidence == two.evidence and one.page_sizes == two.page_sizes and one.words == two.words
        # a value missing from the pages the worker reads is still caught
        item = plan.body_items[-5]
        item.chars = "NOTPRINTED"
        problems = locate(plan, pdf_file, pool=pool).problems
        assert problems and problems[0].pointer == item.pointer
        assert locate(plan, pdf, pool=Pool(1)).problems == problems  # inline: the same answer


UP_ROW = {"owner_name": "DOE JANE", "address": "1 MAIN ST", "city": "ALBANY", "state": "NY",
          "property_type": "CHECKING", "amount": 12.5, "holder": "BANK NA", "year_reported": 2021}


@pytest.mark.parametrize(
    "field, value, pattern",
    [
        ("amount", 1.005, r"1\.005 is printed as '\$1\.00': give the value as printed"),
        ("amount", 1e-9, r"is printed as '\$0\.00'"),
        ("amount", 1e30, r"too large to print as an amount exactly"),
        ("owner_name", "DOE\nJANE", r"is printed as 'DOE JANE' \(line breaks"),
        ("address", "1  MAIN ST", r"is printed as '1 MAIN ST'"),
    ],
)
def test_data_value_must_read_back_as_printed(tmp_path, field, value, pattern):
    """A value the page would print differently (rounded, collapsed) is refused with its file, line and field."""
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(UP_ROW) + "\n" + json.dumps({**UP_ROW, field: value}) + "\n")
    with pytest.raises(GtkitError, match=rf"line 2: field '{field}': .*" + pattern) as exc:
        synth("unclaimed_property", out=tmp_path / "o", seed=1, data=data)
    assert exc.value.path == str(data)
    assert not (tmp_path / "o").exists()


def test_data_values_printed_exactly_are_kept(tmp_path):
    rows = [UP_ROW, {**UP_ROW, "amount": 1234567.89}, {**UP_ROW, "amount": 7}]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    synth("unclaimed_property", out=tmp_path / "o", seed=1, data=data)
    gt = json.loads((tmp_path / "o" / "gt.json").read_text())
    assert [r["amount"] for r in gt["expected"]["properties"]] == [12.5, 1234567.89, 7]


@pytest.mark.parametrize(
    "text, pattern",
    [
        ('{"owner_name": "X", "amount": NaN}', r"line 1: field 'amount': nan is not a number that can be printed"),
        ('{"owner_name": "X", "amount": Infinity}', r"line 1: field 'amount': inf is not a number"),
        ('{"owner_name": "\u05e9\u05dc\u05d5\u05dd"}',
         r"line 1: field 'owner_name': right-to-left text is not supported"),
        ('{"owner_name": "' + "A" * 5000 + '"}', r"line 1: field 'owner_name': 5,000 characters"),
    ],
)
def test_data_values_that_cannot_be_printed_name_file_line_and_field(tmp_path, text, pattern):
    row = {**UP_ROW, **json.loads(text)}
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(row, allow_nan=True) + "\n")
    with pytest.raises(GtkitError, match=pattern) as exc:
        synth("unclaimed_property", out=tmp_path / "o", seed=1, data=data)
    assert exc.value.path == str(data)


def test_csv_missing_columns_are_all_named(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("owner_name,address,city,state,property_type,holder\nX,,,,WAGES,H\n")
    with pytest.raises(GtkitError, match=r"line 1: missing column\(s\) 'amount', 'year_reported'"):
        synth("unclaimed_property", out=tmp_path / "o", seed=1, data=data)


UP_HEADER = "owner_name,address,city,state,property_type,amount,holder,year_reported\n"


@pytest.mark.parametrize("text, message", [
    ("owner_name,address,city,state,property_type,amount,holder,year_reported,city\n"
     "SMITH JOHN A,12 ELM ST,DOVER,DE,WAGES,1234.5,ACME INC,2019,PARIS\n",
     "line 1: column 'city' appears twice in the header"),
    (UP_HEADER + "SMITH JOHN A,12 ELM ST,DOVER,DE,WAGES,1234.5,ACME INC,2019\n"
                 "  ,,,,SECURITIES,0.07,BANK OF AMERICA NA,2021\n",
     "line 3: field 'owner_name' is blank, and it needs a value (it cannot be null)"),
])
def test_csv_data_refuses_a_repeated_column_and_a_blank_required_cell(tmp_path, capsys, text, message):
    data = tmp_path / "up.csv"
    data.write_text(text)
    code, err = run_cli(["synth", "--family", "unclaimed_property", "--data", str(data), "--out", str(tmp_path / "o")],
                        capsys)
    assert code == 2 and err.strip() == f"gtkit: error: {data}: {message}", err
    assert not (tmp_path / "o").exists()


def test_jsonl_data_null_in_a_field_that_needs_a_value_reads_as_csv_blank(tmp_path, capsys):
    row = {"owner_name": None, "address": None, "city": None, "state": None, "property_type": "WAGES",
           "amount": 1.5, "holder": "H", "year_reported": 2020}
    data = tmp_path / "up.jsonl"
    data.write_text(json.dumps(row) + "\n")
    code, err = run_cli(["synth", "--family", "unclaimed_property", "--data", str(data), "--out", str(tmp_path / "o")],
                        capsys)
    assert code == 2 and err.strip() == (f"gtkit: error: {data}: line 1: field 'owner_name' is null, "
                                         "and it needs a value (it cannot be null)"), err


@pytest.mark.parametrize("value, missing", [
    ("名前", "'名' (U+540D), '前' (U+524D)"),
    ("CAFÉ 名", "'名' (U+540D)"),
])
def test_data_names_every_character_the_font_lacks_in_order(tmp_path, capsys, value, missing):
    data = tmp_path / "up.csv"
    data.write_text(UP_HEADER + f"{value},12 ELM ST,DOVER,DE,WAGES,1234.5,ACME INC,2019\n", encoding="utf-8")
    code, err = run_cli(["synth", "--family", "unclaimed_property", "--data", str(data), "--out", str(tmp_path / "o")],
                        capsys)
    assert code == 2 and err.strip() == (f"gtkit: error: {data}: line 2: field 'owner_name': the family's font has "
                                         f"no glyph for {missing} in {value!r}"), err
