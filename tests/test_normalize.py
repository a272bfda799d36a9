"""Date canonicalization with its guards, whitespace, exactness, leniencies, comparators."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gtkit.scoring.normalize import (
    accepts,
    comparator_key,
    is_day_month_ambiguous,
    value_key,
)


@pytest.mark.parametrize(
    "text",
    ["2019-03-28", "3/28/2019", "3/28/19", "3-28-2019", "March 28, 2019", "Thursday March 28 2019",
     "28 March 2019", "28-March-2019", "Mar 28, 2019", "28-Mar-2019"],
)
def test_common_date_formats_become_iso(text):
    assert value_key(text) == ("s", "2019-03-28")


@pytest.mark.parametrize(
    "text, why",
    [("2019", "all digits"), ("20190328", "all digits"), ("3/28/1899", "year before 1900"),
     ("3/28/2101", "year after 2100"), ("Invoice 1234567890 of 3/28/2019", "run of ten digits"),
     ("3/8", "shorter than 4"), ("x" * 45 + " March 28, 2019", "longer than 50"), ("2/30/2019", "no such day")],
)
def test_date_guards_keep_non_dates_intact(text, why):
    assert value_key(text) == ("s", " ".join(text.split())), why


def test_whitespace_collapses_and_trims_but_case_and_punctuation_stay():
    assert value_key("  12  Elm\n St ") == value_key("12 Elm St")
    assert value_key("Elm St") != value_key("elm st")
    assert value_key("Elm St.") != value_key("Elm St")


def test_everything_else_is_exact():
    assert value_key("1,000") != value_key(1000)
    assert value_key(1000) == value_key(1000.0)
    assert value_key(True) != value_key(1)
    assert value_key(0.1 + 0.2) != value_key(0.3)
    assert value_key(["a", "b"]) != value_key(["b", "a"])


def test_or_acceptance_over_readings():
    assert accepts(["Acme Inc", "ACME INC."], "ACME INC.")
    assert not accepts(["Acme Inc", "ACME INC."], "Acme")


@pytest.mark.parametrize(
    "leniency, truth, pred",
    [("null_equals_false", None, False), ("null_equals_false", False, None), ("case_insensitive", "ACME", "Acme"),
     ("optional_terminal_punctuation", "Acme Inc.", "Acme Inc"), ("punctuation_spacing", "Smith , J.", "Smith,J."),
     ("phone_digits", "(312) 555-0100", "+1 312 555 0100"), ("lenient_date", "3/28/19 55", "1955-03-28"),
     ("lenient_date", "3/28/55", "1955-03-28"), ("lenient_date", "3/28/75", "2075-03-28")],
)
def test_each_leniency_turns_a_miss_into_a_pass(leniency, truth, pred):
    assert not accepts([truth], pred)
    assert accepts([truth], pred, [leniency])


scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from(
    ["ACME", "Acme.", "acme", "3/28/55", "1955-03-28", "(312) 555-0100", "3125550100", "a , b", "a,b", " x  y "]))
lenients = st.lists(st.sampled_from(["null_equals_false", "case_insensitive", "optional_terminal_punctuation",
                                     "punctuation_spacing", "phone_digits", "lenient_date"]), unique=True)


@given(st.lists(scalars, min_size=1, max_size=3), scalars, lenients)
def test_a_leniency_never_turns_a_pass_into_a_miss(readings, pred, lens):
    if accepts(readings, pred):
        assert accepts(readings, pred, lens)


def test_comparators_normalize_votes():
    assert comparator_key("$1,000.00", "number") == comparator_key(1000, "number")
    assert comparator_key("(12.50)", "number") == ("n", -12.5)
    assert comparator_key("Yes", "boolean") == comparator_key(True, "boolean")
    assert comparator_key("ACME Inc", "case") == comparator_key("acme inc", "case")
    assert comparator_key("(312) 555-0100", "phone") == comparator_key("312.555.0100", "phone")
    assert comparator_key("March 28, 2019", "date") == comparator_key("2019-03-28", "date")
    assert comparator_key(None, "number") == ("null",)
    assert is_day_month_ambiguous("03/04/2019") and not is_day_month_ambiguous("03/28/2019")


# --- agreement with ExtractBench's reference scorer (tests/test_differential.py) ----------------

@pytest.mark.parametrize(
    "truth, pred",
    [("1 May 1962", "May 1, 62"), ("1952-09-07", "September 7, 52"),
     ("1 May 1962", "1 May 62"), ("2062-05-01", "May 1, 62"), ("1955-03-28", "March 28, 19 55"),
     ("1944-06-19", "June 19 44")],
)
def test_lenient_date_reads_a_named_month_with_a_two_digit_year_in_either_century(truth, pred):
    assert not accepts([truth], pred)
    assert accepts([truth], pred, ["lenient_date"])
    assert accepts([pred], truth, ["lenient_date"])


def test_lenient_date_rewrites_only_where_a_day_comes_first():
    assert not accepts(["2011-05-01"], "May 11", ["lenient_date"])  # a lone trailing pair is no year
    assert not accepts(["1944-06-01"], "June 19 44", ["lenient_date"])  # 19 is the day, not half a year


def test_leniencies_apply_one_at_a_time():
    lens = ["case_insensitive", "optional_terminal_punctuation"]
    assert accepts(["ACME"], "Acme", lens) and accepts(["Acme."], "Acme", lens)
    assert not accepts(["ACME."], "acme", lens)  # would need both at once


def test_terminal_punctuation_alone_never_matches_other_punctuation():
    assert not accepts(["."], ";", ["optional_terminal_punctuation"])


def test_phone_digits_compares_short_numbers_by_all_their_digits():
    assert accepts(["555-1234"], "555 1234", ["phone_digits"])
    assert not accepts(["555-1234"], "(212) 555-1234", ["phone_digits"])
    assert not accepts(["555-1234"], "555-1235", ["phone_digits"])


@pytest.mark.parametrize("text", ["28/3/2019", "28/03/19", "28-3-2019"])
def test_a_numeric_date_whose_first_part_cannot_be_a_month_reads_day_first(text):
    assert value_key(text) == ("s", "2019-03-28")


@pytest.mark.parametrize("text", ["13/13/2019", "2019-28-03", "32/3/2019"])
def test_a_numeric_date_that_fits_neither_way_stays_a_string(text):
    assert value_key(text) == ("s", text)
