"""Scan recipes: TOML data files under `recipes/`, validated when they load.

A recipe is a `[geometry]` table (the ranges of the page's rotation, scale, corner shifts and the
background uncovered by them), an `[output]` table (how the page image is encoded in the PDF), and an
ordered list of photometric `[[stages]]`, each naming its `stage` and giving its parameters as fixed values
or `[lo, hi]` ranges, with an optional probability `p` of being applied. Example:

    description = "Fax: 204 x 98 dpi, thresholded to one bit"
    [geometry]
    rotation_deg = [-1.5, 1.5]
    corner_shift = [0.0, 0.006]
    [output]
    format = "png"
    [[stages]]
    stage = "resample"
    dpi_x = 204
    dpi_y = [98, 196]

`name` is optional (the file's stem). Loading refuses, naming the key by its JSON Pointer (for instance
`/stages/2/sigma: unknown key`): an unknown key, an unknown stage, a stage that warps the page non-rigidly
(crease, curl, elastic, lens distortion...), a parameter that is unknown, of the wrong type or outside its
allowed range.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    model_validator,
)

from gtkit.degrade.params import FloatPair, FloatRange, IntPair, IntRange, Params, draw
from gtkit.degrade.stages import NON_RIGID, RIGID_GEOMETRY, STAGES, Stage
from gtkit.errors import GtkitError
from gtkit.files.read import read_toml
from gtkit.paths import RECIPES_DIR, RECIPES_ENV, search_path
from gtkit.typed import Strict, parse


class Geometry(Params):
    """Ranges of the page homography: rotation (degrees, about the centre), uniform scale, and the shift of
    each corner coordinate (a magnitude in [lo, hi] as a fraction of the page side, with a random sign)."""

    rotation_deg: Annotated[FloatPair, FloatRange(-15, 15)] = (-2.0, 2.0)
    scale: Annotated[FloatPair, FloatRange(0.5, 1.2)] = (1.0, 1.0)
    corner_shift: Annotated[FloatPair, FloatRange(0, 0.08)] = (0.0, 0.01)
    background: Annotated[IntPair, IntRange(0, 255)] = (255, 255)


class Output(Strict):
    model_config = ConfigDict(frozen=True)
    format: Literal["png", "jpeg"] = "png"
    quality: int = Field(default=90, ge=10, le=100, strict=True)


def _stage_name(name: str) -> str:
    key = name.lower()
    if key in NON_RIGID:
        raise ValueError(f"{name!r} warps the page non-rigidly, so its effect on a box has no closed form: refused")
    if key in RIGID_GEOMETRY:
        raise ValueError(f"{name!r}: rotation and perspective belong in the [geometry] table, not in stages")
    if name not in STAGES:
        raise ValueError(f"unknown stage {name!r} (known: {', '.join(sorted(STAGES))})")
    return name


class _StageHead(Strict):
    """A `[[stages]]` table's own keys; the others are the stage's parameters."""

    model_config = ConfigDict(extra="allow")
    stage: Annotated[str, AfterValidator(_stage_name)]
    p: Annotated[float, Field(strict=True, ge=0.0, le=1.0)] = 1.0


class StageEntry(Strict):
    """One `[[stages]]` table: `stage`, the probability `p` of applying it, and its parameters side by side
    (validated by the stage's `Params`, so an error points at /stages/<i>/<parameter>)."""

    model_config = ConfigDict(frozen=True)
    stage: str
    p: float = 1.0
    params: Params

    @model_validator(mode="wrap")
    @classmethod
    def _flat(cls, data: Any, handler: ModelWrapValidatorHandler[StageEntry]) -> StageEntry:
        if not isinstance(data, dict):
            return handler(data)
        head = _StageHead.model_validate(data)
        params = STAGES[head.stage].Params.model_validate(head.model_extra or {})
        return handler({"stage": head.stage, "p": head.p, "params": params})

    def build(self) -> Stage:
        return STAGES[self.stage](self.params)


class Recipe(Strict):
    """A recipe file (`name` defaults to the file's stem), or the recipe recorded in a degrade run."""

    model_config = ConfigDict(frozen=True)
    name: str
    description: str = ""
    geometry: Geometry = Geometry()
    output: Output = Output()
    stages: tuple[StageEntry, ...] = ()

    def record(self) -> dict[str, Any]:
        """The recipe as plain JSON (ranges included), stored with every run so a replay needs no file."""
        return {
            "name": self.name,
            "description": self.description,
            "geometry": self.geometry.as_recipe(),
            "output": self.output.model_dump(),
            "stages": [{"stage": e.stage, **({"p": e.p} if e.p != 1.0 else {}), **e.params.as_recipe()}
                       for e in self.stages],
        }


_NAME_OK = re.compile(r"[^A-Za-z0-9._-]+")


def slug(name: str) -> str:
    """A recipe name usable inside a doc_id: runs of other characters become '_'."""
    return _NAME_OK.sub("_", name).strip("_.-") or "recipe"


def recipe_path(name_or_path: str | Path) -> Path:
    """A recipe name (a file `recipes/<name>.toml`) or a path to a TOML file."""
    s = str(name_or_path)
    p = Path(s)
    if s.endswith(".toml") or p.parent != Path("."):
        if not p.is_file():
            raise GtkitError("recipe file not found", p)
        return p
    files = recipe_files()
    if s not in files:
        raise GtkitError(f"unknown recipe {s!r} (known: {', '.join(sorted(files))})")
    return files[s]


def load_recipe(name_or_path: str | Path) -> Recipe:
    path = recipe_path(name_or_path)
    data = read_toml(path)
    if not data:  # every key has a default, but a file that says nothing is a mistake, not a recipe
        raise GtkitError("the recipe is empty: give at least a [geometry] table or [[stages]]", path)
    return parse(Recipe, {"name": path.stem, **data}, path)


def recipe_files() -> dict[str, Path]:
    """Recipe name -> file, along `GTKIT_RECIPES_PATH` then the shipped recipes (the first of a name wins);
    no recipe at all is an error."""
    found: dict[str, Path] = {}
    folders = search_path(RECIPES_ENV, RECIPES_DIR)
    for folder in folders:
        for p in sorted(folder.glob("*.toml")) if folder.is_dir() else ():
            found.setdefault(p.stem, p)
    if not found:
        raise GtkitError(f"no recipes found (looked in {', '.join(map(str, folders))})")
    return found


def recipe_names() -> list[str]:
    return sorted(recipe_files())


def list_recipes() -> list[tuple[str, str]]:
    """(name, one-line description) of every recipe shipped under recipes/; a broken file says so."""
    out = []
    for name in recipe_names():
        try:
            desc = load_recipe(name).description.strip()
            out.append((name, desc.splitlines()[0] if desc else ""))
        except GtkitError as e:
            out.append((name, f"(invalid: {e.message})"))
    return out


# --- drawing a page's plan ----------------------------------------------------------------------------------------


def sample_geometry(geometry: Geometry, rng: np.random.Generator) -> dict[str, Any]:
    """Draw rotation, scale, background and the 8 corner-shift components (|d| in [lo, hi], random sign)."""
    drawn = draw(geometry, rng)
    lo, hi = geometry.corner_shift
    mags = rng.uniform(lo, hi, 8) if lo != hi else np.full(8, float(lo))
    signs = np.where(rng.random(8) < 0.5, -1.0, 1.0)
    drawn["corner_shift"] = [[float(a), float(b)] for a, b in (mags * signs).reshape(4, 2)]
    return drawn
