"""User records for `--data`: JSON Lines or CSV, validated against the family's record schema.

Every problem names the file and the line it is on; nothing is rendered before the
whole file is valid. CSV cells arrive as text: a blank cell is null, and cells of
number/integer/boolean fields are converted by the schema's type. A missing value (a blank cell, a null)
in a field that cannot be null is refused as such, in either format, and a header naming a column twice
is refused.
"""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # its stubs (types-jsonschema) are not a dependency
from jsonschema.validators import validator_for  # type: ignore[import-untyped]  # as above
from reportlab.pdfbase import pdfmetrics  # type: ignore[import-untyped]  # types-reportlab is not a dependency

from gtkit.errors import GtkitError
from gtkit.files.read import decode_text, parse_json
from gtkit.schema import escape_token
from gtkit.synth.family import Family
from gtkit.synth.fonts import register

TEMPLATE_BODY_FONT = "LiberationSans-Regular.ttf"


def _types(prop: dict[str, Any]) -> set[str]:
    t = prop.get("type")
    return {t} if isinstance(t, str) else set(t or [])


def _convert_csv_cell(text: str, prop: dict[str, Any], name: str, lineno: int, path: Path) -> Any:
    if text.strip() == "":
        return None
    types = _types(prop)
    text = text.strip()
    if "integer" in types:
        try:
            return int(text)
        except ValueError:
            raise GtkitError(f"line {lineno}: field {name!r}: {text!r} is not an integer", path) from None
    if "number" in types:
        try:
            value = float(text.replace(",", "").lstrip("$"))
        except ValueError:
            raise GtkitError(f"line {lineno}: field {name!r}: {text!r} is not a number", path) from None
        return int(value) if value.is_integer() and "." not in text else value
    if "boolean" in types:
        low = text.lower()
        if low in ("true", "yes", "x", "1"):
            return True
        if low in ("false", "no", "0"):
            return False
        raise GtkitError(f"line {lineno}: field {name!r}: {text!r} is not a boolean", path)
    return text


def _rows(path: Path, family: Family) -> list[tuple[int, Any]]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise GtkitError("file not found", path) from None
    except IsADirectoryError:
        raise GtkitError("is a folder, expected a .jsonl or .csv file", path) from None
    text = decode_text(raw, path)
    suffix = path.suffix.lower()
    rows: list[tuple[int, Any]] = []
    if suffix in (".jsonl", ".ndjson"):
        for lineno, line in enumerate(text.split("\n"), 1):  # JSON Lines ends lines at \n only
            if not line.strip():
                continue
            try:
                rows.append((lineno, parse_json(line, path, f"line {lineno}: ")))
            except json.JSONDecodeError as e:
                raise GtkitError(f"line {lineno}: malformed JSON: {e.msg}", path) from None
    elif suffix == ".csv":
        props = family.record_schema.get("properties", {})
        nested = [name for name, prop in props.items()
                  if "array" in _types(prop) and "object" in _types(prop.get("items", {}))]
        if nested:
            raise GtkitError(f"a CSV row is flat, and a record of family {family.name!r} nests lists of records "
                             f"({', '.join(nested)}): give the records as .jsonl, one JSON object a line", path)
        reader = csv.reader(io.StringIO(text, newline=""))
        try:
            header = next(reader)
        except StopIteration:
            raise GtkitError("empty CSV file (expected a header row of field names)", path) from None
        header = [h.strip() for h in header]
        twice = next((h for k, h in enumerate(header) if h in header[:k]), None)
        if twice is not None:
            raise GtkitError(f"line 1: column {twice!r} appears twice in the header", path)
        unknown = [h for h in header if h not in props]
        if unknown:
            raise GtkitError(f"line 1: unknown column(s) {', '.join(map(repr, unknown))} "
                             f"(fields: {', '.join(props)})", path)
        missing = [name for name in family.record_schema.get("required", []) if name not in header]
        if missing:
            raise GtkitError(f"line 1: missing column(s) {', '.join(map(repr, missing))}", path)
        while True:
            start = reader.line_num + 1
            try:
                cells = next(reader)
            except StopIteration:
                break
            except csv.Error as e:
                raise GtkitError(f"line {start}: malformed CSV: {e}", path) from None
            if not any(c.strip() for c in cells):
                continue
            if len(cells) != len(header):
                raise GtkitError(f"line {start}: {len(cells)} cells, the header has {len(header)}", path)
            rows.append((start, {h: _convert_csv_cell(c, props[h], h, start, path) for h, c in zip(header, cells)}))
    else:
        raise GtkitError(f"unknown data format {suffix or '(no extension)'!r}: use .jsonl or .csv", path)
    if not rows:
        raise GtkitError("no records in the file", path)
    return rows


MONEY_LIMIT = 10**13  # cents stay exact in a binary float below this
MAX_VALUE_CHARS = 2000  # a printed value longer than this is no list entry (and would not fit a page)
_RTL = {"R", "AL", "RLE", "RLO", "RLI"}


def printed_problem(family: Family, name: str, value: Any) -> str | None:
    """Why `value` would not read back from the page as itself (None when it would).

    The page shows `family.display(name, value)` with whitespace runs collapsed; reading that text back
    (digits, sign and decimal point for numbers) must give the value exactly, or the truth would say
    something the page does not."""
    if value is None or isinstance(value, bool):
        return None
    printed = " ".join(family.display(name, value).split())
    if isinstance(value, str):
        if len(value) > MAX_VALUE_CHARS:
            return f"{len(value):,} characters; a printed value holds at most {MAX_VALUE_CHARS:,}"
        if any(unicodedata.bidirectional(c) in _RTL for c in value):
            return "right-to-left text is not supported (the layout and the read-back run left to right)"
        if printed != value:
            return f"{value[:40]!r} is printed as {printed[:40]!r} (line breaks, tabs and repeated spaces collapse)"
        return None
    if not isinstance(value, (int, float)):
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return f"{value!r} is not a number that can be printed"
    if family.formats.get(name) == "money" and abs(value) >= MONEY_LIMIT:
        return f"{value!r} is too large to print as an amount exactly (limit {MONEY_LIMIT:,})"
    digits = printed.replace("$", "").replace(",", "")
    try:
        read = float(digits)
    except ValueError:
        return f"{value!r} is printed as {printed!r}, which does not read back as a number"
    if read != value:
        return f"{value!r} is printed as {printed!r}: give the value as printed"
    return None


def body_glyphs(family: Family) -> set[int]:
    """Code points the family's body font can draw (a value outside them could not be read back)."""
    if family.layout is None:  # renderer template: the shared body font
        font = register(TEMPLATE_BODY_FONT)
    else:
        section = getattr(family.layout, family.renderer)
        font = register(family.layout.fonts[section.font])
    return set(pdfmetrics.getFont(font).face.charToGlyph)


def no_glyphs(chars: list[str], most: int = 8) -> str:
    """The characters a font lacks, in the order the value has them, each with its code point."""
    named = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in chars[:most])
    return named + (f" and {len(chars) - most} more" if len(chars) > most else "")


def shown(value: str, most: int = 60) -> str:
    """A value quoted for a message, cut after `most` characters."""
    return repr(value) if len(value) <= most else f"{value[:most]!r}…"


def _scalars(obj: dict[str, Any], prefix: str = ""):
    """(where, field name, value) of every scalar of a record, nested records included ("comments/0/text")."""
    for name, value in obj.items():
        where = f"{prefix}{name}"
        if isinstance(value, dict):
            yield from _scalars(value, where + "/")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, dict):
                    yield from _scalars(item, f"{where}/{i}/")
                else:
                    yield f"{where}/{i}", name, item
        else:
            yield where, name, value


def load_records(path: Path, family: Family) -> list[dict[str, Any]]:
    """Parse and validate a data file; the first bad record raises with its line number.

    After the schema, a family's generator may check each record itself: `check_record(record)` returns
    why the record cannot be printed as given (a total that does not add up), or None."""
    path = Path(path)
    schema = {**family.record_schema}
    if "$schema" not in schema and "$schema" in family.schema:
        schema["$schema"] = family.schema["$schema"]
    cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    validator = cls(schema)
    glyphs = body_glyphs(family)
    check_record = getattr(family.module, "check_record", None)  # the family's own rule (totals that reconcile)
    records: list[dict[str, Any]] = []
    csv_file = path.suffix.lower() == ".csv"  # a blank cell is its null
    for lineno, rec in _rows(path, family):
        if not isinstance(rec, dict):
            raise GtkitError(f"line {lineno}: a record must be a JSON object, got {type(rec).__name__}", path)
        errors = sorted(validator.iter_errors(rec), key=lambda e: (list(map(str, e.absolute_path)), e.message))
        if errors:
            err = errors[0]
            where = "".join("/" + escape_token(p) for p in err.absolute_path)
            if where and err.instance is None:  # a missing value where the field needs one
                raise GtkitError(f"line {lineno}: field {where.lstrip('/')!r} is {'blank' if csv_file else 'null'}, "
                                 "and it needs a value (it cannot be null)", path)
            field = f"field {where.lstrip('/')!r}: " if where else ""
            raise GtkitError(f"line {lineno}: {field}{err.message}", path)
        for where, name, value in _scalars(rec):
            if isinstance(value, str) and not value.split():
                raise GtkitError(f"line {lineno}: field {where!r} is blank (use null for a missing value)", path)
            problem = printed_problem(family, name, value)
            if problem:
                raise GtkitError(f"line {lineno}: field {where!r}: {problem}", path)
            if isinstance(value, str):
                missing = list(dict.fromkeys(c for c in value if not c.isspace() and ord(c) not in glyphs))
                if missing:
                    raise GtkitError(f"line {lineno}: field {where!r}: the family's font has no glyph for "
                                     f"{no_glyphs(missing)} in {shown(value)}", path)
        problem = check_record(rec) if check_record is not None else None
        if problem:
            raise GtkitError(f"line {lineno}: {problem}", path)
        records.append(rec)
    return records
