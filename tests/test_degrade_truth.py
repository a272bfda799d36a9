"""A degraded bundle's truth says what its pages show: no value off the page, no illegible capture, no
broken input copied."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from test_degrade_support import make_clean_bundle

from gtkit.check import check_bundle
from gtkit.degrade.fit import MAX_ATTEMPTS, fitting_geometry
from gtkit.degrade.pipeline import degrade
from gtkit.errors import GtkitError
from gtkit.pipelines import CHECKS

STRONG = """
name = "strong"
[geometry]
rotation_deg = [-15, 15]
scale = [1.0, 1.2]
corner_shift = [0.04, 0.08]
"""


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    return make_clean_bundle(tmp_path_factory.mktemp("clean") / "inv", n_lines=40)


def test_strong_geometry_keeps_every_value_on_its_page(clean, tmp_path):  # type: ignore[no-untyped-def]
    recipe = tmp_path / "strong.toml"
    recipe.write_text(STRONG)
    redrawn = 0
    for seed in range(3):
        out = tmp_path / f"s{seed}"
        degrade(clean, out, recipe=recipe, seed=seed, dpi=100)
        assert check_bundle(out, CHECKS) == []
        gt = json.loads((out / "gt.json").read_text())
        parent = json.loads((clean / "gt.json").read_text())
        for f, pf in zip(gt["fields"], parent["fields"]):
            assert len(f["readings"][0]["evidence"]) == len(pf["readings"][0]["evidence"])  # nothing dropped
            for ev in f["readings"][0]["evidence"]:
                q = np.asarray(ev["quad"])
                assert (q >= 0).all() and (q <= 1).all()
                assert len(ev["words"]) == len(pf["readings"][0]["evidence"][0]["words"])
        redrawn += sum(1 for p in gt["provenance"]["parameters"]["pages"] if p["geometry"].get("attempt"))
    assert redrawn > 0  # these ranges do push boxes off the page on some first draws


def test_geometry_that_never_fits_is_one_line():
    def draw(attempt: int) -> dict:
        return {"rotation_deg": 0.0, "scale": 1.2, "corner_shift": [[0.0, 0.0]] * 4, "background": 255}

    with pytest.raises(GtkitError, match=f"in {MAX_ATTEMPTS} draws"):
        fitting_geometry(draw, (612.0, 792.0), np.array([[0.0, 0.0, 0.05, 0.05]]), "doc page 1")


def test_an_illegible_capture_is_refused(clean, tmp_path):  # type: ignore[no-untyped-def]
    with pytest.raises(GtkitError, match=r"recipe 'fax' at --dpi 36 leaves the smallest text .*use --dpi \d+"):
        degrade(clean, tmp_path / "o", recipe="fax", seed=1, dpi=36)
    assert not (tmp_path / "o").exists()


def test_a_check_failing_input_is_refused(clean, tmp_path):  # type: ignore[no-untyped-def]
    broken = tmp_path / "broken"
    shutil.copytree(clean, broken)
    data = json.loads((broken / "gt.json").read_text())
    data["fields"][0]["readings"][0]["value"] = "not what expected says"
    (broken / "gt.json").write_text(json.dumps(data))
    with pytest.raises(GtkitError, match="the input fails gtkit check: /fields/0: first reading differs"):
        degrade(broken, tmp_path / "o", recipe="fax", seed=1)
    assert not (tmp_path / "o").exists()


def test_check_fails_a_quad_that_leaves_the_page(clean, tmp_path):  # type: ignore[no-untyped-def]
    out = tmp_path / "fax"
    degrade(clean, out, recipe="fax", seed=2)
    data = json.loads((out / "gt.json").read_text())
    ev = next(e for f in data["fields"] for e in f["readings"][0]["evidence"] if e.get("quad"))
    ev["quad"][1][0] = 1.02
    (out / "gt.json").write_text(json.dumps(data))
    assert any("leaves the page" in p.message for p in check_bundle(out, CHECKS))


def test_nan_parameters_and_singular_homographies_are_one_line(clean, tmp_path):  # type: ignore[no-untyped-def]
    from gtkit.degrade.pipeline import prepare

    recipe = tmp_path / "nan.toml"
    recipe.write_text('[[stages]]\nstage = "blur"\nsigma = nan\n')
    with pytest.raises(GtkitError, match=r"/stages/0/sigma: expected a finite number"):
        prepare(clean, recipe=recipe)
    out = tmp_path / "fax"
    degrade(clean, out, recipe="fax", seed=3)
    prov = json.loads((out / "gt.json").read_text())["provenance"]
    prov["parameters"]["pages"][0]["geometry"]["homography"] = [[0, 0, 0], [0, 0, 0], [0, 0, 1]]
    record = tmp_path / "record.json"
    record.write_text(json.dumps(prov))
    with pytest.raises(GtkitError, match=r"/parameters/pages/0/geometry/homography: is singular"):
        prepare(clean, replay=record)
