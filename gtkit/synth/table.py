"""Renderer `table`: one row per record, a column per field, the column header repeated on every page.

Column widths are relative and scaled to fill the body (or points, `width_unit = "points"`). The
header may have two levels: group titles (`[[table.groups]]`) each spanning some adjacent columns,
with a rule under it across them, over the column titles; both levels are chrome, drawn on every
page. A row is as tall as its longest wrapped cell; a page ends when the next row does not fit.

With the family's `allow_split`, a row too tall for the rest of a page is split: the cells that fit
in the rest of the page are drawn there, and the others continue at the top of the next page, in
their own columns, under a continuation line (`[table] continued`, "(continued)"). A cell (a value)
is never cut, so every value is whole on one page; the continuation line is chrome that belongs to
the record (no value, never evidence). A row is not split at the top of a page, nor when none of its
cells fits in the rest of the page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gtkit.errors import GtkitError
from gtkit.synth.plan import ASCENT, Item, PagePlan, Part, Run
from gtkit.synth.text import Wrapper, leaf_text, record_pointer

if TYPE_CHECKING:
    from gtkit.synth.family import Family

Box = tuple[float, float, float, float]
Cell = list[list[tuple[str | None, str, float]]]  # a cell's wrapped lines of (owner, run text, x offset)


class TablePacker:
    """Lays records out as table rows on pages; `pack` returns the plan's pieces."""

    def __init__(self, family: Family, fonts: dict[str, str], body_box: Box):
        spec = family.required_layout.table
        assert spec is not None  # the family's renderer section (Layout checks it is there)
        # filled in by Table's validation (the defaults of the leadings and of the header's font and size)
        assert spec.leading is not None and spec.header_font is not None
        assert spec.header_size is not None and spec.header_leading is not None
        self.family, self.spec, self.cols = family, spec, spec.columns
        self.font, self.size, self.leading = fonts[spec.font], spec.size, spec.leading
        self.hfont, self.hsize, self.hleading = fonts[spec.header_font], spec.header_size, spec.header_leading
        self.x0, self.top, self.x1, self.bottom = body_box
        self.header_top = self.top if spec.header_top is None else spec.header_top
        self.where = family.folder / "layout.toml"
        self.edges = self._edges()
        self.wrapper = Wrapper(self.font, self.size)
        self.hwrapper = Wrapper(self.hfont, self.hsize)
        self.pad = (self.leading - self.size) / 2 + ASCENT * self.size
        self.hpad = (self.hleading - self.hsize) / 2 + ASCENT * self.hsize
        self.header_runs: list[Run] = []
        self.header_items: list[tuple[str, Box]] = []
        self.group_rules: list[tuple[float, float, float, float, float]] = []  # under each group title
        self.header_bottom = self._lay_header()
        self.pages: list[PagePlan] = [self._new_page(0)]
        self.items: list[Item] = []
        self.rec_pages: list[int] = []
        self.heights: list[float] = []
        self.parts: list[Part] = []
        self.y = self.top

    def _edges(self) -> list[float]:
        """The x of every column boundary, left to right; points widths must fit in the body."""
        edges = [self.x0]
        if self.spec.width_unit == "relative":
            scale = (self.x1 - self.x0) / sum(c.width for c in self.cols)
            for col in self.cols:
                edges.append(edges[-1] + col.width * scale)
            return edges
        body = self.x1 - self.x0
        for c, col in enumerate(self.cols):
            if col.width > body:
                raise GtkitError(f"/table/columns/{c}/width: column {col.field!r} is {col.width:.0f} pt wide, the "
                                 f"body {body:.0f} pt", self.where)
            edges.append(edges[-1] + col.width)
            if edges[-1] > self.x1 + 1e-6:
                raise GtkitError(f"/table/columns/{c}/width: column {col.field!r} ends {edges[-1] - self.x1:.0f} pt "
                                 f"past the body's right edge (the body is {body:.0f} pt wide)", self.where)
        return edges

    def _inner(self, c: int) -> tuple[float, float]:
        """Left and right of column c's text (the cell less its padding)."""
        return self.edges[c] + self.spec.pad, self.edges[c + 1] - self.spec.pad

    def _lay_groups(self) -> float:
        """The group titles over their columns, centred, a rule under each; returns the row's bottom."""
        hw, top, hleading, pad_x = self.hwrapper, self.header_top, self.hleading, self.spec.pad
        fields = [c.field for c in self.cols]
        spans = [(fields.index(g.first), g) for g in self.spec.groups]
        wrapped = [hw.lines([(None, g.title)], self.edges[c + g.span] - self.edges[c] - 2 * pad_x) for c, g in spans]
        n_lines = max(len(lines) for lines in wrapped)
        bottom = top + n_lines * hleading
        for (c, g), lines in zip(spans, wrapped):
            gx0, gx1 = self.edges[c] + pad_x, self.edges[c + g.span] - pad_x
            for li, line in enumerate(lines):
                for _, text, _ in line:
                    x = (gx0 + gx1 - hw.m(text)) / 2
                    self.header_runs.append(Run(x, top + li * hleading + self.hpad, self.hfont, self.hsize, text))
                    self.header_items.append((text, (gx0, top, gx1, top + len(lines) * hleading)))
            if self.spec.group_rule > 0:
                self.group_rules.append((gx0, bottom + 0.5, gx1, bottom + 0.5, self.spec.group_rule))
        return bottom + 1.0

    def _lay_header(self) -> float:
        """The column header block, the same on every page (drawn as chrome): the group titles (if any) over the
        column titles; returns its bottom."""
        top = self._lay_groups() if self.spec.groups else self.header_top
        hw, hleading = self.hwrapper, self.hleading
        n_lines = 0
        for c, col in enumerate(self.cols):
            cx0, cx1 = self._inner(c)
            lines = hw.lines([(None, col.field if col.title is None else col.title)], cx1 - cx0)
            n_lines = max(n_lines, len(lines))
            for li, line in enumerate(lines):
                for _, text, off in line:
                    x = cx1 - hw.m(text) if col.align == "right" else cx0 + off
                    self.header_runs.append(Run(x, top + li * hleading + self.hpad, self.hfont, self.hsize, text))
                    self.header_items.append((text, (cx0, top, cx1, top + len(lines) * hleading)))
        bottom = top + n_lines * hleading
        if bottom > self.top:
            raise GtkitError(f"/table/header_top: the column header ends at {bottom:.1f} pt, below the body top "
                             f"{self.top:.1f} pt", self.where)
        return bottom

    def _new_page(self, first: int) -> PagePlan:
        pp = PagePlan(first_item=first)
        rule_y = self.header_bottom + 1.0
        pp.rules.append((self.x0, rule_y, self.x1, rule_y, 0.6))
        pp.rules.extend(self.group_rules)
        pp.header_runs = self.header_runs
        pp.header_items = self.header_items
        return pp

    def _cells(self, r: int, rec: dict[str, Any]) -> list[Cell | None]:
        """Each column's wrapped lines for record r (None for a null value)."""
        cells: list[Cell | None] = []
        for c, col in enumerate(self.cols):
            text = leaf_text(self.family, col.field, rec.get(col.field))
            if text is None:
                cells.append(None)
                continue
            cx0, cx1 = self._inner(c)
            cells.append(self.wrapper.lines([(record_pointer(self.family, r, col.field), text)], cx1 - cx0))
        return cells

    def _draw_row(self, r: int, cells: list[Cell | None], h: float) -> None:
        """Draw record r's cells (None: nothing in that column) in a row of height h at the current y of the last
        page."""
        page, pp, y, leading = len(self.pages) - 1, self.pages[-1], self.y, self.leading
        for c, lines in enumerate(cells):
            if lines is None:
                continue
            cx0, cx1 = self._inner(c)
            right = self.cols[c].align == "right"
            texts = []
            for li, line in enumerate(lines):
                for _, text, off in line:
                    x = cx1 - self.wrapper.m(text) if right else cx0 + off
                    pp.body_runs.append(Run(x, y + li * leading + self.pad, self.font, self.size, text))
                    texts.append(text)
            cell = (self.edges[c], y, self.edges[c + 1], y + h)
            self.items.append(Item(lines[0][0][0], " ".join(texts), r, cell, page))

    def _next_page(self) -> None:
        self.pages[-1].end_item = len(self.items)
        self.pages.append(self._new_page(len(self.items)))
        self.y = self.top

    def _height(self, cells: list[Cell | None]) -> float:
        return max([1] + [len(lines) for lines in cells if lines is not None]) * self.leading

    def _too_tall(self, r: int, cells: list[Cell | None], room: float) -> GtkitError:
        c = max(range(len(cells)), key=lambda k: len(cells[k] or ()))
        h = len(cells[c] or ()) * self.leading
        return GtkitError(f"/table/columns/{c}/width: record {r}'s {self.cols[c].field} wraps to "
                          f"{len(cells[c] or ())} lines ({h:.0f} pt), taller than any row can be "
                          f"({room:.0f} pt of body on a page)", self.where)

    def _place(self, r: int, rec: dict[str, Any]) -> None:
        cells = self._cells(r, rec)
        h = self._height(cells)
        if h > self.bottom - self.top:
            raise self._too_tall(r, cells, self.bottom - self.top)
        self.rec_pages.append(len(self.pages) - 1)
        self.heights.append(h)
        if self.y + h > self.bottom:
            if self.family.allow_split and self.y > self.top and self._split(r, cells):
                return
            self._next_page()
            self.rec_pages[r] = len(self.pages) - 1
        self._draw_row(r, cells, h)
        self.y += h + self.spec.row_gap

    def _split(self, r: int, cells: list[Cell | None]) -> bool:
        """Draw the cells of record r that fit in the rest of the page, the others on the next page under the
        continuation line; False (nothing drawn) when no cell fits here or the rest would not fit there."""
        room = self.bottom - self.y
        here = [lines if lines is not None and len(lines) * self.leading <= room else None for lines in cells]
        rest = [lines if lines is not None and here[c] is None else None for c, lines in enumerate(cells)]
        if not any(here) or not any(rest):
            return False
        h_rest = self._height(rest)
        if self.leading + h_rest > self.bottom - self.top:
            return False
        h_here = self._height(here)
        self._draw_row(r, here, h_here)
        self.parts.append(Part(r, 0, len(self.pages) - 1, 0, (self.x0, self.y, self.x1, self.y + h_here), h_here))
        self._next_page()
        page, y = len(self.pages) - 1, self.y
        text = " ".join(self.spec.continued.split())
        x = self._inner(0)[0]
        self.pages[-1].body_runs.append(Run(x, y + self.pad, self.font, self.size, text))
        self.items.append(Item(None, text, r, (self.x0, y, self.x1, y + self.leading), page))
        self.y += self.leading
        self._draw_row(r, rest, h_rest)
        self.parts.append(Part(r, 1, page, 0, (self.x0, y, self.x1, self.y + h_rest), h_rest))
        self.y += h_rest + self.spec.row_gap
        return True

    def pack(self, records: list[dict[str, Any]]):
        for r, rec in enumerate(records):
            self._place(r, rec)
        self.pages[-1].end_item = len(self.items)
        return self.pages, self.items, self.rec_pages, self.heights, self.parts


def lay_table(family: Family, records: list[dict[str, Any]], fonts: dict[str, str], body_box: Box):
    """Renderer `table`: (pages, items, record pages, record heights, the parts of split rows)."""
    return TablePacker(family, fonts, body_box).pack(records)
