"""Tests written against the mutants `make mutate` found surviving in the scoring core: each pins a behaviour
a surviving mutant changed and no other test noticed.

The normalize.py mutants still alive are equivalent (mutmut 3.8.1, 25 of 416), each for the reason given:
- _parse_date 3, 4 (the all-digits and ten-digit guards dropped): no date pattern fullmatches a string of digits
  alone or one with ten digits in a row, so the guards only save the regex work.
- _parse_date 7, 8 (shortest length 5 instead of 4): the shortest string a pattern reads is six characters (1/2/19).
- _parse_date 87 (`break` for `continue` past the year range): a four-digit year is the only year tried, and a
  two-digit year read in both centuries always lies in 1900-2099.
- _lenient_dates 23 (the digit before a trailing two-digit year looked for in the year): a rewrite with no digit
  before the year has one number only, and no pattern reads one number as a date.
- value_key 2-7, 15, 16, 20, 21 (the null, b, n, o, x tags renamed): keys are only compared with keys from the
  same function and stay distinct; the one tag read elsewhere is "s" (consensus/causes.py), killed here.
- lenient_keys 13-15, 26, 27 (the null_equals_false and list tags renamed, or None): the same, within the
  leniency keys.
- cell_keys 15 (a lone key returned as a one-element set): `keys_match` matches a one-element set exactly as its
  element; only the fast path is lost.
- comparator_key 1, 2 (another default comparator): there is no "string" branch; any unknown name takes it.
- loose_keys 1 (the cache never used): `_cached_loose_keys` only saves time.
"""

from __future__ import annotations

import json

import pytest

from gtkit.scoring.normalize import (
    accepts,
    comparator_key,
    is_day_month_ambiguous,
    keys_match,
    loose_keys,
    value_key,
)

# --- dates (the scoring key) -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, iso",
    [("1/1/1900", "1900-01-01"), ("12/31/2100", "2100-12-31"),  # the year range's ends are in it
     ("12/11/2019", "2019-12-11"),  # 12 can be a month: month-first
     ("13/3/2019", "2019-03-13"), ("28/12/2019", "2019-12-28")],  # a first part over 12 is the day
)
def test_numeric_date_edges(text, iso):
    assert value_key(text) == ("s", iso)


@pytest.mark.parametrize("text", ["12/31/1899", "1/1/2101", "3.28.2019", "28.3.2019"])
def test_numeric_dates_outside_the_range_or_with_dots_stay_strings(text):
    assert value_key(text) == ("s", text)  # dots are read only by the format-free forms (loose_keys)


def test_a_date_of_fifty_characters_is_read_and_one_of_fifty_one_is_not():
    fifty = "March" + "-" * 37 + "28, 2019"
    assert len(fifty) == 50 and value_key(fifty) == ("s", "2019-03-28")
    fifty_one = fifty.replace("March-", "March--")  # the pattern takes it: the length guard stops it
    assert len(fifty_one) == 51 and value_key(fifty_one) == ("s", fifty_one)


def test_an_object_or_an_unknown_value_matches_only_itself():
    assert value_key({"b": 1, "a": None}) == value_key({"a": None, "b": 1})
    assert value_key({"a": 1}) != value_key({"a": 2}) and value_key({"a": 1}) != value_key({"b": 1})
    assert value_key((1,)) == value_key((1,)) and value_key((1,)) != value_key((2,))


def test_a_single_key_matches_a_set_of_keys_it_is_in():
    both = frozenset({("s", "x"), ("s", "y")})
    assert keys_match(("s", "x"), both) and keys_match(both, ("s", "y"))
    assert not keys_match(("s", "z"), both) and not keys_match(both, ("s", "z"))
    assert keys_match(both, frozenset({("s", "y")})) and not keys_match(both, frozenset({("s", "z")}))


# --- leniencies ---------------------------------------------------------------------------------------------


def test_null_equals_false_relaxes_only_where_declared():
    assert not accepts([None], False, ["case_insensitive"])  # another leniency declared, not this one
    assert not accepts([False], None, ["phone_digits"])
    assert accepts([None], False, ["null_equals_false"])


def test_a_list_under_a_leniency_matches_only_a_list_that_relaxes_to_the_same_elements():
    assert accepts([["ACME", "Inc"]], ["acme", "inc"], ["case_insensitive"])
    assert not accepts([["ACME", "Inc"]], ["acme", "ltd"], ["case_insensitive"])
    assert not accepts([["ACME"]], ["xyz"], ["case_insensitive"])
    assert not accepts([[5]], [6], ["case_insensitive"])  # an element with no relaxed form compares exactly
    assert accepts([[None, "ACME"]], [False, "ACME"], ["null_equals_false"])
    assert accepts([["(312) 555-0100"]], ["3125550100"], ["phone_digits"])


# --- comparators (consensus votes) --------------------------------------------------------------------------


def test_the_number_comparator_takes_only_the_strict_spellings():
    assert comparator_key("1'000", "number") == ("s", "1'000")  # a digit-group apostrophe is a loose spelling
    assert comparator_key("+5", "number") == ("s", "+5")
    assert comparator_key("¥5", "number") == ("s", "¥5")


@pytest.mark.parametrize(
    "text, number",
    [("-5", -5), ("$-1,200", -1200), ("(12.50)", -12.5), ("12.50)", 12.5), ("(7", 7), ("1,000.00", 1000)],
)
def test_a_number_is_negative_by_a_minus_or_by_both_parentheses(text, number):
    assert comparator_key(text, "number") == ("n", number)


def test_a_whole_number_is_an_int():
    key = comparator_key("1,000.00", "number")
    assert key == ("n", 1000) and type(key[1]) is int
    assert type(comparator_key("2.5", "number")[1]) is float


def test_a_list_is_compared_element_by_element_under_its_comparator():
    assert comparator_key(["Yes", "No"], "boolean") == ("l", (("b", True), ("b", False)))
    assert comparator_key(["$1,000", "(2)"], "number") == ("l", (("n", 1000), ("n", -2)))


@pytest.mark.parametrize("comparator", ["boolean", "number", "phone", "case", "date", "string"])
def test_lists_differing_in_an_element_differ(comparator):
    assert comparator_key([], comparator) == ("l", ())
    assert comparator_key(["a", "b"], comparator) != comparator_key(["a", "c"], comparator)


def test_boolean_spellings():
    assert comparator_key("No", "boolean") == comparator_key(False, "boolean") == ("b", False)
    assert comparator_key(" off ", "boolean") == ("b", False)
    assert comparator_key("maybe", "boolean") == ("s", "maybe")  # neither spelling: the scoring key


def test_phone_keeps_the_last_ten_digits():
    assert comparator_key("+1 (312) 555-0100", "phone") == ("s", "3125550100")
    assert comparator_key(3125550100, "phone") == comparator_key("312.555.0100", "phone")
    assert comparator_key("x555-1234", "phone") == ("s", "5551234")
    assert comparator_key("n/a", "phone") == ("s", "n/a")


def test_a_comparator_key_has_the_shape_of_a_scoring_key():
    """Consensus reads a vote key's tag (`causes.py`: a string key is `("s", text)`), so a normalized vote is
    the scoring key of its normalized spelling."""
    assert comparator_key("  ACME  Inc ", "case") == value_key("acme inc")
    assert comparator_key("(312) 555-0100", "phone") == value_key("3125550100")
    assert comparator_key("plain", "unknown comparator") == value_key("plain")
    assert comparator_key("  a  b ") == ("s", "a b")
    assert comparator_key(["a"]) == value_key(["a"])


@pytest.mark.parametrize(
    "value, ambiguous",
    [("12/03/2019", True), ("03/12/2019", True), ("13/03/2019", False), ("03/13/2019", False),
     ("03/03/2019", False), (None, False), (3, False), ("12.11.19", True)],
)
def test_day_month_ambiguity_is_two_parts_each_a_possible_month(value, ambiguous):
    assert is_day_month_ambiguous(value) is ambiguous


# --- format-free forms (consensus causes) -------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, keys",
    [(None, set()), (True, {("b", True)}), (1, {("n", 1)}), (2.5, {("n", 2.5)}),
     ("3.5", {("n", 3.5), ("t", "35")}), ("--", set()), ("A-1 b", {("t", "a1b")}),
     ("( ¥ 1'000 )", {("n", -1000), ("t", "1000")}), ("+5", {("n", 5), ("t", "5")}),
     ("03/04/2019", {("d", "2019-03-04"), ("d", "2019-04-03"), ("t", "03042019")}),
     ("13.03.2019", {("d", "2019-03-13"), ("t", "13032019")}),  # read day-first once month-first fails
     ("2019-03-04", {("d", "2019-03-04"), ("t", "20190304")}),
     ("Acme_Inc.", {("t", "acmeinc")})],
)
def test_loose_keys(value, keys):
    assert loose_keys(value) == keys


def test_loose_keys_of_a_list_is_its_canonical_json():
    assert loose_keys([2, {"b": 1, "a": "x"}]) == {("l", json.dumps([2, {"a": "x", "b": 1}]))}
    assert loose_keys(["a"]) != loose_keys(["A"])


def test_loose_keys_keep_one_true_and_one_point_zero_apart():
    assert (loose_keys(1), loose_keys(True), loose_keys(1.0)) == ({("n", 1)}, {("b", True)}, {("n", 1.0)})
    assert type(next(iter(loose_keys(1.0)))[1]) is float
