"""The `albumentations` recipe stage: pixel-level transforms only, seeded per stage, recorded, replayed byte for byte.

(The shipped recipes that use it also run through the ink test in test_degrade_ink.py.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_degrade_support import make_clean_bundle

from gtkit.degrade.pipeline import degrade, plan_page
from gtkit.degrade.recipe import Recipe, load_recipe
from gtkit.errors import GtkitError
from gtkit.typed import parse

ALBU_RECIPES = ("phone_camera_iso", "jpeg_forward")


def _recipe(tmp_path: Path, stage_lines: str) -> Path:
    path = tmp_path / "r.toml"
    path.write_text(f'[[stages]]\nstage = "albumentations"\n{stage_lines}\n')
    return path


@pytest.fixture(scope="module")
def clean(tmp_path_factory):  # type: ignore[no-untyped-def]
    return make_clean_bundle(tmp_path_factory.mktemp("albu") / "clean", n_lines=12)


def _bytes(folder: Path) -> tuple[bytes, bytes]:
    return (folder / "document.pdf").read_bytes(), (folder / "gt.json").read_bytes()


@pytest.mark.parametrize("recipe", ALBU_RECIPES)
def test_albumentations_recipe_replays_byte_identically(clean, tmp_path, recipe):  # type: ignore[no-untyped-def]
    degrade(clean, tmp_path / "a", recipe=recipe, seed=5, dpi=100)
    degrade(clean, tmp_path / "b", recipe=recipe, seed=5, dpi=100)
    degrade(clean, tmp_path / "replay", replay=tmp_path / "a", dpi=None)
    degrade(clean, tmp_path / "other", recipe=recipe, seed=6, dpi=100)
    assert _bytes(tmp_path / "a") == _bytes(tmp_path / "b") == _bytes(tmp_path / "replay")
    assert _bytes(tmp_path / "a")[0] != _bytes(tmp_path / "other")[0]


def test_the_seed_and_what_albumentations_drew_are_recorded(clean, tmp_path):  # type: ignore[no-untyped-def]
    degrade(clean, tmp_path / "a", recipe="phone_camera_iso", seed=5, dpi=100)
    pages = json.loads((tmp_path / "a" / "gt.json").read_text())["provenance"]["parameters"]["pages"]
    iso = [s for s in pages[0]["stages"] if s["stage"] == "albumentations" and s["params"]["transform"] == "ISONoise"]
    params = iso[0]["params"]
    assert params["version"] == "2.0.8" and isinstance(params["seed"], int)
    assert params["args"] == {"color_shift": [0.01, 0.04], "intensity": [0.1, 0.4]}
    assert 0.01 <= params["drawn"]["color_shift"] <= 0.04 and 0.1 <= params["drawn"]["intensity"] <= 0.4
    seeds = {s["params"]["seed"] for p in pages for s in p["stages"] if s["applied"] and s["stage"] == "albumentations"}
    assert len(seeds) == sum(1 for p in pages for s in p["stages"] if s["applied"] and s["stage"] == "albumentations")


def test_a_record_whose_drawn_values_do_not_match_is_refused(clean, tmp_path):  # type: ignore[no-untyped-def]
    degrade(clean, tmp_path / "a", recipe="phone_camera_iso", seed=5, dpi=100)
    gt_path = tmp_path / "a" / "gt.json"
    gt = json.loads(gt_path.read_text())
    stage = next(s for s in gt["provenance"]["parameters"]["pages"][0]["stages"] if s["stage"] == "albumentations")
    stage["params"]["drawn"]["intensity"] = 0.2468
    gt_path.write_text(json.dumps(gt))
    with pytest.raises(GtkitError, match="the record says"):
        degrade(clean, tmp_path / "replay", replay=gt_path)
    assert not (tmp_path / "replay").exists()


def test_a_record_from_another_albumentations_release_is_refused(clean, tmp_path):  # type: ignore[no-untyped-def]
    degrade(clean, tmp_path / "a", recipe="jpeg_forward", seed=5, dpi=100)
    gt_path = tmp_path / "a" / "gt.json"
    gt = json.loads(gt_path.read_text())
    for page in gt["provenance"]["parameters"]["pages"]:
        for s in page["stages"]:
            if s["applied"]:
                s["params"]["version"] = "1.4.0"
    gt_path.write_text(json.dumps(gt))
    with pytest.raises(GtkitError, match=re.escape("albumentations 1.4.0, but 2.0.8 is installed")):
        degrade(clean, tmp_path / "replay", replay=gt_path)


@pytest.mark.parametrize("name", ["Affine", "RandomCrop", "ElasticTransform", "HorizontalFlip", "Perspective",
                                  "GridDistortion", "OpticalDistortion", "Rotate"])
def test_spatial_transforms_are_refused_by_name(tmp_path, name):  # type: ignore[no-untyped-def]
    with pytest.raises(GtkitError, match=rf"/stages/0/transform: '{name}' is a spatial transform"):
        load_recipe(_recipe(tmp_path, f'transform = "{name}"'))


@pytest.mark.parametrize(("lines", "message"), [
    ('transform = "ISONoise"\ncolour_shift = 0.1', r"/stages/0/colour_shift: unknown argument of ISONoise"),
    ('transform = "ISONoise"\nintensity = [2, 1]', r"/stages/0/intensity: ISONoise: First value should be less"),
    ('transform = "MotionBlur"\nblur_limit = 4', r"/stages/0/blur_limit: MotionBlur: blur_limit: Non-zero kernel"),
    ('transform = "NoSuchThing"', r"/stages/0/transform: 'NoSuchThing' is not an albumentations transform"),
    ('transform = "Normalize"', r"/stages/0/transform: 'Normalize' changes the image's size or type"),
    ('transform = "FDA"', r"/stages/0/transform: 'FDA' cannot run on a page image"),
    ('colour_shift = 0.1', r"/stages/0/transform"),
])
def test_bad_arguments_are_refused_with_their_pointer(tmp_path, lines, message):  # type: ignore[no-untyped-def]
    with pytest.raises(GtkitError, match=message):
        load_recipe(_recipe(tmp_path, lines))


def test_the_stage_draws_from_its_own_generator():
    rec = load_recipe("jpeg_forward")
    a = plan_page(rec, 7, "doc", 1, (612.0, 792.0), 150)
    assert a == plan_page(rec, 7, "doc", 1, (612.0, 792.0), 150)
    seeds = [s["params"]["seed"] for s in a["stages"]]
    assert len(set(seeds)) == len(seeds)  # the two ImageCompression stages draw differently
    assert seeds != [s["params"]["seed"] for s in plan_page(rec, 7, "doc", 2, (612.0, 792.0), 150)["stages"]]


def test_the_record_loads_back_as_the_same_recipe():
    rec = load_recipe("jpeg_forward")
    assert parse(Recipe, json.loads(json.dumps(rec.record())), "record").record() == rec.record()


def test_without_the_extra_the_error_says_how_to_install(clean, tmp_path):  # type: ignore[no-untyped-def]
    code = ("import sys; sys.modules['albumentations'] = None\n"
            "from gtkit.cli import main\n"
            f"sys.argv = ['gtkit', 'degrade', {str(clean)!r}, '--recipe', 'phone_camera_iso', '--out', "
            f"{str(tmp_path / 'out')!r}]\n"
            "main()\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr
    assert "phone_camera_iso.toml: /stages/1/transform:" in lines[0]
    assert "pip install 'gtkit[albumentations]'" in lines[0]
    assert not (tmp_path / "out").exists()
