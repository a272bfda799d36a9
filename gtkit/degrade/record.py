"""The record of a degrade run, as `gtkit degrade --replay` reads it back.

A degraded bundle's `provenance` holds everything the run drew: `parameters` has the record's `version`,
the `dpi`, the recipe (ranges included, as `Recipe.record()` writes it) and one plan per page (its raster
size, its geometry with the 3x3 homography and the background grey, and every stage's drawn values).
A replay takes the record from a degraded gt.json (`DegradedGt`) or from the provenance object alone
(`DegradeRecord`), and redoes the run from it, drawing nothing.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import (
    AfterValidator,
    Field,
    StrictBool,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)

from gtkit.degrade.params import Finite
from gtkit.degrade.recipe import Recipe
from gtkit.degrade.stages import STAGES
from gtkit.format.models import GroundTruth, ParentRef
from gtkit.typed import Strict, error_at

Row = tuple[Finite, Finite, Finite]
Pixels = Annotated[int, Field(strict=True, gt=0)]


def _known_stage(name: str) -> str:
    if name not in STAGES:
        raise ValueError(f"unknown stage {name!r} (known: {', '.join(sorted(STAGES))})")
    return name


def _degrade_pipeline(name: str) -> str:
    if name != "degrade":
        raise ValueError(f"not a degrade record (pipeline {name!r})")
    return name


class PageGeometry(Strict):
    """The page's drawn geometry; `homography` (page points to warped page points) is what is applied."""

    rotation_deg: Finite
    scale: Finite
    corner_shift: tuple[tuple[Finite, Finite], tuple[Finite, Finite], tuple[Finite, Finite], tuple[Finite, Finite]]
    background: Annotated[int, Field(strict=True, ge=0, le=255)]
    homography: tuple[Row, Row, Row]

    @field_validator("homography")
    @classmethod
    def _invertible(cls, h: tuple) -> tuple:
        """A homography that maps the page onto a region (det far from 0), so the page and its boxes can move."""
        det = float(np.linalg.det(np.asarray(h, dtype=float)))
        if not math.isfinite(det) or abs(det) < 1e-9:
            raise ValueError("is singular (it would collapse the page): not a page homography")
        return h


@cache
def _drawn(stage: str) -> type[Strict]:
    return create_model(f"Drawn_{stage}", __base__=Strict, **STAGES[stage].drawn_fields())


class StagePlan(Strict):
    """One recipe stage on one page: whether its `p` drew it, and its drawn values when it applies
    (checked against what the stage's `sample` gives, and kept as recorded)."""

    stage: Annotated[str, AfterValidator(_known_stage)]
    applied: StrictBool
    params: dict[str, Any] | None

    @field_validator("params")
    @classmethod
    def _drawn_values(cls, params: dict[str, Any] | None, info: ValidationInfo) -> dict[str, Any] | None:
        if params is not None and "stage" in info.data:
            _drawn(info.data["stage"]).model_validate(params)
        return params

    @model_validator(mode="after")
    def _applied_has_params(self) -> StagePlan:
        if self.applied and self.params is None:
            raise error_at(("params",), "an applied stage needs its drawn values")
        return self


class PagePlan(Strict):
    page: Annotated[int, Field(strict=True, ge=1)]
    size_px: tuple[Pixels, Pixels]
    geometry: PageGeometry
    stages: list[StagePlan]


class DegradeParameters(Strict):
    """`provenance.parameters` of a degraded bundle: pages in order, each running the recipe's stages."""

    version: Literal[1]
    dpi: Annotated[int, Field(strict=True, ge=36, le=1200)]
    recipe: Recipe
    pages: list[PagePlan] = Field(min_length=1)
    corrections: list[dict[str, Any]] | None = None   # a person's corrections (gtkit.corrections), not replayed

    @model_validator(mode="after")
    def _pages_follow_the_recipe(self) -> DegradeParameters:
        stages = [e.stage for e in self.recipe.stages]
        for i, page in enumerate(self.pages):
            if page.page != i + 1:
                raise error_at(("pages", i, "page"), f"expected page {i + 1}, got {page.page}")
            if [s.stage for s in page.stages] != stages:
                raise error_at(("pages", i, "stages"), f"the stages are not the recipe's {stages}")
        return self


class DegradeRecord(Strict):
    """The provenance of a degraded bundle (as `gtkit.format.Provenance`, narrowed to what a replay needs)."""

    pipeline: Annotated[str, AfterValidator(_degrade_pipeline)]
    family: str | None = None
    seed: Annotated[int, Field(strict=True, ge=0)]
    recipe: str | None = None
    parent: ParentRef
    gtkit: str
    created: str | None = None
    parameters: DegradeParameters


class DegradedGt(GroundTruth):
    """A degraded bundle's gt.json: the shared format, its provenance a `DegradeRecord`."""

    provenance: DegradeRecord  # type: ignore[assignment]  # pydantic: degrade's own record, no Provenance subclass
