"""Normalization before comparison: date canonicalization, whitespace, leniencies, comparators.

`value_key` is the scoring normalization of docs/scoring.md: a string that parses as
one of the common date formats becomes ISO `YYYY-MM-DD`, other strings have their
whitespace runs collapsed and ends trimmed, and everything else compares exactly
(case-sensitive, no numeric tolerance, a number never equals its string). Keys
are hashable tuples tagged by type, so `True` never equals `1`.

`lenient_keys` applies a field's declared leniencies, each on its own; scoring
accepts a cell when the exact keys match OR the two values relax to the same form
under one declared leniency, so a leniency can only turn a miss into a pass.

`comparator_key` normalizes a consensus vote by the field's `x-comparator`; `loose_keys` gives the
format-free forms consensus uses to tell a disagreement in format only.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Hashable, Iterable
from functools import lru_cache
from typing import Any

Key = tuple

MONTHS = {
    name: i
    for i, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
         ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
         ("october", "oct"), ("november", "nov"), ("december", "dec")],
        start=1,
    )
    for name in names
}
_MON = r"(?P<mon>[A-Za-z]{3,9})\.?"
_WEEKDAY = r"(?:(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s+)?"
_DATE_PATTERNS = [
    re.compile(r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"),  # 2019-03-28
    re.compile(r"(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4}|\d{2})"),  # 3/28/2019, 3/28/19
    re.compile(r"(?P<m>\d{1,2})-(?P<d>\d{1,2})-(?P<y>\d{4}|\d{2})"),  # 3-28-2019
    re.compile(_WEEKDAY + _MON + r"[\s-]+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?[\s-]+(?P<y>\d{4})", re.I),  # March 28, 2019
    # 28 March 2019
    re.compile(_WEEKDAY + r"(?P<d>\d{1,2})(?:st|nd|rd|th)?[\s-]+" + _MON + r",?[\s-]+(?P<y>\d{4})", re.I),
]
# a numeric date whose first two parts could be month/day or day/month (any of / . - between them)
_EITHER_ORDER_DATE = re.compile(r"(?P<a>\d{1,2})[/.-](?P<b>\d{1,2})[/.-](?P<y>\d{4}|\d{2})")
_EITHER_ORDER_PATTERNS = [_DATE_PATTERNS[0], _EITHER_ORDER_DATE, *_DATE_PATTERNS[3:]]
_TEN_DIGITS = re.compile(r"\d{10}")


def collapse_ws(s: str) -> str:
    """Whitespace runs become one space; outer whitespace is trimmed."""
    return " ".join(s.split())


def _two_digit_year(y: int) -> int:
    """strptime's pivot: 69-99 are 1900s, 00-68 are 2000s."""
    return 1900 + y if y >= 69 else 2000 + y


def _parse_date(s: str, *, both_centuries: bool = False, either_order: bool = False) -> list[str]:
    """ISO dates `s` reads as under the guards: several only for two-digit years with `both_centuries`, or for
    a numeric date read both month-first and day-first with `either_order` (which also takes `.` separators)."""
    if not 4 <= len(s) <= 50 or s.isdigit() or _TEN_DIGITS.search(s) or not any(c.isdigit() for c in s):
        return []
    for pattern in _EITHER_ORDER_PATTERNS if either_order else _DATE_PATTERNS:
        m = pattern.fullmatch(s)
        if not m:
            continue
        parts = m.groupdict()
        if parts.get("a") is not None:
            a, b = int(parts["a"]), int(parts["b"])
            month_days = [(a, b), (b, a)]
        elif parts.get("mon") is not None:
            month = MONTHS.get(parts["mon"].lower())
            if month is None:
                return []
            month_days = [(month, int(parts["d"]))]
        else:
            month, day = int(parts["m"]), int(parts["d"])
            if pattern is not _DATE_PATTERNS[0] and month > 12 >= day:
                month, day = day, month  # 28/3/2019: a first part that cannot be a month is the day
            month_days = [(month, day)]
        ytext = parts["y"]
        years = [int(ytext)] if len(ytext) == 4 else (
            [1900 + int(ytext), 2000 + int(ytext)] if both_centuries else [_two_digit_year(int(ytext))]
        )
        out = []
        for year in years:
            if not 1900 <= year <= 2100:
                continue
            for month, day in month_days:
                try:
                    out.append(dt.date(year, month, day).isoformat())
                except ValueError:
                    continue
        return out
    return []


@lru_cache(maxsize=1 << 20)
def canonical_string(s: str) -> str:
    """Date canonicalization (with its guards) then whitespace collapse."""
    collapsed = collapse_ws(s)
    dates = _parse_date(collapsed)
    return dates[0] if dates else collapsed


@lru_cache(maxsize=1 << 16)
def iso_date(s: str) -> str | None:
    """The ISO date a string reads as under the scoring guards (as in `value_key`), or None."""
    dates = _parse_date(collapse_ws(s))
    return dates[0] if dates else None


def value_key(value: Any) -> Key:
    """Hashable normalized form of a cell value for exact comparison."""
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, (int, float)):
        return ("n", value)
    if isinstance(value, str):
        return ("s", canonical_string(value))
    if isinstance(value, list):
        return ("l", tuple(value_key(v) for v in value))
    if isinstance(value, dict):  # never a leaf; compared structurally so it can only match itself
        return ("o", tuple(sorted((k, value_key(v)) for k, v in value.items())))
    return ("x", repr(value))


_TERMINAL = re.compile(r"\s*[.,;:]\s*$")
_PUNCT_SPACING = re.compile(r"\s*([.,;:])\s*")
_NON_DIGIT = re.compile(r"\D")
_DIGIT = re.compile(r"\d")
_SPLIT_YEAR = re.compile(r"\b(19|20)\s+(\d{2})\b")
_TRAILING_TWO_DIGIT_YEAR = re.compile(r"^(.*[ ,/-])(\d{2})\s*$")


def _lenient_dates(s: str) -> list[str]:
    """ISO dates a whitespace-collapsed string may read as under `lenient_date`.

    A date reads as itself, a two-digit year in either century. A string that is not a date is
    rewritten, each rewrite kept only where it reads as a date: a year printed in two parts
    (`19 55`) is rejoined when a digit (a day) comes before it, and a trailing two-digit year
    after a space, comma, slash or hyphen, with a digit before it, is tried in both centuries
    (`May 1, 62` is 1962-05-01 or 2062-05-01; `May 11` stays no date).
    """
    dates = _parse_date(s, both_centuries=True)
    if dates:
        return dates
    rewrites = []
    m = _SPLIT_YEAR.search(s)
    if m and _DIGIT.search(s[: m.start()]):
        rewrites.append(_SPLIT_YEAR.sub(r"\1\2", s))
    for base in (s, *rewrites):
        m = _TRAILING_TWO_DIGIT_YEAR.match(base)
        if m and _DIGIT.search(m.group(1)):
            rewrites += [f"{m.group(1)}19{m.group(2)}", f"{m.group(1)}20{m.group(2)}"]
    return sorted({d for r in rewrites for d in _parse_date(collapse_ws(r))})


@lru_cache(maxsize=1 << 18)
def _relaxed_keys(s: str, leniencies: frozenset[str]) -> tuple[Key, ...]:
    """The forms a string compares as under each declared leniency on its own, tagged by the leniency.

    Each leniency relaxes the scoring form (whitespace collapsed, dates in ISO) independently of
    the others; two strings match under a leniency when both relax to the same form. A form is a
    function of the scoring form, so two values equal under the plain rules share every form.
    """
    text = canonical_string(s)
    out: list[Key] = []
    if "optional_terminal_punctuation" in leniencies:
        stripped = _TERMINAL.sub("", text)
        if stripped:  # punctuation alone never matches other punctuation
            out.append(("optional_terminal_punctuation", stripped))
    if "punctuation_spacing" in leniencies:
        out.append(("punctuation_spacing", collapse_ws(_PUNCT_SPACING.sub(r"\1", text))))
    if "case_insensitive" in leniencies:
        out.append(("case_insensitive", text.casefold()))
    if "phone_digits" in leniencies:
        digits = _NON_DIGIT.sub("", text)
        if len(digits) >= 10:
            out.append(("phone_digits", digits[-10:]))
        elif digits:  # shorter numbers compare by all their digits
            out.append(("phone_digits_short", digits))
    if "lenient_date" in leniencies:
        out += [("lenient_date", d) for d in _lenient_dates(collapse_ws(s))]
    return tuple(out)


def lenient_keys(value: Any, leniencies: Iterable[str]) -> frozenset[Key]:
    """Every key `value` may compare as under the declared leniencies: its exact key and, for each
    leniency on its own, its relaxed form (a set: a two-digit year reads in both centuries)."""
    lens = frozenset(leniencies)
    keys = {value_key(value)}
    if "null_equals_false" in lens and (value is None or value is False):
        keys.add(("null_equals_false",))
    if isinstance(value, str):
        keys.update(_relaxed_keys(value, lens))
    elif isinstance(value, list) and lens:
        # lists of scalars: element by element, under one leniency at a time
        for lens_one in sorted(lens):
            one = frozenset({lens_one})
            keys.add((lens_one, "list", tuple(min(lenient_keys(v, one) - {value_key(v)} or {value_key(v)})
                                              for v in value)))
    return frozenset(keys)


def cell_keys(values: tuple[Any, ...] | list[Any], leniencies: tuple[str, ...] = ()) -> Hashable:
    """The key a cell compares as, or a frozenset where it can match several: the exact keys of its
    readings and, under declared leniencies, their relaxed keys (`lenient_keys`).

    A predicted cell's keys are computed under the truth cell's leniencies; relaxed keys are tagged
    by their leniency, so two cells match under a leniency only through that leniency's forms.
    """
    if not leniencies:
        if len(values) == 1:
            return value_key(values[0])
        keys = frozenset(value_key(v) for v in values)
    else:
        keys = frozenset(k for v in values for k in lenient_keys(v, leniencies))
    return next(iter(keys)) if len(keys) == 1 else keys


def keys_match(a: Hashable, b: Hashable) -> bool:
    """Two cells match when their keys intersect."""
    if isinstance(a, frozenset):
        return not a.isdisjoint(b) if isinstance(b, frozenset) else b in a
    return a in b if isinstance(b, frozenset) else a == b


def accepts(readings: Iterable[Any], predicted: Any, leniencies: Iterable[str] = ()) -> bool:
    """OR-acceptance: the prediction matches any reading exactly, or (failing that) under the leniencies."""
    lens = tuple(sorted(set(leniencies)))
    return keys_match(cell_keys(tuple(readings), lens), cell_keys((predicted,), lens))


# --- consensus comparators (x-comparator) ---------------------------------------------------

_TRUE = {"true", "yes", "y", "x", "checked", "1", "on", "[x]", "☑", "☒", "✓", "✔"}
_FALSE = {"false", "no", "n", "unchecked", "0", "off", "[ ]", "☐", ""}
_NUMBER = re.compile(r"^\(?-?[$€£]?\s*-?[\d,]*\.?\d+\)?$")
# looser: a plus sign, the yen sign, spaces inside the parentheses, apostrophes and spaces between digit groups
_LOOSE_NUMBER = re.compile(r"^\(?\s*[-+]?\s*[$€£¥]?\s*[-+]?[\d,' ]*\.?\d+\s*\)?$")


def _as_number(value: Any, *, loose: bool = False) -> float | int | None:
    """The number a value spells (thousands separators, currency signs, parenthesized negatives removed),
    or None; `loose` accepts the wider spellings of `_LOOSE_NUMBER`."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        s = collapse_ws(value)
        if (_LOOSE_NUMBER if loose else _NUMBER).match(s):
            negative = (s.startswith("(") and s.endswith(")")) or "-" in s
            digits = re.sub(r"[^\d.]", "", s)
            try:
                num = float(digits)
            except ValueError:
                return None
            num = -num if negative else num
            return int(num) if num.is_integer() else num
    return None


def comparator_key(value: Any, comparator: str = "string") -> Key:
    """A consensus vote normalized by its field's comparator; null stays null.

    string: whitespace collapse and date canonicalization (the scoring key);
    case: that, casefolded; date: ISO date where one parses; boolean: common
    true/false spellings; number: thousands separators, currency signs and
    parenthesized negatives removed; phone: the last ten digits.
    """
    if value is None:
        return ("null",)
    if isinstance(value, list):
        return ("l", tuple(comparator_key(v, comparator) for v in value))
    if comparator == "case" and isinstance(value, str):
        return ("s", canonical_string(value).casefold())
    if comparator == "boolean":
        if isinstance(value, bool):
            return ("b", value)
        text = collapse_ws(str(value)).lower()
        if text in _TRUE:
            return ("b", True)
        if text in _FALSE:
            return ("b", False)
    if comparator == "number":
        num = _as_number(value)
        if num is not None:
            return ("n", num)
    if comparator == "phone" and isinstance(value, (str, int)):
        digits = re.sub(r"\D", "", str(value))
        if digits:
            return ("s", digits[-10:])
    return value_key(value)


def is_day_month_ambiguous(value: Any) -> bool:
    """A numeric date like 03/04/2019 whose first two parts could each be the month."""
    if not isinstance(value, str):
        return False
    m = _EITHER_ORDER_DATE.fullmatch(value.strip())
    return m is not None and int(m["a"]) <= 12 and int(m["b"]) <= 12 and m["a"] != m["b"]


# --- format-free forms (does a disagreement lie only in the format?) -------------------------

_NOT_ALNUM = re.compile(r"[\W_]+")


def loose_keys(value: Any) -> frozenset[Key]:
    """Every form a value could be read as once its format is ignored, so that two values differing only
    in format share one: the number it spells (loosely), the dates it reads as (a numeric date both
    month-first and day-first), its letters and digits casefolded; a boolean or a list as itself."""
    if type(value) in (str, int, float, bool):
        return _cached_loose_keys(value)
    return _loose_keys(value)


@lru_cache(maxsize=1 << 16, typed=True)  # typed: 1, 1.0 and True are cached apart
def _cached_loose_keys(value: Any) -> frozenset[Key]:
    return _loose_keys(value)


def _loose_keys(value: Any) -> frozenset[Key]:
    if value is None:
        return frozenset()
    if isinstance(value, bool):
        return frozenset({("b", value)})
    if isinstance(value, (int, float)):
        return frozenset({("n", value)})
    if isinstance(value, list):
        return frozenset({("l", json.dumps(value, sort_keys=True))})
    s = collapse_ws(str(value))
    out: set[Key] = {("d", iso) for iso in _parse_date(s, either_order=True)}
    number = _as_number(s, loose=True)
    if number is not None:
        out.add(("n", number))
    text = _NOT_ALNUM.sub("", s.casefold())
    if text:
        out.add(("t", text))
    return frozenset(out)
