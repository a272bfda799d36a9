"""The family registry: one folder per family under families/, found by scanning.

A family folder holds:

- `family.toml`: name, description, tags on the five axes, renderer, page size and
  orientation, default record count, the schema property that holds the records,
  and `allow_split` (renderer `columns` only: a record block may be cut between two
  fields' lines, its continuation marked);
- `schema.json`: the task's JSON Schema (a description on every field);
- `generator.py`: `generate_records(rng, n)` and optionally `generate_context(rng)`
  (the document-level values such as a case number), drawing only from `rng`;
- `layout.toml`: the template: fonts, page chrome, body geometry, and the
  renderer's own section (`[columns]` or `[table]`), plus display formats.

Adding a family means adding a folder: nothing in the code lists them.
"""

from __future__ import annotations

import importlib.util
import re

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

from gtkit.errors import GtkitError
from gtkit.fileio import read_json, read_toml
from gtkit.paths import FAMILIES_DIR
from gtkit.schema import check_schema, compile_schema

RENDERERS = ("columns", "table")
PAGE_SIZES = {"letter": (612.0, 792.0), "legal": (612.0, 1008.0), "a4": (595.2756, 841.8898)}
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass
class Family:
    name: str
    description: str
    folder: Path
    renderer: str
    page_size: tuple[float, float]
    default_records: int
    records_field: str
    schema: dict[str, Any]
    schema_version: str
    tags: dict[str, Any]
    layout: dict[str, Any]
    allow_split: bool = False
    _module: ModuleType | None = field(default=None, repr=False)

    @property
    def module(self) -> ModuleType:
        if self._module is None:
            path = self.folder / "generator.py"
            spec = importlib.util.spec_from_file_location(f"gtkit_family_{self.name}", path)
            if spec is None or spec.loader is None:
                raise GtkitError("cannot load the family's generator", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            if not hasattr(module, "generate_records"):
                raise GtkitError("generator.py must define generate_records(rng, n)", path)
            self._module = module
        return self._module

    @property
    def record_schema(self) -> dict[str, Any]:
        return self.schema["properties"][self.records_field]["items"]

    @property
    def formats(self) -> dict[str, str]:
        return dict(self.layout.get("formats", {}))

    def display(self, field_name: str, value: Any) -> str:
        """The text a value is printed as (strings as they are; numbers by the layout's format)."""
        return display(self.formats.get(field_name), value)


def display(fmt: str | None, value: Any) -> str:
    if fmt == "money" and isinstance(value, (int, float)):
        return f"${value:,.2f}"
    if fmt == "int" and isinstance(value, (int, float)):
        return str(int(value))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _load(folder: Path) -> Family:
    toml_path = folder / "family.toml"
    meta = read_toml(toml_path)
    name = meta.get("name")
    if name != folder.name or not isinstance(name, str) or not _NAME.match(name):
        raise GtkitError(f"name {name!r} must equal the folder name {folder.name!r}", toml_path)
    renderer = meta.get("renderer")
    if renderer not in RENDERERS:
        raise GtkitError(f"unknown renderer {renderer!r} (known: {', '.join(RENDERERS)})", toml_path)
    page = meta.get("page", {})
    size = PAGE_SIZES.get(str(page.get("size", "letter")).lower())
    if size is None:
        raise GtkitError(f"unknown page size {page.get('size')!r} (known: {', '.join(PAGE_SIZES)})", toml_path)
    orientation = page.get("orientation", "portrait")
    if orientation not in ("portrait", "landscape"):
        raise GtkitError(f"orientation must be portrait or landscape, not {orientation!r}", toml_path)
    if orientation == "landscape":
        size = (size[1], size[0])
    allow_split = meta.get("allow_split", False)
    if not isinstance(allow_split, bool):
        raise GtkitError(f"allow_split must be true or false, not {allow_split!r}", toml_path)
    if allow_split and renderer != "columns":
        raise GtkitError(f"allow_split = true needs renderer 'columns' (a {renderer} row is one line, never split)", toml_path)
    schema_path = folder / "schema.json"
    schema = check_schema(read_json(schema_path), schema_path)
    records_field = meta.get("records_field")
    root = compile_schema(schema)
    if root.kind != "object" or records_field not in root.props or root.props[records_field].kind != "records":
        raise GtkitError(f"records_field {records_field!r} must name an array of objects in schema.json", toml_path)
    layout_path = folder / "layout.toml"
    layout = read_toml(layout_path)
    if renderer not in layout:
        raise GtkitError(f"layout.toml needs a [{renderer}] section for renderer {renderer!r}", layout_path)
    default_records = meta.get("default_records")
    if not isinstance(default_records, int) or default_records <= 0:
        raise GtkitError("default_records must be a positive integer", toml_path)
    return Family(
        name=name,
        description=str(meta.get("description", "")),
        folder=folder,
        renderer=renderer,
        page_size=size,
        default_records=default_records,
        records_field=records_field,
        schema=schema,
        schema_version=str(meta.get("schema_version", "1.0.0")),
        tags=dict(meta.get("tags", {})),
        layout=layout,
        allow_split=allow_split,
    )


def family_names(root: Path | None = None) -> list[str]:
    root = Path(root or FAMILIES_DIR)
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / "family.toml").is_file())


@lru_cache(maxsize=None)
def _cached(folder: str) -> Family:
    return _load(Path(folder))


def get_family(name: str, root: Path | None = None) -> Family:
    names = family_names(root)
    if name not in names:
        known = ", ".join(names) or "none"
        raise GtkitError(f"unknown family {name!r} (known: {known})")
    return _cached(str(Path(root or FAMILIES_DIR) / name))


def all_families(root: Path | None = None) -> list[Family]:
    return [get_family(n, root) for n in family_names(root)]
