"""The plan of a document: what is drawn where, page by page, in drawing order.

A plan holds every *item*: one value occurrence (a JSON Pointer into `expected`) or
one literal piece of chrome, with the characters it prints, and every *run*: one
string drawn at a baseline in one font. Coordinates are PDF points with the origin
at the top-left of the page; `y` of a run is its baseline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

ASCENT = 0.8  # baseline sits this many font sizes below the top of the glyph box, centred in the leading


class Run:
    """One string drawn at (x, baseline y) in one font."""

    __slots__ = ("font", "size", "text", "x", "y")

    def __init__(self, x: float, y: float, font: str, size: float, text: str):
        self.x, self.y, self.font, self.size, self.text = x, y, font, size, text


class Item:
    """One value occurrence (pointer set) or literal chrome (pointer None), in drawing order."""

    __slots__ = ("chars", "page", "pointer", "record", "region", "text")

    def __init__(self, pointer: str | None, text: str, record: int | None, region: tuple[float, float, float, float],
                 page: int):
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
    number: int  # 0 for the first part; a continuation (number > 0) starts with the marker
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
    parts: list[Part] = field(default_factory=list)  # columns: every part; table: the parts of split rows
    split_records: frozenset[int] = frozenset()  # records drawn in more than one part
    two_level_header: bool = False  # a table's header has a row of groups over the column titles
    rotate: int = 0  # the pages' /Rotate (page_size, content and every box are the page as a viewer shows it)



def chrome_and_header(pp: PagePlan, page: int) -> tuple[list[Run], list[Item]]:
    """All chrome of a page in drawing order: caption/footer lines, then the table's column header."""
    runs = pp.chrome_runs + pp.header_runs
    items = pp.chrome_items + [Item(None, text, None, region, page) for text, region in pp.header_items]
    return runs, items
