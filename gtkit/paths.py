"""Where gtkit finds its data folders: families/, recipes/, templates/ and examples/ (the example build plans).

In a checkout (or an editable install) they are the top-level folders of the repository; in an
installed wheel they ship inside the package as `gtkit/_data/<name>` (setup.py copies them there).
Users add their own families and recipes with the environment variables `GTKIT_FAMILIES_PATH` and
`GTKIT_RECIPES_PATH`: folders separated by the platform's path separator (':' on POSIX), searched
before the shipped folder, so a user's family or recipe of the same name wins.
"""

from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
_CHECKOUT = PACKAGE_DIR.parent


def shipped(name: str) -> Path:
    """The shipped data folder `name`: the repository's own when running from a checkout, else the package's."""
    checkout = _CHECKOUT / name
    if (_CHECKOUT / "pyproject.toml").is_file() and checkout.is_dir():
        return checkout
    return Path(str(files("gtkit").joinpath("_data", name)))


FAMILIES_DIR = shipped("families")
RECIPES_DIR = shipped("recipes")
TEMPLATES_DIR = shipped("templates")
EXAMPLES_DIR = shipped("examples")
FONTS_DIR = TEMPLATES_DIR / "fonts"
FAMILIES_ENV = "GTKIT_FAMILIES_PATH"
RECIPES_ENV = "GTKIT_RECIPES_PATH"


def search_path(env: str, builtin: Path) -> list[Path]:
    """The folders named in the environment variable `env` (in order), then the shipped folder."""
    extra = [Path(p) for p in os.environ.get(env, "").split(os.pathsep) if p.strip()]
    return [*extra, builtin]
