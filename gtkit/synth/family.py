"""The family registry: one folder per family under families/, found by scanning.

A family folder holds:

- `family.toml`: name, description, tags on the five axes, renderer, page size,
  orientation and rotation, default record count, the schema property that holds
  the records, and `allow_split` (renderers `columns` and `table`: a record block
  may be cut between two fields' lines, a table row between its cells, the
  continuation marked);
- `schema.json`: the task's JSON Schema (a description on every field);
- `generator.py`: `generate_records(rng, n)` and optionally `generate_context(rng)`
  (the document-level values such as a case number), drawing only from `rng`;
- `layout.toml` (renderers `columns` and `table`): the template: fonts, page chrome,
  body geometry, and the renderer's own section (`[columns]` or `[table]`), plus
  display formats;
- renderer `template`: a jinja2 HTML template and its CSS (named in family.toml's
  `[template]` section, with the display formats), rendered by weasyprint; shared
  pieces live in the top-level templates/ folder (see `gtkit.synth.template`);
- `[pdf]` in family.toml (optional): what the family's real documents say in their PDF info
  dictionary, producer, creator, title made from the document's values, creation date taken from
  them (`gtkit.synth.pdfinfo`).

Adding a family means adding a folder: nothing in the code lists them.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from pydantic import Field, StrictBool, StrictInt, ValidationInfo, field_validator, model_validator

from gtkit.errors import GtkitError
from gtkit.files.read import read_json
from gtkit.paths import FAMILIES_DIR, FAMILIES_ENV, search_path
from gtkit.schema import check_schema, compile_schema
from gtkit.synth.layout_toml import Layout, read_layout
from gtkit.synth.pdfinfo import DocInfo, PdfSection, doc_info
from gtkit.typed import Strict, error_at, read_toml_as

PAGE_SIZES = {"letter": (612.0, 792.0), "legal": (612.0, 1008.0), "a4": (595.2756, 841.8898)}
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class PageSpec(Strict):
    """`[page]`: the paper size (any case), the orientation of the content, and `rotate`: 90 or 270 prints
    landscape content sideways on a portrait sheet whose /Rotate turns it upright in a viewer."""

    size: str = "letter"
    orientation: Literal["portrait", "landscape"] = "portrait"
    rotate: Literal[0, 90, 270] = 0

    @model_validator(mode="after")
    def _rotate_landscape(self) -> PageSpec:
        if self.rotate and self.orientation != "landscape":
            raise error_at(("rotate",), f"{self.rotate} needs orientation 'landscape' (landscape content on a "
                                        "portrait sheet, turned by the viewer)")
        return self

    @field_validator("size")
    @classmethod
    def _known_size(cls, size: str) -> str:
        if size.lower() not in PAGE_SIZES:
            raise ValueError(f"unknown page size {size!r} (known: {', '.join(PAGE_SIZES)})")
        return size.lower()

    def points(self) -> tuple[float, float]:
        width, height = PAGE_SIZES[self.size]
        return (height, width) if self.orientation == "landscape" else (width, height)


class FamilyTags(Strict):
    """`[tags]` on the five axes (length is measured per document, never declared)."""

    task: list[str] = []  # noqa: RUF012 - pydantic copies the default
    perception: list[str] = []  # noqa: RUF012 - pydantic copies the default
    structure: list[str] = []  # noqa: RUF012 - pydantic copies the default
    domain: str | None = None
    grounding: list[str] = []  # noqa: RUF012 - pydantic copies the default


class TemplateSection(Strict):
    """`[template]` (renderer `template`): the jinja2 HTML file and the CSS files (in the family's folder or
    templates/), the display formats of fields by name, how a null checkbox is drawn, and the family's
    layout options (scalars the template reads as `options`, e.g. which pivot a table is drawn in)."""

    html: str = "template.html"
    css: list[str] = ["style.css"]  # noqa: RUF012 - pydantic copies the default
    formats: dict[str, Literal["money", "int"]] = {}  # noqa: RUF012 - pydantic copies the default
    null_checkbox: Literal["absent", "na"] = "absent"
    # layout choices, the template's `options`
    options: dict[str, StrictBool | StrictInt | float | str] = {}  # noqa: RUF012 - pydantic copies the default


class FamilyToml(Strict):
    """`family.toml`. Validated with context {"folder": name of the family's folder}."""

    name: str
    description: str = ""
    renderer: Literal["columns", "table", "template"]
    page: PageSpec = PageSpec()
    default_records: StrictInt = Field(gt=0)
    records_field: str
    schema_version: str = "1.0.0"
    allow_split: StrictBool = False
    tags: FamilyTags = FamilyTags()
    template: TemplateSection | None = None
    pdf: PdfSection | None = None

    @field_validator("name")
    @classmethod
    def _folder_name(cls, name: str, info: ValidationInfo) -> str:
        folder = (info.context or {}).get("folder")
        if not _NAME.match(name) or name != folder:
            raise ValueError(f"name {name!r} must equal the folder name {folder!r} (lowercase letters, digits, _)")
        return name

    @model_validator(mode="after")
    def _split_needs_columns(self) -> FamilyToml:
        if self.allow_split and self.renderer == "template":
            raise error_at(("allow_split",), "true needs renderer 'columns' or 'table' (the template's CSS decides "
                                             "where a block breaks)")
        if self.renderer == "template" and self.template is None:
            self.template = TemplateSection()
        if self.page.rotate and self.renderer == "template":
            raise error_at(("page", "rotate"), "needs renderer 'columns' or 'table' (a template's pages are laid out "
                                               "by its CSS)")
        if self.template is not None and self.renderer != "template":
            raise error_at(("template",), f"needs renderer 'template' (this family's renderer is {self.renderer!r})")
        return self


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
    layout: Layout | None  # None for renderer template
    allow_split: bool = False
    rotate: int = 0  # the pages' /Rotate: page_size is the page as a viewer shows it
    template: TemplateSection | None = None
    pdf: PdfSection | None = None  # what the PDF's info dictionary says (`gtkit.synth.pdfinfo`)
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

    def display(self, field_name: str, value: Any) -> str:
        """The text a value is printed as (strings as they are; numbers by the layout's format)."""
        return display(self.formats.get(field_name), value)

    @property
    def required_layout(self) -> Layout:
        """`layout.toml`, which every family of renderer `columns` or `table` has (a template family has none)."""
        assert self.layout is not None, f"family {self.name!r} (renderer {self.renderer}) has no layout.toml"
        return self.layout

    def info(self, expected: dict[str, Any]) -> DocInfo:
        """The PDF info dictionary of the document whose values are `expected` (family.toml `[pdf]`)."""
        return doc_info(self.pdf, expected, self.records_field, self.display)

    @property
    def formats(self) -> dict[str, str]:
        if self.template is not None:
            return dict(self.template.formats)
        assert self.layout is not None
        return dict(self.layout.formats)


def display(fmt: str | None, value: Any) -> str:
    if fmt == "money" and isinstance(value, (int, float)):
        return f"${value:,.2f}"
    if fmt == "int" and isinstance(value, (int, float)):
        return str(int(value))
    if fmt == "grouped" and isinstance(value, (int, float)):  # whole numbers with thousands separators
        return f"{int(value):,}"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _load(folder: Path) -> Family:
    toml_path = folder / "family.toml"
    meta = read_toml_as(FamilyToml, toml_path, context={"folder": folder.name})
    schema_path = folder / "schema.json"
    schema = check_schema(read_json(schema_path), schema_path)
    root = compile_schema(schema)
    records = root.props.get(meta.records_field) if root.kind == "object" else None
    if records is None or records.kind != "records":
        raise GtkitError(f"/records_field: {meta.records_field!r} must name an array of objects in schema.json",
                         toml_path)
    wrong = meta.pdf.check_fields(schema.get("properties", {}), meta.records_field) if meta.pdf else None
    if wrong:
        raise GtkitError(wrong, toml_path)
    return Family(
        name=meta.name,
        description=meta.description,
        folder=folder,
        renderer=meta.renderer,
        page_size=meta.page.points(),
        default_records=meta.default_records,
        records_field=meta.records_field,
        schema=schema,
        schema_version=meta.schema_version,
        tags=meta.tags.model_dump(),
        layout=None if meta.renderer == "template" else read_layout(folder / "layout.toml", meta.renderer),
        allow_split=meta.allow_split,
        rotate=meta.page.rotate,
        template=meta.template,
        pdf=meta.pdf,
    )


def family_folders(root: Path | None = None) -> dict[str, Path]:
    """Family name -> folder: under `root`, or along `GTKIT_FAMILIES_PATH` then the shipped families (the first
    folder of a name wins, so a user's family can stand in for a shipped one)."""
    found: dict[str, Path] = {}
    for folder in [Path(root)] if root else search_path(FAMILIES_ENV, FAMILIES_DIR):
        if folder.is_dir():
            for p in sorted(folder.iterdir()):
                if (p / "family.toml").is_file():
                    found.setdefault(p.name, p)
    return found


def family_names(root: Path | None = None) -> list[str]:
    return sorted(family_folders(root))


@cache
def _cached(folder: str) -> Family:
    return _load(Path(folder))


def _registry(root: Path | None) -> dict[str, Path]:
    folders = family_folders(root)
    if not folders:
        where = [str(root)] if root else [str(p) for p in search_path(FAMILIES_ENV, FAMILIES_DIR)]
        raise GtkitError(f"no synth families found (looked in {', '.join(where)})")
    return folders


def get_family(name: str, root: Path | None = None) -> Family:
    folders = _registry(root)
    if name not in folders:
        raise GtkitError(f"unknown family {name!r} (known: {', '.join(sorted(folders))})")
    return _cached(str(folders[name]))


def all_families(root: Path | None = None) -> list[Family]:
    return [get_family(n, root) for n in sorted(_registry(root))]
