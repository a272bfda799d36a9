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

from typing import TYPE_CHECKING, Any

from gtkit.synth.chrome import geometry, lay_chrome
from gtkit.synth.columns import lay_columns
from gtkit.synth.layout_toml import Columns, Layout, Table, read_layout
from gtkit.synth.plan import Item, PagePlan, Plan, Run, chrome_and_header
from gtkit.synth.table import lay_table
from gtkit.synth.text import register_fonts

if TYPE_CHECKING:
    from gtkit.synth.family import Family

__all__ = ["Columns", "Item", "Layout", "Plan", "Run", "Table", "chrome_and_header", "plan_document", "read_layout"]


def plan_document(family: Family, expected: dict[str, Any]) -> Plan:
    """Lay out `expected` (context fields plus records) on pages, by measurement."""
    fonts = register_fonts(family.layout)
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
    split = frozenset(p.record for p in parts if p.index > 0)
    groups = family.renderer == "table" and bool(family.layout.table.groups)
    return Plan(family.page_size, content, pages, items, rec_pages, heights, body_box, fonts, parts, split,
                groups, family.rotate)
