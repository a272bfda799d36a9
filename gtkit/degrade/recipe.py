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

Loading refuses, with the stage named: an unknown stage, a stage that warps the page non-rigidly
(crease, curl, elastic, lens distortion...), a parameter that is unknown, of the wrong type or outside its
allowed range.
"""

from __future__ import annotations

import re

from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gtkit.degrade.stages import NON_RIGID, RIGID_GEOMETRY, STAGES, FloatRange, IntRange, Params, Stage, draw
from gtkit.errors import GtkitError
from gtkit.fileio import read_toml
from gtkit.paths import RECIPES_DIR


class Geometry(Params):
    """Ranges of the page homography: rotation (degrees, about the centre), uniform scale, and the shift of
    each corner coordinate (a magnitude in [lo, hi] as a fraction of the page side, with a random sign)."""

    rotation_deg: FloatRange(-15, 15) = (-2.0, 2.0)
    scale: FloatRange(0.5, 1.2) = (1.0, 1.0)
    corner_shift: FloatRange(0, 0.08) = (0.0, 0.01)
    background: IntRange(0, 255) = (255, 255)


class Output(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    format: Literal["png", "jpeg"] = "png"
    quality: int = Field(default=90, ge=10, le=100, strict=True)


class StageEntry(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)
    stage: str
    p: float = 1.0
    params: Any

    def build(self) -> Stage:
        return STAGES[self.stage](self.params)


class Recipe(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)
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
            "geometry": _dump(self.geometry),
            "output": self.output.model_dump(),
            "stages": [{"stage": e.stage, **({"p": e.p} if e.p != 1.0 else {}), **_dump(e.params)} for e in self.stages],
        }


def _dump(model: BaseModel) -> dict[str, Any]:
    out = {}
    for k in type(model).model_fields:
        v = getattr(model, k)
        out[k] = list(v) if isinstance(v, tuple) else v
    return out


def _first_error(e: ValidationError) -> str:
    err = e.errors()[0]
    loc = ".".join(str(x) for x in err["loc"])
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        msg = "unknown parameter"
    elif err["type"] == "missing":
        msg = "missing"
    return f"parameter {loc!r}: {msg}" if loc else msg


_NAME_OK = re.compile(r"[^A-Za-z0-9._-]+")


def slug(name: str) -> str:
    """A recipe name usable inside a doc_id: runs of other characters become '_'."""
    return _NAME_OK.sub("_", name).strip("_.-") or "recipe"


def parse_recipe(data: Any, name: str, where: Path | str | None = None) -> Recipe:
    """Validate a recipe given as a parsed TOML/JSON object; every problem is one GtkitError line."""
    if not isinstance(data, dict):
        raise GtkitError("a recipe must be a table", where)
    unknown = set(data) - {"name", "description", "geometry", "output", "stages"}
    if unknown:
        raise GtkitError(f"unknown recipe key(s) {sorted(unknown)} (expected description, geometry, output, stages)", where)
    desc = data.get("description", "")
    if not isinstance(desc, str):
        raise GtkitError("description must be a string", where)
    try:
        geometry = Geometry.model_validate(data.get("geometry", {}))
    except ValidationError as e:
        raise GtkitError(f"[geometry]: {_first_error(e)}", where) from None
    try:
        output = Output.model_validate(data.get("output", {}))
    except ValidationError as e:
        raise GtkitError(f"[output]: {_first_error(e)}", where) from None
    raw_stages = data.get("stages", [])
    if not isinstance(raw_stages, list):
        raise GtkitError("stages must be an array of tables ([[stages]])", where)
    entries = []
    for i, raw in enumerate(raw_stages, 1):
        if not isinstance(raw, dict):
            raise GtkitError(f"stage {i}: expected a table", where)
        stage = raw.get("stage")
        if not isinstance(stage, str):
            raise GtkitError(f"stage {i}: missing 'stage = \"<name>\"'", where)
        label = f"stage {i} {stage!r}"
        key = stage.lower()
        if key in NON_RIGID:
            raise GtkitError(
                f"{label} warps the page non-rigidly, so its effect on a box has no closed form: refused", where)
        if key in RIGID_GEOMETRY:
            raise GtkitError(f"{label}: rotation and perspective belong in the [geometry] table, not in stages", where)
        if stage not in STAGES:
            raise GtkitError(f"{label}: unknown stage (known: {', '.join(sorted(STAGES))})", where)
        p = raw.get("p", 1.0)
        if isinstance(p, bool) or not isinstance(p, int | float) or not 0.0 <= p <= 1.0:
            raise GtkitError(f"{label}: parameter 'p' must be a probability in [0, 1], got {p!r}", where)
        params = {k: v for k, v in raw.items() if k not in ("stage", "p")}
        try:
            model = STAGES[stage].Params.model_validate(params)
        except ValidationError as e:
            raise GtkitError(f"{label}: {_first_error(e)}", where) from None
        entries.append(StageEntry(stage=stage, p=float(p), params=model))
    return Recipe(name=name, description=desc, geometry=geometry, output=output, stages=tuple(entries))


def recipe_path(name_or_path: str | Path) -> Path:
    """A recipe name (a file `recipes/<name>.toml`) or a path to a TOML file."""
    s = str(name_or_path)
    p = Path(s)
    if s.endswith(".toml") or p.parent != Path("."):
        if not p.is_file():
            raise GtkitError("recipe file not found", p)
        return p
    candidate = RECIPES_DIR / f"{s}.toml"
    if not candidate.is_file():
        known = ", ".join(recipe_names()) or "none"
        raise GtkitError(f"unknown recipe {s!r} (known: {known})")
    return candidate


def load_recipe(name_or_path: str | Path) -> Recipe:
    path = recipe_path(name_or_path)
    data = read_toml(path)
    return parse_recipe(data, data.get("name", path.stem) if isinstance(data.get("name"), str) else path.stem, path)


def recipe_names() -> list[str]:
    return sorted(p.stem for p in RECIPES_DIR.glob("*.toml")) if RECIPES_DIR.is_dir() else []


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
