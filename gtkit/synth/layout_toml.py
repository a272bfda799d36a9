"""layout.toml, read into typed models: page margins, fonts, chrome lines, rules, body band, display
formats, and the renderer's own section (`[columns]` or `[table]`).

All measures are PDF points with the origin at the top-left of the page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, StrictFloat, StrictInt, ValidationInfo, model_validator

from gtkit.typed import Strict, error_at, read_toml_as

Size = Annotated[float, Field(strict=True, gt=0)]
Points = Annotated[float, Field(strict=True, ge=0)]


def _marker_text(text: str) -> str:
    if not text.split():
        raise ValueError("must be a non-empty text (the continuation marker of a split record)")
    return text


class PageSection(Strict):
    """`[page]`: margins left, top, right, bottom; every word stays inside them."""

    margins: tuple[Points, Points, Points, Points] = (36.0, 36.0, 36.0, 36.0)


class ChromeLine(Strict):
    """One `[[chrome]]` line drawn on every page at `top`: `left`, `center` and/or `right` templates."""

    top: StrictFloat
    font: str = "regular"
    size: Size = 8.0
    leading: Size | None = None  # default 1.2 x size
    left: str | None = None
    center: str | None = None
    right: str | None = None

    @model_validator(mode="after")
    def _defaults(self) -> ChromeLine:
        self.leading = self.size * 1.2 if self.leading is None else self.leading
        return self


class Rule(Strict):
    """One `[[rule]]`: a horizontal line across the margin box at `y`."""

    y: StrictFloat
    width: Size = 0.5


class Body(Strict):
    """`[body]`: the band records are packed into (default: the margin box)."""

    top: StrictFloat | None = None
    bottom: StrictFloat | None = None


class Columns(Strict):
    """`[columns]`: blocks packed down `count` columns; `lines` are the block's lines, each a list of fields
    printed side by side. `continued` and `continued_font` serve `allow_split` (the continuation marker)."""

    count: StrictInt = Field(3, ge=1)
    gutter: Points = 12.0
    font: str = "regular"
    size: Size = 8.0
    leading: Size | None = None  # default 1.2 x size
    gap: Points | None = None  # between blocks; default the leading
    lines: list[Annotated[list[str], Field(min_length=1)]] = Field(min_length=1)
    continued: Annotated[str, AfterValidator(_marker_text)] | None = None  # default "(continued) {first field}"
    continued_font: str = "regular"

    @model_validator(mode="after")
    def _defaults(self) -> Columns:
        self.leading = self.size * 1.2 if self.leading is None else self.leading
        self.gap = self.leading if self.gap is None else self.gap
        return self


class TableColumn(Strict):
    """One column of `[table] columns`: the field it prints, its header title, width (relative, or points with
    `width_unit = "points"`), alignment."""

    field: str
    title: str | None = None  # default the field's name
    width: Size
    align: Literal["left", "right"] = "left"


class HeaderGroup(Strict):
    """One `[[table.groups]]`: a group title spanning `span` columns from the column of field `first`, printed
    in a row above the column titles (a two-level header)."""

    title: str
    first: str
    span: StrictInt = Field(ge=1)


class Table(Strict):
    """`[table]`: one row per record, the column header (with its `groups` above it) repeated on every page as
    chrome."""

    font: str = "regular"
    size: Size = 7.0
    leading: Size | None = None  # default 1.2 x size
    row_gap: Points = 2.0
    pad: Points = 2.0
    header_font: str | None = None  # default `font`
    header_size: Size | None = None  # default `size`
    header_leading: Size | None = None  # default 1.2 x header_size
    header_top: StrictFloat | None = None  # default the body top
    columns: list[TableColumn] = Field(min_length=1)
    width_unit: Literal["relative", "points"] = "relative"  # relative widths are scaled to fill the body
    groups: list[HeaderGroup] = []  # noqa: RUF012 - pydantic copies the default
    group_rule: Points = 0.5  # width of the line under a group title, across its columns (0: none)
    continued: Annotated[str, AfterValidator(_marker_text)] = "(continued)"  # opens a split row's next part

    @model_validator(mode="after")
    def _groups_fit(self) -> Table:
        fields = [c.field for c in self.columns]
        taken: set[int] = set()
        for i, g in enumerate(self.groups):
            if g.first not in fields:
                raise error_at(("groups", i, "first"), f"{g.first!r} is not the field of a column")
            start = fields.index(g.first)
            if start + g.span > len(fields):
                raise error_at(("groups", i, "span"), f"spans {g.span} columns from {g.first!r}, only "
                                                      f"{len(fields) - start} exist from there")
            cover = set(range(start, start + g.span))
            if cover & taken:
                raise error_at(("groups", i, "first"), "overlaps the columns of another group")
            taken |= cover
        return self

    @model_validator(mode="after")
    def _defaults(self) -> Table:
        self.leading = self.size * 1.2 if self.leading is None else self.leading
        self.header_font = self.font if self.header_font is None else self.header_font
        self.header_size = self.size if self.header_size is None else self.header_size
        self.header_leading = self.header_size * 1.2 if self.header_leading is None else self.header_leading
        return self


class Layout(Strict):
    """`layout.toml`. Validated with context {"renderer": the family's renderer}, whose section it must have.
    Fonts are file names under templates/fonts/, named by the keys of `[fonts]` (`regular` is required)."""

    page: PageSection = PageSection()
    fonts: dict[str, str]
    formats: dict[str, Literal["money", "int", "grouped"]] = {}  # noqa: RUF012 - pydantic copies the default
    chrome: list[ChromeLine] = []  # noqa: RUF012 - pydantic copies the default
    rule: list[Rule] = []  # noqa: RUF012 - pydantic copies the default
    body: Body = Body()
    columns: Columns | None = None
    table: Table | None = None

    def font_keys(self) -> list[tuple[tuple[str | int, ...], str]]:
        """(location, key of [fonts]) of every font the layout names."""
        out: list[tuple[tuple[str | int, ...], str]] = [(("chrome", i, "font"), c.font)
                                                         for i, c in enumerate(self.chrome)]
        if self.columns is not None:
            out += [(("columns", "font"), self.columns.font),
                    (("columns", "continued_font"), self.columns.continued_font)]
        if self.table is not None:
            out += [(("table", "font"), self.table.font), (("table", "header_font"), str(self.table.header_font))]
        return out

    @model_validator(mode="after")
    def _cross_checks(self, info: ValidationInfo) -> Layout:
        renderer = (info.context or {}).get("renderer")
        if renderer is not None and getattr(self, renderer) is None:
            raise error_at((renderer,), f"required key is missing (the section of renderer {renderer!r})")
        if "regular" not in self.fonts:
            raise error_at(("fonts", "regular"), "required key is missing (the default font)")
        for loc, key in self.font_keys():
            if key not in self.fonts:
                raise error_at(loc, f"{key!r} is not a key of [fonts]")
        return self


def read_layout(path: Path, renderer: str) -> Layout:
    return read_toml_as(Layout, path, context={"renderer": renderer})
