"""degrade: seeded scan re-captures of any bundle, with boxes moved in closed form.

Layout: `ops` holds the pure image functions, `gtkit.geometry` the homography and box math, `boxes` the
pure move of a ground truth's evidence, `params` the kinds of a stage's parameters (ranges, choices,
colours) and the draw of concrete values, `stages` the stages themselves, `recipe` the TOML recipe model,
`pdfwrite` the deterministic image-only PDF writer, `pipeline` the run (plan, render, write) and its
replay, and `checks` the checks `gtkit check` runs on degraded bundles. Importing this package is cheap
(OpenCV loads on first use).
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "DEFAULT_DPI": "gtkit.degrade.pipeline",
    "degrade": "gtkit.degrade.pipeline",
    "plan_page": "gtkit.degrade.pipeline",
    "prepare": "gtkit.degrade.pipeline",
    "Recipe": "gtkit.degrade.recipe",
    "list_recipes": "gtkit.degrade.recipe",
    "load_recipe": "gtkit.degrade.recipe",
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'gtkit.degrade' has no attribute {name!r}")


__all__ = sorted(_EXPORTS)
