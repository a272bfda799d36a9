"""Measured layout and pagination: records become runs of text placed on pages.

Every record is laid out as a block whose height is measured with the font metrics
that draw it (`gtkit.synth.text`); blocks are packed into columns (renderer
`columns`, `gtkit.synth.columns`) or table rows (renderer `table`,
`gtkit.synth.table`) and pages by that measured size. A record is never split
across a column or page unless its family sets `allow_split = true`; a page ends
only when the next record does not fit. Page chrome (running header, caption,
"Page x of y", `gtkit.synth.chrome`) and a table's column header are laid out on
every page and drawn before the page's records.

A table's header may have two levels (groups spanning columns over the titles), and
with `allow_split` a table row too tall for the rest of a page is split between its
cells. A rotated family (`[page] rotate`) is planned on the page as a viewer shows it
(landscape); `gtkit.synth.render` turns it onto the portrait sheet under /Rotate.

The plan (`gtkit.synth.plan`) records every part of a split record (`Plan.parts`)
and the page of every value (`Item.page`), so the checks stay exact for split
records. The read-back uses the items only for their text and order; where a
value sits on the page is taken from the PDF, never from the plan. The plan's
regions (the column or cell a value belongs to) serve the clipping check.
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, Any

from gtkit.synth.chrome import geometry, lay_chrome
from gtkit.synth.columns import lay_columns
from gtkit.synth.layout_toml import Columns, Layout, Table, read_layout
from gtkit.synth.plan import Item, PagePlan, Plan, Run, chrome_and_header
from gtkit.synth.table import TablePacker, lay_table
from gtkit.synth.text import register_fonts

if TYPE_CHECKING:
    from gtkit.synth.family import Family

__all__ = ["Columns", "Item", "Layout", "Plan", "Run", "Table", "body_columns", "chrome_and_header", "drawing_order",
           "page_chrome", "plan_document", "read_layout"]


def plan_document(family: Family, expected: dict[str, Any]) -> Plan:
    """Lay out `expected` (context fields plus records) on pages, by measurement."""
    fonts = register_fonts(family.required_layout)
    content, body_box = geometry(family)
    records = expected.get(family.records_field) or []
    context = {k: v for k, v in expected.items() if k != family.records_field}
    lay = lay_columns if family.renderer == "columns" else lay_table
    pages, items, rec_pages, heights, parts = lay(family, records, fonts, body_box)
    total = len(pages)
    for p, pp in enumerate(pages):
        chrome = PagePlan()
        lay_chrome(family, context, fonts, p, total, content, chrome)
        pp.chrome_runs, pp.chrome_items = chrome.chrome_runs, chrome.chrome_items
        pp.rules = chrome.rules + pp.rules
    split = frozenset(p.record for p in parts if p.number > 0)
    table = family.required_layout.table
    groups = family.renderer == "table" and table is not None and bool(table.groups)
    return Plan(family.page_size, content, pages, items, rec_pages, heights, body_box, fonts, parts, split,
                groups, family.rotate)


def page_chrome(family: Family, expected: dict[str, Any], pages: int) -> list[list[Item]]:
    """The chrome items of every page of a `pages`-page document (running lines, then a table's column header,
    its group titles included), as `plan_document` lays them out, without laying out the records."""
    fonts = register_fonts(family.required_layout)
    content, body_box = geometry(family)
    context = {k: v for k, v in expected.items() if k != family.records_field}
    header = TablePacker(family, fonts, body_box).header_items if family.renderer == "table" else []
    out = []
    for p in range(pages):
        pp = PagePlan(header_items=header)
        lay_chrome(family, context, fonts, p, pages, content, pp)
        out.append(chrome_and_header(pp, p)[1])
    return out


def body_columns(family: Family) -> tuple[list[tuple[float, float]], tuple[float, float, float, float]]:
    """The body's columns as (left, right) in points, and the body box: a table's columns, in the order of
    `[table] columns`, or the columns records are packed into (renderer `columns`)."""
    _, body_box = geometry(family)
    if family.renderer == "table":
        edges = TablePacker(family, register_fonts(family.required_layout), body_box).edges
        return list(pairwise(edges)), body_box
    spec = family.required_layout.columns
    assert spec is not None
    x0, _, x1, _ = body_box
    col_w = (x1 - x0 - spec.gutter * (spec.count - 1)) / spec.count
    lefts = [x0 + c * (col_w + spec.gutter) for c in range(spec.count)]
    return [(left, left + col_w) for left in lefts], body_box


def drawing_order(family: Family) -> list[str]:
    """A record's fields in the order they are drawn: a table's columns, or a columns block's lines."""
    if family.renderer == "table":
        assert family.required_layout.table is not None
        return [c.field for c in family.required_layout.table.columns]
    assert family.required_layout.columns is not None
    return [name for line in family.required_layout.columns.lines for name in line]
