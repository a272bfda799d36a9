"""Renderer `columns`: each record a block of lines, blocks packed down the columns of a page.

A block is placed where its measured height fits, so a long record takes more room and no
column ends early. With the family's `allow_split`, a block that does not fit in the rest of a
column is cut between two of its lines that share no field (never inside one field's wrapped
lines), as low as the column allows, and the rest continues at the top of the next column (or
page) under a continuation marker, "(continued) {name}" by default (`[columns] continued`). The
marker is chrome: it belongs to the record's part for ordering and clipping, but it is no value
and never evidence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gtkit.errors import GtkitError
from gtkit.synth.layout_toml import Columns
from gtkit.synth.plan import ASCENT, Item, PagePlan, Part, Run
from gtkit.synth.text import PLACEHOLDER, Wrapper, leaf_text, record_pointer

if TYPE_CHECKING:
    from gtkit.synth.family import Family

Line = list[tuple[str | None, str, float]]  # (owner pointer, run text, x offset)
_NOTHING = object()


def marker_template(family: Family, spec: Columns) -> list[tuple[bool, str]]:
    """`[columns] continued` as [(is_field, text)]: a placeholder names a record field and stands alone."""
    template = spec.continued or "(continued) {" + spec.lines[0][0] + "}"
    where = "layout.toml [columns] continued"
    fields = family.record_schema.get("properties", {})
    out: list[tuple[bool, str]] = []
    for tok in template.split():
        m = PLACEHOLDER.match(tok)
        if m is None:
            if "{" in tok or "}" in tok:
                raise GtkitError(f"{where}: a placeholder must stand alone between spaces, got {tok!r}")
            out.append((False, tok))
        elif m.group(1) not in fields:
            raise GtkitError(f"{where}: placeholder {{{m.group(1)}}} is not a field of the records")
        else:
            out.append((True, m.group(1)))
    return out


class ColumnPacker:
    """Packs record blocks down the columns of the body box, page after page; `pack` returns the plan's pieces."""

    def __init__(self, family: Family, fonts: dict[str, str], body_box: tuple[float, float, float, float]):
        spec = family.required_layout.columns
        assert spec is not None  # the family's renderer section (Layout checks it is there)
        assert spec.leading is not None and spec.gap is not None  # filled in by Columns' validation
        self.family, self.spec = family, spec
        self.font, self.size, self.leading, self.gap = fonts[spec.font], spec.size, spec.leading, spec.gap
        self.x0, self.top, x1, self.bottom = body_box
        self.col_w = (x1 - self.x0 - spec.gutter * (spec.count - 1)) / spec.count
        self.wrapper = Wrapper(self.font, self.size)
        self.pad = (self.leading - self.size) / 2 + ASCENT * self.size
        self.marker: list[tuple[bool, str]] = []
        self.mfont, self.mwrapper = self.font, self.wrapper
        if family.allow_split:
            self.marker = marker_template(family, spec)
            self.mfont = fonts[spec.continued_font]
            self.mwrapper = Wrapper(self.mfont, self.size)
        self.pages: list[PagePlan] = [PagePlan()]
        self.items: list[Item] = []
        self.rec_pages: list[int] = []
        self.heights: list[float] = []
        self.parts: list[Part] = []
        self.col, self.y = 0, self.top

    def pack(self, records: list[dict[str, Any]]):
        for r, rec in enumerate(records):
            self._place(r, rec)
        self.pages[-1].end_item = len(self.items)
        return self.pages, self.items, self.rec_pages, self.heights, self.parts

    def _next_column(self) -> None:
        self.col += 1
        self.y = self.top
        if self.col == self.spec.count:
            self.col = 0
            self.pages[-1].end_item = len(self.items)
            self.pages.append(PagePlan(first_item=len(self.items)))

    def _block(self, r: int, rec: dict[str, Any]) -> list[Line]:
        """The record's lines: each `lines` entry's non-null fields side by side, wrapped to the column."""
        block: list[Line] = []
        for names in self.spec.lines:
            segs: list[tuple[str | None, str]] = []
            for name in names:
                text = leaf_text(self.family, name, rec.get(name))
                if text is not None:
                    segs.append((record_pointer(self.family, r, name), text))
            if segs:
                block.extend(self.wrapper.lines(segs, self.col_w))
        return block

    def _marker_lines(self, rec: dict[str, Any]) -> list[Line]:
        words = [leaf_text(self.family, v, rec.get(v)) if is_field else v for is_field, v in self.marker]
        return self.mwrapper.lines([(None, " ".join(w for w in words if w) or "(continued)")], self.col_w)

    def _draw(self, r: int, mark: list[Line], lines: list[Line], index: int, head: float) -> None:
        """Draw one part of record r (marker lines, then block lines) at the top of what is left of the column."""
        page = len(self.pages) - 1
        leading, y, items = self.leading, self.y, self.items
        cx = self.x0 + self.col * (self.col_w + self.spec.gutter)
        region = (cx, y, cx + self.col_w, y + (len(mark) + len(lines)) * leading)
        pp = self.pages[-1]
        last_ptr: object = _NOTHING
        for li, line in enumerate(mark + lines if mark else lines):
            base = y + li * leading + self.pad
            lfont = self.mfont if li < len(mark) else self.font
            for ptr, text, off in line:
                pp.body_runs.append(Run(cx + off, base, lfont, self.size, text))
                if ptr == last_ptr:
                    it = items[-1]
                    it.text += " " + text
                    it.chars += "".join(text.split())
                else:
                    items.append(Item(ptr, text, r, region, page))
                    last_ptr = ptr
        self.parts.append(Part(r, index, page, self.col, region, head))

    def _place(self, r: int, rec: dict[str, Any]) -> None:
        """Place record r's block: whole where it fits, else (with `allow_split`) cut as low as the column allows."""
        leading, top, bottom = self.leading, self.top, self.bottom
        block = self._block(r, rec)
        n = len(block)
        h = n * leading
        if h > bottom - top:
            raise GtkitError(f"record {r} needs {h:.0f} pt, more than a whole column ({bottom - top:.0f} pt)")
        self.rec_pages.append(-1)
        self.heights.append(h)
        # the lines after which the block may be cut: the two lines share no field
        cuts = [n]
        if self.family.allow_split:
            cuts = [k for k in range(1, n) if not {o for o, _, _ in block[k - 1]} & {o for o, _, _ in block[k]}] + [n]
        start, index = 0, 0
        while True:
            head = ((next(k for k in cuts if k > start) if start else cuts[0]) - start) * leading
            mark = self._marker_lines(rec) if index else []
            if (index == 0 and self.y == top) or self.y + (len(mark) + n - start) * leading <= bottom:  # the rest fits
                if index == 0:
                    self.rec_pages[r] = len(self.pages) - 1
                self._draw(r, mark, block[start:] if start else block, index, head)
                self.y += (len(mark) + n - start) * leading + self.gap
                return
            fit = [k for k in cuts[:-1] if k > start and self.y + (len(mark) + k - start) * leading <= bottom]
            if fit:  # cut as low as the column allows; the rest goes on in the next column
                k = fit[-1]
                if index == 0:
                    self.rec_pages[r] = len(self.pages) - 1
                self._draw(r, mark, block[start:k], index, head)
                start, index = k, index + 1
            elif self.y == top:
                raise GtkitError(f"record {r} cannot be cut between two fields to fit a column ({bottom - top:.0f} pt)")
            self._next_column()


def lay_columns(family: Family, records: list[dict[str, Any]], fonts: dict[str, str], body_box):
    """Renderer `columns`: (pages, items, record pages, record heights, parts)."""
    return ColumnPacker(family, fonts, body_box).pack(records)
