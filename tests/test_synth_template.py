"""Renderer template: jinja2 + weasyprint families, values located by measurement, checkboxes by ink."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pymupdf
import pytest
from helpers import pdftotext_words
from helpers import run_cli as run

from gtkit.format.bundle import read_bundle
from gtkit.synth import family as family_mod
from gtkit.synth.family import get_family
from gtkit.synth.pipeline import generate_expected
from gtkit.synth.template import render_template
from gtkit.synth.template_readback import locate_template

TOY_TOML = """
name = "toy"
description = "a toy template family made by a test"
renderer = "template"
default_records = 30
records_field = "items"

[template]
html = "template.html"
css = ["base.css", "style.css"]
formats = { amount = "money" }
"""
TOY_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": False,
    "required": ["title", "items"],
    "properties": {
        "title": {"type": "string", "description": "The title."},
        "items": {"type": "array", "description": "The items.", "items": {
            "type": "object", "additionalProperties": False, "required": ["name", "amount", "paid"],
            "properties": {"name": {"type": "string", "description": "Name."},
                           "amount": {"type": "number", "description": "Amount."},
                           "paid": {"type": ["boolean", "null"], "description": "Paid box."}}}}}}
TOY_GENERATOR = """
def generate_context(rng):
    return {"title": "Toy Ledger"}

def generate_records(rng, n):
    out = []
    for i in range(n):
        r = rng.random()
        out.append({"name": f"Item {i} alpha", "amount": round(float(rng.integers(100, 100000)) / 100, 2),
                    "paid": None if r < 0.2 else bool(r < 0.6)})
    return out
"""
TOY_TEMPLATE = """<!doctype html>
<html><head><meta charset="utf-8"><title>{{ title }}</title></head>
<body>
<h1 class="doc-title">{{ v('/title') }}</h1>
<table><thead><tr><th>Name</th><th>Amount</th><th>Paid</th></tr></thead>
<tbody>
{% for it in items %}{% set p = ptr('items', loop.index0) %}
<tr><td>{{ v(p ~ '/name') }}</td><td>{{ v(p ~ '/amount') }}</td><td>{{ box(p ~ '/paid') }}</td></tr>
{% endfor %}
</tbody></table>
</body></html>
"""


pytestmark = pytest.mark.usefixtures("fresh_family_cache")


@pytest.fixture
def toy(tmp_path, monkeypatch) -> Path:  # type: ignore[no-untyped-def]
    """A template family in a temporary folder, found through GTKIT_FAMILIES_PATH."""
    folder = tmp_path / "fams" / "toy"
    folder.mkdir(parents=True)
    (folder / "family.toml").write_text(TOY_TOML)
    (folder / "schema.json").write_text(json.dumps(TOY_SCHEMA))
    (folder / "generator.py").write_text(TOY_GENERATOR)
    (folder / "style.css").write_text("td, th { padding: 2pt 4pt; border-bottom: 0.5pt solid #888; }\n")
    (folder / "template.html").write_text(TOY_TEMPLATE)
    monkeypatch.setenv("GTKIT_FAMILIES_PATH", str(folder.parent))
    return folder


def test_toy_family_from_a_temporary_folder(toy, tmp_path, capsys):  # type: ignore[no-untyped-def]
    code, _, err = run(["synth", "--family", "toy", "--records", "120", "--out", tmp_path / "a"], capsys)
    assert code == 0, err
    assert run(["check", tmp_path / "a"], capsys)[0] == 0
    bundle = read_bundle(tmp_path / "a")
    assert bundle.gt.document.pages >= 3  # the layout engine paginates; the table header repeats
    doc = pymupdf.open(bundle.pdf_path)
    assert all("Amount" in doc[p].get_text() for p in range(doc.page_count))
    assert f"Page 2 of {doc.page_count}" in doc[1].get_text()
    boxes = checked = 0
    for f in bundle.gt.fields:
        ev = f.readings[0].evidence
        assert all(e.verified for e in ev)
        if f.path.endswith("/paid"):
            value = f.readings[0].value
            if value is None:
                assert ev == []
                continue
            boxes += 1
            checked += value
            (e,) = ev
            assert e.words is None and e.quote is None
            x0, y0, x1, y1 = e.box
            w, h = doc[e.page - 1].rect.width, doc[e.page - 1].rect.height
            assert 5 < (x1 - x0) * w < 12 and 5 < (y1 - y0) * h < 12  # the checkbox itself
            assert doc[e.page - 1].get_textbox(pymupdf.Rect(x0 * w, y0 * h, x1 * w, y1 * h)).strip() == ""
    assert boxes > 50 and 0 < checked < boxes
    assert "true" not in doc[0].get_text().lower().split()


def test_two_runs_give_the_same_bytes(toy, tmp_path, capsys):  # type: ignore[no-untyped-def]
    for name in ("a", "b"):
        assert run(["synth", "--family", "toy", "--records", "40", "--out", tmp_path / name], capsys)[0] == 0
    assert (tmp_path / "a" / "document.pdf").read_bytes() == (tmp_path / "b" / "document.pdf").read_bytes()
    meta = pymupdf.open(tmp_path / "a" / "document.pdf").metadata
    assert not meta.get("creationDate") and not meta.get("modDate")


def test_a_flipped_checkbox_is_found(toy):  # type: ignore[no-untyped-def]
    family = get_family("toy")
    expected = generate_expected(family, 20, 0)
    k = next(i for i, r in enumerate(expected["items"]) if r["paid"] is not None)
    rendered = render_template(family, expected)
    assert not locate_template(rendered, rendered.pdf).problems
    flipped = json.loads(json.dumps(expected))
    flipped["items"][k]["paid"] = not flipped["items"][k]["paid"]
    other = render_template(family, flipped)
    problems = locate_template(rendered, other.pdf).problems
    assert [p.pointer for p in problems] == [f"/items/{k}/paid"]
    assert "checkbox of record" in problems[0].message


def _synth_fails(toy_folder: Path, template: str, tmp_path: Path, capsys) -> str:  # type: ignore[no-untyped-def]
    (toy_folder / "template.html").write_text(template)
    family_mod._cached.cache_clear()
    out = tmp_path / "out"
    code, _, err = run(["synth", "--family", "toy", "--records", "5", "--out", out], capsys)
    assert code == 2, err
    assert not out.exists(), "nothing is written when the template fails"
    return err


def test_template_errors_name_the_file_and_line(toy, tmp_path, capsys):  # type: ignore[no-untyped-def]
    err = _synth_fails(toy, TOY_TEMPLATE.replace("{{ v('/title') }}", "{{ v('/title') }}\n{{ no_such_thing }}"),
                       tmp_path, capsys)
    assert "template.html" in err and "line 5" in err and "no_such_thing" in err
    err = _synth_fails(toy, TOY_TEMPLATE.replace("{% endfor %}", "{% endfor"), tmp_path, capsys)
    assert "template.html" in err and "syntax error" in err


def test_a_value_drawn_twice_or_never_names_record_and_field(toy, tmp_path, capsys):  # type: ignore[no-untyped-def]
    err = _synth_fails(toy, TOY_TEMPLATE.replace("{{ v(p ~ '/name') }}", "{{ v(p ~ '/name') }} {{ v(p ~ '/name') }}"),
                       tmp_path, capsys)
    assert "/items/0/name" in err and "record 0 field name" in err and "more than once" in err
    err = _synth_fails(toy, TOY_TEMPLATE.replace("<td>{{ v(p ~ '/amount') }}</td>", ""), tmp_path, capsys)
    assert "/items/0/amount" in err and "never drawn" in err
    err = _synth_fails(toy, TOY_TEMPLATE.replace("{{ box(p ~ '/paid') }}", "{{ v(p ~ '/paid') }}"), tmp_path, capsys)
    assert "boolean" in err and "box()" in err
    # an element the layout hides is not where the values are
    err = _synth_fails(toy, TOY_TEMPLATE.replace("<h1 class=\"doc-title\">", "<h1 style=\"display:none\">"),
                       tmp_path, capsys)
    assert "/title" in err and "no place in the PDF" in err


def test_a_remote_url_is_refused(toy, tmp_path, capsys):  # type: ignore[no-untyped-def]
    err = _synth_fails(toy, TOY_TEMPLATE.replace("<body>", '<body><img src="https://example.com/logo.png">'),
                       tmp_path, capsys)
    assert "https://example.com/logo.png" in err and "local files only" in err
    err = _synth_fails(toy, TOY_TEMPLATE.replace("<body>", '<body><img src="file:///etc/hostname">'), tmp_path, capsys)
    assert "file:///etc/hostname" in err


@pytest.mark.skipif(shutil.which("pdftotext") is None,
                    reason="pdftotext (poppler-utils) is not installed; .ci/run installs it")
@pytest.mark.parametrize("fam,records", [("schedule_ef", 40), ("deviation_log", 25)])
def test_pdftotext_finds_every_value_inside_its_evidence_box(fam, records, tmp_path, capsys):  # type: ignore[no-untyped-def]
    assert run(["synth", "--family", fam, "--records", records, "--out", tmp_path / "b"], capsys)[0] == 0
    assert run(["check", tmp_path / "b"], capsys)[0] == 0
    bundle = read_bundle(tmp_path / "b")
    pages = pdftotext_words(bundle.pdf_path)
    assert len(pages) == bundle.gt.document.pages
    family = get_family(fam)
    n = 0
    for f in bundle.gt.fields:
        value = f.readings[0].value
        if value is None or isinstance(value, bool):
            continue
        (ev,) = f.readings[0].evidence
        x0, y0, x1, y1 = ev.box
        tol = 0.004
        inside = [w[4] for w in pages[ev.page - 1]
                  if (w[0] + w[2]) / 2 > x0 - tol and (w[0] + w[2]) / 2 < x1 + tol
                  and (w[1] + w[3]) / 2 > y0 - tol and (w[1] + w[3]) / 2 < y1 + tol]
        text = " ".join(family.display(f.path.rsplit("/", 1)[-1], value).split())
        assert "".join(inside) == "".join(text.split()), (f.path, inside, text)
        n += 1
    assert n > records * 4


def test_template_families_take_data(tmp_path, capsys):  # type: ignore[no-untyped-def]
    family = get_family("deviation_log")
    records = generate_expected(family, 3, 5)["deviations"]
    records[0]["comments"][:0] = [{"timestamp": "2024-01-02 03:04", "author": "Q. Test (CRA)",
                                   "text": "Nested from data."}]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert run(["synth", "--family", "deviation_log", "--data", data, "--out", tmp_path / "b"], capsys)[0] == 0
    gt = read_bundle(tmp_path / "b").gt
    assert gt.expected["deviations"][0]["comments"][0]["text"] == "Nested from data."
    records[1]["comments"] = [{"timestamp": "x", "author": "A", "text": "   "}]
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    code, _, err = run(["synth", "--family", "deviation_log", "--data", data, "--out", tmp_path / "c"], capsys)
    assert code == 2 and "line 2" in err and "comments/0/text" in err and "blank" in err
    # CSV: booleans as x / empty
    csv = tmp_path / "claims.csv"
    csv.write_text("creditor_name,street,street_2,city_state_zip,account_last4,date_incurred,total_claim,"
                   "priority_amount,nonpriority_amount,claim_type,contingent,unliquidated,disputed\n"
                   "ACME SUPPLY INC,1 MAIN ST,,DOVER DE 19901,1234,03/2020,1500.25,,,Trade debt,x,no,\n")
    assert run(["synth", "--family", "schedule_ef", "--data", csv, "--out", tmp_path / "e"], capsys)[0] == 0
    fields = {f.path: f.readings[0] for f in read_bundle(tmp_path / "e").gt.fields}
    assert fields["/claims/0/contingent"].value is True and fields["/claims/0/contingent"].evidence
    assert fields["/claims/0/unliquidated"].value is False and fields["/claims/0/unliquidated"].evidence
    assert fields["/claims/0/disputed"].value is None and fields["/claims/0/disputed"].evidence == []


def test_county_audit_subtotals_reconcile_to_the_cent(tmp_path, capsys):  # type: ignore[no-untyped-def]
    assert run(["synth", "--family", "county_audit", "--records", "60", "--seed", "3", "--out", tmp_path / "b"],
               capsys)[0] == 0
    assert run(["check", tmp_path / "b"], capsys)[0] == 0
    gt = read_bundle(tmp_path / "b").gt
    e = gt.expected

    def cents(x: float) -> int:
        return round(x * 100)

    assert sum(len(d["line_items"]) for f in e["funds"] for d in f["departments"]) == 60
    for f in e["funds"]:
        for d in f["departments"]:
            assert cents(d["department_total"]) == sum(cents(li["amount"]) for li in d["line_items"])
        assert cents(f["fund_total"]) == sum(cents(d["department_total"]) for d in f["departments"])
    assert cents(e["grand_total"]) == sum(cents(f["fund_total"]) for f in e["funds"])
    paths = {f.path for f in gt.fields if f.readings[0].evidence}
    assert "/grand_total" in paths and "/funds/0/departments/0/line_items/0/amount" in paths
