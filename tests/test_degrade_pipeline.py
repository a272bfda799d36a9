"""End to end: degrade a clean bundle, check it, score it, reproduce it byte for byte, refuse bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from test_degrade_support import make_clean, make_clean_bundle

from gtkit.check import check_bundle
from gtkit.cli import main
from gtkit.degrade.boxes import COORD_DECIMALS
from gtkit.degrade.pipeline import degrade
from gtkit.files.read import sha256_bytes, sha256_file
from gtkit.format.bundle import read_bundle
from gtkit.format.writer import write_bundle
from gtkit.geometry import apply_homography, box_corners
from gtkit.pipelines import CHECKS


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    # 4 + 3 * 40 rows, 60 per page: three pages
    return make_clean_bundle(tmp_path_factory.mktemp("clean") / "inv", n_lines=40)


@pytest.fixture(scope="module")
def fax(clean, tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    out = tmp_path_factory.mktemp("fax") / "inv-fax"
    degrade(clean, out, recipe="fax", seed=7)
    return out


def _hashes(folder: Path) -> tuple[str, str]:
    return sha256_file(folder / "document.pdf"), sha256_file(folder / "gt.json")


STORED = 0.5 * 10.0**-COORD_DECIMALS + 1e-12


def test_degraded_bundle_shape(clean, fax):  # type: ignore[no-untyped-def]
    parent, child = read_bundle(clean), read_bundle(fax)
    assert check_bundle(fax, CHECKS) == []
    with pymupdf.open(clean / "document.pdf") as a, pymupdf.open(fax / "document.pdf") as b:
        assert a.page_count == b.page_count == 3
        for pa, pb in zip(a, b, strict=True):
            assert (pa.rect.width, pa.rect.height) == (pb.rect.width, pb.rect.height)
            assert pb.get_text("words") == []  # image-only: no text layer
            assert len(pb.get_images()) == 1
            assert pb.get_fonts() == []
    gt, pg = child.gt, parent.gt
    assert gt.expected == pg.expected
    assert gt.schema_ == pg.schema_ and child.schema == parent.schema
    assert gt.document.page_sizes == pg.document.page_sizes
    assert gt.tags.perception == ["P1"]
    assert gt.tags.model_dump(exclude={"perception"}) == pg.tags.model_dump(exclude={"perception"})
    prov = gt.provenance
    assert prov.pipeline == "degrade" and prov.recipe == "fax" and prov.seed == 7 and prov.created is None
    assert prov.parent.doc_id == pg.doc_id
    assert prov.parent.gt_sha256 == sha256_file(clean / "gt.json")
    assert prov.parent.document_sha256 == pg.document.sha256
    params = prov.parameters
    assert params["dpi"] == 200 and params["recipe"]["name"] == "fax" and len(params["pages"]) == 3
    for i, page in enumerate(params["pages"], 1):
        assert page["page"] == i and np.asarray(page["geometry"]["homography"]).shape == (3, 3)
        assert [s["stage"] for s in page["stages"]] == ["resample", "blur", "threshold", "speckle"]
    # values and trust copy over; every box is H of the parent's corners
    assert [f.path for f in gt.fields] == [f.path for f in pg.fields]
    for f, pf in zip(gt.fields, pg.fields, strict=True):
        assert f.trust == pf.trust and [r.value for r in f.readings] == [r.value for r in pf.readings]
        for r, pr in zip(f.readings, pf.readings, strict=True):
            for e, pe in zip(r.evidence, pr.evidence, strict=True):
                h = np.asarray(params["pages"][e.page - 1]["geometry"]["homography"])
                # stored with COORD_DECIMALS decimals: within half a unit of the last decimal
                np.testing.assert_allclose(e.quad, apply_homography(h, box_corners(pe.box)), rtol=0, atol=STORED)
                q = np.asarray(e.quad)
                assert e.box == tuple(np.clip([*q.min(0), *q.max(0)], 0, 1))  # exactly the box around its quad
                assert len(e.words) == len(pe.words) and e.quote == pe.quote
                for w, pw in zip(e.words, pe.words, strict=True):
                    wq = apply_homography(h, box_corners(pw))
                    np.testing.assert_allclose(w, np.clip([*wq.min(0), *wq.max(0)], 0, 1), rtol=0, atol=STORED)
                coords = [*e.box, *(v for p in e.quad for v in p), *(v for w in e.words for v in w)]
                assert all(v == round(v, COORD_DECIMALS) for v in coords)


def test_check_catches_a_box_that_left_its_quad(fax, tmp_path):  # type: ignore[no-untyped-def]
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(fax, bad)
    data = json.loads((bad / "gt.json").read_text())
    ev = data["fields"][0]["readings"][0]["evidence"][0]
    ev["box"] = [ev["box"][0], ev["box"][1], min(ev["box"][2] + 0.01, 1.0), ev["box"][3]]
    data["tags"]["perception"] = []
    (bad / "gt.json").write_text(json.dumps(data))
    messages = [p.message for p in check_bundle(bad, CHECKS)]
    assert any("axis-aligned box around its quad" in m for m in messages)
    assert any("P1" in m for m in messages)


def test_self_score_is_one_with_word_grounding(fax, tmp_path):  # type: ignore[no-untyped-def]
    from gtkit.scoring.engine import score_prediction

    b = read_bundle(fax)
    citations = {f.path: [{"page": e.page, "box": list(e.box)} for e in f.readings[0].evidence]
                 for f in b.gt.fields if f.readings[0].evidence}
    s = score_prediction(b, b.gt.expected, citations)
    assert s.value.f1 == 1.0 and s.page.f1 == 1.0 and s.word.f1 == 1.0
    # the same through the CLI
    pred = tmp_path / "pred"
    pred.mkdir()
    (pred / f"{b.doc_id}.json").write_text(json.dumps(b.gt.expected))
    (pred / f"{b.doc_id}.citations.json").write_text(json.dumps(citations))
    r = subprocess.run([sys.executable, "-m", "gtkit", "score", "--gt", str(fax), "--pred", str(pred), "--json"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert '"f1": 1.0' in r.stdout and "0.9" not in r.stdout.split('"f1"')[1][:10]


def test_same_bytes_across_runs_processes_and_workers(clean, fax, tmp_path):  # type: ignore[no-untyped-def]
    again = tmp_path / "again"
    degrade(clean, again, recipe="fax", seed=7)
    assert _hashes(again) == _hashes(fax)
    two = tmp_path / "two"
    degrade(clean, two, recipe="fax", seed=7, workers=2)
    assert _hashes(two) == _hashes(fax)
    cli = tmp_path / "cli"
    r = subprocess.run([sys.executable, "-m", "gtkit", "degrade", str(clean), "--recipe", "fax", "--seed", "7",
                        "--out", str(cli)], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert _hashes(cli) == _hashes(fax)
    other = tmp_path / "other"
    degrade(clean, other, recipe="fax", seed=8)
    assert _hashes(other)[0] != _hashes(fax)[0]


def test_replay_reproduces_without_drawing(clean, fax, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    import gtkit.degrade.pipeline as pl

    def no_draw(*a, **k):  # type: ignore[no-untyped-def]
        raise AssertionError("replay must not draw")

    monkeypatch.setattr(pl, "plan_page", no_draw)
    monkeypatch.setattr(pl, "generator", no_draw)
    out = tmp_path / "replayed"
    degrade(clean, out, replay=fax / "gt.json")
    assert _hashes(out) == _hashes(fax)
    out2 = tmp_path / "replayed2"
    degrade(clean, out2, replay=fax)  # the bundle folder works too
    assert _hashes(out2) == _hashes(fax)
    applied = tmp_path / "applied.json"  # or the provenance alone
    applied.write_text(json.dumps(json.loads((fax / "gt.json").read_text())["provenance"]))
    out3 = tmp_path / "replayed3"
    assert main_exit(["degrade", str(clean), "--replay", str(applied), "--out", str(out3)]) == 0
    assert _hashes(out3) == _hashes(fax)


@pytest.mark.parametrize("recipe", ["aging", "phone_camera", "carbon_copy"])
def test_color_and_jpeg_recipes_are_deterministic_and_valid(clean, tmp_path, recipe):  # type: ignore[no-untyped-def]
    a, b = tmp_path / "a", tmp_path / "b"
    degrade(clean, a, recipe=recipe, seed=3, dpi=100)
    degrade(clean, b, recipe=recipe, seed=3, dpi=100)
    assert _hashes(a) == _hashes(b)
    assert check_bundle(a, CHECKS) == []
    with pymupdf.open(a / "document.pdf") as d:
        pix = d[0].get_pixmap(dpi=50)
        assert pix.width > 0 and d[0].get_text() == ""


def test_dataset_in_dataset_out(clean, tmp_path):  # type: ignore[no-untyped-def]
    ds = tmp_path / "ds"
    pdf, schema, gt = make_clean(n_lines=5, doc_id="small")
    write_bundle(ds / "small", pdf=pdf, schema=schema, gt=gt)
    write_bundle(ds / "inv", pdf=(clean / "document.pdf").read_bytes(), schema=read_bundle(clean).schema,
                 gt=read_bundle(clean).gt)
    (ds / "dataset.jsonl").write_text('{"doc_id": "small", "path": "small"}\n{"doc_id": "inv-1", "path": "inv"}\n')
    out = tmp_path / "ds-dust"
    assert main_exit(["degrade", str(ds), "--recipe", "dust", "--seed", "1", "--out", str(out)]) == 0
    lines = [json.loads(x) for x in (out / "dataset.jsonl").read_text().splitlines()]
    assert [x["doc_id"] for x in lines] == ["small-dust-s1", "inv-1-dust-s1"]
    assert all(x["pipeline"] == "degrade" and "P1" in x["tags"]["perception"] for x in lines)
    from gtkit.check import check_path
    from gtkit.pipelines import CHECKS

    assert check_path(out, CHECKS) == (2, [])
    # replaying the dataset record reproduces it
    again = tmp_path / "ds-again"
    degrade(ds, again, replay=out)
    for name in ("small-dust-s1", "inv-1-dust-s1"):
        assert _hashes(again / name) == _hashes(out / name)


# --- bad input: one line, exit 2, nothing written ------------------------------------------------------------------


def main_exit(argv: list[str]) -> int:
    try:
        main(argv)
    except SystemExit as e:
        return int(e.code or 0)
    return 0


def _refused(capsys, argv: list[str], out: Path, *needles: str) -> None:  # type: ignore[no-untyped-def]
    before = sorted(p.name for p in out.parent.iterdir()) if out.parent.exists() else []
    code = main_exit(argv)
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("gtkit: error:"), err
    for n in needles:
        assert n in err, err
    after = sorted(p.name for p in out.parent.iterdir()) if out.parent.exists() else []
    assert after == before  # nothing written, no staging folder left


def test_bad_input_is_refused(clean, fax, tmp_path, capsys):  # type: ignore[no-untyped-def]
    out = tmp_path / "work" / "out"
    out.parent.mkdir()
    base = ["degrade", str(clean), "--seed", "1", "--out", str(out)]
    _refused(capsys, [*base, "--recipe", "nope"], out, "unknown recipe 'nope'")
    for body, needle in [
        ('[[stages]]\nstage = "sparkle"\n', "unknown stage"),
        ('[[stages]]\nstage = "crease"\n', "'crease'"),
        ('[[stages]]\nstage = "elastic"\n', "non-rigid"),
        ('[[stages]]\nstage = "blur"\nsigma = 99\n', "outside the allowed range"),
        ('[[stages]]\nstage = "blur"\nsigma = "wide"\n', "expected a number"),
        ("[[stages]\n", "malformed TOML"),
    ]:
        f = tmp_path / "bad.toml"
        f.write_text(body)
        _refused(capsys, [*base, "--recipe", str(f)], out, needle)
    (tmp_path / "notabundle").mkdir()
    _refused(capsys, ["degrade", str(tmp_path / "notabundle"), "--recipe", "fax", "--out", str(out)], out,
             "neither a bundle")
    _refused(capsys, ["degrade", str(clean / "gt.json"), "--recipe", "fax", "--out", str(out)], out, "is a file")
    _refused(capsys, ["degrade", str(tmp_path / "missing"), "--recipe", "fax", "--out", str(out)], out, "not found")
    _refused(capsys, ["degrade", str(clean), "--out", str(out)], out, "--recipe")
    _refused(capsys, [*base, "--recipe", "fax", "--dpi", "5"], out, "--dpi")
    _refused(capsys, [*base, "--recipe", "fax", "--replay", str(clean)], out, "not a degrade record")

    # existing output without --force: refused and untouched; --force replaces only what gtkit wrote
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    _refused(capsys, [*base, "--recipe", "fax"], out, "already exists")
    _refused(capsys, [*base, "--recipe", "fax", "--force"], out, "not an output gtkit wrote")
    assert (out / "keep.txt").read_text() == "mine"
    (out / "keep.txt").unlink()
    out.rmdir()
    assert main_exit([*base, "--recipe", "fax"]) == 0
    assert main_exit([*base, "--recipe", "clean_scan", "--force"]) == 0
    assert check_bundle(out, CHECKS) == [] and "clean_scan" in (out / "gt.json").read_text()


def _with_pdf(tmp_path: Path, name: str, pdf: bytes) -> Path:
    _, schema, gt = make_clean(n_lines=3)
    gt = gt.model_copy(update={"document": gt.document.model_copy(update={"sha256": sha256_bytes(pdf)})})
    folder = tmp_path / name
    write_bundle(folder, pdf=pdf, schema=schema, gt=gt)
    return folder


def test_encrypted_and_corrupt_pdfs_are_refused(tmp_path, capsys):  # type: ignore[no-untyped-def]
    pdf, _, _ = make_clean(n_lines=3)
    doc = pymupdf.open("pdf", pdf)
    enc = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="user", owner_pw="owner")
    enc_owner_only = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner")
    out = tmp_path / "work" / "out"
    out.parent.mkdir()
    for name, data, needle in [
        ("enc", enc, "encrypted"),
        ("enc-owner", enc_owner_only, "encrypted"),
        ("garbage", b"this is not a pdf at all\n" * 20, "not a readable PDF"),
        ("empty", b"", "not a readable PDF"),
    ]:
        folder = _with_pdf(tmp_path, name, data)
        _refused(capsys, ["degrade", str(folder), "--recipe", "fax", "--out", str(out)], out, needle)
    # a PDF that no longer matches its recorded hash is refused too
    folder = make_clean_bundle(tmp_path / "tampered", n_lines=3)
    (folder / "document.pdf").write_bytes((folder / "document.pdf").read_bytes()[:-200])
    _refused(capsys, ["degrade", str(folder), "--recipe", "fax", "--out", str(out)], out, "hash mismatch")


def test_recipes_command_lists_every_recipe(capsys):  # type: ignore[no-untyped-def]
    assert main_exit(["recipes"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) >= 10 and any(line.startswith("fax ") for line in lines)


def test_bad_replay_records_are_refused(clean, fax, tmp_path, capsys):  # type: ignore[no-untyped-def]
    out = tmp_path / "work" / "out"
    out.parent.mkdir()
    prov = json.loads((fax / "gt.json").read_text())["provenance"]
    rec = tmp_path / "applied.json"

    def refused(p: dict, *needles: str, extra: list[str] | None = None) -> None:
        rec.write_text(json.dumps(p))
        args = ["degrade", str(clean), "--replay", str(rec), "--out", str(out), *(extra or [])]
        _refused(capsys, args, out, *needles)

    refused(prov, "disagrees", extra=["--seed", "8"])
    bad = json.loads(json.dumps(prov))
    bad["parameters"]["pages"][1]["stages"][0]["stage"] = "crease"
    refused(bad, "/parameters/pages/1/stages/0/stage: unknown stage 'crease'")
    bad = json.loads(json.dumps(prov))
    bad["parameters"]["pages"][0]["geometry"]["homography"] = [[1, 0], [0, 1]]
    refused(bad, "/parameters/pages/0/geometry/homography/0/2: required key is missing")
    bad = json.loads(json.dumps(prov))
    bad["parameters"]["pages"][0]["geometry"]["homography"][1][1] = float("nan")
    refused(bad, "/parameters/pages/0/geometry/homography/1/1: Input should be a finite number")
    bad = json.loads(json.dumps(prov))
    bad["parameters"]["pages"][2]["stages"].pop()
    refused(bad, "/parameters/pages/2/stages: the stages are not the recipe's")
    bad = json.loads(json.dumps(prov))
    bad["parameters"]["pages"] = bad["parameters"]["pages"][:2]
    refused(bad, "has 2 pages")
    bad = json.loads(json.dumps(prov))
    bad["parent"]["document_sha256"] = "0" * 64
    refused(bad, "was made from document")
    bad = json.loads(json.dumps(prov))
    bad["parent"]["doc_id"] = "someone-else"
    refused(bad, "no record for parent")
