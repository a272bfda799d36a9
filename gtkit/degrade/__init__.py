"""degrade: seeded scan re-captures of any bundle, with boxes moved in closed form.

Layout: `ops` holds the pure image functions, `gtkit.geometry` the homography and box math, `boxes` the
pure move of a ground truth's evidence, `stages` the classes that validate parameter ranges and draw
values, `recipe` the TOML recipe model, `pdfwrite` the deterministic image-only PDF writer, and
`pipeline` the run (plan, render, write) and its replay.
"""

from gtkit.degrade.pipeline import DEFAULT_DPI, degrade, plan_page, prepare
from gtkit.degrade.recipe import Recipe, list_recipes, load_recipe, parse_recipe

__all__ = ["DEFAULT_DPI", "Recipe", "degrade", "list_recipes", "load_recipe", "parse_recipe", "plan_page", "prepare"]
