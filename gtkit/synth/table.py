"""Renderer `table`: one row per record, a column per field, the column header repeated on every page.

Column widths are relative and scaled to fill the body. A row is as tall as its longest wrapped
cell; a page ends when the next row does not fit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gtkit.errors import GtkitError
from gtkit.synth.plan import ASCENT, Item, PagePlan, Run
from gtkit.synth.text import Wrapper, leaf_text, record_pointer

if TYPE_CHECKING:
    from gtkit.synth.family import Family

Box = tuple[float, float, float, float]
Cell = list[list[tuple[str | None, str, float]]]  # a cell's wrapped lines of (owner, run text, x offset)


class TablePacker:
    """Lays records out as table rows on pages; `pack` returns the plan's pieces."""

    def __init__(self, family: Family, fonts: dict[str, str], body_box: Box):
        spec = family.layout.table
        assert spec is not None  # the family's renderer section (Layout checks it is there)
        self.family, self.spec, self.cols = family, spec, spec.columns
        self.font, self.size, self.leading = fonts[spec.font], spec.size, spec.leading
        self.hfont, self.hsize, self.hleading = fonts[spec.header_font], spec.header_size, spec.header_leading
        self.x0, self.top, self.x1, self.bottom = body_box
        self.header_top = self.top if spec.header_top is None else spec.header_top
        scale = (self.x1 - self.x0) / sum(c.width for c in self.cols)
        self.edges = [self.x0]
        for c in self.cols:
            self.edges.append(self.edges[-1] + c.width * scale)
        self.wrapper = Wrapper(self.font, self.size)
        self.hwrapper = Wrapper(self.hfont, self.hsize)
        self.pad = (self.leading - self.size) / 2 + ASCENT * self.size
        self.hpad = (self.hleading - self.hsize) / 2 + ASCENT * self.hsize
        self.header_runs: list[Run] = []
        self.header_items: list[tuple[str, Box]] = []
        self.header_bottom = self._lay_header()
        self.pages: list[PagePlan] = [self._new_page(0)]
        self.items: list[Item] = []
        self.rec_pages: list[int] = []
        self.heights: list[float] = []
        self.y = self.top

    def _inner(self, c: int) -> tuple[float, float]:
        """Left and right of column c's text (the cell less its padding)."""
        return self.edges[c] + self.spec.pad, self.edges[c + 1] - self.spec.pad

    def _lay_header(self) -> float:
        """The column header block, the same on every page (drawn as chrome); returns its bottom."""
        hw, top, hleading = self.hwrapper, self.header_top, self.hleading
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
            raise GtkitError(f"the column header ends at {bottom:.0f} pt, below the body top {self.top:.0f} pt")
        return bottom

    def _new_page(self, first: int) -> PagePlan:
        pp = PagePlan(first_item=first)
        rule_y = self.header_bottom + 1.0
        pp.rules.append((self.x0, rule_y, self.x1, rule_y, 0.6))
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
        """Draw record r's cells in a row of height h at the current y of the last page."""
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
            self.items.append(Item(lines[0][0][0], " ".join(texts), r, (self.edges[c], y, self.edges[c + 1], y + h), page))

    def _place(self, r: int, rec: dict[str, Any]) -> None:
        cells = self._cells(r, rec)
        h = max([1] + [len(lines) for lines in cells if lines is not None]) * self.leading
        if h > self.bottom - self.top:
            raise GtkitError(f"record {r} needs {h:.0f} pt, more than a whole page body ({self.bottom - self.top:.0f} pt)")
        if self.y + h > self.bottom:
            self.pages[-1].end_item = len(self.items)
            self.pages.append(self._new_page(len(self.items)))
            self.y = self.top
        self._draw_row(r, cells, h)
        self.rec_pages.append(len(self.pages) - 1)
        self.heights.append(h)
        self.y += h + self.spec.row_gap

    def pack(self, records: list[dict[str, Any]]):
        for r, rec in enumerate(records):
            self._place(r, rec)
        self.pages[-1].end_item = len(self.items)
        return self.pages, self.items, self.rec_pages, self.heights


def lay_table(family: Family, records: list[dict[str, Any]], fonts: dict[str, str], body_box: Box):
    """Renderer `table`: (pages, items, record pages, record heights)."""
    return TablePacker(family, fonts, body_box).pack(records)
