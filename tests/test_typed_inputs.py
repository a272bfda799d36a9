"""Every file a user hands gtkit is parsed by a typed model: through the real CLI, an unknown key, a value of
the wrong type and a missing required key each give one line on stderr naming the file and the key (as a
JSON Pointer), exit status 2, and no traceback."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import gtkit.synth.family as family_mod
from gtkit.cli import main
from gtkit.paths import FAMILIES_DIR


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    return int(exc.value.code or 0), capsys.readouterr().err


def assert_refused(code: int, err: str, path: Path, pointer: str, what: str) -> None:
    """Exit 2 and exactly `gtkit: error: <path>: <pointer>: <what>...` on one line."""
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"gtkit: error: {path}: {pointer}: {what}"), err


def edit_text(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert re.search(old, text, flags=re.M), (old, path)
    path.write_text(re.sub(old, new, text, count=1, flags=re.M))


# --- family.toml and layout.toml ----------------------------------------------------------------------------------


@pytest.fixture()
def families(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A private copy of the shipped families, the registry pointed at it."""
    root = tmp_path / "families"
    for name in ("creditor_matrix", "unclaimed_property"):
        shutil.copytree(FAMILIES_DIR / name, root / name)
    monkeypatch.setattr(family_mod, "FAMILIES_DIR", root)
    family_mod._cached.cache_clear()
    yield root
    family_mod._cached.cache_clear()


FAMILY_CASES = [
    # (family, file, regex to replace, replacement, pointer, message start)
    ("creditor_matrix", "family.toml", r"^allow_split = false$", "allow_split = false\ncolour = 'red'",
     "/colour", "unknown key"),
    ("creditor_matrix", "family.toml", r"^default_records = 8624$", 'default_records = "many"',
     "/default_records", "Input should be a valid integer"),
    ("creditor_matrix", "family.toml", r'^records_field = "creditors"$', "", "/records_field",
     "required key is missing"),
    ("unclaimed_property", "family.toml", r'^orientation = "landscape"$', 'orientation = "sideways"',
     "/page/orientation", "Input should be 'portrait' or 'landscape'"),
    ("unclaimed_property", "family.toml", r"^domain = \"D3\"$", 'domain = "D3"\nlength = "L1"',
     "/tags/length", "unknown key"),
    ("unclaimed_property", "family.toml", r'^orientation = "landscape"$', 'orientation = "portrait"\nrotate = 90',
     "/page/rotate", "90 needs orientation 'landscape'"),
    ("creditor_matrix", "family.toml", r'^name = "creditor_matrix"$', 'name = "creditors"',
     "/name", "name 'creditors' must equal the folder name 'creditor_matrix'"),
    ("creditor_matrix", "layout.toml", r"^gutter = 14$", "gutterr = 14", "/columns/gutterr", "unknown key"),
    ("creditor_matrix", "layout.toml", r"^count = 3$", 'count = "three"', "/columns/count",
     "Input should be a valid integer"),
    ("creditor_matrix", "layout.toml", r"^lines = \[", "linez = [", "/columns/lines", "required key is missing"),
    ("creditor_matrix", "layout.toml", r"^\[columns\]$", "[colums]", "/colums", "unknown key"),
    ("creditor_matrix", "layout.toml", r"^top = 24$", "top = 24\nfont_size = 8", "/chrome/0/font_size", "unknown key"),
    ("creditor_matrix", "layout.toml", r"^top = 34$", "", "/chrome/1/top", "required key is missing"),
    ("creditor_matrix", "layout.toml", r"^y = 68$", 'y = "68"', "/rule/0/y", "Input should be a valid number"),
    ("creditor_matrix", "layout.toml", r"^margins = .*$", "margins = [30, 24, 30]", "/page/margins/3",
     "required key is missing"),
    ("creditor_matrix", "layout.toml", r"^regular = .*$", "", "/fonts/regular", "required key is missing"),
    ("creditor_matrix", "layout.toml", r'^font = "bold"$', 'font = "heavy"', "/chrome/0/font",
     "'heavy' is not a key of [fonts]"),
    ("creditor_matrix", "layout.toml", r"^gap = 2.9$", 'gap = 2.9\ncontinued_font = "italic"',
     "/columns/continued_font", "'italic' is not a key of [fonts]"),
    ("creditor_matrix", "layout.toml", r"^gap = 2.9$", 'gap = 2.9\ncontinued = "  "',
     "/columns/continued", "must be a non-empty text"),
    ("unclaimed_property", "layout.toml", r'title = "City", width = 78 ', 'title = "City" ',
     "/table/columns/2/width", "required key is missing"),
    ("unclaimed_property", "layout.toml", r'title = "St", width = 22 ', 'title = "St", width = 22, align = "centre" ',
     "/table/columns/3/align", "Input should be 'left' or 'right'"),
    ("unclaimed_property", "layout.toml", r"^row_gap = 1.9$", "row_gap = true", "/table/row_gap",
     "Input should be a valid number"),
    ("unclaimed_property", "layout.toml", r'^amount = "money"$', 'amount = "dollars"', "/formats/amount",
     "Input should be 'money', 'int' or 'grouped'"),
]


@pytest.mark.parametrize("family, file, old, new, pointer, what", FAMILY_CASES)
def test_bad_family_files_are_refused_by_synth(families, tmp_path, capsys, family, file, old, new, pointer, what):
    edit_text(families / family / file, old, new)
    out = tmp_path / "out"
    code, err = run(["synth", "--family", family, "--records", "3", "--out", str(out)], capsys)
    assert_refused(code, err, families / family / file, pointer, what)
    assert not out.exists()


def test_layout_needs_the_section_of_the_renderer(families, tmp_path, capsys):
    edit_text(families / "creditor_matrix" / "family.toml", r'^renderer = "columns"$', 'renderer = "table"')
    code, err = run(["synth", "--family", "creditor_matrix", "--out", str(tmp_path / "out")], capsys)
    assert_refused(code, err, families / "creditor_matrix" / "layout.toml", "/table",
                   "required key is missing (the section of renderer 'table')")


def test_families_command_names_the_broken_file(families, capsys):
    edit_text(families / "creditor_matrix" / "layout.toml", r"^size = 6$", "size = -6")
    code, err = run(["families"], capsys)
    assert_refused(code, err, families / "creditor_matrix" / "layout.toml", "/columns/size",
                   "Input should be greater than 0")


def test_shipped_families_parse(families, capsys):
    code, _ = run(["families"], capsys)
    assert code == 0


# --- recipes ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    from test_degrade_support import make_clean_bundle

    return make_clean_bundle(tmp_path_factory.mktemp("clean") / "inv", n_lines=12)


RECIPE = """description = "a test recipe"
[geometry]
rotation_deg = [-1.0, 1.0]
[output]
format = "png"
[[stages]]
stage = "blur"
sigma = [0.1, 0.2]
[[stages]]
stage = "gaussian_noise"
sigma = 4
[[stages]]
stage = "threshold"
method = "otsu"
"""

RECIPE_CASES = [
    # (regex to replace, replacement, pointer, message start)
    (r'^method = "otsu"$', 'method = "otsu"\nsigma = 2', "/stages/2/sigma", "unknown key"),
    (r"^sigma = 4$", 'sigma = "loud"', "/stages/1/sigma", "expected a number, got str 'loud'"),
    (r'^stage = "gaussian_noise"$', "", "/stages/1/stage", "required key is missing"),
    (r"^description = ", "colour = 'red'\ndescription = ", "/colour", "unknown key"),
    (r"^description = .*$", "description = 3", "/description", "Input should be a valid string"),
    (r"^rotation_deg = .*$", "rotation = 1", "/geometry/rotation", "unknown key"),
    (r'^format = "png"$', 'format = "png"\nquality = "high"', "/output/quality", "Input should be a valid integer"),
    (r'^stage = "blur"$', 'stage = "blur"\np = "often"', "/stages/0/p", "Input should be a valid number"),
    (r'^stage = "blur"$', 'stage = "crease"', "/stages/0/stage", "'crease' warps the page non-rigidly"),
    (r"^sigma = \[0.1, 0.2\]$", "sigma = [0.2, 0.1]", "/stages/0/sigma", "range [0.2, 0.1] has lo > hi"),
]


@pytest.mark.parametrize("old, new, pointer, what", RECIPE_CASES)
def test_bad_recipes_are_refused_by_degrade(clean, tmp_path, capsys, old, new, pointer, what):
    recipe = tmp_path / "mine.toml"
    recipe.write_text(RECIPE)
    edit_text(recipe, old, new)
    out = tmp_path / "out"
    code, err = run(["degrade", str(clean), "--recipe", str(recipe), "--dpi", "50", "--out", str(out)], capsys)
    assert_refused(code, err, recipe, pointer, what)
    assert not out.exists()


def test_the_test_recipe_is_valid(clean, tmp_path, capsys):
    recipe = tmp_path / "mine.toml"
    recipe.write_text(RECIPE)
    out = tmp_path / "o"
    code, err = run(["degrade", str(clean), "--recipe", str(recipe), "--dpi", "50", "--out", str(out)], capsys)
    assert code == 0, err


# --- replay records -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def degraded(clean, tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    from gtkit.degrade.pipeline import degrade

    out = tmp_path_factory.mktemp("degraded") / "inv-fax"
    degrade(clean, out, recipe="fax", seed=3, dpi=50)
    return out


def _drop(key: str) -> Callable[[dict], None]:
    return lambda d: d.pop(key)


REPLAY_CASES = [
    # (change to the provenance, pointer below the provenance, message start)
    (lambda p: p["parameters"]["pages"][0]["geometry"].update(shear=0.1), "/parameters/pages/0/geometry/shear",
     "unknown key"),
    (lambda p: p["parameters"].update(dpi="50"), "/parameters/dpi", "Input should be a valid integer"),
    (lambda p: _drop("size_px")(p["parameters"]["pages"][0]), "/parameters/pages/0/size_px", "required key is missing"),
    (lambda p: _drop("background")(p["parameters"]["pages"][0]["geometry"]), "/parameters/pages/0/geometry/background",
     "required key is missing"),
    (lambda p: p["parameters"]["pages"][0]["geometry"]["homography"].pop(), "/parameters/pages/0/geometry/homography/2",
     "required key is missing"),
    (lambda p: p["parameters"]["pages"][0].update(size_px=[0, 10]), "/parameters/pages/0/size_px/0",
     "Input should be greater than 0"),
    (lambda p: p["parameters"]["pages"][0]["stages"][0].update(stage="sparkle"), "/parameters/pages/0/stages/0/stage",
     "unknown stage 'sparkle'"),
    (lambda p: p["parameters"]["pages"][0]["stages"][0].update(applied="yes"), "/parameters/pages/0/stages/0/applied",
     "Input should be a valid boolean"),
    (lambda p: _drop("sigma")(p["parameters"]["pages"][0]["stages"][1]["params"]),
     "/parameters/pages/0/stages/1/params/sigma", "required key is missing"),
    (lambda p: p["parameters"]["pages"][0]["stages"][1]["params"].update(glow=1),
     "/parameters/pages/0/stages/1/params/glow", "unknown key"),
    (lambda p: p["parameters"]["pages"][0]["stages"][2]["params"].update(method="magic"),
     "/parameters/pages/0/stages/2/params/method", "Input should be 'otsu', 'fixed' or 'bayer'"),
    (lambda p: p["parameters"]["recipe"]["stages"][0].update(dpi_z=3), "/parameters/recipe/stages/0/dpi_z",
     "unknown key"),
    (lambda p: _drop("name")(p["parameters"]["recipe"]), "/parameters/recipe/name", "required key is missing"),
    (_drop("seed"), "/seed", "required key is missing"),
    (lambda p: p.update(version=1), "/version", "unknown key"),
    (lambda p: p["parameters"].update(version=2), "/parameters/version", "Input should be 1"),
]


@pytest.mark.parametrize("change, pointer, what", REPLAY_CASES)
@pytest.mark.parametrize("form", ["gt.json", "provenance"])
def test_bad_replay_records_are_refused(clean, degraded, tmp_path, capsys, change, pointer, what, form):
    gt = json.loads((degraded / "gt.json").read_text())
    change(gt["provenance"])
    record = tmp_path / f"record.{form}.json"
    record.write_text(json.dumps(gt if form == "gt.json" else gt["provenance"]))
    out = tmp_path / "out"
    code, err = run(["degrade", str(clean), "--replay", str(record), "--out", str(out)], capsys)
    assert_refused(code, err, record, ("/provenance" if form == "gt.json" else "") + pointer, what)
    assert not out.exists()


def test_a_synth_bundle_is_no_replay_record(clean, tmp_path, capsys):
    code, err = run(["degrade", str(clean), "--replay", str(clean), "--out", str(tmp_path / "out")], capsys)
    assert_refused(code, err, clean / "gt.json", "/provenance/pipeline", "not a degrade record (pipeline 'manual')")


# --- prediction citations -----------------------------------------------------------------------------------------


@pytest.fixture()
def scoring(tmp_path: Path) -> Path:
    from helpers import INVOICE, INVOICE_SCHEMA, make_bundle

    make_bundle(tmp_path / "gt" / "inv", INVOICE_SCHEMA, INVOICE, doc_id="inv")
    (tmp_path / "pred").mkdir()
    (tmp_path / "pred" / "inv.json").write_text(json.dumps(INVOICE))
    return tmp_path


CITATION_CASES = [
    # (citations file, pointer, message start)
    ({"/date": [{"page": 1, "box": [0.1, 0.1, 0.2, 0.2], "quote": "2019"}]}, "/~1date/0/quote", "unknown key"),
    ({"/date": [{"page": "1"}]}, "/~1date/0/page", "Input should be a valid integer"),
    ({"/date": [{"box": [0.1, 0.1, 0.2, 0.2]}]}, "/~1date/0/page", "required key is missing"),
    ({"/date": [{"page": 1, "box": [0.1, 0.1, 0.2, True]}]}, "/~1date/0/box/3", "Input should be a valid number"),
    ({"/date": [{"page": 0}]}, "/~1date/0/page", "Input should be greater than or equal to 1"),
    ({"/date": {"page": 1}}, "/~1date", "Input should be a valid list"),
    ({"date": []}, "/date", "key 'date' is not a JSON Pointer"),
    ([{"page": 1}], "top level", "Input should be a valid dictionary"),
]


@pytest.mark.parametrize("citations, pointer, what", CITATION_CASES)
def test_invalid_citations_make_the_document_score_zero_with_the_reason(scoring, capsys, citations, pointer, what):
    path = scoring / "pred" / "inv.citations.json"
    path.write_text(json.dumps(citations))
    with pytest.raises(SystemExit) as exc:
        main(["score", "--gt", str(scoring / "gt" / "inv"), "--pred", str(scoring / "pred"), "--json"])
    assert not exc.value.code
    doc = json.loads(capsys.readouterr().out)["documents"][0]
    assert doc["prediction"] == "citations invalid" and doc["value"]["f1"] == 0.0
    assert doc["detail"].startswith(f"{path}: {pointer}: {what}")


def test_citations_of_no_predicted_cell_and_without_box_are_accepted(scoring, capsys):
    """What is not refused: a pointer naming no predicted cell is never looked up; no box means page level."""
    citations = {"/nowhere": [{"page": 1}], "/date": [{"page": 1}]}
    (scoring / "pred" / "inv.citations.json").write_text(json.dumps(citations))
    with pytest.raises(SystemExit) as exc:
        main(["score", "--gt", str(scoring / "gt" / "inv"), "--pred", str(scoring / "pred"), "--json"])
    assert not exc.value.code
    doc = json.loads(capsys.readouterr().out)["documents"][0]
    assert (doc["page"]["correct"], doc["page"]["n_pred"]) == (1, 1)  # the date, cited on its page
    assert (doc["word"]["correct"], doc["word"]["n_pred"]) == (0, 0)  # no box: no word-level claim at all
