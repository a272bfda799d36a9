"""synth with `allow_split = true`: a record block cut between two fields' lines, its continuation marked.

A temporary family (a copy of creditor_matrix with `allow_split = true`) is put in a
temporary families folder, and the registry is pointed at it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pymupdf
import pytest

import gtkit.synth.family as family_mod
from gtkit.check import check_bundle, check_path
from gtkit.errors import GtkitError
from gtkit.format.bundle import read_bundle
from gtkit.paths import FAMILIES_DIR
from gtkit.pipelines import CHECKS
from gtkit.synth.family import get_family
from gtkit.synth.layout import plan_document
from gtkit.synth.pipeline import synth
from gtkit.synth.readback import locate
from gtkit.synth.render import render_pdf

NAME = "cm_split"
RECORDS = 260  # 4 pages, a dozen column ends
SEED = 4


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_family(root: Path, name: str, source: str = "creditor_matrix", allow_split: bool = True,
                layout_extra: str = "") -> Path:
    folder = root / name
    shutil.copytree(FAMILIES_DIR / source, folder)
    toml = (folder / "family.toml").read_text()
    toml = toml.replace(f'name = "{source}"', f'name = "{name}"', 1)
    toml = toml.replace("allow_split = false", f"allow_split = {'true' if allow_split else 'false'}", 1)
    (folder / "family.toml").write_text(toml)
    if layout_extra:
        layout = (folder / "layout.toml").read_text()
        (folder / "layout.toml").write_text(layout.replace("[columns]\n", "[columns]\n" + layout_extra + "\n", 1))
    return folder


def point_registry(mp: pytest.MonkeyPatch, root: Path) -> None:
    mp.setattr(family_mod, "FAMILIES_DIR", root)
    family_mod._cached.cache_clear()


@pytest.fixture(scope="module")
def split_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("families")
    make_family(root, NAME)
    yield root
    family_mod._cached.cache_clear()


@pytest.fixture()
def registry(split_root, monkeypatch) -> Path:
    point_registry(monkeypatch, split_root)
    yield split_root
    family_mod._cached.cache_clear()


@pytest.fixture(scope="module")
def bundle_dir(split_root, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("split") / "b"
    with pytest.MonkeyPatch.context() as mp:
        point_registry(mp, split_root)
        synth(NAME, out=out, seed=SEED, records=RECORDS)
    family_mod._cached.cache_clear()
    return out


def pdf_words(pdf: Path) -> list[list[tuple]]:
    """Every page's words in points: (x0, y0, x1, y1, text), drawing order."""
    with pymupdf.open(pdf) as doc:
        return [[tuple(w[:5]) for w in p.get_text("words", sort=False)] for p in doc]


def test_records_are_split_and_counted(registry, bundle_dir):
    bundle = read_bundle(bundle_dir)
    family = get_family(NAME)
    assert family.allow_split
    plan = plan_document(family, bundle.gt.expected)
    assert len(plan.pages) == bundle.gt.document.pages >= 3
    assert len(plan.split_records) >= 3
    assert bundle.gt.provenance.parameters["split_records"] == len(plan.split_records)
    # a continuation directly follows its first part, in the next column (or on the next page)
    for a, b in zip(plan.parts, plan.parts[1:]):
        if b.number > 0:
            assert (a.record, a.number + 1) == (b.record, b.number)
            assert (b.page, b.column) != (a.page, a.column)
            assert b.region[1] == plan.body_box[1]  # at the top of its column


def test_continuation_marker_heads_the_next_column_and_is_no_evidence(registry, bundle_dir):
    bundle = read_bundle(bundle_dir)
    family = get_family(NAME)
    plan = plan_document(family, bundle.gt.expected)
    words = pdf_words(bundle.pdf_path)
    width, height = plan.page_size
    evidence_words = {(e.page, tuple(round(v, 5) for v in w))
                      for f in bundle.gt.fields for e in f.readings[0].evidence for w in e.words}
    records = bundle.gt.expected["creditors"]
    continuations = [p for p in plan.parts if p.number > 0]
    assert len(continuations) == len(plan.split_records)
    for part in continuations:
        x0, _, x1, _ = part.region
        column = sorted((w for w in words[part.page] if x0 - 0.5 <= w[0] and w[2] <= x1 + 0.5
                         and plan.body_box[1] <= w[1] < plan.body_box[3]), key=lambda w: (round(w[1], 1), w[0]))
        marker = f"(continued) {records[part.record]['name']}"
        head = column[: len(marker.split())]
        assert " ".join(w[4] for w in head) == marker
        assert head[0][1] == min(w[1] for w in column)  # the first line of the column
        for w in head:  # chrome: none of its words is any value's evidence
            key = (part.page + 1,
                   tuple(round(v, 5) for v in (w[0] / width, w[1] / height, w[2] / width, w[3] / height)))
            assert key not in evidence_words
        # printed in the family's regular font
        with pymupdf.open(bundle.pdf_path) as doc:
            spans = [s for b in doc[part.page].get_text("dict")["blocks"] for ln in b.get("lines", [])
                     for s in ln["spans"] if s["text"].startswith("(continued)")]
        assert spans and all("LiberationMono" in s["font"] and "Bold" not in s["font"] for s in spans)


def test_every_value_found_once_on_its_page_in_one_column(registry, bundle_dir):
    bundle = read_bundle(bundle_dir)
    family = get_family(NAME)
    plan = plan_document(family, bundle.gt.expected)
    words = pdf_words(bundle.pdf_path)
    width, height = plan.page_size
    columns = sorted({p.region[0] for p in plan.parts})
    col_w = plan.parts[0].region[2] - plan.parts[0].region[0]
    by_box: list[dict[tuple, list[tuple]]] = []  # each page's words by their normalized box, as the read-back rounds it
    for page_words in words:
        norm = np.round(np.clip(np.array([w[:4] for w in page_words]) / (width, height, width, height), 0, 1), 6)
        index: dict[tuple, list[tuple]] = {}
        for w, key in zip(page_words, norm.tolist()):
            index.setdefault(tuple(key), []).append(w)
        by_box.append(index)
    claimed: set = set()
    split_pages: dict[int, set[int]] = {}
    for entry in bundle.gt.fields:
        reading = entry.readings[0]
        if reading.value is None:
            assert reading.evidence == []
            continue
        name = entry.path.rsplit("/", 1)[-1]
        is_record = entry.path.startswith("/creditors/")
        if is_record:
            assert len(reading.evidence) == 1, entry.path
        text = " ".join(family.display(name, reading.value).split())
        for ev in reading.evidence:
            assert ev.quote == text, entry.path
            found = []
            for wb in ev.words:
                hits = by_box[ev.page - 1].get(tuple(wb), [])
                assert len(hits) == 1, (entry.path, wb)  # the evidence page is the page the words are on
                found.append(hits[0])
                key = (ev.page, tuple(round(v, 5) for v in wb))
                assert key not in claimed, f"word claimed twice: {entry.path}"
                claimed.add(key)
            assert " ".join(w[4] for w in found) == text
            if is_record:  # a value is never cut: all its words in one column
                left = [c for c in columns if c - 0.5 <= found[0][0] <= c + col_w]
                assert len(left) == 1 and all(left[0] - 0.5 <= w[0] and w[2] <= left[0] + col_w + 0.75 for w in found)
                record = int(entry.path.split("/")[2])
                if record in plan.split_records:
                    split_pages.setdefault(record, set()).add(ev.page)
    assert set(split_pages) == set(plan.split_records)
    assert any(len(p) == 2 for p in split_pages.values())  # some records run from one page onto the next


def test_no_column_ends_early(registry, bundle_dir):
    bundle = read_bundle(bundle_dir)
    family = get_family(NAME)
    plan = plan_document(family, bundle.gt.expected)
    gap = family.layout.columns.gap
    leading = family.layout.columns.leading
    bottom = plan.body_box[3]
    ends = 0
    for a, b in zip(plan.parts, plan.parts[1:]):
        if (a.page, a.column) == (b.page, b.column):
            continue
        ends += 1
        left = bottom - a.region[3]
        assert left >= -1e-9
        # the next part's first field lines (after the marker) did not fit in what was left
        assert left < (b.head if b.number > 0 else gap + b.head), (a, b)
        assert b.head >= leading
        if b.number == 0 and b.record - 1 not in plan.split_records:
            assert b.record - 1 == a.record
    assert ends >= 3 * (len(plan.pages) - 1)
    # every column of every page but the last is used
    for p in range(len(plan.pages) - 1):
        assert {part.column for part in plan.parts if part.page == p} == {0, 1, 2}


def test_bundle_passes_check_and_scores_one(registry, bundle_dir):
    from gtkit.scoring.engine import score_prediction

    assert check_bundle(bundle_dir, CHECKS) == []
    assert check_path(bundle_dir, CHECKS) == (1, [])
    bundle = read_bundle(bundle_dir)
    citations = {f.path: [{"page": e.page, "box": list(e.box)} for e in f.readings[0].evidence[:1]]
                 for f in bundle.gt.fields if f.readings[0].evidence}
    s = score_prediction(bundle, bundle.gt.expected, citations)
    assert s.value.f1 == 1.0 and s.page.f1 == 1.0 and s.word.f1 == 1.0
    assert s.value.n_truth == len(bundle.gt.fields)


def test_check_catches_a_wrong_split_count(registry, bundle_dir, tmp_path):
    dst = tmp_path / "tampered"
    shutil.copytree(bundle_dir, dst)
    gt = json.loads((dst / "gt.json").read_text())
    gt["provenance"]["parameters"]["split_records"] += 1
    (dst / "gt.json").write_text(json.dumps(gt))
    problems = check_bundle(dst, CHECKS)
    assert problems and any("split" in p.message for p in problems)


def test_same_bytes_twice(registry, bundle_dir, tmp_path):
    again = tmp_path / "again"
    synth(NAME, out=again, seed=SEED, records=RECORDS)
    for name in ("document.pdf", "gt.json", "schema.json"):
        assert sha(again / name) == sha(bundle_dir / name)


def test_a_wrapped_value_is_never_cut(registry):
    """A long name wrapping over three lines, pushed to every height near a column's bottom."""
    from gtkit.synth.pipeline import generate_expected

    family = get_family(NAME)
    long_name = "DEUTSCHE BANK TRUST COMPANY AMERICAS, AS INDENTURE TRUSTEE FOR THE SENIOR SECURED NOTES DUE 2031"
    base = generate_expected(family, 1, 1)
    filler = {"name": "A CO", "notice_name": None, "address_1": "1 MAIN ST", "address_2": None,
              "address_3": None, "city": "DOVER", "state": "DE", "postal_code": "19901", "country": None}
    two = {**filler, "address_1": None}
    target = {**filler, "name": long_name, "notice_name": "ATTN: GENERAL COUNSEL"}
    gap = family.layout.columns.gap
    leading = family.layout.columns.leading
    cut_after_name = moved_whole = 0
    for n3 in range(26, 32):
        for n2 in range(4):
            records = [dict(filler)] * n3 + [dict(two)] * n2 + [target]
            plan = plan_document(family, {**base, "creditors": records})
            assert locate(plan, render_pdf(plan)).problems == []  # the drawn PDF agrees
            pointers = [it.pointer for it in plan.body_items if it.pointer is not None]
            assert len(pointers) == len(set(pointers))  # no value drawn in two pieces
            r = len(records) - 1
            name_items = [it for it in plan.body_items if it.pointer == f"/creditors/{r}/name"]
            assert len(name_items) == 1 and len(name_items[0].text.split()) == len(long_name.split())
            mine = [p for p in plan.parts if p.record == r]
            assert name_items[0].region == mine[0].region  # the whole name in the first part
            if r in plan.split_records:
                cut_after_name += 1
            else:
                before = plan.parts[-2]
                free = plan.body_box[3] - before.region[3] - gap
                if (before.page, before.column) != (mine[0].page, mine[0].column) and free >= leading:
                    moved_whole += 1  # lines were free at the column's end, but fewer than the name needs
    assert cut_after_name and moved_whole


def test_shipped_families_never_split_a_record():
    """allow_split = false (both shipped families): one part per record, every record's values on one page,
    no continuation marker, and the read-back finds every value where the plan put it."""
    assert not get_family("creditor_matrix").allow_split and not get_family("unclaimed_property").allow_split
    from gtkit.synth.pipeline import generate_expected

    family = get_family("creditor_matrix")
    plan = plan_document(family, generate_expected(family, 120, 4))
    assert plan.split_records == frozenset() and len(plan.parts) == 120
    assert sorted(p.record for p in plan.parts) == list(range(120))
    pages: dict[int, set[int]] = {}
    for it in plan.body_items:
        assert it.pointer is not None  # no continuation markers
        pages.setdefault(it.record, set()).add(it.page)
    assert all(len(p) == 1 for p in pages.values())
    assert locate(plan, render_pdf(plan)).problems == []


def test_shipped_gt_has_no_split_count(tmp_path):
    synth("creditor_matrix", out=tmp_path / "b", seed=4, records=30)
    gt = json.loads((tmp_path / "b" / "gt.json").read_text())
    assert "split_records" not in gt["provenance"]["parameters"]


def test_template_family_refuses_allow_split(tmp_path, monkeypatch):
    folder = make_family(tmp_path, "ef_split", source="schedule_ef")
    toml = (folder / "family.toml").read_text()
    (folder / "family.toml").write_text(toml.replace("records_field =", "allow_split = true\nrecords_field =", 1))
    point_registry(monkeypatch, tmp_path)
    with pytest.raises(GtkitError) as exc:
        get_family("ef_split")
    assert "allow_split" in str(exc.value) and "family.toml" in str(exc.value)
    assert len(str(exc.value).strip().splitlines()) == 1
    family_mod._cached.cache_clear()


def test_marker_template_configurable_and_checked(tmp_path, monkeypatch):
    from gtkit.synth.pipeline import generate_expected

    make_family(tmp_path, "cm_more", layout_extra='continued = "{name} (cont.)"')
    make_family(tmp_path, "cm_bad", layout_extra='continued = "(continued) {nickname}"')
    point_registry(monkeypatch, tmp_path)
    family = get_family("cm_more")
    plan = plan_document(family, generate_expected(family, 120, 4))
    markers = [it for it in plan.body_items if it.pointer is None]
    assert markers and all(it.text.endswith(" (cont.)") for it in markers)
    assert locate(plan, render_pdf(plan)).problems == []
    bad = get_family("cm_bad")
    with pytest.raises(GtkitError, match=r"placeholder \{nickname\} is not a field of the records"):
        plan_document(bad, generate_expected(bad, 120, 4))
    family_mod._cached.cache_clear()
