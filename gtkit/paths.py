"""Where the data folders that ship beside the package live (families/, recipes/, templates/)."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
FAMILIES_DIR = REPO_ROOT / "families"
RECIPES_DIR = REPO_ROOT / "recipes"
TEMPLATES_DIR = REPO_ROOT / "templates"
FONTS_DIR = TEMPLATES_DIR / "fonts"
