"""What a document's PDF says about itself: its info dictionary, as the family's real documents carry it.

A family's `family.toml` may have a `[pdf]` table (`PdfSection`): the producer and creator its real
documents name (a court's PDF writer, a statistics package, a spreadsheet), an author and subject, a
title made from the document-level values (`{field}` placeholders), and where the creation date comes
from: a date among the document's own values (`date_from`, a document-level field or
`<records_field>/<field>` for the latest over the records), `days_after` it, at a time of day seeded by
the document's title and that date. Never the clock: the same records give the same bytes. Without a
`[pdf]` table a PDF names no title, author, subject or creator, its producer is the renderer's own, and
it carries no date.

Nothing here names gtkit or says synthetic: provenance lives in gt.json, never in the PDF.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from pydantic import StrictInt, field_validator

from gtkit.typed import Strict

_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_OFFSET = re.compile(r"^([+-])(\d\d):(\d\d)$")
_DATE_FORMATS = ("%Y-%m-%d", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%B %d, %Y", "%m-%d-%Y", "%m/%d/%Y")


class PdfSection(Strict):
    """`[pdf]` of family.toml: what the family's real documents say in their PDF info dictionary."""

    producer: str | None = None  # None: the renderer's own (reportlab's or weasyprint's)
    creator: str | None = None
    author: str | None = None
    subject: str | None = None
    title: str | None = None  # "{field}" placeholders: document-level values
    date_from: str | None = None  # a document-level field, or "<records_field>/<field>" (the latest)
    date_pattern: str | None = None  # a regex with groups `year` (2 or 4 digits), optionally `month`, `day`
    days_after: StrictInt = 0
    utc_offset: str = "+00:00"

    @field_validator("producer", "creator", "author", "subject", "title")
    @classmethod
    def _no_giveaway(cls, value: str | None) -> str | None:
        if value is not None and re.search(r"gtkit|synthetic", value, re.I):
            raise ValueError("names gtkit or says synthetic: provenance lives in gt.json, never in the PDF")
        return value

    @field_validator("date_pattern")
    @classmethod
    def _pattern(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                groups = re.compile(value).groupindex
            except re.error as e:
                raise ValueError(f"not a regular expression: {e}") from None
            if "year" not in groups:
                raise ValueError("needs a named group `year`")
        return value

    @field_validator("utc_offset")
    @classmethod
    def _offset(cls, value: str) -> str:
        if not _OFFSET.match(value):
            raise ValueError(f"{value!r} is not an offset like '-05:00'")
        return value

    def check_fields(self, properties: dict[str, Any], records_field: str) -> str | None:
        """What is wrong with the fields the table names (None: nothing), given the schema's properties."""
        for name in _FIELD.findall(self.title or ""):
            if name not in properties or name == records_field:
                return f"/pdf/title: {{{name}}} is not a document-level field of the schema"
        if self.date_from is not None:
            head, _, tail = self.date_from.partition("/")
            if tail:
                items = properties.get(records_field, {}).get("items", {}).get("properties", {})
                if head != records_field or tail not in items:
                    return f"/pdf/date_from: {self.date_from!r} is not <records_field>/<field of a record>"
            elif head not in properties or head == records_field:
                return f"/pdf/date_from: {head!r} is not a document-level field of the schema"
        return None


@dataclass(frozen=True)
class DocInfo:
    """The info dictionary written: a key left None is not written (producer None: the renderer's own)."""

    producer: str | None = None
    creator: str | None = None
    author: str | None = None
    subject: str | None = None
    title: str | None = None
    created: str | None = None  # a PDF date, "D:YYYYMMDDHHmmSS+HH'mm'"


def doc_info(section: PdfSection | None, expected: dict[str, Any], records_field: str,
             display: Any = None) -> DocInfo:
    """The info of the document whose values are `expected` (`display(field, value)`: how a value prints)."""
    if section is None:
        return DocInfo()
    title = None
    if section.title is not None:
        def fill(m: re.Match[str]) -> str:
            value = expected.get(m.group(1))
            if value is None:
                return ""
            return str(value) if display is None else str(display(m.group(1), value))
        title = " ".join(_FIELD.sub(fill, section.title).split()) or None
    created = None
    day = _source_date(section, expected, records_field, title or "")
    if day is not None:
        day += dt.timedelta(days=section.days_after)
        seed = int.from_bytes(hashlib.sha256(f"{title}|{day.isoformat()}".encode()).digest()[:8], "big")
        hour, minute, second = 7 + seed % 11, (seed >> 8) % 60, (seed >> 16) % 60
        sign, hh, mm = _OFFSET.match(section.utc_offset).groups()  # type: ignore[union-attr]  # validated
        created = f"D:{day:%Y%m%d}{hour:02d}{minute:02d}{second:02d}{sign}{hh}'{mm}'"
    return DocInfo(producer=section.producer, creator=section.creator, author=section.author,
                   subject=section.subject, title=title, created=created)


def _source_date(section: PdfSection, expected: dict[str, Any], records_field: str, title: str) -> dt.date | None:
    if section.date_from is None:
        return None
    head, _, tail = section.date_from.partition("/")
    if tail:
        values = [r.get(tail) for r in expected.get(records_field) or [] if isinstance(r, dict)]
    else:
        values = [expected.get(head)]
    dates = [d for d in (_parse(v, section.date_pattern, title) for v in values) if d is not None]
    return max(dates) if dates else None


def _parse(value: Any, pattern: str | None, title: str) -> dt.date | None:
    """A date from a value: an integer is a year (its last day), a string one of the usual spellings, or
    `pattern`'s groups (a missing month or day is seeded by the title and the value, never the clock)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return dt.date(value, 12, 31) if 1900 <= value <= 2100 else None
    text = str(value).strip()
    if pattern is not None:
        m = re.search(pattern, text)
        if m is None:
            return None
        parts = m.groupdict()
        year = int(parts["year"])
        year += 2000 if year < 100 else 0
        seed = int.from_bytes(hashlib.sha256(f"{title}|{text}".encode()).digest()[:4], "big")
        month = int(parts.get("month") or 1 + seed % 12)
        day = int(parts.get("day") or 1 + (seed >> 8) % 28)
        try:
            return dt.date(year, month, day)
        except ValueError:
            return None
    for fmt in _DATE_FORMATS:
        try:
            return dt.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None
