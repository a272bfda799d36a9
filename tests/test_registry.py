"""Families and recipes are found along a search path: the user's folders first, then the shipped ones."""

from __future__ import annotations

import shutil

import pytest
from helpers import run_cli as run

from gtkit.degrade import recipe as recipe_mod
from gtkit.paths import FAMILIES_DIR, RECIPES_DIR
from gtkit.synth import family as family_mod

pytestmark = pytest.mark.usefixtures("fresh_family_cache")


def test_user_families_and_recipes_are_listed_and_used(tmp_path, monkeypatch, capsys):  # type: ignore[no-untyped-def]
    fams = tmp_path / "fams"
    shutil.copytree(FAMILIES_DIR / "creditor_matrix", fams / "my_matrix")
    toml = fams / "my_matrix" / "family.toml"
    toml.write_text(toml.read_text().replace('name = "creditor_matrix"', 'name = "my_matrix"'))
    recs = tmp_path / "recs"
    recs.mkdir()
    (recs / "my_fax.toml").write_text((RECIPES_DIR / "fax.toml").read_text())
    monkeypatch.setenv("GTKIT_FAMILIES_PATH", str(fams))
    monkeypatch.setenv("GTKIT_RECIPES_PATH", str(recs))
    code, out, _ = run(["families"], capsys)
    assert code == 0 and "my_matrix:" in out and "creditor_matrix:" in out
    code, out, _ = run(["recipes"], capsys)
    assert code == 0 and "my_fax" in out and "clean_scan" in out
    assert run(["synth", "--family", "my_matrix", "--records", "12", "--out", tmp_path / "b"], capsys)[0] == 0
    args = ["degrade", tmp_path / "b", "--recipe", "my_fax", "--dpi", "100", "--out", tmp_path / "d"]
    assert run(args, capsys)[0] == 0


def test_an_empty_registry_is_an_error(tmp_path, monkeypatch, capsys):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(family_mod, "FAMILIES_DIR", tmp_path / "none")
    monkeypatch.setattr(recipe_mod, "RECIPES_DIR", tmp_path / "none")
    for verb, needle in (("families", "no synth families found"), ("recipes", "no recipes found")):
        code, _, err = run([verb], capsys)
        assert code == 2 and needle in err and len(err.strip().splitlines()) == 1
