"""The legibility floor: a re-capture must leave every value readable, or its truth would claim text
nobody can read.

The measure is the height in pixels of the smallest word box after degradation: its height in points
times the lowest resolution the page passes through (the output `dpi`, or a `resample` stage's lowest
possible vertical resolution, whichever is lower) over 72, times the smallest scale the recipe may
draw. Below `MIN_TEXT_PX` pixels a word box (ascender to descender) leaves letters a few pixels tall:
the recipe and dpi are refused before anything is drawn, naming the dpi that would do.
"""

from __future__ import annotations

import math

from gtkit.degrade.recipe import Recipe
from gtkit.degrade.stages import Resample
from gtkit.errors import GtkitError

MIN_TEXT_PX = 7.0


def lowest_resolution(recipe: Recipe, dpi: int) -> float:
    """The lowest vertical resolution (dots per inch) a page of this recipe passes through."""
    lowest = float(dpi)
    for entry in recipe.stages:
        if isinstance(entry.params, Resample.Params) and entry.p > 0:  # the resample stage's validated ranges
            lowest = min(lowest, float(min(entry.params.dpi_y)))
    return lowest


def check_legible(recipe: Recipe, dpi: int, smallest_pt: float, where: str) -> None:
    """Refuse a recipe and dpi that would shrink the smallest word box (`smallest_pt` points tall) below the floor."""
    if smallest_pt <= 0 or not math.isfinite(smallest_pt):
        return
    scale = min(recipe.geometry.scale)
    lowest = lowest_resolution(recipe, dpi)
    px = smallest_pt * lowest / 72.0 * scale
    if px >= MIN_TEXT_PX:
        return
    need = math.ceil(MIN_TEXT_PX * 72.0 / (smallest_pt * scale))
    fix = f"use --dpi {need} or more" if lowest >= dpi else \
        f"its resample stage goes down to {lowest:g} dpi: this document needs {need} dpi or more"
    raise GtkitError(f"{where}: recipe {recipe.name!r} at --dpi {dpi} leaves the smallest text ({smallest_pt:.1f} pt) "
                     f"{px:.2f} px tall; a legible re-capture needs {MIN_TEXT_PX:g} px ({fix})")
