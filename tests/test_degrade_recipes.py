"""Recipes: the shipped ones load and draw; bad ones are refused at load with the stage named."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from gtkit.degrade.pipeline import plan_page
from gtkit.degrade.recipe import Recipe, list_recipes, load_recipe
from gtkit.degrade.stages import NON_RIGID, STAGES
from gtkit.errors import GtkitError
from gtkit.typed import parse

REQUIRED = {"photocopier", "carbon_copy", "fax", "sensor_noise", "speckle", "phone_camera", "aging", "low_res",
            "dust", "shadow"}


def test_shipped_recipes_load_and_describe_themselves():
    rows = dict(list_recipes())
    assert set(rows) >= REQUIRED
    assert len(rows) >= 10
    for name, desc in rows.items():
        assert desc and not desc.startswith("(invalid"), name
        rec = load_recipe(name)
        assert rec.name == name
        # the record is plain JSON and parses back to the same recipe
        again = parse(Recipe, json.loads(json.dumps(rec.record())), name)
        assert again.record() == rec.record()


def test_every_stage_is_used_by_some_recipe():
    used = {e.stage for name in dict(list_recipes()) for e in load_recipe(name).stages}
    assert used == set(STAGES)


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_plans_are_seeded_and_independent(name):
    rec = load_recipe(name)
    a = plan_page(rec, 7, "doc", 1, (612.0, 792.0), 200)
    b = plan_page(rec, 7, "doc", 1, (612.0, 792.0), 200)
    c = plan_page(rec, 8, "doc", 1, (612.0, 792.0), 200)
    d = plan_page(rec, 7, "doc", 2, (612.0, 792.0), 200)
    assert a == b
    assert a != c and a != d
    h = np.asarray(a["geometry"]["homography"])
    assert h.shape == (3, 3) and h[2, 2] == 1.0
    assert json.loads(json.dumps(a)) == a


def test_draws_stay_inside_the_ranges():
    rec = load_recipe("photocopier")
    for seed in range(20):
        p = plan_page(rec, seed, "d", 1, (612.0, 792.0), 200)
        g = p["geometry"]
        assert -1.5 <= g["rotation_deg"] <= 1.5
        assert all(0.0 <= abs(v) <= 0.005 for xy in g["corner_shift"] for v in xy)
        tone = p["stages"][0]["params"]
        assert 0.8 <= tone["gamma"] <= 1.1 and 40 <= tone["black"] <= 80
        assert 1 <= len(p["stages"][1]["params"]["bands"]) <= 4


def _bad(stages: list[dict], **top) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(GtkitError) as e:
        parse(Recipe, {"name": "bad", "description": "x", "stages": stages, **top}, "bad.toml")
    msg = str(e.value)
    assert "\n" not in msg
    return msg


@pytest.mark.parametrize("stage", sorted(NON_RIGID))
def test_non_rigid_stages_are_refused_by_name(stage):
    msg = _bad([{"stage": "blur", "sigma": 0.2}, {"stage": stage}])
    assert f"'{stage}'" in msg and "non-rigid" in msg and "/stages/1/stage" in msg


def test_bad_recipes_are_refused_with_the_stage_named():
    msg = _bad([{"stage": "sparkle"}])
    assert "/stages/0/stage: unknown stage 'sparkle'" in msg
    msg = _bad([{"stage": "blur", "sigma": 0.2}, {"stage": "blur", "sigma": 50}])
    assert "/stages/1/sigma: " in msg and "outside the allowed range" in msg
    msg = _bad([{"stage": "gaussian_noise", "sigma": "loud"}])
    assert "/stages/0/sigma: " in msg and "expected a number" in msg
    msg = _bad([{"stage": "jpeg", "quality": 75.5}])
    assert "/stages/0/quality: " in msg and "integer" in msg
    msg = _bad([{"stage": "blur", "sigma": True}])
    assert "expected a number" in msg
    assert _bad([{"stage": "blur", "radius": 1}]).endswith("/stages/0/radius: unknown key")
    assert "lo > hi" in _bad([{"stage": "blur", "sigma": [0.5, 0.1]}])
    assert "not one of" in _bad([{"stage": "threshold", "method": "magic"}])
    assert "/stages/0/p: " in _bad([{"stage": "blur", "p": 1.5}])
    assert "/stages/0/p: " in _bad([{"stage": "blur", "p": True}])
    assert "[geometry]" in _bad([{"stage": "rotate"}])
    assert "/geometry/rotation_deg: " in _bad([], geometry={"rotation_deg": 90})
    assert "/output/format: " in _bad([], output={"format": "tiff"})
    assert _bad([{"sigma": 1}]).endswith("/stages/0/stage: required key is missing")
    assert _bad([], colour="red").endswith("/colour: unknown key")


def test_unknown_recipe_and_bad_files(tmp_path):
    with pytest.raises(GtkitError, match="unknown recipe 'nope'"):
        load_recipe("nope")
    f = tmp_path / "broken.toml"
    f.write_text("[[stages]\nstage = ", encoding="utf-8")
    with pytest.raises(GtkitError, match="malformed TOML"):
        load_recipe(f)
    f2 = tmp_path / "crease.toml"
    f2.write_text('description = "x"\n[[stages]]\nstage = "crease"\n', encoding="utf-8")
    with pytest.raises(GtkitError, match=r"'crease'.*non-rigid"):
        load_recipe(f2)
    f3 = tmp_path / "mine.toml"
    f3.write_text('description = "mine"\n[[stages]]\nstage = "blur"\nsigma = [0.1, 0.2]\n', encoding="utf-8")
    assert load_recipe(f3).name == "mine"


def test_an_empty_recipe_file_is_refused(tmp_path):
    path = tmp_path / "nothing.toml"
    path.write_text("")
    with pytest.raises(GtkitError, match=re.escape("nothing.toml: the recipe is empty")):
        load_recipe(path)
    path.write_text("# only a comment\n")
    with pytest.raises(GtkitError, match="the recipe is empty"):
        load_recipe(path)
