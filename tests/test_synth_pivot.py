"""Pivot tables (structure S2): the election_pivot family's statement of votes cast.

Countywide contests list precincts down and candidates across, the candidate header printed once at
the head of the contest, so a figure on a continuation page is keyed to its candidate by a header
pages away; district contests are pivoted (a column per precinct, the candidates down the left).
Every figure's candidate is read at the header it sits under: its evidence is that header's box.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import pdftotext_words
from helpers import run_cli as run

from gtkit.cli import main
from gtkit.errors import GtkitError
from gtkit.format.bundle import read_bundle
from gtkit.synth import family as family_mod
from gtkit.synth.family import get_family
from gtkit.synth.pipeline import generate_expected
from gtkit.synth.tags import header_apart
from gtkit.synth.template import render_html, render_template
from gtkit.synth.template_readback import locate_template

PRECINCTS = 45  # a countywide contest runs onto a second page; a district contest takes two blocks of columns
SEED = 3


pytestmark = pytest.mark.usefixtures("fresh_family_cache")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):  # type: ignore[no-untyped-def]
    out = tmp_path_factory.mktemp("pivot") / "b"
    with pytest.raises(SystemExit) as done:
        main(["synth", "--family", "election_pivot", "--records", str(PRECINCTS), "--seed", str(SEED),
              "--out", str(out)])
    assert done.value.code in (0, None)
    return read_bundle(out)


def _evidence(bundle) -> dict[str, list]:  # type: ignore[no-untyped-def]
    return {f.path: f.readings[0].evidence for f in bundle.gt.fields}


def test_passes_the_check_and_totals_reconcile(bundle, capsys):  # type: ignore[no-untyped-def]
    assert run(["check", bundle.path], capsys)[0] == 0
    e = bundle.gt.expected
    assert len(e["contests"]) == 8
    for c in e["contests"]:
        names = [k["candidate"] for k in c["candidates"]]
        for p in c["precincts"]:
            assert [v["candidate"] for v in p["votes"]] == names
            assert p["total_votes"] == sum(v["votes"] for v in p["votes"])
            assert p["total_votes"] <= p["ballots_cast"] * c["vote_for"] and p["ballots_cast"] <= p["registered_voters"]
        for j, k in enumerate(c["candidates"]):
            assert k["total_votes"] == sum(p["votes"][j]["votes"] for p in c["precincts"])
        assert c["total_votes"] == sum(k["total_votes"] for k in c["candidates"])
        assert c["total_ballots_cast"] == sum(p["ballots_cast"] for p in c["precincts"])
        assert c["total_registered_voters"] == sum(p["registered_voters"] for p in c["precincts"])
    tags = bundle.gt.tags
    assert {"S2", "S3"} <= set(tags.structure) and "T1.d" in tags.task and tags.domain == "D3"


def test_a_figure_is_keyed_to_its_candidate_by_the_header_it_sits_under(bundle):  # type: ignore[no-untyped-def]
    e, ev = bundle.gt.expected, _evidence(bundle)
    all_n = max(len(c["precincts"]) for c in e["contests"])
    down = across = apart = left = 0
    for ci, c in enumerate(e["contests"]):
        for j in range(len(c["candidates"])):
            (head,) = ev[f"/contests/{ci}/candidates/{j}/candidate"]
            for i in range(len(c["precincts"])):
                cp = f"/contests/{ci}/precincts/{i}/votes/{j}"
                (key,), (fig,) = ev[cp + "/candidate"], ev[cp + "/votes"]
                if len(c["precincts"]) == all_n:  # down: the one header of the contest, above or pages before
                    down += 1
                    assert (key.page, key.box) == (head.page, head.box)
                    assert key.page < fig.page or (key.page == fig.page and key.box[3] <= fig.box[1])
                    apart += key.page < fig.page
                else:  # across: the candidate's label at the left of the figure, on its line
                    across += 1
                    assert key.page == fig.page and key.box[2] <= fig.box[0]
                    assert key.box[1] < fig.box[3] and fig.box[1] < key.box[3]
                    left += (key.page, key.box) != (head.page, head.box)  # a later block's own label
    assert down and across and apart and left


@pytest.mark.skipif(shutil.which("pdftotext") is None,
                    reason="pdftotext (poppler-utils) is not installed; .ci/run installs it")
def test_pdftotext_finds_every_value_inside_its_evidence_box(bundle):  # type: ignore[no-untyped-def]
    pages = pdftotext_words(bundle.pdf_path)
    assert len(pages) == bundle.gt.document.pages
    family = get_family("election_pivot")
    n = keyed = 0
    tol = 0.004
    for f in bundle.gt.fields:
        value = f.readings[0].value
        if value is None:
            assert f.readings[0].evidence == []
            continue
        for ev in f.readings[0].evidence:
            x0, y0, x1, y1 = ev.box
            inside = [w[4] for w in pages[ev.page - 1]
                      if x0 - tol < (w[0] + w[2]) / 2 < x1 + tol and y0 - tol < (w[1] + w[3]) / 2 < y1 + tol]
            text = family.display(f.path.rsplit("/", 1)[-1], value)
            assert "".join(inside) == "".join(text.split()), (f.path, ev.page, inside, text)
            n += 1
            keyed += f.path.endswith("/candidate") and "/votes/" in f.path
    assert keyed > PRECINCTS * 8 and n > keyed * 2


def test_same_bytes_twice(tmp_path, capsys):  # type: ignore[no-untyped-def]
    for name in ("a", "b"):
        assert run(["synth", "--family", "election_pivot", "--records", 6, "--seed", 1, "--out", tmp_path / name],
                   capsys)[0] == 0
    assert (tmp_path / "a" / "document.pdf").read_bytes() == (tmp_path / "b" / "document.pdf").read_bytes()
    assert (tmp_path / "a" / "gt.json").read_bytes() == (tmp_path / "b" / "gt.json").read_bytes()


def _contests(n: int, seed: int) -> list[dict]:
    return generate_expected(get_family("election_pivot"), n, seed)["contests"]


def test_data_round_trip(tmp_path, capsys):  # type: ignore[no-untyped-def]
    contests = _contests(5, 11)[:3]
    contests[0]["contest"] = "Measure Z: From the User's Own File"
    data = tmp_path / "sov.jsonl"
    data.write_text("".join(json.dumps(c) + "\n" for c in contests))
    code, _, err = run(["synth", "--family", "election_pivot", "--data", data, "--out", tmp_path / "b"], capsys)
    assert code == 0, err
    assert run(["check", tmp_path / "b"], capsys)[0] == 0
    gt = read_bundle(tmp_path / "b").gt
    assert gt.expected["contests"] == contests
    assert gt.provenance.parameters["data"]["file"] == "sov.jsonl"


@pytest.mark.parametrize("spoil,says", [
    (lambda c: c["precincts"][1].update(total_votes=c["precincts"][1]["total_votes"] + 1),
     "is not the sum of its votes"),
    (lambda c: c["candidates"][0].update(total_votes=c["candidates"][0]["total_votes"] - 1), "precincts' votes"),
    (lambda c: c.update(total_ballots_cast=c["total_ballots_cast"] + 10), "total_ballots_cast"),
    (lambda c: c["precincts"][0]["votes"].reverse(), "the contest's header has"),
])
def test_data_whose_totals_do_not_reconcile_is_refused(spoil, says, tmp_path, capsys):  # type: ignore[no-untyped-def]
    contests = _contests(4, 2)[:3]
    spoil(contests[1])
    data = tmp_path / "sov.jsonl"
    data.write_text("".join(json.dumps(c) + "\n" for c in contests))
    code, _, err = run(["synth", "--family", "election_pivot", "--data", data, "--out", tmp_path / "b"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "sov.jsonl" in err and "line 2" in err and says in err
    assert not (tmp_path / "b").exists()


def test_a_csv_file_is_refused_for_nested_records(tmp_path, capsys):  # type: ignore[no-untyped-def]
    data = tmp_path / "sov.csv"
    data.write_text("contest,vote_for\nGovernor,1\n")
    code, _, err = run(["synth", "--family", "election_pivot", "--data", data, "--out", tmp_path / "b"], capsys)
    assert code == 2 and "sov.csv" in err and "candidates, precincts" in err and ".jsonl" in err
    assert not (tmp_path / "b").exists()


def test_a_header_must_print_what_it_keys(tmp_path):  # type: ignore[no-untyped-def]
    """v(pointer, also=...) refuses a keyed value that the element does not print."""
    family = get_family("election_pivot")
    expected = generate_expected(family, 4, 0)
    expected["contests"][0]["precincts"][2]["votes"][1]["candidate"] = "SOMEONE ELSE"
    with pytest.raises(GtkitError, match=r"/contests/0/precincts/2/votes/1/candidate: .*'SOMEONE ELSE'.* prints"):
        render_html(family, expected)


def _variant(tmp_path: Path, monkeypatch, **options: str):  # type: ignore[no-untyped-def]
    """The shipped family copied with other layout options, found first through GTKIT_FAMILIES_PATH."""
    folder = tmp_path / "fams" / "election_pivot"
    shutil.copytree(get_family("election_pivot").folder, folder)
    toml = (folder / "family.toml").read_text()
    for key, value in options.items():
        toml = toml.replace(f'{key} = "', f'{key} = "{value}"  # was "', 1)
    (folder / "family.toml").write_text(toml)
    monkeypatch.setenv("GTKIT_FAMILIES_PATH", str(folder.parent))
    family_mod._cached.cache_clear()
    return get_family("election_pivot")


def test_the_layout_options_choose_the_pivot(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    family = _variant(tmp_path, monkeypatch, countywide="across")
    assert family.template.options["countywide"] == "across"
    expected = generate_expected(family, 12, 4)
    rendered = render_template(family, expected)
    located = locate_template(rendered, rendered.pdf)
    assert not located.problems
    for ci, c in enumerate(expected["contests"]):  # every contest pivoted: each name at the left of its figure
        for i in range(len(c["precincts"])):
            for j in range(len(c["candidates"])):
                cp = f"/contests/{ci}/precincts/{i}/votes/{j}"
                (key,), (fig,) = located.evidence[cp + "/candidate"], located.evidence[cp + "/votes"]
                assert key["page"] == fig["page"] and key["box"][2] <= fig["box"][0]
    family = _variant(tmp_path / "bad", monkeypatch, district="sideways")
    with pytest.raises(GtkitError, match=r"template.html: line \d+: .*must_be_down_or_across"):
        render_html(family, generate_expected(family, 12, 4))


def _field(path: str, page: int, box: list[float]) -> dict:
    return {"path": path, "readings": [{"value": 1, "evidence": [{"page": page, "box": box}]}]}


def test_s2_is_measured_from_where_a_shared_header_sits():  # type: ignore[no-untyped-def]
    head = [0.3, 0.1, 0.4, 0.12]
    keyed = lambda page, y: [_field("/c/0/p/0/v/0/name", 1, head), _field("/c/0/p/1/v/0/name", 1, head),  # noqa: E731
                             _field("/c/0/p/0/v/0/n", 1, [0.3, 0.2, 0.4, 0.22]),
                             _field("/c/0/p/1/v/0/n", page, [0.3, y, 0.4, y + 0.02])]
    assert not header_apart(keyed(1, 0.3))  # a column header above its figures on their page
    assert header_apart(keyed(2, 0.3))  # one figure pages after its header
    left = [_field("/c/0/p/0/v/0/name", 1, head), _field("/c/0/p/1/v/0/name", 1, head),
            _field("/c/0/p/0/v/0/n", 1, [0.5, 0.1, 0.6, 0.12]), _field("/c/0/p/1/v/0/n", 1, [0.7, 0.1, 0.8, 0.12])]
    assert header_apart(left)  # a row header at the left of the figures: records run across
    split_row = [_field("/r/0/a", 1, [0.1, 0.9, 0.2, 0.92]), _field("/r/0/b", 2, [0.1, 0.1, 0.2, 0.12]),
                 _field("/title", 1, head), _field("/title", 2, head)]
    assert not header_apart(split_row)  # a record on two pages, no header shared by records
