"""Measured layout and pagination: records become runs of text placed on pages.

Every record is laid out as a block whose height is measured with the font
metrics that draw it (`reportlab.pdfbase.pdfmetrics.stringWidth` through
`fonts.Measure`); blocks are packed into columns (renderer `columns`) or table
rows (renderer `table`) and pages by that measured size. A record is never split
across a column or page unless its family sets `allow_split = true` (renderer
`columns` only); a page ends only when the next record does not fit. Page chrome
(running header, caption, column headers, "Page x of y") is laid out on every page
and drawn before the page's records.

With `allow_split`, a block that does not fit in the rest of a column is cut
between two of its lines that share no field (never inside one field's wrapped
lines), as low as the column allows, and the rest continues at the top of the next
column (or page) under a continuation marker, "(continued) {name}" by default
(`[columns] continued`), printed in the regular font. The marker is chrome: it
belongs to the record's part for ordering and clipping, but it is no value and
never evidence. A column then ends early only when not even the next field fits.
The plan records every part (`Plan.parts`) and the page of every value
(`Item.page`), so the checks stay exact for split records.

The plan holds, in drawing order, every *item*: one value occurrence (a JSON
Pointer into `expected`) or one literal piece of chrome, with the characters it
prints. The read-back uses the items only for their text and order; where a value
sits on the page is taken from the PDF, never from the plan. The plan's regions
(the column or cell a value belongs to) serve the clipping check.

Coordinates here are PDF points with the origin at the top-left of the page;
`y` of a run is its baseline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NamedTuple

from pydantic import AfterValidator, Field, StrictFloat, StrictInt, ValidationInfo, model_validator

from gtkit.errors import GtkitError
from gtkit.schema import escape_token
from gtkit.synth.fonts import Measure, register
from gtkit.typed import Strict, error_at, read_toml_as

if TYPE_CHECKING:  # family.py loads layout.toml with the models below
    from gtkit.synth.family import Family

ASCENT = 0.8  # baseline sits this many font sizes below the top of the glyph box, centred in the leading


# --- layout.toml -----------------------------------------------------------------------------------------------------

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
    """One column of `[table] columns`: the field it prints, its header title, relative width, alignment."""

    field: str
    title: str | None = None  # default the field's name
    width: Size
    align: Literal["left", "right"] = "left"


class Table(Strict):
    """`[table]`: one row per record, the column header repeated on every page as chrome."""

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
    formats: dict[str, Literal["money", "int"]] = {}
    chrome: list[ChromeLine] = []
    rule: list[Rule] = []
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


class Run:
    """One string drawn at (x, baseline y) in one font."""

    __slots__ = ("x", "y", "font", "size", "text")

    def __init__(self, x: float, y: float, font: str, size: float, text: str):
        self.x, self.y, self.font, self.size, self.text = x, y, font, size, text


class Item:
    """One value occurrence (pointer set) or literal chrome (pointer None), in drawing order."""

    __slots__ = ("pointer", "chars", "text", "record", "region", "page")

    def __init__(self, pointer: str | None, text: str, record: int | None, region: tuple[float, float, float, float], page: int):
        self.pointer = pointer
        self.text = text
        self.chars = "".join(text.split())
        self.record = record
        self.region = region
        self.page = page  # 0-based, the plan's belief (checked against the PDF, never used as evidence)


@dataclass
class PagePlan:
    chrome_runs: list[Run] = field(default_factory=list)
    chrome_items: list[Item] = field(default_factory=list)
    body_runs: list[Run] = field(default_factory=list)
    rules: list[tuple[float, float, float, float, float]] = field(default_factory=list)  # x0, y0, x1, y1, width
    first_item: int = 0  # index into Plan.body_items
    end_item: int = 0
    header_runs: list[Run] = field(default_factory=list)  # a table's column header, drawn as chrome
    header_items: list[tuple[str, tuple[float, float, float, float]]] = field(default_factory=list)


class Part(NamedTuple):
    """One piece of a record's block in one column: the whole record, or a part of a split record."""

    record: int
    index: int  # 0 for the first part; a continuation (index > 0) starts with the marker
    page: int  # 0-based
    column: int
    region: tuple[float, float, float, float]  # the part's box, the marker included
    head: float  # height of its first field lines that cannot be cut (the marker excluded)


@dataclass
class Plan:
    page_size: tuple[float, float]
    content: tuple[float, float, float, float]  # the margin box every word must stay inside
    pages: list[PagePlan]
    body_items: list[Item]
    record_pages: list[int]  # page (0-based) of each record (of its first part, when it is split)
    record_heights: list[float]  # measured height of each record's block (points, gap and marker excluded)
    body_box: tuple[float, float, float, float]
    fonts: dict[str, str]
    parts: list[Part] = field(default_factory=list)  # renderer columns: every part, in drawing order
    split_records: frozenset[int] = frozenset()  # records drawn in more than one part


_PLACEHOLDER = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_]*)\}$")


def _fonts(layout: Layout) -> dict[str, str]:
    return {key: register(name) for key, name in layout.fonts.items()}


def _leaf_text(family: Family, field_name: str, value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise GtkitError(f"field {field_name!r} is a boolean: checkbox rendering is not available in synth yet")
    if isinstance(value, (list, dict)):
        raise GtkitError(f"field {field_name!r} holds a {type(value).__name__}: synth layouts print scalars only")
    text = " ".join(family.display(field_name, value).split())
    return text or None


class _Wrapper:
    """Wraps owned segments into lines of runs, measuring with one font."""

    def __init__(self, font: str, size: float):
        self.font, self.size = font, size
        self.m = Measure(font, size)

    def lines(self, segments: list[tuple[str | None, str]], width: float) -> list[list[tuple[str | None, str, float]]]:
        """[(owner, text)] -> lines of (owner, run text, x offset)."""
        m = self.m
        if len(segments) == 1 and m(segments[0][1]) <= width:
            return [[(segments[0][0], segments[0][1], 0.0)]]
        tokens: list[tuple[str, str | None]] = []
        for owner, text in segments:
            for tok in text.split():
                if m(tok) <= width:
                    tokens.append((tok, owner))
                    continue
                piece = ""
                for ch in tok:  # a token wider than the line is broken between characters
                    if piece and m(piece + ch) > width:
                        tokens.append((piece, owner))
                        piece = ""
                    piece += ch
                tokens.append((piece, owner))
        space = m.space
        out: list[list[tuple[str | None, str, float]]] = []
        line: list[tuple[str | None, list[str], float]] = []  # owner, tokens, x offset
        used = 0.0
        for tok, owner in tokens:
            w = m(tok)
            if line and used + space + w > width:
                out.append([(o, " ".join(t), x) for o, t, x in line])
                line, used = [], 0.0
            if not line:
                line.append((owner, [tok], 0.0))
                used = w
            elif line[-1][0] == owner:
                line[-1][1].append(tok)
                used += space + w
            else:
                line.append((owner, [tok], used + space))
                used += space + w
        if line:
            out.append([(o, " ".join(t), x) for o, t, x in line])
        return out


def _template_segments(template: str, context: dict[str, Any], family: Family, page: int, pages: int, where: str):
    """A chrome template as [(pointer or None, text)]: placeholders stand alone between spaces."""
    segments: list[tuple[str | None, str]] = []
    literal: list[str] = []
    for tok in template.split():
        m = _PLACEHOLDER.match(tok)
        if m is None:
            if "{" in tok or "}" in tok:
                raise GtkitError(f"{where}: a placeholder must stand alone between spaces, got {tok!r}")
            literal.append(tok)
            continue
        name = m.group(1)
        if name == "page":
            literal.append(str(page + 1))
            continue
        if name == "pages":
            literal.append(str(pages))
            continue
        if literal:
            segments.append((None, " ".join(literal)))
            literal = []
        if name not in family.schema.get("properties", {}) or name == family.records_field:
            raise GtkitError(f"{where}: placeholder {{{name}}} is not a document-level field of the schema")
        text = _leaf_text(family, name, context.get(name))
        if text is not None:
            segments.append(("/" + escape_token(name), text))
    if literal:
        segments.append((None, " ".join(literal)))
    return segments


def _chrome(family: Family, context: dict[str, Any], fonts: dict[str, str], page: int, pages: int,
            content: tuple[float, float, float, float], pp: PagePlan) -> None:
    left, _, right, _ = content
    for i, spec in enumerate(family.layout.chrome):
        font, size, leading, top = fonts[spec.font], spec.size, spec.leading, spec.top
        baseline = top + (leading - size) / 2 + ASCENT * size
        w = _Wrapper(font, size)
        for align in ("left", "center", "right"):
            template = getattr(spec, align)
            if not template:
                continue
            segs = _template_segments(template, context, family, page, pages, f"layout.toml chrome {i + 1}")
            if not segs:
                continue
            widths = [w.m(t) for _, t in segs]
            total = sum(widths) + w.m.space * (len(segs) - 1)
            if total > right - left:
                raise GtkitError(f"chrome line {i + 1} is {total:.0f} pt wide, the page has {right - left:.0f} pt")
            x = left if align == "left" else right - total if align == "right" else (left + right - total) / 2
            for (ptr, text), wd in zip(segs, widths):
                pp.chrome_runs.append(Run(x, baseline, font, size, text))
                pp.chrome_items.append(Item(ptr, text, None, (x, top, x + wd, top + leading), page))
                x += wd + w.m.space
    for rule in family.layout.rule:
        pp.rules.append((left, rule.y, right, rule.y, rule.width))


def _geometry(family: Family) -> tuple[tuple[float, float, float, float], tuple[float, float, float, float]]:
    width, height = family.page_size
    ml, mt, mr, mb = family.layout.page.margins
    content = (ml, mt, width - mr, height - mb)
    body = family.layout.body
    top = mt if body.top is None else body.top
    body_box = (ml, top, width - mr, height - mb if body.bottom is None else body.bottom)
    if not (content[1] <= body_box[1] < body_box[3] <= content[3]):
        raise GtkitError("layout.toml [body] top/bottom must lie inside the page margins")
    return content, body_box


def plan_document(family: Family, expected: dict[str, Any]) -> Plan:
    """Lay out `expected` (context fields plus records) on pages, by measurement."""
    fonts = _fonts(family.layout)
    content, body_box = _geometry(family)
    records = expected.get(family.records_field) or []
    context = {k: v for k, v in expected.items() if k != family.records_field}
    parts: list[Part] = []
    if family.renderer == "columns":
        pages, items, rec_pages, heights, parts = _columns(family, records, fonts, body_box)
    else:
        pages, items, rec_pages, heights = _table(family, records, fonts, body_box)
    total = len(pages)
    for p, pp in enumerate(pages):
        chrome = PagePlan()
        _chrome(family, context, fonts, p, total, content, chrome)
        pp.chrome_runs, pp.chrome_items = chrome.chrome_runs, chrome.chrome_items
        pp.rules = chrome.rules + pp.rules
    split = frozenset(p.record for p in parts if p.index > 0)
    return Plan(family.page_size, content, pages, items, rec_pages, heights, body_box, fonts, parts, split)


def _record_pointer(family: Family, index: int, name: str) -> str:
    return f"/{escape_token(family.records_field)}/{index}/{escape_token(name)}"


def _marker_template(family: Family, spec: Columns) -> list[tuple[bool, str]]:
    """`[columns] continued` as [(is_field, text)]: a placeholder names a record field and stands alone."""
    template = spec.continued or "(continued) {" + spec.lines[0][0] + "}"
    where = "layout.toml [columns] continued"
    fields = family.record_schema.get("properties", {})
    out: list[tuple[bool, str]] = []
    for tok in template.split():
        m = _PLACEHOLDER.match(tok)
        if m is None:
            if "{" in tok or "}" in tok:
                raise GtkitError(f"{where}: a placeholder must stand alone between spaces, got {tok!r}")
            out.append((False, tok))
        elif m.group(1) not in fields:
            raise GtkitError(f"{where}: placeholder {{{m.group(1)}}} is not a field of the records")
        else:
            out.append((True, m.group(1)))
    return out


def _columns(family: Family, records: list[dict[str, Any]], fonts: dict[str, str], body_box):
    spec = family.layout.columns
    assert spec is not None  # the family's renderer section (Layout checks it is there)
    n_cols, gutter, font = spec.count, spec.gutter, fonts[spec.font]
    size, leading, gap = spec.size, spec.leading, spec.gap
    line_specs = spec.lines
    x0, top, x1, bottom = body_box
    col_w = (x1 - x0 - gutter * (n_cols - 1)) / n_cols
    wrapper = _Wrapper(font, size)
    pad = (leading - size) / 2 + ASCENT * size
    allow_split = family.allow_split
    marker, mfont, mwrapper = [], font, wrapper
    if allow_split:
        marker = _marker_template(family, spec)
        mfont = fonts[spec.continued_font]
        mwrapper = _Wrapper(mfont, size)

    pages: list[PagePlan] = [PagePlan()]
    items: list[Item] = []
    rec_pages: list[int] = []
    heights: list[float] = []
    parts: list[Part] = []
    col, y = 0, top

    def next_column() -> None:
        nonlocal col, y
        col += 1
        y = top
        if col == n_cols:
            col = 0
            pages[-1].end_item = len(items)
            pages.append(PagePlan(first_item=len(items)))

    def draw(r: int, mark: list, lines: list[list[tuple[str | None, str, float]]], index: int, head: float) -> None:
        """Draw one part of record r (marker lines, then block lines) at the top of what is left of the column."""
        page = len(pages) - 1
        cx = x0 + col * (col_w + gutter)
        region = (cx, y, cx + col_w, y + (len(mark) + len(lines)) * leading)
        pp = pages[-1]
        last_ptr: object = _NOTHING
        for li, line in enumerate(mark + lines if mark else lines):
            base = y + li * leading + pad
            lfont = mfont if li < len(mark) else font
            for ptr, text, off in line:
                pp.body_runs.append(Run(cx + off, base, lfont, size, text))
                if ptr == last_ptr:
                    it = items[-1]
                    it.text += " " + text
                    it.chars += "".join(text.split())
                else:
                    items.append(Item(ptr, text, r, region, page))
                    last_ptr = ptr
        parts.append(Part(r, index, page, col, region, head))

    for r, rec in enumerate(records):
        block: list[list[tuple[str | None, str, float]]] = []
        for names in line_specs:
            segs = []
            for name in names:
                text = _leaf_text(family, name, rec.get(name))
                if text is not None:
                    segs.append((_record_pointer(family, r, name), text))
            if segs:
                block.extend(wrapper.lines(segs, col_w))
        n = len(block)
        h = n * leading
        if h > bottom - top:
            raise GtkitError(f"record {r} needs {h:.0f} pt, more than a whole column ({bottom - top:.0f} pt)")
        rec_pages.append(-1)
        heights.append(h)
        # the lines after which the block may be cut: the two lines share no field
        cuts = [n]
        if allow_split:
            cuts = [k for k in range(1, n) if not {o for o, _, _ in block[k - 1]} & {o for o, _, _ in block[k]}] + [n]
        start, index = 0, 0
        while True:
            head = ((next(k for k in cuts if k > start) if start else cuts[0]) - start) * leading
            mark: list[list[tuple[str | None, str, float]]] = []
            if index:
                words = [_leaf_text(family, v, rec.get(v)) if is_field else v for is_field, v in marker]
                mark = mwrapper.lines([(None, " ".join(w for w in words if w) or "(continued)")], col_w)
            if (index == 0 and y == top) or y + (len(mark) + n - start) * leading <= bottom:  # the rest fits
                if index == 0:
                    rec_pages[r] = len(pages) - 1
                draw(r, mark, block[start:] if start else block, index, head)
                y += (len(mark) + n - start) * leading + gap
                break
            fit = [k for k in cuts[:-1] if k > start and y + (len(mark) + k - start) * leading <= bottom]
            if fit:  # cut as low as the column allows; the rest goes on in the next column
                k = fit[-1]
                if index == 0:
                    rec_pages[r] = len(pages) - 1
                draw(r, mark, block[start:k], index, head)
                start, index = k, index + 1
            elif y == top:
                raise GtkitError(f"record {r} cannot be cut between two fields to fit a column ({bottom - top:.0f} pt)")
            next_column()
    pages[-1].end_item = len(items)
    return pages, items, rec_pages, heights, parts


_NOTHING = object()


def _table_header(family: Family, fonts: dict[str, str], body_box):
    """A table's column edges (points) and its column header block, the same on every page (drawn as chrome):
    (edges, header runs, header items, header bottom)."""
    spec = family.layout.table
    assert spec is not None  # the family's renderer section (Layout checks it is there)
    pad_x = spec.pad
    hfont, hsize, hleading = fonts[spec.header_font], spec.header_size, spec.header_leading
    header_top = body_box[1] if spec.header_top is None else spec.header_top
    x0, top, x1, _ = body_box
    cols = spec.columns
    scale = (x1 - x0) / sum(c.width for c in cols)
    edges = [x0]
    for c in cols:
        edges.append(edges[-1] + c.width * scale)
    hwrapper = _Wrapper(hfont, hsize)
    hpad = (hleading - hsize) / 2 + ASCENT * hsize
    header_runs: list[Run] = []
    header_items: list[tuple[str, tuple[float, float, float, float]]] = []
    header_lines = 0
    for c, spec_c in enumerate(cols):
        cx0, cx1 = edges[c] + pad_x, edges[c + 1] - pad_x
        lines = hwrapper.lines([(None, spec_c.field if spec_c.title is None else spec_c.title)], cx1 - cx0)
        header_lines = max(header_lines, len(lines))
        for li, line in enumerate(lines):
            for _, text, off in line:
                lw = hwrapper.m(text)
                x = cx1 - lw if spec_c.align == "right" else cx0 + off
                header_runs.append(Run(x, header_top + li * hleading + hpad, hfont, hsize, text))
                header_items.append((text, (cx0, header_top, cx1, header_top + len(lines) * hleading)))
    header_bottom = header_top + header_lines * hleading
    if header_bottom > top:
        raise GtkitError(f"the column header ends at {header_bottom:.0f} pt, below the body top {top:.0f} pt")
    return edges, header_runs, header_items, header_bottom


def _table(family: Family, records: list[dict[str, Any]], fonts: dict[str, str], body_box):
    spec = family.layout.table
    assert spec is not None  # the family's renderer section (Layout checks it is there)
    font, size, leading, row_gap, pad_x = fonts[spec.font], spec.size, spec.leading, spec.row_gap, spec.pad
    x0, top, x1, bottom = body_box
    cols = spec.columns
    edges, header_runs, header_items, header_bottom = _table_header(family, fonts, body_box)
    wrapper = _Wrapper(font, size)
    pad = (leading - size) / 2 + ASCENT * size

    def new_page(first: int) -> PagePlan:
        pp = PagePlan(first_item=first)
        pp.rules.append((x0, header_bottom + 1.0, x1, header_bottom + 1.0, 0.6))
        pp.header_runs = header_runs
        pp.header_items = header_items
        return pp

    pages: list[PagePlan] = [new_page(0)]
    items: list[Item] = []
    rec_pages: list[int] = []
    heights: list[float] = []
    y = top
    for r, rec in enumerate(records):
        cells = []
        n_lines = 1
        for c, spec_c in enumerate(cols):
            name = spec_c.field
            text = _leaf_text(family, name, rec.get(name))
            if text is None:
                cells.append(None)
                continue
            cx0, cx1 = edges[c] + pad_x, edges[c + 1] - pad_x
            lines = wrapper.lines([(_record_pointer(family, r, name), text)], cx1 - cx0)
            cells.append(lines)
            n_lines = max(n_lines, len(lines))
        h = n_lines * leading
        if h > bottom - top:
            raise GtkitError(f"record {r} needs {h:.0f} pt, more than a whole page body ({bottom - top:.0f} pt)")
        if y + h > bottom:
            pages[-1].end_item = len(items)
            pages.append(new_page(len(items)))
            y = top
        page = len(pages) - 1
        pp = pages[-1]
        for c, lines in enumerate(cells):
            if lines is None:
                continue
            cx0, cx1 = edges[c] + pad_x, edges[c + 1] - pad_x
            right = cols[c].align == "right"
            region = (edges[c], y, edges[c + 1], y + h)
            ptr = lines[0][0][0]
            texts = []
            for li, line in enumerate(lines):
                for _, text, off in line:
                    x = cx1 - wrapper.m(text) if right else cx0 + off
                    pp.body_runs.append(Run(x, y + li * leading + pad, font, size, text))
                    texts.append(text)
            items.append(Item(ptr, " ".join(texts), r, region, page))
        rec_pages.append(page)
        heights.append(h)
        y += h + row_gap
    pages[-1].end_item = len(items)
    return pages, items, rec_pages, heights


def chrome_and_header(pp: PagePlan, page: int) -> tuple[list[Run], list[Item]]:
    """All chrome of a page in drawing order: caption/footer lines, then the table's column header."""
    runs = pp.chrome_runs + pp.header_runs
    items = pp.chrome_items + [Item(None, text, None, region, page) for text, region in pp.header_items]
    return runs, items


def page_chrome(family: Family, expected: dict[str, Any], pages: int) -> list[list[Item]]:
    """The chrome items of every page of a `pages`-page document (running lines, then a table's column header),
    as `plan_document` lays them out, without laying out the records."""
    fonts = _fonts(family.layout)
    content, body_box = _geometry(family)
    context = {k: v for k, v in expected.items() if k != family.records_field}
    header = _table_header(family, fonts, body_box)[2] if family.renderer == "table" else []
    out = []
    for p in range(pages):
        pp = PagePlan(header_items=header)
        _chrome(family, context, fonts, p, pages, content, pp)
        out.append(chrome_and_header(pp, p)[1])
    return out


def body_columns(family: Family) -> tuple[list[tuple[float, float]], tuple[float, float, float, float]]:
    """The body's columns as (left, right) in points, and the body box: a table's columns, in the order of
    `[table] columns`, or the columns records are packed into (renderer `columns`)."""
    content, body_box = _geometry(family)
    x0, _, x1, _ = body_box
    if family.renderer == "table":
        edges = _table_header(family, _fonts(family.layout), body_box)[0]
        return list(zip(edges[:-1], edges[1:])), body_box
    spec = family.layout.columns
    assert spec is not None
    col_w = (x1 - x0 - spec.gutter * (spec.count - 1)) / spec.count
    return [(x0 + c * (col_w + spec.gutter), x0 + c * (col_w + spec.gutter) + col_w) for c in range(spec.count)], body_box


def drawing_order(family: Family) -> list[str]:
    """A record's fields in the order they are drawn: a table's columns, or a columns block's lines."""
    if family.renderer == "table":
        assert family.layout.table is not None
        return [c.field for c in family.layout.table.columns]
    assert family.layout.columns is not None
    return [name for line in family.layout.columns.lines for name in line]
