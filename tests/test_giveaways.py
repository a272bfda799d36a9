"""No giveaways: no shipped family's PDF, nor a degraded copy of one, names gtkit or says synthetic.

Every family's PDF is read with pymupdf: its info dictionary, every page's fonts, and every object of
the file (object streams expanded). Its metadata is the family's `[pdf]` table (a producer, a title
from the document's values, a creation date from them, never the clock), its fonts are embedded under
the PostScript names of the shipped font files, and two renders are the same bytes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest
from test_degrade_support import make_clean_bundle

from gtkit.degrade.pipeline import degrade
from gtkit.degrade.recipe import recipe_names
from gtkit.errors import GtkitError
from gtkit.synth.family import FamilyToml, family_names, get_family
from gtkit.synth.pdfinfo import PdfSection, doc_info
from gtkit.synth.pipeline import render_only
from gtkit.synth.template_readback import shipped_font_names
from gtkit.typed import parse

GIVEAWAY = re.compile(rb"gtkit|synthetic", re.I)
RECORDS = 12


def _giveaways(pdf: bytes) -> list[str]:
    """Where the PDF names gtkit or says synthetic: its metadata, its fonts, any object of the file."""
    found = []
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        found += [f"metadata {k}: {v}" for k, v in doc.metadata.items() if v and GIVEAWAY.search(v.encode())]
        for page in doc:
            found += [f"font {f[3]}" for f in page.get_fonts() if GIVEAWAY.search(f[3].encode())]
        for xref in range(1, doc.xref_length()):
            text = doc.xref_object(xref, compressed=False)
            if GIVEAWAY.search(text.encode()):
                found.append(f"object {xref}: {GIVEAWAY.search(text.encode())!r}")
    if GIVEAWAY.search(pdf):
        found.append("the file's bytes")
    return found


@pytest.mark.parametrize("name", family_names())
def test_a_family_pdf_says_what_its_real_documents_say(name):  # type: ignore[no-untyped-def]
    pdf = render_only(name, records=RECORDS, seed=3)
    assert render_only(name, records=RECORDS, seed=3) == pdf  # the same bytes twice: no clock
    assert _giveaways(pdf) == []
    family = get_family(name)
    assert family.pdf is not None and family.pdf.producer, f"{name} declares no [pdf] producer"
    allowed = shipped_font_names()
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        meta = doc.metadata
        assert meta["producer"] == family.pdf.producer and meta["creator"] == family.pdf.creator
        assert meta["title"] and name not in meta["title"]
        assert re.fullmatch(r"D:\d{14}[+-]\d\d'\d\d'", meta["creationDate"]) and meta["modDate"]
        assert 1990 < int(meta["creationDate"][2:6]) < 2030
        fonts = {f[3].split("+", 1)[-1] for page in doc for f in page.get_fonts()}
    assert fonts
    for font in fonts:  # a shipped file's PostScript name (an oblique drawn from the regular face: -Italic)
        assert font in allowed or font.removesuffix("-Italic") in allowed, font


def test_the_date_follows_the_data_not_the_seed_alone():  # type: ignore[no-untyped-def]
    section = PdfSection(title="List {county}", date_from="fiscal_year", days_after=10, utc_offset="-06:00")
    a = doc_info(section, {"county": "Kent County", "fiscal_year": "June 30, 2021"}, "funds")
    assert a.title == "List Kent County" and a.created is not None
    assert a.created.startswith("D:20210710") and a.created.endswith("-06'00'")
    assert doc_info(section, {"county": "Kent County", "fiscal_year": "June 30, 2021"}, "funds") == a
    latest = PdfSection(date_from="rows/year")
    assert doc_info(latest, {"rows": [{"year": 2019}, {"year": 2022}, {"year": None}]}, "rows").created[2:10] \
        == "20221231"
    case = PdfSection(date_from="case", date_pattern=r"^(?P<year>\d\d)-")
    assert doc_info(case, {"case": "23-10400 (ABC)"}, "rows").created[2:6] == "2023"
    assert doc_info(None, {}, "rows").created is None  # no [pdf]: no date at all


@pytest.mark.parametrize(("table", "message"), [
    ({"producer": "x", "colour": "red"}, "/pdf/colour: unknown key"),
    ({"producer": "gtkit synth"}, "names gtkit or says synthetic"),
    ({"subject": "Synthetic document"}, "names gtkit or says synthetic"),
    ({"date_pattern": r"^(\d\d)-"}, "needs a named group `year`"),
    ({"utc_offset": "EST"}, "is not an offset"),
])
def test_a_bad_pdf_table_is_refused(table, message):  # type: ignore[no-untyped-def]
    data = {"name": "fam", "renderer": "table", "default_records": 1, "records_field": "rows", "pdf": table}
    with pytest.raises(GtkitError, match=re.escape(message)):
        parse(FamilyToml, data, "family.toml", context={"folder": "fam"})


def test_a_pdf_table_naming_an_unknown_field_is_refused(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    src = get_family("holdings_13f").folder
    folder = tmp_path / "holdings_13f"
    folder.mkdir()
    for f in src.iterdir():
        if f.is_file():
            (folder / f.name).write_bytes(f.read_bytes())
    toml = folder / "family.toml"
    toml.write_text(toml.read_text().replace('title = "Form 13F Information Table {filer_name}"',
                                             'title = "Form 13F {manager}"'))
    with pytest.raises(GtkitError, match=r"/pdf/title: \{manager\} is not a document-level field"):
        get_family("holdings_13f", tmp_path)


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    return make_clean_bundle(tmp_path_factory.mktemp("clean") / "inv", n_lines=4)  # legible in every recipe


@pytest.mark.parametrize("recipe", recipe_names())
def test_a_degraded_pdf_names_nothing_either(clean, tmp_path, recipe):  # type: ignore[no-untyped-def]
    degrade(clean, tmp_path / "a", recipe=recipe, seed=5)
    degrade(clean, tmp_path / "b", recipe=recipe, seed=5)
    pdf = (tmp_path / "a" / "document.pdf").read_bytes()
    assert pdf == (tmp_path / "b" / "document.pdf").read_bytes()
    assert _giveaways(pdf) == []
